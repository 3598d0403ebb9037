#!/bin/bash
# tier: quick - a second make test must not rebuild the kernel (seconds)
# After a build, the kernel stamp is up to date: a second `make test` does
# not rebuild the kernel (make -q reports nothing to do).
set -u
. "$(dirname "$0")/../../scripts/common.sh"
make -C "$ROOT" -q "$KOBJ/.stamp-built"
