#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# BPF toolchain end to end: a tp_btf/sched_switch program built with clang-16
# against this kernel's vmlinux.h, skeleton by bpftool, linked with libbpf,
# loads, attaches and sees this process being switched out.
bin=${BPF_BUILD:-build/bpf}/swcount
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin" -n 50
