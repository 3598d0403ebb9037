#!/bin/bash
# tier: quick - flatcg's ejection path back to CFS (quick); churn, scale, hotplug and the loader's life (full)
# timeout: 1200
# tap: yes
# plan: quick=1 full=5
# (a hang guard: 4 min 18 s here on the normal kernel, over 600 s on the
# lockdep kernel of make test DEBUG=1, where 5000 mkdirs are slow)
# 21-flatcg-stress.sh - flatcg under stress, at scale, through CPU hotplug
# and SysRq-S, and its loader's run-time behaviour:
#   flatcg-churn    stress-ng (cpu, fork, switch, yield) in 8 cgroups of
#                   weights 100..800 while for 50 s cgroups are made, get a
#                   task, lose it and are removed (tests/tools/cgchurn):
#                   flatcg stays enabled, every stress-ng still runs and its
#                   cgroup gets CPU after the churn, at least 200 cgroups
#                   churned, flatcg's stats count no task whose cgroup was
#                   missing from its table (lost 0), the loader exits cleanly
#   flatcg-scale    5000 cgroups, flatcg loaded with -C 4096 (a table
#                   smaller than the tree): it loads and stays enabled;
#                   tracked + untracked = every cpu cgroup, the table full;
#                   tasks of 50 tracked and 50 untracked cgroups all make
#                   progress (untracked ones run as root's: root_fallback);
#                   a mkdir past capacity succeeds untracked; removing 10
#                   tracked cgroups lets 10 new ones in
#   flatcg-hotplug  cpu1 offline then online: each time flatcg reports the
#                   kernel's restart request and attaches again, and the
#                   hogs keep running
#   flatcg-sysrq    SysRq-S: back to CFS within 10 s, the loader reports
#                   the reason and exits 0, the hogs keep running
#   flatcg-loader   -j prints valid JSON lines with the documented keys, -v
#                   a line for a busy cgroup; with another scheduler loaded
#                   flatcg refuses, exit 1
# Limits: 4 vCPUs, cpu1 hot-pluggable (flatcg-hotplug skips otherwise).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/flatcg-lib.sh
[ -x "$FCG" ] || { echo "$FCG not built"; exit 1; }
for t in burst cgchurn; do [ -x "$TOOLS/$t" ] || { echo "$TOOLS/$t not built"; exit 1; }; done
CPU1=/sys/devices/system/cpu/cpu1/online
CG=/sys/fs/cgroup

trap 'echo $$ >$CG/cgroup.procs; hogs_kill; [ -n "$spid" ] && scx_stop >/dev/null 2>&1; [ -w $CPU1 ] && echo 1 >$CPU1; rmdir $CG/scale/g* 2>/dev/null; cg_teardown >/dev/null 2>&1' EXIT

cpu_on() { echo +cpu >$CG/cgroup.subtree_control; }

case_end() {
	echo $$ >$CG/cgroup.procs
	hogs_kill
	[ -n "$spid" ] && scx_stop >/dev/null 2>&1
	spid=
	cg_teardown || echo "# FAIL teardown of $TNAME"
}

# finish DETAIL: a case ends with flatcg still in charge and a clean stop;
# reports the result with DETAIL and the caller's $why, and cleans up
finish() {
	sched_alive $TNAME >/dev/null || why="$why ejected;"
	fcg_stop || why="$why unclean stop;"
	[ -z "$why" ]
	result $? $TNAME "$1${why:+; $why}"
	case_end
}

# grows SECS CGROUP: CGROUP's CPU usage grows within SECS seconds
grows() {
	local a b
	cg_usage_into a "$2" && sleep "$1" && cg_usage_into b "$2" && [ "$b" -gt "$a" ]
}

# the last JSON stats line of the current log, field $1
json_last() {
	grep '^{' "$(fcg_log "$TNAME")" | tail -n1 | sed -n "s/.*\"$1\":\([0-9-]*\).*/\1/p"
}
# the sum of a per-interval counter over every JSON line of the log
json_sum() {
	grep '^{' "$(fcg_log "$TNAME")" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

t_churn() {
	local i why= pids=() n=0 sl out u0=() u1=() lost
	cg_snapshot
	cpu_on
	mkdir $CG/churn
	echo +cpu >$CG/churn/cgroup.subtree_control
	if ! fcg_start -j; then
		result 1 $TNAME "did not attach"
		case_end
		return
	fi
	# this shell in a cgroup weighted like all stress cgroups together: in
	# the root it would get 100/3700 of the machine and crawl
	mkdir $CG/driver
	echo 3600 >$CG/driver/cpu.weight
	echo $$ >$CG/driver/cgroup.procs
	for i in $(seq 8); do
		mkdir $CG/s$i
		echo $((i * 100)) >$CG/s$i/cpu.weight
		spawn s$i stress-ng -q --temp-path /tmp --cpu 1 --cpu-method int64 \
			--fork 1 --switch 1 --yield 1 --timeout 600s
		pids+=($LAST_PID)
	done
	# 50 s of churn: make a cgroup, move a sleeper in and on, remove it
	sleep 1000 &
	sl=$!
	out=$("$TOOLS/cgchurn" -d $CG/churn -p $sl -t 50 $(printf "$CG/s%d " $(seq 8)) 2>&1) ||
		why="cgchurn: $out;"
	n=$(sed -n 's/^churned //p' <<<"$out")
	kill $sl
	echo "# $n cgroups made and removed in 50 s"
	# a churn that barely ran proves nothing (a liveness floor: 862 in a
	# lockdep run, thousands on the normal kernel)
	[ "${n:-0}" -ge 200 ] || why="$why only ${n:-no} cgroups churned, want >= 200;"
	# every stress-ng still runs and its cgroup still gets CPU
	for i in $(seq 8); do cg_usage_into "u0[$i]" s$i; done
	sleep 3
	for i in $(seq 8); do
		cg_usage_into "u1[$i]" s$i
		[ "${u1[$i]}" -gt "${u0[$i]}" ] || why="$why s$i got no CPU in 3 s;"
		kill -0 "${pids[$((i - 1))]}" 2>/dev/null || why="$why stress-ng in s$i ended;"
	done
	echo $$ >$CG/cgroup.procs
	sleep 1.5	# one more stats line after the churn
	# no task's cgroup went missing from flatcg's table on the way
	lost=$(json_sum lost)
	[ "$lost" = 0 ] || why="$why lost $lost (a task's cgroup not in the table);"
	finish "$n cgroups churned, lost $lost"
}

t_scale() {
	local i why= total tr un un2 fb
	cg_snapshot
	cpu_on
	mkdir $CG/scale
	echo +cpu >$CG/scale/cgroup.subtree_control
	mkdir $CG/scale/g{1..5000} || { result 1 $TNAME "mkdir of 5000 cgroups failed"; case_end; return; }
	# every cgroup with the cpu controller, and the root
	total=$(($(find $CG -name cpu.weight | wc -l) + 1))
	if ! fcg_start -j -C 4096; then
		result 1 $TNAME "did not attach"
		rmdir $CG/scale/g* 2>/dev/null
		case_end
		return
	fi
	for i in $(seq 50) $(seq 4951 5000); do
		spawn scale/g$i "$TOOLS/burst" -r 1 -p 100 -t 8 >"$TEST_LOG_DIR/scale-burst-$i"
	done
	wait "${HOG_PIDS[@]}"
	HOG_PIDS=()
	sleep 1.5
	tr=$(json_last cgroups_tracked) un=$(json_last cgroups_untracked)
	fb=$(grep '^{' "$(fcg_log $TNAME)" | sed -n 's/.*"root_fallback":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	echo "# $total cpu cgroups: tracked $tr untracked $un, root_fallback $fb"
	[ "$tr" = 4096 ] || why="$why tracked $tr, want 4096;"
	[ "$((tr + un))" = "$total" ] || why="$why tracked+untracked $((tr + un)), want $total;"
	[ "${fb:-0}" -gt 0 ] || why="$why no root_fallback;"
	for i in $(seq 50) $(seq 4951 5000); do
		grep -q '^bursts [1-9]' "$TEST_LOG_DIR/scale-burst-$i" ||
			why="$why task in g$i: $(cat "$TEST_LOG_DIR/scale-burst-$i");"
	done
	mkdir $CG/scale/extra || why="$why mkdir past capacity failed;"
	rmdir $CG/scale/g{100..109}
	sleep 1.5
	un2=$(json_last cgroups_untracked)
	[ "$un2" = $((un + 1)) ] || why="$why untracked after a mkdir $un2, want $((un + 1));"
	[ "$(json_last cgroups_tracked)" = 4086 ] || why="$why tracked $(json_last cgroups_tracked) after 10 rmdirs, want 4086;"
	mkdir $CG/scale/n{1..10}
	sleep 1.5
	[ "$(json_last cgroups_tracked)" = 4096 ] || why="$why tracked $(json_last cgroups_tracked) after 10 new, want 4096;"
	rmdir $CG/scale/g* $CG/scale/n* $CG/scale/extra 2>/dev/null
	finish "tracked $tr untracked $un of $total"
}

# restarted LABEL: the loader attached again after a restart request
restarted() {
	local log i want=$1
	log=$(fcg_log "$TNAME")
	for i in $(seq 150); do
		[ "$(grep -c 'restarting as asked by the kernel' "$log")" -ge "$want" ] &&
			[ "$(grep -c '^flatcg: attached' "$log")" -gt "$want" ] &&
			[ "$(scx_state)" = enabled ] && return 0
		sleep 0.1
	done
	return 1
}

t_hotplug() {
	local why=
	[ -w $CPU1 ] || { echo "ok $((ntap += 1)) $TNAME # SKIP cpu1 not hot-pluggable"; return; }
	cg_snapshot
	cpu_on
	mkdir $CG/hp
	hogs hp 4
	if ! fcg_start; then
		result 1 $TNAME "did not attach"
		case_end
		return
	fi
	cpu_set_online 1 0 30 || why="cpu1 offline failed;"
	restarted 1 || why="$why no restart after offline;"
	grows 1 hp || why="$why hogs stalled after offline;"
	cpu_set_online 1 1 30 || why="$why cpu1 online failed;"
	restarted 2 || why="$why no restart after online;"
	grows 1 hp || why="$why hogs stalled after online;"
	finish ""
}

t_sysrq() {
	local ok=0 why= i log pid
	cg_snapshot
	cpu_on
	mkdir $CG/sq
	hogs sq 4
	if ! fcg_start; then
		result 1 $TNAME "did not attach"
		case_end
		return
	fi
	log=$(fcg_log "$TNAME") pid=$spid
	echo S >/proc/sysrq-trigger
	for i in $(seq 100); do
		[ "$(scx_state)" = disabled ] && break
		sleep 0.1
	done
	[ "$(scx_state)" = disabled ] || why="state $(scx_state) 10 s after SysRq-S;"
	timeout 10 tail --pid="$pid" -f /dev/null
	kill -0 "$pid" 2>/dev/null && { why="$why loader still running 10 s after;"; kill -KILL "$pid"; }
	wait "$pid"
	i=$?
	spid=
	[ $i = 0 ] || why="$why loader exited $i;"
	grep -q 'EXIT: .*[Ss]ys[Rr]q' "$log" || why="$why no SysRq exit reason in the log;"
	grows 1 sq || why="$why hogs stalled on CFS;"
	[ -z "$why" ] || { ok=1; tail -n 5 "$log"; }
	result $ok $TNAME "$why"
	case_end
}

t_loader() {
	local ok=0 why= out rc k
	TNAME=flatcg-loader
	cg_snapshot
	cpu_on
	mkdir $CG/vv
	hogs vv 1
	if fcg_start -j -v -i 0.3; then
		sleep 1.5
		fcg_stop || why="unclean stop;"
		grep -qE '^  cgroup /vv +weight +100 active yes +cpu ' "$(fcg_log $TNAME)" ||
			why="$why no -v line for /vv;"
		grep '^{' "$(fcg_log $TNAME)" >/tmp/fcg-json
		[ "$(wc -l </tmp/fcg-json)" -ge 3 ] || why="$why fewer than 3 JSON lines;"
		python3 -c 'import json, sys
for l in sys.stdin:
    json.loads(l)' </tmp/fcg-json || why="$why invalid JSON;"
		for k in time_s interval_s cgroups_tracked cgroups_untracked cgroups_active local shared kick preempt dispatch dispatch_none credit_cut activate deactivate hweight_calc hweight_cached root_fallback cgroup_moves lost; do
			grep -q "\"$k\":" /tmp/fcg-json || why="$why no \"$k\";"
		done
	else
		why="did not attach;"
	fi
	if sched_start "$TEST_LOG_DIR/flatcg-loader-simple.log" "$SCX_BUILD/scx_simple"; then
		out=$("$FCG" 2>&1)
		rc=$?
		[ $rc = 1 ] || why="$why exit $rc beside scx_simple;"
		grep -q 'another sched_ext scheduler is loaded (simple)' <<<"$out" || why="$why said '$out';"
		sched_stop "$TEST_LOG_DIR/flatcg-loader-simple.log" || why="$why scx_simple stop;"
	else
		why="$why scx_simple did not attach;"
	fi
	[ -z "$why" ] || ok=1
	result $ok $TNAME "$why"
	case_end
}

# The quick tier's case: the ejection by SysRq-S, back to CFS (16 s).  The
# full tier adds cgroup churn (3.5 min; the class's cgroup_churn selftest
# churns in the quick tier), 5000 cgroups, hotplug and the loader's life.
QUICK_CASES="flatcg-sysrq"
for c in flatcg-churn flatcg-scale flatcg-hotplug flatcg-sysrq flatcg-loader; do
	case " ${FCG_ONLY:-$c} " in *" $c "*) ;; *) continue ;; esac
	[ -n "${FCG_ONLY:-}" ] || in_tier $c "$QUICK_CASES" || continue
	echo "# == $c"
	TNAME=$c
	fn=${c#flatcg-}
	"t_${fn//-/_}"
done
echo "1..$ntap"
