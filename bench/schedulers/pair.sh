# pair.sh - scheduler plug-in for pair (pair/, built by make pair): SMT
# siblings run tasks of one cgroup at a time.  The loader path defaults to
# build/pair/pair; override with PAIR=/path, extra options with PAIR_ARGS
# (e.g. "-b 5000").  Its stats (including its own overlap check) go to the
# loader log as JSON lines.  Limits: needs a kernel with the sched_ext
# series and cgroup support, and a guest with SMT siblings to mean anything
# (on a guest without them every CPU is a core of its own).
. "$BENCH/schedulers/scx.sh"

# shellcheck disable=SC2086
sched_preflight() { scx_preflight "${PAIR:-$ROOT/build/pair/pair}"; }
sched_binary() { echo "${PAIR:-$ROOT/build/pair/pair}"; }
# what make pair builds it from besides the series (none for a PAIR=)
sched_sources() {
	[ -z "${PAIR-}" ] && echo "$ROOT/pair/pair.bpf.c $ROOT/pair/pair.c" \
		"$ROOT/pair/pair.h $ROOT/pair/pair.mk $ROOT/common/scx-loader.h"
}
# shellcheck disable=SC2086
sched_start() { scx_start 15 "${PAIR:-$ROOT/build/pair/pair}" -j ${PAIR_ARGS:-}; }
sched_alive() { scx_alive; }
sched_stop() { scx_stop; }
sched_exit_info() { scx_exit_info; }
