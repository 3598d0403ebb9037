/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flatcg.h - definitions shared by the flatcg BPF program and its loader:
 * limits, the per-CPU event counters and the scheduler's fixed-point unit.
 * See flatcg/README.md for what the scheduler does.
 */
#ifndef __FLATCG_H
#define __FLATCG_H

/* the one vtime-ordered DSQ every CPU consumes from */
#define FCG_DSQ			0

/*
 * Deepest cgroup level that is tracked. The ancestor walks are bounded by
 * it; tasks of a deeper cgroup are scheduled as tasks of the root cgroup
 * (counted in untracked_cgroups). systemd and Kubernetes trees are 2-5 deep.
 */
#define FCG_MAX_DEPTH		16

/* CPUs the per-CPU state covers; the loader refuses more */
#define FCG_MAX_CPUS		1024

/* default capacity of the cgroup table, -C changes it */
#define FCG_DFL_MAX_CGROUPS	16384

/* fixed-point 1.0 of hierarchical weights and task shares */
#define FCG_ONE			(1ULL << 24)

/* the longest run charged at once (a stale start stamp is not a lifetime) */
#define FCG_MAX_CHARGE_NS	1000000000ULL

/*
 * An entry of the cgroup table (BPF hash map keyed by cgroup ID). The loader
 * reads it for -v; struct bpf_spin_lock comes from vmlinux.h in BPF and from
 * <linux/bpf.h> in the loader.
 */
struct fcg_cgrp {
	struct bpf_spin_lock	lock;
	u32			weight;		/* cpu.weight, 1..10000 */
	u32			contrib;	/* lent to parent's sum while active */
	s64			sum;		/* runnable weight below */
	u64			parent;		/* nearest tracked ancestor, 0: root */
	u64			hweight;	/* cached hierarchical weight */
	u64			hweight_gen;	/* hweight_gen it was computed at */
	u64			runtime_ns;	/* CPU time of its own tasks */
	u64			cvtime;		/* its vtime as one task of share hweight */
	u32			level;
	s32			nr_kids;	/* active child cgroups */
};

/* per-CPU event counters, summed by the loader */
enum fcg_stat {
	FCG_STAT_LOCAL,		/* wakeup placed straight on an idle CPU */
	FCG_STAT_SHARED,	/* enqueued on the shared vtime DSQ */
	FCG_STAT_KICK,		/* an idle CPU woken for a shared-DSQ task */
	FCG_STAT_PREEMPT,	/* a waking task preempted a task far ahead */
	FCG_STAT_DISPATCH,	/* a CPU took a task from the shared DSQ */
	FCG_STAT_DISPATCH_NONE,	/* a CPU found nothing it may run */
	FCG_STAT_CREDIT_CUT,	/* a waking task's credit was cut to the budget */
	FCG_STAT_ACTIVATE,	/* a cgroup became active (runnable tasks below) */
	FCG_STAT_DEACTIVATE,	/* a cgroup became idle */
	FCG_STAT_HWEIGHT_CALC,	/* hierarchical weight recomputed */
	FCG_STAT_HWEIGHT_CACHED, /* hierarchical weight taken from the cache */
	FCG_STAT_ROOT_FALLBACK,	/* a task of an untracked cgroup, run as root's */
	FCG_STAT_CGRP_MOVE,	/* a task moved between cgroups */
	FCG_STAT_LOST,		/* accounting found no cgroup entry (removed) */
	FCG_NR_STATS,
};

#endif /* __FLATCG_H */
