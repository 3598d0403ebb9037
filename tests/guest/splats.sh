# Kernel log lines that mean something went wrong in the kernel: WARN, BUG,
# lockdep, RCU stall, hung task.  Sourced by 99-no-kernel-splats.sh and by
# tests that check the log of their own time window.
KERNEL_SPLATS='WARNING:|BUG:|Oops|INFO: possible .*locking|possible circular locking|rcu_sched self-detected|rcu: INFO|blocked for more than|general protection fault|Kernel panic'
