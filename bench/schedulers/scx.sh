# scx.sh - helpers for sched_ext scheduler plug-ins (sourced by a plug-in
# such as scx_simple.sh, never used as a scheduler itself).  A BPF scheduler
# is a loader command started in the background; it is ready when
# /sys/kernel/sched_ext/state reads "enabled", and alive while that is still
# true and the loader still runs.  If the kernel ejects the scheduler
# (error, stall watchdog), state leaves "enabled" and sched_alive fails: the
# harness then marks the run "ejected" and reports no numbers for it.
# Limits: one BPF scheduler at a time (the kernel allows only one).

SCX_STATE=/sys/kernel/sched_ext/state
SCX_PIDFILE=/tmp/bench-scx.pid
SCX_LOG=${OUT:-/tmp}/scx-loader.log

# scx_preflight LOADER: on the host, before any boot: the loader is built
# and the kernel has the class (a run that cannot start wastes a boot)
scx_preflight() {
	local cfg=${BUILD:-$ROOT/build}/kbuild/.config
	[ -x "$1" ] || { echo "scx: loader $1 is not built (make bpf)" >&2; return 1; }
	[ ! -f "$cfg" ] || grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$cfg" ||
		{ echo "scx: $cfg has no CONFIG_SCHED_CLASS_EXT=y" >&2; return 1; }
}

scx_state() { cat $SCX_STATE 2>/dev/null || echo missing; }

# scx_start TIMEOUT_S LOADER [ARGS...]: the variant's sched_args
# (SCHED_ARGS, set by bench/guest/main.sh) go after ARGS
scx_start() {
	local timeout=$1 i pid
	shift
	# shellcheck disable=SC2206
	set -- "$@" ${SCHED_ARGS-}
	[ -r $SCX_STATE ] || { echo "scx: $SCX_STATE missing: kernel without sched_ext?" >&2; return 1; }
	[ -x "$1" ] || { echo "scx: loader '$1' not found or not executable" >&2; return 1; }
	[ "$(scx_state)" = disabled ] || { echo "scx: state is '$(scx_state)' before start" >&2; return 1; }
	echo "=== $(date +%T) start: $*" >>"$SCX_LOG"
	SCX_DMESG_MARK=$(dmesg 2>/dev/null | wc -l)
	"$@" >>"$SCX_LOG" 2>&1 &
	pid=$!
	echo $pid >$SCX_PIDFILE
	for i in $(seq $((timeout * 10))); do
		[ "$(scx_state)" = enabled ] && return 0
		kill -0 $pid 2>/dev/null || { echo "scx: loader exited before enabling (log: $SCX_LOG)" >&2; return 1; }
		sleep 0.1
	done
	echo "scx: not enabled after ${timeout}s (state '$(scx_state)')" >&2
	return 1
}

# scx_exit_info: "RC|REASON" of the last run: the loader's exit status
# (SCX_RC, after scx_stop) and the kernel's "disabled (...)" line, or the
# loader's EXIT: line, whichever names a reason
scx_exit_info() {
	local why
	why=$(dmesg 2>/dev/null | tail -n +$((${SCX_DMESG_MARK:-0} + 1)) |
		sed -n 's/.*sched_ext: BPF scheduler .* disabled (\(.*\))$/\1/p' | tail -1)
	[ -n "$why" ] || why=$(awk '/^=== .* start:/ { e = "" } /EXIT:/ { e = $0 } END { print e }' "$SCX_LOG" 2>/dev/null)
	printf '%s|%s' "${SCX_RC-}" "$why"
}

scx_alive() {
	local pid
	pid=$(cat $SCX_PIDFILE 2>/dev/null)
	[ "$(scx_state)" = enabled ] || { echo "scx: state is '$(scx_state)': scheduler ejected" >&2; return 1; }
	kill -0 "$pid" 2>/dev/null || { echo "scx: loader $pid is gone" >&2; return 1; }
}

# scx_running PID: the process exists and is not a zombie
scx_running() {
	local st
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# scx_stop: SIGINT to the loader, back on CFS within 10 s, the loader gone
# within 30 s more (it prints its exit report after the state changes; a
# loader that hangs is killed; one that outlives SIGKILL by 10 s is stuck
# in the kernel: reported with its kernel stack and left behind).  Sets
# SCX_RC to the loader's exit status when it is this shell's child (wait
# works), else leaves it empty.
scx_stop() {
	local pid i
	SCX_RC=
	pid=$(cat $SCX_PIDFILE 2>/dev/null)
	rm -f $SCX_PIDFILE
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
	for i in $(seq 100); do
		[ "$(scx_state)" = disabled ] && break
		sleep 0.1
	done
	if [ -n "$pid" ]; then
		timeout 30 tail --pid="$pid" -f /dev/null
		kill -KILL "$pid" 2>/dev/null
		# a loader stuck in the kernel outlives SIGKILL: wait would hang
		for i in $(seq 50); do
			scx_running "$pid" || break
			sleep 0.2
		done
		if scx_running "$pid"; then
			echo "scx: loader $pid survives SIGKILL, in the kernel at:" >&2
			sed 's/^/scx:   /' "/proc/$pid/stack" >&2 2>/dev/null
			return 1
		fi
		wait "$pid" 2>/dev/null
		i=$?
		[ $i = 127 ] || SCX_RC=$i	# 127: not a child
	fi
	[ "$(scx_state)" = disabled ] && return 0
	echo "scx: still '$(scx_state)' 10 s after stopping the loader" >&2
	return 1
}
