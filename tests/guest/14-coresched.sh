#!/bin/bash
# tier: quick - core-scheduling cookies under the class (scx_simple, quick) and under CFS and scx_qmap (full): the only check that cookies isolate
# timeout: 240
# tap: yes
# plan: quick=1 full=3
# Core scheduling (PR_SCHED_CORE cookies) under each scheduler of $SCHEDS:
# groups A and B of CPU-bound hogs (coresched-hogs), one per core sibling
# (A0 on the first thread of core 0, B0 on the second, ...), run RUN_S s
# twice while sched_switch is traced (trace_clock=global): without cookies
# (control) and with one cookie per group.  overlap.sh measures the time an
# A task ran on one sibling while a B task ran on the other.
# FAIL if the control overlap is < 20% of the run (the detector is broken),
# any overlap episode with cookies is longer than EPISODE_MAX_US (what core
# scheduling guarantees, see test_sched), or a group or a hog ran < 10% of the run
# with cookies (starvation); also if the trace lost events or a sched_ext
# scheduler did not stay enabled and exit cleanly.  One TAP line per
# scheduler; figures in us.
# Schedulers: "cfs qmap simple" in the full tier, "simple" in the quick one
# ("cfs" is no BPF scheduler); CORESCHED_SCHEDS="qmap" picks the list.
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/scx-lib.sh"
OVERLAP=$HERE/../tools/overlap.sh
HOGS=${TOOLS_BUILD:-build/tools}/coresched-hogs
RUN_S=${RUN_S:-8}
SCHEDS="cfs qmap simple"
# the quick tier: the class under one scheduler; CFS (the kernel's own
# core scheduling) and scx_qmap (core_sched_before) in the full tier
[ "${TEST_TIER:-quick}" = full ] || SCHEDS=simple
SCHEDS=${CORESCHED_SCHEDS:-$SCHEDS}	# e.g. "simple" to run one
LOG=$TEST_LOG_DIR/14-coresched
mkdir -p "$LOG"

. "$HERE/trace-lib.sh"

# ---- topology: sibling sets and a CPU list ordered core by core ----------
sib=$(smt_siblings)
cpulist= ncores=0
for s in $sib; do
	case $s in
	*[,-]*) ;;
	*) echo "ok 1 coresched # SKIP no SMT siblings ($sib)"; exit 0 ;;
	esac
	ncores=$((ncores + 1))
	cpulist=$cpulist,$(echo "$s" | awk -F, '{ for (i = 1; i <= NF; i++) {
		n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) printf "%s%d", o++ ? "," : "", c } }')
done
cpulist=${cpulist#,}
echo "# siblings: $sib; hogs pinned in the order $cpulist"
[ -x "$HOGS" ] || {
	echo "not ok 1 coresched"
	echo "# FAIL $HOGS not built (make bpf)"
	exit 1
}
"$HOGS" -h | grep -q usage ||
	{ echo "not ok 1 coresched"; echo "# FAIL $HOGS: no -h help"; exit 1; }

# run_hogs SCHED MODE: one traced run; sets ov, ra, rb, cmin (us) and eps
run_hogs() {
	local s=$1 mode=$2 flag= lost res sum rc
	[ "$mode" = control ] && flag=-n
	trace_start
	"$HOGS" -g 2 -p "$ncores" -t "$RUN_S" -c "$cpulist" $flag \
		>"$LOG/$s-$mode.hogs" 2>&1
	rc=$?
	lost=$(trace_stop /tmp/coresched-$s-$mode.trace)
	sed 's/^/#   /' "$LOG/$s-$mode.hogs"
	if [ $rc = 3 ]; then
		echo "ok 1 coresched # SKIP core scheduling unavailable"
		exit 0
	fi
	[ $rc = 0 ] || { echo "# FAIL $s $mode: coresched-hogs exited $rc"; return 1; }
	res=$("$OVERLAP" -s "$sib" /tmp/coresched-$s-$mode.trace) ||
		{ echo "# FAIL $s $mode: overlap.sh failed"; return 1; }
	gzip -c /tmp/coresched-$s-$mode.trace >"$LOG/$s-$mode.trace.gz"
	rm -f /tmp/coresched-$s-$mode.trace
	echo "$res" | sed "s/^/# $s $mode: /"
	[ "$lost" = 0 ] && ! echo "$res" | grep -q 'lost=[1-9]' ||
		{ echo "# FAIL $s $mode: the trace lost events (overruns: $lost)"; return 1; }
	sum=$(echo "$res" | grep '^a_run_us=')
	ov=$(echo "$sum" | sed -n 's/.* overlap_us=\([0-9]*\).*/\1/p')
	ra=$(echo "$sum" | sed -n 's/^a_run_us=\([0-9]*\).*/\1/p')
	rb=$(echo "$sum" | sed -n 's/.* b_run_us=\([0-9]*\).*/\1/p')
	# the least a CPU ran a hog (each hog is pinned to its own CPU)
	cmin=$(echo "$res" | awk -F'[= ]' '$1 == "cpu" { r = $4 + $6
		if (min == "" || r < min) min = r } END { print min + 0 }')
	eps=$(echo "$sum" | sed -n 's/.* episodes=\([0-9]*\) longest_us=\([0-9]*\).*/\1, longest \2 us/p')
	longest=$(echo "$sum" | sed -n 's/.* longest_us=\([0-9]*\).*/\1/p')
	[ -n "$ov" ] && [ -n "$ra" ] && [ -n "$rb" ] ||
		{ echo "# FAIL $s $mode: no figures"; return 1; }
}

# What core scheduling guarantees: when one sibling picks a task of
# another cookie, the other sibling is made to reschedule (an IPI) and
# leaves its task when it takes it.  Overlap comes only in such episodes,
# each as long as one IPI takes, and their number follows the wake-ups on
# the core, which the kernel does not bound.  So the limit is on every
# episode: EPISODE_MAX_US, the class's default slice (20 ms).  A sibling
# that was never told to reschedule runs on until its slice ends (or, under
# CFS, its tick preempts it); a TCG vCPU that the host left waiting for a
# host time slice takes its IPI within a few ms (11.6 ms the longest seen
# under CFS, 0 episodes under scx_qmap and scx_simple).
EPISODE_MAX_US=${EPISODE_MAX_US:-20000}

# test_sched SCHED: control then cookie run, then the verdict.
test_sched() {
	local s=$1 win=$((RUN_S * 1000000)) cov cra crb kov kra krb kmin klong
	local cmd
	cmd=$(sched_cmd "$s") && sched_start "$LOG/$s.loader" $cmd ||
		{ echo "# FAIL $s: did not start"; return 1; }
	[ "$s" = cfs ] || echo "# $s ops: $(cat /sys/kernel/sched_ext/root/ops)"
	run_hogs "$s" control && { cov=$ov cra=$ra crb=$rb; sched_alive "$s"; } ||
		{ echo "# FAIL $s: run failed"; sched_stop "$LOG/$s.loader"; return 1; }
	run_hogs "$s" cookie && sched_alive "$s" || {
		echo "# FAIL $s: run failed"
		sched_stop "$LOG/$s.loader"
		return 1
	}
	kov=$ov kra=$ra krb=$rb kmin=$cmin klong=${longest:-0}
	sched_stop "$LOG/$s.loader" ||
		{ echo "# FAIL $s: scheduler did not exit cleanly"; return 1; }
	echo "# $s: window $win us; control overlap $cov us (A $cra, B $crb);" \
		"cookie overlap $kov us (A $kra, B $krb, least per CPU $kmin;" \
		"episodes $eps), limit $EPISODE_MAX_US us an episode"
	[ "$cov" -ge $((win / 5)) ] || {
		echo "# FAIL $s: control overlap $cov us < 20% of $win us: detector broken"
		return 1
	}
	[ "$klong" -le "$EPISODE_MAX_US" ] || {
		echo "# FAIL $s: an overlap episode of $klong us > $EPISODE_MAX_US us" \
			"(overlap $kov us in $eps): cookies not honoured"
		return 1
	}
	[ "$kra" -ge $((win / 10)) ] && [ "$krb" -ge $((win / 10)) ] || {
		echo "# FAIL $s: a group ran < 10% of $win us with cookies" \
			"(A $kra, B $krb): starvation"
		return 1
	}
	[ "$kmin" -ge $((win / 10)) ] || {
		echo "# FAIL $s: a hog ran < 10% of $win us on its CPU with" \
			"cookies ($kmin us): starvation"
		return 1
	}
}

n=0 bad=0
for s in $SCHEDS; do
	n=$((n + 1))
	echo "# == $s"
	if test_sched "$s"; then
		echo "ok $n $s"
	else
		echo "not ok $n $s"
		bad=1
	fi
done
exit $bad
