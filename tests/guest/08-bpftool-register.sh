#!/bin/bash
# tier: quick - the one check of Debian's bpftool against the class (seconds)
# timeout: 60
# `bpftool struct_ops register OBJ` (Debian's bpftool, 6.1 has no LINK_DIR)
# loads and attaches a scheduler and exits holding the only fd of its map,
# so the scheduler goes as the command ends (what keeps a scheduler
# loaded: Documentation/scheduler/sched-ext.rst).  Checks that the command
# reports success, that sched_ext reads "disabled" within 5 s, and that the
# kernel log has the scheduler's disable line naming the released map.
# The selftest map_lifetime covers fds, forks and pins.
. "$(dirname "$0")/splats.sh"
. "$(dirname "$0")/../../bench/schedulers/scx.sh"
obj=${SCX_BUILD:-build/scx}/selftests/map_lifetime.bpf.o
msg='"map_lifetime" disabled (unregistered from user space): struct_ops map deleted, or its last fd or pin released'
[ -f "$obj" ] || { echo "$obj not built"; exit 1; }
[ "$(scx_state)" = disabled ] || { echo "sched_ext is $(scx_state) before the test"; exit 1; }

mark=$(kmsg_mark bpftool-register) || exit 1
out=$(timeout 30 bpftool struct_ops register "$obj" 2>&1)
rc=$?
echo "bpftool rc=$rc: $out"
[ $rc = 0 ] && [[ $out == *"Registered sched_ext_ops map_lifetime_ops"* ]] ||
	{ echo "FAIL bpftool did not register the scheduler"; exit 1; }
for i in $(seq 50); do
	[ "$(scx_state)" = disabled ] && break
	sleep 0.1
done
[ "$(scx_state)" = disabled ] || { echo "FAIL sched_ext is $(scx_state) 5 s after bpftool exited"; exit 1; }
log=$(kmsg_since "$mark") || exit 1
echo "$log" | grep 'sched_ext'
n=$(echo "$log" | grep -cF "$msg")
[ "$n" = 1 ] || { echo "FAIL $n disable lines naming the released map, want 1"; exit 1; }
