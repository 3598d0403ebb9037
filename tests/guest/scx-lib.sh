# Shared by the guest tests of the example sched_ext schedulers (sourced,
# not run).  sched_proof runs a scheduler command next to a CPU-bound shell
# loop and checks that the loop's tasks went through the BPF scheduler:
# while the scheduler is attached the loop accumulates run time
# (se.sum_exec_runtime) but its CFS vruntime stands still, and once the
# scheduler has exited the vruntime moves again (back on CFS).  It also
# checks the state file and the scheduler's clean exit message.
# Limits: needs /proc/PID/sched (CONFIG_SCHED_DEBUG); all waits are bounded.
SCX_BUILD=${SCX_BUILD:-build/scx}
STATE=/sys/kernel/sched_ext/state

sched_field() {	# PID FIELD: a number from /proc/PID/sched
	awk -F: -v f="$2" '$1 ~ "^"f" *$" { gsub(/ /, "", $2); print $2 }' "/proc/$1/sched"
}

wait_state() {	# STATE SECONDS
	local i
	for i in $(seq $(($2 * 10))); do
		[ "$(cat $STATE)" = "$1" ] && return 0
		sleep 0.1
	done
	echo "state is $(cat $STATE), not $1, after $2 s"
	return 1
}

# sched_proof LOG CMD...: CMD attaches a scheduler and runs until SIGINT
sched_proof() {
	local log=$1 spid bpid s1 s2 v1 v2 v3 v4 rc
	shift
	[ "$(cat $STATE)" = disabled ] || { echo "a scheduler is already loaded"; return 1; }
	sh -c 'while :; do :; done' &
	bpid=$!
	"$@" >"$log" 2>&1 &
	spid=$!
	wait_state enabled 15 || { kill $bpid; cat "$log"; return 1; }
	echo "ops: $(cat /sys/kernel/sched_ext/root/ops)"
	sleep 0.5
	s1=$(sched_field $bpid se.sum_exec_runtime) v1=$(sched_field $bpid se.vruntime)
	sleep 1.5
	s2=$(sched_field $bpid se.sum_exec_runtime) v2=$(sched_field $bpid se.vruntime)
	[ "$(cat $STATE)" = enabled ] || { echo "scheduler left early"; kill $bpid; cat "$log"; return 1; }
	kill -INT $spid
	timeout 30 tail --pid=$spid -f /dev/null
	wait $spid
	rc=$?
	wait_state disabled 10 || { kill $bpid; return 1; }
	v3=$(sched_field $bpid se.vruntime)
	sleep 1
	v4=$(sched_field $bpid se.vruntime)
	kill $bpid
	cat "$log"
	echo "attached: sum_exec $s1 -> $s2 ms, vruntime $v1 -> $v2; detached: vruntime $v3 -> $v4"
	[ $rc = 0 ] || { echo "scheduler exited $rc"; return 1; }
	awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(b > a) }' || { echo "loop did not run while attached"; return 1; }
	[ "$v1" = "$v2" ] || { echo "vruntime moved while attached: the loop ran on CFS"; return 1; }
	awk -v a="$v3" -v b="$v4" 'BEGIN { exit !(b != a) }' || { echo "loop not back on CFS after the exit"; return 1; }
	grep -q 'EXIT: .*unregistered from user space' "$log" || { echo "no clean exit message"; return 1; }
}

# ---- a scheduler by name, for tests that loop over several -------------
# sched_start NAME LOG / sched_alive NAME / sched_stop NAME LOG; "cfs" means
# no BPF scheduler (each is a no-op).  Failures print "# FAIL ..." lines for
# tests that report TAP.
sched_cmd() {
	case $1 in
	cfs) ;;
	qmap) echo "$SCX_BUILD/scx_qmap" ;;
	simple) echo "$SCX_BUILD/scx_simple" ;;
	*) return 1 ;;
	esac
}

spid=
sched_start() {	# NAME LOGFILE
	local cmd
	cmd=$(sched_cmd "$1") || { echo "# FAIL unknown scheduler $1"; return 1; }
	[ -z "$cmd" ] && return 0
	[ -x "$cmd" ] || { echo "# FAIL $cmd not built"; return 1; }
	[ "$(cat $STATE)" = disabled ] ||
		{ echo "# FAIL a scheduler is already loaded"; return 1; }
	$cmd >"$2" 2>&1 &
	spid=$!
	wait_state enabled 15 || { kill -INT $spid; wait $spid; cat "$2"; return 1; }
}

sched_alive() {	# NAME
	[ "$1" = cfs ] && return 0
	[ "$(cat $STATE)" = enabled ] ||
		{ echo "# FAIL $1: state is $(cat $STATE): ejected"; return 1; }
	kill -0 $spid 2>/dev/null || { echo "# FAIL $1: loader exited"; return 1; }
}

sched_stop() {	# NAME LOGFILE
	local rc
	[ "$1" = cfs ] && return 0
	kill -INT $spid 2>/dev/null
	timeout 30 tail --pid=$spid -f /dev/null
	wait $spid
	rc=$?
	wait_state disabled 10 || return 1
	[ $rc = 0 ] || { echo "# FAIL $1: loader exited $rc"; tail -n 20 "$2"; return 1; }
	grep -q 'EXIT: .*unregistered from user space' "$2" ||
		{ echo "# FAIL $1: no clean exit message"; tail -n 20 "$2"; return 1; }
}
