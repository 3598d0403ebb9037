#!/bin/bash
# tap: yes
# timeout: 1200
# The sched_ext selftests of the series (tools/testing/selftests/sched_ext),
# one TAP line each.  Each test loads its own BPF scheduler; the runner checks
# that no scheduler is left loaded between tests.
bin=${SCX_BUILD:-build/scx}/selftests/runner
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin" -q
