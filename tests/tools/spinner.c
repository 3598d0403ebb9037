// SPDX-License-Identifier: GPL-2.0
/*
 * spinner: a CPU hog or a sleeper with a chosen comm, for tests that tell
 * groups of tasks apart in a sched_switch trace (tests/tools/overlap.sh
 * groups by comm prefix).
 *
 * Usage: spinner [-n NAME] [-r RUN_US -s SLEEP_US] [-t SECONDS]
 *   -n NAME      comm of the task (prctl PR_SET_NAME, 15 chars kept)
 *   -r, -s       spin RUN_US of CPU time, then sleep SLEEP_US, in a loop
 *                (default: spin without sleeping)
 *   -t SECONDS   exit 0 after that long (default: run until killed)
 * Prints nothing; exits 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

static long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long arg(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "spinner: bad number '%s' (%ld..%ld)\n", s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long run_us = 0, sleep_us = 0, secs = 0;
	long long end = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:s:t:h")) != -1) {
		switch (opt) {
		case 'n':
			prctl(PR_SET_NAME, optarg);
			break;
		case 'r':
			run_us = arg(optarg, 1, 10000000);
			break;
		case 's':
			sleep_us = arg(optarg, 1, 10000000);
			break;
		case 't':
			secs = arg(optarg, 1, 86400);
			break;
		case 'h':
			printf("usage: spinner [-n NAME] [-r RUN_US -s SLEEP_US] [-t SECONDS]\n");
			return 0;
		default:
			fprintf(stderr, "usage: spinner [-n NAME] [-r RUN_US -s SLEEP_US] [-t SECONDS]\n");
			return 2;
		}
	}
	if (!run_us != !sleep_us) {
		fprintf(stderr, "spinner: -r and -s go together\n");
		return 2;
	}
	if (secs)
		end = clock_ns(CLOCK_MONOTONIC) + secs * 1000000000LL;

	for (;;) {
		long long stop = clock_ns(CLOCK_THREAD_CPUTIME_ID) + run_us * 1000LL;

		if (end && clock_ns(CLOCK_MONOTONIC) >= end)
			return 0;
		if (!run_us) {
			/* a plain hog: look at the clock now and then */
			for (volatile long i = 0; i < 1000000; i++)
				;
			continue;
		}
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < stop)
			;
		usleep(sleep_us);
	}
}
