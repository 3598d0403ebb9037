#!/bin/bash
# tier: quick - configured shares from cpu.weight files (seconds)
# 63-bench-shares.sh - host test: cg_shares (bench/lib/cgroup.sh) derives
# the configured CPU share of each busy leaf from cpu.weight files, checked
# on fake cgroup trees in a temp folder (CG points there; the real cgroup
# tree is never touched).  Also checks cg_usage_into.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CG=$tmp
. "$ROOT/bench/lib/cgroup.sh"
fail=0
mk() { mkdir -p "$tmp/$1" && echo "$2" >"$tmp/$1/cpu.weight"; }
want() { # want LEAF EXPECTED (from the output of the last cg_shares)
	awk -v l="$1" -v w="$2" '$1 == l { f = 1; d = $2 - w; if (d < 0) d = -d; if (d > 1e-5) { print "FAIL: " l " got " $2 " want " w; exit 1 } }
		END { if (!f) { print "FAIL: no share for " l; exit 1 } }' "$tmp/out" || fail=1
}

# weights-tree.conf: R + A(100){B(100), C(100)}, D(200)
mk R 100; mk R/A 100; mk R/A/B 100; mk R/A/C 100; mk R/D 200
cg_shares R/A/B R/A/C R/D >"$tmp/out" || fail=1
want R/A/B "$(awk 'BEGIN { print 1 / 6 }')"
want R/A/C "$(awk 'BEGIN { print 1 / 6 }')"
want R/D "$(awk 'BEGIN { print 2 / 3 }')"
# only busy leaves count: with C idle, B gets A's whole third
cg_shares R/A/B R/D >"$tmp/out" || fail=1
want R/A/B "$(awk 'BEGIN { print 1 / 3 }')"

# nested-2to1.conf shape: two branches 200:100, four levels deep
mk bench 100; mk bench/hi 200; mk bench/hi/svc 100; mk bench/hi/svc/web 100
mk bench/lo 100; mk bench/lo/svc 100; mk bench/lo/svc/web 100
cg_shares bench/hi/svc/web bench/lo/svc/web >"$tmp/out" || fail=1
want bench/hi/svc/web "$(awk 'BEGIN { print 2 / 3 }')"
want bench/lo/svc/web "$(awk 'BEGIN { print 1 / 3 }')"

# no cpu.weight (cpu controller off) is an error, not a guess
mkdir -p "$tmp/flat/web"
cg_shares flat/web >/dev/null 2>"$tmp/err" && { echo "FAIL: missing cpu.weight accepted"; fail=1; }
grep -q 'no cpu.weight for cgroup flat' "$tmp/err" || { echo "FAIL: message: $(cat "$tmp/err")"; fail=1; }

printf 'usage_usec 12345\nuser_usec 1\n' >"$tmp/R/cpu.stat"
cg_usage_into u R && [ "$u" = 12345 ] || { echo "FAIL: cg_usage_into got '${u-}'"; fail=1; }
[ $fail = 0 ] && echo "bench shares: ok"
exit $fail
