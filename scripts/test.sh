#!/bin/bash
# `make test` after the builds: the host suite (tests/host), then one guest
# boot (4 vCPUs as 2 cores x 2 SMT threads) running tests/guest, then the
# measured figures and the final `N passed, N failed` line.  Exit 1 on any
# failure, including a guest that hangs (timeout) or dies without a status.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=$BUILD/test
rm -rf "$out"; mkdir -p "$out"
GUEST_TIMEOUT=${GUEST_TIMEOUT:-1500}
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
export KIMAGE

echo "== host tests"
tests/run-suite.sh -l "$out/host-logs" tests/host | tee "$out/host.tap"

echo "== guest tests (QEMU, timeout ${GUEST_TIMEOUT}s)"
banner=$(strings "$KOBJ/vmlinux" | grep -m1 -E '^Linux version .* #[0-9]+ ')
vm/run-qemu.sh -c 4 -t 2 -m 2048 -T "$GUEST_TIMEOUT" -o "$out/guest" -q \
	-e "EXPECT_BANNER=$banner" -e SMT_THREADS=2 -e "BPF_BUILD=$BUILD/bpf" \
	-e "SCX_BUILD=$BUILD/scx" \
	'set -o pipefail; tests/run-suite.sh -l "$OUT/logs" tests/guest | tee "$OUT/guest.tap"' &
vmpid=$!
# Stream the guest's TAP lines as they arrive (the console also has the
# kernel's messages, kept in $out/guest/console.log).
while [ ! -f "$out/guest/guest.tap" ] && kill -0 $vmpid 2>/dev/null; do sleep 0.5; done
[ -f "$out/guest/guest.tap" ] && tail -n +1 -f --pid=$vmpid "$out/guest/guest.tap" &
wait $vmpid
vmrc=$?
sleep 0.3
cat "$out/host.tap" "$out/guest/guest.tap" 2>/dev/null >"$out/all.tap"

pass=$(grep -E '^ok ' "$out/all.tap" | grep -vc '# SKIP')
skip=$(grep -E '^ok .*# SKIP' "$out/all.tap" | wc -l)
fail=$(grep -cE '^not ok ' "$out/all.tap")
if [ $vmrc != 0 ] && ! grep -q '^# passed=' "$out/guest/guest.tap" 2>/dev/null; then
	echo "not ok - guest suite did not complete (run-qemu exit $vmrc; see $out/guest/console.log)"
	fail=$((fail + 1))
elif [ $vmrc != 0 ] && [ "$fail" = 0 ]; then
	echo "not ok - guest suite exited $vmrc without a failing test"
	fail=$((fail + 1))
fi

echo "== figures"
awk -v f="${KOBJ#"$ROOT"/}/build-times" '$3 == "cold" { c = $2 } $3 == "rebuild" { r = $2 }
     END { printf "kernel build: last cold %s s, last rebuild %s s (%s)\n",
                  c ? c : "n/a", r ? r : "n/a", f }' "$KOBJ/build-times" 2>/dev/null
[ -f "$out/guest/timing" ] && sed -n 's/^boot_to_first_test_s=\(.*\)/boot to first guest test: \1 s/p;s/^accel=/accelerator: /p' "$out/guest/timing"
[ "$skip" = 0 ] || echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
