#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# cgroup v2 cpu controller: it can be enabled for children, a child gets a
# writable cpu.weight, and a process can be moved into the child.
set -e
cg=/sys/fs/cgroup
grep -qw cpu $cg/cgroup.controllers || { echo "cpu controller not available"; exit 1; }
echo +cpu >$cg/cgroup.subtree_control
mkdir -p $cg/t-cpu/inner
echo +cpu >$cg/t-cpu/cgroup.subtree_control
echo 300 >$cg/t-cpu/inner/cpu.weight
w=$(cat $cg/t-cpu/inner/cpu.weight)
echo "inner cpu.weight=$w"
[ "$w" = 300 ]
sleep 5 & pid=$!
echo $pid >$cg/t-cpu/inner/cgroup.procs
grep -qx "0::/t-cpu/inner" /proc/$pid/cgroup
kill $pid; wait $pid 2>/dev/null || true
rmdir $cg/t-cpu/inner $cg/t-cpu
