#!/bin/bash
# tier: quick - flatcg's hierarchical weights beside CFS, flat and nested (quick); every share case (full)
# timeout: 600
# tap: yes
# plan: quick=2 full=8
# 20-flatcg-shares.sh - flatcg gives cgroups and tasks the CPU shares their
# weights imply. Each case runs its CPU hogs first under CFS (the control,
# reported on a "# cfs" line, not asserted) and then, in the same boot with
# the same hogs, under flatcg (asserted):
#   flatcg-weights     weights-tree.conf, 4 hogs per leaf: every leaf within
#                      2 points of the share its cpu.weight chain implies
#   flatcg-nested      nested-2to1.conf (4 levels), 4 hogs per side: 2:1
#                      within 2 points; cpu.weight of bench/lo 100 -> 400 mid-run
#                      moves the split to 1:2 within 2 points
#   flatcg-fork        nested-2to1.conf, each side 4 forkexit loops on
#                      CPUs 0-1 whose children spin 5 ms of CPU and exit
#                      (a CGI per request): 2:1 within 3 points, though no
#                      task lives long enough to carry its cgroup's debt
#   flatcg-nice        4 nice-0 and 4 nice-5 hogs in one cgroup: split by
#                      their weights (75.2:24.8) within 2 points; with -f
#                      (FIFO) 50:50 within 2 points
#   flatcg-root-tasks  a nice-0 root-cgroup task beside a weight-100 child
#                      with 2 hogs, all on one CPU: the task gets 50 +/- 3
#   flatcg-affinity    cgroups of weight 100 and 200, 2 hogs each pinned to
#                      CPU 2, beside 4 unpinned hogs of a third cgroup: the
#                      pinned ones split CPU 2 1:2 within 2 points
#   flatcg-sleeper     two weight-100 cgroups of 4 hogs; one is stopped for
#                      5 s: in the 3 s after it returns the other keeps
#                      50 +/- 5% (no burst for the sleeper, no penalty)
#   flatcg-herd        16 cgroups under a weight-25 parent, each with a task
#                      waking every 100 ms for 5 ms, all at once, beside a
#                      weight-200 cgroup of 4 hogs: the herd takes at most 5
#                      points over its parent's share (25/225 = 11.1%) and
#                      the hogs lose at most 5 of theirs (88.9%), the bound
#                      flatcg/README.md states, and the herd still runs.
#                      The herd asks for 20%; measured over the whole herd
#                      (all 16 started), flatcg leaves the hogs 85.2-88.6%
#                      (CFS 88.3-89.0), a known excess the README lists.
#                      A herd that each took its parent's whole share (the
#                      effect mitigated) pulls the hogs to about 61%.
# Limits: 4 vCPUs expected (shares are feasible with 4 hogs per group).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/flatcg-lib.sh
[ -x "$FCG" ] || { echo "$FCG not built"; exit 1; }
[ -x "$TOOLS/burst" ] || { echo "$TOOLS/burst not built"; exit 1; }
[ -x "$TOOLS/forkexit" ] || { echo "$TOOLS/forkexit not built"; exit 1; }
grep -qw cpu /sys/fs/cgroup/cgroup.controllers || { echo "no cpu controller"; exit 1; }

# whatever happens, no hog outlives the test and no cgroup is left
trap 'hogs_kill; [ -n "$spid" ] && scx_stop >/dev/null 2>&1; cg_teardown >/dev/null 2>&1' EXIT

WIN=6		# seconds measured per scheduler
SETTLE=2	# seconds before measuring

case_end() {
	hogs_kill
	[ -n "$spid" ] && scx_stop >/dev/null 2>&1
	spid=
	cg_teardown || echo "# FAIL teardown of $TNAME"
}

# the cpu controller in the root's children (cg_teardown takes it back)
cpu_on() { echo +cpu >/sys/fs/cgroup/cgroup.subtree_control; }

# share LEAF...: "LEAF PCT" lines of the configured shares
share_of() { cg_shares "$@" | awk -v l="$1" '$1 == l { printf "%.1f", 100 * $2 }'; }

# ---- flatcg-weights --------------------------------------------------
t_weights() {
	cg_snapshot
	cg_apply cgroup-configs/weights-tree.conf
	for l in R/A/B R/A/C R/D; do hogs $l 4; done
	sleep $SETTLE
	measure $WIN B=R/A/B C=R/A/C D=R/D
	echo "# cfs: B ${PCT[B]} C ${PCT[C]} D ${PCT[D]}"
	ok=1
	if fcg_start; then
		sleep $SETTLE
		measure $WIN B=R/A/B C=R/A/C D=R/D
		wb=$(share_of R/A/B R/A/C R/D) wc=$(share_of R/A/C R/A/B R/D) wd=$(share_of R/D R/A/B R/A/C)
		echo "# flatcg: B ${PCT[B]} C ${PCT[C]} D ${PCT[D]}, configured $wb $wc $wd"
		near B "$wb" 2 && near C "$wc" 2 && near D "$wd" 2 && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "B ${PCT[B]} C ${PCT[C]} D ${PCT[D]} want $wb $wc $wd"
	case_end
}

# ---- flatcg-nested ---------------------------------------------------
t_nested() {
	HI=bench/hi/svc/web LO=bench/lo/svc/web
	cg_snapshot
	cg_apply cgroup-configs/nested-2to1.conf
	hogs $HI 4
	hogs $LO 4
	sleep $SETTLE
	measure $WIN hi=$HI lo=$LO
	echo "# cfs: hi ${PCT[hi]} lo ${PCT[lo]}"
	ok=1 detail=
	if fcg_start; then
		sleep $SETTLE
		measure $WIN hi=$HI lo=$LO
		want=$(share_of $HI $LO)
		detail="2:1: hi ${PCT[hi]} want $want"
		near hi "$want" 2 && ok=0
		echo 400 >/sys/fs/cgroup/bench/lo/cpu.weight
		sleep 1
		measure $WIN hi=$HI lo=$LO
		want=$(share_of $HI $LO)
		detail="$detail; after lo=400: hi ${PCT[hi]} want $want"
		near hi "$want" 2 || ok=1
		sched_alive $TNAME || ok=1
		fcg_stop || ok=1
	fi
	result $ok $TNAME "$detail"
	case_end
}

# ---- flatcg-fork -----------------------------------------------------
t_fork() {
	HI=bench/hi/svc/web LO=bench/lo/svc/web
	cg_snapshot
	cg_apply cgroup-configs/nested-2to1.conf
	# Both sides on CPUs 0-1, as the bench's forkweights on 2 vCPUs: 8
	# forking loops keep 2 CPUs saturated.  Spread over 4 CPUs the loops'
	# fork and wait gaps leave CPUs idle, the weights do not bind and
	# CFS itself gave hi only 57-58%.  The loops outlive both windows;
	# cg_teardown kills what is left.
	spawn $HI taskset -c 0,1 "$TOOLS/forkexit" -n 4 -s 5000 -t $((4 * SETTLE + 2 * WIN + 20))
	spawn $LO taskset -c 0,1 "$TOOLS/forkexit" -n 4 -s 5000 -t $((4 * SETTLE + 2 * WIN + 20))
	sleep $SETTLE
	measure $WIN hi=$HI lo=$LO
	echo "# cfs: hi ${PCT[hi]} lo ${PCT[lo]}"
	ok=1
	want=$(share_of $HI $LO)
	if fcg_start; then
		sleep $SETTLE
		measure $WIN hi=$HI lo=$LO
		echo "# flatcg: hi ${PCT[hi]} lo ${PCT[lo]}, configured hi $want"
		near hi "$want" 3 && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "hi ${PCT[hi]} want $want"
	case_end
}

# ---- flatcg-nice -----------------------------------------------------
t_nice() {
	cg_snapshot
	cpu_on
	mkdir /sys/fs/cgroup/nice
	n0=() n5=()
	for i in 1 2 3 4; do
		spawn nice sh -c 'while :; do :; done'
		n0+=($LAST_PID)
		spawn nice nice -n 5 sh -c 'while :; do :; done'
		n5+=($LAST_PID)
	done
	spec0="pid:$(tr ' ' ',' <<<"${n0[*]}")" spec5="pid:$(tr ' ' ',' <<<"${n5[*]}")"
	sleep $SETTLE
	measure $WIN n0="$spec0" n5="$spec5"
	echo "# cfs: nice0 ${PCT[n0]} nice5 ${PCT[n5]}"
	# sched_prio_to_weight: nice 0 = 1024, nice 5 = 335
	want=$(awk 'BEGIN { printf "%.1f", 100 * 1024 / (1024 + 335) }')
	ok=1 detail=
	if fcg_start; then
		sleep $SETTLE
		measure $WIN n0="$spec0" n5="$spec5"
		detail="vtime: nice0 ${PCT[n0]} want $want"
		near n0 "$want" 2 && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	if fcg_start -f; then
		sleep $SETTLE
		measure $WIN n0="$spec0" n5="$spec5"
		detail="$detail; -f: nice0 ${PCT[n0]} want 50"
		near n0 50 2 && sched_alive $TNAME || ok=1
		fcg_stop || ok=1
	else
		ok=1
	fi
	result $ok $TNAME "$detail"
	case_end
}

# ---- flatcg-root-tasks -----------------------------------------------
t_root_tasks() {
	cg_snapshot
	cpu_on
	mkdir /sys/fs/cgroup/kid
	echo 100 >/sys/fs/cgroup/kid/cpu.weight
	hogs kid 2 1
	spawn / taskset -c 1 sh -c 'while :; do :; done'
	root_pid=$LAST_PID
	sleep $SETTLE
	measure $WIN task=pid:$root_pid kid=kid
	echo "# cfs: root task ${PCT[task]} kid ${PCT[kid]}"
	ok=1
	if fcg_start; then
		sleep $SETTLE
		measure $WIN task=pid:$root_pid kid=kid
		near task 50 3 && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "root task ${PCT[task]} want 50"
	case_end
}

# ---- flatcg-affinity -------------------------------------------------
t_affinity() {
	cg_snapshot
	cpu_on
	for c in a1:100 a2:200 free:100; do
		mkdir /sys/fs/cgroup/${c%%:*}
		echo ${c#*:} >/sys/fs/cgroup/${c%%:*}/cpu.weight
	done
	hogs a1 2 2
	hogs a2 2 2
	hogs free 4
	sleep $SETTLE
	measure $WIN a1=a1 a2=a2
	echo "# cfs: a1 ${PCT[a1]} a2 ${PCT[a2]}"
	ok=1
	if fcg_start; then
		sleep $SETTLE
		measure $WIN a1=a1 a2=a2
		near a2 66.7 2 && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "pinned a1 ${PCT[a1]} a2 ${PCT[a2]} want 33.3 66.7"
	case_end
}

# ---- flatcg-sleeper --------------------------------------------------
t_sleeper() {
	cg_snapshot
	cpu_on
	mkdir /sys/fs/cgroup/s1 /sys/fs/cgroup/s2
	hogs s1 4
	s1=("${HOG_PIDS[@]}")
	hogs s2 4
	# sleeper_window: stop s1's hogs for 5 s, measure the 3 s after. The
	# window opens before they are woken: a burst of s1 also delays this
	# shell, and a window opened after the kill would start after it.
	sleeper_window() {
		kill -STOP "${s1[@]}"
		sleep 5
		measure_start s1=s1 s2=s2 || return 1
		kill -CONT "${s1[@]}"
		sleep 3
		measure_end
	}
	sleep $SETTLE
	sleeper_window
	echo "# cfs: after the sleep s1 ${PCT[s1]} s2 ${PCT[s2]}"
	ok=1
	if fcg_start; then
		sleep $SETTLE
		sleeper_window
		awk -v s="${PCT[s2]}" 'BEGIN { exit !(s >= 45 && s <= 55) }' && sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "after the sleep s1 ${PCT[s1]} s2 ${PCT[s2]} want 50 +/- 5"
	case_end
}

# ---- flatcg-herd -----------------------------------------------------
t_herd() {
	cg_snapshot
	cpu_on
	mkdir -p /sys/fs/cgroup/herd /sys/fs/cgroup/hi
	echo +cpu >/sys/fs/cgroup/herd/cgroup.subtree_control
	echo 25 >/sys/fs/cgroup/herd/cpu.weight
	echo 200 >/sys/fs/cgroup/hi/cpu.weight
	hogs hi 4
	# 16 burst tasks, one per herd cgroup. Exec over 9p is slow under load
	# (seconds per task): measure only once all 16 run burst, so that the
	# window sees the whole herd, and stop them after it.
	herd_start() {
		local i p n=0
		HERD=()
		for i in $(seq 16); do
			mkdir -p /sys/fs/cgroup/herd/h$i
			spawn herd/h$i "$TOOLS/burst" -r 5 -p 100 -t 300 >/dev/null
			HERD+=("$LAST_PID")
		done
		for i in $(seq 300); do
			n=0
			for p in "${HERD[@]}"; do
				[ "$(cat /proc/"$p"/comm 2>/dev/null)" = burst ] && n=$((n + 1))
			done
			[ $n = 16 ] && return 0
			sleep 0.2
		done
		echo "# only $n of 16 herd tasks started in 60 s"
		return 1
	}
	herd_stop() { kill -9 "${HERD[@]}" 2>/dev/null; wait "${HERD[@]}" 2>/dev/null; }
	want=$(awk 'BEGIN { printf "%.1f", 100 * 200 / 225 }')
	wherd=$(awk 'BEGIN { printf "%.1f", 100 * 25 / 225 }')
	herd_start
	sleep $SETTLE
	measure $WIN hi=hi herd=herd
	herd_stop
	echo "# cfs: hi ${PCT[hi]} herd ${PCT[herd]} (configured hi $want)"
	ok=1
	if fcg_start; then
		PCT[hi]=nan PCT[herd]=nan
		if herd_start; then
			sleep $SETTLE
			measure $WIN hi=hi herd=herd
		fi
		herd_stop
		echo "# flatcg: hi ${PCT[hi]} herd ${PCT[herd]}"
		# the herd's excess over its parent's share is what the
		# bound limits; the hogs' loss is its mirror
		awk -v h="${PCT[hi]}" -v w="$want" -v d="${PCT[herd]}" -v wd="$wherd" \
			'BEGIN { exit !(h + 0 >= w - 5 && d + 0 >= 1 && d + 0 <= wd + 5) }' &&
			sched_alive $TNAME && ok=0
		fcg_stop || ok=1
	fi
	result $ok $TNAME "hi ${PCT[hi]} want >= $want - 5, herd ${PCT[herd]} want 1 to $wherd + 5"
	case_end
}

# The quick tier's cases: the hierarchy's weights, flat and nested with a
# change at run time (what flatcg is for, 2 min).  The full tier adds task
# weights, short-lived tasks, a root-cgroup task, pinned tasks, the sleeper
# and the herd (5 more minutes).
QUICK_CASES="flatcg-weights flatcg-nested"
# FCG_ONLY="NAME..." runs only those cases (development)
for c in flatcg-weights flatcg-nested flatcg-fork flatcg-nice flatcg-root-tasks flatcg-affinity flatcg-sleeper flatcg-herd; do
	case " ${FCG_ONLY:-$c} " in *" $c "*) ;; *) continue ;; esac
	[ -n "${FCG_ONLY:-}" ] || in_tier $c "$QUICK_CASES" || continue
	echo "# == $c"
	TNAME=$c
	fn=${c#flatcg-}; "t_${fn//-/_}"
done
echo "1..$ntap"
