/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-loader.h - helpers shared by the loaders of the project's sched_ext
 * schedulers (flatcg/flatcg.c, pair/pair.c): number options, the checks
 * before loading, per-CPU counters, cgroup paths by ID and the clock.
 * Header-only (static functions); include after <scx/common.h>.
 * Limits: one loader per process (loader_cgid_path keeps its result in a
 * static buffer).
 */
#ifndef __SCX_LOADER_H
#define __SCX_LOADER_H

#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

/* a decimal in [@min, @max] into @out; -1 if @s is not one */
static int loader_parse_u64(const char *s, u64 min, u64 max, u64 *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* the checks SCX_OPS_OPEN would fail with a less helpful message */
static int loader_preflight(const char *name)
{
	char ops[64] = "";
	FILE *f;

	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root (loads a BPF scheduler)\n",
			name);
		return 1;
	}
	if (access("/sys/kernel/sched_ext/state", R_OK)) {
		fprintf(stderr, "%s: this kernel has no sched_ext (/sys/kernel/sched_ext/state: %s)\n",
			name, strerror(errno));
		return 1;
	}
	if (scx_sysfs_state_is("disabled"))
		return 0;
	f = fopen("/sys/kernel/sched_ext/root/ops", "r");
	if (f) {
		if (!fgets(ops, sizeof(ops), f))
			ops[0] = '\0';
		ops[strcspn(ops, "\n")] = '\0';
		fclose(f);
	}
	fprintf(stderr, "%s: another sched_ext scheduler is loaded (%s); stop it first\n",
		name, ops[0] ? ops : "state is not \"disabled\"");
	return 1;
}

/* each of the @nr counters of a per-CPU array map, summed over the CPUs */
static void loader_sum_percpu(int map_fd, u32 nr, u64 *out)
{
	int nr_cpus = libbpf_num_possible_cpus();
	u64 cnts[nr_cpus];
	u32 idx;

	for (idx = 0; idx < nr; idx++) {
		int cpu;

		out[idx] = 0;
		if (bpf_map_lookup_elem(map_fd, &idx, cnts))
			continue;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			out[idx] += cnts[cpu];
	}
}

static u64 loader_path_want;
static char loader_path_found[PATH_MAX];

static int loader_path_cb(const char *fpath, const struct stat *sb, int type,
			  struct FTW *ftw)
{
	if (type != FTW_D || sb->st_ino != loader_path_want)
		return 0;
	snprintf(loader_path_found, sizeof(loader_path_found), "%s",
		 fpath + strlen("/sys/fs/cgroup"));
	return 1;
}

/* the cgroup ID is the inode number of its cgroupfs directory */
static const char *loader_cgid_path(u64 cgid)
{
	if (cgid == 1)
		return "/";
	loader_path_want = cgid;
	loader_path_found[0] = '\0';
	if (nftw("/sys/fs/cgroup", loader_path_cb, 16, FTW_PHYS) != 1)
		return "(removed)";
	return loader_path_found;
}

static double loader_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* __SCX_LOADER_H */
