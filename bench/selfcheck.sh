#!/bin/bash
# selfcheck.sh - end-to-end self-check of the bench harness (make
# bench-check, part of make test): runs every scenario in quick mode through
# QEMU into a scratch folder and checks that each produced raw.csv with ok
# rows for every variant, runs.csv with an exit reason for every BPF
# scheduler run, host samples, the host's speed in every run, meta.txt,
# qemu-cmdline, dmesg, summary.md with the comparisons and saturation
# sections, PNG plots, and the workload-specific figures (overlap, traced
# waits, spread inside a leaf, shares while a leaf idles, wake-up latency,
# web's latency histograms and measured windows, a variant's loader
# arguments); then checks that a scenario with a broken cgroup config is
# refused with cgconfigparser's message before anything runs.  It checks
# the plumbing, not the numbers.
# Scenarios: all, or the names given as arguments (make test runs a subset
# that reaches every check); every scenario file is parsed either way.
# Limits: needs the built kernel; about 75 s a scenario.
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH")
BUILD=${BUILD:-$ROOT/build}
case ${1-} in -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
names=("$@")
[ ${#names[@]} -gt 0 ] ||
	for f in "$BENCH"/scenarios/*.scn; do names+=("$(basename "$f" .scn)"); done

scratch=$BUILD/bench/selfcheck
rm -rf "$scratch"
mkdir -p "$scratch"
fail=0
bad() { echo "bench-check: FAIL: $*" >&2; fail=1; }
# has_ok V METRIC OP BOUND: $d/raw.csv has an ok row of variant V whose
# METRIC value is OP (">" or ">=") BOUND; else a FAIL line
has_ok() {
	awk -F, -v v="$1" -v m="$2" -v op="$3" -v b="$4" '$3 == v && $6 == m && $8 == "ok" &&
		(op == ">" ? $7 > b : $7 >= b) { f = 1 } END { exit !f }' "$d/raw.csv" ||
		bad "$name: no $2 for variant $1"
}

. "$BENCH/lib/scenario.sh"
echo "bench-check: every scenario file parses"
for f in "$BENCH"/scenarios/*.scn; do
	(scn_load "$f" quick) || bad "$(basename "$f" .scn): scenario does not parse"
done
echo "bench-check: quick run of ${names[*]}"
"$BENCH/run.sh" -q -o "$scratch/ok" "${names[@]}" 2>&1 | tee "$scratch/ok.log" || bad "quick run failed"
for name in "${names[@]}"; do
	f=$BENCH/scenarios/$name.scn
	[ -f "$f" ] || { bad "$name: no bench/scenarios/$name.scn"; continue; }
	# the date then the exact name: "web" must not find "smt-web"
	d=$(ls -d "$scratch/ok/"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]-"$name" 2>/dev/null | head -1)
	[ -n "$d" ] || { bad "$name: no results folder"; continue; }
	for x in raw.csv runs.csv meta.txt qemu-cmdline summary.md scenario.scn \
		host-samples.csv host-speed.csv progress-host.csv dmesg.txt; do
		[ -s "$d/$x" ] || bad "$name: $x missing or empty"
	done
	grep -q '^## Comparisons' "$d/summary.md" || bad "$name: summary has no comparisons"
	grep -q '^## Saturation and host interference' "$d/summary.md" || bad "$name: summary has no saturation section"
	# a one-variant scenario compares kernels across folders, not rounds
	[ "$(grep -c '^[[:space:]]*variant[[:space:]]' "$f")" -lt 2 ] ||
		ls "$d"/rounds-*.png >/dev/null 2>&1 || bad "$name: no per-round ratio plot"
	grep -q '^guest_order=' "$d/meta.txt" || bad "$name: variant order not recorded"
	ls "$d"/*.png >/dev/null 2>&1 || bad "$name: no PNG plot"
	for p in "$d"/*.png; do
		[ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || bad "$name: $p is not a PNG"
	done
	# its variables for the checks below (a parse error is reported above)
	scn_load "$f" quick 2>/dev/null || :
	for v in $SCN_VARIANTS; do
		awk -F, -v v="$v" '$3 == v && $8 == "ok" { f = 1 } END { exit !f }' "$d/raw.csv" ||
			bad "$name: no ok rows for variant $v"
	done
	grep -q '^kernel_config_sha1=[0-9a-f]\{40\}$' "$d/meta.txt" || bad "$name: no kernel config hash in meta.txt"
	# the host's speed in every run (bench/hostspeed, run.sh)
	awk -F, 'NR > 1 { run[$2] = 1; if ($6 == "host_chase_us" && $7 > 0) hs[$2] = 1 }
		END { for (r in run) if (!(r in hs)) exit 1 }' "$d/raw.csv" || bad "$name: a run without host_chase_us"
	# a variant's sched_args reached its loader's command line
	for v in $SCN_VARIANTS; do
		a=$(scn_var "$v" sched_args | tr ',' ' ')
		[ -z "$a" ] || awk -v a=" $a" '/^=== .* start: / && substr($0, length($0) - length(a) + 1) == a { f = 1 }
			END { exit !f }' "$d/scx-loader.log" 2>/dev/null ||
			bad "$name: no loader started with '$a' (variant $v's sched_args)"
	done
	# every BPF scheduler run says how it ended
	awk -F, 'NR > 1 && $4 != "cfs" && $7 == "" { f = 1 } END { exit f }' "$d/runs.csv" ||
		bad "$name: a scheduler run without an exit reason in runs.csv"
	if [ "$SCN_WORKLOAD" = web ]; then
		awk -F, '$6 == "busy_pct" && $7 > 0 { f = 1 } END { exit !f }' "$d/raw.csv" || bad "$name: no busy_pct"
		awk -F, '$6 == "web_cpu_ms_per_req" && $7 > 0 { f = 1 } END { exit !f }' "$d/raw.csv" || bad "$name: no web_cpu_ms_per_req"
		grep -q '^## Guest CPU per request' "$d/summary.md" || bad "$name: summary has no CPU per request"
		# the measured window of every run, for the host-speed samples
		[ "$(awk -F, 'NR > 1' "$d/windows.csv" 2>/dev/null | wc -l)" = "$(awk -F, 'NR > 1 { print $2 }' "$d/raw.csv" | sort -u | wc -l)" ] ||
			bad "$name: windows.csv does not hold one window per run"
		grep -q "^## Adjusted for the host's speed" "$d/summary.md" || bad "$name: summary has no host-speed adjustment"
		# wrk's histogram of every instance that completed requests (in
		# a quick run a low-weight instance may complete none), holding
		# at least that many latencies; pooled in the summary
		for v in $SCN_VARIANTS; do
			for i in $(scn_var "$v" web | tr ',' ' '); do
				n=$(awk -F, -v v="$v" -v m="requests.${i%%:*}" '$3 == v && $6 == m && $8 == "ok" { s += $7 } END { print s + 0 }' "$d/raw.csv")
				[ "$n" -gt 0 ] || continue
				awk -F, -v v="$v" -v m="latency_us.${i%%:*}" -v n="$n" '$3 == v && $5 == m && $8 == "ok" { c += $7 } END { exit !(c >= n) }' \
					"$d/hist.csv" 2>/dev/null || bad "$name: the latency histogram of ${i%%:*} for variant $v holds fewer than its $n requests"
			done
		done
		[ -s "$d/hist.csv" ] || bad "$name: no hist.csv"
		grep -q '^## Latency pooled over runs' "$d/summary.md" || bad "$name: summary has no pooled latency"
	fi
	# the SMT scenarios measure overlap in every run, and boot SMT siblings
	if [ "$SCN_WORKLOAD" = smt ] || [ "$(scn_param overlap no)" = yes ]; then
		for v in $SCN_VARIANTS; do
			awk -F, -v v="$v" '$3 == v && $6 == "overlap_pct" && $8 == "ok" { f = 1 } END { exit !f }' "$d/raw.csv" ||
				bad "$name: no overlap_pct for variant $v"
		done
		grep -q 'threads=2' "$d/qemu-cmdline" || bad "$name: the guest has no SMT siblings"
	fi
	# traced waits: a longest wait for every web instance of every variant
	if [ "$SCN_WORKLOAD" = web ] && [ "$(scn_param waits no)" = yes ]; then
		for v in $SCN_VARIANTS; do
			for i in $(scn_var "$v" web | tr ',' ' '); do
				has_ok "$v" "wait_max_us.${i%%:*}" ">" 0
			done
		done
	fi
	# the spread of CPU time inside every leaf of the weights scenarios
	if [ "$SCN_WORKLOAD" = weights ]; then
		for v in $SCN_VARIANTS; do
			for i in $(scn_var "$v" hogs | tr ',' ' '); do
				# short-lived hogs (fork=) have no spread, only shares
				if [ "$(scn_get "$v" fork 0)" = 0 ]; then
					has_ok "$v" "spread_pct.${i%%:*}" ">=" 0
				else
					has_ok "$v" "share_pct.${i%%:*}" ">" 0
				fi
				# with toggle=NAME, the other leaves' shares while NAME idles
				[ -z "$(scn_param toggle)" ] || [ "${i%%:*}" = "$(scn_param toggle)" ] ||
					has_ok "$v" "share_idle_pct.${i%%:*}" ">" 0
			done
		done
	fi
	# wake-up latency: a p99 from enough wake-ups in every variant
	if [ "$SCN_WORKLOAD" = wakelat ]; then
		for v in $SCN_VARIANTS; do
			awk -F, -v v="$v" '$3 == v && $8 == "ok" && $6 == "lat_p99_us" && $7 > 0 { p = 1 }
				$3 == v && $8 == "ok" && $6 == "wakeups" && $7 >= 1000 { n = 1 } END { exit !(p && n) }' "$d/raw.csv" ||
				bad "$name: no lat_p99_us over >= 1000 wake-ups for variant $v"
		done
	fi
	grep -q 'qemu-system' "$d/qemu-cmdline" || bad "$name: qemu-cmdline has no QEMU command"
done

echo "bench-check: a broken cgroup config must stop the harness"
if "$BENCH/run.sh" -q -o "$scratch/broken" "$ROOT/tests/fixtures/bench-broken.scn" >"$scratch/broken.log" 2>&1; then
	bad "a scenario with a broken cgroup config was accepted"
fi
grep -q 'cgconfigparser -l .*bench-bad-weight.conf failed' "$scratch/broken.log" ||
	bad "cgconfigparser's refusal is not shown"
grep -qi 'out of range' "$scratch/broken.log" || bad "cgconfigparser's own message is not shown"
[ ! -e "$scratch/broken" ] || bad "results were written for a refused scenario"
sed 's/^/  | /' "$scratch/broken.log"

[ $fail = 0 ] && echo "bench-check: ok" || echo "bench-check: FAILED (logs in $scratch)"
exit $fail
