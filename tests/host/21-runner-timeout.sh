#!/bin/bash
# tier: quick - the QEMU runner's hard limit, the last guard against a hung guest (25 s)
# A guest that hangs is killed at the runner's timeout: exit 124, a TIMEOUT
# message and the console tail on stderr.
# timeout: 120
set -u
. "$(dirname "$0")/../../scripts/common.sh"
o=$BUILD/test/runner-timeout
start=$(date +%s)
"$ROOT/vm/run-qemu.sh" -q -T 25 -o "$o" 'echo hanging-now; sleep 1000' 2>"$o.err"
rc=$?
secs=$(( $(date +%s) - start ))
cat "$o.err"
echo "runner exit $rc after ${secs}s"
[ $rc = 124 ] || exit 1
grep -q 'TIMEOUT' "$o.err" && grep -q 'hanging-now' "$o.err"
