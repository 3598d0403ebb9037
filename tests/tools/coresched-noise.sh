#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# coresched-noise.sh: how background wake-ups change the cookie overlap
# that 14-coresched measures.  Runs in the guest (4 vCPUs as 2 cores x 2
# threads), under the scheduler already loaded (CFS if none): the hogs of
# coresched-hogs with one cookie per group, RUN_S s each, alternately on
# a quiet guest and with a loop that runs `sleep 1` (a fork and an exec
# every second, as a polling test runner would do).  One line per run with
# overlap.sh's summary.  Each wake-up of an untagged task on a forced-idle
# sibling can preempt the other sibling's cookie; the overlap is then the
# time that sibling takes to act on its resched IPI (ms under TCG).
# Limits: needs SMT siblings and the tools built (make bpf); not a test,
# it asserts nothing.
#   vm/run-qemu.sh -q -c 4 -t 2 -o build/vm/noise -- \
#	bash tests/tools/coresched-noise.sh; grep -E '^(quiet|noise):' \
#	build/vm/noise/console.log
set -u
case ${1:-} in
-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "usage: coresched-noise.sh [-h] (env RUN_S, ROUNDS)" >&2; exit 2 ;;
esac
HERE=$(dirname "$(readlink -f "$0")")
HOGS=${TOOLS_BUILD:-build/tools}/coresched-hogs
RUN_S=${RUN_S:-8} ROUNDS=${ROUNDS:-2}
[ -x "$HOGS" ] || { echo "coresched-noise: $HOGS not built (make bpf)" >&2; exit 1; }
. "$HERE/../guest/trace-lib.sh"
sib=$(smt_siblings)
trace=/tmp/coresched-noise.trace
for r in $(seq "$ROUNDS"); do
	for mode in quiet noise; do
		np=
		if [ $mode = noise ]; then
			while :; do sleep 1; done &
			np=$!
		fi
		trace_start
		"$HOGS" -g 2 -p 2 -t "$RUN_S" -c 0,1,2,3 >/dev/null ||
			{ echo "coresched-noise: coresched-hogs failed" >&2; exit 1; }
		trace_stop $trace >/dev/null
		[ -n "$np" ] && kill $np
		echo "$mode: $("$HERE/overlap.sh" -s "$sib" $trace | tail -n 1)"
	done
done
rm -f $trace
