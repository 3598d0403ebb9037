#!/bin/bash
# tier: quick - the statistics every benchmark claim rests on, on known inputs (seconds)
# 60-bench-stats.sh - host test: bench/stats.c on known inputs (mean, sd,
# median, t-based 95% CI, geometric-mean ratio with CI, the resolvable
# effect and pairs needed, the ratio adjusted for a covariate, the
# Hodges-Lehmann ratio with its signed-rank interval and the sign test,
# the noise by the distance between a pair's runs,
# per-round ratios, t quantiles, and clear errors on bad input).  Expected values are worked out by hand /
# with awk from the textbook formulas, not taken from the program.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -Werror -std=c11 -o "$tmp/stats" "$ROOT/bench/stats.c" -lm || { echo "FAIL: stats.c does not build"; exit 1; }
S=$tmp/stats fail=0
check() { # check NAME GOT WANT [TOLERANCE]
	if awk -v g="$2" -v w="$3" -v t="${4:-0.0001}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t) }'; then :; else
		echo "FAIL: $1: got '$2', want '$3'"; fail=1
	fi
}
field() { awk -F, -v r="$2" -v c="$3" 'NR > 1 && $1 == r { print $c }' "$1"; }

# 1..5 for variant a; b = 2*a except round 5 which is not ok.
{
	echo "round,run,variant,sched,config,metric,value,status"
	for r in 1 2 3 4 5; do
		echo "$r,$((2 * r - 1)),a,cfs,x,m,$r,ok"
		echo "$r,$((2 * r)),b,cfs,x,m,$((2 * r)),$([ $r = 5 ] && echo ejected || echo ok)"
	done
	echo "1,1,a,cfs,x,one,7,ok"
} >"$tmp/in.csv"
"$S" summary "$tmp/in.csv" >"$tmp/sum.csv" || { echo "FAIL: summary exit"; exit 1; }
row() { awk -F, -v v="$1" -v m="$2" -v c="$3" 'NR > 1 && $1 == v && $2 == m { print $c }' "$tmp/sum.csv"; }
check "a n" "$(row a m 3)" 5
check "a mean" "$(row a m 4)" 3
check "a sd" "$(row a m 5)" "$(awk 'BEGIN { print sqrt(2.5) }')"
check "a median" "$(row a m 6)" 3
check "a ci lo" "$(row a m 9)" "$(awk 'BEGIN { print 3 - 2.7764 * sqrt(2.5) / sqrt(5) }')"
check "a ci hi" "$(row a m 10)" "$(awk 'BEGIN { print 3 + 2.7764 * sqrt(2.5) / sqrt(5) }')"
check "b n (ejected row excluded)" "$(row b m 3)" 4
check "b median (even n)" "$(row b m 6)" 5
[ -z "$(row a one 5)" ] && [ -z "$(row a one 9)" ] || { echo "FAIL: sd/CI must be empty for n=1"; fail=1; }

"$S" ratio "$tmp/in.csv" a b >"$tmp/ratio.csv" || { echo "FAIL: ratio exit"; exit 1; }
check "constant ratio" "$(field "$tmp/ratio.csv" m 3)" 2
check "constant ratio pairs" "$(field "$tmp/ratio.csv" m 2)" 4
check "constant ratio ci lo" "$(field "$tmp/ratio.csv" m 4)" 2
check "constant ratio ci hi" "$(field "$tmp/ratio.csv" m 5)" 2

# per-pair ratios 2, 2, 2.2, 1.8: geometric mean and t-interval on logs
{
	echo "round,variant,metric,value,status"
	echo "1,a,m,1,ok"; echo "1,b,m,2,ok"
	echo "2,a,m,2,ok"; echo "2,b,m,4,ok"
	echo "3,a,m,3,ok"; echo "3,b,m,6.6,ok"
	echo "4,a,m,4,ok"; echo "4,b,m,7.2,ok"
} >"$tmp/r.csv"
"$S" ratio "$tmp/r.csv" a b >"$tmp/r.out"
want=$(awk 'BEGIN { n = split("2 2 2.2 1.8", r, " "); for (i = 1; i <= n; i++) { l[i] = log(r[i]); s += l[i] }
	m = s / n; for (i = 1; i <= n; i++) ss += (l[i] - m)^2; h = 3.1824 * sqrt(ss / (n - 1)) / sqrt(n)
	printf "%.6f %.6f %.6f %.6f", exp(m), exp(m - h), exp(m + h), 19.8 / 10 }')
read -r g lo hi rom <<<"$want"
check "geo ratio" "$(field "$tmp/r.out" m 3)" "$g" 0.00001
check "geo ratio ci lo" "$(field "$tmp/r.out" m 4)" "$lo" 0.00001
check "geo ratio ci hi" "$(field "$tmp/r.out" m 5)" "$hi" 0.00001
check "ratio of means" "$(field "$tmp/r.out" m 6)" "$rom" 0.00001
# sd of the log ratios, the CI half-width in percent, and the smallest n
# whose t(n-1) * sd / sqrt(n) is within ln(1.10) (t from the table)
want=$(awk 'BEGIN { split("12.7062 4.3027 3.1824 2.7764 2.5706 2.4469 2.3646 2.3060", t, " ")
	n = split("2 2 2.2 1.8", r, " "); for (i = 1; i <= n; i++) { l[i] = log(r[i]); s += l[i] }
	m = s / n; for (i = 1; i <= n; i++) ss += (l[i] - m)^2; sd = sqrt(ss / (n - 1))
	for (k = 2; k <= 9; k++) if (t[k - 1] * sd / sqrt(k) <= log(1.10)) break
	printf "%.6f %.6f %d", sd, 100 * (exp(3.1824 * sd / 2) - 1), k }')
read -r sd res p10 <<<"$want"
check "sd of log ratios" "$(field "$tmp/r.out" m 7)" "$sd" 0.00001
check "resolvable effect %" "$(field "$tmp/r.out" m 8)" "$res" 0.0001
check "pairs for +/-10%" "$(field "$tmp/r.out" m 10)" "$p10"
awk -F, 'NR > 1 { exit !($9 > $10 && $9 > 20) }' "$tmp/r.out" || { echo "FAIL: pairs for 3% not above pairs for 10%"; fail=1; }
# the per-round ratios behind the plot
"$S" rounds "$tmp/r.csv" a b m >"$tmp/rounds.out" || { echo "FAIL: rounds exit"; fail=1; }
[ "$(tr '\n' ' ' <"$tmp/rounds.out")" = "round,ratio 1,2 2,2 3,2.2 4,1.8 " ] || { echo "FAIL: rounds output: $(cat "$tmp/rounds.out")"; fail=1; }

# Student t 0.975 quantiles (tables): df 1, 10, 30, 40, 120
check "t(1)" "$("$S" tq 1)" 12.7062
check "t(10)" "$("$S" tq 10)" 2.2281
check "t(30)" "$("$S" tq 30)" 2.0423
check "t(40)" "$("$S" tq 40)" 2.0211 0.0002
check "t(120)" "$("$S" tq 120)" 1.9799 0.0002

# adjust: the log ratio d of m is ln(1.1) - 2 x plus a small residual e,
# x the log ratio of the covariate c, e orthogonal to 1 and to x.  Mean x
# is 0.12, so the plain ratio is about 1.1 * exp(-0.24) = 0.865; the
# intercept must find 1.1 and the slope -2.  The expected figures are the
# textbook least-squares ones, worked out in awk.
xs="0.1 0.2 0.05 0.15 0.1" es="0.01 -0.01 -0.01 0.01 0"
awk -v xs="$xs" -v es="$es" 'BEGIN { print "round,variant,metric,value,status"; n = split(xs, x, " "); split(es, e, " ")
	for (r = 1; r <= n; r++) {
		printf "%d,a,m,100,ok\n%d,a,c,1000,ok\n", r, r
		printf "%d,b,m,%.9f,ok\n%d,b,c,%.9f,ok\n", r, 100 * exp(log(1.1) - 2 * x[r] + e[r]), r, 1000 * exp(x[r]) } }' >"$tmp/adj.csv"
"$S" adjust "$tmp/adj.csv" a b m c >"$tmp/adj.out" || { echo "FAIL: adjust exit"; fail=1; }
want=$(awk -v xs="$xs" -v es="$es" 'BEGIN { n = split(xs, x, " "); split(es, e, " ")
	for (i = 1; i <= n; i++) { d[i] = log(1.1) - 2 * x[i] + e[i]; mx += x[i] / n; md += d[i] / n }
	for (i = 1; i <= n; i++) { sxx += (x[i] - mx)^2; sxd += (x[i] - mx) * (d[i] - md); sdd += (d[i] - md)^2 }
	b = sxd / sxx; a = md - b * mx; s = sqrt((sdd - b * sxd) / (n - 2)); h = 3.1824 * s * sqrt(1 / n + mx * mx / sxx)
	printf "%.6f %.6f %.6f %.6f %.6f %.6f", exp(a), exp(a - h), exp(a + h), b, sxd / sqrt(sxx * sdd), s }')
read -r g lo hi b r s <<<"$want"
check "adjusted ratio" "$(field "$tmp/adj.out" m 4)" "$g" 0.00001
check "adjusted ratio near 1.1" "$(field "$tmp/adj.out" m 4)" 1.1 0.01
check "adjusted ci lo" "$(field "$tmp/adj.out" m 5)" "$lo" 0.00001
check "adjusted ci hi" "$(field "$tmp/adj.out" m 6)" "$hi" 0.00001
check "adjust slope" "$(field "$tmp/adj.out" m 7)" "$b" 0.0001
check "adjust slope -2" "$(field "$tmp/adj.out" m 7)" -2 0.0001
check "adjust r" "$(field "$tmp/adj.out" m 8)" "$r" 0.0001
check "adjust residual sd" "$(field "$tmp/adj.out" m 9)" "$s" 0.00001
check "adjust pairs" "$(field "$tmp/adj.out" m 3)" 5
"$S" ratio "$tmp/adj.csv" a b >"$tmp/adj-plain.out"
awk -F, 'NR > 1 && $1 == "m" { exit !($3 < 0.9) }' "$tmp/adj-plain.out" || { echo "FAIL: the plain ratio of the adjust data is not below 0.9"; fail=1; }
# a covariate that never differs, or too few pairs: refused with a reason
awk -F, -v OFS=, 'NR > 1 && $3 == "c" { $4 = 1000 } { print }' "$tmp/adj.csv" >"$tmp/adj-flat.csv"
"$S" adjust "$tmp/adj-flat.csv" a b m c 2>"$tmp/e-adj" && { echo "FAIL: adjust on a constant covariate"; fail=1; }
grep -q 'nothing to adjust for' "$tmp/e-adj" || { echo "FAIL: no message for a constant covariate"; fail=1; }
awk -F, 'NR == 1 || $1 <= 2' "$tmp/adj.csv" >"$tmp/adj-2.csv"
"$S" adjust "$tmp/adj-2.csv" a b m c 2>"$tmp/e-adj" && { echo "FAIL: adjust on 2 pairs"; fail=1; }
grep -q 'needs 3 rounds' "$tmp/e-adj" || { echo "FAIL: no message for 2 pairs"; fail=1; }

# robust: Hodges-Lehmann ratio and the Wilcoxon interval.  Published
# two-sided 5% critical values of the signed-rank statistic: n=10 rejects
# at T <= 8, n=20 at T <= 52, n=5 never; so the interval runs from Walsh
# average 9 (53) to M + 1 - 9 (M + 1 - 53), counted in awk from sorted
# Walsh averages.  Ratios exp(d): three of ten lower (the sign test's p is
# 2 * (1 + 10 + 45 + 120) / 1024), one of them far off: it pulls the
# geometric mean below 1 but leaves the Hodges-Lehmann ratio above it.
robust_data() { # robust_data "d1 d2 ..." -> CSV of pairs a=100, b=100*exp(d)
	awk -v ds="$1" 'BEGIN { print "round,variant,metric,value,status"; n = split(ds, d, " ")
		for (r = 1; r <= n; r++) printf "%d,a,m,100,ok\n%d,b,m,%.12f,ok\n", r, r, 100 * exp(d[r]) }'
}
walsh() { # walsh "d1 d2 ..." K -> exp of the K-th smallest and K-th largest Walsh average, and of their median
	awk -v ds="$1" 'BEGIN { n = split(ds, d, " "); for (i = 1; i <= n; i++) for (j = i; j <= n; j++) print (d[i] + d[j]) / 2 }' |
		sort -g | awk -v k="$2" '{ w[NR] = $1 } END { m = NR; md = m % 2 ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
			printf "%.6f %.6f %.6f", exp(w[k]), exp(w[m + 1 - k]), exp(md) }'
}
d10="0.051 0.023 -0.031 0.087 0.042 0.013 0.064 -0.012 0.035 -0.9"
robust_data "$d10" >"$tmp/rob10.csv"
"$S" robust "$tmp/rob10.csv" a b m >"$tmp/rob10.out" || { echo "FAIL: robust exit"; fail=1; }
read -r lo hi hl <<<"$(walsh "$d10" 9)"
check "robust n=10 pairs" "$(field "$tmp/rob10.out" m 2)" 10
check "robust n=10 HL ratio" "$(field "$tmp/rob10.out" m 3)" "$hl" 0.00001
check "robust n=10 ci lo (Walsh 9)" "$(field "$tmp/rob10.out" m 4)" "$lo" 0.00001
check "robust n=10 ci hi (Walsh M-8)" "$(field "$tmp/rob10.out" m 5)" "$hi" 0.00001
check "robust higher" "$(field "$tmp/rob10.out" m 6)" 7
check "robust lower" "$(field "$tmp/rob10.out" m 7)" 3
check "sign test p, 3 of 10" "$(field "$tmp/rob10.out" m 8)" "$(awk 'BEGIN { print 2 * (1 + 10 + 45 + 120) / 1024 }')" 0.000001
# the -0.9 pair drags the geometric mean below 1; HL stays above 1
"$S" ratio "$tmp/rob10.csv" a b >"$tmp/rob10-t.out"
awk -F, 'NR > 1 && $1 == "m" { exit !($3 < 0.97) }' "$tmp/rob10-t.out" || { echo "FAIL: the outlier did not pull the geometric mean down"; fail=1; }
awk -F, 'NR > 1 && $1 == "m" { exit !($3 > 1.02) }' "$tmp/rob10.out" || { echo "FAIL: the outlier moved the Hodges-Lehmann ratio"; fail=1; }
d20=$(awk 'BEGIN { for (i = 1; i <= 20; i++) printf "%.5f ", 0.02 + 0.05 * sin(1.7 * i) }')
robust_data "$d20" >"$tmp/rob20.csv"
"$S" robust "$tmp/rob20.csv" a b m >"$tmp/rob20.out"
read -r lo hi hl <<<"$(walsh "$d20" 53)"
check "robust n=20 ci lo (Walsh 53)" "$(field "$tmp/rob20.out" m 4)" "$lo" 0.00001
check "robust n=20 ci hi (Walsh M-52)" "$(field "$tmp/rob20.out" m 5)" "$hi" 0.00001
robust_data "0.01 0.02 0.03 0.04 0" >"$tmp/rob5.csv"
"$S" robust "$tmp/rob5.csv" a b m >"$tmp/rob5.out"
[ -z "$(field "$tmp/rob5.out" m 4)" ] && [ -z "$(field "$tmp/rob5.out" m 5)" ] ||
	{ echo "FAIL: 5 pairs cannot give a 95% interval: $(cat "$tmp/rob5.out")"; fail=1; }
# the tied pair counts on neither side and not in the sign test: 0 of 4
check "robust higher, a tie left out" "$(field "$tmp/rob5.out" m 6)" 4
check "sign test p, 0 of 4" "$(field "$tmp/rob5.out" m 8)" 0.125 0.000001

# position: ln y = round + variant + position.  Six rounds of three
# variants in the cyclic order abc, bca, cab: each variant once per round
# and twice in each position, so the fitted variant and position terms are
# differences of plain means, the residual is y minus its round, variant
# and position means (plus twice the grand mean), df = 18 - 6 - 2 - 2 = 8
# and a contrast's se is s * sqrt(2/6) (t(8) = 2.3060).
ls_data() { # ls_data NOISE-SCALE EJECT-RUNS -> raw CSV; a=1, b=1.2, c=0.9; positions 1, 1.08, 1.03
	awk -v ns="$1" -v ej=" $2 " 'BEGIN { print "round,run,variant,sched,config,metric,value,status"
		split("a b c", v, " "); f["a"] = 1; f["b"] = 1.2; f["c"] = 0.9; split("1 1.08 1.03", q, " ")
		for (r = 1; r <= 6; r++) for (p = 1; p <= 3; p++) {
			i++; x = v[(r - 1 + p - 1) % 3 + 1]; e = ns * sin(3.7 * i + r)
			st = index(ej, " " i " ") ? "ejected" : "ok"
			printf "%d,%d,%s,cfs,x,m,%.12f,%s\n", r, i, x, (1 + 0.1 * r) * f[x] * q[p] * exp(e), st } }'
}
ls_data 0.05 "" >"$tmp/ls.csv"
"$S" position "$tmp/ls.csv" a b m >"$tmp/ls.out" || { echo "FAIL: position exit"; fail=1; }
want=$(awk -F, 'NR > 1 { i++; r[i] = $1; v[i] = $3; y[i] = log($7); p[i] = ($2 - 1) % 3 + 1
		sr[$1] += y[i]; nr[$1]++; sv[$3] += y[i]; nv[$3]++; sp[p[i]] += y[i]; np[p[i]]++; g += y[i] }
	END { g /= i; for (j = 1; j <= i; j++) { e = y[j] - sr[r[j]] / nr[r[j]] - sv[v[j]] / nv[v[j]] - sp[p[j]] / np[p[j]] + 2 * g; rss += e * e }
		s = sqrt(rss / 8); h = 2.3060 * s * sqrt(2 / 6); bv = sv["b"] / 6 - sv["a"] / 6; q3 = sp[3] / 6 - sp[1] / 6
		printf "%.6f %.6f %.6f %.6f %.6f %.6f", exp(bv), exp(bv - h), exp(bv + h), exp(q3), exp(q3 + h), s }' "$tmp/ls.csv")
read -r r lo hi q3 q3hi s <<<"$want"
check "position: b/a" "$(field "$tmp/ls.out" b/a 2)" "$r" 0.00001
check "position: b/a ci lo" "$(field "$tmp/ls.out" b/a 3)" "$lo" 0.00001
check "position: b/a ci hi" "$(field "$tmp/ls.out" b/a 4)" "$hi" 0.00001
check "position: 3/1" "$(field "$tmp/ls.out" "position 3/1" 2)" "$q3" 0.00001
check "position: 3/1 ci hi" "$(field "$tmp/ls.out" "position 3/1" 4)" "$q3hi" 0.00001
check "position: df" "$(field "$tmp/ls.out" b/a 6)" 8
check "position: residual sd" "$(field "$tmp/ls.out" b/a 7)" "$s" 0.00001
[ "$(grep -c '^c/' "$tmp/ls.out")" = 0 ] || { echo "FAIL: position printed a variant not asked for"; fail=1; }
# no noise, runs 4 (first of round 2) and 11 ejected: the positions still
# count them, so the fit is exact (counted over ok runs, rounds 2 and 4
# would shift, and position effects that are not a straight line in ln
# would not fit)
ls_data 0 "4 11" >"$tmp/ls-ej.csv"
"$S" position "$tmp/ls-ej.csv" a c m >"$tmp/ls-ej.out" || { echo "FAIL: position exit (ejected runs)"; fail=1; }
check "position, ejected runs: c/a" "$(field "$tmp/ls-ej.out" c/a 2)" 0.9 0.000001
check "position, ejected runs: 2/1" "$(field "$tmp/ls-ej.out" "position 2/1" 2)" 1.08 0.000001
check "position, ejected runs: 3/1" "$(field "$tmp/ls-ej.out" "position 3/1" 2)" 1.03 0.000001
check "position, ejected runs: runs" "$(field "$tmp/ls-ej.out" c/a 5)" 16
# a fixed order cannot separate variant from position
awk -F, -v OFS=, 'NR > 1 { $3 = substr("abc", ($2 - 1) % 3 + 1, 1) } { print }' "$tmp/ls.csv" >"$tmp/ls-fixed.csv"
"$S" position "$tmp/ls-fixed.csv" a b m 2>"$tmp/e-pos" && { echo "FAIL: position on a fixed order"; fail=1; }
grep -q 'cannot be told apart' "$tmp/e-pos" || { echo "FAIL: no message for a fixed order: $(cat "$tmp/e-pos")"; fail=1; }

# distance: ln(b/a) = 0.1, -0.1 with the runs one apart (rounds 1, 2) and
# 0.3, -0.3 two apart (rounds 3, 4: an ejected run c between, a after b
# in round 4); mean 0, m = 4: sd one apart sqrt((0.01 + 0.01) * 4/3 / 2),
# two apart sqrt((0.09 + 0.09) * 4/3 / 2).  c's ok row of another metric
# must not count.
{
	echo "round,run,variant,sched,config,metric,value,status"
	awk 'BEGIN { e = exp(1)
		printf "1,1,a,s,x,m,1,ok\n1,2,b,s,x,m,%.9f,ok\n", e ^ 0.1
		printf "2,3,a,s,x,m,1,ok\n2,4,b,s,x,m,%.9f,ok\n", e ^ -0.1
		printf "3,5,a,s,x,m,1,ok\n3,6,c,s,x,m,5,ejected\n3,6,c,s,x,other,5,ok\n3,7,b,s,x,m,%.9f,ok\n", e ^ 0.3
		printf "4,8,b,s,x,m,1,ok\n4,9,c,s,x,m,5,ejected\n4,10,a,s,x,m,%.9f,ok\n", e ^ 0.3 }'
} >"$tmp/dist.csv"
"$S" distance "$tmp/dist.csv" m >"$tmp/dist.out" || { echo "FAIL: distance exit"; fail=1; }
check "distance 1: pairs" "$(field "$tmp/dist.out" 1 2)" 2
check "distance 1: sd" "$(field "$tmp/dist.out" 1 3)" "$(awk 'BEGIN { print sqrt(0.02 * 4 / 3 / 2) }')" 0.000001
check "distance 2: pairs" "$(field "$tmp/dist.out" 2 2)" 2
check "distance 2: sd" "$(field "$tmp/dist.out" 2 3)" "$(awk 'BEGIN { print sqrt(0.18 * 4 / 3 / 2) }')" 0.000001
[ "$(wc -l <"$tmp/dist.out")" = 3 ] || { echo "FAIL: distance rows: $(cat "$tmp/dist.out")"; fail=1; }
cut -d, -f1,3- "$tmp/dist.csv" >"$tmp/dist-norun.csv"
"$S" distance "$tmp/dist-norun.csv" m 2>"$tmp/e-dist" && { echo "FAIL: distance without a run column"; fail=1; }
grep -q 'needs a run column' "$tmp/e-dist" || { echo "FAIL: distance without run: $(cat "$tmp/e-dist")"; fail=1; }
"$S" distance "$tmp/dist.csv" other 2>"$tmp/e-dist" && { echo "FAIL: distance with one variant"; fail=1; }
grep -q 'fewer than two variants' "$tmp/e-dist" || { echo "FAIL: distance, one variant: $(cat "$tmp/e-dist")"; fail=1; }

# bad input is refused with a message naming the problem
printf 'variant,metric,value\na,m,1\n' >"$tmp/bad1.csv"
"$S" summary "$tmp/bad1.csv" 2>"$tmp/e1" && { echo "FAIL: missing columns accepted"; fail=1; }
grep -q 'header must name' "$tmp/e1" || { echo "FAIL: no message for missing columns"; fail=1; }
printf 'round,variant,metric,value,status\n1,a,m,abc,ok\n' >"$tmp/bad2.csv"
"$S" summary "$tmp/bad2.csv" 2>"$tmp/e2" && { echo "FAIL: bad value accepted"; fail=1; }
grep -q "bad2.csv:2: bad value 'abc'" "$tmp/e2" || { echo "FAIL: bad value message: $(cat "$tmp/e2")"; fail=1; }
"$S" -h | grep -q '^usage:' || { echo "FAIL: -h"; fail=1; }
"$S" nonsense 2>/dev/null; [ $? = 2 ] || { echo "FAIL: unknown command must exit 2"; fail=1; }
[ $fail = 0 ] && echo "bench stats: ok"
exit $fail
