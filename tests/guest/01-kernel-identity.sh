#!/bin/sh
# tier: quick - a base fact every later guest test needs, checked on its own so its failure names it (seconds)
# The running kernel is the one built from the series: /proc/version equals
# the banner of the built vmlinux (passed by the host as EXPECT_BANNER) and
# the release carries the project's -scx suffix.
[ -n "${EXPECT_BANNER:-}" ] || { echo "EXPECT_BANNER not set by the host"; exit 1; }
got=$(cat /proc/version)
echo "running:  $got"
echo "expected: $EXPECT_BANNER"
[ "$got" = "$EXPECT_BANNER" ] || exit 1
case $(uname -r) in *-scx|*-scx+) ;; *) echo "release $(uname -r) lacks -scx"; exit 1 ;; esac
