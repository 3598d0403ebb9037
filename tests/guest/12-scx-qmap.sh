#!/bin/bash
# tier: quick - the example scheduler scx_qmap under real load, and its weight-ordered queues ordering by weight
# timeout: 120
# scx_qmap (five FIFO queues by weight, BPF_MAP_TYPE_QUEUE) schedules a real
# workload: tasks pass through its queues (enq and dsp counters grow) and a
# CPU-bound loop runs through it (see scx-lib.sh).
# Then the queues order something: 4 busy loops at nice 0 (queue 2,
# served 4 at a turn) and 4 at nice 15 (queue 0, one at a turn) on the
# guest's CPUs: the nice 0 group gets at least QMAP_MIN% of the two
# groups' CPU time, where scx_simple's FIFO (the control, same loops)
# gives it 50 +/- 10 (the order comes from the queues, not the load).
# (Not nice -10: under CFS such loops leave this shell too little CPU to
# even start the scheduler.)
# Limits: the split of a round-robin over queues is not a weight ratio;
# QMAP_MIN (58) lies between what qmap gave (67.9%) and what no order
# gives (FIFO 47.9%; qmap with every task in one queue, the mutation
# weight_to_idx() returning 2, see the commit), in one measured run each.
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

QMAP_MIN=${QMAP_MIN:-58}
nice_split "$TEST_LOG_DIR/scx_qmap-order.log" 0 15 "$bin" || exit 1
echo "scx_qmap: nice 0 loops got $PCT% of the two groups' time beside nice 15 (want >= $QMAP_MIN)"
grep '^queues' "$TEST_LOG_DIR/scx_qmap-order.log" | tail -n 1
q=$PCT
nice_split "$TEST_LOG_DIR/scx_simple-order.log" 0 15 "$SCX_BUILD/scx_simple" || exit 1
echo "scx_simple (FIFO, the control): nice 0 loops got $PCT% (want 50 +/- 10)"
pct_in "$q" "$QMAP_MIN" 100 ||
	{ echo "FAIL: scx_qmap's queues do not order by weight"; exit 1; }
pct_in "$PCT" 40 60 ||
	{ echo "FAIL: the control is off: FIFO split $PCT%"; exit 1; }
