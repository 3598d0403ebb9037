#!/bin/bash
# Generate $KOBJ/.config: tinyconfig + the fragments given as arguments,
# then olddefconfig, then check that every option a fragment asks for is
# set exactly as asked.  Kconfig drops options with unmet dependencies
# silently; this step turns that into an error naming the options.
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || die "usage: kernel-config.sh FRAGMENT..."
mkdir -p "$KOBJ"
log=$KOBJ/config.log
run_logged "$log" make -C "$KSRC" O="$KOBJ" tinyconfig
run_logged "$log.merge" "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" "$@"
run_logged "$log.old" make -C "$KSRC" O="$KOBJ" olddefconfig

bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
		'# CONFIG_'*' is not set') opt=${line#\# }; opt=${opt%% *}; want=n ;;
		*) continue ;;
		esac
		got=$(grep -E "^$opt=|^# $opt is not set" "$KOBJ/.config" || true)
		case $got in
		"$opt="*) got=${got#*=} ;;
		*) got=n ;;
		esac
		if [ "$got" != "$want" ]; then
			echo "config: $opt=$want requested by $(basename "$frag") but the result has $opt=$got" >&2
			bad=1
		fi
	done <"$frag"
done
[ $bad = 0 ] || die "kernel config does not match the fragments (unmet Kconfig dependencies?)"
