#!/bin/bash
# `make check-patches`: every patch in kernel-patches/series must pass
# checkpatch --strict without errors, and the tree must build after each
# patch (bisectability).  The per-patch builds use a separate worktree
# (build/bisect/linux) and object folder (build/bisect/kbuild) so the main
# tree is untouched; both sit one level down so that the paths ccache sees
# (relative to the object folder) match those of build/linux and
# build/kbuild, and unchanged files come from the cache.  Slow (one incremental kernel build per patch): not
# part of make test.  The config is made anew for every patch, so a patch
# that adds a Kconfig symbol is built with it as the fragments ask.
# usage: check-patches.sh [-n] FRAGMENT...   (-n: checkpatch only)
# CHECK_FROM=N (make check-patches FROM=N) builds only from patch N on: the
# earlier patches are applied and the tree of patch N-1 is built as the
# base, for a series whose first N-1 patches were checked before.
set -uo pipefail
. "$(dirname "$0")/common.sh"
build=1
from=${CHECK_FROM:-1}
case $from in '' | *[!0-9]*) die "CHECK_FROM must be a patch number, not '$from'" ;; esac
[ "${1:-}" = -n ] && { build=0; shift; }
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make kernel' first"
mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || { echo "series is empty: nothing to check"; exit 0; }

errors=0
for p in "${patches[@]}"; do
	ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
	# BPF C headers declare programs with macros like
	# `SEC("struct_ops/" #name) BPF_PROG(name, ...)`, which cannot be put
	# in parentheses: in patches that touch only tools/, COMPLEX_MACRO is
	# not an error.
	if ! grep -E '^diff --git a/' "$PATCHDIR/$p" | grep -qv ' a/tools/'; then
		ignore=$ignore,COMPLEX_MACRO
	fi
	out=$("$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--ignore "$ignore" "$PATCHDIR/$p" 2>&1)
	e=$(grep -c ': ERROR:' <<<"$out"); w=$(grep -c ': WARNING:\|: CHECK:' <<<"$out")
	printf '  %-60s %d errors, %d warnings/checks\n' "$p" "$e" "$w"
	[ "$e" = 0 ] || { grep ': ERROR:' <<<"$out" | sed 's/^/    /'; errors=$((errors + e)); }
done
[ $errors = 0 ] || die "checkpatch: $errors errors"
[ $build = 1 ] || exit 0

wt=$BUILD/bisect/linux
KOBJ=$BUILD/bisect/kbuild
mkdir -p "$BUILD/bisect"
git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null
git -C "$KSRC" worktree add -q --detach "$wt" baseline || die "cannot create $wt"
trap 'git -C "$KSRC" worktree remove --force "$wt"' EXIT
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	git -C "$wt" -c user.name=scx-build -c user.email=scx-build@localhost am -q "$PATCHDIR/$p" ||
		die "$p does not apply"
	[ $i -lt $((from - 1)) ] && continue
	say BUILD "[$i/${#patches[@]}] $p"
	# a patch may add Kconfig symbols the fragments ask for: configure anew
	rm -f "$KOBJ/.config-id"
	KCONFIG_SKIP_UNDEFINED=1 KSRC=$wt KOBJ=$KOBJ "$ROOT/scripts/kernel-build.sh" "$@" ||
		die "build fails after $p"
done
if [ "$from" -gt 1 ]; then
	echo "all ${#patches[@]} patches pass checkpatch; patches $from-${#patches[@]} build one by one"
else
	echo "all ${#patches[@]} patches pass checkpatch and build one by one"
fi
