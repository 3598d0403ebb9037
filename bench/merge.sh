#!/bin/bash
# merge.sh - add the rounds of one results folder to another: the boot in
# SRC (bench/run.sh, another sitting or machine) joins DIR as `run.sh -a
# DIR` would have added it, and DIR's report is made again; SRC is left as
# it was.  Refused, with the reason, unless SRC holds one boot (no append_
# lines), its scenario file is DIR's but for the rounds line, and its
# meta.txt passes run.sh -a's checks (bench/lib/append.sh: kernel config,
# series, schedulers, mode, vCPUs, memory, pinning; guest kernel).
# Limits: a folder that is itself a merge cannot be added (merge its boots
# one by one from their own folders).
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH")
STATS=${STATS:-${BUILD:-$ROOT/build}/bench/stats}
export STATS
. "$BENCH/lib/append.sh"

usage() {
	cat <<USAGE
usage: bench/merge.sh DIR SRC
Add the rounds of results folder SRC (one boot of the same scenario,
kernel, schedulers and guest) to results folder DIR, renumbered after
DIR's, and remake DIR's report.  SRC is not changed.
  -h   this help
STATS names bench/stats (default: build/bench/stats).
USAGE
}
die() { echo "merge: $*" >&2; exit 1; }

[ "${1-}" = -h ] && { usage; exit 0; }
[ $# = 2 ] || { usage >&2; exit 2; }
dir=${1%/} src=${2%/}
for f in "$dir" "$src"; do
	[ -f "$f/meta.txt" ] && [ -f "$f/raw.csv" ] && [ -f "$f/scenario.scn" ] ||
		die "$f is not a results folder (meta.txt, raw.csv, scenario.scn)"
done
[ "$(cd "$dir" 2>/dev/null && pwd)" != "$(cd "$src" && pwd)" ] || die "DIR and SRC are one folder"
! grep -q '^append_[0-9]*=' "$src/meta.txt" ||
	die "$src holds several boots (append_ lines); merge them from their own folders"
cmp -s <(grep -v '^rounds ' "$dir/scenario.scn") <(grep -v '^rounds ' "$src/scenario.scn") ||
	die "$src ran another scenario file than $dir (diff their scenario.scn)"
[ -x "$STATS" ] || die "$STATS missing: build it with 'make bench-stats'"
mapfile -t keys < <(append_identity "$src/meta.txt")
append_compat "$dir" "${keys[@]}" || die "$src is not the same experiment as $dir (above); nothing merged"
append_merge "$dir" "$src" || die "nothing merged"
"$BENCH/report.sh" "$dir" || die "rounds merged, but the report of $dir failed"
echo "merge: $src -> $dir ($(append_meta "$dir/meta.txt" rounds) rounds)"
