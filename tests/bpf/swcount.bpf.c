// SPDX-License-Identifier: GPL-2.0
/*
 * Toolchain check: count sched_switch events (tp_btf) in which the task
 * with pid target_pid is switched out, plus all switches on every CPU.
 * Built with clang-16 against the vmlinux.h of the project kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile pid_t target_pid;
__u64 nr_switches;
__u64 nr_target_out;

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__sync_fetch_and_add(&nr_switches, 1);
	if (prev->pid == target_pid)
		__sync_fetch_and_add(&nr_target_out, 1);
	return 0;
}
