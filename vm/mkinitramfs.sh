#!/bin/bash
# Build the tiny initramfs used by vm/run-qemu.sh: busybox-static and
# vm/initramfs-init.  Its only job is to mount the host root (9p, read-only)
# and switch_root into vm/guest-init.sh; 6.1 cannot boot from a 9p root.
# usage: mkinitramfs.sh OUTPUT.cpio.gz
set -euo pipefail
out=${1:?usage: mkinitramfs.sh OUTPUT.cpio.gz}
bb=/bin/busybox
[ -x "$bb" ] && "$bb" --list >/dev/null 2>&1 || { echo "error: $bb missing (apt-get install busybox-static)" >&2; exit 1; }
# ldd fails on a static binary; the initramfs has no shared libraries.
if ldd "$bb" >/dev/null 2>&1; then
	echo "error: $bb is not statically linked (apt-get install busybox-static)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot}
cp "$bb" "$tmp/bin/busybox"
install -m 755 "$(dirname "$0")/initramfs-init" "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -9 >"$out.tmp"
mv "$out.tmp" "$out"
