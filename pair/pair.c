/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pair.c - loader of the pair sched_ext scheduler: reads the SMT topology
 * (thread_siblings_list of every CPU), prints the core table, loads and
 * attaches pair.bpf.c and its sched_switch checker, prints what happened
 * every interval (a text line, or one JSON object per line with -j), and on
 * exit reports why the scheduler ended. After a CPU hotplug the kernel asks
 * for a restart and the table is read again.
 * Exit status: 0 after SIGINT/SIGTERM, 1 when the scheduler was ejected or
 * could not be loaded, 2 on a usage error.
 * Limits: at most two threads per core and PAIR_MAX_CPUS CPUs; -v walks
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
#include "pair.h"
#include "pair.bpf.skel.h"

static const char help_fmt[] =
"pair: sched_ext scheduler that lets the SMT threads of a core run tasks of\n"
"one cgroup at a time (L1TF/MDS sibling isolation), cgroups sharing cores\n"
"by cpu.weight (see pair/README.md).\n"
"\n"
"Usage: %s [-b BATCH_US] [-s SLICE_US] [-i INTERVAL] [-C MAX_CGROUPS] [-j] [-v] [-h]\n"
"\n"
"  -b BATCH_US      how long a cgroup keeps a core before the next one with\n"
"                   waiting tasks may take it (default 20000, 1000..1000000)\n"
"  -s SLICE_US      time slice of a task (default 5000, 100..BATCH_US)\n"
"  -i INTERVAL      seconds between stats lines, may be fractional\n"
"                   (default 1; 0 prints none)\n"
"  -C MAX_CGROUPS   cgroups with a domain of their own (default %d, 16..%d);\n"
"                   the others share one domain that runs on one thread of\n"
"                   a core at a time\n"
"  -j               print each interval's stats as one JSON object per line\n"
"  -v               also list each cgroup that ran or waits: path, weight,\n"
"                   core time, tasks waiting, its vtime against the\n"
"                   scheduler's (ms; far ahead: it waits long)\n"
"  -h               display this help and exit\n"
"\n"
"Needs root and a kernel with sched_ext. Exit status: 0 after SIGINT or\n"
"SIGTERM, 1 if the scheduler could not load or was ejected, 2 on bad usage.\n";

static volatile sig_atomic_t exit_req;

static void sigint_handler(int sig)
{
	exit_req = 1;
}

static const char *stat_names[PAIR_NR_STATS] = {
	[PAIR_STAT_ENQ]			= "enqueue",
	[PAIR_STAT_ENQ_KTHREAD]		= "enqueue_kthread",
	[PAIR_STAT_ENQ_OVERFLOW]	= "enqueue_overflow",
	[PAIR_STAT_KICK]		= "kick",
	[PAIR_STAT_RUN]			= "run",
	[PAIR_STAT_RUN_KERNEL]		= "run_kthread",
	[PAIR_STAT_IDLE_SIBLING]	= "idle_sibling",
	[PAIR_STAT_IDLE_PREEMPT]	= "idle_preempt",
	[PAIR_STAT_IDLE_ALONE]		= "idle_alone",
	[PAIR_STAT_IDLE_EMPTY]		= "idle_empty",
	[PAIR_STAT_IDLE_WAIT]		= "idle_wait",
	[PAIR_STAT_RUN_LAST]		= "run_last",
	[PAIR_STAT_SWITCH]		= "switch",
	[PAIR_STAT_RENEW]		= "renew",
	[PAIR_STAT_EXPIRE_KICK]		= "expire_kick",
	[PAIR_STAT_EMPTY_DRAIN]		= "empty_drain",
	[PAIR_STAT_RELEASE]		= "cpu_release",
	[PAIR_STAT_ACQUIRE]		= "cpu_acquire",
	[PAIR_STAT_CGRP_MOVE]		= "cgroup_moves",
	[PAIR_STAT_OVERLAP]		= "overlaps",
};

struct opts {
	u64 batch_us, slice_us;
	double interval;
	u32 max_cgroups;
	bool json, verbose;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	bool slice_set = false;
	u64 v;
	char *end;
	int opt;

	*o = (struct opts){ .batch_us = 20000, .slice_us = 5000, .interval = 1,
			    .max_cgroups = PAIR_DFL_DOMS };

	while ((opt = getopt(argc, argv, "b:s:i:C:jvh")) != -1) {
		switch (opt) {
		case 'b':
			if (loader_parse_u64(optarg, 1000, 1000000, &o->batch_us)) {
				fprintf(stderr, "pair: -b %s: the batch must be 1000..1000000 us\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (loader_parse_u64(optarg, 100, 1000000, &o->slice_us)) {
				fprintf(stderr, "pair: -s %s: the slice must be 100..1000000 us\n",
					optarg);
				return 2;
			}
			slice_set = true;
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->interval) ||
			    o->interval < 0 || o->interval > 3600) {
				fprintf(stderr, "pair: -i %s: the interval must be 0..3600 s\n",
					optarg);
				return 2;
			}
			break;
		case 'C':
			if (loader_parse_u64(optarg, 16, PAIR_MAX_DOMS, &v)) {
				fprintf(stderr, "pair: -C %s: the number of cgroups must be 16..%d\n",
					optarg, PAIR_MAX_DOMS);
				return 2;
			}
			o->max_cgroups = v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			printf(help_fmt, basename(argv[0]), PAIR_DFL_DOMS,
			       PAIR_MAX_DOMS);
			exit(0);
		default:
			fprintf(stderr, help_fmt, basename(argv[0]),
				PAIR_DFL_DOMS, PAIR_MAX_DOMS);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pair: unexpected argument '%s' (see -h)\n",
			argv[optind]);
		return 2;
	}
	if (!slice_set && o->slice_us > o->batch_us)
		o->slice_us = o->batch_us;
	if (o->slice_us > o->batch_us) {
		fprintf(stderr, "pair: -s %llu: the slice must not be longer than the batch (%llu us)\n",
			(unsigned long long)o->slice_us,
			(unsigned long long)o->batch_us);
		return 2;
	}
	return 0;
}

/* ---- topology ----------------------------------------------------------- */

struct topo {
	int nr_cpus, nr_cores, nr_smt;
	s32 core[PAIR_MAX_CPUS], sibling[PAIR_MAX_CPUS];
	u8 thread[PAIR_MAX_CPUS];
};

/* "0-1", "0,2", "3": the CPUs of a list, at most @max; -1 on a bad list */
static int parse_cpulist(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long lo, hi;

		lo = strtol(s, &end, 10);
		if (end == s || lo < 0)
			return -1;
		hi = lo;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -1;
			s = end;
		}
		for (; lo <= hi; lo++) {
			if (n == max)
				return max + 1;
			out[n++] = lo;
		}
		if (*s == ',')
			s++;
	}
	return n;
}

/*
 * Each CPU's core (its lowest-numbered thread), its thread index and its
 * sibling, from sysfs. Offline CPUs have no topology: alone.
 */
static int read_topology(struct topo *t)
{
	int cpu, i;

	memset(t, 0, sizeof(*t));
	t->nr_cpus = libbpf_num_possible_cpus();
	if (t->nr_cpus > PAIR_MAX_CPUS) {
		fprintf(stderr, "pair: %d possible CPUs, built for at most %d\n",
			t->nr_cpus, PAIR_MAX_CPUS);
		return -1;
	}
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		char path[128], buf[256];
		int sibs[4], n;
		FILE *f;

		t->core[cpu] = cpu;
		t->sibling[cpu] = -1;
		t->thread[cpu] = 0;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fgets(buf, sizeof(buf), f) ? parse_cpulist(buf, sibs, 3) : -1;
		fclose(f);
		if (n < 0) {
			fprintf(stderr, "pair: %s: cannot parse '%s'\n", path, buf);
			return -1;
		}
		if (n > 2) {
			fprintf(stderr, "pair: CPU %d has more than 2 threads per core (%s); pair handles 2\n",
				cpu, buf);
			return -1;
		}
		if (n < 2)
			continue;
		for (i = 0; i < 2; i++) {
			if (sibs[i] >= t->nr_cpus) {
				fprintf(stderr, "pair: %s names CPU %d past the possible CPUs\n",
					path, sibs[i]);
				return -1;
			}
		}
		t->core[cpu] = sibs[0] < sibs[1] ? sibs[0] : sibs[1];
		t->sibling[cpu] = sibs[0] == cpu ? sibs[1] : sibs[0];
		t->thread[cpu] = cpu == t->core[cpu] ? 0 : 1;
	}
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (t->core[cpu] == cpu)
			t->nr_cores++;
		if (t->sibling[cpu] >= 0 && t->thread[cpu] == 0)
			t->nr_smt++;
	}
	return 0;
}

static void print_topology(const struct topo *t)
{
	int cpu;

	printf("pair: %d CPUs, %d cores, %d with 2 threads:", t->nr_cpus,
	       t->nr_cores, t->nr_smt);
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (t->core[cpu] != cpu)
			continue;
		if (t->sibling[cpu] >= 0)
			printf(" [%d,%d]", cpu, t->sibling[cpu]);
		else
			printf(" [%d]", cpu);
	}
	printf("\n");
}

/* ---- stats ----------------------------------------------------------------- */

static void read_stats(struct pair *skel, u64 *out)
{
	loader_sum_percpu(bpf_map__fd(skel->maps.stats), PAIR_NR_STATS, out);
}

static int nr_queued_doms(struct pair *skel)
{
	int i, n = 0;

	for (i = 0; i < PAIR_MAX_DOMS / 64; i++)
		n += __builtin_popcountll(skel->bss->dom_queued[i]);
	return n;
}

/* core time of each domain since the last call, kept per slot */
static u64 *last_runtime;

static void print_doms(struct pair *skel, double secs, int nr_cores)
{
	int fd = bpf_map__fd(skel->maps.doms);
	u32 slot, hwm = skel->bss->dom_hwm;
	struct pair_dom d;

	loader_cgid_paths_load();
	for (slot = 0; slot < hwm && slot < PAIR_MAX_DOMS; slot++) {
		u64 ran;

		if (bpf_map_lookup_elem(fd, &slot, &d))
			continue;
		ran = d.runtime_ns - last_runtime[slot];
		last_runtime[slot] = d.runtime_ns;
		if ((!ran || d.runtime_ns < ran) && d.nr_waiting <= 0)
			continue;
		printf("  cgroup %-40s weight %5u core time %6.2f%% waiting %lld vtime %+.1f ms\n",
		       slot == PAIR_OVERFLOW_DOM ? "(overflow)" :
		       d.cgid ? loader_cgid_path(d.cgid) : "(removed)",
		       slot == PAIR_OVERFLOW_DOM ? 100 : d.weight,
		       100.0 * ran / (secs * 1e9 * nr_cores),
		       (long long)d.nr_waiting,
		       ((s64)(d.cvtime - skel->bss->cvtime_now)) / 1e6);
	}
}

static void print_stats(struct pair *skel, const struct opts *o,
			const struct topo *t, const u64 *cur, const u64 *last,
			u64 fi_ns, u64 ov_ns, double time, double secs)
{
	struct pair__bss *bss = skel->bss;
	double fi_pct = 100.0 * fi_ns / (secs * 1e9 * t->nr_cpus);
	double ov_pct = 100.0 * ov_ns / (secs * 1e9 * t->nr_cores);
	u64 d[PAIR_NR_STATS];
	int i;

	for (i = 0; i < PAIR_NR_STATS; i++)
		d[i] = cur[i] - last[i];

	if (o->json) {
		printf("{\"time_s\":%.3f,\"interval_s\":%.3f,\"cores\":%d,"
		       "\"cgroups_tracked\":%lld,\"cgroups_untracked\":%lld,"
		       "\"cgroups_queued\":%d,\"forced_idle_pct\":%.3f,"
		       "\"overlap_us\":%.1f,\"overlap_pct\":%.4f",
		       time, secs, t->nr_cores, (long long)bss->nr_tracked,
		       (long long)bss->nr_untracked, nr_queued_doms(skel),
		       fi_pct, ov_ns / 1e3, ov_pct);
		for (i = 0; i < PAIR_NR_STATS; i++)
			printf(",\"%s\":%llu", stat_names[i],
			       (unsigned long long)d[i]);
		printf("}\n");
	} else {
		printf("pair %7.1fs cgroups %lld tracked, %lld overflow, %d queued | "
		       "forced idle %.1f%% overlap %.0f us (%.3f%%, %llu) | per s: enq %.0f "
		       "(kthread %.0f) run %.0f switch %.0f renew %.0f expire-kick %.0f "
		       "idle: sibling %.0f preempt %.0f alone %.0f wait %.0f empty %.0f | "
		       "release %llu moves %llu\n",
		       time, (long long)bss->nr_tracked,
		       (long long)bss->nr_untracked, nr_queued_doms(skel),
		       fi_pct, ov_ns / 1e3, ov_pct,
		       (unsigned long long)d[PAIR_STAT_OVERLAP],
		       (d[PAIR_STAT_ENQ] + d[PAIR_STAT_ENQ_OVERFLOW] +
			d[PAIR_STAT_ENQ_KTHREAD]) / secs,
		       d[PAIR_STAT_ENQ_KTHREAD] / secs,
		       (d[PAIR_STAT_RUN] + d[PAIR_STAT_RUN_KERNEL] +
			d[PAIR_STAT_RUN_LAST]) / secs,
		       d[PAIR_STAT_SWITCH] / secs, d[PAIR_STAT_RENEW] / secs,
		       d[PAIR_STAT_EXPIRE_KICK] / secs,
		       d[PAIR_STAT_IDLE_SIBLING] / secs,
		       d[PAIR_STAT_IDLE_PREEMPT] / secs,
		       d[PAIR_STAT_IDLE_ALONE] / secs,
		       d[PAIR_STAT_IDLE_WAIT] / secs,
		       d[PAIR_STAT_IDLE_EMPTY] / secs,
		       (unsigned long long)d[PAIR_STAT_RELEASE],
		       (unsigned long long)d[PAIR_STAT_CGRP_MOVE]);
	}
	if (o->verbose)
		print_doms(skel, secs, t->nr_cores);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	u64 cur[PAIR_NR_STATS], last[PAIR_NR_STATS], fi_last, ov_last;
	struct bpf_link *link, *tp_link;
	static struct topo topo;
	struct pair *skel;
	double start, tlast;
	struct opts o;
	long long ecode;
	int ret, kind, cpu;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	if (loader_preflight("pair"))
		return 1;
	last_runtime = calloc(PAIR_MAX_DOMS, sizeof(*last_runtime));
	if (!last_runtime) {
		fprintf(stderr, "pair: out of memory\n");
		return 1;
	}

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	signal(SIGINT, sigint_handler);
	signal(SIGTERM, sigint_handler);

restart:
	if (read_topology(&topo))
		return 1;
	print_topology(&topo);
	if (!topo.nr_smt)
		printf("pair: no core has 2 threads: nothing to pair, cgroups still share by weight\n");

	skel = SCX_OPS_OPEN(pair_ops, pair);
	skel->rodata->batch_ns = o.batch_us * 1000;
	skel->rodata->slice_ns = o.slice_us * 1000;
	skel->rodata->nr_doms = o.max_cgroups;
	for (cpu = 0; cpu < topo.nr_cpus; cpu++) {
		skel->rodata->cpu_core[cpu] = topo.core[cpu];
		skel->rodata->cpu_sibling[cpu] = topo.sibling[cpu];
		skel->rodata->cpu_thread[cpu] = topo.thread[cpu];
	}
	if (bpf_map__set_max_entries(skel->maps.doms, o.max_cgroups) ||
	    bpf_map__set_max_entries(skel->maps.cgid_slot, o.max_cgroups))
		SCX_BUG("cannot size the cgroup tables to %u", o.max_cgroups);

	SCX_OPS_LOAD(skel, pair_ops, pair);
	tp_link = bpf_program__attach(skel->progs.pair_on_switch);
	SCX_BUG_ON(!tp_link, "cannot attach the sched_switch checker");
	link = SCX_OPS_ATTACH(skel, pair_ops);

	printf("pair: attached, batch %llu us, slice %llu us, %u cgroup domains\n",
	       (unsigned long long)o.batch_us, (unsigned long long)o.slice_us,
	       o.max_cgroups);
	fflush(stdout);

	read_stats(skel, last);
	fi_last = skel->bss->forced_idle_ns;
	ov_last = skel->bss->overlap_ns;
	memset(last_runtime, 0, PAIR_MAX_DOMS * sizeof(*last_runtime));
	start = tlast = loader_now_s();
	while (!exit_req && !UEI_EXITED(skel, uei)) {
		double t;
		u64 fi, ov;

		if (o.interval <= 0) {
			usleep(100000);
			continue;
		}
		usleep(o.interval * 1e6 > 100000 ? 100000 : o.interval * 1e6);
		t = loader_now_s();
		if (t - tlast < o.interval)
			continue;
		read_stats(skel, cur);
		fi = skel->bss->forced_idle_ns;
		ov = skel->bss->overlap_ns;
		print_stats(skel, &o, &topo, cur, last, fi - fi_last,
			    ov - ov_last, t - start, t - tlast);
		memcpy(last, cur, sizeof(last));
		fi_last = fi;
		ov_last = ov;
		tlast = t;
	}

	bpf_link__destroy(link);
	bpf_link__destroy(tp_link);

	/* ops.exit() has run once the link is gone: the exit info is final */
	if (!UEI_EXITED(skel, uei)) {
		fprintf(stderr, "pair: EXIT: no exit info recorded\n");
		pair__destroy(skel);
		return 1;
	}
	kind = UEI_KIND(skel, uei);
	ecode = UEI_REPORT(skel, uei);
	pair__destroy(skel);

	/* the kernel asks for a restart after a CPU hotplug: new topology */
	if (!exit_req && (ecode & (1LL << 48))) {
		printf("pair: restarting as asked by the kernel\n");
		fflush(stdout);
		goto restart;
	}
	if (kind >= UEI_EXIT_ERROR) {
		fprintf(stderr, "pair: the scheduler was ejected; tasks are back on CFS\n");
		return 1;
	}
	return 0;
}
