// SPDX-License-Identifier: GPL-2.0
/*
 * struct_ops check: a Reno-like TCP congestion control whose callbacks
 * count their calls.  Exercises the struct_ops map update path (the
 * trampoline images) that the sched_ext class is registered through.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

__u64 nr_init, nr_cong_avoid, nr_ssthresh, nr_undo, nr_state, nr_release;

SEC("struct_ops/ca_init")
void BPF_PROG(ca_init, struct sock *sk)
{
	__sync_fetch_and_add(&nr_init, 1);
}

SEC("struct_ops/ca_release")
void BPF_PROG(ca_release, struct sock *sk)
{
	__sync_fetch_and_add(&nr_release, 1);
}

SEC("struct_ops/ca_set_state")
void BPF_PROG(ca_set_state, struct sock *sk, __u8 new_state)
{
	__sync_fetch_and_add(&nr_state, 1);
}

SEC("struct_ops/ca_cong_avoid")
void BPF_PROG(ca_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	__sync_fetch_and_add(&nr_cong_avoid, 1);
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/ca_ssthresh")
__u32 BPF_PROG(ca_ssthresh, struct sock *sk)
{
	__sync_fetch_and_add(&nr_ssthresh, 1);
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/ca_undo_cwnd")
__u32 BPF_PROG(ca_undo_cwnd, struct sock *sk)
{
	__sync_fetch_and_add(&nr_undo, 1);
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops testca = {
	.init		= (void *)ca_init,
	.release	= (void *)ca_release,
	.set_state	= (void *)ca_set_state,
	.cong_avoid	= (void *)ca_cong_avoid,
	.ssthresh	= (void *)ca_ssthresh,
	.undo_cwnd	= (void *)ca_undo_cwnd,
	.name		= "scx_testca",
};
