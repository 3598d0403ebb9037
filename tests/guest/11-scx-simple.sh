#!/bin/bash
# timeout: 120
# scx_simple, FIFO and weighted vtime, schedules a real workload: its
# counters grow and a CPU-bound loop runs through it (see scx-lib.sh).
. "$(dirname "$0")/scx-lib.sh"
bin=$SCX_BUILD/scx_simple
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin" -h | grep -q Usage || { echo "no -h help"; exit 1; }
for mode in "" -v; do
	echo "== scx_simple $mode"
	sched_proof "$TEST_LOG_DIR/scx_simple$mode.log" "$bin" $mode || exit 1
	# every second: local=N global=M, cumulative
	last=$(grep -E '^local=[0-9]+ global=[0-9]+' "$TEST_LOG_DIR/scx_simple$mode.log" | tail -n1)
	total=$(echo "$last" | tr -c '0-9\n' ' ' | awk '{ print $1 + $2 }')
	[ "${total:-0}" -gt 0 ] || { echo "no dispatches counted: '$last'"; exit 1; }
done
