// SPDX-License-Identifier: GPL-2.0
/*
 * spinner: a CPU hog or a sleeper with a chosen comm, for tests that tell
 * groups of tasks apart in a sched_switch trace (tests/tools/overlap.sh
 * groups by comm prefix).
 *
 * Usage: spinner [-n NAME] [-c] [-m] [-r RUN_US -s SLEEP_US] [-t SECONDS]
 *   -n NAME      comm of the task (prctl PR_SET_NAME, 15 chars kept)
 *   -m           with -r/-s: write "burst" to the tracefs trace_marker
 *                as each burst starts (see overlap.sh -m)
 *   -c           give the task a core-scheduling cookie of its own
 *                (PR_SCHED_CORE_CREATE); exits 3 if the kernel has none
 *   -r, -s       spin RUN_US of CPU time, then sleep SLEEP_US, in a loop
 *                (default: spin without sleeping)
 *   -t SECONDS   exit 0 after that long (default: run until killed)
 *   -N COUNT -g DIR
 *                fork COUNT spinners with these options instead, move
 *                the i-th (from 1) into cgroup DIR/mI (which must exist)
 *                and wait for them: one exec for many cgroups; they die
 *                with the parent (PR_SET_PDEATHSIG). Run the parent with
 *                chrt -f -R to set up many cgroups fast whatever the
 *                scheduler of the children
 * Prints nothing; exits 2 on bad usage, 1 if a child failed.
 */
#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#define PR_SCHED_CORE_CREATE	1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static const char usage[] =
	"usage: spinner [-n NAME] [-c] [-m] [-r RUN_US -s SLEEP_US] [-t SECONDS] [-N COUNT -g DIR]\n";

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

/* move task @task into cgroup @dir/m@i */
static int join_cgroup(const char *dir, long i, pid_t task)
{
	char path[4096], pid[32];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/m%ld/cgroup.procs", dir, i);
	snprintf(pid, sizeof(pid), "%d\n", task);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	ok = fputs(pid, f) >= 0;
	ok = !fclose(f) && ok;
	if (!ok)
		perror(path);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	long run_us = 0, sleep_us = 0, secs = 0, count = 0, i;
	const char *dir = NULL;
	long long end = 0;
	int opt, bad = 0, marker = -1;

	while ((opt = getopt(argc, argv, "n:cmr:s:t:N:g:h")) != -1) {
		switch (opt) {
		case 'n':
			prctl(PR_SET_NAME, optarg);
			break;
		case 'm':
			marker = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
			if (marker < 0) {
				perror("spinner: trace_marker");
				return 1;
			}
			break;
		case 'c':
			/* scope 0: this thread (PIDTYPE_PID) */
			if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, 0, 0)) {
				perror("spinner: PR_SCHED_CORE_CREATE");
				return 3;
			}
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
		case 'N':
			count = arg(optarg, 1, 100000);
			break;
		case 'g':
			dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!run_us != !sleep_us) {
		fprintf(stderr, "spinner: -r and -s go together\n");
		return 2;
	}
	if (!count != !dir) {
		fprintf(stderr, "spinner: -N and -g go together\n");
		return 2;
	}
	if (secs)
		end = clock_ns(CLOCK_MONOTONIC) + secs * 1000000000LL;

	for (i = 1; i <= count; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("spinner: fork");
			bad = 1;
			break;
		}
		if (!pid) {
			/* nothing outlives the parent (the test kills it) */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			count = 0;
			break;
		}
		/* moved by the parent: a child needs no CPU time to get there */
		if (join_cgroup(dir, i, pid)) {
			kill(pid, SIGKILL);
			bad = 1;
			break;
		}
	}
	if (count) {
		int status;

		while (wait(&status) > 0)
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				bad = 1;
		return bad;
	}

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
		if (marker >= 0 && write(marker, "burst\n", 6) < 0)
			marker = -1;
		while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < stop)
			;
		usleep(sleep_us);
	}
}
