# flatcg.sh - scheduler plug-in for flatcg (flatcg/, built by make flatcg).
# The loader path defaults to build/flatcg/flatcg; override with
# FLATCG=/path, extra options with FLATCG_ARGS (e.g. "-s 5000").  Its
# stats go to the loader log as JSON lines.  Limits: needs a kernel with
# the sched_ext series and cgroup support; fails with a clear message
# otherwise.
. "$BENCH/schedulers/scx.sh"

# shellcheck disable=SC2086
sched_preflight() { scx_preflight "${FLATCG:-$ROOT/build/flatcg/flatcg}"; }
sched_binary() { echo "${FLATCG:-$ROOT/build/flatcg/flatcg}"; }
# what make flatcg builds it from besides the series (none for a FLATCG=)
sched_sources() {
	[ -z "${FLATCG-}" ] && echo "$ROOT/flatcg/flatcg.bpf.c $ROOT/flatcg/flatcg.c" \
		"$ROOT/flatcg/flatcg.h $ROOT/flatcg/flatcg.mk $ROOT/common/scx-loader.h"
}
sched_start() { scx_start 15 "${FLATCG:-$ROOT/build/flatcg/flatcg}" -j ${FLATCG_ARGS:-}; }
sched_alive() { scx_alive; }
sched_stop() { scx_stop; }
sched_exit_info() { scx_exit_info; }
