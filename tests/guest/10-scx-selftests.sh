#!/bin/bash
# tier: quick - every selftest of the class: the only checks of most kernel paths
# tap: yes
# plan: 53
# timeout: 1200
# The selftests make schedulers fail on purpose and check each exit's kind
# and message themselves: their error exits and the weight warning are
# expected; any other sched_ext warning is not.
# kernel-log-expect: sched_ext: BPF scheduler "[a-z_]+" (disabled \(|does not support cgroup weights)
# kernel-log-expect: sched_ext: [a-z_]+: 
# The sched_ext selftests of the series (tools/testing/selftests/sched_ext),
# one TAP line each.  Each test loads its own BPF scheduler; the runner checks
# that no scheduler is left loaded between tests.
bin=${SCX_BUILD:-build/scx}/selftests/runner
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
# line-buffered: each test's "# =====" line marks the kernel log as it starts
stdbuf -oL "$bin" -q
