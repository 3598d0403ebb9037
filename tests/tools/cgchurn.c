// SPDX-License-Identifier: GPL-2.0
/*
 * cgchurn: cgroup churn for T seconds, without a process per step. Each
 * round makes DIR/cN, moves task PID into it, moves PID on to the next of
 * the DEST cgroups (round robin) and removes DIR/cN.
 *
 * Usage: cgchurn -d DIR -p PID -t SECONDS DEST...
 * Prints "churned N" and exits 0; 1 (with the failing step) if a mkdir,
 * move or rmdir fails; 2 on bad usage. Used by the flatcg churn test, where
 * a shell loop would spend its time in fork and exec instead.
 * Limits: cgroup v2 paths; PID must stay alive for the whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int write_pid(const char *cg, const char *pid)
{
	char path[4096];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		ret = -1;
	if (fd >= 0)
		close(fd);
	if (ret)
		fprintf(stderr, "cgchurn: moving %s to %s: %s\n", pid, cg,
			strerror(errno));
	return ret;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *pid = NULL;
	char cg[4096];
	long secs = 0, n = 0;
	time_t end;
	int opt;

	while ((opt = getopt(argc, argv, "d:p:t:")) != -1) {
		switch (opt) {
		case 'd':
			dir = optarg;
			break;
		case 'p':
			pid = optarg;
			break;
		case 't':
			secs = atol(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!dir || !pid || secs <= 0 || optind >= argc)
		goto usage;

	end = time(NULL) + secs;
	while (time(NULL) < end) {
		snprintf(cg, sizeof(cg), "%s/c%ld", dir, n);
		if (mkdir(cg, 0755)) {
			fprintf(stderr, "cgchurn: mkdir %s: %s\n", cg, strerror(errno));
			return 1;
		}
		if (write_pid(cg, pid) ||
		    write_pid(argv[optind + n % (argc - optind)], pid))
			return 1;
		if (rmdir(cg)) {
			fprintf(stderr, "cgchurn: rmdir %s: %s\n", cg, strerror(errno));
			return 1;
		}
		n++;
	}
	printf("churned %ld\n", n);
	return 0;
usage:
	fprintf(stderr, "usage: cgchurn -d DIR -p PID -t SECONDS DEST...\n");
	return 2;
}
