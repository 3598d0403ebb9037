# trace-lib.sh - sched_switch tracing for the SMT isolation tests (sourced,
# not run: 14-coresched.sh, 22-pair.sh). One clock for all CPUs
# (trace_clock=global) so tests/tools/overlap.sh can compare CPUs.
#   trace_start [EVENT...]  clear the buffer (4 MiB per CPU), trace
#                        sched_switch and the other sched/ EVENTs named
#                        (e.g. sched_process_fork)
#   trace_arm            attach the sched_switch event now, recording off
#                        (see below)
#   trace_stop FILE      stop, save the trace to FILE, clear; prints the
#                        events lost to overruns
#   trace_restore        tracing off, the old buffer size and clock back
#                        (sourcing installs it as the EXIT trap)
#   smt_siblings         the sibling sets, e.g. "0-1 2-3 "
TRACE=/sys/kernel/tracing
[ -e $TRACE/trace ] || mount -t tracefs tracefs $TRACE
trace_old_kb=$(awk '{ print $1; exit }' $TRACE/buffer_size_kb)
trace_old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' $TRACE/trace_clock)

trace_start() {
	echo 0 >$TRACE/tracing_on
	echo global >$TRACE/trace_clock
	echo 4096 >$TRACE/buffer_size_kb	# per CPU
	echo >$TRACE/trace
	local e
	for e in sched_switch "$@"; do
		echo 1 >$TRACE/events/sched/$e/enable || return 1
	done
	echo 1 >$TRACE/tracing_on
}

# Probes of a tracepoint run in the order they were attached. A BPF program
# on sched_switch attached before the event (pair's own check, which also
# tells the sibling thread that this one left its domain) runs first; a
# thread delayed between the two then timestamps its switch after the
# sibling already acted on it, an overlap that never was. trace_arm before
# loading such a program puts the event's timestamp first.
trace_arm() {
	echo 0 >$TRACE/tracing_on
	echo 1 >$TRACE/events/sched/sched_switch/enable
}

trace_stop() {	# FILE: prints the events lost to overruns
	echo 0 >$TRACE/tracing_on
	echo 0 >$TRACE/events/sched/enable
	cat $TRACE/trace >"$1"
	cat $TRACE/per_cpu/cpu*/stats |
		awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }'
	echo >$TRACE/trace
}

trace_restore() {
	echo 0 >$TRACE/tracing_on
	echo 0 >$TRACE/events/sched/enable
	echo "$trace_old_kb" >$TRACE/buffer_size_kb
	echo "$trace_old_clock" >$TRACE/trace_clock
}
trap trace_restore EXIT

smt_siblings() {
	cat /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list |
		sort -un | tr '\n' ' '
}
