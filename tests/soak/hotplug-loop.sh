#!/bin/bash
# The guest side of `make soak-hotplug` (scripts/soak-hotplug.sh): runs
# 22-pair.sh's CPU hotplug and SysRq cases (PAIR_ONLY=$CASES) $N times,
# each bounded to $LIM s.  The watchdog uses shell builtins only (no fork,
# no exec, no 9p), so it still works when the guest's file share or the
# scheduler is stuck; a run still going at its bound is reported on the
# console (sched_ext state, every task not sleeping or idle with its wait
# channel, the kernel stacks of the D and R ones, SysRq-W) and ends the
# loop with exit 1.  One line per run: "run I rc=RC" and the case's
# figures; each run's TAP output is in $OUT/rI/out.
# Limits: needs SMT siblings and a hot-pluggable CPU 1 (vm/run-qemu.sh -c 4
# -t 2); runs follow one another in one boot.
N=${N:-40} LIM=${LIM:-120} CASES=${CASES:-pair-hotplug pair-sysrq}
fifo=/tmp/soak-hotplug.fifo
rm -f $fifo; mkfifo $fifo; exec 9<>$fifo
bsleep() { read -r -t "$1" -u 9; }	# sleep without a fork

report_hang() {	# I
	local d st w l
	echo "run $1 HUNG after $LIM s: sched_ext state $(</sys/kernel/sched_ext/state)"
	for d in /proc/[0-9]*; do
		read -r st <"$d/stat" 2>/dev/null || continue
		read -r w <"$d/wchan" 2>/dev/null
		set -- $st
		case $3 in S | I) continue ;; esac
		echo "task $1 $2 $3 ppid=$4 wchan=$w"
		case $3 in D | R)
			while read -r l; do echo "  $l"; done <"$d/stack" ;;
		esac
	done
	echo w >/proc/sysrq-trigger
	bsleep 3
}

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
		report_hang "$i"
		exit 1
	fi
	wait $p
	echo "run $i rc=$? $(grep -h '^not ok\|pair-hotplug:' "$OUT/r$i/out" | tr '\n' ' ')"
done
