#!/bin/bash
# tier: quick - the wakelat parser on a fixed histogram (seconds)
# 67-wakelat-parse.sh - host test: the wakelat workload's parser of
# cyclictest's -q -h output (lat_parse in bench/workloads/wakelat.sh) on a
# hand-made histogram (tests/fixtures/cyclictest-hist.out: two threads,
# buckets 0-4 us, 199 wake-ups inside and 1 overflow).  Over all 200: the
# 100th is in bucket 2 (p50), the 198th in bucket 3 (p99); the longest is
# the overflowed 12 us; the mean is the threads' mean.  A p99 that falls
# among the overflows must fail, not be reported as the top bucket.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
F=$ROOT/tests/fixtures/cyclictest-hist.out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$ROOT/bench/workloads/wakelat.sh"
got=$(lat_parse "$F" | tr '\n' ' ')
want="lat_p50_us 2 lat_p99_us 3 lat_max_us 12 lat_avg_us 2.5 wakeups 200 overflows 1 "
[ "$got" = "$want" ] || { echo "FAIL: lat_parse: got '$got', want '$want'"; fail=1; }
sed 's/^# Histogram Overflows: 00000 00001$/# Histogram Overflows: 00000 00005/' "$F" >"$tmp/ov"
if lat_parse "$tmp/ov" >"$tmp/out" 2>&1; then
	echo "FAIL: a p99 among the overflows was reported: $(tr '\n' ' ' <"$tmp/out")"; fail=1
fi
grep -q 'raise hist_us' "$tmp/out" || { echo "FAIL: no hint to raise hist_us: $(cat "$tmp/out")"; fail=1; }
: >"$tmp/empty"
lat_parse "$tmp/empty" >/dev/null 2>&1 && { echo "FAIL: output without a histogram was accepted"; fail=1; }
[ $fail = 0 ] && echo "wakelat-parse: ok"
exit $fail
