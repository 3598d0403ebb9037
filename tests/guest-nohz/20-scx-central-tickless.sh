#!/bin/bash
# tier: quick - the only boot with nohz_full: scx_central's tickless CPUs
# timeout: 150
# tap: yes
# plan: 6
# For a guest of 4 vCPUs booted with nohz_full=1-3: under scx_central the
# CPUs other than the central one (0) run their tasks with SCX_SLICE_INF
# and must stop their ticks, while its BPF timer still time-slices them.
# - nohz_full must cover CPUs 1-3 (a FAIL, not a skip: this folder's guest
#   is booted for it);
# - control: one pinned busy loop on each of CPUs 1-3 for 5 s under
#   scx_simple (finite slices) must count local timer interrupts (LOC in
#   /proc/interrupts) on those CPUs at tick rate, >= 50/s each, which
#   proves the detector;
# - the same under scx_central must count at most 10% of the control;
# - two busy loops pinned to CPU 1 under scx_central must each get >= 30%
#   of the CPU over 3 s (utime+stime of /proc/PID/stat, as a share of the
#   pair's total), and the BPF timer must have preempted meanwhile
#   (nr_timer_kicks >= 10/s): the timer time-slices infinite slices;
# - both schedulers exit cleanly and the kernel logs no warning meanwhile.
# CENTRAL_ARGS adds scx_central options (e.g. "-s 10000000": a 10 s slice,
# the timer does not preempt within the window and the sharing check must
# fail; much longer slices trip the 30 s stall watchdog).
# Limits: CPU numbers are fixed (central 0, nohz 1-3); timer migration is
# off while it runs so that the BPF timer stays on CPU 0.
. "$(dirname "$0")/../guest/scx-lib.sh"
central=$SCX_BUILD/scx_central
simple=$SCX_BUILD/scx_simple
MEASURE_S=5
FAIR_S=3
tick_hz=$(getconf CLK_TCK)

n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $*"; }
fail() { echo "# FAIL: $*"; }
info() { echo "# $*"; }

tm=/proc/sys/kernel/timer_migration
old_tm=$(cat $tm 2>/dev/null)
[ -n "$old_tm" ] && echo 0 >$tm
pids=
cleanup() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -n "$spid" ] && scx_stop 2>/dev/null
	[ -n "$old_tm" ] && echo "$old_tm" >$tm
}
trap cleanup EXIT

for b in "$central" "$simple"; do
	[ -x "$b" ] || { not_ok "binaries"; fail "$b not built"; exit 1; }
done

# 1. the boot parameter took effect
nf=/sys/devices/system/cpu/nohz_full
if [ ! -e $nf ]; then
	not_ok "nohz_full covers CPUs 1-3"
	fail "no $nf: kernel without CONFIG_NO_HZ_FULL"
else
	v=$(cat $nf)
	case $v in
	1-3) ok "nohz_full covers CPUs 1-3" ;;
	*) not_ok "nohz_full covers CPUs 1-3"
	   fail "$nf reads '$v' (cmdline: $(cat /proc/cmdline))" ;;
	esac
fi
[ "$(nproc)" -ge 4 ] || { not_ok "4 CPUs"; fail "$(nproc) CPUs online"; exit 1; }

warn0=$(dmesg | grep -c 'WARNING:')

loc() {	# LOC counts of CPUs 1-3
	awk '$1 == "LOC:" { print $3, $4, $5 }' /proc/interrupts
}

# measure LOG BIN ARGS...: LOC deltas of CPUs 1-3 with a hog on each
measure() {
	local log=$1 hogs= c l0 l1
	sched_start "$@" || return 1
	for c in 1 2 3; do
		taskset -c $c sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	pids=$hogs
	sleep 1
	l0=$(loc)
	sleep $MEASURE_S
	l1=$(loc)
	kill $hogs
	wait $hogs 2>/dev/null
	pids=
	deltas=$(echo $l0 $l1 | awk '{ print $4 - $1, $5 - $2, $6 - $3 }')
}

sum() { echo $1 | awk '{ print $1 + $2 + $3 }'; }

# 2. control: scx_simple keeps ticking
slog=$TEST_LOG_DIR/tickless-simple.log
deltas=
measure "$slog" "$simple"
sched_stop "$slog"
ctl=$deltas
info "scx_simple: LOC deltas on CPUs 1-3 over ${MEASURE_S}s: ${ctl:-none}"
if [ -n "$ctl" ] && echo $ctl | awk -v min=$((50 * MEASURE_S)) \
	'{ exit !($1 >= min && $2 >= min && $3 >= min) }'; then
	ok "control: ticks counted under scx_simple ($ctl)"
else
	not_ok "control: ticks counted under scx_simple (${ctl:-none})"
	fail "LOC grew by less than 50/s on a busy CPU: the detector is broken"
fi

# 3. scx_central: tickless, and 4. fair on a shared CPU
clog=$TEST_LOG_DIR/tickless-central.log
deltas=
measure "$clog" "$central" ${CENTRAL_ARGS:-}
cen=$deltas
info "scx_central: LOC deltas on CPUs 1-3 over ${MEASURE_S}s: ${cen:-none}"

# nr_timer_kicks as the loader last printed it
kicks() { grep -o 'nr_timer_kicks=[0-9]*' "$clog" | tail -n1 | cut -d= -f2; }

shares= k0= k1=
if [ -n "$spid" ] && [ "$(scx_state)" = enabled ]; then
	taskset -c 1 sh -c 'while :; do :; done' &
	h1=$!
	taskset -c 1 sh -c 'while :; do :; done' &
	h2=$!
	pids="$h1 $h2"
	sleep 1.5
	k0=$(kicks)
	t1=$(awk '{ print $14 + $15 }' /proc/$h1/stat)
	t2=$(awk '{ print $14 + $15 }' /proc/$h2/stat)
	sleep $FAIR_S
	sleep 1.2	# the loader prints once a second
	k1=$(kicks)
	t1=$(( $(awk '{ print $14 + $15 }' /proc/$h1/stat) - t1 ))
	t2=$(( $(awk '{ print $14 + $15 }' /proc/$h2/stat) - t2 ))
	kill $h1 $h2
	wait $h1 $h2 2>/dev/null
	pids=
	# of the pair's total, which is CPU 1's capacity as the CPU time
	# clock counts it (sched_clock runs faster than the wall clock in
	# this TCG guest: one busy loop alone shows >100% of wall time)
	[ $((t1 + t2)) -gt 0 ] && shares=$(awk -v a=$t1 -v b=$t2 \
		'BEGIN { printf "%d %d", a * 100 / (a + b), b * 100 / (a + b) }')
	info "CPU time of the two loops over ${FAIR_S}s: $t1 and $t2 ticks ($tick_hz/s)"
fi
central_ok=0
[ -n "$spid" ] && sched_alive scx_central && central_ok=1
sched_stop "$clog" || central_ok=0
grep -E '^(stats|timer):' "$clog" | tail -n 3 | sed 's/^/# /'

if [ -z "$ctl" ] || [ -z "$cen" ]; then
	not_ok "scx_central: CPUs 1-3 tickless"
	fail "no measurement (control '$ctl', central '$cen')"
elif [ $(( $(sum "$cen") * 10 )) -le $(sum "$ctl") ]; then
	ok "scx_central: CPUs 1-3 tickless ($cen vs $ctl)"
else
	not_ok "scx_central: CPUs 1-3 tickless ($cen vs $ctl)"
	fail "LOC under scx_central ($(sum "$cen")) is more than 10% of scx_simple's ($(sum "$ctl"))"
fi

# Per-CPU kthreads waking on CPU 1 preempt too (SCX_ENQ_PREEMPT) and
# rotate the two loops as well: the timer must have preempted meanwhile.
nkicks=$(( ${k1:-0} - ${k0:-0} ))
info "timer kicks during the window: $nkicks (nr_timer_kicks ${k0:-?} -> ${k1:-?})"
if [ -n "$shares" ] && echo $shares | awk '{ exit !($1 >= 30 && $2 >= 30) }' &&
	[ $nkicks -ge $((10 * FAIR_S)) ]; then
	ok "scx_central: two busy loops on CPU 1 share it (${shares// /% and }%, $nkicks timer kicks)"
else
	not_ok "scx_central: two busy loops on CPU 1 share it (${shares:-not measured}, $nkicks timer kicks)"
	fail "each should get >= 30% of CPU 1 over ${FAIR_S}s, with >= 10 timer kicks a second: the timer does not preempt"
fi

[ $central_ok = 1 ] && ok "scx_central: attached throughout and exited cleanly" ||
	not_ok "scx_central: attached throughout and exited cleanly"

warn1=$(dmesg | grep -c 'WARNING:')
if [ "$warn1" = "$warn0" ]; then
	ok "no kernel warning"
else
	not_ok "no kernel warning"
	fail "$((warn1 - warn0)) new WARNING(s):"
	dmesg | grep -A 12 'WARNING:' | tail -n 30 | sed 's/^/# /'
fi
exit 0
