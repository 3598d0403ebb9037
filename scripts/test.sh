#!/bin/bash
# `make test` (TIER=quick) and `make test-full` (TIER=full) after the
# builds: the host suite (tests/host), then one guest boot (4 vCPUs as 2
# cores x 2 SMT threads) running tests/guest and one (4 vCPUs,
# nohz_full=1-3) running tests/guest-nohz, each with the tests of the tier;
# then the measured figures and the final `N passed, N failed` line (with
# `, N skipped` when a test skipped).  Exit 1 on any failure.
# Counted, not assumed: each suite prints its plan (1..N) and a suite that
# reports fewer results fails (a guest cut short, a test that vanished);
# each guest boot's kernel log is checked from the host (vm/run-qemu.sh,
# scripts/kernel-log-check.sh) and counts as one result.  A guest's hard
# limit is the sum of its tests' own limits, so a hung test is killed by
# its own timeout and the suite goes on.
set -uo pipefail
. "$(dirname "$0")/common.sh"
TIER=${TIER:-quick}
case $TIER in quick|full) ;; *) die "TIER must be quick or full, not '$TIER'" ;; esac
out=$BUILD/test
rm -rf "$out"; mkdir -p "$out"
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
export KIMAGE

# plan_check NAME TAP: the suite reported at least the results its plan
# line promised (more only when a test failed as a whole)
plan_check() {
	local plan got
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$2" | head -n 1)
	got=$(grep -cE '^(not )?ok [0-9]+ ' "$2")
	if [ -z "$plan" ]; then
		echo "not ok - $1: no plan line (the suite did not start)" | tee -a "$out/extra.tap"
	elif [ "$got" -lt "$plan" ]; then
		echo "not ok - $1: $got of $plan planned results (the run was cut short)" | tee -a "$out/extra.tap"
	fi
}

echo "== host tests (tier $TIER)"
tests/run-suite.sh -t "$TIER" -l "$out/host-logs" tests/host | tee "$out/host.tap"
plan_check tests/host "$out/host.tap"

# run_guest NAME SUITE-DIR [run-qemu options...]: one guest boot running
# one suite folder; its TAP goes to $out/NAME/guest.tap, streamed as it
# comes.  A guest that hangs or dies without finishing adds a failure.
run_guest() {
	local name=$1 suite=$2 vmpid vmrc limit
	shift 2
	# the guest's limit: every test at its own limit plus the hang
	# report's grace (65 s), the boot and power-off (180 s)
	limit=$(tests/run-suite.sh -n -t "$TIER" "$suite" |
		awk -F'timeout=' '/^# / { t = $2 == "" ? 120 : $2; s += t + 65 } END { print s + 180 }')
	case ${KOBJ##*/} in kbuild-debug) limit=$((limit * 3 / 2)) ;; esac
	limit=${GUEST_TIMEOUT:-$limit}
	echo "== guest tests: $suite, tier $TIER (QEMU $*, limit ${limit}s)"
	vm/run-qemu.sh "$@" -m 2048 -T "$limit" -o "$out/$name" -q -x "$suite" \
		-e "EXPECT_BANNER=$banner" -e "BPF_BUILD=$BUILD/bpf" \
		-e "SCX_BUILD=$BUILD/scx" -e "TOOLS_BUILD=$BUILD/tools" \
		-e RUN_SUITE_KMSG=1 -e "TEST_TIER=$TIER" \
		"set -o pipefail; tests/run-suite.sh -t $TIER -l \"\$OUT/logs\" $suite | tee \"\$OUT/guest.tap\"" &
	vmpid=$!
	# Stream the guest's TAP lines as they arrive (the console also has
	# the kernel's messages, kept in $out/$name/console.log).
	while [ ! -f "$out/$name/guest.tap" ] && kill -0 $vmpid 2>/dev/null; do sleep 0.5; done
	[ -f "$out/$name/guest.tap" ] && tail -n +1 -f --pid=$vmpid "$out/$name/guest.tap" &
	wait $vmpid
	vmrc=$?
	sleep 0.3
	# the kernel log's verdict (one result per boot), then the count
	if [ -s "$out/$name/kernel-log.tap" ]; then
		cat "$out/$name/kernel-log.tap" | tee -a "$out/extra.tap"
	else
		echo "not ok - kernel log of $name: not checked (run-qemu exit $vmrc)" | tee -a "$out/extra.tap"
	fi
	touch "$out/$name/guest.tap"
	plan_check "$suite" "$out/$name/guest.tap"
	if [ $vmrc != 0 ] && ! grep -q '^# passed=' "$out/$name/guest.tap"; then
		echo "not ok - $suite: guest did not complete (run-qemu exit $vmrc; see $out/$name/console.log)" | tee -a "$out/extra.tap"
	elif [ $vmrc != 0 ] && ! grep -q '^not ok ' "$out/$name/guest.tap" "$out/$name/kernel-log.tap"; then
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
# where the time went: the slowest results of the run
grep -hE '^(not )?ok [0-9]+ .*\([0-9]+s\)' "$out/all.tap" |
	sed -E 's/^(not )?ok [0-9]+ ([^ ]+).*\(([0-9]+)s\).*/\3 \2/' | sort -rn | head -n 8 |
	awk 'BEGIN { printf "slowest:" } { printf " %s %ss;", $2, $1 } END { print "" }'
if [ "$skip" = 0 ]; then
	echo "$pass passed, $fail failed"
else
	grep -E '^ok .*# SKIP' "$out/all.tap" | sed 's/^ok [0-9]* /skipped: /'
	echo "$pass passed, $fail failed, $skip skipped"
fi
[ "$fail" = 0 ]
