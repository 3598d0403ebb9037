#!/bin/bash
# The guest side of `make soak-hotplug` (scripts/soak.sh hotplug): runs
# 22-pair.sh's CPU hotplug and SysRq cases (PAIR_ONLY=$CASES) $N times,
# each bounded to $LIM s.  A run still going at its bound is reported on
# the console (report_hang in soak-lib.sh) and ends the loop with exit 1.
# One line per run: "run I rc=RC" and the case's figures; each run's TAP
# output is in $OUT/rI/out.
# Limits: needs SMT siblings and a hot-pluggable CPU 1 (vm/run-qemu.sh -c 4
# -t 2); runs follow one another in one boot.
N=${N:-40} LIM=${LIM:-120} CASES=${CASES:-pair-hotplug pair-sysrq}
. "$(dirname "$0")/soak-lib.sh"

for i in $(seq "$N"); do
	mkdir -p "$OUT/r$i"
	TEST_LOG_DIR=$OUT/r$i PAIR_ONLY=$CASES setsid bash tests/guest/22-pair.sh \
		>"$OUT/r$i/out" 2>&1 &
	p=$!
	s=$SECONDS
	while kill -0 $p 2>/dev/null && [ $((SECONDS - s)) -lt "$LIM" ]; do
		bsleep 1
	done
	if kill -0 $p 2>/dev/null; then
		report_hang "$i" "still going after $LIM s"
		exit 1
	fi
	wait $p
	echo "run $i rc=$? $(grep -h '^not ok\|pair-hotplug:' "$OUT/r$i/out" | tr '\n' ' ')"
done
