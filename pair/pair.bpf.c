/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pair.bpf.c - SMT co-scheduling by cgroup for the 6.1 port of sched_ext:
 * the hardware threads of a core only ever run user tasks of one cgroup at
 * a time, or idle.
 *
 * Each cgroup is a domain with its own vtime-ordered DSQ. Each core has an
 * owner domain; a thread about to pick a task (ops.dispatch) takes one from
 * its owner's DSQ into its own local DSQ, and nothing else ever puts a user
 * task on a local DSQ. The owner changes only while no thread of the core
 * runs a task of the old owner (the active bits); a thread that may not run
 * anything meanwhile idles (forced idle). The owner keeps the core for a
 * batch (-b); then the domain with the least core time per weight that has
 * queued tasks takes over, the other thread being kicked out of the old
 * owner's task. When a higher class (RT, deadline, stop) takes a thread,
 * ops.cpu_release() sends the waiting tasks of that CPU back through the
 * scheduler and kicks the other thread out of its task with a wait, and
 * the other thread idles until ops.cpu_acquire().
 *
 * Kernel threads belong to no domain: per-CPU ones go straight to their
 * CPU, unbound ones to a shared DSQ every thread looks at first. Like
 * interrupts they run beside any cgroup (see README, threat model).
 *
 * Domains are flat: each cgroup's own cpu.weight, whatever its parent's.
 * Inside a domain tasks share by their weight (nice) in vtime order.
 *
 * A tp_btf/sched_switch program checks the invariant as the kernel sees it:
 * it counts each time two threads of a core ran user tasks of two cgroups
 * at once and for how long (scheduler transitions included).
 *
 * Limits: at most two threads per core and PAIR_MAX_CPUS CPUs (the loader
 * checks); cgroups past the slot table share the overflow domain, which
 * runs on one thread of a core at a time; the windows where the kernel
 * bypasses the scheduler (loading, unloading, after an error) are not
 * covered.
 */
#include <scx/common.bpf.h>
#include "pair.h"

char _license[] SEC("license") = "GPL";

/* set by the loader before load */
const volatile u64 batch_ns = 20000000ULL;
const volatile u64 slice_ns = 5000000ULL;
const volatile u32 nr_doms = PAIR_DFL_DOMS;
const volatile s32 cpu_core[PAIR_MAX_CPUS];	/* core index of each CPU */
const volatile s32 cpu_sibling[PAIR_MAX_CPUS];	/* other thread, -1: none */
const volatile u8 cpu_thread[PAIR_MAX_CPUS];	/* 0 or 1 within its core */

UEI_DEFINE(uei);

/* read by the loader */
u64 cvtime_now;
s64 nr_tracked;			/* cgroups with a slot */
s64 nr_untracked;		/* cgroups in the overflow domain */
u64 overlap_ns;			/* two cgroups on one core, per sched_switch */
u64 forced_idle_ns;		/* CPUs idle while work waited for them */
u32 dom_hwm;			/* slots in use are below this */

/* bit per slot: its DSQ may have queued tasks */
#define NR_WORDS	(PAIR_MAX_DOMS / 64)	/* a power of 2: masks bound */
u64 dom_queued[NR_WORDS];

enum {
	TD_SLOT		= 0,	/* slot of the DSQ it was queued on, 0: none */
	TD_CGID		= 1,	/* its cgroup when queued, for the check */
	TD_STARTED	= 2,	/* when it last started running */
	TD_FLAGS	= 3,
};

/* TD_FLAGS: counted in its domain's nr_waiting */
#define TDF_WAITING	1ULL
/* TD_FLAGS: counted in its domain's nr_runnable */
#define TDF_RUNNABLE	2ULL

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PAIR_MAX_DOMS);	/* loader: -C */
	__type(key, u32);
	__type(value, struct pair_dom);
} doms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PAIR_MAX_DOMS);	/* loader: -C */
	__type(key, u64);
	__type(value, u32);
} cgid_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PAIR_MAX_CPUS);
	__type(key, u32);
	__type(value, struct pair_core);
} cores SEC(".maps");

/* what each CPU runs, for the invariant check; when it sat forced idle */
struct pair_cpu {
	u64	cgid;		/* cgroup of its user task, 0: none */
	u64	since;		/* when that started */
	u64	idle_since;	/* forced idle since, 0: not */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PAIR_MAX_CPUS);
	__type(key, u32);
	__type(value, struct pair_cpu);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PAIR_NR_STATS);
	__type(key, u32);
	__type(value, u64);
} stats SEC(".maps");

static void stat_inc_idx(u32 idx)
{
	u64 *cnt = bpf_map_lookup_elem(&stats, &idx);

	if (cnt)
		(*cnt)++;
}

static struct pair_dom *dom_lookup(u32 slot)
{
	return bpf_map_lookup_elem(&doms, &slot);
}

static struct pair_cpu *cpu_lookup(s32 cpu)
{
	u32 idx = cpu;

	return bpf_map_lookup_elem(&cpus, &idx);
}

/*
 * CPU numbers index the tables masked, so the verifier sees the bound; the
 * barrier keeps the compiler from dropping the mask after a range check.
 */
static u32 CPU_IDX(s32 cpu)
{
	u32 i = (u32)cpu & (PAIR_MAX_CPUS - 1);

	barrier_var(i);
	return i & (PAIR_MAX_CPUS - 1);
}

static bool cpu_valid(s32 cpu)
{
	return cpu >= 0 && cpu < PAIR_MAX_CPUS;
}

static struct pair_core *core_of(s32 cpu)
{
	u32 idx;

	if (!cpu_valid(cpu))
		return NULL;
	idx = cpu_core[CPU_IDX(cpu)];
	return bpf_map_lookup_elem(&cores, &idx);
}

static s32 sibling_of(s32 cpu)
{
	if (!cpu_valid(cpu))
		return -1;
	return cpu_sibling[CPU_IDX(cpu)];
}

static u32 thread_of(s32 cpu)
{
	if (!cpu_valid(cpu))
		return 0;
	return cpu_thread[CPU_IDX(cpu)] & 1;
}

static u32 thread_bit(s32 cpu)
{
	return 1U << thread_of(cpu);
}

/* ---- the queued-domain bitmap and the choice of the next owner ---------- */

static void dom_mark_queued(u32 slot)
{
	if (slot < PAIR_MAX_DOMS)
		__sync_fetch_and_or(&dom_queued[(slot / 64) & (NR_WORDS - 1)],
				    1ULL << (slot % 64));
}

static void dom_clear_queued(u32 slot)
{
	if (slot < PAIR_MAX_DOMS)
		__sync_fetch_and_and(&dom_queued[(slot / 64) & (NR_WORDS - 1)],
				     ~(1ULL << (slot % 64)));
}

/*
 * The bitmap follows each domain's count of runnable tasks that are not
 * running, kept from runnable/running/stopping/quiescent: a count is exact,
 * while a DSQ looked at from dispatch misses a task ops.enqueue() is still
 * handing over. After clearing a bit, a count that went up meanwhile sets
 * it again, so a domain with waiting tasks never stays unseen.
 */
static void dom_wait_add(u32 slot, s64 delta)
{
	struct pair_dom *d;
	s64 old, new;

	if (slot == PAIR_NO_DOM)
		return;
	d = dom_lookup(slot);
	if (!d)
		return;
	old = __sync_fetch_and_add(&d->nr_waiting, delta);
	new = old + delta;
	if (new > 0 && old <= 0) {
		dom_mark_queued(slot);
	} else if (new <= 0 && old > 0) {
		dom_clear_queued(slot);
		if (READ_ONCE(d->nr_waiting) > 0)
			dom_mark_queued(slot);
	}
}

static bool dom_waiting(u32 slot)
{
	struct pair_dom *d = dom_lookup(slot);

	return d && READ_ONCE(d->nr_waiting) > 0;
}

/* a bit set by a racing pair of updates with nothing waiting: drop it */
static void dom_mark_empty(u32 slot)
{
	struct pair_dom *d = dom_lookup(slot);

	if (!d || READ_ONCE(d->nr_waiting) > 0)
		return;
	dom_clear_queued(slot);
	if (READ_ONCE(d->nr_waiting) > 0)
		dom_mark_queued(slot);
}

/*
 * @p becomes runnable in its domain or stops being runnable. A domain that
 * had nothing runnable (it slept, or is new to its tasks) comes back at
 * most a batch behind cvtime_now. A domain whose tasks all run, none
 * waiting, keeps its place: it did not sleep.
 */
static void task_runnable(struct task_struct *p, bool runnable)
{
	u64 f = p->scx.bpf_data[TD_FLAGS];
	u32 slot = p->scx.bpf_data[TD_SLOT];
	struct pair_dom *d;
	u64 floor;

	if (runnable == !!(f & TDF_RUNNABLE))
		return;
	p->scx.bpf_data[TD_FLAGS] = runnable ? f | TDF_RUNNABLE :
					       f & ~TDF_RUNNABLE;
	if (slot == PAIR_NO_DOM)
		return;
	d = dom_lookup(slot);
	if (!d)
		return;
	if (!runnable) {
		__sync_fetch_and_sub(&d->nr_runnable, 1);
		return;
	}
	if (__sync_fetch_and_add(&d->nr_runnable, 1) > 0)
		return;
	floor = READ_ONCE(cvtime_now) - batch_ns;
	if (vtime_before(READ_ONCE(d->cvtime), floor))
		WRITE_ONCE(d->cvtime, floor);
}

/* @p starts or stops waiting for a CPU in its domain */
static void task_wait(struct task_struct *p, bool waiting)
{
	u64 f = p->scx.bpf_data[TD_FLAGS];

	if (waiting == !!(f & TDF_WAITING))
		return;
	p->scx.bpf_data[TD_FLAGS] = waiting ? f | TDF_WAITING :
					      f & ~TDF_WAITING;
	dom_wait_add(p->scx.bpf_data[TD_SLOT], waiting ? 1 : -1);
}

struct pick_ctx {
	u32	best;
	u64	best_vt;
};

static long pick_word_cb(u32 w, void *data)
{
	struct pick_ctx *ctx = data;
	u64 bits;
	int b;

	/* mask, not compare: the verifier loses the bound of a spilled u32 */
	w &= NR_WORDS - 1;
	barrier_var(w);
	bits = READ_ONCE(dom_queued[w]);
	for (b = 0; b < 64 && bits; b++, bits >>= 1) {
		struct pair_dom *d;
		u32 slot = w * 64 + b;
		u64 vt;

		if (!(bits & 1))
			continue;
		d = dom_lookup(slot);
		if (!d)
			continue;
		vt = READ_ONCE(d->cvtime);
		if (ctx->best == PAIR_NO_DOM || vtime_before(vt, ctx->best_vt)) {
			ctx->best = slot;
			ctx->best_vt = vt;
		}
	}
	return 0;
}

/*
 * The queued domain with the least core time per weight, PAIR_NO_DOM if
 * none. One pass over the bitmap words in use: O(slots / 64 + queued).
 * A global function: the verifier checks it once, not at every call.
 */
__noinline u32 pick_dom(void)
{
	struct pick_ctx ctx = { .best = PAIR_NO_DOM };
	u32 nw = (READ_ONCE(dom_hwm) + 63) / 64;

	if (nw > NR_WORDS)
		nw = NR_WORDS;
	bpf_loop(nw, pick_word_cb, &ctx, 0);
	return ctx.best;
}

/*
 * Is @a more than a batch behind @b? The margin keeps two domains of equal
 * weight that each fill a core from trading cores at every batch.
 */
static bool dom_behind(u32 a, u32 b)
{
	struct pair_dom *da = dom_lookup(a), *db = dom_lookup(b);

	if (!da || !db)
		return false;
	return vtime_before(READ_ONCE(da->cvtime) + batch_ns,
			    READ_ONCE(db->cvtime));
}

static u64 dom_cvtime(u32 slot)
{
	struct pair_dom *d = dom_lookup(slot);

	return d ? READ_ONCE(d->cvtime) : 0;
}

/*
 * cvtime_now follows the least advanced of the domains that run or wait,
 * as far as a dispatch sees them (its core's owner and the best queued
 * domain): a domain that had nothing runnable comes back at most a batch
 * behind it (task_runnable()). Were it to follow only core switches, a
 * domain keeping a core alone would run far ahead of it and every domain
 * arriving after would come back that far behind, and the domains already
 * waiting would wait for all of that lead to be run off.
 */
static void cvtime_advance(u32 owner, u32 queued)
{
	u64 lo;

	if (owner == PAIR_NO_DOM && queued == PAIR_NO_DOM)
		return;
	if (owner == PAIR_NO_DOM)
		lo = dom_cvtime(queued);
	else if (queued == PAIR_NO_DOM)
		lo = dom_cvtime(owner);
	else
		lo = scx_min(dom_cvtime(owner), dom_cvtime(queued));
	if (vtime_before(READ_ONCE(cvtime_now), lo))
		WRITE_ONCE(cvtime_now, lo);
}

/*
 * Core time @ns the domain @slot owned a core, scaled by its weight. The
 * threads of a core charge at every decision, at least once a slice while
 * the owner runs: a longer gap is time nobody decided (both threads idle,
 * or a vCPU descheduled) and is charged as one batch at most: a domain
 * pays only for time it could have run, and beside N other domains one
 * second charged too much costs it about N seconds of waiting.
 */
static void dom_charge(u32 slot, u64 ns)
{
	struct pair_dom *d;
	u32 w;

	if (slot == PAIR_NO_DOM || !ns)
		return;
	d = dom_lookup(slot);
	if (!d)
		return;
	if (ns > batch_ns)
		ns = batch_ns;
	w = READ_ONCE(d->weight) ?: 100;
	__sync_fetch_and_add(&d->runtime_ns, ns);
	__sync_fetch_and_add(&d->cvtime, ns * 100 / w);
}

/* ---- enqueue ------------------------------------------------------------ */

/* the slot of @p's cgroup, the overflow domain if it has none */
static u32 task_slot(struct task_struct *p, u64 *cgidp)
{
	u64 cgid = scx_bpf_task_cgroup_id(p);
	u32 *slot = cgid ? bpf_map_lookup_elem(&cgid_slot, &cgid) : NULL;

	*cgidp = cgid;
	if (slot && *slot < PAIR_MAX_DOMS)
		return *slot;
	return PAIR_OVERFLOW_DOM;
}

s32 BPF_STRUCT_OPS(pair_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	/* never dispatch from here: every task goes through its domain */
	return prev_cpu;
}

static void kick_idle_for(struct task_struct *p)
{
	s32 cpu;

	/* a whole idle core can take any domain */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, SCX_PICK_IDLE_CORE);
	if (cpu < 0)
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		stat_inc_idx(PAIR_STAT_KICK);
	}
}

/* clear this thread's active bit: it runs nothing of the owner now */
static void core_leave(struct pair_core *core, u32 me)
{
	bpf_spin_lock(&core->lock);
	core->active &= ~me;
	bpf_spin_unlock(&core->lock);
}

void BPF_STRUCT_OPS(pair_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct pair_dom *d;
	u64 cgid, floor;
	u32 slot;

	if (p->flags & PF_KTHREAD) {
		stat_inc_idx(PAIR_STAT_ENQ_KTHREAD);
		p->scx.bpf_data[TD_SLOT] = 0;
		p->scx.bpf_data[TD_CGID] = 0;
		if (p->nr_cpus_allowed == 1) {
			/* its CPU is its only choice: no pairing to keep */
			scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
			return;
		}
		scx_bpf_dispatch(p, PAIR_KERNEL_DSQ, slice_ns, enq_flags);
		kick_idle_for(p);
		return;
	}

	/* the domain was chosen in pair_runnable(); not seen: choose now */
	slot = p->scx.bpf_data[TD_SLOT];
	if (slot == PAIR_NO_DOM) {
		slot = task_slot(p, &cgid);
		p->scx.bpf_data[TD_SLOT] = slot;
		p->scx.bpf_data[TD_CGID] = cgid;
	}
	task_wait(p, true);
	stat_inc_idx(slot == PAIR_OVERFLOW_DOM ? PAIR_STAT_ENQ_OVERFLOW :
						 PAIR_STAT_ENQ);

	d = dom_lookup(slot);
	if (d) {
		/* a task that slept gets at most a slice of credit */
		floor = READ_ONCE(d->tvtime_now) - slice_ns;
		if (vtime_before(p->scx.dsq_vtime, floor))
			p->scx.dsq_vtime = floor;
	}

	/*
	 * The last task of this CPU, whose dispatch kept the claim for it
	 * (see pair_dispatch()): it runs on here, through the local DSQ of
	 * the CPU that decided.
	 */
	if (enq_flags & SCX_ENQ_LAST) {
		s32 cpu = bpf_get_smp_processor_id();
		struct pair_core *core = core_of(cpu);
		u32 me = thread_bit(cpu);
		bool mine = false;

		if (core) {
			bpf_spin_lock(&core->lock);
			mine = core->dom == slot && (core->active & me) &&
			       !core->draining;
			bpf_spin_unlock(&core->lock);
		}
		if (mine) {
			stat_inc_idx(PAIR_STAT_RUN_LAST);
			scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
			return;
		}
		/* the claim pair_dispatch() kept for it is void: it idles */
		if (core)
			core_leave(core, me);
	}

	scx_bpf_dispatch_vtime(p, PAIR_DOM_DSQ_BASE + slot, slice_ns,
			       p->scx.dsq_vtime, enq_flags);
	kick_idle_for(p);
}

/* ---- dispatch: the core protocol --------------------------------------- */

enum verdict {
	V_IDLE_EMPTY,
	V_IDLE_SIBLING,
	V_IDLE_PREEMPT,
	V_IDLE_ALONE,
	V_IDLE_WAIT,
	V_RUN,
	V_RUN_PREV,
};

static void forced_idle_end(s32 cpu, u64 now)
{
	struct pair_cpu *c = cpu_lookup(cpu);
	u64 since;

	if (!c)
		return;
	since = c->idle_since;
	if (since && now > since)
		__sync_fetch_and_add(&forced_idle_ns, now - since);
	c->idle_since = 0;
}

static void forced_idle_start(s32 cpu, u64 now)
{
	struct pair_cpu *c = cpu_lookup(cpu);

	if (c && !c->idle_since)
		c->idle_since = now;
}


/* can a thread whose sibling last ran @other start a task of @dom? */
static bool sibling_allows(u32 other, u32 dom)
{
	if (other == PAIR_NO_DOM)
		return true;
	return other == dom && dom != PAIR_OVERFLOW_DOM;
}

void BPF_STRUCT_OPS(pair_dispatch, s32 cpu, struct task_struct *prev)
{
	struct pair_core *core = core_of(cpu);
	u32 me = thread_bit(cpu), dom, cand, charge_dom, run_dom, other;
	u32 wait_dom = PAIR_NO_DOM;
	u32 ot = !thread_of(cpu);
	s32 sib = sibling_of(cpu);
	u64 now = bpf_ktime_get_ns(), charge;
	bool expired, kick_sib, kick_out, switched, renewed, prev_here;
	enum verdict v = V_IDLE_EMPTY;
	int tries;

	if (!core) {
		scx_bpf_error("CPU %d has no core", cpu);
		return;
	}
	/*
	 * With core scheduling (PR_SCHED_CORE cookies), the kernel fills a
	 * sibling's local DSQ from this CPU while the sibling still runs its
	 * task: its claim must not be cleared from here. It dispatches for
	 * itself when it next schedules.
	 */
	if (cpu != bpf_get_smp_processor_id())
		return;
	forced_idle_end(cpu, now);

	/* kernel threads run beside any domain */
	if (scx_bpf_consume(PAIR_KERNEL_DSQ)) {
		core_leave(core, me);
		stat_inc_idx(PAIR_STAT_RUN_KERNEL);
		return;
	}

	/* @prev goes back to its domain's DSQ right after this (ENQ_LAST) */
	prev_here = prev && (prev->scx.flags & SCX_TASK_QUEUED) &&
		    !(prev->flags & PF_KTHREAD);

	for (tries = 0; tries < 3; tries++) {
		dom = READ_ONCE(core->dom);
		expired = dom != PAIR_NO_DOM &&
			  now - READ_ONCE(core->started_ns) >= batch_ns;
		cand = PAIR_NO_DOM;
		if (dom == PAIR_NO_DOM || READ_ONCE(core->draining) || expired)
			cand = pick_dom();
		/* the owner keeps the core unless a queued domain is behind it */
		if (cand != PAIR_NO_DOM && cand != dom && dom != PAIR_NO_DOM &&
		    !dom_behind(cand, dom) && !READ_ONCE(core->draining))
			cand = dom;

		kick_sib = kick_out = switched = renewed = false;
		charge = 0;
		run_dom = PAIR_NO_DOM;

		bpf_spin_lock(&core->lock);
		core->active &= ~me;
		other = ot ? core->run_dom[1] : core->run_dom[0];
		charge_dom = core->dom;
		if (charge_dom != PAIR_NO_DOM && now > core->charged_ns) {
			/* a core a higher class holds is not the owner's */
			if (!core->preempted)
				charge = now - core->charged_ns;
			core->charged_ns = now;
		}
		dom = core->dom;
		if (core->preempted & ~me) {
			v = V_IDLE_PREEMPT;
		} else {
			if (dom != PAIR_NO_DOM && expired && !core->draining) {
				if (cand == dom || cand == PAIR_NO_DOM) {
					core->started_ns = now;	/* renew */
					renewed = true;
				} else {
					core->draining = 1;
				}
			}
			if (dom == PAIR_NO_DOM || core->draining) {
				if (core->active & ~me) {
					v = V_IDLE_SIBLING;
					kick_out = expired;
				} else if (cand == PAIR_NO_DOM) {
					core->dom = PAIR_NO_DOM;
					core->draining = 0;
					v = V_IDLE_EMPTY;
				} else if (!sibling_allows(other, cand)) {
					/* it is on its way out: look again */
					v = V_IDLE_WAIT;
					wait_dom = cand;
				} else {
					switched = cand != dom;
					core->dom = cand;
					core->started_ns = now;
					core->charged_ns = now;
					core->draining = 0;
					core->active |= me;
					run_dom = cand;
					kick_sib = true;
					v = V_RUN;
				}
			} else if (dom == PAIR_OVERFLOW_DOM &&
				   (core->active & ~me)) {
				v = V_IDLE_ALONE;
			} else if (!sibling_allows(other, dom)) {
				v = V_IDLE_WAIT;
				wait_dom = dom;
			} else {
				core->active |= me;
				run_dom = dom;
				v = V_RUN;
			}
		}
		bpf_spin_unlock(&core->lock);

		dom_charge(charge_dom, charge);
		if (renewed)
			stat_inc_idx(PAIR_STAT_RENEW);
		cvtime_advance(core->dom, cand);
		if (switched)
			stat_inc_idx(PAIR_STAT_SWITCH);
		/* the other thread joins the new owner */
		if (kick_sib && sib >= 0)
			scx_bpf_kick_cpu(sib, SCX_KICK_IDLE);
		if (kick_out && sib >= 0) {
			scx_bpf_kick_cpu(sib, SCX_KICK_PREEMPT);
			stat_inc_idx(PAIR_STAT_EXPIRE_KICK);
		}

		if (v != V_RUN)
			break;
		if (scx_bpf_consume(PAIR_DOM_DSQ_BASE + run_dom)) {
			stat_inc_idx(PAIR_STAT_RUN);
			return;
		}
		/*
		 * Nothing queued, but @prev of this domain is about to be
		 * queued again: keep the claim, pair_enqueue() puts it back
		 * on this CPU (unless the batch is over and others wait).
		 */
		if (prev_here && prev->scx.bpf_data[TD_SLOT] == run_dom &&
		    !(expired && cand != run_dom)) {
			v = V_RUN_PREV;
			break;
		}

		/* the owner has nothing queued: let the core go to others */
		dom_mark_empty(run_dom);
		bpf_spin_lock(&core->lock);
		core->active &= ~me;
		if (core->dom == run_dom)
			core->draining = 1;
		bpf_spin_unlock(&core->lock);
		stat_inc_idx(PAIR_STAT_EMPTY_DRAIN);
		v = V_IDLE_EMPTY;
	}

	switch (v) {
	case V_RUN_PREV:
		return;
	case V_IDLE_SIBLING:
		stat_inc_idx(PAIR_STAT_IDLE_SIBLING);
		break;
	case V_IDLE_PREEMPT:
		stat_inc_idx(PAIR_STAT_IDLE_PREEMPT);
		break;
	case V_IDLE_ALONE:
		stat_inc_idx(PAIR_STAT_IDLE_ALONE);
		break;
	case V_IDLE_WAIT:
		/*
		 * The other thread cleared its claim but sched_switch has not
		 * taken it off the old domain's task yet (microseconds, more
		 * if its vCPU is descheduled): if the domain has a task for
		 * this thread, come back right away.
		 */
		stat_inc_idx(PAIR_STAT_IDLE_WAIT);
		if (dom_waiting(wait_dom))
			scx_bpf_kick_cpu(cpu, 0);
		break;
	default:
		stat_inc_idx(PAIR_STAT_IDLE_EMPTY);
		return;
	}
	/* forced idle: idle while some domain has tasks waiting */
	if (cand != PAIR_NO_DOM || pick_dom() != PAIR_NO_DOM)
		forced_idle_start(cpu, now);
}

/* ---- higher classes ----------------------------------------------------- */

void BPF_STRUCT_OPS(pair_cpu_release, s32 cpu,
		    struct scx_cpu_release_args *args)
{
	struct pair_core *core = core_of(cpu);
	u32 me = thread_bit(cpu), charge_dom = PAIR_NO_DOM;
	s32 sib = sibling_of(cpu);
	u64 now = bpf_ktime_get_ns(), charge = 0;
	bool sib_active;

	stat_inc_idx(PAIR_STAT_RELEASE);
	/* tasks waiting on this CPU would run after it without a decision */
	scx_bpf_reenqueue_local();
	if (!core)
		return;
	bpf_spin_lock(&core->lock);
	/* the owner pays up to here: the higher class's time is not its */
	if (!core->preempted && core->dom != PAIR_NO_DOM &&
	    now > core->charged_ns) {
		charge_dom = core->dom;
		charge = now - core->charged_ns;
	}
	core->charged_ns = now;
	core->preempted |= me;
	core->active &= ~me;
	sib_active = core->active & ~me;
	bpf_spin_unlock(&core->lock);
	dom_charge(charge_dom, charge);

	/* the higher-class task starts only once the other thread left */
	if (sib_active && sib >= 0)
		scx_bpf_kick_cpu(sib, SCX_KICK_PREEMPT | SCX_KICK_WAIT);
}

void BPF_STRUCT_OPS(pair_cpu_acquire, s32 cpu,
		    struct scx_cpu_acquire_args *args)
{
	struct pair_core *core = core_of(cpu);
	u32 me = thread_bit(cpu);
	s32 sib = sibling_of(cpu);
	u64 now;

	stat_inc_idx(PAIR_STAT_ACQUIRE);
	if (!core)
		return;
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&core->lock);
	core->preempted &= ~me;
	if (!core->preempted)
		core->charged_ns = now;	/* owned again from here */
	bpf_spin_unlock(&core->lock);
	if (sib >= 0)
		scx_bpf_kick_cpu(sib, SCX_KICK_IDLE);
}

/* ---- task vtime inside a domain ---------------------------------------- */

void BPF_STRUCT_OPS(pair_runnable, struct task_struct *p, u64 enq_flags)
{
	u64 cgid = 0;
	u32 slot = PAIR_NO_DOM;

	/* a second runnable without quiescent must not count it twice */
	task_wait(p, false);
	task_runnable(p, false);
	if (!(p->flags & PF_KTHREAD))
		slot = task_slot(p, &cgid);
	p->scx.bpf_data[TD_SLOT] = slot;
	p->scx.bpf_data[TD_CGID] = cgid;
	task_runnable(p, true);
	task_wait(p, true);
}

void BPF_STRUCT_OPS(pair_quiescent, struct task_struct *p, u64 deq_flags)
{
	task_wait(p, false);
	task_runnable(p, false);
}

void BPF_STRUCT_OPS(pair_running, struct task_struct *p)
{
	u32 slot = p->scx.bpf_data[TD_SLOT];
	struct pair_dom *d;

	task_wait(p, false);

	p->scx.bpf_data[TD_STARTED] = bpf_ktime_get_ns();
	if (!slot)
		return;
	d = dom_lookup(slot);
	if (d && vtime_before(READ_ONCE(d->tvtime_now), p->scx.dsq_vtime))
		WRITE_ONCE(d->tvtime_now, p->scx.dsq_vtime);
}

void BPF_STRUCT_OPS(pair_stopping, struct task_struct *p, bool runnable)
{
	u64 now = bpf_ktime_get_ns(), started = p->scx.bpf_data[TD_STARTED];
	u64 used;

	if (runnable)
		task_wait(p, true);
	if (!started || now <= started)
		return;
	p->scx.bpf_data[TD_STARTED] = 0;
	used = now - started;
	if (used > PAIR_MAX_CHARGE_NS)
		used = PAIR_MAX_CHARGE_NS;
	p->scx.dsq_vtime += used * 100 / (p->scx.weight ?: 100);
}

/*
 * A running task that changes cgroup or enters the class keeps its CPU
 * without a decision: make it go through the scheduler now.
 */
static void resched_if_running(struct task_struct *p)
{
	if (scx_bpf_task_running(p))
		scx_bpf_kick_cpu(scx_bpf_task_cpu(p), SCX_KICK_PREEMPT);
}

void BPF_STRUCT_OPS(pair_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = 0;
	resched_if_running(p);
}

void BPF_STRUCT_OPS(pair_cgroup_move, struct task_struct *p,
		    struct cgroup *from, struct cgroup *to)
{
	stat_inc_idx(PAIR_STAT_CGRP_MOVE);
	resched_if_running(p);
}

/* ---- cgroups ------------------------------------------------------------ */

struct alloc_ctx {
	u64	cgid;
	u32	start;
	u32	slot;
};

/* claim a free slot whose DSQ is empty (no task of a removed cgroup left) */
static long alloc_cb(u32 i, void *data)
{
	struct alloc_ctx *ctx = data;
	u32 n = nr_doms, slot;
	struct pair_dom *d;

	if (n <= PAIR_FIRST_DOM)
		return 1;
	slot = PAIR_FIRST_DOM + (ctx->start + i) % (n - PAIR_FIRST_DOM);
	d = dom_lookup(slot);
	if (!d || READ_ONCE(d->cgid))
		return 0;
	if (scx_bpf_dsq_nr_queued(PAIR_DOM_DSQ_BASE + slot) > 0)
		return 0;
	if (__sync_val_compare_and_swap(&d->cgid, 0, ctx->cgid) != 0)
		return 0;
	ctx->slot = slot;
	return 1;
}

static u32 alloc_hint;

s32 BPF_STRUCT_OPS_SLEEPABLE(pair_cgroup_init, struct cgroup *cgrp,
			     struct scx_cgroup_init_args *args)
{
	struct alloc_ctx ac = { .cgid = scx_cgroup_id(cgrp),
				 .slot = PAIR_NO_DOM };
	struct pair_dom *d;
	u32 hwm;
	int i;

	ac.start = __sync_fetch_and_add(&alloc_hint, 1);
	bpf_loop(nr_doms, alloc_cb, &ac, 0);
	if (ac.slot == PAIR_NO_DOM)
		goto overflow;
	d = dom_lookup(ac.slot);
	if (!d)
		goto overflow;
	WRITE_ONCE(d->weight, args->weight);
	WRITE_ONCE(d->runtime_ns, 0);
	WRITE_ONCE(d->cvtime, READ_ONCE(cvtime_now));
	if (bpf_map_update_elem(&cgid_slot, &ac.cgid, &ac.slot, BPF_ANY)) {
		WRITE_ONCE(d->cgid, 0);
		goto overflow;
	}
	/* raise the scan bound; a few racing raisers, bounded retries */
	for (i = 0; i < 16; i++) {
		hwm = READ_ONCE(dom_hwm);
		if (hwm > ac.slot ||
		    __sync_val_compare_and_swap(&dom_hwm, hwm, ac.slot + 1) == hwm)
			break;
	}
	__sync_fetch_and_add(&nr_tracked, 1);
	return 0;

overflow:
	/* never fail the mkdir: its tasks share the overflow domain */
	__sync_fetch_and_add(&nr_untracked, 1);
	return 0;
}

void BPF_STRUCT_OPS(pair_cgroup_exit, struct cgroup *cgrp)
{
	u64 cgid = scx_cgroup_id(cgrp);
	u32 *slotp = bpf_map_lookup_elem(&cgid_slot, &cgid), slot;
	struct pair_dom *d;

	if (!slotp) {
		__sync_fetch_and_sub(&nr_untracked, 1);
		return;
	}
	slot = *slotp;
	bpf_map_delete_elem(&cgid_slot, &cgid);
	d = dom_lookup(slot);
	if (d)
		WRITE_ONCE(d->cgid, 0);	/* reused once its DSQ is empty */
	__sync_fetch_and_sub(&nr_tracked, 1);
}

void BPF_STRUCT_OPS(pair_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	u64 cgid = scx_cgroup_id(cgrp);
	u32 *slotp = bpf_map_lookup_elem(&cgid_slot, &cgid);
	struct pair_dom *d;

	if (!slotp)
		return;
	d = dom_lookup(*slotp);
	if (d)
		WRITE_ONCE(d->weight, weight);
}

/* ---- the invariant, as sched_switch sees it ---------------------------- */

/* uapi policies, not in vmlinux.h */
#define POLICY_NORMAL	0
#define POLICY_BATCH	3
#define POLICY_IDLE	5

static bool user_task(struct task_struct *p)
{
	int policy = p->policy;

	return p->pid && !(p->flags & PF_KTHREAD) &&
	       (policy == POLICY_NORMAL || policy == POLICY_BATCH ||
		policy == POLICY_IDLE || policy == SCHED_EXT);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(pair_on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	s32 cpu = bpf_get_smp_processor_id(), sib = sibling_of(cpu);
	u64 now = bpf_ktime_get_ns(), cg = 0, scg = 0, from, ov = 0;
	struct pair_cpu *c = cpu_lookup(cpu), *s;
	struct pair_core *core = core_of(cpu);
	u32 slot = PAIR_NO_DOM, t;

	if (!c)
		return 0;
	if (user_task(next)) {
		cg = next->scx.bpf_data[TD_CGID];
		slot = next->scx.bpf_data[TD_SLOT];
	}
	if (!core) {
		WRITE_ONCE(c->cgid, cg);
		WRITE_ONCE(c->since, now);
		return 0;
	}
	s = sib >= 0 ? cpu_lookup(sib) : NULL;
	t = thread_of(cpu);
	/*
	 * run_dom (what this thread runs now, for the other thread's
	 * decisions) and the check's view change in one critical section: a
	 * sibling that saw this thread leave a domain in run_dom also sees
	 * its cgroup gone. Written one after the other, a thread delayed
	 * between the two (an NMI, a vCPU its host descheduled) left its old
	 * cgroup in the check while the sibling already ran another: an
	 * overlap that never ran in user space.
	 */
	bpf_spin_lock(&core->lock);
	if (t)
		core->run_dom[1] = slot;
	else
		core->run_dom[0] = slot;
	if (s) {
		scg = s->cgid;
		/* an overlap that this switch ends */
		if (c->cgid && scg && c->cgid != scg) {
			from = c->since > s->since ? c->since : s->since;
			if (from && now > from)
				ov = now - from;
		}
	}
	c->cgid = cg;
	c->since = now;
	bpf_spin_unlock(&core->lock);

	if (ov)
		__sync_fetch_and_add(&overlap_ns, ov);
	if (cg && scg && cg != scg)
		stat_inc_idx(PAIR_STAT_OVERLAP);
	return 0;
}

/* ---- load and exit ------------------------------------------------------ */

static long create_cb(u32 i, void *data)
{
	s32 *ret = data;

	*ret = scx_bpf_create_dsq(PAIR_DOM_DSQ_BASE + i, -1);
	return *ret ? 1 : 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(pair_init)
{
	s32 ret = 0;

	ret = scx_bpf_create_dsq(PAIR_KERNEL_DSQ, -1);
	if (ret)
		return ret;
	bpf_loop(nr_doms, create_cb, &ret, 0);
	if (ret)
		return ret;

	/* the overflow domain is always there, weighted as a default cgroup */
	{
		struct pair_dom *d = dom_lookup(PAIR_OVERFLOW_DOM);

		if (d)
			d->weight = 100;
	}
	if (dom_hwm < PAIR_FIRST_DOM)
		dom_hwm = PAIR_FIRST_DOM;
	return 0;
}

void BPF_STRUCT_OPS(pair_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

SEC(".struct_ops")
struct sched_ext_ops pair_ops = {
	.select_cpu		= (void *)pair_select_cpu,
	.enqueue		= (void *)pair_enqueue,
	.dispatch		= (void *)pair_dispatch,
	.runnable		= (void *)pair_runnable,
	.running		= (void *)pair_running,
	.stopping		= (void *)pair_stopping,
	.quiescent		= (void *)pair_quiescent,
	.enable			= (void *)pair_enable,
	.cpu_acquire		= (void *)pair_cpu_acquire,
	.cpu_release		= (void *)pair_cpu_release,
	.cgroup_init		= (void *)pair_cgroup_init,
	.cgroup_exit		= (void *)pair_cgroup_exit,
	.cgroup_set_weight	= (void *)pair_cgroup_set_weight,
	.cgroup_move		= (void *)pair_cgroup_move,
	.init			= (void *)pair_init,
	.exit			= (void *)pair_exit,
	.flags			= SCX_OPS_ENQ_LAST | SCX_OPS_ENQ_EXITING |
				  SCX_OPS_CGROUP_KNOB_WEIGHT,
	.name			= "pair",
};
