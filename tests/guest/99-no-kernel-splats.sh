#!/bin/sh
# tier: quick - the guest's own view of its kernel log, beside the host's check (seconds)
# Runs last: the kernel log of this boot has no WARN, BUG, lockdep report,
# RCU stall or hung-task report.
. "$(dirname "$(readlink -f "$0")")/splats.sh"
pat=$KERNEL_SPLATS
if dmesg | grep -E "$pat"; then
	dmesg | grep -E -A 20 "$pat" | head -n 60
	exit 1
fi
echo "no splats in $(dmesg | wc -l) kernel log lines"
