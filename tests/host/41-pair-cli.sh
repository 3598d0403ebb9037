#!/bin/bash
# tier: quick - pair's command line and make install; the guest tests use neither path (seconds)
# 41-pair-cli.sh - host test of the pair loader's command line and of
# `make install`: -h prints the usage and exits 0; bad options exit 2 with
# a message naming the option; without root, or on a kernel without
# sched_ext (this host's), it refuses with exit 1 and says why; make install
# puts pair, its unit and README under DESTDIR/PREFIX and the unit passes
# `systemd-analyze verify`. The scheduling itself is tested in the guest
# (tests/guest/22-pair.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=build/pair/pair
[ -x $B ] || { echo "$B not built"; exit 1; }
. tests/host/cli-lib.sh

expect 0 '^Usage: pair .*-b BATCH_US' $B -h
expect 2 'Usage' $B -x
expect 2 '-b 5: the batch must be 1000..1000000 us' $B -b 5
expect 2 '-s 50: the slice must be 100..1000000 us' $B -s 50
expect 2 '-s 30000: the slice must not be longer than the batch' $B -b 20000 -s 30000
expect 2 '-i x: the interval must be' $B -i x
expect 2 '-C 99999: the number of cgroups must be 16..16384' $B -C 99999
expect 2 "unexpected argument 'extra'" $B extra
expect_refusals "$B"

check_destdir install-pair pair
# make install installs both schedulers
make -s install PREFIX="$tmp/usr" >"$tmp/log" 2>&1 || bad "make install PREFIX: $(cat "$tmp/log")"
for f in sbin/pair sbin/flatcg; do
	[ -f "$tmp/usr/$f" ] || bad "make install: no $f"
done
verify_unit "$tmp/usr/lib/systemd/system/pair.service"
[ $fail = 0 ] && echo "pair command line and install: ok"
exit $fail
