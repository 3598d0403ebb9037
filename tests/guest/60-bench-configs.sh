#!/bin/bash
# tier: quick - the shipped cgroup configs apply as meant (seconds)
# 60-bench-configs.sh - guest test: the shipped cgroup configs apply with
# cgconfigparser (cgroup v2) and give the intended trees (cpu.weight values,
# +cpu enabled down to the leaves, flat.conf without the cpu controller);
# teardown removes them; the deliberately broken configs are refused with
# cgconfigparser's message, and the guest driver stops before measuring
# anything when a scenario names a broken config.
# timeout: 90
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export CG_STATE=/tmp/bench-test-cg
. "$ROOT/bench/lib/cgroup.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -f /sys/fs/cgroup/cgroup.controllers ] || { echo "no cgroup2 at /sys/fs/cgroup"; exit 77; }
command -v cgconfigparser >/dev/null || { echo "cgconfigparser missing"; exit 77; }
has() { grep -qw "$2" "/sys/fs/cgroup/$1/cgroup.subtree_control"; }
w() { cat "/sys/fs/cgroup/$1/cpu.weight" 2>/dev/null; }

cg_snapshot
before=$(cat /sys/fs/cgroup/cgroup.subtree_control)

cg_apply "$ROOT/cgroup-configs/nested-2to1.conf" || bad "nested-2to1.conf refused"
[ "$(w bench/hi)" = 200 ] && [ "$(w bench/lo)" = 100 ] || bad "nested: weights hi=$(w bench/hi) lo=$(w bench/lo)"
for p in . bench bench/hi bench/hi/svc bench/lo bench/lo/svc; do
	has "$p" cpu || bad "nested: +cpu not enabled in $p"
done
[ -d /sys/fs/cgroup/bench/hi/svc/web ] && [ -d /sys/fs/cgroup/client ] || bad "nested: leaves missing"
cg_teardown || bad "nested: teardown"
[ ! -e /sys/fs/cgroup/bench ] || bad "nested: bench left behind"
[ "$(cat /sys/fs/cgroup/cgroup.subtree_control)" = "$before" ] || bad "root controllers not restored"

cg_apply "$ROOT/cgroup-configs/weights-tree.conf" || bad "weights-tree.conf refused"
[ "$(w R/A)" = 100 ] && [ "$(w R/A/B)" = 100 ] && [ "$(w R/A/C)" = 100 ] && [ "$(w R/D)" = 200 ] || bad "weights-tree: weights"
has R/A cpu || bad "weights-tree: +cpu not enabled in R/A"
cg_teardown || bad "weights-tree: teardown"

cg_apply "$ROOT/cgroup-configs/flat.conf" || bad "flat.conf refused"
[ -d /sys/fs/cgroup/bench/web ] && [ -d /sys/fs/cgroup/client ] || bad "flat: groups missing"
has . cpu && ! grep -qw cpu <<<"$before" && bad "flat: cpu controller enabled at the root"
has bench cpu && bad "flat: cpu controller enabled in bench"
cg_teardown || bad "flat: teardown"

for f in bench-bad-weight bench-bad-syntax; do
	cg_apply "$ROOT/tests/fixtures/$f.conf" 2>/tmp/bench-test.err && bad "$f.conf accepted"
	grep -q "cgconfigparser -l .*$f.conf failed" /tmp/bench-test.err || bad "$f: no refusal message: $(cat /tmp/bench-test.err)"
	cg_teardown || bad "$f: teardown after refusal"
done

out=$(mktemp -d)
OUT=$out "$ROOT/bench/guest/main.sh" run "$ROOT/tests/fixtures/bench-broken.scn" >/dev/null 2>/tmp/bench-test.err &&
	bad "guest driver ran a scenario with a broken config"
grep -q 'Numerical result out of range' /tmp/bench-test.err || bad "cgconfigparser's own message not shown: $(cat /tmp/bench-test.err)"
grep -q 'nothing was run' /tmp/bench-test.err || bad "driver did not say it stopped"
[ ! -e "$out/raw.csv" ] || bad "raw.csv written although a config was refused"
[ ! -e /sys/fs/cgroup/badweight ] && [ ! -e /sys/fs/cgroup/bench ] || bad "cgroups left behind by the refused run"
rm -rf "$out"
[ $fail = 0 ] && echo "bench configs: ok"
exit $fail
