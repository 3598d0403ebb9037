/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-loader.h - helpers shared by the loaders of the project's sched_ext
 * schedulers (flatcg/flatcg.c, pair/pair.c): number options, the checks
 * before loading, per-CPU counters, cgroup paths by ID and the clock.
 * Header-only (static functions); include after <scx/common.h>.
 * Limits: one loader per process (the table of cgroup paths is global).
 */
#ifndef __SCX_LOADER_H
#define __SCX_LOADER_H

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * Cgroup paths by ID: one walk of /sys/fs/cgroup per listing fills a table
 * sorted by ID, and each lookup is a binary search (a walk per lookup made
 * -v take minutes with 200 cgroups under TCG). The cgroup ID is the inode
 * number of its cgroupfs directory.
 */
struct loader_cgpath {
	u64	cgid;
	char	*path;
};

static struct loader_cgpath *loader_paths;
static size_t loader_nr_paths, loader_cap_paths;

static int loader_paths_cb(const char *fpath, const struct stat *sb, int type,
			   struct FTW *ftw)
{
	const char *rel = fpath + strlen("/sys/fs/cgroup");
	struct loader_cgpath *n;

	if (type != FTW_D)
		return 0;
	if (loader_nr_paths == loader_cap_paths) {
		size_t cap = loader_cap_paths ? 2 * loader_cap_paths : 256;

		n = realloc(loader_paths, cap * sizeof(*n));
		if (!n)
			return 1;	/* out of memory: the rest read "(removed)" */
		loader_paths = n;
		loader_cap_paths = cap;
	}
	n = &loader_paths[loader_nr_paths];
	n->path = strdup(*rel ? rel : "/");
	if (!n->path)
		return 1;
	n->cgid = sb->st_ino;
	loader_nr_paths++;
	return 0;
}

static int loader_cgpath_cmp(const void *a, const void *b)
{
	const struct loader_cgpath *x = a, *y = b;

	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/* read the cgroup tree anew: once before the lookups of each listing */
static void loader_cgid_paths_load(void)
{
	size_t i;

	for (i = 0; i < loader_nr_paths; i++)
		free(loader_paths[i].path);
	loader_nr_paths = 0;
	nftw("/sys/fs/cgroup", loader_paths_cb, 16, FTW_PHYS);
	qsort(loader_paths, loader_nr_paths, sizeof(*loader_paths),
	      loader_cgpath_cmp);
}

/* the path of cgroup @cgid as of the last loader_cgid_paths_load() */
static const char *loader_cgid_path(u64 cgid)
{
	struct loader_cgpath key = { .cgid = cgid }, *f;

	if (cgid == 1)
		return "/";
	f = bsearch(&key, loader_paths, loader_nr_paths, sizeof(key),
		    loader_cgpath_cmp);
	return f ? f->path : "(removed)";
}

static double loader_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* __SCX_LOADER_H */
