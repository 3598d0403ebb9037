#!/bin/bash
# TAP runner, used on the host (tests/host) and inside the guest
# (tests/guest, tests/guest-nohz).  Runs every executable NN-*.sh of the
# folder that belongs to the tier, in name order, and prints TAP: the plan
# `1..N` first, then `ok N name (12s)`, `not ok N name (12s)` (with the
# tail of the test's log as `#` lines), `ok N name (0s) # SKIP why`, and
# `# passed=P failed=F skipped=S` last.  Exit 1 if any test failed.
#
# A test's header lines (`# key: value`) say how to run it:
#   # timeout: N     its limit in seconds (default 120); at the limit the
#                    runner writes a hang report (LOGDIR/NAME.log.hang: its
#                    processes, wait channels, kernel stacks, in the guest
#                    SysRq-W) and kills the test's process group
#   # tier: T - why  quick (make test and make test-full) or full (make
#                    test-full only); every test says which and why
#   # tap: yes       the test prints TAP itself; each `ok`/`not ok` line
#                    counts as one result named SCRIPT/name
#   # plan: N        (tap tests) how many results it reports; `quick=N
#                    full=M` when its cases depend on the tier.  Results
#                    missing from the plan fail one by one, so a test that
#                    vanished or died early always shows; a test that
#                    skips as a whole with one SKIP line skips every slot
#   # kernel-log-expect: REGEX   kernel messages the test provokes on
#                    purpose (read by scripts/kernel-log-check.sh)
# Exit 0 = pass, 77 = skip (the log's last line is the reason), anything
# else (including the timeout) = fail.  Each result line carries its wall
# time; a tap test's result, the time since its previous result.
# With RUN_SUITE_KMSG=1 (the guest) the start of every test, and of every
# case a tap test announces with a `# == NAME` or `# ===== NAME:` line, is
# written to the kernel log as `run-suite: begin SCRIPT[/NAME]`, so a
# kernel splat on the console can be laid at the door of what ran.
# Limits: tests run one at a time; each sees $TEST_LOG_DIR for scratch logs
# and $TEST_TIER; a C program in a tap test should line-buffer its stdout
# (stdbuf -oL) or its case markers arrive late.
set -u
usage() {
	cat <<USAGE
usage: run-suite.sh [-l LOGDIR] [-t quick|full] [-n] [-h] DIR
Run the tests of DIR that belong to the tier (default \$TEST_TIER or quick).
  -l LOGDIR  where each test's log goes (default \$OUT/logs-DIR or /tmp)
  -t TIER    quick: the tests tagged quick; full: every test
  -n         print the plan (1..N) and the tests of the tier with their
             plans and limits (\`# NAME plan=P timeout=S\`), run nothing
  -h         this help
USAGE
}
logdir= tier=${TEST_TIER:-quick} dry=0
while getopts "l:t:nh" opt; do
	case $opt in
	l) logdir=$OPTARG ;;
	t) tier=$OPTARG ;;
	n) dry=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] && [ -d "$1" ] || { usage >&2; exit 2; }
case $tier in
quick|full) ;;
*) echo "run-suite: tier must be quick or full, not '$tier'" >&2; exit 2 ;;
esac
dir=$(cd "$1" && pwd)
logdir=${logdir:-${OUT:-/tmp}/logs-$(basename "$dir")}
mkdir -p "$logdir"
export TEST_LOG_DIR=$logdir TEST_TIER=$tier

# tag FILE KEY: the value of the first `# KEY: value` line of FILE
tag() { sed -n "s/^# $2: *//p" "$1" | head -n 1; }

# plan_of FILE: how many results the test reports in this tier
plan_of() {
	local p
	[ "$(tag "$1" tap)" = yes ] || { echo 1; return; }
	p=$(tag "$1" plan)
	case $p in
	*=*) p=$(echo "$p" | tr ' ' '\n' | sed -n "s/^$tier=//p") ;;
	esac
	echo "$p"
}

# The tests of this tier and the suite's plan; a test without a tier, or
# a tap test without a plan for the tier, is an error of the suite.
tests=() plan=0
for t in "$dir"/[0-9]*.sh; do
	[ -x "$t" ] || continue
	tt=$(tag "$t" tier)
	case ${tt%% *} in
	quick) ;;
	full) [ "$tier" = full ] || continue ;;
	*) echo "run-suite: $t has no '# tier: quick|full - why' line" >&2; exit 2 ;;
	esac
	p=$(plan_of "$t")
	[[ $p =~ ^[0-9]+$ ]] && [ "$p" -gt 0 ] ||
		{ echo "run-suite: $t: no '# plan:' for tier $tier" >&2; exit 2; }
	tests+=("$t")
	plan=$((plan + p))
done
echo "1..$plan"
if [ $dry = 1 ]; then
	for t in "${tests[@]}"; do
		echo "# $(basename "$t" .sh) plan=$(plan_of "$t") timeout=$(tag "$t" timeout)"
	done
	exit 0
fi

kmsg=
[ "${RUN_SUITE_KMSG:-0}" = 1 ] && [ -w /dev/kmsg ] && kmsg=/dev/kmsg
# begin NAME: mark the kernel log (level 4, so the console shows it)
begin() { [ -z "$kmsg" ] || echo "<4>run-suite: begin $1" >"$kmsg"; }

# stamp LOG SCRIPT: copy stdin to LOG; for each result line write to
# LOG.times the seconds since the previous one (or the start); mark the
# start of each announced case in the kernel log
stamp() {
	local line now prev=${EPOCHREALTIME%.*} c
	exec 3>"$1" 4>"$1.times"
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line" >&3
		case $line in
		"ok "*|"not ok "*)
			now=${EPOCHREALTIME%.*}
			echo $((now - prev)) >&4
			prev=$now ;;
		"# =="*)
			c=${line#"# "}; c=${c#"${c%%[!=]*}"}; c=${c# }; c=${c%%[: ]*}
			[ -n "$c" ] && begin "$2/$c" ;;
		esac
	done
}

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
		echo "<4>run-suite: hang report (SysRq-W) of $name" >/dev/kmsg
		echo w >/proc/sysrq-trigger
		sleep 1
		echo "-- blocked tasks (SysRq-W)"
		dmesg | sed -n "/run-suite: hang report (SysRq-W) of $name\$/,\$p" | tail -n +2 | head -n 200
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

# tap_results: turn the tap test's result lines into the suite's, with
# their times; then hold the test to its plan
tap_results() {
	local line res rest sub_fail=0 sub_n=0 secs skip_only=1 reason= k
	exec 5<"$log.times"
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*) ;;
		*) continue ;;
		esac
		read -r secs <&5 || secs=?
		n=$((n + 1)) sub_n=$((sub_n + 1))
		res=${line%% [0-9]*} rest=${line#"$res" }
		rest=${rest#* }
		# the time goes after the name, before a TAP directive
		if [ "${rest#*#}" != "$rest" ]; then
			echo "$res $n $name/${rest%%#*}(${secs}s) #${rest#*#}"
		else
			echo "$res $n $name/$rest (${secs}s)"
		fi
		if [ "$res" = "not ok" ]; then
			fail=$((fail + 1)) sub_fail=$((sub_fail + 1)) skip_only=0
		elif [[ $rest =~ \#\ *SKIP ]]; then
			skip=$((skip + 1))
			reason=${rest#*SKIP}
		else
			pass=$((pass + 1)) skip_only=0
		fi
	done <"$log"
	exec 5<&-
	if [ $rc != 0 ] && [ $sub_fail = 0 ] || [ $sub_n = 0 ]; then
		# one more line, beyond the plan: the test failed as a whole
		n=$((n + 1))
		failed "exit $rc, ${secs_all}s, $sub_n results"
	elif [ $sub_fail != 0 ]; then
		grep -E '^# (ERR|FAIL)' "$log" | head -n 20 | sed 's/^/#   /'
	fi
	# hold it to its plan: a whole-test skip skips every slot, a short
	# report fails each missing one, a long one fails once
	for ((k = sub_n; k < tplan; k++)); do
		n=$((n + 1))
		if [ $skip_only = 1 ] && [ $sub_fail = 0 ] && [ $rc = 0 ]; then
			echo "ok $n $name/planned-$((k + 1)) (0s) # SKIP${reason:- the test skipped as a whole}"
			skip=$((skip + 1))
		else
			echo "not ok $n $name/planned-$((k + 1)) (0s) # missing: $sub_n of $tplan planned results"
			fail=$((fail + 1))
		fi
	done
	if [ $sub_n -gt "$tplan" ]; then
		n=$((n + 1))
		echo "not ok $n $name (reported $sub_n results, its plan says $tplan)"
		fail=$((fail + 1))
	fi
}

# the test's output reaches the stamper through a fifo on a local tmpfs
fifo=$(mktemp -d /tmp/run-suite.XXXXXX)/out || exit 2
trap 'rm -rf "${fifo%/out}"' EXIT
n=0 pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	limit=$(tag "$t" timeout)
	limit=${limit:-120}
	tplan=$(plan_of "$t")
	log=$logdir/$name.log
	start=${EPOCHREALTIME%.*}
	rm -f "$log.hang" "$log.hang.timedout"
	begin "$name"
	rm -f "$fifo"; mkfifo "$fifo" || exit 2
	stamp "$log" "$name" <"$fifo" &
	stpid=$!
	# timeout's own limit is a backstop for a hang report that hangs
	timeout -k 5 $((limit + 60)) "$t" >"$fifo" 2>&1 </dev/null &
	tpid=$!
	watch_hang $tpid "$limit" "$log.hang" &
	wpid=$!
	wait $tpid
	rc=$?
	[ -e "$log.hang.timedout" ] && rc=124
	kill $wpid 2>/dev/null
	wait $wpid 2>/dev/null
	# the stamper ends when the last writer of the fifo has gone (a
	# process the test left behind would keep it: give up after 10 s)
	for _ in $(seq 50); do kill -0 $stpid 2>/dev/null || break; sleep 0.2; done
	kill $stpid 2>/dev/null
	wait $stpid 2>/dev/null
	secs_all=$(( ${EPOCHREALTIME%.*} - start ))
	if [ "$(tag "$t" tap)" = yes ]; then
		tap_results
	else
		n=$((n + 1))
		if [ $rc = 0 ]; then
			echo "ok $n $name (${secs_all}s)"; pass=$((pass + 1))
		elif [ $rc = 77 ]; then
			echo "ok $n $name (${secs_all}s) # SKIP $(tail -n1 "$log")"; skip=$((skip + 1))
		else
			failed "exit $rc, ${secs_all}s"
		fi
	fi
done
begin "(suite end)"
echo "# passed=$pass failed=$fail skipped=$skip"
[ $fail = 0 ]
