/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flatcg.c - loader of the flatcg sched_ext scheduler: checks that it can
 * run, loads and attaches flatcg.bpf.c, prints what it did every interval
 * (a text line, or one JSON object per line with -j), and on exit reports
 * why the scheduler ended. Exit status: 0 after SIGINT/SIGTERM, 1 when the
 * scheduler was ejected or could not be loaded, 2 on a usage error.
 * Limits: one scheduler per machine (the kernel allows one); -v walks
 * /sys/fs/cgroup every interval to name the cgroups.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <scx/common.h>
#include "scx-loader.h"
#include "flatcg.h"
#include "flatcg.bpf.skel.h"

static const char help_fmt[] =
"flatcg: sched_ext scheduler giving cgroups their hierarchical cpu.weight\n"
"share without nested runqueues (see flatcg/README.md).\n"
"\n"
"Usage: %s [-s SLICE_US] [-b BUDGET_US] [-i INTERVAL] [-C MAX_CGROUPS] [-f]\n"
"          [-j] [-v] [-h]\n"
"\n"
"  -s SLICE_US      time slice in microseconds (default 20000, 100..1000000)\n"
"  -b BUDGET_US     sleeper credit: how far behind the others, in vtime\n"
"                   microseconds, a waking task may come back (default the\n"
"                   slice times the number of CPUs, 0..10000000)\n"
"  -i INTERVAL      seconds between stats lines, may be fractional\n"
"                   (default 1; 0 prints none)\n"
"  -C MAX_CGROUPS   capacity of the cgroup table (default %d); cgroups past\n"
"                   it run as root-cgroup tasks, see README\n"
"  -f               FIFO inside each cgroup: its tasks share equally,\n"
"                   nice is ignored (cgroup weights still apply)\n"
"  -j               print each interval's stats as one JSON object per line\n"
"  -v               also list each cgroup that ran: path, weight, share\n"
"  -h               display this help and exit\n"
"\n"
"Needs root and a kernel with sched_ext. Exit status: 0 after SIGINT or\n"
"SIGTERM, 1 if the scheduler could not load or was ejected, 2 on bad usage.\n";

static volatile sig_atomic_t exit_req;

static void sigint_handler(int sig)
{
	exit_req = 1;
}

static const char *stat_names[FCG_NR_STATS] = {
	[FCG_STAT_LOCAL]		= "local",
	[FCG_STAT_SHARED]		= "shared",
	[FCG_STAT_KICK]			= "kick",
	[FCG_STAT_PREEMPT]		= "preempt",
	[FCG_STAT_DISPATCH]		= "dispatch",
	[FCG_STAT_DISPATCH_NONE]	= "dispatch_none",
	[FCG_STAT_CREDIT_CUT]		= "credit_cut",
	[FCG_STAT_ACTIVATE]		= "activate",
	[FCG_STAT_DEACTIVATE]		= "deactivate",
	[FCG_STAT_HWEIGHT_CALC]		= "hweight_calc",
	[FCG_STAT_HWEIGHT_CACHED]	= "hweight_cached",
	[FCG_STAT_ROOT_FALLBACK]	= "root_fallback",
	[FCG_STAT_CGRP_MOVE]		= "cgroup_moves",
	[FCG_STAT_LOST]			= "lost",
};

struct opts {
	u64 slice_us;
	u64 budget_us;	/* -1: the slice times the number of CPUs */
	double interval;
	u32 max_cgroups;
	bool fifo, json, verbose;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	u64 v;
	char *end;
	int opt;

	*o = (struct opts){ .slice_us = 20000, .budget_us = -1ULL, .interval = 1,
			    .max_cgroups = FCG_DFL_MAX_CGROUPS };

	while ((opt = getopt(argc, argv, "s:b:i:C:fjvh")) != -1) {
		switch (opt) {
		case 's':
			if (loader_parse_u64(optarg, 100, 1000000, &o->slice_us)) {
				fprintf(stderr, "flatcg: -s %s: the slice must be 100..1000000 us\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			if (loader_parse_u64(optarg, 0, 10000000, &o->budget_us)) {
				fprintf(stderr, "flatcg: -b %s: the budget must be 0..10000000 us\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->interval) ||
			    o->interval < 0 || o->interval > 3600) {
				fprintf(stderr, "flatcg: -i %s: the interval must be 0..3600 s\n",
					optarg);
				return 2;
			}
			break;
		case 'C':
			if (loader_parse_u64(optarg, 16, 1 << 22, &v)) {
				fprintf(stderr, "flatcg: -C %s: the capacity must be 16..4194304\n",
					optarg);
				return 2;
			}
			o->max_cgroups = v;
			break;
		case 'f':
			o->fifo = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			printf(help_fmt, basename(argv[0]), FCG_DFL_MAX_CGROUPS);
			exit(0);
		default:
			fprintf(stderr, help_fmt, basename(argv[0]),
				FCG_DFL_MAX_CGROUPS);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "flatcg: unexpected argument '%s' (see -h)\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

static void read_stats(struct flatcg *skel, u64 *out)
{
	loader_sum_percpu(bpf_map__fd(skel->maps.stats), FCG_NR_STATS, out);
}

/* ---- -v: the cgroups that ran, by path ---------------------------------- */

struct cg_seen {
	u64 cgid, runtime;
};

static struct cg_seen *seen;
static size_t nr_seen, cap_seen;

static u64 seen_swap(u64 cgid, u64 runtime)
{
	size_t i;
	u64 old;

	for (i = 0; i < nr_seen; i++) {
		if (seen[i].cgid != cgid)
			continue;
		old = seen[i].runtime;
		seen[i].runtime = runtime;
		return old;
	}
	if (nr_seen == cap_seen) {
		size_t cap = cap_seen ? 2 * cap_seen : 64;
		struct cg_seen *n = realloc(seen, cap * sizeof(*n));

		if (!n)
			return runtime;
		seen = n;
		cap_seen = cap;
	}
	seen[nr_seen++] = (struct cg_seen){ cgid, runtime };
	return 0;	/* first sight: all of it is new */
}

static void print_cgroups(struct flatcg *skel, double secs, int nr_cpus)
{
	int fd = bpf_map__fd(skel->maps.cgrps);
	u64 key, next, *prev = NULL;
	struct fcg_cgrp v;

	loader_cgid_paths_load();
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		u64 ran;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		ran = v.runtime_ns - seen_swap(key, v.runtime_ns);
		if (!ran)
			continue;
		printf("  cgroup %-40s weight %5u active %-3s cpu %6.2f%%\n",
		       loader_cgid_path(key), v.weight, v.sum ? "yes" : "no",
		       100.0 * ran / (secs * 1e9 * nr_cpus));
	}
}

/* ---- the stats line ------------------------------------------------------ */

static void print_stats(struct flatcg *skel, const struct opts *o,
			const u64 *cur, const u64 *last, double t, double secs)
{
	struct flatcg__bss *bss = skel->bss;
	u64 d[FCG_NR_STATS];
	u64 hw;
	int i;

	for (i = 0; i < FCG_NR_STATS; i++)
		d[i] = cur[i] - last[i];
	hw = d[FCG_STAT_HWEIGHT_CALC] + d[FCG_STAT_HWEIGHT_CACHED];

	if (o->json) {
		printf("{\"time_s\":%.3f,\"interval_s\":%.3f,\"cgroups_tracked\":%lld,"
		       "\"cgroups_untracked\":%lld,\"cgroups_active\":%lld",
		       t, secs, (long long)bss->nr_tracked,
		       (long long)bss->nr_untracked, (long long)bss->nr_active);
		for (i = 0; i < FCG_NR_STATS; i++)
			printf(",\"%s\":%llu", stat_names[i],
			       (unsigned long long)d[i]);
		printf("}\n");
	} else {
		printf("flatcg %7.1fs cgroups %lld tracked, %lld untracked, %lld active | "
		       "per s: enq %.0f (idle-cpu %.0f, shared %.0f) kicks %.0f preempt %.0f dispatch %.0f "
		       "empty %.0f credit-cut %.0f act %.0f deact %.0f moves %.0f | "
		       "hweight cached %.0f%% root-fallback %llu lost %llu\n",
		       t, (long long)bss->nr_tracked,
		       (long long)bss->nr_untracked, (long long)bss->nr_active,
		       (d[FCG_STAT_LOCAL] + d[FCG_STAT_SHARED]) / secs,
		       d[FCG_STAT_LOCAL] / secs, d[FCG_STAT_SHARED] / secs,
		       d[FCG_STAT_KICK] / secs, d[FCG_STAT_PREEMPT] / secs,
		       d[FCG_STAT_DISPATCH] / secs,
		       d[FCG_STAT_DISPATCH_NONE] / secs,
		       d[FCG_STAT_CREDIT_CUT] / secs,
		       d[FCG_STAT_ACTIVATE] / secs,
		       d[FCG_STAT_DEACTIVATE] / secs,
		       d[FCG_STAT_CGRP_MOVE] / secs,
		       hw ? 100.0 * d[FCG_STAT_HWEIGHT_CACHED] / hw : 100.0,
		       (unsigned long long)d[FCG_STAT_ROOT_FALLBACK],
		       (unsigned long long)d[FCG_STAT_LOST]);
	}
	if (o->verbose)
		print_cgroups(skel, secs, libbpf_num_possible_cpus());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	u64 cur[FCG_NR_STATS], last[FCG_NR_STATS];
	struct flatcg *skel;
	struct bpf_link *link;
	double start, tlast;
	struct opts o;
	long long ecode;
	int ret, kind;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	if (loader_preflight("flatcg"))
		return 1;
	if (libbpf_num_possible_cpus() > FCG_MAX_CPUS) {
		fprintf(stderr, "flatcg: %d possible CPUs, built for at most %d\n",
			libbpf_num_possible_cpus(), FCG_MAX_CPUS);
		return 1;
	}

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	signal(SIGINT, sigint_handler);
	signal(SIGTERM, sigint_handler);

restart:
	skel = SCX_OPS_OPEN(flatcg_ops, flatcg);
	skel->rodata->slice_ns = o.slice_us * 1000;
	/* by default one slice of credit at a share of one CPU, see fcg_runnable() */
	if (o.budget_us == -1ULL)
		o.budget_us = o.slice_us * libbpf_num_possible_cpus();
	skel->rodata->budget_ns = o.budget_us * 1000;
	skel->rodata->fifo_sched = o.fifo;
	if (bpf_map__set_max_entries(skel->maps.cgrps, o.max_cgroups))
		SCX_BUG("cannot set the cgroup table's capacity to %u",
			o.max_cgroups);

	SCX_OPS_LOAD(skel, flatcg_ops, flatcg);
	link = SCX_OPS_ATTACH(skel, flatcg_ops);

	printf("flatcg: attached, slice %llu us, budget %llu us, %s inside cgroups, cgroup table %u\n",
	       (unsigned long long)o.slice_us, (unsigned long long)o.budget_us,
	       o.fifo ? "FIFO" : "weighted vtime",
	       o.max_cgroups);
	fflush(stdout);

	read_stats(skel, last);
	start = tlast = loader_now_s();
	while (!exit_req && !UEI_EXITED(skel, uei)) {
		double t;

		if (o.interval > 0) {
			usleep(o.interval * 1e6 > 100000 ? 100000 : o.interval * 1e6);
			t = loader_now_s();
			if (t - tlast < o.interval)
				continue;
			read_stats(skel, cur);
			print_stats(skel, &o, cur, last, t - start, t - tlast);
			memcpy(last, cur, sizeof(last));
			tlast = t;
		} else {
			usleep(100000);
		}
	}

	bpf_link__destroy(link);

	/* ops.exit() has run once the link is gone: the exit info is final */
	if (!UEI_EXITED(skel, uei)) {
		fprintf(stderr, "flatcg: EXIT: no exit info recorded\n");
		flatcg__destroy(skel);
		return 1;
	}
	kind = UEI_KIND(skel, uei);
	ecode = UEI_REPORT(skel, uei);
	flatcg__destroy(skel);

	/* the kernel asks for a restart e.g. after a CPU hotplug */
	if (!exit_req && (ecode & (1LL << 48))) {
		printf("flatcg: restarting as asked by the kernel\n");
		fflush(stdout);
		goto restart;
	}
	if (kind >= UEI_EXIT_ERROR) {
		fprintf(stderr, "flatcg: the scheduler was ejected; tasks are back on CFS\n");
		return 1;
	}
	return 0;
}
