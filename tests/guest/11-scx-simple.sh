#!/bin/bash
# tier: quick - the example scheduler scx_simple under real load, and its weighted vtime mode weighting
# timeout: 120
# scx_simple, FIFO and weighted vtime, schedules a real workload: its
# counters grow and a CPU-bound loop runs through it (see scx-lib.sh).
# Then the weighting of -v: 4 busy loops at nice 0 and 4 at nice 5
# (weights 1024 and 335) on the guest's 4 CPUs share them 75.4 : 24.6
# within 5 points under -v (weighted vtime) and 50 : 50 within 5 points
# under FIFO (the control: the split comes from -v's weights).
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

want=$(awk 'BEGIN { printf "%.1f", 100 * 1024 / (1024 + 335) }')
nice_split "$TEST_LOG_DIR/scx_simple-nice-v.log" 0 5 "$bin" -v || exit 1
echo "weighted vtime (-v): nice 0 loops got $PCT% beside nice 5 (want $want +/- 5)"
v=$PCT
nice_split "$TEST_LOG_DIR/scx_simple-nice.log" 0 5 "$bin" || exit 1
echo "FIFO: nice 0 loops got $PCT% (want 50 +/- 5)"
pct_in "$v" $(awk -v w="$want" 'BEGIN { print w - 5, w + 5 }') ||
	{ echo "FAIL: -v does not weight by nice"; exit 1; }
pct_in "$PCT" 45 55 ||
	{ echo "FAIL: FIFO mode splits by nice (the control)"; exit 1; }
