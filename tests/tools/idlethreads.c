// SPDX-License-Identifier: GPL-2.0
/*
 * idlethreads: hold N sleeping threads (-n, default 10000) so that the
 * kernel's task lists are long: every thread is a task that a scheduler's
 * enable and disable walks must visit. Prints "ready N" once all exist,
 * then sleeps until SIGTERM or SIGINT (or -t SECONDS pass) and exits 0.
 * Each thread blocks in sigwait() on a small stack (64 KiB).
 * Limits: N is bounded by the guest's threads-max and pid_max; it exits 1
 * with the count reached when thread creation fails.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *idle_thread(void *arg)
{
	sigset_t *set = arg;
	int sig;

	for (;;)
		sigwait(set, &sig);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: idlethreads [-n THREADS] [-t SECONDS] [-h]\n"
		"Create THREADS sleeping threads (default 10000), print\n"
		"\"ready THREADS\", then wait for SIGTERM/SIGINT or SECONDS\n"
		"(default: no limit) and exit 0.\n");
}

int main(int argc, char **argv)
{
	static sigset_t never;
	sigset_t stop;
	pthread_attr_t attr;
	long n = 10000, secs = 0, i;
	int opt, err, sig;

	while ((opt = getopt(argc, argv, "n:t:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 't':
			secs = atol(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (n < 1 || secs < 0) {
		fprintf(stderr, "idlethreads: THREADS must be >= 1, SECONDS >= 0\n");
		return 2;
	}

	/* the threads wait for a signal nobody sends; main takes the stops */
	sigemptyset(&never);
	sigaddset(&never, SIGUSR2);
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGALRM);
	sigaddset(&stop, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++) {
		pthread_t t;

		err = pthread_create(&t, &attr, idle_thread, &never);
		if (err) {
			fprintf(stderr, "idlethreads: thread %ld: %s\n", i,
				strerror(err));
			return 1;
		}
		pthread_detach(t);
	}
	printf("ready %ld\n", n);
	fflush(stdout);

	sigdelset(&stop, SIGUSR2);
	if (secs)
		alarm(secs);
	sigwait(&stop, &sig);
	return 0;
}
