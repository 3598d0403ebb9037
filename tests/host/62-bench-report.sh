#!/bin/bash
# 62-bench-report.sh - host test: bench/report.sh turns a raw.csv into
# summary.md (setup, per-variant tables, ratio with CI and pair count, the
# refused run listed and left out) and PNG plots, for the web and weights
# scenarios.  The raw data is synthetic, generated here; no QEMU.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
gcc -O2 -Wall -std=c11 -o "$tmp/stats" "$ROOT/bench/stats.c" -lm || exit 1
export STATS=$tmp/stats
meta() { printf 'scenario=%s\nmode=full\nrounds=%s\nkernel_config_sha1=%040d\n' "$1" "$2" 0; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

d=$tmp/web
mkdir -p "$d"
cp "$ROOT/bench/scenarios/web.scn" "$d/scenario.scn"
meta web 6 >"$d/meta.txt"
echo "qemu-system-x86_64 -accel tcg" >"$d/qemu-cmdline"
awk 'BEGIN { srand(5); print "round,run,variant,sched,config,metric,value,status"
	for (r = 1; r <= 6; r++) for (v = 0; v < 2; v++) {
		i++; st = (i == 3) ? "ejected" : "ok"; name = v ? "nested" : "flat"
		printf "%d,%d,%s,cfs,x,req_s,%.2f,%s\n", r, i, name, 20 + v + rand(), st } }' >"$d/raw.csv"
"$ROOT/bench/report.sh" "$d" >/dev/null || { echo "FAIL: report.sh web"; fail=1; }
s=$d/summary.md
grep -q '^# Bench results: web (full mode)' "$s" || { echo "FAIL: title"; fail=1; }
grep -q '^- run 3 (round 2, variant flat, scheduler cfs): ejected' "$s" || { echo "FAIL: ejected run not listed"; fail=1; }
grep -q '^| req_s | 5 |' "$s" || { echo "FAIL: ejected run counted in flat's n"; fail=1; }
grep -q '^## Ratio nested / flat' "$s" || { echo "FAIL: no ratio section"; fail=1; }
grep -Eq '^\| req_s \| 5 \| 1\.[0-9]{4} \| [0-9.]+ \.\. [0-9.]+ \|' "$s" || { echo "FAIL: ratio row (5 pairs, CI)"; fail=1; }
is_png "$d/throughput.png" || { echo "FAIL: throughput.png"; fail=1; }

d=$tmp/weights
mkdir -p "$d"
cp "$ROOT/bench/scenarios/weights.scn" "$d/scenario.scn"
meta weights 3 >"$d/meta.txt"
awk 'BEGIN { print "round,run,variant,sched,config,metric,value,status"
	split("B C D", l, " "); split("16.667 16.667 66.667", c, " ")
	for (r = 1; r <= 3; r++) for (k = 1; k <= 3; k++) {
		printf "%d,%d,tree,cfs,x,share_pct.%s,%.3f,ok\n", r, r, l[k], c[k] + r - 2
		printf "%d,%d,tree,cfs,x,share_cfg_pct.%s,%s,ok\n", r, r, l[k], c[k] } }' >"$d/raw.csv"
"$ROOT/bench/report.sh" "$d" >/dev/null || { echo "FAIL: report.sh weights"; fail=1; }
is_png "$d/shares.png" || { echo "FAIL: shares.png"; fail=1; }
grep -q '^| share_pct.D | 3 | 66.67 | 1 | 66.67 |' "$d/summary.md" || { echo "FAIL: weights table"; fail=1; }
grep -q 'None: every run completed' "$d/summary.md" || { echo "FAIL: 'no refused runs' line"; fail=1; }

"$ROOT/bench/report.sh" "$tmp/missing" 2>/dev/null && { echo "FAIL: missing folder accepted"; fail=1; }
[ $fail = 0 ] && echo "bench report: ok"
exit $fail
