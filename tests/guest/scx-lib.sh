# Shared by the guest tests of the example sched_ext schedulers (sourced,
# not run): sched_start/sched_alive/sched_stop (below) to run a scheduler,
# and sched_proof, which runs a scheduler command next to a CPU-bound shell
# loop and checks that the loop's tasks went through the BPF scheduler:
# while the scheduler is attached the loop accumulates run time
# (se.sum_exec_runtime) but its CFS vruntime stands still, and once the
# scheduler has exited the vruntime moves again (back on CFS), and that
# the scheduler stayed in charge and exited cleanly.
# Limits: needs /proc/PID/sched (CONFIG_SCHED_DEBUG); all waits are bounded.
SCX_BUILD=${SCX_BUILD:-build/scx}

# in_tier CASE "QUICK-CASES": CASE runs in this tier ($TEST_TIER from
# tests/run-suite.sh): the full tier runs every case, the quick one those
# listed; the test's `# plan:` line counts the same lists
in_tier() { [ "${TEST_TIER:-quick}" = full ] || [[ " $2 " == *" $1 "* ]]; }

# cpu_set_online CPU 0|1 SECONDS: write CPU's online file from a child and
# wait at most SECONDS for it.  A write stuck in the kernel cannot be
# killed (timeout would wait for it forever): it is left behind and its
# kernel stack printed after a "# FAIL" line.  0 if the write ended and
# the file reads the value.
cpu_set_online() {
	local f=/sys/devices/system/cpu/cpu$1/online w i
	sh -c "echo $2 >$f" &
	w=$!
	for i in $(seq $(($3 * 5))); do
		kill -0 $w 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 $w 2>/dev/null; then
		echo "# FAIL writing $2 to $f still waits after $3 s (sched_ext state $(scx_state)):"
		sed 's/^/#   /' "/proc/$w/stack"
		return 1
	fi
	wait $w && [ "$(cat $f)" = "$2" ] || { echo "# FAIL cannot write $2 to $f"; return 1; }
}

sched_field() {	# PID FIELD: a number from /proc/PID/sched
	awk -F: -v f="$2" '$1 ~ "^"f" *$" { gsub(/ /, "", $2); print $2 }' "/proc/$1/sched"
}

# ---- starting, watching and stopping a scheduler -------------------------
# On top of the loader helpers of the benchmark plug-ins (scx_start,
# scx_alive, scx_stop in bench/schedulers/scx.sh), with a log per call and
# the checks a test makes.  sched_start LOG [CMD...] starts CMD (no CMD: the
# test runs on CFS and all three are no-ops) and waits for the state
# "enabled"; sched_alive LABEL checks that it is still in charge; sched_stop
# LOG ends it with SIGINT and checks that the loader exited 0 with the clean
# exit message.  Failures print "# FAIL ..." lines (fit for TAP tests) and
# the log's tail.
. "$(dirname "${BASH_SOURCE[0]}")/../../bench/schedulers/scx.sh"

sched_cmd() {	# NAME: the loader of an example scheduler; nothing for cfs
	case $1 in
	cfs) ;;
	central | qmap | simple) echo "$SCX_BUILD/scx_$1" ;;
	*) echo "# FAIL unknown scheduler $1" >&2; return 1 ;;
	esac
}

spid=
sched_start() {	# LOG [CMD...]
	local log=$1 err
	shift
	spid=
	[ $# = 0 ] && return 0
	: >"$log"
	SCX_LOG=$log
	err=$(mktemp) || return 1
	# not in a subshell: the loader must be this shell's child
	if ! scx_start 15 "$@" 2>"$err"; then
		echo "# FAIL $1 did not attach: $(sed 's/^scx: //' "$err")"
		rm -f "$err"
		scx_stop 2>/dev/null
		tail -n 20 "$log"
		return 1
	fi
	rm -f "$err"
	spid=$(cat $SCX_PIDFILE)
}

sched_alive() {	# LABEL
	local why
	[ -n "$spid" ] || return 0
	why=$(scx_alive 2>&1) || { echo "# FAIL $1: ${why#scx: }"; return 1; }
}

sched_stop() {	# LOG
	local log=$1
	[ -n "$spid" ] || return 0
	spid=
	scx_stop 2>>"$log" || {
		echo "# FAIL state is $(scx_state) after stopping the loader"
		grep '^scx:' "$log" | tail -n 12 | sed 's/^/# /'
		return 1
	}
	[ "$SCX_RC" = 0 ] ||
		{ echo "# FAIL loader exited ${SCX_RC:-?}"; tail -n 20 "$log"; return 1; }
	grep -q 'EXIT: .*unregistered from user space' "$log" ||
		{ echo "# FAIL no clean exit message"; tail -n 20 "$log"; return 1; }
}

# sched_proof LOG CMD...: CMD attaches a scheduler and runs until SIGINT
sched_proof() {
	local log=$1 bpid s1 s2 v1 v2 v3 v4
	shift
	sh -c 'while :; do :; done' &
	bpid=$!
	sched_start "$log" "$@" || { kill $bpid; return 1; }
	echo "ops: $(cat /sys/kernel/sched_ext/root/ops)"
	sleep 0.5
	s1=$(sched_field $bpid se.sum_exec_runtime) v1=$(sched_field $bpid se.vruntime)
	sleep 1.5
	s2=$(sched_field $bpid se.sum_exec_runtime) v2=$(sched_field $bpid se.vruntime)
	sched_alive "$1" || { kill $bpid; sched_stop "$log"; cat "$log"; return 1; }
	sched_stop "$log" || { kill $bpid; return 1; }
	v3=$(sched_field $bpid se.vruntime)
	sleep 1
	v4=$(sched_field $bpid se.vruntime)
	kill $bpid
	cat "$log"
	echo "attached: sum_exec $s1 -> $s2 ms, vruntime $v1 -> $v2; detached: vruntime $v3 -> $v4"
	awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(b > a) }' || { echo "loop did not run while attached"; return 1; }
	[ "$v1" = "$v2" ] || { echo "vruntime moved while attached: the loop ran on CFS"; return 1; }
	awk -v a="$v3" -v b="$v4" 'BEGIN { exit !(b != a) }' || { echo "loop not back on CFS after the exit"; return 1; }
}

# pct_in P LO HI: the percentage P (decimals allowed) lies in [LO, HI]
pct_in() { awk -v p="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(p >= lo && p <= hi) }'; }

# nice_split LOG NICE-A NICE-B CMD...: 4 busy loops at NICE-A and 4 at
# NICE-B, unpinned, under the scheduler CMD (none: CFS); sets PCT to the A
# loops' share of the two groups' CPU time over 4 s (se.sum_exec_runtime),
# after 1 s to settle.  1 if the scheduler did not start or stay.  The
# scheduler is loaded before the loops start and stopped after they are
# gone: under TCG, loading and verifying beside 8 busy loops takes tens of
# seconds.
nice_split() {
	local log=$1 na=$2 nb=$3 a=() b=() i sa0 sb0 sa1 sb1
	shift 3
	sched_start "$log" "$@" || return 1
	for i in 1 2 3 4; do
		nice -n "$na" sh -c 'while :; do :; done' &
		a+=($!)
		nice -n "$nb" sh -c 'while :; do :; done' &
		b+=($!)
	done
	sleep 1
	sa0=$(_run_ms "${a[@]}") sb0=$(_run_ms "${b[@]}")
	sleep 4
	sa1=$(_run_ms "${a[@]}") sb1=$(_run_ms "${b[@]}")
	i=0
	sched_alive "nice split" || i=1
	kill "${a[@]}" "${b[@]}"
	wait "${a[@]}" "${b[@]}" 2>/dev/null
	[ $i = 0 ] && { sched_stop "$log" || i=1; }
	[ $i = 0 ] || sched_stop "$log" >/dev/null
	PCT=$(awk -v a=$((sa1 - sa0)) -v b=$((sb1 - sb0)) \
		'BEGIN { printf "%.1f", (a + b > 0) ? 100 * a / (a + b) : 0 }')
	echo "# nice $na loops $((sa1 - sa0)) ms, nice $nb loops $((sb1 - sb0)) ms: $PCT%"
	return $i
}
# _run_ms PID...: their se.sum_exec_runtime summed, in whole ms; one
# process reads them all, so that under load the samples of a group are
# taken at nearly the same moment
_run_ms() {
	local p files=()
	for p in "$@"; do files+=("/proc/$p/sched"); done
	awk -F: '$1 ~ /^se\.sum_exec_runtime */ { gsub(/ /, "", $2); s += $2 }
		END { printf "%d\n", s }' "${files[@]}"
}
