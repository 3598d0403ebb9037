#!/bin/bash
# tier: full - the only test of unloads racing CPU hotplug at length (300 runs, ~8 min); the quick tier has the selftests hotplug and hotplug_irq_work
# timeout: 1500
# `make soak-reload` (scripts/soak.sh reload): scx_simple loaded and ended
# 300 times (SIGINT, SIGKILL, SysRq-S in turn) while CPUs 1-3 go offline
# and online without pause, in a guest of its own; passes with 300 runs,
# none failed or hung, and a kernel log without splat.
set -o pipefail
cd "$(dirname "$0")/../.." || exit 1
scripts/soak.sh reload | tail -n 5
