#!/bin/bash
# report.sh - turn one scenario folder (raw.csv, meta.txt, scenario.scn,
# qemu-cmdline) into stats-*.csv, summary.md and PNG plots.  Every figure
# comes from raw.csv through bench/stats (C) and awk; nothing is typed in.
# Comparisons are the scenario's `compare` lines (default: every variant
# against the first); each gets its ratio with the 95% CI, the effect its
# pair count resolves, a verdict when it names a claim, and a plot of the
# per-round ratios.  Runs below 98% busy (saturation; more than 5 as a
# table per variant) and runs during which the host was busy are listed.
# Limits: the verdict is about the main metric of the comparison only.
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH")
STATS=${STATS:-${BUILD:-$ROOT/build}/bench/stats}
. "$BENCH/lib/scenario.sh"
. "$BENCH/lib/runspans.sh"

usage() {
	cat <<EOF
usage: bench/report.sh DIR
Write DIR/summary.md, DIR/stats-summary.csv, DIR/stats-ratio-*.csv and
DIR/*.png from DIR/raw.csv, DIR/meta.txt and DIR/scenario.scn.
EOF
}
case ${1-} in -h | --help) usage; exit 0 ;; '') usage >&2; exit 2 ;; esac
dir=$1
die() { echo "report: $*" >&2; exit 1; }
for f in raw.csv meta.txt scenario.scn; do [ -f "$dir/$f" ] || die "$dir/$f missing"; done
[ -x "$STATS" ] || die "$STATS missing (make bench builds it)"
scn_load "$dir/scenario.scn" "$(sed -n 's/^mode=quick$/quick/p' "$dir/meta.txt")" || exit 1
meta() { sed -n "s/^$1=//p" "$dir/meta.txt"; }

# hist_pooled HIST_CSV: one table row per variant and histogram metric of
# the ok runs: runs, samples, p50/p90/p99/p99.9 (value / 1000: us -> ms)
hist_pooled() {
	local t
	t=$(mktemp)
	: >"$t.n"
	# "variant metric runs latencies" per key to $t.n; the histogram rows,
	# sorted by value within each key, to $t
	awk -F, -v nf="$t.n" 'NR > 1 && $8 == "ok" { k = $3 " " $5
			if (!((k, $1, $2) in seen)) { seen[k, $1, $2] = 1; runs[k]++ }
			tot[k] += $7; print k, $6, $7 }
		END { for (k in runs) print k, runs[k], tot[k] >nf }' "$1" |
		sort -k1,1 -k2,2 -k3,3n >"$t"
	awk 'FILENAME == ARGV[1] { runs[$1 " " $2] = $3; tot[$1 " " $2] = $4; next }
		{ k = $1 " " $2
		  if (k != cur) { if (cur != "") row(cur); cur = k; c = 0; p50 = p90 = p99 = p999 = "" }
		  c += $4
		  if (p50 == "" && c >= 0.50 * tot[k]) p50 = $3
		  if (p90 == "" && c >= 0.90 * tot[k]) p90 = $3
		  if (p99 == "" && c >= 0.99 * tot[k]) p99 = $3
		  if (p999 == "" && c >= 0.999 * tot[k]) p999 = $3 }
		function row(k,   a) { split(k, a, " ")
			printf "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %.1f |\n", a[1], a[2], runs[k], tot[k], p50 / 1000, p90 / 1000, p99 / 1000, p999 / 1000 }
		END { if (cur != "") row(cur) }' "$t.n" "$t"
	rm -f "$t" "$t.n"
}
SCN_NAME=$(meta scenario); SCN_NAME=${SCN_NAME:-$(basename "$dir")}

"$STATS" summary "$dir/raw.csv" >"$dir/stats-summary.csv" || die "stats summary failed"
# the main metric of a workload: what a comparison is about by default
main_metric() {
	case $SCN_WORKLOAD in
	web) echo req_s ;;
	overhead) echo pipe_usec_op ;;
	smt) echo hog_cpu_pct ;;
	wakelat) echo lat_p99_us ;;
	*) awk -F, 'NR == 2 { print $6 }' "$dir/raw.csv" ;;
	esac
}
COMPARES=$(scn_compares)
# the boots of a folder, one line each: FIRST_ROUND LAST_ROUND FIRST_RUN
# ENDED (run.sh writes meta.txt's date and an append_K= line's date after
# the boot); the first from meta.txt's rounds and date, each one run.sh
# -a or bench/merge.sh added from its append_K= line
BOOTS=$(added=$(sed -n 's/^append_[0-9]*=rounds \([0-9]*\)-\([0-9]*\) (runs \([0-9]*\)-[0-9]*) on \([^,]*\),.*/\1 \2 \3 \4/p' "$dir/meta.txt")
	echo "1 $(awk -v t="$(meta rounds)" 'NF { t = $1 - 1; exit } END { print t }' <<<"$added") 1 $(meta date)"
	[ -z "$added" ] || echo "$added")
# the same lines with their defaults filled in: the main metric, the
# label "OTHER / BASE"
RCOMPARES=$(while read -r b o c m l; do
	[ -n "$b" ] || continue
	[ "$m" != - ] || m=$(main_metric)
	[ "$l" != - ] || l="$o / $b"
	echo "$b $o $c $m $l"
done <<<"$COMPARES")
while read -r b o _; do
	[ -n "$b" ] || continue
	"$STATS" ratio "$dir/raw.csv" "$b" "$o" >"$dir/stats-ratio-$o-vs-$b.csv" || die "stats ratio $o/$b failed"
done <<<"$COMPARES"

# web: guest CPU per request, ms.  Measured (web_cpu_ms_per_req: the web
# cgroups' CPU rate over wrk's request rate) where a run has it; else
# derived from busy_pct, client_cpu_pct and req_s: all guest CPU but wrk's,
# over the requests (so it also holds the kernel's and other tasks' work).
# Written as raw-format rows to stats-derived-rows.csv, summarised by
# bench/stats (stats-derived.csv; ratios per declared comparison).
if [ "$SCN_WORKLOAD" = web ]; then
	awk -F, -v ncpu="$(meta guest_vcpus)" 'NR == 1 { print; next } $8 != "ok" { next }
		{ k = $1 FS $2 FS $3 FS $4 FS $5; key[k] = 1; v[k, $6] = $7 }
		END {
			for (k in key) {
				if ((k, "web_cpu_ms_per_req") in v)
					printf "%s,cpu_ms_per_req,%s,ok\n", k, v[k, "web_cpu_ms_per_req"]
				else if ((k, "busy_pct") in v && (k, "client_cpu_pct") in v && v[k, "req_s"] > 0)
					printf "%s,cpu_ms_per_req,%.2f,ok\n", k, (v[k, "busy_pct"] * ncpu - v[k, "client_cpu_pct"]) * 10 / v[k, "req_s"]
			}
		}' "$dir/raw.csv" | { read -r h; echo "$h"; sort -t, -k2,2n; } >"$dir/stats-derived-rows.csv"
	rm -f "$dir/stats-derived.csv"
	if [ "$(wc -l <"$dir/stats-derived-rows.csv")" -gt 1 ]; then
		"$STATS" summary "$dir/stats-derived-rows.csv" >"$dir/stats-derived.csv" || die "stats summary of stats-derived-rows.csv failed"
	else
		rm -f "$dir/stats-derived-rows.csv"	# no run has the inputs
	fi
fi

# verdict CLAIM LO HI PAIRS RESOLVES P3: one line on a claimed ratio
verdict() {
	awk -v c="$1" -v lo="$2" -v hi="$3" -v n="$4" -v r="$5" -v p3="$6" 'BEGIN {
		if (lo == "" || hi == "") { print "not resolvable: fewer than 2 pairs"; exit }
		if (c >= 1) {
			if (hi < 1) printf "not reproduced: slower (CI %.3f..%.3f excludes 1)\n", lo, hi
			else if (lo > c) printf "reproduced, larger than claimed (CI %.3f..%.3f above %.2f)\n", lo, hi, c
			else if (lo > 1 && hi >= c) printf "reproduced (CI %.3f..%.3f holds %.2f and excludes 1)\n", lo, hi, c
			else if (lo > 1) printf "partly: faster, but the CI %.3f..%.3f excludes the claimed %.2f\n", lo, hi, c
			else if (hi < c) printf "not reproduced: the CI %.3f..%.3f excludes the claimed %.2f\n", lo, hi, c
			else printf "not resolvable at %d pairs (they resolve +/-%.1f%%; +/-3%% needs %s)\n", n, r, p3
		} else {
			if (lo > 1) printf "not reproduced: larger (CI %.3f..%.3f excludes 1)\n", lo, hi
			else if (hi < c) printf "reproduced, larger than claimed (CI %.3f..%.3f below %.2f)\n", lo, hi, c
			else if (hi < 1 && lo <= c) printf "reproduced (CI %.3f..%.3f holds %.2f and excludes 1)\n", lo, hi, c
			else if (hi < 1) printf "partly: smaller, but the CI %.3f..%.3f excludes the claimed %.2f\n", lo, hi, c
			else if (lo > c) printf "not reproduced: the CI %.3f..%.3f excludes the claimed %.2f\n", lo, hi, c
			else printf "not resolvable at %d pairs (they resolve +/-%.1f%%; +/-3%% needs %s)\n", n, r, p3
		}
	}'
}

# plot_rounds BASE OTHER METRIC PNG: per-round ratios, 1.0 line, 3%/10% bands
plot_rounds() {
	local data=$dir/.plot-rounds.dat
	"$STATS" rounds "$dir/raw.csv" "$1" "$2" "$3" 2>/dev/null | awk -F, 'NR > 1 && $2 != "" { print $1, $2 }' >"$data"
	[ -s "$data" ] || { rm -f "$data"; return 0; }
	gnuplot <<-EOF || die "gnuplot failed for rounds $2/$1"
		$(png_head "$4" "$SCN_NAME: $3, $2 / $1 per round" "ratio $2 / $1")
		set yrange [*:*]
		set xlabel "round"
		set grid ytics
		set key outside bottom center horizontal
		set xrange [0:$(awk 'END { print $1 + 1 }' "$data")]
		stats "$data" using 2 nooutput
		lo = STATS_min < 0.88 ? STATS_min - 0.02 : 0.88
		hi = STATS_max > 1.12 ? STATS_max + 0.02 : 1.12
		set yrange [lo:hi]
		plot 1.10 with filledcurves y1=0.90 lc rgb "#eeeeee" title "+/-10%", \
		     1.03 with filledcurves y1=0.97 lc rgb "#cccccc" title "+/-3%", \
		     1 with lines lc rgb "black" lw 1.5 title "1.0", \
		     "$data" using 1:2 with points pt 7 ps 1.2 lc rgb "#aa3377" title "round ratio"
	EOF
	rm -f "$data"
	echo "![$2/$1]($4)" >>"$dir/.plots.md"
}


# plot_cdf METRIC PNG: the pooled histogram METRIC of hist.csv (us) as one
# cumulative curve per variant, latency on a log axis
plot_cdf() {
	local data=$dir/.plot-cdf.dat v n=0 cmd=
	: >"$data"
	for v in $SCN_VARIANTS; do
		awk -F, -v v="$v" -v m="$1" 'NR > 1 && $3 == v && $5 == m && $8 == "ok" { print $6, $7 }' "$dir/hist.csv" |
			sort -k1,1n >"$data.one"
		[ -s "$data.one" ] || continue
		awk 'FNR == NR { t += $2; next } { c += $2; print $1 / 1000, 100 * c / t }' "$data.one" "$data.one" >>"$data"
		printf '\n\n' >>"$data"
		cmd="$cmd${cmd:+, }\"$data\" index $n using 1:2 with steps lw 1.5 title \"$v\""
		n=$((n + 1))
	done
	rm -f "$data.one"
	[ $n -gt 0 ] || { rm -f "$data"; return 0; }
	gnuplot <<-EOF || die "gnuplot failed for cdf $1"
		$(png_head "$2" "$SCN_NAME: latency of ${1#latency_us.}, all ok runs pooled" "% of requests at or below")
		set yrange [0:100]
		set logscale x
		set xlabel "latency, ms (log scale)"
		set grid xtics ytics
		set key bottom right
		plot $cmd
	EOF
	rm -f "$data"
	echo "![$1]($2)" >>"$dir/.plots.md"
}

# png_head PNG TITLE YLABEL: the gnuplot lines every plot starts with
png_head() {
	printf '%s\n' 'set terminal pngcairo size 640,420 font "sans,10" noenhanced' \
		"set output \"$dir/$1\"" "set title \"$2\"" "set ylabel \"$3\"" 'set yrange [0:*]'
}

# plot_bars METRIC YLABEL PNG: mean per variant with 95% CI error bars
plot_bars() {
	local data=$dir/.plot-$1.dat
	awk -F, -v m="$1" 'NR > 1 && $2 == m {
		lo = $9 == "" ? $4 : $9; hi = $10 == "" ? $4 : $10
		print $1, $4, lo, hi }' "$dir/stats-summary.csv" >"$data"
	[ -s "$data" ] || { rm -f "$data"; return 0; }
	gnuplot <<-EOF || die "gnuplot failed for $1"
		$(png_head "$3" "$SCN_NAME: $1 (mean, 95% CI; $(meta rounds) rounds, $(meta mode) mode)" "$2")
		set style fill solid 0.5 border -1
		set boxwidth 0.6
		set grid ytics
		unset key
		plot "$data" using 0:2:xtic(1) with boxes lc rgb "#4477aa", \
		     "$data" using 0:2:3:4 with yerrorbars lc rgb "black" pt 7 ps 0 lw 1.5
	EOF
	rm -f "$data"
	echo "![$1]($3)" >>"$dir/.plots.md"
}

# plot_shares PNG: configured vs measured share per leaf, one bar per variant
plot_shares() {
	local data=$dir/.plot-shares.dat nv i=0 v cmd
	nv=$(wc -w <<<"$SCN_VARIANTS")
	awk -F, -v vars="$SCN_VARIANTS" 'NR > 1 {
		split($2, p, "."); leaf = p[2]
		if (p[1] == "share_cfg_pct" && $1 == substr(vars, 1, index(vars " ", " ") - 1)) { cfg[leaf] = $4; if (!(leaf in seen)) { seen[leaf] = 1; order[++n] = leaf } }
		if (p[1] == "share_pct") { m[$1, leaf] = $4; lo[$1, leaf] = $9 == "" ? $4 : $9; hi[$1, leaf] = $10 == "" ? $4 : $10 }
	} END {
		nv = split(vars, v, " ")
		for (i = 1; i <= n; i++) {
			l = order[i]; line = l " " cfg[l]
			for (j = 1; j <= nv; j++) line = line " " m[v[j], l] " " lo[v[j], l] " " hi[v[j], l]
			print line
		}
	}' "$dir/stats-summary.csv" >"$data"
	[ -s "$data" ] || { rm -f "$data"; return 0; }
	w=$(awk -v n="$nv" 'BEGIN { print 0.8 / (n + 1) }')
	xt=$(awk '{ if (NR > 1) printf ", "; printf "\"%s\" %d", $1, NR - 1 }' "$data")
	cmd="\"$data\" using (\$0 - 0.4 + $w / 2):2:($w) with boxes lc rgb \"#999999\" title \"configured\""
	for v in $SCN_VARIANTS; do
		i=$((i + 1))
		cmd="$cmd, \"$data\" using (\$0 - 0.4 + $w * ($i + 0.5)):$((3 * i)):($w) with boxes title \"measured: $v\""
		cmd="$cmd, \"$data\" using (\$0 - 0.4 + $w * ($i + 0.5)):$((3 * i)):$((3 * i + 1)):$((3 * i + 2)) with yerrorbars lc rgb \"black\" pt 7 ps 0 notitle"
	done
	gnuplot <<-EOF || die "gnuplot failed for shares"
		$(png_head "$1" "$SCN_NAME: CPU share per leaf, configured vs measured (95% CI)" "% of the leaves' CPU time")
		set style fill solid 0.6 border -1
		set grid ytics
		set key top left
		set xtics ($xt)
		set xrange [-0.6:$(wc -l <"$data") - 0.4]
		plot $cmd
	EOF
	rm -f "$data"
	echo "![shares]($1)" >>"$dir/.plots.md"
}

: >"$dir/.plots.md"
while read -r b o _ m _; do
	[ -n "$b" ] || continue
	# one file per comparison: a pair compared on several metrics
	# gets one plot per metric
	f=rounds-$o-vs-$b.png
	[ "$m" = - ] || f=rounds-$o-vs-$b-$m.png
	[ "$m" != - ] || m=$(main_metric)
	plot_rounds "$b" "$o" "$m" "$f"
done <<<"$COMPARES"
case $SCN_WORKLOAD in
web)
	plot_bars req_s "requests/s (all instances)" throughput.png
	plot_bars cpu_pct.hi "hi's % of the web cgroups' CPU time (2:1 weights: 66.7)" split.png
	for m in $(awk -F, 'NR > 1 && $2 ~ /^p99_ms\./ { print $2 }' "$dir/stats-summary.csv" | sort -u); do
		plot_bars "$m" "latency p99 of ${m#p99_ms.}, ms (lower is better)" "$m.png"
	done
	plot_bars overlap_pct "siblings running different cgroups, % of time" overlap.png
	if [ -s "$dir/hist.csv" ]; then
		for m in $(awk -F, 'NR > 1 { print $5 }' "$dir/hist.csv" | sort -u); do
			plot_cdf "$m" "cdf.${m#latency_us.}.png"
		done
	fi ;;
weights) plot_shares shares.png ;;
overhead)
	plot_bars pipe_usec_op "usec per pipe round trip (lower is better)" pipe.png
	plot_bars messaging_s "seconds (lower is better)" messaging.png ;;
smt)
	plot_bars hog_cpu_pct "hogs' CPU time, % of all vCPUs (throughput)" throughput.png
	plot_bars idle_pct "idle, % of all vCPUs (forced idle)" idle.png
	plot_bars overlap_pct "siblings running different cgroups, % of time" overlap.png ;;
wakelat)
	plot_bars lat_p99_us "wake-up latency p99, us (lower is better)" p99.png
	plot_bars lat_max_us "longest wake-up latency, us (lower is better)" max.png ;;
*) for m in $(awk -F, 'NR > 1 { print $2 }' "$dir/stats-summary.csv" | sort -u); do plot_bars "$m" "$m" "$m.png"; done ;;
esac

{
	echo "# Bench results: $SCN_NAME ($(meta mode) mode)"
	echo
	echo "Generated by bench/report.sh from [raw.csv](raw.csv); every number below is"
	echo "computed from that file by bench/stats.  Do not edit by hand."
	echo
	case $(meta host_compiler_samples) in
	0\ of* | '') ;;
	*) echo "**Warning: a compiler ran on the host during this run (seen in $(meta host_compiler_samples) host samples):"
	   echo "these numbers are disturbed by host load.**"; echo ;;
	esac
	echo "## Setup"
	echo
	echo "| item | value |"
	echo "|---|---|"
	echo "| runs ended (UTC; the first boot's) | $(meta date) |"
	echo "| host | $(meta host_cpu), $(meta host_cpus) CPUs; load $(meta host_load_before) before, $(meta host_load_after) after; compiler (kernel build) running at start: $(meta host_compiler_running_before), at end: $(meta host_compiler_running_after) |"
	echo "| guest | $(meta guest_vcpus) vCPUs ($(meta guest_threads_per_core | grep . || echo 1) threads per core), $(meta guest_mem_mib) MiB, QEMU accel $(meta accel), kernel $(meta guest_kernel); vCPU threads pinned to host CPUs: $(meta vcpus_pinned | grep . || echo no) |"
	echo "| QEMU | $(meta qemu); command line in [qemu-cmdline](qemu-cmdline) |"
	echo "| kernel config sha1 | $(meta kernel_config_sha1) |"
	echo "| series commit (build/linux HEAD) | $(meta series_commit) |"
	[ -z "$(meta series_tree)" ] || echo "| series tree (its content) | $(meta series_tree) |"
	echo "| harness commit | $(meta harness_commit) |"
	echo "| workload | $SCN_WORKLOAD |"
	nboot=$(wc -l <<<"$BOOTS")
	if [ $nboot = 1 ]; then
		echo "| runs | $(meta rounds) rounds x variants ($(meta variants)) in one boot, order $(meta guest_order) (seed $(meta guest_seed)) |"
	else
		echo "| runs | $(meta rounds) rounds x variants ($(meta variants)) in $nboot boots (every round in one boot), order $(meta guest_order); the first boot's seed $(meta guest_seed), its host and harness above |"
		sed -n 's/^append_\([0-9]*\)=/\1 /p' "$dir/meta.txt" | while read -r k rest; do
			echo "| boot $((k + 1)), added (run.sh -a or merge.sh) | $rest |"
		done
	fi
	echo "| per run | $(meta duration_s) s measured after $(meta warmup_s) s warm-up |"
	echo
	echo "Scenario file ([scenario.scn](scenario.scn)):"
	echo
	echo '```'
	grep -v '^[[:space:]]*$' "$dir/scenario.scn"
	echo '```'
	echo
	echo "## Method"
	echo
	echo "Per variant and metric: n runs, mean, sample standard deviation, median,"
	echo "min, max and the 95% confidence interval of the mean (Student t with n-1"
	echo "degrees of freedom).  Each comparison (the scenario's compare lines, or"
	echo "every variant against the first) pairs the variants round by round: for"
	echo "every round where both have a value, r = other/base; the tables give the"
	echo "geometric mean of r and its 95% CI (t interval on ln r, exponentiated),"
	echo "the number of pairs and the half-width the pairs resolve.  Running every"
	echo "variant in each round of one boot cancels slow drift of the host; the"
	echo "order inside a round is in the setup table.  Runs whose"
	echo "status is not ok (scheduler ejected, failed to start, workload errors)"
	echo "are kept in raw.csv but excluded from every figure."
	echo
	echo "## Comparisons"
	echo
	echo "Ratio OTHER/BASE of the main metric, geometric mean over the rounds"
	echo "with both values, 95% CI; 'resolves' is the CI's half-width: effects"
	echo "smaller than it cannot be told from noise at this pair count."
	echo
	echo "| comparison | metric | pairs | ratio | 95% CI | resolves | pairs for +/-3% | claim | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|"
	while read -r b o c m l; do
		[ -n "$b" ] || continue
		IFS=, read -r _ n r lo hi _ _ res p3 _ < <(awk -F, -v m="$m" 'NR > 1 && $1 == m' "$dir/stats-ratio-$o-vs-$b.csv")
		if [ -z "${n-}" ]; then
			echo "| $l | $m | 0 | - | - | - | - | ${c/#-/none} | no pairs |"
			continue
		fi
		vd=-
		[ "$c" = - ] || vd=$(verdict "$c" "$lo" "$hi" "$n" "$res" "${p3:-?}")
		awk -v l="$l" -v m="$m" -v n="$n" -v r="$r" -v lo="$lo" -v hi="$hi" -v res="$res" -v p3="$p3" -v c="$c" -v vd="$vd" \
			'function f(x, p) { return x == "" ? "-" : sprintf(p, x) }
			BEGIN { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", l, m, n, f(r, "%.4f"),
				(lo == "" ? "-" : sprintf("%.4f .. %.4f", lo, hi)), f(res, "+/-%.1f%%"), (p3 == "" ? "-" : p3),
				(c == "-" ? "none" : c), vd }'
		unset n
	done <<<"$RCOMPARES"
	echo
	echo "## Robust to outliers"
	echo
	echo "The t interval above assumes roughly normal log ratios; a run the host"
	echo "slowed can halve a pair's ratio and pull the mean.  \`stats robust\` gives"
	echo "the Hodges-Lehmann ratio (exp of the median of all pairwise means of the"
	echo "log ratios) with its 95% CI from the signed-rank test, which assumes"
	echo "only a distribution symmetric about its centre, and counts the pairs"
	echo "OTHER won and lost with the exact sign test's p (ties left out).  The"
	echo "verdicts stay on the t interval; where the two intervals disagree about"
	echo "1 or the claim, the result hangs on a few pairs and is not settled."
	echo
	echo "| comparison | metric | pairs | Hodges-Lehmann ratio | 95% CI | OTHER higher | OTHER lower | sign test p |"
	echo "|---|---|---|---|---|---|---|---|"
	while read -r b o _ m l; do
		[ -n "$b" ] || continue
		if "$STATS" robust "$dir/raw.csv" "$b" "$o" "$m" >"$dir/stats-robust-$o-vs-$b.csv" 2>"$dir/.robust.err"; then
			awk -F, -v l="$l" 'function f(x, p) { return x == "" ? "-" : sprintf(p, x) }
				NR == 2 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", l, $1, $2, f($3, "%.4f"),
					($4 == "" ? "-" : sprintf("%.4f .. %.4f", $4, $5)), $6, $7, f($8, "%.3g") }' \
				"$dir/stats-robust-$o-vs-$b.csv"
		else
			rm -f "$dir/stats-robust-$o-vs-$b.csv"
			echo "| $l | $m | - | - | - | - | - | $(sed 's/^stats: //; s/|/:/g' "$dir/.robust.err" | head -n 1) |"
		fi
	done <<<"$RCOMPARES"
	rm -f "$dir/.robust.err"
	echo
	if grep -q ',host_chase_us,' "$dir/raw.csv"; then
		echo "## Adjusted for the host's speed"
		echo
		echo "This host is a virtual machine whose speed drifts without steal time"
		echo "or load to show it.  bench/hostspeed times a fixed 64 MiB walk of"
		echo "dependent loads every 2 s on the host ([host-speed.csv](host-speed.csv));"
		echo "host_chase_us in raw.csv is its mean over a run's measured window"
		echo "(larger: slower host).  \`stats adjust\` fits each pair's ln(ratio) of"
		echo "the main metric against the pair's ln(ratio) of host_chase_us; the"
		echo "intercept is the ratio at an equal host speed, with its 95% CI (n-2"
		echo "df).  r is the correlation within pairs, 'pairs for +/-3%' uses the"
		echo "residual sd.  The verdicts above stay on the plain ratio.  Read the"
		echo "adjusted one only while the covariate's own ratio (last column) holds"
		echo "1: a variant that changed QEMU's memory traffic would move the walk"
		echo "too, and the adjustment would then take part of its effect away."
		echo
		echo "| comparison | metric | pairs | adjusted ratio | 95% CI | resolves | slope | r | pairs for +/-3% | host_chase_us ratio (95% CI) |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
		while read -r b o _ m l; do
			[ -n "$b" ] || continue
			cv=$(awk -F, '$1 == "host_chase_us" { printf "%.4f (%s)", $3, ($4 == "" ? "-" : sprintf("%.4f .. %.4f", $4, $5)) }' "$dir/stats-ratio-$o-vs-$b.csv")
			if "$STATS" adjust "$dir/raw.csv" "$b" "$o" "$m" host_chase_us >"$dir/stats-adjust-$o-vs-$b.csv" 2>"$dir/.adjust.err"; then
				awk -F, -v l="$l" -v cv="${cv:--}" 'function f(x, p) { return x == "" ? "-" : sprintf(p, x) }
					NR == 2 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", l, $1, $3, f($4, "%.4f"),
						($5 == "" ? "-" : sprintf("%.4f .. %.4f", $5, $6)), f($10, "+/-%.1f%%"), f($7, "%.2f"), f($8, "%.2f"), f($11, "%s"), cv }' \
					"$dir/stats-adjust-$o-vs-$b.csv"
			else
				rm -f "$dir/stats-adjust-$o-vs-$b.csv"
				echo "| $l | $m | - | - | - | - | - | - | - | $(sed 's/^stats: //; s/|/:/g' "$dir/.adjust.err" | head -n 1) |"
			fi
		done <<<"$RCOMPARES"
		rm -f "$dir/.adjust.err"
		echo
	fi
	if [ -s "$dir/stats-derived.csv" ]; then
		echo "## Guest CPU per request"
		echo
		if grep -q ',web_cpu_ms_per_req,' "$dir/raw.csv"; then
			echo "The web cgroups' CPU ms per second of the measured window over"
			echo "req/s (\`web_cpu_ms_per_req\`, measured in each run)."
		else
			echo "Derived per run from raw.csv: (busy_pct x vCPUs - client_cpu_pct) x 10"
			echo "/ req_s, i.e. every guest CPU ms except wrk's, per request; it also"
			echo "holds the kernel's and other tasks' work.  Rows in [stats-derived-rows.csv](stats-derived-rows.csv)."
		fi
		echo
		echo "| variant | n | mean ms | 95% CI | min | max |"
		echo "|---|---|---|---|---|---|"
		awk -F, 'NR > 1 { printf "| %s | %s | %.1f | %s | %.1f | %.1f |\n", $1, $3, $4,
			($9 == "" ? "- (needs 2 runs)" : sprintf("%.1f .. %.1f", $9, $10)), $7, $8 }' "$dir/stats-derived.csv"
		echo
		echo "| comparison | pairs | CPU per request, ratio | 95% CI |"
		echo "|---|---|---|---|"
		while read -r b o _ _ l; do
			[ -n "$b" ] || continue
			"$STATS" ratio "$dir/stats-derived-rows.csv" "$b" "$o" 2>/dev/null |
				awk -F, -v l="$l" '$1 == "cpu_ms_per_req" { printf "| %s | %s | %.4f | %s |\n", l, $2, $3, ($4 == "" ? "-" : sprintf("%.4f .. %.4f", $4, $5)) }'
		done <<<"$RCOMPARES"
		echo
	fi
	if [ -s "$dir/hist.csv" ]; then
		echo "## Latency pooled over runs"
		echo
		echo "Every ok run's whole latency histogram (wrk, [hist.csv](hist.csv)) summed per"
		echo "variant and instance; percentiles by nearest rank.  A run weighs by its"
		echo "request count, and a pooled percentile has no interval here: the spread"
		echo "between runs is in the per-run p99 of the tables below."
		echo
		echo "| variant | metric | runs | requests | p50 ms | p90 ms | p99 ms | p99.9 ms |"
		echo "|---|---|---|---|---|---|---|---|"
		hist_pooled "$dir/hist.csv"
		echo
	fi
	echo "## Saturation and host interference"
	echo
	if awk -F, 'NR > 1 && $6 == "busy_pct" { f = 1 } END { exit !f }' "$dir/raw.csv"; then
		# up to 5 such runs one line each; more (a config that leaves the
		# guest a little idle in every run) as a table per variant
		awk -F, 'NR > 1 && $6 == "busy_pct" && $8 == "ok" { n++; v = $3
				if (!(v in runs)) order[++nv] = v
				runs[v]++; sum[v] += $7; if (runs[v] == 1 || $7 + 0 < mn[v]) mn[v] = $7 + 0
				if ($7 + 0 < 98) { below[v]++; line[++low] = sprintf("- run %s (round %s, %s): guest CPUs %.1f%% busy (below 98%%: not saturated)", $2, $1, v, $7) } }
			END { if (!low) printf "Every run kept the guest CPUs at least 98%% busy (%d runs).\n", n
				else if (low <= 5) for (i = 1; i <= low; i++) print line[i]
				else {
					printf "%d of %d runs kept the guest CPUs below 98%% busy (not saturated); per variant:\n\n", low, n
					print "| variant | runs | below 98% | mean busy % | lowest % |"
					print "|---|---|---|---|---|"
					for (i = 1; i <= nv; i++) { v = order[i]; printf "| %s | %d | %d | %.1f | %.1f |\n", v, runs[v], below[v], sum[v] / runs[v], mn[v] }
				} }' "$dir/raw.csv"
	else
		echo "This workload does not report busy_pct."
	fi
	if awk -F, 'NR > 1 && $6 ~ /^requests\./ { f = 1 } END { exit !f }' "$dir/raw.csv"; then
		echo
		# up to 5 such runs one line each; more (short web runs all fall
		# below) in one line
		awk -F, 'NR > 1 && $6 ~ /^requests\./ && $8 == "ok" { n++
				if ($7 + 0 < 1000) { split($6, m, "."); line[++low] = sprintf("- run %s (%s): p99 of %s stands on %d requests (fewer than 1000)", $2, $3, m[2], $7) }
				if (n == 1 || $7 + 0 < mn) mn = $7 + 0; if (n == 1 || $7 + 0 > mx) mx = $7 + 0 }
			END { if (!low) printf "Every latency percentile stands on at least 1000 requests (%d instance runs).\n", n
				else if (low <= 5) for (i = 1; i <= low; i++) print line[i]
				else printf "In %d of %d instance runs the percentiles stand on fewer than 1000 requests (%d to %d per run): read p99 as the slowest few requests of a run, not as a tail.\n", low, n, mn, mx }' "$dir/raw.csv"
	fi
	echo
	if [ -s "$dir/host-samples.csv" ] && [ -s "$dir/progress-host.csv" ]; then
		# f: 1 spans (run_spans: the whole run, no header), 2 samples
		awk -F, 'FILENAME != cur { cur = FILENAME; f = FILENAME == ARGV[1] ? 1 : 2 }
			f == 1 { id[++nr] = $1; st[nr] = $2; en[nr] = $3; next }
			FNR == 1 { next }
			{ t[++ns] = $1; comp[ns] = $3; oq[ns] = $4 }
			END {
				for (i = 1; i <= nr; i++) {
					why = ""
					for (k = 1; k <= ns; k++)
						if (t[k] >= st[i] && t[k] < en[i]) {
							if (comp[k] == 1 && why !~ /compiler/) why = why " a compiler ran;"
							if (oq[k] > 0 && why !~ /QEMU/) why = why " another QEMU ran;"
						}
					if (why != "") { printf "- run %s: host busy:%s\n", id[i], why; bad++ }
				}
				if (!bad) printf "No host sample (every 5 s) saw a compiler or another QEMU during the %d runs.\n", nr
			}' <(run_spans "$dir") "$dir/host-samples.csv"
	else
		echo "No host samples recorded."
	fi
	echo
	# the first run of each boot (run 1, and the first of each boot -a
	# added): where its main metric ranks among its variant's ok runs
	firsts=$(awk '{ print $3 }' <<<"$BOOTS" | tr '\n' ' ')
	echo "The first run of each boot, its $(main_metric) ranked among its variant's ok"
	echo "runs (1 = smallest).  A boot's first run finds the guest cold; full-mode"
	echo "boots since 2026-12-06 make one unrecorded warm-up run before it"
	echo "(\`guest_boot_warmup\` in meta.txt)."
	echo
	awk -F, -v m="$(main_metric)" -v firsts="$firsts" 'BEGIN { n = split(firsts, f, " "); for (i = 1; i <= n; i++) first[f[i]] = 1 }
		NR > 1 && $6 == m && $8 == "ok" { c[$3]++; val[$3, c[$3]] = $7 + 0; if ($2 in first) { fr[$2] = $3; fv[$2] = $7 + 0 } }
		END { for (i = 1; i <= n; i++) { r = f[i]; if (!(r in fr)) { printf "- run %s: not ok or no %s\n", r, m; continue }
			v = fr[r]; k = 1; for (j = 1; j <= c[v]; j++) if (val[v, j] < fv[r]) k++
			printf "- run %s (%s): %s %s, rank %d of %d\n", r, v, m, fv[r], k, c[v] } }' "$dir/raw.csv"
	echo
	# the order: a shuffle that favours some positions for some variants
	# ties any effect of position to those variants' ratios
	echo "Each variant's position in its rounds (from the run numbers in"
	echo "raw.csv, whatever the run's status): a shuffled order runs each in"
	echo "each position about equally often."
	echo
	awk -F, 'NR > 1 && !(($1, $2) in seen) { seen[$1, $2] = 1; n[$1]++; run[$1, n[$1]] = $2 + 0; var[$1, n[$1]] = $3
			if (!($3 in vs)) { vs[$3] = ++nv; vname[nv] = $3 } }
		END {
			for (r in n) {
				if (n[r] > mx) mx = n[r]
				for (i = 1; i <= n[r]; i++) { p = 1; for (j = 1; j <= n[r]; j++) if (run[r, j] < run[r, i]) p++; c[var[r, i], p]++ }
			}
			h = "| variant |"; u = "|---|"
			for (p = 1; p <= mx; p++) { h = h " " p " |"; u = u "---|" }
			print h; print u
			for (k = 1; k <= nv; k++) { l = "| " vname[k] " |"; for (p = 1; p <= mx; p++) l = l " " (c[vname[k], p] + 0) " |"; print l }
		}' "$dir/raw.csv"
	echo
	# does the position matter: ln(metric) = round + variant + position
	if [ -n "$RCOMPARES" ]; then
		echo "Whether the position matters: \`stats position\` fits ln(metric) ="
		echo "round + variant + position by least squares (one residual sd for"
		echo "all runs) and gives each position against the first, then each"
		echo "comparison with the position term in the model.  A position whose"
		echo "interval excludes 1 means the order moves the numbers; the ratios"
		echo "with the position term then read better than the plain ones."
		echo
		echo "| term | metric | ratio | 95% CI | runs | residual df |"
		echo "|---|---|---|---|---|---|"
		pos_shown=
		while read -r b o _ m l; do
			[ -n "$b" ] || continue
			if ! "$STATS" position "$dir/raw.csv" "$b" "$o" "$m" >"$dir/stats-position-$o-vs-$b.csv" 2>"$dir/.position.err"; then
				rm -f "$dir/stats-position-$o-vs-$b.csv"
				echo "| $l | $m | - | $(sed 's/^stats: //; s/|/:/g' "$dir/.position.err" | head -n 1) | - | - |"
				continue
			fi
			# the position terms once per metric (the model is the
			# same), above the comparisons
			awk -F, -v l="$l" -v m="$m" -v shown=" $pos_shown " 'function row(t) {
					printf "| %s | %s | %.4f | %s | %s | %s |\n", t, m, $2, ($3 == "" ? "-" : sprintf("%.4f .. %.4f", $3, $4)), $5, $6 }
				NR == 2 { split($0, keep, ",") }
				NR > 2 && index(shown, " " m " ") == 0 { row($1) }
				END { for (i = 1; i <= 6; i++) $i = keep[i]; row(l " (with position)") }' "$dir/stats-position-$o-vs-$b.csv"
			pos_shown="$pos_shown $m"
		done <<<"$RCOMPARES"
		rm -f "$dir/.position.err"
		echo
	fi
	# does the noise grow with the time between a pair's two runs
	if [ -n "$RCOMPARES" ]; then
		echo "How a pair's noise grows with the time between its two runs: \`stats"
		echo "distance\` takes, for every two variants, each round's ln ratio of"
		echo "$(main_metric) less that variant pair's mean, and gives its sd by how many"
		echo "runs apart the two runs were ([stats-distance.csv](stats-distance.csv);"
		echo "the variant pairs share runs, so the rows are not independent).  An sd"
		echo "that grows with the distance is the host's speed drifting between runs:"
		echo "fewer variants in a round put a comparison's runs closer together."
		echo
		if "$STATS" distance "$dir/raw.csv" "$(main_metric)" >"$dir/stats-distance.csv" 2>"$dir/.distance.err"; then
			echo "| runs apart | pairs | sd of ln ratio |"
			echo "|---|---|---|"
			awk -F, 'NR > 1 { printf "| %s | %s | %.4f |\n", $1, $2, $3 }' "$dir/stats-distance.csv"
		else
			rm -f "$dir/stats-distance.csv"
			echo "Not computed: $(sed 's/^stats: //' "$dir/.distance.err" | head -n 1)."
		fi
		rm -f "$dir/.distance.err"
		echo
	fi
	# a folder of several boots (run.sh -a, bench/merge.sh): each
	# comparison in each boot alone, to show whether they agree
	if [ "$(wc -l <<<"$BOOTS")" -gt 1 ] && [ -n "$RCOMPARES" ]; then
		echo "Each comparison in each boot alone (the rounds it ran; the tables"
		echo "above pool them):"
		echo
		echo "| boot | rounds | ended | comparison | metric | pairs | ratio | 95% CI |"
		echo "|---|---|---|---|---|---|---|---|"
		k=0
		while read -r a z _ ended; do
			k=$((k + 1))
			awk -F, -v a="$a" -v z="$z" 'NR == 1 || ($1 >= a && $1 <= z)' "$dir/raw.csv" >"$dir/.boot.csv"
			while read -r b o _ m l; do
				"$STATS" ratio "$dir/.boot.csv" "$b" "$o" 2>/dev/null |
					awk -F, -v k="$k" -v rr="$a-$z" -v d="$ended" -v l="$l" -v m="$m" '$1 == m {
						printf "| %s | %s | %s | %s | %s | %s | %.4f | %s |\n", k, rr, d, l, m, $2, $3,
							($4 == "" ? "-" : sprintf("%.4f .. %.4f", $4, $5)) }'
			done <<<"$RCOMPARES"
		done <<<"$BOOTS"
		rm -f "$dir/.boot.csv"
		echo
	fi
	if [ -s "$dir/runs.csv" ]; then
		echo "## How each scheduler run ended"
		echo
		echo "| run | round | variant | scheduler | status | loader exit code | reason |"
		echo "|---|---|---|---|---|---|---|"
		awk -F, 'NR > 1 && $4 != "cfs" { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $2, $1, $3, $4, $5, ($6 == "" ? "-" : $6), ($7 == "" ? "-" : $7); n++ }
			END { if (!n) print "| - | - | - | - | - | - | only CFS runs |" }' "$dir/runs.csv"
		echo
		echo "Loader output: [scx-loader.log](scx-loader.log); kernel log: [dmesg.txt](dmesg.txt)."
		echo
	fi
	echo "## Runs not reported"
	echo
	awk -F, 'NR > 1 && $8 != "ok" && !seen[$2]++ { printf "- run %s (round %s, variant %s, scheduler %s): %s\n", $2, $1, $3, $4, $8; n++ } END { if (!n) print "None: every run completed with its scheduler in charge." }' "$dir/raw.csv"
	echo
	echo "## Per variant"
	for v in $SCN_VARIANTS; do
		echo
		echo "### $v ($(scn_var "$v" sched), config $(scn_var "$v" config))"
		echo
		echo "| metric | n | mean | sd | median | 95% CI of mean | min | max |"
		echo "|---|---|---|---|---|---|---|---|"
		awk -F, -v v="$v" 'function f(x) { return x == "" ? "-" : sprintf("%.4g", x) }
			NR > 1 && $1 == v { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, f($4), f($5), f($6), ($9 == "" ? "-" : f($9) " .. " f($10)), f($7), f($8) }' "$dir/stats-summary.csv"
	done
	while read -r b v _; do
		[ -n "$b" ] || continue
		echo
		echo "## Ratio $v / $b, every metric"
		echo
		echo "| metric | pairs | ratio (geometric mean) | 95% CI | ratio of means | resolves |"
		echo "|---|---|---|---|---|---|"
		awk -F, 'function f(x) { return x == "" ? "-" : sprintf("%.4f", x) }
			NR > 1 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, f($3), ($4 == "" ? "- (needs 2 pairs)" : f($4) " .. " f($5)), f($6), ($8 == "" ? "-" : sprintf("+/-%.1f%%", $8)) }' "$dir/stats-ratio-$v-vs-$b.csv"
	done <<<"$COMPARES"
	if [ -s "$dir/.plots.md" ]; then
		echo
		echo "## Plots"
		echo
		cat "$dir/.plots.md"
	fi
} >"$dir/summary.md"
rm -f "$dir/.plots.md"
echo "report: $dir/summary.md"
