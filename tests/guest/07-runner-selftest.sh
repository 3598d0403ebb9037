#!/bin/sh
# The test runner reports a failing, a skipped and a hanging test correctly
# and exits non-zero: proves that a failing guest test fails `make test`.
# A test that times out comes with a hang report naming its processes.
# A `# tap: yes` test counts each of its results, and fails as a whole if it
# exits non-zero without reporting a failure.
# timeout: 30
out=$(tests/run-suite.sh -l /tmp/runner-selftest tests/fixtures/runner)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "runner exited 0 despite failures"; exit 1; }
echo "$out" | grep -q '^ok 1 01-pass' &&
echo "$out" | grep -q '^not ok 2 02-fail' &&
echo "$out" | grep -q '^ok 3 03-skip # SKIP' &&
echo "$out" | grep -q '^not ok 4 04-hang' &&
echo "$out" | grep -q '^#   == .* hang report' &&
echo "$out" | grep -qE '^# +[0-9]+ .* sleep 1000$' &&
echo "$out" | grep -q '^ok 5 05-tap/first' &&
echo "$out" | grep -q '^not ok 6 05-tap/second' &&
echo "$out" | grep -q '^ok 7 05-tap/third # SKIP' &&
echo "$out" | grep -q '^ok 8 06-tap-crash/only' &&
echo "$out" | grep -q '^not ok 9 06-tap-crash (exit 3' &&
echo "$out" | grep -q '^# passed=3 failed=4 skipped=2'
