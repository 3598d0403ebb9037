#!/bin/bash
# `make test` after the builds: the host suite (tests/host), then one guest
# boot (4 vCPUs as 2 cores x 2 SMT threads) running tests/guest and one
# (4 vCPUs, nohz_full=1-3) running tests/guest-nohz, then the measured
# figures and the final `N passed, N failed` line.  Exit 1 on any
# failure, including a guest that hangs (timeout) or dies without a status.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=$BUILD/test
rm -rf "$out"; mkdir -p "$out"
# a hang guard per guest boot; the lockdep kernel (DEBUG=1) needs more than
# 40 min under TCG for the main suite since pair's tests joined it
case ${KOBJ##*/} in
kbuild-debug) GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} ;;
*) GUEST_TIMEOUT=${GUEST_TIMEOUT:-2400} ;;
esac
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
export KIMAGE

echo "== host tests"
tests/run-suite.sh -l "$out/host-logs" tests/host | tee "$out/host.tap"

# run_guest NAME SUITE-DIR [run-qemu options...]: one guest boot running
# one suite folder; its TAP goes to $out/NAME/guest.tap, streamed as it
# comes.  A guest that hangs or dies without finishing adds a failure.
guest_fail=0
run_guest() {
	local name=$1 suite=$2 vmpid vmrc
	shift 2
	echo "== guest tests: $suite (QEMU $*, timeout ${GUEST_TIMEOUT}s)"
	vm/run-qemu.sh "$@" -m 2048 -T "$GUEST_TIMEOUT" -o "$out/$name" -q \
		-e "EXPECT_BANNER=$banner" -e "BPF_BUILD=$BUILD/bpf" \
		-e "SCX_BUILD=$BUILD/scx" -e "TOOLS_BUILD=$BUILD/tools" \
		"set -o pipefail; tests/run-suite.sh -l \"\$OUT/logs\" $suite | tee \"\$OUT/guest.tap\"" &
	vmpid=$!
	# Stream the guest's TAP lines as they arrive (the console also has
	# the kernel's messages, kept in $out/$name/console.log).
	while [ ! -f "$out/$name/guest.tap" ] && kill -0 $vmpid 2>/dev/null; do sleep 0.5; done
	[ -f "$out/$name/guest.tap" ] && tail -n +1 -f --pid=$vmpid "$out/$name/guest.tap" &
	wait $vmpid
	vmrc=$?
	sleep 0.3
	if [ $vmrc != 0 ] && ! grep -q '^# passed=' "$out/$name/guest.tap" 2>/dev/null; then
		echo "not ok - $suite: guest did not complete (run-qemu exit $vmrc; see $out/$name/console.log)" | tee -a "$out/extra.tap"
	elif [ $vmrc != 0 ] && ! grep -q '^not ok ' "$out/$name/guest.tap"; then
		echo "not ok - $suite: guest exited $vmrc without a failing test" | tee -a "$out/extra.tap"
	fi
}

banner=$(strings "$KOBJ/vmlinux" | grep -m1 -E '^Linux version .* #[0-9]+ ')
# the main suite: 4 vCPUs as 2 cores x 2 SMT threads
run_guest guest tests/guest -c 4 -t 2 -e SMT_THREADS=2
# tickless tests: CPUs 1-3 run without the periodic tick when they can
run_guest guest-nohz tests/guest-nohz -c 4 -A "nohz_full=1-3"
cat "$out/host.tap" "$out"/guest*/guest.tap "$out/extra.tap" 2>/dev/null >"$out/all.tap"

pass=$(grep -E '^ok ' "$out/all.tap" | grep -vc '# SKIP')
skip=$(grep -E '^ok .*# SKIP' "$out/all.tap" | wc -l)
fail=$(grep -cE '^not ok ' "$out/all.tap")

echo "== figures"
awk -v f="${KOBJ#"$ROOT"/}/build-times" '$3 == "cold" { c = $2 } $3 == "rebuild" { r = $2 }
     END { printf "kernel build: last cold %s s, last rebuild %s s (%s)\n",
                  c ? c : "n/a", r ? r : "n/a", f }' "$KOBJ/build-times" 2>/dev/null
[ -f "$out/guest/timing" ] && sed -n 's/^boot_to_first_test_s=\(.*\)/boot to first guest test: \1 s/p;s/^accel=/accelerator: /p' "$out/guest/timing"
[ "$skip" = 0 ] || echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
