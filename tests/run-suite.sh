#!/bin/bash
# TAP-style test runner, used on the host (tests/host) and inside the guest
# (tests/guest).  Runs every executable NN-*.sh in the given folder in name
# order.  Exit 0 = pass, 77 = skip, anything else (including the timeout)
# = fail.  A test's `# timeout: N` line sets its limit (default 120 s).
# Output: `ok N name`, `not ok N name` (with the tail of the test's log as
# `#` lines), then `# passed=P failed=F skipped=S`.  Exit 1 if any failed.
# A test with a `# tap: yes` line prints TAP itself (`ok N name`, `not ok N
# name`, `ok N name # SKIP why`): each of its lines counts as one test,
# named SCRIPT/name; it fails as a whole only if it exits non-zero without
# reporting a failure or reports nothing.
# A test that reaches its limit gets a hang report before it is killed
# (LOGDIR/NAME.hang, its head printed with the failure): its processes
# with their state and kernel wait channel, in the guest the kernel's
# blocked tasks (SysRq-W) from dmesg, then their kernel stacks.
# Limits: tests run one at a time; each sees $TEST_LOG_DIR for scratch logs.
set -u
usage() { echo "usage: run-suite.sh [-l LOGDIR] [-h] DIR"; }
logdir=
while getopts "l:h" opt; do
	case $opt in
	l) logdir=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] && [ -d "$1" ] || { usage >&2; exit 2; }
dir=$(cd "$1" && pwd)
logdir=${logdir:-${OUT:-/tmp}/logs-$(basename "$dir")}
mkdir -p "$logdir"
export TEST_LOG_DIR=$logdir

# failed DETAIL: report test $n ($name) as failed, with the tail of its log
failed() {
	[ $rc = 124 ] && echo "timed out after ${limit}s" >>"$log"
	echo "not ok $n $name ($1)"
	fail=$((fail + 1))
	tail -n 15 "$log" | sed 's/^/#   /'
	[ $rc = 124 ] && [ -s "$log.hang" ] && head -n 80 "$log.hang" | sed 's/^/#   /'
}

# hang_report PGID: what the processes of a test (its process group, made
# by timeout) are waiting for
hang_report() {
	local p procs
	echo "== $(date +%T) hang report: the test's processes"
	procs=$(ps -eo pid=,pgid=,stat=,wchan:32=,etimes=,args= | awk -v g="$1" '$2 == g')
	echo "$procs" | cut -c1-160
	# in the guest (the sched_ext kernel) only: the class's state and
	# the kernel's blocked tasks
	if [ -r /sys/kernel/sched_ext/state ]; then
		echo "sched_ext state: $(cat /sys/kernel/sched_ext/state)"
		p=$(dmesg | wc -l)
		echo w >/proc/sysrq-trigger
		sleep 1
		echo "-- blocked tasks (SysRq-W)"
		dmesg | tail -n +$((p + 1)) | head -n 200
	fi
	for p in $(echo "$procs" | awk '{ print $1 }'); do
		[ -r "/proc/$p/stack" ] || continue
		echo "-- $p $(cat "/proc/$p/comm" 2>/dev/null)"
		cat "/proc/$p/stack" 2>/dev/null
	done
}

# watch_hang PGID SECONDS FILE: the test's time limit.  If the test still
# runs after SECONDS, write the hang report to FILE, mark FILE.timedout
# and stop the test (TERM to timeout, which passes it on to the test's
# group and sends KILL 5 s later).  The report comes before the kill, so
# it sees the hung processes as they were.  The runner kills the watcher
# when the test ends first.
# One sleep for the whole limit: a poll would fork and exec (over 9p in
# the guest) every second, and such wake-ups disturb the tests that
# measure the scheduler (14-coresched's cross-sibling preemptions).
watch_hang() {
	local spid=
	trap '[ -n "$spid" ] && kill $spid 2>/dev/null && wait $spid; exit 0' TERM
	sleep "$2" &
	spid=$!
	wait $spid
	kill -0 "$1" 2>/dev/null || return 0
	hang_report "$1" >"$3" 2>&1
	: >"$3.timedout"
	kill -TERM "$1" 2>/dev/null
}

n=0 pass=0 fail=0 skip=0
for t in "$dir"/[0-9]*.sh; do
	[ -x "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t" .sh)
	limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n1)
	limit=${limit:-120}
	log=$logdir/$name.log
	start=$(date +%s)
	rm -f "$log.hang" "$log.hang.timedout"
	# timeout's own limit is a backstop for a hang report that hangs
	timeout -k 5 $((limit + 60)) "$t" >"$log" 2>&1 </dev/null &
	tpid=$!
	watch_hang $tpid "$limit" "$log.hang" &
	wpid=$!
	wait $tpid
	rc=$?
	[ -e "$log.hang.timedout" ] && rc=124
	kill $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	secs=$(( $(date +%s) - start ))
	if grep -q '^# tap: *yes' "$t"; then
		n=$((n - 1)) sub_fail=0 sub_n=0
		while read -r line; do
			case $line in
			"ok "*|"not ok "*) ;;
			*) continue ;;
			esac
			n=$((n + 1)) sub_n=$((sub_n + 1))
			res=${line%% [0-9]*} rest=${line#"$res" }
			rest=${rest#* }
			echo "$res $n $name/$rest"
			if [ "$res" = "not ok" ]; then
				fail=$((fail + 1)) sub_fail=$((sub_fail + 1))
			elif [ "${rest#*# SKIP}" != "$rest" ]; then
				skip=$((skip + 1))
			else
				pass=$((pass + 1))
			fi
		done <"$log"
		if [ $rc != 0 ] && [ $sub_fail = 0 ] || [ $sub_n = 0 ]; then
			n=$((n + 1))
			failed "exit $rc, ${secs}s, $sub_n results"
		elif [ $sub_fail != 0 ]; then
			grep -E '^# (ERR|FAIL)' "$log" | head -n 20 | sed 's/^/#   /'
		fi
	elif [ $rc = 0 ]; then
		echo "ok $n $name (${secs}s)"; pass=$((pass + 1))
	elif [ $rc = 77 ]; then
		echo "ok $n $name # SKIP $(tail -n1 "$log")"; skip=$((skip + 1))
	else
		failed "exit $rc, ${secs}s"
	fi
done
echo "# passed=$pass failed=$fail skipped=$skip"
[ $fail = 0 ]
