// SPDX-License-Identifier: GPL-2.0
/*
 * burst: a task that wakes at every multiple of a period, spins for a
 * fixed amount of CPU time and sleeps again, for T seconds. Periods are aligned to
 * CLOCK_MONOTONIC, so instances started in different cgroups wake together
 * (a thundering herd). A burst that ends after the next period's start
 * skips to the period after (it does not queue up work).
 *
 * Usage: burst [-r RUN_MS] [-p PERIOD_MS] [-t SECONDS]
 * Prints "bursts N late M" (M: bursts that overran their period) and exits
 * 0 once T seconds have passed; 2 on bad usage. Used by the flatcg guest
 * tests (herd, scale). Limits: the spin counts the thread's own CPU time,
 * so a preempted burst ends late rather than short.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static long arg(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "burst: bad value '%s' (%ld..%ld)\n", s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long run_ms = 5, period_ms = 100, secs = 10;
	long long period, end, next, bursts = 0, late = 0;
	int opt;

	while ((opt = getopt(argc, argv, "r:p:t:h")) != -1) {
		switch (opt) {
		case 'r':
			run_ms = arg(optarg, 0, 60000);
			break;
		case 'p':
			period_ms = arg(optarg, 1, 60000);
			break;
		case 't':
			secs = arg(optarg, 1, 86400);
			break;
		case 'h':
			printf("usage: burst [-r RUN_MS] [-p PERIOD_MS] [-t SECONDS]\n");
			return 0;
		default:
			fprintf(stderr, "usage: burst [-r RUN_MS] [-p PERIOD_MS] [-t SECONDS]\n");
			return 2;
		}
	}

	period = period_ms * 1000000LL;
	end = now_ns() + secs * 1000000000LL;
	next = (now_ns() / period + 1) * period;
	while (next < end) {
		struct timespec ts = { next / 1000000000LL, next % 1000000000LL };
		long long stop;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		stop = clock_ns(CLOCK_THREAD_CPUTIME_ID) + run_ms * 1000000LL;
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < stop)
			;
		bursts++;
		next += period;
		if (now_ns() >= next) {
			late++;
			next = (now_ns() / period + 1) * period;
		}
	}
	printf("bursts %lld late %lld\n", bursts, late);
	return 0;
}
