#!/bin/bash
# tier: quick - proves that a failing, hanging, missing or skipped guest test shows in `make test` (under a minute)
# timeout: 120
# The test runner reports a failing, a skipped and a hanging test correctly
# and exits non-zero: proves that a failing guest test fails `make test`.
# A test that times out comes with a hang report naming its processes.
# A `# tap: yes` test counts each of its results, fails as a whole if it
# exits non-zero without reporting a failure, and is held to its plan:
# each missing result fails, a whole-test skip skips every slot.  Every
# result line carries its time; the plan line counts the tier's results;
# a full-tier test runs only in the full tier.
set -u
fx=tests/fixtures/runner
out=$(tests/run-suite.sh -t quick -l /tmp/runner-selftest $fx)
rc=$?
echo "$out"
bad() { echo "FAIL: $*"; exit 1; }
has() { echo "$out" | grep -qE "$1" || bad "no line matching: $1"; }
[ $rc -ne 0 ] || bad "runner exited 0 despite failures"
has '^1\.\.13$'
has '^ok 1 01-pass \([0-9]+s\)$'
has '^not ok 2 02-fail \(exit 3, [0-9]+s\)'
has '^ok 3 03-skip \([0-9]+s\) # SKIP not applicable here$'
has '^not ok 4 04-hang'
has '^#   == .* hang report'
has '^# +[0-9]+ .* sleep 1000$'
has '^ok 5 05-tap/first \([0-9]+s\)$'
has '^not ok 6 05-tap/second \([0-9]+s\)$'
has '^ok 7 05-tap/third \([0-9]+s\) # SKIP not here$'
has '^ok 8 06-tap-crash/only'
has '^not ok 9 06-tap-crash \(exit 3'
has '^ok 10 07-tap-short/first'
has '^not ok 11 07-tap-short/planned-2 .*missing: 1 of 3'
has '^not ok 12 07-tap-short/planned-3 '
has '^ok 13 08-tap-skip-all/all \([0-9]+s\) # SKIP no such hardware$'
has '^ok 14 08-tap-skip-all/planned-2 .*# SKIP no such hardware'
echo "$out" | grep -q '09-full-only' && bad "a full-tier test ran in the quick tier"
has '^# passed=4 failed=6 skipped=4$'
# the full tier takes it, and the tap test's plan for full (-n: the plan
# and the tests, nothing run; the loop above is the same for both tiers)
out=$(tests/run-suite.sh -n -t full $fx)
echo "$out"
has '^1\.\.15$'
has '^# 07-tap-short plan=4 timeout=$'
has '^# 09-full-only plan=1 '
# a test without a tier is refused before anything runs
d=$(mktemp -d); printf '#!/bin/sh\nexit 0\n' >"$d/01-untagged.sh"; chmod +x "$d/01-untagged.sh"
out=$(tests/run-suite.sh -l "$d/logs" "$d" 2>&1); rc=$?
rm -rf "$d"
[ $rc = 2 ] && echo "$out" | grep -q "no '# tier" || bad "untagged test: exit $rc, $out"
echo "runner self-test: all checks held"
