#!/bin/bash
# tier: quick - the config trap that drops BPF_JIT silently; nothing else checks the config step refuses it (seconds)
# The config step refuses a fragment whose options Kconfig drops: in 6.1
# BPF_JIT depends on MODULES, so asking for BPF_JIT=y with MODULES=n must
# fail and name BPF_JIT (the trap that silently removes struct_ops).
# timeout: 120
set -u
. "$(dirname "$0")/../../scripts/common.sh"
tmp=$BUILD/test/kconfig-check
rm -rf "$tmp"; mkdir -p "$tmp"
printf 'CONFIG_BPF=y\nCONFIG_BPF_SYSCALL=y\n# CONFIG_MODULES is not set\nCONFIG_BPF_JIT=y\n' >"$tmp/frag.config"
KOBJ=$tmp/obj "$ROOT/scripts/kernel-config.sh" "$tmp/frag.config" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
rm -rf "$tmp/obj"
[ $rc != 0 ] || { echo "config step accepted a dropped option"; exit 1; }
grep -q 'CONFIG_BPF_JIT=y requested by frag.config but the result has CONFIG_BPF_JIT=n' "$tmp/out"
