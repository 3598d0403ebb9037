#!/bin/bash
# tier: quick - proves that a real kernel splat fails a boot of each kind from the host side, whatever the guest's tests say (4 short boots)
# timeout: 400
# 22-splat-inject.sh - a kernel WARNING fails the guest boot it happened
# in, seen from the host (vm/run-qemu.sh runs scripts/kernel-log-check.sh
# after every boot): in boots made like make test's main guest (2 cores x
# 2 threads), its nohz_full guest and a bench guest (2 vCPUs), a job whose
# tests all pass makes LKDTM print a real WARNING; run-qemu must exit 1
# and kernel-log.tap must name the test that ran (02-warn, from the
# run-suite marker; "(boot)" where no runner marks the log, as in bench).
# The control: the same main-guest boot without the WARNING exits 0.
set -u
. "$(dirname "$0")/../../scripts/common.sh"
o=$BUILD/test/splat-inject
fx=tests/fixtures/splat
fail=0
bad() { echo "FAIL: $*"; fail=1; }
suite="tests/run-suite.sh -t quick -l \$OUT/logs $fx"
# boot NAME INJECT WANT-EXIT WANT-TEST [run-qemu options] -- JOB
boot() {
	local name=$1 inject=$2 want=$3 who=$4 rc
	shift 4
	"$ROOT/vm/run-qemu.sh" -q -T 150 -m 1024 -o "$o/$name" -x "$fx" -e RUN_SUITE_KMSG=1 \
		-e "INJECT=$inject" "$@" 2>"$o.$name.err"
	rc=$?
	echo "== $name: run-qemu exit $rc"
	cat "$o/$name/kernel-log.tap" 2>/dev/null
	[ $rc = "$want" ] || bad "$name: run-qemu exit $rc, want $want"
	if [ "$want" = 0 ]; then
		grep -q '^ok - kernel log' "$o/$name/kernel-log.tap" || bad "$name: no clean verdict"
	else
		grep -q '^not ok - kernel log' "$o/$name/kernel-log.tap" || bad "$name: the WARNING was not found"
		grep -qF "during $who: WARNING:" "$o/$name/kernel-log.tap" || bad "$name: the finding does not name $who"
		grep -q 'kernel log' "$o.$name.err" || bad "$name: run-qemu said nothing of it on stderr"
	fi
}
mkdir -p "$o"
cd "$ROOT" || exit 1
boot main-clean "" 0 - -c 4 -t 2 "$suite"
boot main WARNING 1 02-warn -c 4 -t 2 "$suite"
boot nohz WARNING 1 02-warn -c 4 -A "nohz_full=1-3" "$suite"
boot bench WARNING 1 "(boot)" -c 2 "$fx/02-warn.sh"
exit $fail
