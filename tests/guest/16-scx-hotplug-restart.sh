#!/bin/bash
# tier: quick - the hotplug exit and restart path of schedulers without cpu_online/offline
# timeout: 180
# CPU hotplug under scx_simple and scx_qmap: neither has ops.cpu_online/
# cpu_offline, so taking cpu1 offline (then online) ends the scheduler with
# the hotplug restart exit code. For each event the loader must report the
# kernel's reason ("cpu 1 going offline/online"), say it restarts, attach
# again within 10 s (state enabled, one more "attached" line), and stay
# attached: the new instance passed the current hotplug_seq, which grew, so
# it is not ended again ("expected hotplug seq" never shows). SIGINT then
# ends it cleanly. cpu1 is always put back online. Skips without a
# hot-pluggable cpu1.
. "$(dirname "$0")/scx-lib.sh"
CPU1=/sys/devices/system/cpu/cpu1/online
SEQ=/sys/kernel/sched_ext/hotplug_seq
[ -w $CPU1 ] || { echo "cpu1 cannot be hot-plugged here"; exit 77; }
[ -r $SEQ ] || { echo "no $SEQ"; exit 1; }

cleanup() {
	[ -n "$spid" ] && scx_stop 2>/dev/null
	[ "$(cat $CPU1)" = 1 ] || cpu_set_online 1 1 60 ||
		echo "could not bring cpu1 back online"
}
trap cleanup EXIT

cpu1_set() {	# 0|1, at most 30 s
	cpu_set_online 1 "$1" 30
}

count() {	# PATTERN LOG
	grep -c -- "$1" "$2"
}

# hotplug LOG NAME WORD VALUE: take cpu1 to VALUE and check the restart
hotplug() {
	local log=$1 name=$2 word=$3 val=$4 seq0 seq1 att0 rs0 i
	seq0=$(cat $SEQ) att0=$(count attached "$log")
	rs0=$(count "restarting as asked by the kernel" "$log")
	cpu1_set "$val" || return 1
	for i in $(seq 100); do
		[ "$(count "restarting as asked by the kernel" "$log")" -gt "$rs0" ] &&
		[ "$(count attached "$log")" -gt "$att0" ] &&
		[ "$(scx_state)" = enabled ] && break
		sleep 0.1
	done
	seq1=$(cat $SEQ)
	echo "cpu1 $word: hotplug_seq $seq0 -> $seq1, state $(scx_state) after $((i / 10)).$((i % 10)) s"
	grep -q "EXIT: .*cpu 1 going $word" "$log" ||
		{ echo "$name: no 'cpu 1 going $word' exit"; cat "$log"; return 1; }
	[ "$(count "$name: restarting as asked by the kernel" "$log")" = $((rs0 + 1)) ] ||
		{ echo "$name: not restarted once"; cat "$log"; return 1; }
	[ "$(count attached "$log")" = $((att0 + 1)) ] &&
		[ "$(scx_state)" = enabled ] ||
		{ echo "$name: not attached again within 10 s"; cat "$log"; return 1; }
	[ "$seq1" -gt "$seq0" ] || { echo "hotplug_seq did not grow"; return 1; }
	# the new instance has the current sequence: it stays
	sleep 1
	kill -0 "$spid" 2>/dev/null || { echo "$name died"; cat "$log"; return 1; }
	[ "$(scx_state)" = enabled ] &&
		[ "$(count attached "$log")" = $((att0 + 1)) ] ||
		{ echo "$name did not stay attached"; cat "$log"; return 1; }
	! grep -q "expected hotplug seq" "$log" ||
		{ echo "$name: restarted with a stale hotplug_seq"; cat "$log"; return 1; }
}

for name in scx_simple scx_qmap; do
	bin=$SCX_BUILD/$name
	log=$TEST_LOG_DIR/$name-hotplug.log
	cpu1_set 1 || exit 1
	echo "== $name"
	sched_start "$log" "$bin" || exit 1
	hotplug "$log" $name offline 0 || exit 1
	hotplug "$log" $name online 1 || exit 1

	sched_stop "$log" || exit 1
	grep '^EXIT' "$log" | tail -n 1 | grep -q 'unregistered from user space' ||
		{ echo "$name: no clean exit at the end"; cat "$log"; exit 1; }
	grep -E '^EXIT|restarting|attached' "$log"
done
