#!/bin/bash
# tier: quick - the scenario parser and its FILE:LINE errors (seconds)
# 61-bench-scenario.sh - host test: the shipped bench scenarios parse (full
# and quick) and pass their workload's checks; malformed scenarios are
# refused with FILE:LINE messages (sched_args of other characters than
# words joined by commas, or given to cfs, among them), and bench/run.sh
# refuses an unknown scheduler or workload before booting anything.
# Touches no cgroups.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib/scenario.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

for f in "$ROOT"/bench/scenarios/*.scn; do
	for mode in "" quick; do
		if ! scn_load "$f" $mode; then echo "FAIL: $f ($mode) does not parse"; fail=1; continue; fi
		(. "$ROOT/bench/workloads/$SCN_WORKLOAD.sh" && wl_check) || { echo "FAIL: $f ($mode): wl_check"; fail=1; }
		for s in $(scn_scheds); do [ -f "$ROOT/bench/schedulers/$s.sh" ] || { echo "FAIL: $f: no scheduler $s"; fail=1; }; done
		for c in $(scn_configs); do [ -f "$ROOT/cgroup-configs/$c" ] || { echo "FAIL: $f: no config $c"; fail=1; }; done
		if [ -z "$mode" ]; then
			[ "$SCN_ROUNDS" -ge 5 ] || { echo "FAIL: $f: full run needs >= 5 rounds (pairs)"; fail=1; }
		else
			[ "$SCN_ROUNDS" = 1 ] || { echo "FAIL: $f: quick mode must run once"; fail=1; }
		fi
	done
done

# refuse FILE-CONTENT EXPECTED-MESSAGE
refuse() {
	printf '%s\n' "$1" >"$tmp/t.scn"
	if scn_load "$tmp/t.scn" 2>"$tmp/err"; then echo "FAIL: accepted: $1"; fail=1; return; fi
	grep -q -- "$2" "$tmp/err" || { echo "FAIL: message for '$1': $(cat "$tmp/err")"; fail=1; }
}
ok='workload overhead
rounds 2'
refuse "$ok
frobnicate 3" "t.scn:3: unknown statement 'frobnicate'"
refuse "workload overhead" "missing 'rounds'"
refuse "$ok
rounds two" "t.scn:3: 'rounds' must be a whole number"
refuse "$ok
variant a sched=cfs" "variant 'a' has no config"
refuse "$ok
variant a sched=cfs config=none
variant a sched=cfs config=none" "t.scn:4: variant 'a' defined twice"
refuse "$ok
variant A-1 sched=cfs config=none" "bad variant name"
refuse "$ok
set conns" "expected KEY=VALUE"
refuse "$ok
variant a sched=cfs config=none sched_args=-s,5000" "t.scn:3: variant 'a': cfs takes no sched_args"
refuse "$ok
variant a sched=flatcg config=none sched_args=-s,*" "t.scn:3: variant 'a': sched_args must be words"
refuse "$ok
variant a sched=flatcg config=none sched_args=-s,,5" "sched_args must be words"
printf '%s\nvariant a sched=flatcg config=none sched_args=-s,5000,-f\n' "$ok" >"$tmp/args.scn"
scn_load "$tmp/args.scn" && [ "$(scn_var a sched_args)" = "-s,5000,-f" ] ||
	{ echo "FAIL: sched_args=-s,5000,-f not kept"; fail=1; }
refuse "$ok" "no variant"
two="$ok
variant a sched=cfs config=none
variant b sched=cfs config=none"
refuse "$two
compare a z" "t.scn:5: compare names 'z', which is no variant"
refuse "$two
compare a b claim=fast" "claim must be a positive ratio"
refuse "$two
compare a b size=3" "compare takes claim=, metric= and label="
refuse "$two
compare a a" "compare of 'a' with itself"
refuse "$two
order random" "order must be fixed, abba or shuffle"
refuse "$ok
threads 4" "t.scn:3: 'threads' takes 1 or 2"
printf '%s\nthreads 2\n' "$two" >"$tmp/th.scn"
scn_load "$tmp/th.scn" && [ "$SCN_THREADS" = 2 ] || { echo "FAIL: threads 2 not read"; fail=1; }
printf '%s\n' "$two" >"$tmp/nt.scn"
scn_load "$tmp/nt.scn" && [ "$SCN_THREADS" = 1 ] || { echo "FAIL: threads does not default to 1 after a scenario with 2"; fail=1; }

# scn_get: a variant's key, else the scenario's, else the default
printf 'workload web\nrounds 1\nset conns=12\nvariant a sched=cfs config=none conns=4\nvariant b sched=cfs config=none\n' >"$tmp/get.scn"
scn_load "$tmp/get.scn" || { echo "FAIL: scn_get scenario"; fail=1; }
[ "$(scn_get a conns 8)" = 4 ] && [ "$(scn_get b conns 8)" = 12 ] && [ "$(scn_get b fork 0)" = 0 ] ||
	{ echo "FAIL: scn_get: a $(scn_get a conns 8) b $(scn_get b conns 8) default $(scn_get b fork 0)"; fail=1; }

# the order inside a round: abba reverses every other round; shuffle is a
# permutation that depends on the seed and the round only, unbiased
# within one seed
printf '%s\nvariant c sched=cfs config=none\nvariant d sched=cfs config=none\norder shuffle\nseed 7\ncompare a b claim=1.10 metric=req_s label=x:y/z\n' "$two" >"$tmp/o.scn"
scn_load "$tmp/o.scn" || { echo "FAIL: order/compare scenario"; fail=1; }
[ "$(scn_compares)" = "a b 1.10 req_s x:y/z" ] || { echo "FAIL: scn_compares: $(scn_compares)"; fail=1; }
o1=$(scn_round_order 1) o2=$(scn_round_order 2) o1b=$(scn_round_order 1)
[ "$o1" = "$o1b" ] || { echo "FAIL: shuffle not repeatable"; fail=1; }
[ "$(tr ' ' '\n' <<<"$o1" | sort | tr '\n' ' ')" = "a b c d " ] || { echo "FAIL: shuffle is no permutation: $o1"; fail=1; }
diff=0; for r in 2 3 4 5 6; do [ "$(scn_round_order $r)" != "$o1" ] && diff=1; done
[ $diff = 1 ] || { echo "FAIL: shuffle gives every round the same order"; fail=1; }
# within one seed (one boot) every variant runs in every position about
# equally often: 5 variants, the first 30 rounds of 3 seeds, 6 expected per
# cell; the chi-square of each seed's 5x5 table (16 df), summed (48 df),
# stays below 85, its 99.9th percentile.  The LCG this replaced, started
# at seed + r * step, gave 101 (seed 635768 left cells empty); this one
# gives 42.  The orders depend only on the seeds: the same result always.
chi=$(SCN_VARIANTS="a b c d e" SCN_ORDER=shuffle
	for SCN_SEED in 1 635768 999999; do
		for r in $(seq 30); do echo "$SCN_SEED $(scn_round_order "$r")"; done
	done | awk '{ s[$1] = 1; for (i = 2; i <= NF; i++) c[$1, $i, i - 1]++ }
		END { for (sd in s) for (v = 1; v <= 5; v++) for (p = 1; p <= 5; p++) {
				x = c[sd, substr("abcde", v, 1), p] - 6; t += x * x / 6 }
			printf "%.1f", t }')
awk -v t="$chi" 'BEGIN { exit !(t < 85) }' || { echo "FAIL: shuffle biased within a seed: chi-square $chi (48 df)"; fail=1; }
SCN_ORDER=abba
[ "$(scn_round_order 1)" = "a b c d" ] && [ "$(scn_round_order 2)" = "d c b a" ] || { echo "FAIL: abba order"; fail=1; }
SCN_COMPARES=()
[ "$(scn_compares)" = "a b - - -
a c - - -
a d - - -" ] || { echo "FAIL: default comparisons: $(scn_compares)"; fail=1; }

# run.sh refuses an unknown scheduler / workload without booting
printf 'workload overhead\nrounds 1\nvariant a sched=nosuch config=none cgroup=/\n' >"$tmp/sched.scn"
out=$(STATS=/nonexistent timeout 20 "$ROOT/bench/run.sh" -q -o "$tmp/o" "$tmp/sched.scn" 2>&1)
[ $? = 1 ] && grep -q "unknown scheduler 'nosuch'" <<<"$out" || { echo "FAIL: run.sh unknown scheduler: $out"; fail=1; }
printf 'workload nosuch\nrounds 1\nvariant a sched=cfs config=none\n' >"$tmp/wl.scn"
out=$(STATS=/nonexistent timeout 20 "$ROOT/bench/run.sh" -q -o "$tmp/o" "$tmp/wl.scn" 2>&1)
[ $? = 1 ] && grep -q "unknown workload 'nosuch'" <<<"$out" || { echo "FAIL: run.sh unknown workload: $out"; fail=1; }
printf 'workload web\nrounds 1\nduration 1\nvariant a sched=cfs config=flat.conf client=client\n' >"$tmp/web.scn"
out=$(STATS=/nonexistent timeout 20 "$ROOT/bench/run.sh" -q -o "$tmp/o" "$tmp/web.scn" 2>&1)
[ $? = 1 ] && grep -q "web: variant a needs 1..9" <<<"$out" || { echo "FAIL: run.sh web without instances: $out"; fail=1; }
[ ! -e "$tmp/o" ] || { echo "FAIL: run.sh wrote results for a refused scenario"; fail=1; }
"$ROOT/bench/run.sh" -h | grep -q '^usage:' || { echo "FAIL: run.sh -h"; fail=1; }
[ $fail = 0 ] && echo "bench scenarios: ok"
exit $fail
