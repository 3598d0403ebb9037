#!/bin/bash
# tier: quick - the host-side kernel log check on fixed logs: each kind of finding, its attribution, what a test may declare (seconds)
# 23-kernel-log-check.sh - host test of scripts/kernel-log-check.sh on
# hand-made logs (tests/fixtures/kernel-log): a WARNING seen only in the
# guest's raw log at power-off is found and laid at the case that ran
# (11-quiet/case-one); an undeclared sched_ext error exit is found on the
# console (11-quiet/case-two); the same error declared by the test that
# ran (10-expects' kernel-log-expect) is not, but a warning it did not
# declare is (10-expects); a pr_info exit and a test
# quoting a splat after '#' are not findings; a raw log whose first line
# is not the boot banner (it wrapped) is a finding; a clean log passes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fx=$ROOT/tests/fixtures/kernel-log
chk=$ROOT/scripts/kernel-log-check.sh
fail=0
bad() { echo "FAIL: $*"; fail=1; }
out=$("$chk" -s "$fx/suite" -d "$fx/dmesg" -n fixture "$fx/console.log"); rc=$?
echo "$out"
[ $rc = 1 ] || bad "exit $rc with findings, want 1"
grep -q '^not ok - kernel log of fixture: 3 finding(s)' <<<"$out" || bad "want exactly 3 findings"
grep -q '^#   during 10-expects: sched_ext: d\[1\] has zero slice' <<<"$out" || bad "a sched_ext warning the test did not declare"
grep -q '^#   during 11-quiet/case-one: WARNING: CPU: 1' <<<"$out" || bad "the WARNING of the raw log, during case-one"
grep -q '^#   during 11-quiet/case-two: sched_ext: BPF scheduler "b" disabled' <<<"$out" || bad "the undeclared error exit, during case-two"
grep -q 'scheduler "a"\|scheduler "c"\|quoting' <<<"$out" && bad "a declared, pr_info or quoted line was taken for a finding"
# the wrapped log
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tail -n +2 "$fx/dmesg" >"$tmp/dmesg"
out=$("$chk" -s "$fx/suite" -d "$tmp/dmesg" -n fixture "$fx/console.log")
echo "$out"
grep -q 'kernel log wrapped' <<<"$out" || bad "a raw log without the banner was not called wrapped"
# a clean boot: banner and markers only
grep -v -E 'WARNING|cut here|"b"' "$fx/dmesg" >"$tmp/dmesg"
grep -v -E '"b"|zero slice' "$fx/console.log" >"$tmp/console.log"
out=$("$chk" -s "$fx/suite" -d "$tmp/dmesg" -n clean "$tmp/console.log"); rc=$?
echo "$out"
[ $rc = 0 ] && grep -q '^ok - kernel log of clean: no splat' <<<"$out" || bad "a clean log failed (exit $rc)"
# without the declaration, the first error is a finding too
out=$("$chk" -d "$tmp/dmesg" -n nodecl "$tmp/console.log")
grep -q 'during 10-expects: sched_ext: BPF scheduler "a"' <<<"$out" || bad "an error exit counted though no test declared it"
exit $fail
