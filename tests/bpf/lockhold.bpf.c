// SPDX-License-Identifier: GPL-2.0
/*
 * How long spinlocks taken with spin_lock_irq() stay held, for locks whose
 * address lies in [lock_lo, lock_hi) (one kernel object, such as the task
 * list buckets of sched_ext). Kprobes on _raw_spin_lock_irq() and
 * _raw_spin_unlock_irq() time each section from the lock call to the
 * unlock call, by thread: IRQs are off for all of it. It also counts the
 * task_rq_lock() calls of the holder inside each section: the tasks a walk
 * handled in it.
 * Limits: locks taken with other variants (irqsave, plain) are not seen;
 * the maxima are updated without atomics, so two sections ending at once
 * on two CPUs may lose the smaller one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 lock_lo;
const volatile __u64 lock_hi;

__u64 nr_holds;
__u64 sum_ns;
__u64 max_ns;
__u64 sum_tasks;
__u64 max_tasks;
__u64 unmatched;
/* sections by length: hist[k] counts those of [2^k, 2^(k+1)) us, hist[0] < 2 us */
#define NR_SLOTS 24
__u64 hist[NR_SLOTS];

struct held {
	__u64 lock;
	__u64 t0;
	__u64 tasks;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct held);
} held_by_tid SEC(".maps");

static __u32 slot_of(__u64 us)
{
	__u32 k = 0;

	while (us > 1 && k < NR_SLOTS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

SEC("kprobe/_raw_spin_lock_irq")
int BPF_KPROBE(on_lock, void *lock)
{
	__u64 addr = (__u64)lock;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct held h;

	if (addr < lock_lo || addr >= lock_hi)
		return 0;
	h.lock = addr;
	h.tasks = 0;
	h.t0 = bpf_ktime_get_ns();
	bpf_map_update_elem(&held_by_tid, &tid, &h, BPF_ANY);
	return 0;
}

SEC("kprobe/_raw_spin_unlock_irq")
int BPF_KPROBE(on_unlock, void *lock)
{
	__u64 addr = (__u64)lock, d;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct held *h;

	if (addr < lock_lo || addr >= lock_hi)
		return 0;
	h = bpf_map_lookup_elem(&held_by_tid, &tid);
	if (!h || h->lock != addr) {
		__sync_fetch_and_add(&unmatched, 1);
		return 0;
	}
	d = bpf_ktime_get_ns() - h->t0;
	__sync_fetch_and_add(&nr_holds, 1);
	__sync_fetch_and_add(&sum_ns, d);
	__sync_fetch_and_add(&sum_tasks, h->tasks);
	if (d > max_ns)
		max_ns = d;
	if (h->tasks > max_tasks)
		max_tasks = h->tasks;
	__sync_fetch_and_add(&hist[slot_of(d / 1000)], 1);
	bpf_map_delete_elem(&held_by_tid, &tid);
	return 0;
}

SEC("kprobe/task_rq_lock")
int BPF_KPROBE(on_task_rq_lock)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct held *h;

	h = bpf_map_lookup_elem(&held_by_tid, &tid);
	if (h)
		h->tasks++;
	return 0;
}
