#!/bin/bash
# tier: quick - flatcg's command line and make install; the guest tests use neither path (seconds)
# 40-flatcg-cli.sh - host test of the flatcg loader's command line and of
# `make install`: -h prints the usage and exits 0; bad options exit 2 with
# a message naming the option; without root, or on a kernel without
# sched_ext (this host's), it refuses with exit 1 and says why; make install
# honours DESTDIR and PREFIX and the unit it installs passes
# `systemd-analyze verify`. The scheduling itself is tested in the guest.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=build/flatcg/flatcg
[ -x $B ] || { echo "$B not built"; exit 1; }
. tests/host/cli-lib.sh

expect 0 '^Usage: flatcg .*-s SLICE_US' $B -h
expect 2 'Usage' $B -x
expect 2 '-s 5: the slice must be 100..1000000 us' $B -s 5
expect 2 '-b 10000001: the budget must be 0..10000000 us' $B -b 10000001
expect 2 '-b x: the budget must be' $B -b x
expect 2 '-i -1: the interval must be' $B -i -1
expect 2 '-C 3: the capacity must be' $B -C 3
expect 2 "unexpected argument 'extra'" $B extra
expect_refusals "$B"

check_destdir install flatcg
# a PREFIX install is complete on its own, so the unit can be verified
make -s install PREFIX="$tmp/usr" >"$tmp/log" 2>&1 || bad "make install PREFIX: $(cat "$tmp/log")"
verify_unit "$tmp/usr/lib/systemd/system/flatcg.service"
[ $fail = 0 ] && echo "flatcg command line and install: ok"
exit $fail
