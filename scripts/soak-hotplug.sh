#!/bin/bash
# `make soak-hotplug [N=40]`: CPU hotplug under a BPF scheduler, over and
# over in one guest (4 vCPUs, 2 cores x 2 SMT threads): 22-pair's hotplug
# and SysRq cases N times (tests/soak/hotplug-loop.sh).  Made to catch
# rare hangs of the class's exit path around CPU hotplug (one in about 20
# runs before patch 0070; none in 50 after).  Prints one line per run and
# "N runs, F failed, H hung"; exits 1 on any failure or hang.  The
# console log with a hung run's report is in build/soak-hotplug/.
# Limits: about 45 s a run under TCG; not part of make test; needs the
# kernel and pair built (make kernel bpf).
set -uo pipefail
. "$(dirname "$0")/common.sh"

usage() { echo "usage: $0 [-n N] [-l SECONDS]   (N runs, default 40; each at most SECONDS, default 120)"; }
n=40 lim=120
while getopts "n:l:h" o; do
	case $o in
	n) n=$OPTARG ;;
	l) lim=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
case $n$lim in *[!0-9]*) die "-n and -l take positive numbers" ;; esac
[ "$n" -gt 0 ] && [ "$lim" -gt 0 ] || die "-n and -l take positive numbers"
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
[ -f "$KIMAGE" ] || die "no kernel image $KIMAGE: run 'make kernel'"
[ -x "$BUILD/pair/pair" ] || die "$BUILD/pair/pair not built: run 'make bpf'"

out=$BUILD/soak-hotplug
rm -rf "$out"; mkdir -p "$out"
say QEMU "pair hotplug + SysRq x $n (at most ${lim}s each)"
vm/run-qemu.sh -k "$KIMAGE" -c 4 -t 2 -m 2048 -T $((n * lim + 120)) -o "$out" -q \
	-e SMT_THREADS=2 -e "N=$n" -e "LIM=$lim" -e "SCX_BUILD=$BUILD/scx" \
	-e "TOOLS_BUILD=$BUILD/tools" -- bash tests/soak/hotplug-loop.sh >/dev/null
vmrc=$?
grep -a '^run [0-9]' "$out/console.log"
runs=$(grep -ac '^run [0-9]* rc=' "$out/console.log")
failed=$(grep -a '^run [0-9]* rc=' "$out/console.log" | grep -vc ' rc=0 ')
hung=$(grep -ac '^run [0-9]* HUNG' "$out/console.log")
echo "$runs runs, $failed failed, $hung hung (guest exit $vmrc; console: $out/console.log)"
[ "$vmrc" = 0 ] && [ "$failed" = 0 ] && [ "$hung" = 0 ] && [ "$runs" = "$n" ]
