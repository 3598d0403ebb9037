#!/bin/bash
# Turn the commits of build/linux since the baseline tag back into
# kernel-patches/: numbered git format-patch files plus the series file.
# Stale numbered patches are removed first.  Kconfig fragments are untouched.
# The class's documentation is copied to docs/sched-ext.rst, so that it can
# be read without building (tests/host/11-docs-in-sync.sh checks the copy).
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ -d "$KSRC/.git" ] || die "no build/linux tree: run 'make kernel' first"
[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"
rm -f "$PATCHDIR"/[0-9][0-9][0-9][0-9]-*.patch
git -C "$KSRC" format-patch -q --no-signature --zero-commit -N \
	-o "$PATCHDIR" baseline..HEAD
{
	sed -n '/^#/p' "$PATCHDIR/series"
	(cd "$PATCHDIR" && ls [0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
} >"$PATCHDIR/series.new"
mv "$PATCHDIR/series.new" "$PATCHDIR/series"
echo "$(series_hash) $(git -C "$KSRC" rev-parse HEAD)" >"$KSRC/.git/scx-applied"
mkdir -p "$ROOT/docs"
cp "$KSRC/Documentation/scheduler/sched-ext.rst" "$ROOT/docs/sched-ext.rst"
say EXPORT "$(series_patches | wc -l) patches in kernel-patches/"
