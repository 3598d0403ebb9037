/*
 * hostspeed.c - how fast the host runs memory-bound work right now: times
 * a fixed walk of dependent loads through a buffer larger than the caches
 * (a random cyclic permutation, so every step waits for a cache and TLB
 * miss) and prints the thread CPU time the walk took.
 *
 * bench/run.sh runs it beside each scenario boot (-i 2: a ~30 ms walk every
 * 2 s) and adds each run's mean to raw.csv as host_chase_us, the covariate
 * of bench/stats adjust.  This host is itself a virtual machine: time its
 * hypervisor takes away, and memory bandwidth or cache its neighbours
 * take, shows up neither as steal time nor as load, only as slower work,
 * and QEMU's TCG, memory-bound itself, slows with it.  Thread CPU time is
 * used so that waiting for a CPU (QEMU keeps the host's CPUs busy) does
 * not count, while time lost on the CPU does.
 *
 * Limits: a sample covers ~30 ms of one host CPU; the walk also competes
 * with QEMU for the host's caches, so a variant that changes QEMU's memory
 * traffic can change the samples too (the report shows the covariate's
 * own ratio for that reason).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the walk's end, stored so the compiler cannot drop the walk */
static volatile size_t walk_end;

static double now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hostspeed [-i SECONDS] [-m MIB] [-s STEPS]\n"
		"Walk STEPS dependent loads (default 100000) through a random cycle\n"
		"over MIB MiB (default 64) and print \"epoch,chase_us\": the Unix time\n"
		"and the thread CPU time of the walk in microseconds.  With -i, print\n"
		"the header line \"epoch,chase_us\" and then one sample every SECONDS\n"
		"(whole seconds) until killed or its parent exits; without it, one\n"
		"sample and exit.\n");
}

static long number(const char *opt, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v <= 0 || v > max) {
		fprintf(stderr, "hostspeed: %s wants a whole number from 1 to %ld, not '%s'\n",
			opt, max, s);
		exit(2);
	}
	return v;
}

/* xorshift64: a fixed sequence, so every run builds the same cycle */
static unsigned long long next_rand(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	long interval = 0, mib = 64, steps = 100000, i;
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;
	size_t n, j, k, p = 0, t;
	size_t *next;
	pid_t parent = getppid();
	int opt;

	while ((opt = getopt(argc, argv, "i:m:s:h")) != -1) {
		switch (opt) {
		case 'i':
			interval = number("-i", optarg, 3600);
			break;
		case 'm':
			mib = number("-m", optarg, 4096);
			break;
		case 's':
			steps = number("-s", optarg, 100000000);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	n = (size_t)mib * 1024 * 1024 / sizeof(*next);
	next = malloc(n * sizeof(*next));
	if (!next) {
		fprintf(stderr, "hostspeed: cannot allocate %ld MiB\n", mib);
		return 1;
	}
	/* Sattolo's shuffle: one cycle through every slot */
	for (j = 0; j < n; j++)
		next[j] = j;
	for (j = n - 1; j > 0; j--) {
		k = next_rand(&seed) % j;
		t = next[j];
		next[j] = next[k];
		next[k] = t;
	}
	if (interval) {
		printf("epoch,chase_us\n");
		fflush(stdout);
	}
	for (;;) {
		double c0 = now_us(CLOCK_THREAD_CPUTIME_ID), c1;

		for (i = 0; i < steps; i++)
			p = next[p];
		c1 = now_us(CLOCK_THREAD_CPUTIME_ID);
		walk_end = p;
		if (printf("%.3f,%.0f\n", now_us(CLOCK_REALTIME) / 1e6, c1 - c0) < 0 ||
		    fflush(stdout))
			return 1;
		if (!interval)
			return 0;
		sleep(interval);
		/* bench/run.sh stops it; if run.sh itself was killed, stop too */
		if (getppid() != parent)
			return 0;
	}
}
