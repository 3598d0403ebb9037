# forkexit.sh - workload module: fork/exit throughput.  Runs
# build/tools/forkexit (tests/tools/forkexit.c): W processes loop
# fork() + _exit() + waitpid() for the scenario's duration.  Every exit goes
# through the scheduler's task free path, so this is the load that shows
# what that path costs under each scheduler and kernel.
# (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  none beyond sched= and config=
# Parameters:    workers=N  forking processes (default 4)
# Metrics: forks_per_s (higher is better).
# Limits: wall-clock throughput under QEMU: compare runs of one boot, or
# boots on a quiet host; the tool must be built (make bpf builds it).

FORKEXIT=$ROOT/build/tools/forkexit

wl_check() {
	scn_valid_uint "$(scn_param workers 4)" && [ "$(scn_param workers 4)" -ge 1 ] ||
		{ echo "forkexit: workers must be >= 1" >&2; return 1; }
	[ "$SCN_DURATION" -ge 1 ] || { echo "forkexit: duration must be >= 1" >&2; return 1; }
}

wl_prepare() {
	[ -x "$FORKEXIT" ] || { echo "forkexit: $FORKEXIT not built (make bpf)" >&2; return 1; }
}

wl_start() { :; }

wl_measure() {
	local out
	out=$("$FORKEXIT" -n "$(scn_param workers 4)" -t "$SCN_DURATION" 2>&1) ||
		{ echo "forkexit: $out" >&2; return 1; }
	awk '$1 == "forks_per_s" { print "forks_per_s", $2; f = 1 } END { exit !f }' <<<"$out" ||
		{ echo "forkexit: cannot parse: $out" >&2; return 1; }
}

wl_stop() { :; }
