#!/bin/bash
# tier: quick - the overlap tool every SMT check uses, on a hand-made trace (seconds)
# 64-overlap-map.sh - host test: tests/tools/overlap.sh groups tasks by a
# TID map and follows their forks (-g, used by bench/lib/overlap.sh), on a
# hand-made trace (tests/fixtures/overlap-fork.trace, one core = CPUs 0-1):
# sh 10 (group A) forks sh 11, which runs on CPU 1 from 0.2 ms to 3 ms
# while on CPU 0 sh 10 runs to 1 ms, then web 20 (group C) to 2 ms.  Only
# that last millisecond has two groups on the core.  Without the map (and
# without comm prefixes) nothing belongs to a group.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OV=$ROOT/tests/tools/overlap.sh
T=$ROOT/tests/fixtures/overlap-fork.trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
has() {	# OUTPUT-FILE PATTERN WHAT
	grep -q "$2" "$1" || { echo "FAIL: $3: no '$2' in:"; sed 's/^/  /' "$1"; fail=1; }
}
printf '10 A\n20 C\n' >"$tmp/map"
"$OV" -s 0-1 -a '' -b '' -g "$tmp/map" "$T" >"$tmp/out" || { echo "FAIL: overlap.sh -g exited $?"; fail=1; }
has "$tmp/out" '^a_run_us=3800 b_run_us=0 overlap_us=1000 span_us=3000 ' "fork of a mapped task joins its group; A beside C overlaps"
has "$tmp/out" '^group=C run_us=1000$' "a group other than A and B gets its own line"
has "$tmp/out" '^cpu=1 a_run_us=2800 ' "the forked child's run counts for A"
"$OV" -s 0-1 -a '' -b '' "$T" >"$tmp/out0" || { echo "FAIL: overlap.sh without -g exited $?"; fail=1; }
has "$tmp/out0" '^a_run_us=0 b_run_us=0 overlap_us=0 ' "no map, no prefixes: no group"
# the map alone, without fork events, leaves the child out of A
grep -v sched_process_fork "$T" >"$tmp/nofork.trace"
"$OV" -s 0-1 -a '' -b '' -g "$tmp/map" "$tmp/nofork.trace" >"$tmp/out1" || fail=1
has "$tmp/out1" '^a_run_us=1000 b_run_us=0 overlap_us=0 ' "without fork events only mapped TIDs count"
"$OV" -g "$tmp/missing" "$T" >/dev/null 2>&1 && { echo "FAIL: a missing map file was accepted"; fail=1; }
[ $fail = 0 ] && echo "overlap-map: ok"
exit $fail
