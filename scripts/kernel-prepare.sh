#!/bin/bash
# Unpack Debian's linux-source-6.1 into build/linux, commit it as a git
# baseline (tag "baseline") and apply kernel-patches/series with git am.
# Re-applies only when the series changed.  Refuses to throw away commits
# made by hand in build/linux that were not exported (make export-patches).
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -r "$KTARBALL" ] || die "$KTARBALL missing: run 'make deps' (package linux-source-6.1)"
mkdir -p "$BUILD"
hash=$(series_hash)
git_k() { git -C "$KSRC" -c user.name=scx-build -c user.email=scx-build@localhost "$@"; }

if [ ! -d "$KSRC/.git" ]; then
	say UNPACK "$KTARBALL"
	rm -rf "$KSRC" "$BUILD/linux.tmp"
	mkdir -p "$BUILD/linux.tmp"
	tar -C "$BUILD/linux.tmp" -xf "$KTARBALL" --strip-components=1
	mv "$BUILD/linux.tmp" "$KSRC"
	git_k init -q
	git_k add -A -f
	git_k commit -q -m "baseline: $(basename "$KTARBALL") ($(make -s -C "$KSRC" kernelversion))"
	git_k tag baseline
fi

applied=$KSRC/.git/scx-applied        # "<series hash> <HEAD after am>"
if [ -f "$applied" ]; then
	read -r old_hash old_head <"$applied"
	head=$(git_k rev-parse HEAD)
	[ "$old_hash" = "$hash" ] && [ "$old_head" = "$head" ] && exit 0
	if [ "$old_head" != "$head" ]; then
		die "build/linux has commits not in kernel-patches/ (HEAD $head).
  Run 'make export-patches' to keep them, or 'git -C build/linux reset --hard $old_head' to drop them."
	fi
fi
[ -z "$(git_k status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes; commit and 'make export-patches', or discard them"

say PATCH "applying kernel-patches/series ($hash)"
git_k am --abort >/dev/null 2>&1 || true
git_k reset -q --hard baseline
for p in $(series_patches); do
	[ -f "$PATCHDIR/$p" ] || die "series names $p, which is not in kernel-patches/"
	git_k am -q --keep-cr "$PATCHDIR/$p" || { git_k am --abort; die "patch $p does not apply"; }
done
echo "$hash $(git_k rev-parse HEAD)" >"$applied"
