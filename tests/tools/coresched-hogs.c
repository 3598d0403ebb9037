// SPDX-License-Identifier: GPL-2.0
/*
 * coresched-hogs: CPU-bound workloads for core scheduling tests.
 *
 * Default mode: fork G groups of N CPU-bound hogs named hogA0, hogA1, hogB0,
 * ... (the comm names the group in a sched_switch trace), give each group
 * its own core-sched cookie (PR_SCHED_CORE_CREATE on the group's process
 * group; -n: no cookies), check the cookies with PR_SCHED_CORE_GET, let the
 * hogs spin for T seconds, kill them and exit 0.  -c pins hog j of group g
 * to the ((j * G + g) % ncpus)-th CPU of the list, so that a list ordered by
 * core ("0,1,2,3" for siblings 0-1 and 2-3) puts different groups on the
 * two siblings of each core.
 *
 * Stress mode (-S): G groups (default 3), each with N pinned-or-free hogs,
 * N sleepers (spin 50-500 us, nanosleep 100 us-1 ms), a churner (forks
 * short-lived children that inherit the cookie) and a switcher that every
 * few ms moves cookies around: PR_SCHED_CORE_SHARE_TO to a random worker
 * (thread or thread-group scope), PR_SCHED_CORE_SHARE_FROM a random
 * worker, a fresh CREATE, or back to no cookie.  Bounded by -t
 * (default 60 s); prints the counts and exits 1 if a prctl failed
 * unexpectedly, a worker died early or made no progress.
 *
 * Exit: 0 ok, 1 runtime failure, 2 usage, 3 core scheduling unavailable
 * (kernel without CONFIG_SCHED_CORE: EINVAL; no SMT: ENODEV).
 * Every child has PR_SET_PDEATHSIG(SIGKILL), so nothing outlives the tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define MAX_GROUPS	8
#define MAX_PER_GROUP	16
#define MAX_CPUS	256

/* prctl(PR_SCHED_CORE) scopes are enum pid_type values */
#define SCOPE_PID	PR_SCHED_CORE_SCOPE_THREAD
#define SCOPE_TGID	PR_SCHED_CORE_SCOPE_THREAD_GROUP
#define SCOPE_PGID	PR_SCHED_CORE_SCOPE_PROCESS_GROUP

enum role { HOG, SLEEPER, CHURNER, SWITCHER, NR_ROLES };
static const char *role_name[NR_ROLES] = { "hog", "slp", "chn", "sw" };

/* counters shared with the stress workers (MAP_SHARED) */
struct stats {
	long sleeps, forks, share_to, share_from, create, clear;
	long errors;
	int last_errno, last_op;
	pid_t pids[MAX_GROUPS * (2 * MAX_PER_GROUP + 2)];
	int npids;
};

static int groups = -1, per_group = 2, secs = -1, no_cookies, stress;
static int cpus[MAX_CPUS], ncpus;
static pid_t kids[MAX_GROUPS * (2 * MAX_PER_GROUP + 2)];
static int nkids, gate[2];
static struct stats *st;
static volatile sig_atomic_t stop;

static void usage(FILE *f)
{
	fprintf(f,
"usage: coresched-hogs [-g G] [-p N] [-t SECS] [-c CPUS] [-n] [-S] [-h]\n"
"Fork G groups (default 2; 3 with -S) of N CPU-bound hogs (default 2) named\n"
"hogA0, hogA1, hogB0, ..., one core-sched cookie per group, run SECS seconds\n"
"(default 10; 60 with -S), kill them, exit 0.\n"
"  -n       no cookies (control run)\n"
"  -c CPUS  comma-separated CPU list; pin hog j of group g to the\n"
"           ((j * G + g) %% count)-th entry (list the CPUs core by core)\n"
"  -S       stress: per group N hogs, N sleep/wake loops, a fork/exit\n"
"           churner and a switcher moving cookies with SHARE_TO/SHARE_FROM\n"
"  -h       this help\n"
"Exit: 0 ok, 1 failure, 2 usage, 3 core scheduling unavailable.\n");
}

static int sched_core(int cmd, pid_t pid, int scope, unsigned long uaddr)
{
	return prctl(PR_SCHED_CORE, cmd, pid, scope, uaddr);
}

static unsigned long long cookie_of(pid_t pid)
{
	unsigned long long id = 0;

	if (sched_core(PR_SCHED_CORE_GET, pid, SCOPE_PID, (unsigned long)&id))
		return ~0ULL;
	return id;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned int rnd(unsigned int *s)
{
	/* xorshift32 */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

static void spin_us(long us)
{
	double end = now() + us / 1e6;

	while (now() < end)
		;
}

static void on_signal(int sig)
{
	stop = 1;
}

static void count_error(int op)
{
	__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED);
	st->last_errno = errno;
	st->last_op = op;
}

/* a process of the stress mode; never returns */
static void stress_worker(enum role role, int g, unsigned int seed)
{
	struct stats *s = st;
	pid_t pid, target;
	int op;

	switch (role) {
	case HOG:
		for (;;)
			;
	case SLEEPER:
		for (;;) {
			spin_us(50 + rnd(&seed) % 450);
			sleep_us(100 + rnd(&seed) % 900);
			__atomic_fetch_add(&s->sleeps, 1, __ATOMIC_RELAXED);
		}
	case CHURNER:
		for (;;) {
			pid = fork();
			if (pid == 0) {
				char name[16];

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				snprintf(name, sizeof(name), "kid%c", 'A' + g);
				prctl(PR_SET_NAME, name);
				spin_us(rnd(&seed) % 2000);
				_exit(0);
			}
			if (pid < 0) {
				count_error(-1);
				sleep_us(10000);
				continue;
			}
			__atomic_fetch_add(&s->forks, 1, __ATOMIC_RELAXED);
			waitpid(pid, NULL, 0);
			sleep_us(100 + rnd(&seed) % 900);
		}
	case SWITCHER:
		for (;;) {
			spin_us(rnd(&seed) % 1000);
			sleep_us(2000 + rnd(&seed) % 8000);
			target = s->pids[rnd(&seed) % s->npids];
			op = rnd(&seed) % 16;
			if (op < 7) {
				/* push my cookie (maybe none) to a task */
				if (sched_core(PR_SCHED_CORE_SHARE_TO, target,
					       op & 1 ? SCOPE_TGID : SCOPE_PID,
					       0))
					count_error(PR_SCHED_CORE_SHARE_TO);
				else
					__atomic_fetch_add(&s->share_to, 1,
							   __ATOMIC_RELAXED);
			} else if (op < 14) {
				/* pull a task's cookie into myself */
				if (sched_core(PR_SCHED_CORE_SHARE_FROM, target,
					       SCOPE_PID, 0))
					count_error(PR_SCHED_CORE_SHARE_FROM);
				else
					__atomic_fetch_add(&s->share_from, 1,
							   __ATOMIC_RELAXED);
			} else if (op < 15) {
				/* a fresh cookie for myself */
				if (sched_core(PR_SCHED_CORE_CREATE, 0,
					       SCOPE_PID, 0))
					count_error(PR_SCHED_CORE_CREATE);
				else
					__atomic_fetch_add(&s->create, 1,
							   __ATOMIC_RELAXED);
			} else {
				/* drop my cookie: pull the parent's (none) */
				if (sched_core(PR_SCHED_CORE_SHARE_FROM,
					       getppid(), SCOPE_PID, 0))
					count_error(PR_SCHED_CORE_SHARE_FROM);
				else
					__atomic_fetch_add(&s->clear, 1,
							   __ATOMIC_RELAXED);
			}
		}
	default:
		_exit(1);
	}
}

/*
 * Fork one worker named <role><group letter><index>, in process group
 * @pgid (0: a new one), pinned to @cpu (-1: free); it waits for EOF on
 * the gate pipe (all write ends closed) before running.  Returns its pid.
 */
static pid_t spawn(enum role role, int g, int j, pid_t pgid, int cpu)
{
	pid_t parent = getpid(), pid;
	char name[16], c;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (pid) {
		/* also from here, so the group exists before the next fork */
		setpgid(pid, pgid ? pgid : pid);
		kids[nkids++] = pid;
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	setpgid(0, pgid);
	if (role == HOG || role == SLEEPER)
		snprintf(name, sizeof(name), "%s%c%d", role_name[role],
			 'A' + g, j);
	else
		snprintf(name, sizeof(name), "%s%c", role_name[role], 'A' + g);
	prctl(PR_SET_NAME, name);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "%s: sched_setaffinity(cpu%d): %s\n",
				name, cpu, strerror(errno));
			_exit(1);
		}
	}
	close(gate[1]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	close(gate[0]);
	if (stress)
		stress_worker(role, g, (getpid() * 2654435761u) | 1);
	for (;;)
		;
}

static int parse_cpus(char *arg)
{
	char *tok, *end;
	long v;

	for (tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		v = strtol(tok, &end, 10);
		if (*end || v < 0 || v >= CPU_SETSIZE || ncpus == MAX_CPUS)
			return -1;
		cpus[ncpus++] = v;
	}
	return ncpus ? 0 : -1;
}

static void kill_all(void)
{
	int i;

	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
}

/* any worker gone before the end is a failure */
static int check_alive(void)
{
	int i, status;

	for (i = 0; i < nkids; i++) {
		if (waitpid(kids[i], &status, WNOHANG) == kids[i]) {
			fprintf(stderr, "worker %d died early (status 0x%x)\n",
				kids[i], status);
			kids[i] = kids[--nkids];
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	pid_t leader[MAX_GROUPS], pid;
	unsigned long long id, gid[MAX_GROUPS];
	int opt, g, j, n, r, hog, cpu, ids, e, ret = 0;
	double start, end;
	enum role role;

	while ((opt = getopt(argc, argv, "g:p:t:c:nSh")) != -1) {
		switch (opt) {
		case 'g':
			groups = atoi(optarg);
			break;
		case 'p':
			per_group = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'c':
			if (parse_cpus(optarg)) {
				fprintf(stderr, "bad CPU list\n");
				return 2;
			}
			break;
		case 'n':
			no_cookies = 1;
			break;
		case 'S':
			stress = 1;
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
	if (secs < 0)
		secs = stress ? 60 : 10;
	if (groups < 0)
		groups = stress ? 3 : 2;
	if (groups < 1 || groups > MAX_GROUPS || per_group < 1 ||
	    per_group > MAX_PER_GROUP || secs < 1 || secs > 3600) {
		fprintf(stderr, "need 1 <= G <= %d, 1 <= N <= %d, 1 <= SECS <= 3600\n",
			MAX_GROUPS, MAX_PER_GROUP);
		return 2;
	}

	/* probe: EINVAL without CONFIG_SCHED_CORE, ENODEV without SMT */
	if (sched_core(PR_SCHED_CORE_GET, 0, SCOPE_PID, (unsigned long)&id)) {
		e = errno;

		fprintf(stderr, "prctl(PR_SCHED_CORE_GET): %s: %s\n",
			strerror(e),
			e == EINVAL ? "kernel without core scheduling (CONFIG_SCHED_CORE)" :
			e == ENODEV ? "core scheduling needs SMT (no sibling threads)" :
			"core scheduling unavailable");
		if (!no_cookies)
			return 3;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (pipe(gate)) {
		perror("pipe");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/* fork everything first; the workers wait on the gate */
	for (g = 0; g < groups; g++) {
		leader[g] = 0;
		for (r = 0; r < (stress ? NR_ROLES : 1); r++) {
			role = r;
			n = role <= SLEEPER ? per_group : 1;
			for (j = 0; j < n; j++) {
				hog = role == HOG && ncpus;
				cpu = hog ? cpus[(j * groups + g) % ncpus] : -1;
				pid = spawn(role, g, j, leader[g], cpu);
				if (pid < 0) {
					kill_all();
					return 1;
				}
				if (!leader[g])
					leader[g] = pid;
				if (role != SWITCHER)
					st->pids[st->npids++] = pid;
			}
		}
	}
	close(gate[0]);

	/* one cookie per group: the whole process group at once */
	for (g = 0; g < groups && !no_cookies; g++) {
		if (sched_core(PR_SCHED_CORE_CREATE, leader[g], SCOPE_PGID,
			       0)) {
			e = errno;
			fprintf(stderr, "prctl(PR_SCHED_CORE_CREATE, pgid %d): %s\n",
				leader[g], strerror(e));
			kill_all();
			return e == EINVAL || e == ENODEV ? 3 : 1;
		}
	}
	/*
	 * Check with PR_SCHED_CORE_GET: one cookie per group, distinct, the
	 * same on every member; none with -n.  GET reports a hash of the
	 * cookie, 0 while the kernel's pointer hash key is not ready (no crng
	 * yet, common in a fresh VM): then the cookies cannot be told apart.
	 */
	for (g = 0, ids = 0; g < groups; g++) {
		gid[g] = cookie_of(leader[g]);
		ids += gid[g] && gid[g] != ~0ULL;
		if (gid[g] == ~0ULL)
			printf("group %c: pgid %d cookie id unavailable\n",
			       'A' + g, leader[g]);
		else
			printf("group %c: pgid %d cookie id %#llx\n", 'A' + g,
			       leader[g], gid[g]);
	}
	if (no_cookies && ids) {
		fprintf(stderr, "-n: a group has a cookie\n");
		ret = 1;
	} else if (!no_cookies && !ids) {
		printf("cookie ids unavailable (pointer hash key not ready), not checked\n");
	} else if (!no_cookies) {
		for (g = 0; g < groups; g++)
			for (j = 0; j < g; j++)
				if (gid[j] == gid[g] || !gid[g] ||
				    gid[g] == ~0ULL)
					ret = 1;
		for (j = 0; j < nkids; j++) {
			id = cookie_of(kids[j]);
			for (g = 0; g < groups &&
			     getpgid(kids[j]) != leader[g]; g++)
				;
			if (g == groups || id != gid[g]) {
				fprintf(stderr, "pid %d: cookie id %#llx, not its group's\n",
					kids[j], id);
				ret = 1;
			}
		}
	}
	if (ret) {
		fprintf(stderr, "cookies are not as set\n");
		kill_all();
		return 1;
	}
	printf("%s: %d groups x %d hogs%s, %s, %d s\n",
	       stress ? "stress" : "hogs", groups, per_group,
	       ncpus ? " (pinned)" : "", no_cookies ? "no cookies" : "cookies",
	       secs);
	fflush(stdout);

	/* go */
	close(gate[1]);
	start = now();
	end = start + secs;
	/*
	 * One sleep: every wakeup of this cookie-less task on a hog's CPU is
	 * a core-wide pick, and a chance for a late sibling to overlap.
	 */
	while (!stop && now() < end)
		sleep_us((end - now()) * 1e6 + 1);
	if (check_alive())
		ret = 1;
	kill_all();
	printf("ran %.2f s%s\n", now() - start, stop ? " (interrupted)" : "");
	if (stress) {
		printf("stress: sleeps=%ld forks=%ld share_to=%ld share_from=%ld create=%ld clear=%ld errors=%ld\n",
		       st->sleeps, st->forks, st->share_to, st->share_from,
		       st->create, st->clear, st->errors);
		if (st->errors) {
			fprintf(stderr, "%ld failed calls, last: op %d: %s\n",
				st->errors, st->last_op,
				strerror(st->last_errno));
			ret = 1;
		}
		if (!st->sleeps || !st->forks || !st->share_to ||
		    !st->share_from) {
			fprintf(stderr, "a stress worker made no progress\n");
			ret = 1;
		}
	}
	return stop ? 1 : ret;
}
