#!/bin/bash
# `make soak-hotplug [N=40]` and `make soak-reload [N=300]`: one of the guest
# loops of tests/soak/ (NAME-loop.sh), N runs in one guest (4 vCPUs, 2 cores
# x 2 SMT threads), to catch rare hangs of the class's exit path around CPU
# hotplug:
#   hotplug  22-pair's hotplug and SysRq cases (about 45 s a run)
#   reload   scx_simple loaded and unloaded (SIGINT, SIGKILL, SysRq-S in
#            turn) while every CPU but 0 goes offline and online without
#            pause (a second or two a run)
# Prints one line per run and "N runs, F failed, H hung"; exits 1 on any
# failure or hang.  The console log, with a hung run's report, is in
# build/soak-NAME/.
# Limits: not part of make test; needs the kernel and the schedulers built
# (make kernel bpf).
set -uo pipefail
. "$(dirname "$0")/common.sh"

usage() {
	echo "usage: $0 [-n N] [-l SECONDS] hotplug|reload"
	echo "  N runs (default 40 for hotplug, 300 for reload), each bounded to"
	echo "  SECONDS (default 120 for hotplug, 20 for reload)"
}
n= lim=
while getopts "n:l:h" o; do
	case $o in
	n) n=$OPTARG ;;
	l) lim=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { usage >&2; exit 2; }
name=$1
case $name in
hotplug) : "${n:=40}" "${lim:=120}" ;;
reload) : "${n:=300}" "${lim:=20}" ;;
*) usage >&2; exit 2 ;;
esac
case $n$lim in *[!0-9]*) die "-n and -l take positive numbers" ;; esac
[ "$n" -gt 0 ] && [ "$lim" -gt 0 ] || die "-n and -l take positive numbers"
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
[ -f "$KIMAGE" ] || die "no kernel image $KIMAGE: run 'make kernel'"
# the hotplug soak runs pair, the reload soak scx_simple
case $name in
hotplug) [ -x "$BUILD/pair/pair" ] || die "$BUILD/pair/pair not built: run 'make bpf'" ;;
reload) [ -x "$BUILD/scx/scx_simple" ] || die "$BUILD/scx/scx_simple not built: run 'make bpf'" ;;
esac

out=$BUILD/soak-$name
rm -rf "$out"; mkdir -p "$out"
say QEMU "soak $name x $n (at most ${lim}s each)"
vm/run-qemu.sh -k "$KIMAGE" -c 4 -t 2 -m 2048 -T $((n * lim + 120)) -o "$out" -q \
	-e SMT_THREADS=2 -e "N=$n" -e "LIM=$lim" -e "SCX_BUILD=$BUILD/scx" \
	-e "TOOLS_BUILD=$BUILD/tools" -- bash "tests/soak/$name-loop.sh" >/dev/null
vmrc=$?
grep -a '^run [0-9]' "$out/console.log"
runs=$(grep -ac '^run [0-9]* rc=' "$out/console.log")
failed=$(grep -a '^run [0-9]* rc=' "$out/console.log" | grep -vc ' rc=0 ')
hung=$(grep -ac '^run [0-9]* HUNG' "$out/console.log")
echo "$runs runs, $failed failed, $hung hung (guest exit $vmrc; console: $out/console.log)"
[ "$vmrc" = 0 ] && [ "$failed" = 0 ] && [ "$hung" = 0 ] && [ "$runs" = "$n" ]
