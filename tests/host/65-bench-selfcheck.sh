#!/bin/bash
# The bench harness end to end in quick mode (bench/selfcheck.sh): every
# scenario produces raw.csv, meta.txt, summary.md and PNG plots, and a
# scenario with a broken cgroup config is refused before anything runs.
# timeout: 1200
set -u
. "$(dirname "$0")/../../scripts/common.sh"
stats=$BUILD/bench/stats
[ -x "$stats" ] || { echo "$stats not built (make bench-stats)"; exit 1; }
BUILD=$BUILD STATS=$stats "$ROOT/bench/selfcheck.sh"
