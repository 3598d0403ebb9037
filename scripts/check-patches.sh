#!/bin/bash
# `make check-patches`: every patch in kernel-patches/series must pass
# checkpatch --strict without errors, and the tree must build after each
# patch (bisectability).  The per-patch builds use a separate worktree
# (build/linux-bisect) and object folder (build/kbuild-bisect) so the main
# tree is untouched.  Slow (one incremental kernel build per patch): not
# part of make test.
# usage: check-patches.sh [-n] FRAGMENT...   (-n: checkpatch only)
set -uo pipefail
. "$(dirname "$0")/common.sh"
build=1
[ "${1:-}" = -n ] && { build=0; shift; }
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make kernel' first"
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || { echo "series is empty: nothing to check"; exit 0; }

errors=0
for p in "${patches[@]}"; do
	out=$("$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG "$PATCHDIR/$p" 2>&1)
	e=$(grep -c ': ERROR:' <<<"$out"); w=$(grep -c ': WARNING:\|: CHECK:' <<<"$out")
	printf '  %-60s %d errors, %d warnings/checks\n' "$p" "$e" "$w"
	[ "$e" = 0 ] || { grep ': ERROR:' <<<"$out" | sed 's/^/    /'; errors=$((errors + e)); }
done
[ $errors = 0 ] || die "checkpatch: $errors errors"
[ $build = 1 ] || exit 0

wt=$BUILD/linux-bisect
KOBJ=$BUILD/kbuild-bisect
git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null
git -C "$KSRC" worktree add -q --detach "$wt" baseline || die "cannot create $wt"
trap 'git -C "$KSRC" worktree remove --force "$wt"' EXIT
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	git -C "$wt" -c user.name=scx-build -c user.email=scx-build@localhost am -q "$PATCHDIR/$p" ||
		die "$p does not apply"
	say BUILD "[$i/${#patches[@]}] $p"
	KSRC=$wt KOBJ=$KOBJ "$ROOT/scripts/kernel-build.sh" "$@" || die "build fails after $p"
done
echo "all ${#patches[@]} patches pass checkpatch and build one by one"
