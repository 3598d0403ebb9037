#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# The kernel exposes its BTF (needed by every BPF scheduler) and it parses.
f=/sys/kernel/btf/vmlinux
[ -r $f ] || { echo "$f missing"; exit 1; }
size=$(wc -c <$f)
echo "btf size $size"
[ "$size" -gt 1000000 ] || { echo "BTF suspiciously small"; exit 1; }
bpftool btf dump file $f format raw | grep -q "STRUCT 'task_struct'" ||
	{ echo "task_struct not in BTF"; exit 1; }
