#!/bin/bash
# Configure (when the fragments or the series changed) and build bzImage and
# vmlinux in $KOBJ with ccache.  Prints and records the wall time of the
# build in $KOBJ/build-times (one line per build: date, seconds, kind =
# cold, rebuild, or unchanged when nothing was relinked).
# usage: kernel-build.sh FRAGMENT...
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || die "usage: kernel-build.sh FRAGMENT..."
command -v ccache >/dev/null || die "ccache missing: run 'make deps'"
mkdir -p "$KOBJ" "$CCACHE_DIR"

cfg_id=$( (cat "$@"; series_hash) | sha1sum | cut -c1-12)
if [ ! -f "$KOBJ/.config" ] || [ "$(cat "$KOBJ/.config-id" 2>/dev/null)" != "$cfg_id" ]; then
	say CONFIG "tinyconfig + $(for f in "$@"; do basename "$f"; done | tr '\n' ' ')"
	"$(dirname "$0")/kernel-config.sh" "$@"
	echo "$cfg_id" >"$KOBJ/.config-id"
fi

kind=rebuild before=
[ -f "$KOBJ/vmlinux" ] && before=$(stat -c %Y "$KOBJ/vmlinux") || kind=cold
say KERNEL "building ($kind, -j$JOBS, ccache in $CCACHE_DIR)"
start=$(date +%s)
run_logged "$KOBJ/build.log" make -C "$KSRC" O="$KOBJ" -j"$JOBS" \
	CC="ccache gcc" HOSTCC="ccache gcc" bzImage
secs=$(( $(date +%s) - start ))
# A make that relinked nothing is not a rebuild: keep it out of the figures.
[ "$kind" = rebuild ] && [ "$(stat -c %Y "$KOBJ/vmlinux")" = "$before" ] && kind=unchanged
echo "$(date -u +%FT%TZ) $secs $kind" >>"$KOBJ/build-times"
say KERNEL "$kind build took ${secs}s ($(make -s -C "$KSRC" O="$KOBJ" kernelrelease))"
