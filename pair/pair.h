/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pair.h - definitions shared by the pair BPF program and its loader:
 * limits, DSQ numbering, the per-core and per-domain state and the event
 * counters. See pair/README.md for what the scheduler does.
 */
#ifndef __PAIR_H
#define __PAIR_H

/* CPUs (and cores) the tables cover; the loader refuses more */
#define PAIR_MAX_CPUS		1024

/*
 * Domains: one per cgroup, each with its own vtime-ordered DSQ. Slot 0
 * means "none" (zeroed state needs no setup: sleepable programs may not
 * touch the maps with spin locks). Slot 1 is the overflow domain of cgroups
 * that found no free slot; its tasks run with the core's other thread
 * idle, since they may belong to different cgroups. -C sets the number of
 * slots, at most PAIR_MAX_DOMS.
 */
#define PAIR_MAX_DOMS		16384
#define PAIR_DFL_DOMS		4096
#define PAIR_NO_DOM		0
#define PAIR_OVERFLOW_DOM	1
#define PAIR_FIRST_DOM		2

/* DSQ IDs: unbound kernel threads, and one per domain slot */
#define PAIR_KERNEL_DSQ		1
#define PAIR_DOM_DSQ_BASE	0x10000

/* a task's run is charged at most this much at once */
#define PAIR_MAX_CHARGE_NS	1000000000ULL

/*
 * One physical core: which domain owns it and what its (at most two)
 * threads do. Every field is written under @lock.
 */
struct pair_core {
	struct bpf_spin_lock	lock;
	u32			dom;		/* owner slot, PAIR_NO_DOM if none */
	u32			active;		/* bit per thread: runs a task of dom */
	u32			preempted;	/* bit per thread: higher class runs */
	u32			draining;	/* no new task of dom starts */
	u32			run_dom[2];	/* per thread, what sched_switch
						 * last put on it: a user task's
						 * domain, 0 for none */
	u64			started_ns;	/* when dom got the core */
	u64			charged_ns;	/* core time charged up to here */
};

/* one domain slot (array map indexed by slot) */
struct pair_dom {
	u64			cgid;		/* owner cgroup, 0: free */
	u64			cvtime;		/* core time / weight (ns at 100) */
	u64			tvtime_now;	/* vtime of its last task started */
	u64			runtime_ns;	/* core time it owned */
	s64			nr_waiting;	/* runnable tasks not running */
	s64			nr_runnable;	/* runnable tasks, running or not */
	u32			weight;		/* cpu.weight, 1..10000 */
	u32			pad;
};

/* per-CPU event counters, summed by the loader */
enum pair_stat {
	PAIR_STAT_ENQ,		/* task queued on its domain's DSQ */
	PAIR_STAT_ENQ_KTHREAD,	/* kernel thread queued (runs beside any) */
	PAIR_STAT_ENQ_OVERFLOW,	/* task of a cgroup without a slot */
	PAIR_STAT_KICK,		/* idle CPU woken for a queued task */
	PAIR_STAT_RUN,		/* dispatch started a task of the owner */
	PAIR_STAT_RUN_KERNEL,	/* dispatch started a kernel thread */
	PAIR_STAT_IDLE_SIBLING,	/* idle: the other thread runs the old owner */
	PAIR_STAT_IDLE_PREEMPT,	/* idle: a higher class holds the other thread */
	PAIR_STAT_IDLE_ALONE,	/* idle: overflow domain runs on one thread */
	PAIR_STAT_IDLE_EMPTY,	/* idle: no domain has queued tasks */
	PAIR_STAT_IDLE_WAIT,	/* idle: other thread still leaving a domain */
	PAIR_STAT_RUN_LAST,	/* the last task of the owner runs on */
	PAIR_STAT_SWITCH,	/* a core changed owner */
	PAIR_STAT_RENEW,	/* batch over, no one else waits: owner kept */
	PAIR_STAT_EXPIRE_KICK,	/* batch over: other thread kicked out */
	PAIR_STAT_EMPTY_DRAIN,	/* owner had no queued task: core drains */
	PAIR_STAT_RELEASE,	/* a higher class took a thread */
	PAIR_STAT_ACQUIRE,	/* ... and gave it back */
	PAIR_STAT_CGRP_MOVE,	/* a task moved between cgroups */
	PAIR_STAT_OVERLAP,	/* sched_switch saw two cgroups on one core */
	PAIR_NR_STATS,
};

#endif /* __PAIR_H */
