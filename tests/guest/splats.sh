# Kernel log lines that mean something went wrong in the kernel: WARN,
# BUG (soft lockup, KASAN, bad page...), Oops, lockdep, RCU stall, hung
# task, panic, and lines the console lost.  Sourced by the guest tests that
# check their own window (kmsg_mark/kmsg_since), by 99-no-kernel-splats.sh,
# and on the host by scripts/kernel-log-check.sh, which also flags
# sched_ext's own warnings and error exits (SCX_MESSAGES) unless the test
# that ran declared them (`# kernel-log-expect: REGEX`).
KERNEL_SPLATS='WARNING:|BUG:|Oops|INFO: possible .*locking|possible circular locking|possible recursive locking|inconsistent lock state|rcu_sched self-detected|rcu: INFO|detected stalls|blocked for more than|soft lockup|hard LOCKUP|general protection fault|kernel BUG at|Unable to handle kernel|KASAN:|UBSAN:|Kernel panic|printk messages dropped'
SCX_MESSAGES='sched_ext: '

# kmsg_mark NAME: write a marker unique to this call into the kernel log
# and print it; kmsg_since MARKER prints the log after it, or fails when
# the marker is gone (the log wrapped, so the window cannot be checked).
# A marker, not a line count: a full ring buffer drops its oldest lines,
# and a count taken before then points at the wrong line.
kmsg_mark() {
	local m="kmsg-mark: $1 $$ ${EPOCHREALTIME:-$(date +%s.%N)}"
	echo "<5>$m" >/dev/kmsg || return 1
	echo "$m"
}
kmsg_since() {
	dmesg | awk -v m="$1" 'found { print; next } index($0, m) { found = 1 }
		END { exit !found }' ||
		{ echo "kmsg_since: marker '$1' not in the kernel log (wrapped?)" >&2; return 1; }
}
