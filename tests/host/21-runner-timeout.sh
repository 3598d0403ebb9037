#!/bin/bash
# tier: quick - the QEMU runner's hard limit, the last guard against a hung guest (25 s, 90 s with DEBUG=1)
# A guest that hangs is killed at the runner's timeout: exit 124, a TIMEOUT
# message and the console tail on stderr.
# timeout: 180
set -u
. "$(dirname "$0")/../../scripts/common.sh"
o=$BUILD/test/runner-timeout
# long enough for the guest to boot and print before it is killed: the
# lockdep kernel of make test DEBUG=1 boots far slower under TCG
# (20-runner-status, one boot: 10 s on the normal kernel, 47 s on it)
limit=25
case ${KIMAGE:-} in *kbuild-debug*) limit=90 ;; esac
start=$(date +%s)
"$ROOT/vm/run-qemu.sh" -q -T $limit -o "$o" 'echo hanging-now; sleep 1000' 2>"$o.err"
rc=$?
secs=$(( $(date +%s) - start ))
cat "$o.err"
echo "runner exit $rc after ${secs}s"
[ $rc = 124 ] || exit 1
grep -q 'TIMEOUT' "$o.err" && grep -q 'hanging-now' "$o.err"
