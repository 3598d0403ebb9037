# overhead.sh - workload module: scheduling overhead.  Runs
# `perf bench sched pipe` and `perf bench sched messaging` inside one cgroup
# (the root "/" or a nested leaf) and reports their times.
# (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  cgroup=CGROUP   where both benchmarks run ("/" = root)
# Parameters:    pipe_loops=N (default 20000), msg_groups=N (default 2),
#                msg_loops=N (default 20), pipe_cpus=LIST and msg_cpus=LIST
#                (taskset CPU lists; unset: not pinned). Pinned, the
#                figures measure switching and wakeup cost, not placement.
# Metrics: pipe_usec_op (perf's usecs/op), messaging_s (total seconds);
# lower is better.  The scenario's duration and warmup are not used.

wl_check() {
	local v k
	for k in pipe_loops msg_groups msg_loops; do
		scn_valid_uint "$(scn_param $k 1)" && [ "$(scn_param $k 1)" -ge 1 ] || { echo "overhead: $k must be >= 1" >&2; return 1; }
	done
	for k in pipe_cpus msg_cpus; do
		[[ $(scn_param $k 0) =~ ^[0-9]+([-,][0-9]+)*$ ]] || { echo "overhead: $k must be a CPU list like 0 or 0-1" >&2; return 1; }
	done
	for v in $SCN_VARIANTS; do
		[ -n "$(scn_var "$v" cgroup)" ] || { echo "overhead: variant $v has no cgroup=CGROUP" >&2; return 1; }
	done
}

wl_prepare() { :; }
wl_start() { :; }

# pinned LIST: the taskset prefix for a CPU list, nothing if unset
pinned() { [ -z "$1" ] || echo "taskset -c $1"; }

wl_measure() {
	local cg out
	cg=$(scn_var "$1" cgroup)
	# shellcheck disable=SC2046
	out=$(cg_run "$cg" $(pinned "$(scn_param pipe_cpus)") perf bench sched pipe -l "$(scn_param pipe_loops 20000)" 2>&1) ||
		{ echo "overhead: perf bench sched pipe failed: $out" >&2; return 1; }
	awk '$2 == "usecs/op" { print "pipe_usec_op", $1; f = 1 } END { exit !f }' <<<"$out" ||
		{ echo "overhead: cannot parse: $out" >&2; return 1; }
	# shellcheck disable=SC2046
	out=$(cg_run "$cg" $(pinned "$(scn_param msg_cpus)") perf bench sched messaging -g "$(scn_param msg_groups 2)" -l "$(scn_param msg_loops 20)" 2>&1) ||
		{ echo "overhead: perf bench sched messaging failed: $out" >&2; return 1; }
	awk '/Total time:/ { print "messaging_s", $3; f = 1 } END { exit !f }' <<<"$out" ||
		{ echo "overhead: cannot parse: $out" >&2; return 1; }
}

wl_stop() { :; }
