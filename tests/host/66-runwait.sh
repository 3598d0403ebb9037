#!/bin/bash
# tier: quick - the runnable-wait metric on a hand-made trace (seconds)
# 66-runwait.sh - host test: tests/tools/runwait.sh (the runnable-wait
# metric of bench/lib/overlap.sh's traced window) on a hand-made trace
# (tests/fixtures/runwait.trace, CPUs 0-1, times in us after 100 s):
#   sh 11 is woken at 100 and runs at 1000 (waited 900) when sh 10 is
#   preempted (R+), which runs again at 3000 (waited 2000); sh 11 forks
#   sh 12 (woken new at 1250, runs at 3500 on CPU 1: 2250); sh 11 is woken
#   at 4000 and has not run when the trace ends at 5000 (open, 1000); a
#   wakeup of sh 10 while it runs (4200) starts no wait; the idle task
#   switched out with state R is no wait; web 20 runs but never waits.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RW=$ROOT/tests/tools/runwait.sh
T=$ROOT/tests/fixtures/runwait.trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
has() {	# OUTPUT-FILE PATTERN WHAT
	grep -q "$2" "$1" || { echo "FAIL: $3: no '$2' in:"; sed 's/^/  /' "$1"; fail=1; }
}
"$RW" "$T" >"$tmp/all" || { echo "FAIL: runwait.sh exited $?"; fail=1; }
has "$tmp/all" '^events=10 lost=0$' "every switch and wakeup is an event"
has "$tmp/all" '^group=all waits=4 mean_us=1538 p50_us=1000 p99_us=2250 max_us=2250 max_tid=12 open=1$' \
	"wakeup, preemption and new-task waits; the open one counts to the end"
printf '10 A\n11 A\n20 B\n' >"$tmp/map"
"$RW" -g "$tmp/map" "$T" >"$tmp/g" || fail=1
has "$tmp/g" '^group=A waits=4 .* max_tid=12 ' "the forked child joins its parent's group"
grep -q '^group=B' "$tmp/g" && { echo "FAIL: B never waited but got a line"; fail=1; }
grep -v sched_process_fork "$T" >"$tmp/nofork.trace"
"$RW" -g "$tmp/map" "$tmp/nofork.trace" >"$tmp/nf" || fail=1
has "$tmp/nf" '^group=A waits=3 mean_us=1300 p50_us=1000 p99_us=2000 max_us=2000 max_tid=10 open=1$' \
	"without fork events the child is in no group"
"$RW" -g "$tmp/missing" "$T" >/dev/null 2>&1 && { echo "FAIL: a missing map file was accepted"; fail=1; }
[ $fail = 0 ] && echo "runwait: ok"
exit $fail
