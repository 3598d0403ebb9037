#!/bin/bash
# The project's one QEMU runner (used by make test, make bench, make vm-shell).
# Boots the built kernel with the host root shared read-only over 9p and a
# read-write output folder shared at the same path, runs one command as the
# guest's job and returns its exit status.  Keeps the console log, kills a
# guest that outlives the timeout (exit 124) and shows the console tail.
# After every boot it checks the kernel log from the host side
# (scripts/kernel-log-check.sh: splats, unasked sched_ext errors, a
# wrapped log), writes the result to kernel-log.tap and fails a job that
# passed if the log has a finding.
# Limits: x86_64 host and guest only; the guest sees the host's files as they
# are (read-only), so install software on the host.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}

usage() {
	cat <<USAGE
usage: vm/run-qemu.sh [options] [--] COMMAND [ARG...]
       vm/run-qemu.sh -s [options]            (interactive guest shell)
Boot the project kernel in QEMU and run COMMAND in the guest as root, in the
current directory (the host root is visible read-only at the same paths).
One argument is run as a shell command line; several are run as argv.
  -c N        vCPUs (default 2)
  -t N        SMT threads per core: 1 or 2 (default 1). With 2 the guest
              sees sibling pairs (cores = vCPUs / 2, Intel CPU model)
  -m MiB      guest memory (default 2048)
  -T SECONDS  hard timeout: kill the guest and exit 124 (default 600)
  -o DIR      output folder, read-write at the same path in the guest, where
              the job sees it as \$OUT (default build/vm/out)
  -k FILE     kernel image (default build/kbuild/arch/x86/boot/bzImage)
  -a ACCEL    auto, kvm or tcg (default auto: KVM if a probe boot works)
  -e VAR=VAL  export VAR in the job's environment (repeatable)
  -A ARGS     extra kernel command line arguments
  -P          pin vCPU i's host thread to host CPU i mod the host's CPUs
              (QEMU names its threads for it); written to DIR/pinning
  -q          do not stream the console to stdout (it is still logged)
  -x DIR      a test folder whose '# kernel-log-expect:' headers name
              kernel messages its tests provoke on purpose (repeatable)
  -s          interactive shell instead of a job (exit powers off)
  -h          this help
Files in the output folder: console.log, dmesg (raw, dmesg -r), status,
qemu-cmdline, timing, kernel-log.tap.
Exit status: the job's (1 if it was 0 but the kernel log has a splat or an
unasked sched_ext error), 124 on timeout, 125 if the guest died without one.
USAGE
}

cpus=2 threads=1 mem=2048 timeout=600 out=$BUILD/vm/out accel=auto
kernel=${KIMAGE:-$BUILD/kbuild/arch/x86/boot/bzImage}
quiet=0 shell=0 extra_append= envs=() pin=0 xdirs=()
while getopts "c:t:m:T:o:k:a:e:A:x:Pqsh" opt; do
	case $opt in
	c) cpus=$OPTARG ;;
	t) threads=$OPTARG ;;
	m) mem=$OPTARG ;;
	T) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	k) kernel=$OPTARG ;;
	a) accel=$OPTARG ;;
	e) envs+=("$OPTARG") ;;
	A) extra_append="$extra_append $OPTARG" ;;
	x) xdirs+=(-s "$OPTARG") ;;
	P) pin=1 ;;
	q) quiet=1 ;;
	s) shell=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
err() { echo "run-qemu: $*" >&2; exit 2; }
[ $shell = 1 ] || [ $# -ge 1 ] || { usage >&2; exit 2; }
[[ $cpus =~ ^[0-9]+$ && $cpus -ge 1 ]] || err "bad vCPU count '$cpus'"
[[ $threads = 1 || $threads = 2 ]] || err "threads must be 1 or 2"
[ $((cpus % threads)) = 0 ] || err "vCPUs ($cpus) must be a multiple of threads ($threads)"
[[ $timeout =~ ^[0-9]+$ ]] || err "bad timeout '$timeout'"
[ -f "$kernel" ] || err "no kernel at $kernel (run 'make kernel')"
command -v qemu-system-x86_64 >/dev/null || err "qemu-system-x86_64 missing (run 'make deps')"

initrd=$BUILD/vm/initramfs.cpio.gz
if [ ! -f "$initrd" ] || [ "$ROOT/vm/initramfs-init" -nt "$initrd" ] ||
	[ "$ROOT/vm/mkinitramfs.sh" -nt "$initrd" ]; then
	mkdir -p "$BUILD/vm"
	"$ROOT/vm/mkinitramfs.sh" "$initrd" || exit 2
fi
mkdir -p "$out" || err "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/console.log" "$out/dmesg" "$out/timing" "$out/job.sh" "$out/pinning" "$out/kernel-log.tap"

# The job: cd to the caller's directory, export -e variables, run COMMAND.
{
	echo "# written by vm/run-qemu.sh"
	printf 'cd %q || exit 125\n' "$PWD"
	for e in "${envs[@]}"; do printf 'export %q\n' "$e"; done
	if [ $# = 1 ]; then printf '%s\n' "$1"; else printf '%q ' "$@"; echo; fi
} >"$out/job.sh"

# KVM only where a probe boot really works (nested KVM may hang at boot).
kvm_works() {
	[ -w /dev/kvm ] || return 1
	local probe=$BUILD/vm/kvm-probe
	if [ ! -f "$probe" ]; then
		echo "run-qemu: probing KVM (one short boot)..." >&2
		if "$0" -a kvm -q -T 30 -c 1 -m 512 -k "$kernel" -o "$BUILD/vm/kvm-probe.d" true >/dev/null 2>&1
		then echo yes >"$probe"; else echo no >"$probe"; fi
	fi
	[ "$(cat "$probe")" = yes ]
}
case $accel in
auto) if kvm_works; then accel=kvm; else accel=tcg; fi ;;
kvm|tcg) ;;
*) err "accel must be auto, kvm or tcg" ;;
esac
if [ $accel = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	# An Intel model: AMD-family models hide SMT siblings from the guest.
	accel_args=(-accel tcg,thread=multi -cpu Skylake-Server)
fi

# a 16 MiB log does not wrap in a whole suite (the check would see it);
# every run-suite marker written to /dev/kmsg is kept (no rate limit)
append="console=ttyS0 panic=-1 loglevel=5 log_buf_len=16M printk.devkmsg=on"
append="$append vminit=$ROOT/vm/guest-init.sh vmout=$out vmroot=$ROOT vmcwd=$PWD vmshell=$shell$extra_append"
cmd=(qemu-system-x86_64 "${accel_args[@]}"
	-smp "cpus=$cpus,sockets=1,cores=$((cpus / threads)),threads=$threads"
	-m "$mem" -nodefaults -display none -vga none -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=vmout,path=$out,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=vmout,mount_tag=vmout)
# thread names "CPU N/TCG" (or /KVM) let -P find the vCPU threads
[ $pin = 0 ] || cmd+=(-name debug-threads=on)
if [ $shell = 1 ]; then
	cmd+=(-serial mon:stdio)
else
	cmd+=(-serial "file:$out/console.log")
fi
printf '%q ' "${cmd[@]}" >"$out/qemu-cmdline"
echo >>"$out/qemu-cmdline"

if [ $shell = 1 ]; then
	echo "run-qemu: interactive shell ($accel, $cpus vCPUs); 'exit' powers off, Ctrl-a x kills" >&2
	exec "${cmd[@]}"
fi

# check_log: the kernel log of the boot, from the host (see the header)
check_log() {
	"$ROOT/scripts/kernel-log-check.sh" "${xdirs[@]}" -d "$out/dmesg" \
		-n "$(basename "$out")" "$out/console.log" >"$out/kernel-log.tap" 2>&1
}

start=$(date +%s.%N)
"${cmd[@]}" </dev/null >"$out/qemu.stderr" 2>&1 &
qpid=$!
tailpid=
if [ $quiet = 0 ]; then
	touch "$out/console.log"
	tail -n +1 -f --pid=$qpid "$out/console.log" &
	tailpid=$!
fi
# pin_vcpus PID: once QEMU has started every vCPU thread (up to 20 s),
# pin vCPU i to host CPU i mod nproc; "vcpu I tid T host_cpu C" lines
pin_vcpus() {
	local t comm n i ncpu tids=()
	ncpu=$(nproc)
	for i in $(seq 100); do
		tids=()
		for t in /proc/"$1"/task/*; do
			read -r comm <"$t/comm" 2>/dev/null || continue
			[[ $comm =~ ^CPU\ ([0-9]+)/(TCG|KVM)$ ]] && tids[BASH_REMATCH[1]]=${t##*/}
		done
		[ ${#tids[@]} -ge "$cpus" ] && break
		sleep 0.2
	done
	n=${#tids[@]}
	[ "$n" -ge "$cpus" ] || { echo "run-qemu: -P: found $n of $cpus vCPU threads, not pinned" >&2; return 1; }
	for i in "${!tids[@]}"; do
		taskset -p -c $((i % ncpu)) "${tids[i]}" >/dev/null ||
			{ echo "run-qemu: -P: taskset of vCPU $i failed" >&2; return 1; }
		echo "vcpu $i tid ${tids[i]} host_cpu $((i % ncpu))"
	done
}
if [ $pin = 1 ] && ! pin_vcpus $qpid >"$out/pinning"; then
	kill $qpid 2>/dev/null; wait $qpid 2>/dev/null
	[ -n "$tailpid" ] && kill $tailpid 2>/dev/null
	exit 2
fi
deadline=$(( $(date +%s) + timeout ))
first_ok=
while kill -0 $qpid 2>/dev/null; do
	if [ -z "$first_ok" ] && grep -qE '^(not )?ok 1 ' "$out/console.log" 2>/dev/null; then
		first_ok=$(echo "$(date +%s.%N) - $start" | bc)
		printf 'boot_to_first_test_s=%.1f\naccel=%s\n' "$first_ok" "$accel" >"$out/timing"
	fi
	if [ "$(date +%s)" -ge $deadline ]; then
		kill $qpid 2>/dev/null; sleep 1; kill -9 $qpid 2>/dev/null
		wait $qpid 2>/dev/null
		[ -n "$tailpid" ] && kill $tailpid 2>/dev/null
		echo "run-qemu: TIMEOUT: guest killed after ${timeout}s; console tail:" >&2
		tail -n 25 "$out/console.log" | sed 's/^/  | /' >&2
		check_log || sed 's/^/run-qemu: /' "$out/kernel-log.tap" >&2
		exit 124
	fi
	sleep 0.2
done
wait $qpid
qrc=$?
[ -n "$tailpid" ] && { sleep 0.3; kill $tailpid 2>/dev/null; wait $tailpid 2>/dev/null; }
if [ ! -f "$out/status" ]; then
	echo "run-qemu: guest stopped without a job status (qemu exit $qrc); console tail:" >&2
	tail -n 25 "$out/console.log" | sed 's/^/  | /' >&2
	grep -v "TCG doesn't support requested feature" "$out/qemu.stderr" >&2
	check_log || sed 's/^/run-qemu: /' "$out/kernel-log.tap" >&2
	exit 125
fi
status=$(cat "$out/status")
if ! check_log; then
	sed 's/^/run-qemu: /' "$out/kernel-log.tap" >&2
	[ "$status" = 0 ] && status=1
fi
exit "$status"
