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

# check-patches builds early patches of the series, which predate symbols a
# fragment names (CONFIG_SCHED_CLASS_EXT): with KCONFIG_SKIP_UNDEFINED=1 an
# option that no Kconfig file of this tree defines is skipped, not an error.
defined=
if [ "${KCONFIG_SKIP_UNDEFINED:-0}" = 1 ]; then
	defined=$(grep -rhoE --include='Kconfig*' '^[[:space:]]*(menu)?config [A-Z0-9_]+' "$KSRC" |
		awk '{ print "CONFIG_" $2 }' | sort -u)
fi

bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
		'# CONFIG_'*' is not set') opt=${line#\# }; opt=${opt%% *}; want=n ;;
		*) continue ;;
		esac
		if [ -n "$defined" ] && ! grep -qx "$opt" <<<"$defined"; then
			echo "config: $opt is not defined in this tree yet: skipped" >&2
			continue
		fi
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
