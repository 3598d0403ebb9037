#!/bin/bash
# `make selftest-repeat T="NAME..." [N=20]`: run sched_ext selftests over
# and over in one guest (4 vCPUs, 2 cores x 2 SMT threads, as make test) to
# see how often each fails before trusting it in `make test`.  Prints one
# line per test, "NAME: P passed, F failed of N", keeps every run's output
# in build/selftest-repeat/vm/NAME.I.log and exits 1 if any run failed.
# Limits: needs the kernel and build/scx built (make kernel scx); the runs
# follow one another in one boot, so a test that breaks the guest's state
# affects the runs after it; the guest timeout is 60 s per run plus 120 s.
set -uo pipefail
. "$(dirname "$0")/common.sh"

usage() {
	echo "usage: $0 [-n N] NAME..."
	echo "  runs build/scx/selftests/runner -t NAME N times (default 20) per test"
	echo "  in one QEMU guest; KIMAGE picks another kernel image, SCX_BUILD another"
	echo "  build of the selftests (default build/scx)"
}

n=20
while getopts "n:h" o; do
	case $o in
	n) n=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { usage >&2; exit 2; }
case $n in '' | *[!0-9]* | 0) die "-n takes a positive number, not '$n'" ;; esac

runner=${SCX_BUILD:-$BUILD/scx}/selftests/runner
KIMAGE=${KIMAGE:-$KOBJ/arch/x86/boot/bzImage}
[ -x "$runner" ] || die "$runner not built: run 'make scx'"
[ -f "$KIMAGE" ] || die "no kernel image $KIMAGE: run 'make kernel'"
known=$("$runner" -l 2>/dev/null)
for t in "$@"; do
	awk -v t="$t" '$1 == t { f = 1 } END { exit !f }' <<<"$known" ||
		die "no selftest '$t' (see $runner -l)"
done

out=$BUILD/selftest-repeat
rm -rf "$out"; mkdir -p "$out"
timeout=$((60 * n * $# + 120))
say QEMU "$* x $n (timeout ${timeout}s)"
# each run: NAME I EXIT to $OUT/results, its output to $OUT/NAME.I.log
vm/run-qemu.sh -k "$KIMAGE" -c 4 -t 2 -m 2048 -T $timeout -o "$out/vm" -q \
	"for t in $*; do for i in \$(seq $n); do
		timeout 60 $runner -t \$t >\"\$OUT/\$t.\$i.log\" 2>&1
		echo \"\$t \$i \$?\" >>\"\$OUT/results\"
	done; done" >/dev/null
vmrc=$?

bad=0
for t in "$@"; do
	pass=$(awk -v t="$t" '$1 == t && $3 == 0' "$out/vm/results" 2>/dev/null | wc -l)
	fail=$(awk -v t="$t" '$1 == t && $3 != 0' "$out/vm/results" 2>/dev/null | wc -l)
	echo "$t: $pass passed, $fail failed of $n"
	[ "$pass" = "$n" ] || bad=1
	for f in $(awk -v t="$t" '$1 == t && $3 != 0 { print $2 }' "$out/vm/results" 2>/dev/null); do
		echo "  run $f: $(grep -m1 'ERR:' "$out/vm/$t.$f.log" 2>/dev/null || echo "exit without ERR line, see $out/vm/$t.$f.log")"
	done
done
[ $vmrc = 0 ] || { echo "guest exit $vmrc (see $out/vm/console.log)"; bad=1; }
exit $bad
