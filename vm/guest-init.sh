#!/bin/sh
# PID 1 of the guest after switch_root (the host's root, read-only over 9p).
# Sets up the writable and virtual filesystems, mounts the read-write output
# share at the host path named by vmout=, then either runs $vmout/job.sh
# (status to $vmout/status, the raw kernel log to $vmout/dmesg) or an interactive shell
# (vmshell=1), and powers the guest off.  Must never exit: PID 1 exiting
# panics the kernel, so it sleeps after requesting power-off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8

# After SysRq-O nothing may fork: the 9p root goes away (exec fails with
# EIO, a sleep loop would spin forking) and the other CPUs stop, so a fork
# that wakes its child on one warns "Unexpected reschedule of offline CPU".
# PID 1 waits in open() of a fifo nobody writes, a builtin-only wait.
poweroff_now() {
	sync
	[ -p /run/never ] || mkfifo /run/never 2>/dev/null
	echo o >/proc/sysrq-trigger
	while :; do
		if [ -p /run/never ]; then read -r _ </run/never; else sleep 60; fi
	done
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# devtmpfs has no /dev/fd; bash process substitution needs it.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
vmout= vmshell=0 vmcwd=/ vmroot=
for arg in $(cat /proc/cmdline); do
	case $arg in
	vmout=*) vmout=${arg#vmout=} ;;
	vmshell=*) vmshell=${arg#vmshell=} ;;
	vmcwd=*) vmcwd=${arg#vmcwd=} ;;
	vmroot=*) vmroot=${arg#vmroot=} ;;
	esac
done

mount -t tmpfs -o mode=755 tmpfs /run
mkfifo /run/never	# poweroff_now's wait
# /tmp becomes a tmpfs; a repository checked out below the host's /tmp
# stays visible by binding it back from the host copy.
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
for d in /tmp /var/tmp /var/log /var/lib/apache2 /var/cache/apache2; do
	[ -d "$d" ] && mount -t tmpfs -o mode=1777 tmpfs "$d"
done
for p in "$vmroot" "$vmcwd"; do
	case $p in
	/tmp/?*)
		mountpoint -q "$p" && continue
		mkdir -p "$p" && mount --bind "/run/host-tmp/${p#/tmp/}" "$p" ;;
	esac
done
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
echo 1 >/proc/sys/kernel/sysrq

# The output folder may live under a path that is now a tmpfs (/tmp...).
[ -n "$vmout" ] && mkdir -p "$vmout" 2>/dev/null
if [ -z "$vmout" ] || ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 vmout "$vmout"; then
	echo "guest-init: cannot mount the output share at '$vmout'" >/dev/console
	poweroff_now
fi
export OUT=$vmout
hostname scx-guest 2>/dev/null
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
cd "$vmcwd" 2>/dev/null || cd /

if [ "$vmshell" = 1 ]; then
	echo "guest shell: host root read-only, \$OUT=$OUT read-write; 'exit' powers off"
	setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
else
	/bin/bash "$OUT/job.sh" </dev/null >/dev/ttyS0 2>&1
	echo $? >"$OUT/status.tmp"
	# raw: the host-side check needs each line's level
	dmesg -r >"$OUT/dmesg" 2>/dev/null
	mv "$OUT/status.tmp" "$OUT/status"
fi
poweroff_now
