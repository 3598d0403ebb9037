#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# runwait.sh: from a tracefs trace of sched_switch, sched_wakeup and
# sched_wakeup_new events (all CPUs, trace_clock=global), measure how long
# tasks waited while runnable before they ran, whatever their scheduling
# class: a wait starts when a task is woken (sched_wakeup, sched_wakeup_new)
# or switched out still runnable (prev_state R or R+: preempted) and ends
# when it is switched in.  Waits are summed up per group:
#   events=N lost=N
#   group=G waits=N mean_us=N p50_us=N p99_us=N max_us=N max_tid=N open=N
# (percentiles by nearest rank; open counts the waits still running when
# the trace ends, counted up to its last event).  Groups come from -g MAP,
# a file of "TID GROUP" lines; a task forked by a mapped task
# (sched_process_fork events, if traced) joins its group.  Without -g every
# task is in group "all".  Unmapped tasks and the idle tasks are left out.
# Limits: the trace must come from the tracefs `trace` file (sorted by
# time); events lost to overruns can make a wait look longer or vanish:
# check lost= and the overrun counts.  A wakeup that arrives while the task
# still runs is ignored.  A TID reused during the trace keeps its group.
set -eu
usage() {
	cat <<EOF
usage: runwait.sh [-g MAP] [-h] TRACE
  -g MAP    file of "TID GROUP" lines (default: one group "all")
  -h        this help
Prints per group the waits of runnable tasks until they ran (microseconds).
EOF
}
map=
while getopts "g:h" opt; do
	case $opt in
	g) map=$OPTARG; [ -r "$map" ] || { echo "runwait.sh: cannot read $map" >&2; exit 2; } ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] && [ -r "$1" ] || { usage >&2; exit 2; }

# pass 1: one "W GROUP US TID" line per finished or open wait, then one
# "E events lost" line; sorted by group and length for pass 2
awk -v MAP="$map" '
function group(pid) {
	if (pid == 0)
		return ""
	if (MAP == "")
		return "all"
	return (pid in gmap) ? gmap[pid] : ""
}
# the text after "KEY=" up to the next space
function field(key,	s) {
	s = substr($0, index($0, " " key "=") + length(key) + 2)
	return substr(s, 1, index(s " ", " ") - 1)
}
function stamp(ev) {
	if (!match($0, "[0-9]+\\.[0-9]+: " ev ":"))
		return -1
	return substr($0, RSTART, RLENGTH - length(ev) - 3) * 1000000
}
function begin_wait(pid, t) {
	if (oncpu[pid] || (pid in since) || group(pid) == "")
		return
	since[pid] = t
}
function end_wait(pid, t) {
	if (!(pid in since))
		return
	printf "W %s %.0f %d\n", group(pid), t - since[pid], pid
	delete since[pid]
}
MAP != "" && FILENAME == MAP {
	if (NF >= 2)
		gmap[$1] = $2
	next
}
/LOST [0-9]+ EVENTS/ {
	match($0, /LOST [0-9]+/)
	lost += substr($0, RSTART + 5, RLENGTH - 5)
	next
}
/ sched_switch: / {
	if ((t = stamp("sched_switch")) < 0)
		next
	events++
	last = t
	prev = field("prev_pid")
	nxt = field("next_pid")
	oncpu[prev] = 0
	if (substr(field("prev_state"), 1, 1) == "R")
		begin_wait(prev, t)
	end_wait(nxt, t)
	oncpu[nxt] = 1
	next
}
/ sched_wakeup(_new)?: / {
	if ((t = stamp("sched_wakeup")) < 0 && (t = stamp("sched_wakeup_new")) < 0)
		next
	events++
	last = t
	begin_wait(field("pid"), t)
	next
}
/ sched_process_fork: / {
	p = field("pid")
	if (p in gmap)
		gmap[field("child_pid")] = gmap[p]
	next
}
END {
	for (p in since) {
		printf "W %s %.0f %d open\n", group(p), last - since[p], p
	}
	printf "E %d %d\n", events, lost
}' ${map:+"$map"} "$1" | sort -k1,1 -k2,2 -k3,3n | awk '
function flush() {
	if (g == "")
		return
	printf "group=%s waits=%d mean_us=%.0f p50_us=%d p99_us=%d max_us=%d max_tid=%d open=%d\n",
		g, n, sum / n, v[int(n * 0.50 + 0.999999)], v[int(n * 0.99 + 0.999999)], v[n], maxtid, open
}
$1 == "E" { printf "events=%d lost=%d\n", $2, $3; next }
$1 == "W" {
	if ($2 != g) { flush(); g = $2; n = 0; sum = 0; open = 0; split("", v) }
	v[++n] = $3
	sum += $3
	maxtid = $4
	if ($5 == "open")
		open++
}
END { flush() }'
