# cfs.sh - scheduler plug-in for the kernel's default class (CFS): nothing to
# load.  Ready and alive mean "no sched_ext scheduler is enabled", so a CFS
# run is refused if a BPF scheduler is left over from a previous run.
# Plug-in contract (see bench/schedulers/README): sched_start, sched_alive,
# sched_stop; each returns 0 on success and prints its reason on failure.

sched_start() {
	[ -z "${SCHED_ARGS-}" ] || { echo "cfs: takes no sched_args (got '$SCHED_ARGS')" >&2; return 1; }
	sched_alive
}

sched_alive() {
	local f=/sys/kernel/sched_ext/state
	if [ -r $f ] && [ "$(cat $f)" != disabled ]; then
		echo "cfs: sched_ext state is '$(cat $f)', expected disabled" >&2
		return 1
	fi
	return 0
}

sched_stop() { :; }
