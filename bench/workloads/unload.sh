# unload.sh - workload module: the longest IRQs-off section of sched_ext's
# task list walks while a BPF scheduler is loaded and unloaded with many
# tasks on the system.  build/tools/idlethreads holds tasks=N sleeping
# threads; each run loads the scheduler (loader=, default scx_simple) and
# unloads it, each under build/bpf/lockhold, which times every
# spin_lock_irq() section of the task list's bucket locks (scx_tasks).
# (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  sched=cfs only (the module loads and unloads the scheduler
#                it measures itself), config=none
# Parameters:    tasks=N       extra sleeping threads (default 10000)
#                loader=NAME   build/scx/NAME, the scheduler loaded
#                              (default scx_simple)
# Metrics, for disable_ and enable_: _irqoff_max_us, the longest section;
# _tasks_max, the most tasks (task_rq_lock() calls) one section handled;
# _us_per_task, section time over those tasks; _over_256us, the sections
# of 256 us or more (lockhold's histogram); _ms, the step's wall time
# (lockhold's BPF load included; scx.sh's start returns once the state
# reads enabled, its stop once the loader is gone): all lower is better;
# walk_tasks, the tasks the kernel had (pid_max and threads-max are raised
# for them).  Under QEMU on a busy host a vCPU can be descheduled inside a
# section: _irqoff_max_us carries that noise; _tasks_max does not, and
# _tasks_max times _us_per_task estimates the longest section without it;
# a noise event adds one to _over_256us, a long walk section adds one for
# each bucket.
# Limits: times only sections of the task list buckets' locks, not other
# IRQs-off code the walks reach (the rq locks are taken inside them, so a
# section includes those); kprobes add a few microseconds per lock
# operation, the same for every kernel compared.

LOCKHOLD=$ROOT/build/bpf/lockhold
IDLETHREADS=$ROOT/build/tools/idlethreads
UNLOAD_PID=
UNLOAD_OUT=/tmp/bench-unload-threads

wl_check() {
	scn_valid_uint "$(scn_param tasks 10000)" && [ "$(scn_param tasks 10000)" -ge 1 ] ||
		{ echo "unload: tasks must be >= 1" >&2; return 1; }
	[[ $(scn_param loader scx_simple) =~ ^[A-Za-z0-9_]+$ ]] ||
		{ echo "unload: loader must be a name under build/scx" >&2; return 1; }
}

wl_prepare() {
	local f
	for f in "$LOCKHOLD" "$IDLETHREADS" "$ROOT/build/scx/$(scn_param loader scx_simple)"; do
		[ -x "$f" ] || { echo "unload: $f not built (make bpf)" >&2; return 1; }
	done
	. "$BENCH/schedulers/scx.sh"
}

wl_start() {
	local i n=$(scn_param tasks 10000)
	# a small guest's pid_max and threads-max are below what is asked
	[ "$(cat /proc/sys/kernel/pid_max)" -gt $((n + 1000)) ] ||
		echo $((n + 4096)) >/proc/sys/kernel/pid_max
	[ "$(cat /proc/sys/kernel/threads-max)" -gt $((n + 1000)) ] ||
		echo $((n + 4096)) >/proc/sys/kernel/threads-max
	"$IDLETHREADS" -n "$n" >"$UNLOAD_OUT" 2>&1 &
	UNLOAD_PID=$!
	for i in $(seq 600); do
		grep -q '^ready' "$UNLOAD_OUT" && return 0
		kill -0 $UNLOAD_PID 2>/dev/null || break
		sleep 0.1
	done
	echo "unload: idlethreads not ready: $(cat "$UNLOAD_OUT")" >&2
	return 1
}

# unload_step WHAT CMD...: CMD under lockhold; prints WHAT_irqoff_max_us,
# WHAT_tasks_max, WHAT_us_per_task, WHAT_over_256us and WHAT_ms
unload_step() {
	local what=$1 out t0 t1
	shift
	t0=$(date +%s%N)
	out=$("$LOCKHOLD" -s scx_tasks -- "$@" 2>&1) ||
		{ echo "unload: $what: $out" >&2; return 1; }
	t1=$(date +%s%N)
	awk -v w="$what" '$1 == "holds" && $2 > 0 && $7 == "tasks_max" {
		print w "_irqoff_max_us", $4; print w "_tasks_max", $8
		print w "_us_per_task", $10; f = 1 }
		$1 == "hist_us" { for (i = 2; i <= NF; i++) { split($i, a, ":"); if (a[1] >= 256) n += a[2] }
			print w "_over_256us", n + 0; g = 1 }
		END { exit !(f && g) }' <<<"$out" ||
		{ echo "unload: $what: no lock section seen: $out" >&2; return 1; }
	echo "${what}_ms $(((t1 - t0) / 1000000))"
}

# Each step runs in a child bash under lockhold; scx.sh keeps the loader's
# pid in a file, so the shell that stops it need not be the one that
# started it.
wl_measure() {
	local en dis loader=$ROOT/build/scx/$(scn_param loader scx_simple)
	en=$(OUT=$OUT unload_step enable bash -c ". '$BENCH/schedulers/scx.sh'; scx_start 60 '$loader'") ||
		return 1
	dis=$(OUT=$OUT unload_step disable bash -c ". '$BENCH/schedulers/scx.sh'; scx_stop") ||
		return 1
	echo "$dis"
	echo "$en"
	# tasks on the system, from loadavg's running/total field
	awk '{ split($4, a, "/"); print "walk_tasks", a[2] }' /proc/loadavg
}

wl_stop() {
	[ -z "$UNLOAD_PID" ] || { kill $UNLOAD_PID 2>/dev/null; wait $UNLOAD_PID 2>/dev/null; }
	UNLOAD_PID=
	[ "$(scx_state)" = disabled ] || scx_stop
}
