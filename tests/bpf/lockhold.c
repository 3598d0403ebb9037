// SPDX-License-Identifier: GPL-2.0
/*
 * lockhold: run a command and report how long the spinlocks of one kernel
 * object were held with IRQs off meanwhile (lockhold.bpf.c). The object is
 * named by its symbol in /proc/kallsyms; its extent is taken up to the next
 * symbol's address, which covers arrays of locks such as sched_ext's task
 * list buckets. Prints one line:
 *   holds N max_us X mean_us Y tasks_max T us_per_task C unmatched U
 * tasks_max is the most task_rq_lock() calls the holder made inside one
 * section (the tasks a walk handled with IRQs off), us_per_task the time
 * of all sections over all those calls. A second line gives the sections
 * by length, "hist_us" then LOW:COUNT for each non-empty slot, a slot
 * holding the sections of LOW up to 2*LOW microseconds (LOW 0: below 2).
 * Limits: only spin_lock_irq()/spin_unlock_irq() sections are timed; needs
 * root, kprobes and the kernel's BTF.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "lockhold.skel.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: lockhold -s SYMBOL [-h] -- COMMAND [ARGS...]\n"
		"Run COMMAND and report the spin_lock_irq() sections of the\n"
		"locks in the kernel object SYMBOL (its address up to the next\n"
		"symbol's) that ended meanwhile: their number, the longest and\n"
		"the mean in microseconds, the most task_rq_lock() calls in one\n"
		"section and the section time per such call. Exits with\n"
		"COMMAND's status, or 1 if the measurement failed.\n");
}

/* [lo, hi) of @sym: its address and the next higher symbol address */
static int symbol_extent(const char *sym, uint64_t *lo, uint64_t *hi)
{
	char line[512], name[256], type;
	uint64_t addr, next = UINT64_MAX;
	FILE *f = fopen("/proc/kallsyms", "r");

	*lo = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (!*lo && !strcmp(name, sym))
			*lo = addr;
	}
	if (!*lo) {
		fclose(f);
		return -ENOENT;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (addr > *lo && addr < next)
			next = addr;
	}
	fclose(f);
	if (next == UINT64_MAX)
		return -ERANGE;
	*hi = next;
	return 0;
}

int main(int argc, char **argv)
{
	const char *sym = NULL;
	struct lockhold_bpf *skel;
	uint64_t lo, hi, n, t;
	int opt, err, status;
	unsigned int k;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+s:h")) != -1) {
		switch (opt) {
		case 's':
			sym = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!sym || optind >= argc) {
		usage(stderr);
		return 2;
	}
	err = symbol_extent(sym, &lo, &hi);
	if (err || !lo) {
		fprintf(stderr, "lockhold: symbol %s not found in /proc/kallsyms (%s; root needed to see addresses)\n",
			sym, strerror(-err));
		return 1;
	}
	skel = lockhold_bpf__open();
	if (!skel) {
		fprintf(stderr, "lockhold: open failed: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->lock_lo = lo;
	skel->rodata->lock_hi = hi;
	err = lockhold_bpf__load(skel);
	if (!err)
		err = lockhold_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "lockhold: load/attach failed: %s\n", strerror(-err));
		lockhold_bpf__destroy(skel);
		return 1;
	}

	pid = fork();
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "lockhold: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "lockhold: cannot run %s: %s\n", argv[optind],
			strerror(errno));
		lockhold_bpf__destroy(skel);
		return 1;
	}
	lockhold_bpf__detach(skel);

	n = skel->bss->nr_holds;
	t = skel->bss->sum_tasks;
	printf("holds %" PRIu64 " max_us %.1f mean_us %.2f tasks_max %" PRIu64
	       " us_per_task %.2f unmatched %" PRIu64 "\n",
	       n, skel->bss->max_ns / 1000.0,
	       n ? skel->bss->sum_ns / 1000.0 / n : 0.0,
	       (uint64_t)skel->bss->max_tasks,
	       t ? skel->bss->sum_ns / 1000.0 / t : 0.0,
	       (uint64_t)skel->bss->unmatched);
	printf("hist_us");
	for (k = 0; k < sizeof(skel->bss->hist) / sizeof(skel->bss->hist[0]); k++)
		if (skel->bss->hist[k])
			printf(" %llu:%llu", k ? 1ULL << k : 0ULL,
			       (unsigned long long)skel->bss->hist[k]);
	printf("\n");
	lockhold_bpf__destroy(skel);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 1;
}
