#!/bin/bash
# tier: quick - pair's decisive isolation and fairness cases (quick); every case (full)
# timeout: 900
# tap: yes
# plan: quick=3 full=9
# 22-pair.sh - the pair scheduler keeps the SMT threads of each core on
# user tasks of one cgroup at a time, in a guest of 2 cores x 2 threads.
# Group A and B tasks are spinners named hogA*/hogB* (tests/tools/spinner)
# in cgroups A and B; overlap.sh measures, from a sched_switch trace with
# the global clock, how long an A task ran on one thread while a B task
# ran on its sibling. The limit is max(1 ms, 0.1% of the window); pair's
# own sched_switch check (overlap_us of its JSON stats, every user task of
# every cgroup) has the same limit.
#   pair-overlap   2 hogs + 1 sleeper per group, 8 s: under scx_simple
#                  the overlap is >= 20% of the window (the detector
#                  works); under pair within the limit, each group gets
#                  50 +/- 5% of the two groups' time (equal weights) and
#                  together at least half the machine's
#   pair-rt        the same hogs and a SCHED_FIFO task of group A pinned
#                  to CPU 0 running 5 ms every 50 ms: overlap within the
#                  limit (the RT task is an A task from the trace_marker it
#                  writes as its burst starts in user space: it is held in
#                  the kernel until its sibling left, see overlap.sh -m),
#                  ops.cpu_release ran
#   pair-weights   cpu.weight 200 and 100, 4 hogs each: A's share of the
#                  two groups' CPU time is 66.7 +/- 3 points
#   pair-churn     group hogs traced while a task is moved through 
#                  cgroups made and removed all the time (cgchurn): overlap
#                  within the limit, no ejection, and at least CHURN_MIN
#                  cgroups churned (a churn that barely ran proves nothing)
#   pair-many      200 cgroups with a hog each: once all run, over 10 s
#                  every hog runs, the least at least half the mean, and
#                  pair is not ejected (no starvation: the root cgroup,
#                  where the loader runs, waited 44 s before the charge
#                  fix). Domains are flat, so the test's own shell would
#                  get 1/201 of the CPU (too little to even start the
#                  hogs on the lockdep kernel): it runs in a cgroup of
#                  weight 10000, the loader and the hogs' parent in the
#                  root cgroup
#   pair-cookies   pair-overlap's load with core-scheduling cookies on one
#                  hog of each group: no hang, overlap within the limit
#   pair-delay     pair-overlap's load while tests/bpf/swdelay busy-waits
#                  3 ms in each sched_switch away from a hog, after pair's
#                  hook (a thread delayed mid-switch, after pair told its
#                  sibling it left): overlap within the limit in the trace
#                  (its event attached before pair's hook, trace_arm) and
#                  in pair's own check
#   pair-hotplug   CPU 1 offline and back while hogs run: pair restarts
#                  twice as asked by the kernel, prints the new core table
#                  ([0] alone), and is enabled again within 20 s after
#                  each change; the hogs ran
#   pair-sysrq     SysRq-S ejects pair: the loader exits 0 with an exit
#                  reason naming sysrq, the class is disabled and the hogs
#                  keep running under CFS
# PAIR_ONLY="pair-rt ..." runs a subset.
# Limits: shares come from one short window of a TCG guest; the overlap
# check sees sched_switch, not the return to user space.
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/scx-lib.sh"
. "$HERE/trace-lib.sh"
PAIR=${PAIR:-build/pair/pair}
SPIN=${TOOLS_BUILD:-build/tools}/spinner
CHURN=${TOOLS_BUILD:-build/tools}/cgchurn
SWDELAY=${BPF_BUILD:-build/bpf}/swdelay
OVERLAP=$HERE/../tools/overlap.sh
CG=/sys/fs/cgroup/pair-test
LOG=$TEST_LOG_DIR/22-pair
RUN_S=8
# pair-churn's floor on cgchurn's rounds in RUN_S s (a liveness floor,
# not a speed target: see the case)
CHURN_MIN=${CHURN_MIN:-50}
mkdir -p "$LOG"
NCPU=$(nproc)
SIB=$(smt_siblings)

n=0 bad=0
result() {	# OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2${3:+ # $3}"
	else
		echo "not ok $n $2${3:+ # $3}"
		bad=1
	fi
}
want() {
	[ -z "${PAIR_ONLY:-}" ] || [[ " $PAIR_ONLY " == *" $1 "* ]]
}

case $SIB in
*[,-]*) ;;
*) echo "ok 1 pair # SKIP no SMT siblings ($SIB)"; exit 0 ;;
esac
for b in "$PAIR" "$SPIN" "$CHURN"; do
	[ -x "$b" ] || { echo "not ok 1 pair"; echo "# FAIL $b not built (make bpf)"; exit 1; }
done

# ---- cgroups and tasks -----------------------------------------------------
PIDS=()
cg_setup() {	# the test's cgroups A and B (weight 100), emptied first
	cg_teardown
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $CG
	echo +cpu >$CG/cgroup.subtree_control
	mkdir -p $CG/A $CG/B
}
cg_teardown() {
	local d
	kill_all
	[ -d $CG ] || return 0
	for d in $(find $CG -mindepth 1 -type d | sort -r); do
		rmdir "$d" 2>/dev/null
	done
	rmdir $CG 2>/dev/null
}
spawn() {	# CGROUP(A|B|...) SPINNER-ARGS...: a spinner in $CG/CGROUP
	local cg=$1
	shift
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG/$cg" "$SPIN" "$@" &
	PIDS+=($!)
}
kill_all() {
	[ ${#PIDS[@]} = 0 ] && return 0
	kill -9 "${PIDS[@]}" 2>/dev/null
	wait "${PIDS[@]}" 2>/dev/null
	PIDS=()
}
group_load() {	# [SPINNER-ARGS of the first hog]: 2 hogs + 1 sleeper per group
	local g
	for g in A B; do
		spawn $g -n hog${g}0 "$@"
		spawn $g -n hog${g}1
		spawn $g -n hog${g}s -r 500 -s 2000
	done
	sleep 1
}
ran_ms() {	# PID: se.sum_exec_runtime in whole ms, 0 if gone
	local v
	v=$(sched_field "$1" se.sum_exec_runtime 2>/dev/null)
	echo "${v%.*}" | grep -E '^[0-9]+$' || echo 0
}

# ---- measuring -------------------------------------------------------------
# traced NAME [OVERLAP-ARGS]: trace RUN_S s, set OV RA RB SPAN (us) and
# LIM; 1 on failure
traced() {
	local f=/tmp/pair-$1.trace lost res sum
	trace_start
	sleep $RUN_S
	lost=$(trace_stop "$f")
	res=$("$OVERLAP" -s "$SIB" "${@:2}" "$f") || { echo "# FAIL $1: overlap.sh failed"; return 1; }
	gzip -c "$f" >"$LOG/$1.trace.gz"
	rm -f "$f"
	echo "$res" | sed "s/^/# $1: /"
	[ "$lost" = 0 ] && ! grep -q 'lost=[1-9]' <<<"$res" ||
		{ echo "# FAIL $1: the trace lost events ($lost)"; return 1; }
	sum=$(grep '^a_run_us=' <<<"$res")
	OV=$(sed -n 's/.* overlap_us=\([0-9]*\).*/\1/p' <<<"$sum")
	RA=$(sed -n 's/^a_run_us=\([0-9]*\).*/\1/p' <<<"$sum")
	RB=$(sed -n 's/.* b_run_us=\([0-9]*\).*/\1/p' <<<"$sum")
	SPAN=$(sed -n 's/.* span_us=\([0-9]*\).*/\1/p' <<<"$sum")
	[ -n "$OV" ] && [ -n "$RA" ] && [ -n "$RB" ] && [ -n "$SPAN" ] ||
		{ echo "# FAIL $1: no figures"; return 1; }
	LIM=$((SPAN / 1000))
	[ $LIM -lt 1000 ] && LIM=1000
	return 0
}

# pair's own view: total overlap_us and sum of a counter over its JSON lines
pair_sum() {	# LOG FIELD
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | awk '{ s += $1 } END { printf "%d\n", s }'
}

pstart() {	# CASE [ARGS]: pair with JSON stats every second
	local c=$1
	shift
	PLOG=$LOG/$c.log
	trace_arm || return 1
	sched_start "$PLOG" "$PAIR" -j -i 1 "$@"
}

# the load is up, pair traced: the common verdict of the overlap cases
check_overlap() {	# CASE
	local own
	[ "$OV" -le "$LIM" ] || { echo "# FAIL $1: overlap $OV us > $LIM us"; return 1; }
	own=$(pair_sum "$PLOG" overlap_us)
	echo "# $1: overlap $OV us (limit $LIM), pair's own check $own us"
	[ "$own" -le "$LIM" ] || {
		echo "# FAIL $1: pair saw $own us of overlap > $LIM us"
		# when, from pair's start: the trace covers RUN_S s after the load
		sed -n 's/.*"time_s":\([0-9.]*\).*"overlap_us":\([0-9.]*\).*/\1 \2/p' "$PLOG" |
			awk '$2 > 0 { printf "#   %s s after start: %s us\n", $1, $2 }' | head -n 5
		return 1
	}
}

# ---- the cases -------------------------------------------------------------
case_overlap() {
	local cov win pct
	cg_setup
	sched_start "$LOG/overlap-simple.log" "$SCX_BUILD/scx_simple" || return 1
	group_load
	traced overlap-simple || { kill_all; sched_stop "$LOG/overlap-simple.log"; return 1; }
	kill_all
	sched_stop "$LOG/overlap-simple.log" || return 1
	cov=$OV
	[ "$cov" -ge $((SPAN / 5)) ] ||
		{ echo "# FAIL scx_simple overlap $cov us < 20% of $SPAN us: detector broken"; return 1; }

	pstart overlap || return 1
	group_load
	traced overlap-pair || { kill_all; sched_stop "$PLOG"; return 1; }
	kill_all
	sched_alive pair-overlap || return 1
	sched_stop "$PLOG" || return 1
	win=$((SPAN * NCPU))
	echo "# pair: A $RA us, B $RB us of $win us; scx_simple overlap $cov us"
	check_overlap pair-overlap || return 1
	# equal weights: each group half of the two groups' time
	pct=$(awk -v a="$RA" -v b="$RB" 'BEGIN { printf "%.1f", a + b ? 100 * a / (a + b) : 0 }')
	echo "# pair-overlap: A's share of the groups' time $pct% (want 50 +/- 5)"
	awk -v p="$pct" 'BEGIN { exit !(p >= 45 && p <= 55) }' ||
		{ echo "# FAIL A's share $pct% is not 50 +/- 5 (A $RA, B $RB us)"; return 1; }
	[ $((RA + RB)) -ge $((win / 2)) ] ||
		{ echo "# FAIL the groups ran $((RA + RB)) of $win us: the machine idled"; return 1; }
}

case_rt() {
	local rel
	cg_setup
	pstart rt || return 1
	group_load
	spawn A -n hogArt -m -r 5000 -s 45000
	chrt -f -p 50 "${PIDS[-1]}" && taskset -p -c 0 "${PIDS[-1]}" >/dev/null ||
		{ echo "# FAIL cannot make the RT task"; kill_all; sched_stop "$PLOG"; return 1; }
	traced rt -m hogArt || { kill_all; sched_stop "$PLOG"; return 1; }
	kill_all
	sched_alive pair-rt || return 1
	sched_stop "$PLOG" || return 1
	rel=$(pair_sum "$PLOG" cpu_release)
	echo "# pair-rt: cpu_release $rel, idle while preempted $(pair_sum "$PLOG" idle_preempt)"
	check_overlap pair-rt || return 1
	[ "$rel" -gt 0 ] || { echo "# FAIL ops.cpu_release never ran"; return 1; }
}

usage_us() { sed -n 's/^usage_usec \([0-9]*\)/\1/p' "$CG/$1/cpu.stat"; }

case_weights() {
	local a0 b0 a1 b1 pct i
	cg_setup
	echo 200 >$CG/A/cpu.weight
	pstart weights || return 1
	for i in 0 1 2 3; do
		spawn A -n hogA$i
		spawn B -n hogB$i
	done
	sleep 2
	a0=$(usage_us A) b0=$(usage_us B)
	sleep 10
	a1=$(usage_us A) b1=$(usage_us B)
	kill_all
	sched_alive pair-weights || return 1
	sched_stop "$PLOG" || return 1
	pct=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.1f", 100 * a / (a + b) }')
	echo "# pair-weights: A (200) $((a1 - a0)) us, B (100) $((b1 - b0)) us: A $pct% (want 66.7 +/- 3)"
	awk -v p="$pct" 'BEGIN { exit !(p >= 63.7 && p <= 69.7) }' ||
		{ echo "# FAIL A's share $pct% is not 66.7 +/- 3"; return 1; }
}

case_churn() {
	local cpid rc made
	cg_setup
	mkdir -p $CG/churn
	pstart churn || return 1
	group_load
	spawn churn -n churner
	"$CHURN" -d $CG/churn -p "${PIDS[-1]}" -t $RUN_S $CG/A $CG/B $CG/churn \
		>"$LOG/churn.out" 2>&1 &
	cpid=$!
	traced churn || { kill_all; wait $cpid; sched_stop "$PLOG"; return 1; }
	wait $cpid
	rc=$?
	kill_all
	sched_alive pair-churn || return 1
	sched_stop "$PLOG" || return 1
	echo "# pair-churn: $(cat "$LOG/churn.out"), moves seen $(pair_sum "$PLOG" cgroup_moves)"
	[ $rc = 0 ] || { echo "# FAIL cgchurn exited $rc"; return 1; }
	# churn that barely ran proves nothing: a floor on its rounds
	made=$(sed -n 's/^churned \([0-9]*\)$/\1/p' "$LOG/churn.out")
	[ "${made:-0}" -ge "$CHURN_MIN" ] ||
		{ echo "# FAIL cgchurn made ${made:-no} cgroups in $RUN_S s, want >= $CHURN_MIN"; return 1; }
	check_overlap pair-churn
}

# run ns of the hog in cgroup m$1 (builtins only: 200 hogs make every
# exec slow), into R; 1 if the cgroup has no task (yet)
many_run() {
	local p= w n
	read -r p <$CG/m$1/cgroup.procs
	[ -n "$p" ] || return 1
	read -r R w n <"/proc/$p/schedstat"	# run ns, wait ns, slices
}

# this shell in a cgroup of weight 10000 beside the 200 (the checks must
# not wait for 1/201 of the CPU), or back where it was
CTL=/sys/fs/cgroup/pair-test-ctl
many_ctl() {	# on|off
	if [ "$1" = on ]; then
		MANY_HOME=$(sed -n 's/^0:://p' /proc/self/cgroup)
		echo +cpu >/sys/fs/cgroup/cgroup.subtree_control &&
			mkdir -p $CTL && echo 10000 >$CTL/cpu.weight &&
			echo $$ >$CTL/cgroup.procs
	else
		echo $$ >"/sys/fs/cgroup${MANY_HOME:-/}/cgroup.procs"
		rmdir $CTL 2>/dev/null
		return 0
	fi
}

case_many() {
	local rc
	many_ctl on || { echo "# FAIL cannot set up $CTL"; many_ctl off; return 1; }
	many_check
	rc=$?
	kill_all
	many_ctl off
	return $rc
}

many_check() {
	local i t min=-1 sum=0 R
	local -a r0
	cg_setup
	for i in $(seq 200); do mkdir $CG/m$i; done
	# the loader and the hogs' RT parent run in the root cgroup, whose
	# domain owns cores while the RT parent runs: charged for that time,
	# it starved the loader. Each moves itself there, then execs.
	local -a inroot=(/bin/sh -c 'echo $$ >/sys/fs/cgroup/cgroup.procs && exec "$@"' sh)
	PLOG=$LOG/many.log
	sched_start "$PLOG" "${inroot[@]}" "$PAIR" -j -i 1 || return 1
	# an RT parent (children reset to SCHED_NORMAL) moves each child at
	# once: the setup does not wait for the scheduler under test
	"${inroot[@]}" chrt -f -R 10 "$SPIN" -N 200 -g $CG -n hogM -t 120 &
	PIDS+=($!)
	for t in $(seq 120); do
		many_run 200 && break
		sleep 0.5
	done
	for i in $(seq 200); do
		many_run "$i" || {
			local k j=0
			for k in $(seq 200); do many_run "$k" && j=$((j + 1)); done
			echo "# FAIL cgroup m$i has no task after 60 s ($j of 200 have one)"
			kill_all
			sched_stop "$PLOG"
			return 1
		}
		r0[i]=$R
	done
	sleep 10
	for i in $(seq 200); do
		many_run "$i" || { echo "# FAIL the hog of m$i is gone"; kill_all; sched_stop "$PLOG"; return 1; }
		R=$(((R - r0[i]) / 1000000))
		sum=$((sum + R))
		{ [ $min = -1 ] || [ "$R" -lt $min ]; } && min=$R
	done
	kill_all
	sched_alive pair-many || return 1
	sched_stop "$PLOG" || return 1
	echo "# pair-many: 200 hogs over 10 s: least ran $min ms, mean $((sum / 200)) ms"
	[ "$min" -gt 0 ] && [ $((min * 2)) -ge $((sum / 200)) ] ||
		{ echo "# FAIL the least-served hog ran $min ms, under half the mean $((sum / 200)) ms"; return 1; }
}

case_cookies() {
	cg_setup
	pstart cookies || return 1
	group_load -c
	traced cookies || { kill_all; sched_stop "$PLOG"; return 1; }
	kill_all
	sched_alive pair-cookies || return 1
	sched_stop "$PLOG" || return 1
	check_overlap pair-cookies || return 1
	[ "$RA" -gt 0 ] && [ "$RB" -gt 0 ] || { echo "# FAIL a group did not run"; return 1; }
}

# swdelay's program attaches after pair's and the armed trace event: its
# busy-wait sits after pair told the sibling this thread left its domain
case_delay() {
	local dpid dlog=$LOG/delay-swdelay.log delays i
	[ -x "$SWDELAY" ] || { echo "# FAIL $SWDELAY not built (make bpf)"; return 1; }
	cg_setup
	pstart delay || return 1
	"$SWDELAY" -n 1 -d 3000 -c hog >"$dlog" 2>&1 &
	dpid=$!
	for i in $(seq 50); do
		grep -q attached "$dlog" && break
		sleep 0.2
	done
	grep -q attached "$dlog" || { echo "# FAIL swdelay did not attach"; sed 's/^/#   /' "$dlog"; kill $dpid; sched_stop "$PLOG"; return 1; }
	group_load
	traced delay
	i=$?
	kill $dpid
	wait $dpid
	kill_all
	[ $i = 0 ] || { sched_stop "$PLOG"; return 1; }
	sched_alive pair-delay || return 1
	sched_stop "$PLOG" || return 1
	delays=$(sed -n 's/^delays=//p' "$dlog")
	echo "# pair-delay: ${delays:-no} switches delayed 3 ms"
	[ "${delays:-0}" -gt 0 ] || { echo "# FAIL swdelay delayed no switch"; return 1; }
	check_overlap pair-delay
}

wait_enabled() {	# SECONDS
	local i
	for i in $(seq $(($1 * 5))); do
		[ "$(scx_state)" = enabled ] && return 0
		sleep 0.2
	done
	return 1
}

# cpu1_set 0|1: CPU 1 off or on within 60 s (cpu_set_online), with the
# tail of pair's log if not
cpu1_set() {
	cpu_set_online 1 "$1" 60 && return 0
	grep -v '^{' "$PLOG" | tail -n 5 | sed 's/^/#   /'
	return 1
}

case_hotplug() {
	local before after restarts
	cg_setup
	pstart hotplug || return 1
	group_load
	before=$(ran_ms "${PIDS[0]}")
	cpu1_set 0 || { kill_all; sched_stop "$PLOG"; return 1; }
	sleep 2
	wait_enabled 20 || {
		echo "# FAIL pair not enabled 20 s after CPU 1 went offline"
		cpu1_set 1; kill_all; sched_stop "$PLOG"; return 1
	}
	cpu1_set 1 || { kill_all; sched_stop "$PLOG"; return 1; }
	sleep 2
	wait_enabled 20 || {
		echo "# FAIL pair not enabled 20 s after CPU 1 came back"
		kill_all; sched_stop "$PLOG"; return 1
	}
	sleep 1
	after=$(ran_ms "${PIDS[0]}")
	kill_all
	restarts=$(grep -c 'restarting as asked' "$PLOG")
	sched_alive pair-hotplug || return 1
	sched_stop "$PLOG" || return 1
	grep 'pair: .* CPUs, .* cores' "$PLOG" | sed 's/^/# /'
	echo "# pair-hotplug: restarts $restarts, hogA0 ran $before -> $after ms"
	[ "$restarts" -ge 2 ] || { echo "# FAIL $restarts restarts, want 2"; return 1; }
	grep -q 'cores.*: \[0\] ' "$PLOG" || { echo "# FAIL no core table with CPU 0 alone"; return 1; }
	[ "$after" -gt "$before" ] || { echo "# FAIL hogA0 did not run"; return 1; }
}

case_sysrq() {
	local i before after rc
	cg_setup
	pstart sysrq || return 1
	group_load
	echo 1 >/proc/sys/kernel/sysrq
	echo S >/proc/sysrq-trigger
	for i in $(seq 50); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$spid" 2>/dev/null && { echo "# FAIL the loader still runs 10 s after SysRq-S"; kill_all; sched_stop "$PLOG"; return 1; }
	wait "$spid"
	rc=$?
	echo "# pair-sysrq: loader exited $rc; $(grep 'EXIT' "$PLOG" | head -n1)"
	spid=
	# SysRq-S is the operator's request: the loader says so and exits 0
	# (pair.c's exit status), as flatcg does
	[ $rc = 0 ] || { echo "# FAIL the loader exited $rc after SysRq-S, want 0"; kill_all; return 1; }
	grep -q 'EXIT: .*sysrq' "$PLOG" ||
		{ echo "# FAIL no exit reason naming SysRq in pair's log"; kill_all; return 1; }
	[ "$(scx_state)" = disabled ] || { echo "# FAIL state $(scx_state) after SysRq-S"; kill_all; return 1; }
	before=$(ran_ms "${PIDS[0]}")
	sleep 1
	after=$(ran_ms "${PIDS[0]}")
	kill_all
	echo "# hogA0 under CFS: $before -> $after ms"
	[ "$after" -gt "$before" ] || { echo "# FAIL hogA0 did not run after the ejection"; return 1; }
}

# The quick tier's cases: the isolation itself with its control, weights
# and the ejection (2.5 min).  The full tier adds RT tasks, churn, 200
# cgroups, cookies, delayed switches and hotplug.
QUICK_CASES="pair-overlap pair-weights pair-sysrq"
for c in overlap rt weights churn many cookies delay hotplug sysrq; do
	want pair-$c || continue
	[ -n "${PAIR_ONLY:-}" ] || in_tier pair-$c "$QUICK_CASES" || continue
	echo "# == pair-$c"
	case_$c
	rc=$?
	kill_all
	[ -n "$spid" ] && sched_stop "$PLOG" >/dev/null
	result $rc pair-$c
done
cg_teardown
exit $bad
