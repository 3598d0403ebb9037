#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# struct_ops (which sched_ext is built on) works: the program type is
# available (it needs BPF_JIT, which Kconfig drops silently in 6.1 without
# MODULES) and a struct_ops map (a TCP congestion control) loads, runs on a
# loopback connection and detaches cleanly.
zcat /proc/config.gz | grep -qx 'CONFIG_BPF_JIT=y' || { echo "BPF_JIT off"; exit 1; }
out=$(bpftool feature probe kernel 2>/dev/null | grep -i 'struct_ops')
echo "$out"
echo "$out" | grep -q "program_type struct_ops is available" || exit 1
bin=${BPF_BUILD:-build/bpf}/tcpca
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin"
