#!/bin/bash
# tier: quick - report.sh on a fixed raw.csv: what results/ summaries say (seconds)
# 62-bench-report.sh - host test: bench/report.sh turns a raw.csv into
# summary.md (setup, per-variant tables, the declared comparison with CI,
# resolvable effect and verdict, the same by Hodges-Lehmann and the sign
# test, the same adjusted for the host's speed, ratio with CI and pair
# count, the refused run listed and left out, the unsaturated run (many
# such runs as a table) and the run disturbed on the host flagged, the
# exit table, each variant's positions in its rounds) and PNG plots, for
# the web and weights scenarios.  The raw data is synthetic, generated
# here; no QEMU.
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
cat >"$d/scenario.scn" <<'EOF'
workload web
rounds 6
variant flat   sched=cfs    config=flat.conf        web=web:bench/web client=client
variant nested sched=flatcg config=nested-2to1.conf web=hi:a,lo:b client=client
compare flat nested claim=1.10 label=nested:flatcg/cfs
EOF
meta web 6 >"$d/meta.txt"
echo "qemu-system-x86_64 -accel tcg" >"$d/qemu-cmdline"
# run 3 ejected; run 8 (round 4, nested) only 90% busy; run 6 has 400 requests
awk 'BEGIN { srand(5); print "round,run,variant,sched,config,metric,value,status"
	for (r = 1; r <= 6; r++) for (v = 0; v < 2; v++) {
		i++; st = (i == 3) ? "ejected" : "ok"; name = v ? "nested" : "flat"
		printf "%d,%d,%s,%s,x,req_s,%.2f,%s\n", r, i, name, v ? "flatcg" : "cfs", 20 + v + rand(), st
		printf "%d,%d,%s,%s,x,busy_pct,%.2f,%s\n", r, i, name, v ? "flatcg" : "cfs", i == 8 ? 90 : 99.5, st
		printf "%d,%d,%s,%s,x,requests.web,%d,%s\n", r, i, name, v ? "flatcg" : "cfs", i == 6 ? 400 : 1500, st
		printf "%d,%d,%s,%s,x,host_chase_us,%d,%s\n", r, i, name, v ? "flatcg" : "cfs", 30000 + 1000 * rand(), st } }' >"$d/raw.csv"
{ echo "round,run,variant,sched,status,loader_rc,exit_reason"
  echo "2,4,nested,flatcg,ok,0,unregistered from user space"
  echo "2,3,flat,cfs,ejected,,"; } >"$d/runs.csv"
# host: progress lines at t=100+10*i for run i; a compiler seen at t=155 (run 5)
{ echo "epoch,line"; for i in $(seq 12); do echo "$((100 + 10 * i)),[web] round 1/6  run $i/12  variant flat  sched cfs"; done
  echo "230,[web] done: 12 runs"; } >"$d/progress-host.csv"
{ echo "epoch,load1,compiler,other_qemu"; for t in $(seq 110 5 225); do echo "$t,1.0,$([ $t = 155 ] && echo 1 || echo 0),0"; done; } >"$d/host-samples.csv"
# wrk histograms: every run of flat holds 1..100 ms once each; run 3 (flat,
# ejected) holds a 10 s outlier that must not count
{ echo "round,run,variant,sched,metric,value,count,status"
  for i in $(seq 12); do
	[ $((i % 2)) = 1 ] || continue
	st=ok; [ $i = 3 ] && st=ejected
	for k in $(seq 100); do echo "$(((i + 1) / 2)),$i,flat,cfs,latency_us.web,$((1000 * k)),1,$st"; done
	[ $i = 3 ] && echo "2,3,flat,cfs,latency_us.web,10000000,50,ejected"
  done; } >"$d/hist.csv"
"$ROOT/bench/report.sh" "$d" >/dev/null || { echo "FAIL: report.sh web"; fail=1; }
s=$d/summary.md
grep -q '^# Bench results: web (full mode)' "$s" || { echo "FAIL: title"; fail=1; }
grep -q '^- run 3 (round 2, variant flat, scheduler cfs): ejected' "$s" || { echo "FAIL: ejected run not listed"; fail=1; }
grep -q '^| req_s | 5 |' "$s" || { echo "FAIL: ejected run counted in flat's n"; fail=1; }
grep -q '^## Ratio nested / flat, every metric' "$s" || { echo "FAIL: no ratio section"; fail=1; }
# flat ran first in every round, nested second (run 3, ejected, counts)
grep -qx '| variant | 1 | 2 |' "$s" && grep -qx '| flat | 6 | 0 |' "$s" && grep -qx '| nested | 0 | 6 |' "$s" ||
	{ echo "FAIL: positions in the round"; fail=1; }
# and so the position fit cannot tell variant from position: said in its row
grep -q '^| nested:flatcg/cfs | req_s | - | position: variant and position cannot be told apart in req_s' "$s" ||
	{ echo "FAIL: position row of a fixed order"; grep '^| nested:' "$s"; fail=1; }
grep -Eq '^\| req_s \| 5 \| 1\.[0-9]{4} \| [0-9.]+ \.\. [0-9.]+ \|' "$s" || { echo "FAIL: ratio row (5 pairs, CI)"; fail=1; }
# the declared comparison: 5 pairs, CI, resolvable effect, a verdict on 1.10
grep -Eq '^\| nested:flatcg/cfs \| req_s \| 5 \| 1\.[0-9]{4} \| [0-9.]+ \.\. [0-9.]+ \| \+/-[0-9.]+% \| [0-9]+ \| 1\.10 \| (reproduced|partly|not reproduced|not resolvable)' "$s" ||
	{ echo "FAIL: comparison row"; grep '^| nested:' "$s"; fail=1; }
# the same comparison adjusted for the host's speed, and the covariate's ratio
grep -q "^## Adjusted for the host's speed" "$s" || { echo "FAIL: no adjusted section"; fail=1; }
grep -Eq '^\| nested:flatcg/cfs \| req_s \| 5 \| [0-9]\.[0-9]{4} \| [0-9.]+ \.\. [0-9.]+ \| \+/-[0-9.]+% \| -?[0-9.]+ \| -?[0-9.]+ \| [0-9]+ \| [0-9.]+ \([0-9.]+ \.\. [0-9.]+\) \|$' "$s" ||
	{ echo "FAIL: adjusted row"; grep "^| nested:" "$s"; fail=1; }
[ -s "$d/stats-adjust-nested-vs-flat.csv" ] || { echo "FAIL: no stats-adjust csv"; fail=1; }
# the same comparison by Hodges-Lehmann and the sign test: the pairs won
# and lost are counted here from raw.csv (round 2's flat run was ejected)
grep -q "^## Robust to outliers" "$s" || { echo "FAIL: no robust section"; fail=1; }
read -r won lost <<<"$(awk -F, '$6 == "req_s" && $8 == "ok" { v[$1, $3] = $7 }
	END { for (r = 1; r <= 6; r++) if ((r, "flat") in v && (r, "nested") in v) { w += v[r, "nested"] > v[r, "flat"]; l += v[r, "nested"] < v[r, "flat"] }
		print w + 0, l + 0 }' "$d/raw.csv")"
grep -Eq "^\| nested:flatcg/cfs \| req_s \| 5 \| [0-9]\.[0-9]{4} \| - \| $won \| $lost \| [0-9.e-]+ \|$" "$s" ||
	{ echo "FAIL: robust row (5 pairs: no 95% interval; $won won, $lost lost)"; grep "^| nested:" "$s"; fail=1; }
# the noise by distance: flat and nested always one run apart, 5 pairs
awk '/^\| runs apart \| pairs \| sd of ln ratio \|$/ { t = NR } t && NR > t + 1 && /^\|/ { print } t && NR > t + 1 && !/^\|/ { exit }' "$s" >"$tmp/dist-rows"
grep -Eqx '\| 1 \| 5 \| [0-9]\.[0-9]{4} \|' "$tmp/dist-rows" && [ "$(wc -l <"$tmp/dist-rows")" = 1 ] ||
	{ echo "FAIL: distance table: $(cat "$tmp/dist-rows")"; fail=1; }
[ -s "$d/stats-distance.csv" ] || { echo "FAIL: no stats-distance.csv"; fail=1; }
grep -q '^- run 8 (round 4, nested): guest CPUs 90.0% busy' "$s" || { echo "FAIL: unsaturated run not flagged"; fail=1; }
grep -q '^- run 5: host busy: a compiler ran;' "$s" || { echo "FAIL: host interference not flagged"; fail=1; }
grep -q '^- run 6 (nested): p99 of web stands on 400 requests' "$s" || { echo "FAIL: thin p99 not flagged"; fail=1; }
# pooled: 5 ok runs x 100 values; nearest rank p50 50, p90 90, p99 99, p99.9 100 ms
grep -q '^| flat | latency_us.web | 5 | 500 | 50.0 | 90.0 | 99.0 | 100.0 |$' "$s" || { echo "FAIL: pooled latency row"; fail=1; }
[ "$(grep -c '^| nested | latency_us' "$s")" = 0 ] || { echo "FAIL: pooled row for a variant without histograms"; fail=1; }
is_png "$d/cdf.web.png" || { echo "FAIL: no pooled latency plot"; fail=1; }
[ "$(grep -c 'stands on' "$s")" = 1 ] || { echo "FAIL: thin p99 flagged on the wrong runs"; fail=1; }
[ "$(grep -c 'host busy' "$s")" = 1 ] || { echo "FAIL: host interference flagged on the wrong runs"; fail=1; }
grep -q '^| 4 | 2 | nested | flatcg | ok | 0 | unregistered from user space |' "$s" || { echo "FAIL: exit table"; fail=1; }
is_png "$d/throughput.png" || { echo "FAIL: throughput.png"; fail=1; }
is_png "$d/rounds-nested-vs-flat.png" || { echo "FAIL: per-round ratio plot"; fail=1; }

# more than 5 unsaturated runs: a table per variant instead of a line each
# (every flat run at 97%: flat 5 of 5 ok runs, nested run 8 at 90 of 6)
cp -r "$d" "$tmp/web-idle"
awk -F, -v OFS=, '$6 == "busy_pct" && $3 == "flat" { $7 = "97.00" } 1' "$d/raw.csv" >"$tmp/web-idle/raw.csv"
"$ROOT/bench/report.sh" "$tmp/web-idle" >/dev/null || { echo "FAIL: report.sh web-idle"; fail=1; }
s=$tmp/web-idle/summary.md
grep -q '^6 of 11 runs kept the guest CPUs below 98% busy' "$s" &&
	grep -qx '| flat | 5 | 5 | 97.0 | 97.0 |' "$s" && grep -qx '| nested | 6 | 1 | 97.9 | 90.0 |' "$s" ||
	{ echo "FAIL: saturation table"; grep -A4 '^## Saturation' "$s"; fail=1; }
! grep -q 'busy (below 98%' "$s" || { echo "FAIL: runs listed one by one beside the table"; fail=1; }

d=$tmp/weights
mkdir -p "$d"
printf 'workload weights\nrounds 3\nvariant tree sched=cfs config=weights-tree.conf hogs=B:R/A/B\n' >"$d/scenario.scn"
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
! grep -q 'runs apart' "$d/summary.md" || { echo "FAIL: a distance table with one variant"; fail=1; }

"$ROOT/bench/report.sh" "$tmp/missing" 2>/dev/null && { echo "FAIL: missing folder accepted"; fail=1; }
[ $fail = 0 ] && echo "bench report: ok"
exit $fail
