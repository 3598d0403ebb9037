/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flatcg.bpf.c - hierarchical cpu.weight without nested runqueues, for the
 * 6.1 port of sched_ext.
 *
 * The cgroup hierarchy is flattened into one share per task: a task's share
 * of the machine is the product, down its cgroup's ancestors, of each
 * cgroup's weight over the sum of the weights of its active siblings, times
 * the task's own weight over the runnable weight of its cgroup. Tasks
 * directly in a non-leaf cgroup are siblings of its child cgroups, as in
 * CFS. Every task waits in one vtime-ordered DSQ; running for t ns advances
 * its vtime by t / share, so over time each task gets CPU in proportion to
 * its share, and a CPU always runs the runnable task furthest behind.
 *
 * Why this design on 6.1 (no BPF rbtree, no kptrs, no cgroup storage; see
 * flatcg/README.md): the kernel's vtime DSQ is the only ordered queue, so
 * the hierarchy is folded into the key instead of kept as a tree of queues.
 * No BPF loop depends on the number of cgroups or tasks: the ancestor walks
 * are bounded by FCG_MAX_DEPTH and nothing is ever picked by scanning.
 *
 * Cgroup state lives in a hash map keyed by cgroup ID. Each entry's sum is
 * the runnable weight below it (its own runnable tasks' weights plus the
 * weights of its active children); a cgroup is active while its sum is not
 * zero. A change of a sum that starts or ends activity is carried up to the
 * parent. The per-entry spin lock makes each cgroup's transitions and the
 * weight it lent its parent (contrib) consistent; parents only ever see
 * additions, which commute, so concurrent updates on other CPUs converge.
 *
 * Per-task state is kept in p->scx.bpf_data (task storage lookups fail at
 * random on 6.1): [0] the cgroup the task's weight is counted in, [1] that
 * weight, [2] when it last started running, [3] flags.
 *
 * A task's vtime carries its own debt, which dies with it; a cgroup's
 * tasks may all be short-lived (a CGI per request). So each cgroup also
 * keeps cvtime, its vtime as if it were one task of share hweight, and a
 * task it starts begins there: CPU its exited tasks took stays charged
 * to the cgroup, and CPU it could not get is credited. Both are capped at
 * FCG_LEAD_SLICES slices of vtime, so a cgroup that ran ahead where nobody
 * else could run (pinned tasks) does not make its new tasks wait for long,
 * and one that was idle does not bank credit.
 *
 * Limits: cgroups past the table's capacity or deeper than FCG_MAX_DEPTH
 * are not tracked and their tasks are scheduled as tasks of the root
 * cgroup (counted, never an ejection). Sleeper credit is bounded by
 * budget_ns of vtime, by default one slice at a share of one CPU.
 */
#include <scx/common.bpf.h>
#include "flatcg.h"

char _license[] SEC("license") = "GPL";

/* set by the loader before load */
const volatile u64 slice_ns = 20000000ULL;
const volatile u64 budget_ns = 20000000ULL;
const volatile bool fifo_sched;

UEI_DEFINE(uei);

/* read by the loader */
u64 vtime_now;
u64 hweight_gen = 1;
s64 nr_tracked;			/* cgroups in the table */
s64 nr_untracked;		/* cgroups that did not fit or are too deep */
s64 nr_active;			/* cgroups with runnable tasks below */

enum {
	TD_CGID		= 0,
	TD_WEIGHT	= 1,
	TD_STARTED	= 2,
	TD_FLAGS	= 3,
};

/* TD_FLAGS: placed on an idle CPU by select_cpu, not taken from the DSQ */
#define TDF_DIRECT	1ULL

#define ROOT_CGID	1

/* how far a cgroup's cvtime may lead or lag vtime_now, in slices */
#define FCG_LEAD_SLICES	10

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCG_DFL_MAX_CGROUPS);	/* loader: -C */
	__type(key, u64);
	__type(value, struct fcg_cgrp);
} cgrps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FCG_NR_STATS);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

/* what each CPU runs: the vtime its task started at, 0 if none of ours */
struct fcg_cpu {
	u64	vtime;
	u64	busy;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FCG_MAX_CPUS);
	__type(key, u32);
	__type(value, struct fcg_cpu);
} cpus SEC(".maps");

static void stat_inc_idx(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

static struct fcg_cgrp *cgrp_lookup(u64 cgid)
{
	return bpf_map_lookup_elem(&cgrps, &cgid);
}

/*
 * Add @delta to the runnable weight of @cgid and carry activity changes up
 * the tree. @kid is +1/-1 when the change is a child cgroup turning
 * active/idle, else 0. Bounded by FCG_MAX_DEPTH: entries are only ever
 * made with a parent of a lower level.
 */
static void cgrp_add(u64 cgid, s64 delta, s32 kid)
{
	bool changed = false;
	int i;

	for (i = 0; i <= FCG_MAX_DEPTH && cgid && delta; i++) {
		struct fcg_cgrp *c = cgrp_lookup(cgid);
		s64 old, new, pdelta = 0;

		if (!c) {
			stat_inc_idx(FCG_STAT_LOST);
			break;
		}

		bpf_spin_lock(&c->lock);
		old = c->sum;
		new = old + delta;
		c->sum = new;
		c->nr_kids += kid;
		/* the hweight of an active child depends on this sum */
		if (kid || c->nr_kids > 0)
			changed = true;
		if (!old && new) {
			c->contrib = c->weight;
			pdelta = c->contrib;
		} else if (old && !new) {
			pdelta = -(s64)c->contrib;
			c->contrib = 0;
		}
		bpf_spin_unlock(&c->lock);

		if (!pdelta)
			break;

		if (pdelta > 0) {
			__sync_fetch_and_add(&nr_active, 1);
			stat_inc_idx(FCG_STAT_ACTIVATE);
			kid = 1;
		} else {
			__sync_fetch_and_sub(&nr_active, 1);
			stat_inc_idx(FCG_STAT_DEACTIVATE);
			kid = -1;
		}
		cgid = c->parent;
		delta = pdelta;
	}

	/*
	 * A sum some active cgroup's hweight depends on changed. Bumped after
	 * the last sum is written: a reader that sees the new generation sees
	 * all of them; one that saw the old caches under the old one.
	 */
	if (changed)
		__sync_fetch_and_add(&hweight_gen, 1);
}

/*
 * Hierarchical weight of @c in FCG_ONE units: the product, up to the root,
 * of each level's lent weight over its parent's runnable weight. Cached
 * until the active set or a weight changes (hweight_gen, read before the
 * sums). A racing change leaves a stale value for one charge at most.
 */
static u64 cgrp_hweight(struct fcg_cgrp *c)
{
	u64 gen = READ_ONCE(hweight_gen);
	struct fcg_cgrp *cur = c;
	u64 h = FCG_ONE;
	int i;

	if (c->hweight_gen == gen && c->hweight) {
		stat_inc_idx(FCG_STAT_HWEIGHT_CACHED);
		return c->hweight;
	}

	for (i = 0; i < FCG_MAX_DEPTH; i++) {
		struct fcg_cgrp *p;
		u64 w, s;

		if (!cur->parent)
			break;
		p = cgrp_lookup(cur->parent);
		if (!p)
			break;
		w = READ_ONCE(cur->contrib) ?: READ_ONCE(cur->weight);
		s = READ_ONCE(p->sum);
		if ((s64)s < (s64)w)
			s = w;
		h = h * w / s;
		cur = p;
	}
	if (!h)
		h = 1;

	c->hweight = h;
	c->hweight_gen = gen;
	stat_inc_idx(FCG_STAT_HWEIGHT_CALC);
	return h;
}

/* the cgroup @p's weight is counted in: its own, or root if untracked */
static u64 task_account_cgid(struct task_struct *p)
{
	u64 cgid = scx_bpf_task_cgroup_id(p);

	if (cgid && cgrp_lookup(cgid))
		return cgid;
	stat_inc_idx(FCG_STAT_ROOT_FALLBACK);
	return ROOT_CGID;
}

s32 BPF_STRUCT_OPS(fcg_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu;

	cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
	if (is_idle) {
		/* nobody else wants that CPU: no order to keep */
		stat_inc_idx(FCG_STAT_LOCAL);
		p->scx.bpf_data[TD_FLAGS] |= TDF_DIRECT;
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_ns, 0);
	}
	return cpu;
}

/*
 * Wakeup preemption: a waking task whose vtime is more than a slice behind
 * the task running on its CPU takes that CPU now instead of waiting for
 * the slice to end (as CFS's wakeup preemption does). Without it, a task
 * with a small share (a kworker in the root cgroup beside heavy cgroups)
 * waits up to a slice at every wakeup, and a chain of wakeups crawls.
 */
static void wakeup_preempt(struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	u32 idx = cpu;
	struct fcg_cpu *c;

	if (cpu < 0)
		return;
	c = bpf_map_lookup_elem(&cpus, &idx);
	if (!c || !READ_ONCE(c->busy))
		return;
	if (vtime_before(p->scx.dsq_vtime + slice_ns, READ_ONCE(c->vtime))) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
		stat_inc_idx(FCG_STAT_PREEMPT);
	}
}

void BPF_STRUCT_OPS(fcg_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu;

	/*
	 * Per-CPU kernel threads (ksoftirqd, per-CPU kworkers) can run on
	 * their CPU only, where tasks pinned to it may lag far behind in
	 * vtime and would keep them waiting for as long as they lag, and
	 * what they defer (softirqs, RCU callbacks) with them. They go
	 * straight to their CPU's local queue and wait at most the slice
	 * running there.
	 */
	if ((p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1) {
		stat_inc_idx(FCG_STAT_LOCAL);
		p->scx.bpf_data[TD_FLAGS] |= TDF_DIRECT;
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		return;
	}

	stat_inc_idx(FCG_STAT_SHARED);
	p->scx.bpf_data[TD_FLAGS] &= ~TDF_DIRECT;
	scx_bpf_dispatch_vtime(p, FCG_DSQ, slice_ns, p->scx.dsq_vtime,
			       enq_flags);

	/*
	 * Stay work-conserving: a CPU that idles while this task waits would
	 * not look at the DSQ until something else wakes it.
	 */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		stat_inc_idx(FCG_STAT_KICK);
	} else if (enq_flags & SCX_ENQ_WAKEUP) {
		wakeup_preempt(p);
	}
}

void BPF_STRUCT_OPS(fcg_dispatch, s32 cpu, struct task_struct *prev)
{
	if (scx_bpf_consume(FCG_DSQ))
		stat_inc_idx(FCG_STAT_DISPATCH);
	else
		stat_inc_idx(FCG_STAT_DISPATCH_NONE);
}

void BPF_STRUCT_OPS(fcg_runnable, struct task_struct *p, u64 enq_flags)
{
	u64 cgid, w, floor;

	/* a second runnable without quiescent would count the task twice */
	if (p->scx.bpf_data[TD_CGID])
		cgrp_add(p->scx.bpf_data[TD_CGID],
			 -(s64)p->scx.bpf_data[TD_WEIGHT], 0);

	cgid = task_account_cgid(p);
	w = fifo_sched ? 100 : (p->scx.weight ?: 100);
	p->scx.bpf_data[TD_CGID] = cgid;
	p->scx.bpf_data[TD_WEIGHT] = w;
	cgrp_add(cgid, w, 0);

	/*
	 * A task that slept comes back at most budget_ns of vtime behind:
	 * at share s that is budget_ns * s of CPU time before it is level
	 * with the others, so a herd of waking tasks gets at most their
	 * parents' share of one budget, not one budget each. Only on wakeup:
	 * tasks that never sleep keep their order even when they lag (pinned
	 * tasks whose CPUs are busier than the rest).
	 */
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		return;
	floor = READ_ONCE(vtime_now) - budget_ns;
	if (vtime_before(p->scx.dsq_vtime, floor)) {
		p->scx.dsq_vtime = floor;
		stat_inc_idx(FCG_STAT_CREDIT_CUT);
	}
}

static void cpu_set(u64 vtime, u64 busy)
{
	u32 idx = bpf_get_smp_processor_id();
	struct fcg_cpu *c = bpf_map_lookup_elem(&cpus, &idx);

	if (c) {
		WRITE_ONCE(c->vtime, vtime);
		WRITE_ONCE(c->busy, busy);
	}
}

void BPF_STRUCT_OPS(fcg_running, struct task_struct *p)
{
	u64 v = p->scx.dsq_vtime;

	p->scx.bpf_data[TD_STARTED] = bpf_ktime_get_ns();
	cpu_set(v, 1);

	/*
	 * vtime_now follows the tasks taken from the DSQ, which come out in
	 * vtime order. A task placed straight on an idle CPU may be far ahead
	 * (a small share charged a whole slice): letting it move vtime_now
	 * would put every waking task behind all the others for seconds.
	 * Racy: a lost update only keeps vtime_now a little behind.
	 */
	if (p->scx.bpf_data[TD_FLAGS] & TDF_DIRECT)
		return;
	if (vtime_before(READ_ONCE(vtime_now), v))
		WRITE_ONCE(vtime_now, v);
}

void BPF_STRUCT_OPS(fcg_stopping, struct task_struct *p, bool runnable)
{
	u64 now = bpf_ktime_get_ns(), started = p->scx.bpf_data[TD_STARTED];
	u64 cgid = p->scx.bpf_data[TD_CGID], w = p->scx.bpf_data[TD_WEIGHT];
	u64 used, h, share, sum, floor, lead, vnow;
	struct fcg_cgrp *c;

	cpu_set(0, 0);
	if (!started || now <= started)
		return;
	p->scx.bpf_data[TD_STARTED] = 0;
	used = now - started;
	if (used > FCG_MAX_CHARGE_NS)
		used = FCG_MAX_CHARGE_NS;

	c = cgid ? cgrp_lookup(cgid) : NULL;
	if (!c || !w) {
		/* not accounted (it was never runnable under us): as nice 0 */
		p->scx.dsq_vtime += used;
		return;
	}
	__sync_fetch_and_add(&c->runtime_ns, used);

	h = cgrp_hweight(c);
	sum = READ_ONCE(c->sum);
	if ((s64)sum < (s64)w)
		sum = w;
	share = h * w / sum;
	if (!share)
		share = 1;
	p->scx.dsq_vtime += used * FCG_ONE / share;

	/*
	 * The cgroup's vtime advances as one task's of share h would. It is
	 * kept within FCG_LEAD_SLICES slices of vtime_now either way: an idle
	 * cgroup banks no more credit, a busy one owes no more debt. The
	 * bound is wider than one sleeper budget: a cgroup whose tasks are
	 * short-lived forks leaves gaps between its turns, and must keep the
	 * credit it earned across them. Racy: a clamp may drop a concurrent
	 * charge, but only of a cgroup that is at a bound anyway.
	 */
	vnow = READ_ONCE(vtime_now);
	floor = vnow - FCG_LEAD_SLICES * slice_ns;
	if (vtime_before(READ_ONCE(c->cvtime), floor))
		WRITE_ONCE(c->cvtime, floor);
	__sync_fetch_and_add(&c->cvtime, used * FCG_ONE / h);
	lead = vnow + FCG_LEAD_SLICES * slice_ns;
	if (vtime_before(lead, READ_ONCE(c->cvtime)))
		WRITE_ONCE(c->cvtime, lead);
}

void BPF_STRUCT_OPS(fcg_quiescent, struct task_struct *p, u64 deq_flags)
{
	u64 cgid = p->scx.bpf_data[TD_CGID];

	if (!cgid)
		return;
	cgrp_add(cgid, -(s64)p->scx.bpf_data[TD_WEIGHT], 0);
	p->scx.bpf_data[TD_CGID] = 0;
	p->scx.bpf_data[TD_WEIGHT] = 0;
}

/*
 * A new task (or, at load, every task) starts at its cgroup's cvtime, at
 * most FCG_LEAD_SLICES slices behind vtime_now: a cgroup that took
 * more than its share with tasks that have since exited waits its turn
 * with new ones, one that took less goes first. Not vtime_now itself:
 * the tasks of the cgroup ahead move vtime_now when they run, and new
 * tasks started there would all be level again. At fork the child's
 * cgroup is already known (sched_cgroup_fork()).
 */
void BPF_STRUCT_OPS(fcg_enable, struct task_struct *p)
{
	u64 v = READ_ONCE(vtime_now) - FCG_LEAD_SLICES * slice_ns;
	u64 cgid = scx_bpf_task_cgroup_id(p);
	struct fcg_cgrp *c = cgid ? cgrp_lookup(cgid) : NULL;

	if (c && vtime_before(v, READ_ONCE(c->cvtime)))
		v = READ_ONCE(c->cvtime);
	p->scx.dsq_vtime = v;
}

s32 BPF_STRUCT_OPS(fcg_cgroup_init, struct cgroup *cgrp,
		   struct scx_cgroup_init_args *args)
{
	struct fcg_cgrp init = { .weight = args->weight };
	u64 cgid = scx_cgroup_id(cgrp);
	s32 level = cgrp->level, l;
	int i;

	if (level > FCG_MAX_DEPTH)
		goto untracked;

	/* nearest tracked ancestor: the parent unless it did not fit */
	for (i = 0, l = level - 1; i < FCG_MAX_DEPTH && l >= 0; i++, l--) {
		u64 pid = scx_bpf_cgroup_ancestor_id(cgrp, l);

		if (pid && cgrp_lookup(pid)) {
			init.parent = pid;
			break;
		}
	}
	if (level && !init.parent)
		goto untracked;		/* not even the root: cannot happen */

	init.level = level;
	if (bpf_map_update_elem(&cgrps, &cgid, &init, BPF_NOEXIST))
		goto untracked;
	__sync_fetch_and_add(&nr_tracked, 1);
	return 0;

untracked:
	/* never fail the mkdir: the tasks run as the root cgroup's */
	__sync_fetch_and_add(&nr_untracked, 1);
	return 0;
}

void BPF_STRUCT_OPS(fcg_cgroup_exit, struct cgroup *cgrp)
{
	u64 cgid = scx_cgroup_id(cgrp);
	struct fcg_cgrp *c = cgrp_lookup(cgid);

	if (!c) {
		__sync_fetch_and_sub(&nr_untracked, 1);
		return;
	}
	bpf_map_delete_elem(&cgrps, &cgid);
	__sync_fetch_and_sub(&nr_tracked, 1);
}

void BPF_STRUCT_OPS(fcg_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	struct fcg_cgrp *c = cgrp_lookup(scx_cgroup_id(cgrp));
	s64 pdelta = 0;
	u64 parent;

	if (!c)
		return;

	bpf_spin_lock(&c->lock);
	c->weight = weight;
	if (c->contrib) {
		pdelta = (s64)weight - c->contrib;
		c->contrib = weight;
	}
	parent = c->parent;
	bpf_spin_unlock(&c->lock);

	/* the parent's sum changes (and with it the gen) only if active */
	if (pdelta)
		cgrp_add(parent, pdelta, 0);
}

void BPF_STRUCT_OPS(fcg_cgroup_move, struct task_struct *p,
		    struct cgroup *from, struct cgroup *to)
{
	/* the accounting moved with the quiescent/runnable pair around this */
	stat_inc_idx(FCG_STAT_CGRP_MOVE);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(fcg_init)
{
	return scx_bpf_create_dsq(FCG_DSQ, NUMA_NO_NODE);
}

void BPF_STRUCT_OPS(fcg_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

SEC(".struct_ops")
struct sched_ext_ops flatcg_ops = {
	.select_cpu		= (void *)fcg_select_cpu,
	.enqueue		= (void *)fcg_enqueue,
	.dispatch		= (void *)fcg_dispatch,
	.runnable		= (void *)fcg_runnable,
	.running		= (void *)fcg_running,
	.stopping		= (void *)fcg_stopping,
	.quiescent		= (void *)fcg_quiescent,
	.enable			= (void *)fcg_enable,
	.cgroup_init		= (void *)fcg_cgroup_init,
	.cgroup_exit		= (void *)fcg_cgroup_exit,
	.cgroup_set_weight	= (void *)fcg_cgroup_set_weight,
	.cgroup_move		= (void *)fcg_cgroup_move,
	.init			= (void *)fcg_init,
	.exit			= (void *)fcg_exit,
	.flags			= SCX_OPS_CGROUP_KNOB_WEIGHT,
	.name			= "flatcg",
};
