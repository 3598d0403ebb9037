#!/bin/bash
# tier: quick - every guest result rests on the QEMU runner's exit status and logs (one short boot)
# vm/run-qemu.sh returns the guest job's exit status, keeps the console log
# and the QEMU command line, and passes -e variables to the job.
# timeout: 120
set -u
. "$(dirname "$0")/../../scripts/common.sh"
o=$BUILD/test/runner-status
"$ROOT/vm/run-qemu.sh" -q -T 100 -o "$o" -e MARK=hello-7 'echo "job says $MARK"; exit 7'
rc=$?
echo "runner exit $rc"
[ $rc = 7 ] || exit 1
grep -q 'job says hello-7' "$o/console.log" || { echo "job output not in console.log"; exit 1; }
grep -q 'qemu-system-x86_64' "$o/qemu-cmdline" || { echo "no qemu-cmdline"; exit 1; }
grep -q 'Linux version' "$o/dmesg" || { echo "no dmesg"; exit 1; }
