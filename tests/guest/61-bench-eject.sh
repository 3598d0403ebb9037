#!/bin/bash
# tier: quick - the bench marks ejected runs and keeps them out of the stats
# 61-bench-eject.sh - guest test: the guest driver marks runs whose
# scheduler was ejected ("ejected") or never became ready
# ("sched-start-failed"), alternates the variants A B A B, and stats.c
# reports no numbers for those runs.  Uses fake scheduler plug-ins from
# tests/fixtures/bench-sched and a tiny perf-bench workload.
# timeout: 120
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v perf >/dev/null || { echo "perf missing"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
OUT=$out BENCH_SCHED_DIR=$ROOT/tests/fixtures/bench-sched \
	"$ROOT/bench/guest/main.sh" run "$ROOT/tests/fixtures/bench-eject.scn" >"$out/stdout" 2>"$out/stderr" ||
	{ echo "FAIL: driver exit; stderr:"; cat "$out/stderr"; exit 1; }
raw=$out/raw.csv
order=$(awk -F, 'NR > 1 && !seen[$2]++ { printf "%s ", $3 }' "$raw")
[ "$order" = "ejected nostart ejected nostart " ] || { echo "FAIL: run order '$order'"; fail=1; }
awk -F, 'NR > 1 && $3 == "ejected" && $8 != "ejected" { exit 1 }' "$raw" || { echo "FAIL: ejected runs not marked"; fail=1; }
awk -F, 'NR > 1 && $3 == "ejected" { f = 1 } END { exit !f }' "$raw" || { echo "FAIL: no rows for the ejected variant"; fail=1; }
awk -F, 'NR > 1 && $3 == "nostart" && $8 != "sched-start-failed" { exit 1 }' "$raw" || { echo "FAIL: failed starts not marked"; fail=1; }
grep -q 'status ejected (no numbers reported for it)' "$out/stdout" || { echo "FAIL: no progress note for the ejected run"; fail=1; }
if [ -x "$ROOT/build/bench/stats" ]; then S=$ROOT/build/bench/stats; else
	gcc -O2 -std=c11 -o "$out/stats" "$ROOT/bench/stats.c" -lm 2>/dev/null && S=$out/stats || S=
fi
if [ -n "$S" ]; then
	"$S" summary "$raw" >/dev/null 2>"$out/err" && { echo "FAIL: stats reported numbers for refused runs"; fail=1; }
	grep -q 'no rows with status ok' "$out/err" || { echo "FAIL: stats message: $(cat "$out/err")"; fail=1; }
fi
[ ! -e /sys/fs/cgroup/bench ] || { echo "FAIL: cgroups left behind"; fail=1; }
[ $fail = 0 ] && echo "bench eject: ok"
exit $fail
