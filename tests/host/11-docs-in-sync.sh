#!/bin/bash
# tier: quick - docs/sched-ext.rst is the series' documentation, not an older copy (a second)
# docs/sched-ext.rst is what the applied series has in
# Documentation/scheduler/sched-ext.rst (make export-patches copies it), so
# the documentation read in the repository is the one the kernel carries.
set -u
. "$(dirname "$0")/../../scripts/common.sh"
src=$KSRC/Documentation/scheduler/sched-ext.rst
[ -r "$src" ] || { echo "$src missing: the kernel tree is not prepared (make kernel)"; exit 1; }
if ! cmp -s "$src" "$ROOT/docs/sched-ext.rst"; then
	echo "docs/sched-ext.rst differs from the series' $src:"
	diff -u "$ROOT/docs/sched-ext.rst" "$src" | head -n 20
	echo "run 'make export-patches' (it copies the file) and commit docs/"
	exit 1
fi
echo "docs/sched-ext.rst matches the series"
