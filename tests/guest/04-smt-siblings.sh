#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# SMT topology: with SMT_THREADS=2 (vm/run-qemu.sh -t 2) every CPU's
# thread_siblings_list names exactly two CPUs, itself included, and the
# relation is symmetric; with 1 every CPU is alone.
want=${SMT_THREADS:-1}
bad=0
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	cpu=${d##*cpu}
	sib=$(cat $d/topology/thread_siblings_list)
	echo "cpu$cpu siblings $sib"
	cpus=$(echo "$sib" | awk -F'[,-]' '{ if ($0 ~ /-/) { for (i = $1; i <= $2; i++) printf "%d ", i } else { for (i = 1; i <= NF; i++) printf "%d ", $i } }')
	count=$(echo $cpus | wc -w)
	[ "$count" = "$want" ] || { echo "cpu$cpu: $count siblings, want $want"; bad=1; }
	echo " $cpus " | grep -q " $cpu " || { echo "cpu$cpu not in its own list"; bad=1; }
	for s in $cpus; do
		grep -qE "(^|[,-])$cpu([,-]|$)" /sys/devices/system/cpu/cpu$s/topology/thread_siblings_list ||
			{ echo "cpu$s does not list cpu$cpu back"; bad=1; }
	done
done
exit $bad
