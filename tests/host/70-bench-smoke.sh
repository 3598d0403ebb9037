#!/bin/bash
# tier: quick - the bench harness end to end on one web scenario (waits): QEMU, apache, wrk, flatcg, stats, report and plots; the other workloads' plumbing is 65-bench-selfcheck's (full)
# timeout: 400
# 70-bench-smoke.sh - bench/selfcheck.sh with the one scenario that
# reaches the most of its checks (waits: the web workload with traced
# waits, histograms, CPU per request, windows and the host-speed
# adjustment), and the refusal of a broken cgroup config.
set -u
. "$(dirname "$0")/../../scripts/common.sh"
stats=$BUILD/bench/stats hs=$BUILD/bench/hostspeed
[ -x "$stats" ] && [ -x "$hs" ] || { echo "$stats or $hs not built (make bench-stats)"; exit 1; }
BUILD=$BUILD STATS=$stats HOSTSPEED=$hs "$ROOT/bench/selfcheck.sh" waits
