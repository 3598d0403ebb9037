# scx_simple.sh - scheduler plug-in for the scx_simple example scheduler.
# The loader path defaults to build/scx/scx_simple (make scx); override with
# SCX_SIMPLE=/path.  Limits: needs a kernel with the sched_ext series and
# the loader built (it fails with a clear message otherwise).
. "$BENCH/schedulers/scx.sh"

sched_preflight() { scx_preflight "${SCX_SIMPLE:-$ROOT/build/scx/scx_simple}"; }
sched_binary() { echo "${SCX_SIMPLE:-$ROOT/build/scx/scx_simple}"; }
sched_start() { scx_start 10 "${SCX_SIMPLE:-$ROOT/build/scx/scx_simple}"; }
sched_alive() { scx_alive; }
sched_stop() { scx_stop; }
sched_exit_info() { scx_exit_info; }
