// SPDX-License-Identifier: GPL-2.0
/*
 * swdelay: attach swdelay.bpf.c (a busy-wait in every Nth sched_switch of
 * each CPU, or of those away from tasks whose name starts with PREFIX)
 * until SECONDS pass or SIGTERM/SIGINT, then print how many delays it made.
 * The program runs after the sched_switch probes attached before it, and
 * before those attached later: start it after the program whose delayed
 * thread is to be simulated. For tests only: interrupts are off during the
 * wait, and a wait longer than a tick (4 ms at the project kernel's HZ=250)
 * holds the tick back.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "swdelay.skel.h"

#define MAX_DELAY_US	5000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: swdelay [-n NTH] [-d US] [-c PREFIX] [-t SECONDS] [-h]\n"
		"Busy-wait US microseconds (default 2000, at most %d) in every\n"
		"NTH sched_switch of each CPU (default 50), counting only switches\n"
		"away from tasks whose name starts with PREFIX if given, for\n"
		"SECONDS (default: until SIGTERM or SIGINT); print delays=COUNT at\n"
		"the end.\n", MAX_DELAY_US);
}

/* a positive integer up to @max, or -1 */
static long num(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	long nth = 50, us = 2000, secs = 0;
	const char *prefix = "";
	struct swdelay_bpf *skel;
	int opt, err;

	while ((opt = getopt(argc, argv, "n:d:c:t:h")) != -1) {
		switch (opt) {
		case 'n':
			nth = num(optarg, 1000000);
			break;
		case 'd':
			us = num(optarg, MAX_DELAY_US);
			break;
		case 't':
			secs = num(optarg, 86400);
			break;
		case 'c':
			prefix = optarg;
			if (strlen(prefix) >= 16) {
				fprintf(stderr, "swdelay: -c takes at most 15 characters, not '%s'\n",
					prefix);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (nth < 0 || us < 0 || secs < 0) {
			fprintf(stderr, "swdelay: -%c takes a number from 1 to %d, not '%s'\n",
				opt, opt == 'd' ? MAX_DELAY_US : opt == 'n' ? 1000000 : 86400,
				optarg);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	skel = swdelay_bpf__open();
	if (!skel) {
		fprintf(stderr, "swdelay: open failed: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->every_nth = nth;
	skel->rodata->delay_ns = us * 1000;
	strncpy((char *)skel->rodata->prev_prefix, prefix,
		sizeof(skel->rodata->prev_prefix) - 1);
	err = swdelay_bpf__load(skel);
	if (!err)
		err = swdelay_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "swdelay: load/attach failed: %s\n", strerror(-err));
		swdelay_bpf__destroy(skel);
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("swdelay: attached, %ld us every %ld switches%s%s\n", us, nth,
	       *prefix ? " away from " : "", prefix);
	fflush(stdout);
	while (!stop && (!secs || secs-- > 0))
		sleep(1);
	printf("delays=%llu\n", (unsigned long long)skel->bss->nr_delays);
	swdelay_bpf__destroy(skel);
	return 0;
}
