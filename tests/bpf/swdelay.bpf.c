// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection for the overlap checks of tests/guest/22-pair.sh: on every
 * every_nth sched_switch of each CPU (counting only switches away from a
 * task whose comm starts with prev_prefix, if set), busy-wait delay_ns in the
 * tracepoint, i.e. after the probes attached before this one ran and before
 * those attached after it. It stands for a thread delayed in the middle of
 * a switch (an NMI, a vCPU its host descheduled). Interrupts are off there:
 * a delay longer than a tick holds the tick back (tests only).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 every_nth = 50;
const volatile __u64 delay_ns = 2000000;
const volatile char prev_prefix[16];

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

__u64 nr_delays;

static long spin_cb(__u32 i, void *ctx)
{
	return bpf_ktime_get_ns() >= *(__u64 *)ctx;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&seen, &zero), until;
	int i;

	for (i = 0; i < sizeof(prev_prefix) && prev_prefix[i]; i++)
		if (prev->comm[i] != prev_prefix[i])
			return 0;
	if (!n || ++*n % every_nth)
		return 0;
	until = bpf_ktime_get_ns() + delay_ns;
	/* each round reads the clock: 1 << 23 rounds outlast the 5 ms cap */
	bpf_loop(1 << 23, spin_cb, &until, 0);
	__sync_fetch_and_add(&nr_delays, 1);
	return 0;
}
