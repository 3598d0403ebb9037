#!/bin/bash
# The guest side of `make soak-reload` (scripts/soak.sh reload): BPF
# scheduler loads and unloads racing CPU hotplug, $N runs in one boot.  In
# the background every CPU but 0 goes offline and online in turn, without
# pause.  Each run starts scx_simple (it has no CPU hotplug ops, so a
# hotplug event while it runs asks it to exit, and it loads itself again),
# keeps it 0-500 ms after it attached, and ends it one of three ways in
# turn: SIGINT (the loader deletes its map element), SIGKILL (the map's
# last fd goes with the process), SysRq-S then SIGINT.  The loader must be
# gone within $LIM s, with the exit status its ending gives, and sched_ext
# then reads "disabled"; the hotplug loop must make progress within $LIM s.
# A bound reached is a hang: reported (report_hang in soak-lib.sh) and the
# loop ends with exit 1.  One line per run: "run I rc=0|1 how=HOW ...".
# Limits: needs hot-pluggable CPUs besides CPU 0 and build/scx/scx_simple;
# the hotplug loop ignores writes the kernel refuses (EBUSY).
N=${N:-300} LIM=${LIM:-20}
SCX_BUILD=${SCX_BUILD:-build/scx}
. "$(dirname "$0")/soak-lib.sh"
state() { local s; read -r s </sys/kernel/sched_ext/state; echo "$s"; }

cpus=
for d in /sys/devices/system/cpu/cpu[1-9]*; do
	[ -w "$d/online" ] && cpus="$cpus ${d##*cpu}"
done
[ -n "$cpus" ] || { echo "run 0 rc=1 no hot-pluggable CPU"; exit 1; }

beat=/tmp/soak-reload.beat
echo "$SECONDS 0" >$beat
(
	n=0
	while :; do
		for c in $cpus; do
			echo 0 >/sys/devices/system/cpu/cpu$c/online
			echo 1 >/sys/devices/system/cpu/cpu$c/online
			n=$((n + 1))
			echo "$SECONDS $n" >$beat
		done
	done
) 2>/dev/null &
hp=$!
trap 'kill $hp 2>/dev/null' EXIT

# hotplug_stuck: the hotplug loop has not written its beat for $LIM s.  A
# read that meets the file between its truncation and the write finds no
# time: that is not a stall.
hotplug_stuck() {
	local t c
	read -r t c <$beat
	[ -n "$t" ] && [ $((SECONDS - t)) -ge "$LIM" ]
}

for i in $(seq "$N"); do
	how=$(((i - 1) % 3))
	log=/tmp/soak-reload.log
	"$SCX_BUILD/scx_simple" >$log 2>&1 &
	p=$!
	s=$SECONDS
	# attached (its first line) or gone
	until grep -q attached $log 2>/dev/null || ! kill -0 $p 2>/dev/null ||
		[ $((SECONDS - s)) -ge "$LIM" ]; do
		bsleep 0.05
	done
	bsleep "$(printf 0.%03d $((RANDOM % 500)))"
	case $how in
	0) what=int; want=0; kill -INT $p ;;
	1) what=kill; want=137; kill -KILL $p ;;
	2) what=sysrq; want=0; echo S >/proc/sysrq-trigger; kill -INT $p ;;
	esac
	while kill -0 $p 2>/dev/null && [ $((SECONDS - s)) -lt "$LIM" ] &&
		! hotplug_stuck; do
		bsleep 0.05
	done
	if hotplug_stuck; then
		report_hang "$i" "no CPU hotplug progress for $LIM s"
		exit 1
	fi
	if kill -0 $p 2>/dev/null; then
		report_hang "$i" "scx_simple (how=$what) still running after $((SECONDS - s)) s"
		exit 1
	fi
	wait $p
	rc=$?
	st=$(state)
	read -r t c <$beat
	ok=0
	[ "$rc" = "$want" ] && [ "$st" = disabled ] || ok=1
	echo "run $i rc=$ok how=$what loader=$rc state=$st loads=$(grep -c attached $log) hotplug=$c"
	[ $ok = 0 ] || tail -5 $log
done
