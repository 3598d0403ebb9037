// SPDX-License-Identifier: GPL-2.0
/*
 * swcount: load and attach swcount.bpf.c, then make this process sleep N
 * times (each sleep switches it out) and check that the BPF program saw at
 * least N switch-outs of this pid.  Proves clang + bpftool skeleton +
 * libbpf + the project kernel's BTF work together.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "swcount.skel.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: swcount [-n SLEEPS] [-h]\n"
		"Count sched_switch events with a tp_btf BPF program while this\n"
		"process sleeps SLEEPS times (default 50); exit 0 if every sleep\n"
		"was seen as a switch-out of this process.\n");
}

int main(int argc, char **argv)
{
	struct swcount_bpf *skel;
	int opt, i, n = 50, err;
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	while ((opt = getopt(argc, argv, "n:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (n <= 0) {
		fprintf(stderr, "swcount: SLEEPS must be positive\n");
		return 2;
	}
	skel = swcount_bpf__open();
	if (!skel) {
		fprintf(stderr, "swcount: open failed: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_pid = getpid();
	err = swcount_bpf__load(skel);
	if (!err)
		err = swcount_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "swcount: load/attach failed: %s\n", strerror(-err));
		swcount_bpf__destroy(skel);
		return 1;
	}
	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	printf("sleeps=%d target_switch_outs=%llu all_switches=%llu\n", n,
	       (unsigned long long)skel->bss->nr_target_out,
	       (unsigned long long)skel->bss->nr_switches);
	err = skel->bss->nr_target_out >= (unsigned long long)n ? 0 : 1;
	swcount_bpf__destroy(skel);
	return err;
}
