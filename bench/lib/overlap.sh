# overlap.sh - a traced measured window for bench workloads (sourced by a
# workload module in the guest; bash): trace sched_switch and
# sched_process_fork (one clock for all CPUs) and, from the trace, count
# the time the siblings of a core ran tasks of two different groups at once
# (measured SMT isolation, tests/tools/overlap.sh with a task map) and/or
# how long each group's tasks waited runnable before they ran
# (tests/tools/runwait.sh; adds sched_wakeup and sched_wakeup_new).  A
# group is a cgroup subtree: every thread in it when the trace starts, and
# everything those threads fork during the trace.
#   ovl_prepare [overlap] [waits]  check the tools (and, for overlap, the
#                               SMT topology), load the tracer helpers
#                               (tests/guest/trace-lib.sh); the arguments
#                               choose what ovl_end reports (default
#                               overlap)
#   ovl_begin NAME:CGROUP...    write the task map, start tracing
#   ovl_add NAME:CGROUP...      add the threads in those cgroups now (tasks
#                               started there after ovl_begin by a process
#                               outside the groups); the map applies to the
#                               whole trace
#   ovl_stop                    stop recording (cheap: the caller may then
#                               stop its load before ovl_end's work)
#   ovl_end                     stop; print the metrics overlap_us,
#                               overlap_pct (of the traced span), per group
#                               waits.G, wait_mean_us.G, wait_p99_us.G,
#                               wait_max_us.G (those chosen), and
#                               trace_lost; 1 if the trace lost events or
#                               could not be read
# The sched_switch event stays attached (recording off) from ovl_prepare on,
# so that it runs before the sched_switch hook of a scheduler loaded later.
# Limits: tasks that enter a group's cgroup from outside during the trace
# (not forked from it) are not counted; a TID reused during the trace keeps
# its first group.  Kernel threads and the idle task belong to no group.

OVL_TRACE=/tmp/bench-overlap.trace
OVL_MAP=/tmp/bench-overlap.map
OVL_WHAT=overlap

ovl_prepare() {
	local w
	OVL_WHAT=${*:-overlap}
	for w in $OVL_WHAT; do
		case $w in
		overlap)
			[ -x "$ROOT/tests/tools/overlap.sh" ] || { echo "overlap: tests/tools/overlap.sh missing" >&2; return 1; }
			grep -q '[-,]' /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null ||
				{ echo "overlap: the guest has no SMT siblings (the scenario needs 'threads 2')" >&2; return 1; }
			;;
		waits)
			[ -x "$ROOT/tests/tools/runwait.sh" ] || { echo "overlap: tests/tools/runwait.sh missing" >&2; return 1; }
			;;
		*) echo "overlap: ovl_prepare: unknown analysis '$w'" >&2; return 1 ;;
		esac
	done
	# trace_start, trace_stop, smt_siblings; restores the tracer at exit
	. "$ROOT/tests/guest/trace-lib.sh"
	# the event's probe first, before each run's scheduler attaches its
	# own sched_switch hook (trace-lib.sh: trace_arm); ovl_end re-arms
	trace_arm
}

ovl_add() {
	local i d f
	for i in "$@"; do
		d=$(cg_dir "${i#*:}")
		[ -d "$d" ] || { echo "overlap: no cgroup $d" >&2; return 1; }
		while IFS= read -r f; do
			sed "s/\$/ ${i%%:*}/" "$f" >>"$OVL_MAP"
		done < <(find "$d" -name cgroup.threads)
	done
}

ovl_begin() {
	: >"$OVL_MAP"
	ovl_add "$@" || return 1
	case " $OVL_WHAT " in
	*" waits "*) trace_start sched_process_fork sched_wakeup sched_wakeup_new ;;
	*) trace_start sched_process_fork ;;
	esac
}

ovl_stop() { echo 0 >"$TRACE/tracing_on"; }

ovl_end() {
	local lost res sum
	lost=$(trace_stop "$OVL_TRACE")
	trace_arm
	case " $OVL_WHAT " in *" overlap "*)
		res=$("$ROOT/tests/tools/overlap.sh" -a '' -b '' -g "$OVL_MAP" -s "$(smt_siblings)" "$OVL_TRACE") ||
			{ echo "overlap: tests/tools/overlap.sh failed on the trace" >&2; return 1; }
		sum=$(grep '^a_run_us=' <<<"$res")
		[ -n "$sum" ] || { echo "overlap: no summary from overlap.sh: $res" >&2; return 1; }
		awk '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] }
			pct = t["span_us"] > 0 ? 100 * t["overlap_us"] / t["span_us"] : 0
			printf "overlap_us %d\noverlap_pct %.4f\n", t["overlap_us"], pct
		}' <<<"$sum" || return 1
		;;
	esac
	case " $OVL_WHAT " in *" waits "*)
		res=$("$ROOT/tests/tools/runwait.sh" -g "$OVL_MAP" "$OVL_TRACE") ||
			{ echo "overlap: tests/tools/runwait.sh failed on the trace" >&2; return 1; }
		# group=G waits=N mean_us=N p50_us=N p99_us=N max_us=N ...
		awk '/^group=/ {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] }
			g = t["group"]
			printf "waits.%s %d\nwait_mean_us.%s %d\nwait_p99_us.%s %d\nwait_max_us.%s %d\n",
				g, t["waits"], g, t["mean_us"], g, t["p99_us"], g, t["max_us"]
		}' <<<"$res" || return 1
		;;
	esac
	rm -f "$OVL_TRACE"
	echo "trace_lost $lost"
	[ "$lost" = 0 ] || { echo "overlap: the trace lost $lost events: its figures are not trusted" >&2; return 1; }
}
