#!/bin/bash
# timeout: 120
# scx_qmap (five FIFO queues by weight, BPF_MAP_TYPE_QUEUE) schedules a real
# workload: tasks pass through its queues (enq and dsp counters grow) and a
# CPU-bound loop runs through it (see scx-lib.sh).
. "$(dirname "$0")/scx-lib.sh"
bin=$SCX_BUILD/scx_qmap
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin" -h | grep -q Usage || { echo "no -h help"; exit 1; }
log=$TEST_LOG_DIR/scx_qmap.log
sched_proof "$log" "$bin" || exit 1
last=$(grep '^stats' "$log" | tail -n1)
echo "last: $last"
enq=$(sed -n 's/.* enq=\([0-9]*\).*/\1/p' <<<"$last")
dsp=$(sed -n 's/.* dsp=\([0-9]*\).*/\1/p' <<<"$last")
[ "${enq:-0}" -gt 0 ] && [ "${dsp:-0}" -gt 0 ] || { echo "no tasks went through the queues"; exit 1; }
