#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# overlap.sh: from a tracefs trace of sched_switch events (all CPUs, one
# clock for all: trace_clock=global), measure how long a group-A task ran
# on one SMT sibling while a group-B task ran on another sibling of the same
# core (what core scheduling with one cookie per group must prevent), and
# each group's run time.  A task's group is its comm prefix (default hogA,
# hogB: see coresched-hogs).  It sweeps the events in time order, holding
# the group on each CPU; a CPU counts from its first switch event.
# Output, times in microseconds:
#   events=N lost=N cpus=N
#   cpu=C a_run_us=N b_run_us=N           (one line per CPU)
#   core=K cpus=0,1 overlap_us=N         (one line per core)
#   a_run_us=N b_run_us=N overlap_us=N span_us=N episodes=N longest_us=N
# where span_us is from the first to the last run of a group task, and an
# episode is one stretch of overlap on one core (many short ones: siblings
# late to reschedule; long ones: the cookies are ignored).
# -m PREFIX: a task whose comm starts with PREFIX counts only from its
# first trace_marker write after each switch-in (spinner -m writes one when
# its user code starts a burst): the time it spends held in the kernel
# before returning to user space (an SCX_KICK_WAIT) is not time it runs.
# -g MAP: groups by task instead: MAP has "TID GROUP" lines (e.g. every TID
# in a cgroup's cgroup.threads when the trace started); a task forked by a
# mapped task (sched_process_fork events, if traced) joins its group, and
# tasks not in the map fall back to the comm prefixes.  Any two different
# groups on the siblings of a core count as overlap; groups other than A
# and B get a line "group=NAME run_us=N" before the summary.
# Limits: the trace must come from the tracefs `trace` file (sorted by time);
# per-CPU buffer overruns lose events: check lost= and the overrun counts.
# With -g, a TID reused by an unrelated task during the trace keeps the
# group of the first.
set -eu
usage() {
	cat <<EOF
usage: overlap.sh [-a PREFIX] [-b PREFIX] [-m PREFIX] [-g MAP] [-s SIBLINGS] [-h] TRACE
  -a, -b    comm prefixes of the two groups (default hogA, hogB; '' for
            none: with -g, only mapped tasks belong to a group)
  -m        comm prefix of tasks counted from their trace_marker writes
  -g        file of "TID GROUP" lines: group by task (and its forks)
  -s        sibling sets, e.g. "0-1 2-3" or "0,2 1,3" (default: from
            /sys/devices/system/cpu/cpu*/topology/thread_siblings_list)
EOF
}
a=hogA b=hogB m= sib= map=
while getopts "a:b:m:g:s:h" opt; do
	case $opt in
	a) a=$OPTARG ;;
	b) b=$OPTARG ;;
	m) m=$OPTARG ;;
	g) map=$OPTARG; [ -r "$map" ] || { echo "overlap.sh: cannot read $map" >&2; exit 2; } ;;
	s) sib=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] && [ -r "$1" ] || { usage >&2; exit 2; }
if [ -z "$sib" ]; then
	sib=$(cat /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list |
		sort -u | tr '\n' ' ')
fi

awk -v A="$a" -v B="$b" -v M="$m" -v SIB="$sib" -v MAP="$map" '
# "0-1" or "0,2" or "0-1,4-5" -> cpus appended to core k
function add_core(spec, k,	n, i, r, lo, hi, c, parts) {
	n = split(spec, parts, ",")
	for (i = 1; i <= n; i++) {
		if (split(parts[i], r, "-") == 2) { lo = r[1]; hi = r[2] }
		else { lo = parts[i]; hi = parts[i] }
		for (c = lo + 0; c <= hi + 0; c++) {
			core_of[c] = k
			ncpu[k]++
			cpu_list[k] = cpu_list[k] (ncpu[k] > 1 ? "," : "") c
			cpus[++total_cpus] = c
		}
	}
}
function group(comm, pid) {
	if (pid in gmap)
		return gmap[pid]
	if (A != "" && substr(comm, 1, length(A)) == A)
		return "A"
	if (B != "" && substr(comm, 1, length(B)) == B)
		return "B"
	return ""
}
# the text after "KEY=" up to the next space
function field(key,	s) {
	s = substr($0, index($0, " " key "=") + length(key) + 2)
	return substr(s, 1, index(s " ", " ") - 1)
}
# account [last, t) with the groups currently on each CPU
function advance(t,	dt, i, c, g, k) {
	dt = t - last
	last = t
	if (dt <= 0)
		return
	for (k = 1; k <= ncores; k++) { on[k] = ""; mixed[k] = 0 }
	for (i = 1; i <= total_cpus; i++) {
		c = cpus[i]
		g = cur[c]
		if (g == "")
			continue
		run[g] += dt
		cpurun[c, g] += dt
		k = core_of[c]
		if (on[k] == "")
			on[k] = g
		else if (on[k] != g)
			mixed[k] = 1
	}
	for (k = 1; k <= ncores; k++) {
		if (mixed[k]) {
			ov[k] += dt
			ep[k] += dt
		} else if (ep[k] > 0) {
			end_episode(k)
		}
	}
}
function end_episode(k) {
	episodes++
	if (ep[k] > longest)
		longest = ep[k]
	ep[k] = 0
}
MAP != "" && FILENAME == MAP {	# the map file: "TID GROUP"
	if (NF >= 2) { gmap[$1] = $2; if ($2 != "A" && $2 != "B" && !($2 in named)) { named[$2] = 1; extra[++nextra] = $2 } }
	next
}
BEGIN {
	ncores = split(SIB, specs, " ")
	for (k = 1; k <= ncores; k++)
		add_core(specs[k], k)
	if (!ncores) { print "overlap.sh: no sibling sets" > "/dev/stderr"; exit 2 }
}
/LOST [0-9]+ EVENTS/ {
	match($0, /LOST [0-9]+/)
	lost += substr($0, RSTART + 5, RLENGTH - 5)
	next
}
/ sched_switch: / {
	if (!match($0, /\[[0-9]+\]/))
		next
	cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (!match($0, /[0-9]+\.[0-9]+: sched_switch:/))
		next
	t = substr($0, RSTART, RLENGTH - 14) * 1000000
	s = substr($0, index($0, "prev_comm=") + 10)
	prev_comm = substr(s, 1, index(s, " prev_pid=") - 1)
	s = substr($0, index($0, "next_comm=") + 10)
	next_comm = substr(s, 1, index(s, " next_pid=") - 1)
	prev_pid = field("prev_pid")
	next_pid = field("next_pid")
	if (!events++)
		last = t
	if (!(cpu in core_of)) {
		printf "overlap.sh: cpu %d in no sibling set\n", cpu > "/dev/stderr"
		bad = 1
		exit 2
	}
	advance(t)
	if (group(prev_comm, prev_pid) != "")
		end = t
	g = group(next_comm, next_pid)
	pend[cpu] = ""
	if (g != "" && M != "" && substr(next_comm, 1, length(M)) == M) {
		pend[cpu] = g	# runs once its marker says so
		g = ""
	}
	cur[cpu] = g
	if (g != "" && first == "")
		first = t
}
/ sched_process_fork: / {
	p = field("pid")
	if (p in gmap)
		gmap[field("child_pid")] = gmap[p]
	next
}
/ tracing_mark_write: / {
	if (!match($0, /\[[0-9]+\]/))
		next
	cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (pend[cpu] == "" || !match($0, /[0-9]+\.[0-9]+: tracing_mark_write:/))
		next
	t = substr($0, RSTART, RLENGTH - 20) * 1000000
	advance(t)
	cur[cpu] = pend[cpu]
	pend[cpu] = ""
	if (first == "")
		first = t
}
END {
	if (bad)
		exit 2
	printf "events=%d lost=%d cpus=%d\n", events, lost, total_cpus
	for (i = 1; i <= total_cpus; i++)
		printf "cpu=%d a_run_us=%.0f b_run_us=%.0f\n", cpus[i],
			cpurun[cpus[i], "A"], cpurun[cpus[i], "B"]
	for (k = 1; k <= ncores; k++) {
		if (ep[k] > 0)
			end_episode(k)
		printf "core=%d cpus=%s overlap_us=%.0f\n", k - 1, cpu_list[k], ov[k]
		total += ov[k]
	}
	for (i = 1; i <= nextra; i++)
		printf "group=%s run_us=%.0f\n", extra[i], run[extra[i]]
	printf "a_run_us=%.0f b_run_us=%.0f overlap_us=%.0f span_us=%.0f episodes=%d longest_us=%.0f\n",
		run["A"], run["B"], total, first == "" ? 0 : (end > first ? end : last) - first,
		episodes, longest
}' ${map:+"$map"} "$1"
