// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-run: run a command under a core-scheduling cookie of its own.
 *
 * Usage: cookie-run [-f PID] COMMAND [ARG...]
 *
 * Creates a new core-sched cookie for this process (PR_SCHED_CORE_CREATE,
 * thread-group scope), or with -f takes the cookie of task PID
 * (PR_SCHED_CORE_SHARE_FROM), then execs COMMAND.  (PR_SCHED_CORE_GET
 * cannot confirm it early after boot: it returns the cookie hashed with the
 * pointer-hash key, 0 until the kernel's RNG is ready.)  Everything COMMAND
 * forks inherits the cookie:
 * one cookie-run that starts all of a cgroup's tasks, or one task started
 * first whose PID the later ones name with -f, gives the cgroup one
 * cookie.  The kernel's core scheduling then lets the SMT siblings of a
 * core run only tasks of one cgroup at a time (what pair does without
 * cookies; bench/workloads/smt.sh and web.sh compare the two).
 * Limits: tasks that join the cgroup from elsewhere do not get the cookie.
 * Exit: COMMAND's status; 1 -f failed (no such task, no permission);
 * 2 bad usage; 3 no core scheduling (kernel without CONFIG_SCHED_CORE:
 * EINVAL; no SMT: ENODEV); 127 exec failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#define PR_SCHED_CORE_CREATE	1
#define PR_SCHED_CORE_SHARE_FROM 3
#endif
#define SCOPE_THREAD		0	/* PIDTYPE_PID */
#define SCOPE_THREAD_GROUP	1	/* PIDTYPE_TGID */

static const char usage[] =
	"usage: cookie-run [-f PID] COMMAND [ARG...]\n"
	"Run COMMAND (and all it forks) under a new core-scheduling cookie, or\n"
	"with -f under the cookie of task PID.\n";

int main(int argc, char **argv)
{
	long from = 0;
	char *end;
	int arg = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-f")) {
		errno = 0;
		from = strtol(argv[2], &end, 10);
		if (errno || end == argv[2] || *end || from < 1) {
			fprintf(stderr, "cookie-run: bad PID '%s'\n", argv[2]);
			return 2;
		}
		arg = 3;
	}
	if (arg >= argc || argv[arg][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	if (from) {
		if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_SHARE_FROM, from, SCOPE_THREAD, 0)) {
			fprintf(stderr, "cookie-run: PR_SCHED_CORE_SHARE_FROM %ld: %s\n",
				from, strerror(errno));
			return errno == EINVAL || errno == ENODEV ? 3 : 1;
		}
	} else if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, SCOPE_THREAD_GROUP, 0)) {
		fprintf(stderr, "cookie-run: PR_SCHED_CORE_CREATE: %s\n", strerror(errno));
		return 3;
	}
	execvp(argv[arg], argv + arg);
	fprintf(stderr, "cookie-run: %s: %s\n", argv[arg], strerror(errno));
	return 127;
}
