// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit: how many short-lived processes the system can create and reap
 * per second. N workers (-n, default 4) each loop fork() + _exit(0) in the
 * child + waitpid() for T seconds (-t, default 5) and count; prints
 * "forks_per_s X" (all workers together) and exits 0. Every task exit goes
 * through the scheduler's task free path (sched_ext_free()), so this is the
 * load that shows what the free path costs. With -s US each child first
 * spins for US microseconds of its own CPU time: short-lived CPU-bound
 * tasks (a CGI per request), the load on which a scheduler must carry a
 * cgroup's CPU debt from its exited tasks to its new ones.
 *
 * Limits: measures wall-clock throughput, so it includes everything fork
 * and exit do, and the host's noise under QEMU; compare runs taken in one
 * boot or on a quiet host only.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* spin until this process has used @us microseconds of CPU */
static void spin_cpu(long us)
{
	struct timespec ts;
	long long end_ns = us * 1000LL, used;

	do {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		used = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	} while (used < end_ns);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [-n WORKERS] [-t SECONDS] [-s US]\n"
		"  fork()/_exit()/waitpid() loops in WORKERS processes (default 4)\n"
		"  for SECONDS (default 5); prints \"forks_per_s X\"\n"
		"  -s US: each child spins for US microseconds of CPU time before\n"
		"         it exits (default 0, at most 10000000)\n", prog);
}

int main(int argc, char **argv)
{
	unsigned long *counts;
	int n = 4, t = 5, opt, i, bad = 0;
	long spin_us = 0;
	unsigned long total = 0;
	double start, elapsed;

	while ((opt = getopt(argc, argv, "n:t:s:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			t = atoi(optarg);
			break;
		case 's':
			spin_us = atol(optarg);
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (n < 1 || n > 256 || t < 1 || t > 3600 || spin_us < 0 ||
	    spin_us > 10000000) {
		fprintf(stderr, "forkexit: -n must be 1-256, -t 1-3600 and -s 0-10000000\n");
		return 2;
	}

	/* one counter per worker, shared with the parent */
	counts = mmap(NULL, n * sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED) {
		perror("forkexit: mmap");
		return 1;
	}
	memset(counts, 0, n * sizeof(*counts));

	start = now_s();
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forkexit: fork");
			return 1;
		}
		if (!pid) {
			double end = start + t;

			while (now_s() < end) {
				pid_t c = fork();

				if (c < 0)
					_exit(1);
				if (!c) {
					if (spin_us)
						spin_cpu(spin_us);
					_exit(0);
				}
				if (waitpid(c, NULL, 0) != c)
					_exit(1);
				counts[i]++;
			}
			_exit(0);
		}
	}
	for (i = 0; i < n; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
	}
	elapsed = now_s() - start;
	for (i = 0; i < n; i++)
		total += counts[i];
	if (bad) {
		fprintf(stderr, "forkexit: %d workers failed\n", bad);
		return 1;
	}
	printf("forks_per_s %.1f\n", total / elapsed);
	return 0;
}
