#!/bin/sh
# Runs last: the kernel log of this boot has no WARN, BUG, lockdep report,
# RCU stall or hung-task report.
pat='WARNING:|BUG:|Oops|INFO: possible .*locking|possible circular locking|rcu_sched self-detected|rcu: INFO|blocked for more than|general protection fault|Kernel panic'
if dmesg | grep -E "$pat"; then
	dmesg | grep -E -A 20 "$pat" | head -n 60
	exit 1
fi
echo "no splats in $(dmesg | wc -l) kernel log lines"
