#!/bin/bash
# tier: full - every workload's plumbing end to end, ~11 min; the quick tier runs one web scenario (70-bench-smoke)
# The bench harness end to end in quick mode (bench/selfcheck.sh): each
# scenario it runs produces raw.csv, meta.txt, summary.md and PNG plots, and a
# scenario with a broken cgroup config is refused before anything runs.
# A subset runs here, one scenario for each check of selfcheck.sh and
# each workload (waits: traced waits, with the web checks every web
# scenario gets: histograms, CPU per request, windows, host-speed
# adjustment; smt-web: overlap on web, smt: the smt workload, idle: spread
# and shares while a leaf idles, forkweights: short-lived hogs, wakelat,
# overhead, taskfree, splitslice: a variant's loader arguments); web,
# web-nested, web-flat, splitbudget, aa, aa-long, conns and weights add no
# check of their own and are only parsed (make bench-check runs them
# all).  About 11 minutes.
# timeout: 1200
set -u
. "$(dirname "$0")/../../scripts/common.sh"
stats=$BUILD/bench/stats hs=$BUILD/bench/hostspeed
[ -x "$stats" ] && [ -x "$hs" ] || { echo "$stats or $hs not built (make bench-stats)"; exit 1; }
BUILD=$BUILD STATS=$stats HOSTSPEED=$hs "$ROOT/bench/selfcheck.sh" \
	waits smt-web smt idle forkweights wakelat overhead taskfree splitslice
