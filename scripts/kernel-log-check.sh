#!/bin/bash
# kernel-log-check.sh - after a guest boot, from the host: the boot's kernel
# log holds no splat (tests/guest/splats.sh: WARN, BUG, Oops, lockdep, RCU
# stall, hung task, soft lockup, KASAN, panic, lost console lines) and no
# sched_ext warning or error exit that the test running at the time did
# not declare with `# kernel-log-expect: REGEX` in its header.  Each
# finding names the test that was running: tests/run-suite.sh marks the
# kernel log with `run-suite: begin NAME` as each test and case starts.
# Reads the whole console log (QEMU's serial file: every kernel line of
# level warning and above, up to the moment the guest died, if it did) and
# the guest's raw kernel log at power-off (`dmesg -r`, levels kept), which
# must begin with the boot banner: a ring buffer that wrapped lost lines.
# Prints one TAP result for the boot; exit 1 on a finding.
# Limits: console lines of level notice and below are not on the console,
# so a guest that died early is checked on what it printed at warning and
# above; a splat printed by user space (a test quoting the log) is not
# taken for one, as only lines with a kernel timestamp count.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
usage() {
	cat <<USAGE
usage: kernel-log-check.sh [-s SUITE_DIR]... [-d DMESG] [-n NAME] CONSOLE_LOG
  -s DIR   a test folder whose headers declare expected kernel messages
  -d FILE  the guest's raw kernel log at power-off (dmesg -r)
  -n NAME  the boot's name in the result line (default: the log's folder)
  -h       this help
USAGE
}
suites=() dmesg= name=
while getopts "s:d:n:h" opt; do
	case $opt in
	s) suites+=("$OPTARG") ;;
	d) dmesg=$OPTARG ;;
	n) name=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { usage >&2; exit 2; }
console=$1
name=${name:-$(basename "$(dirname "$console")")}
[ -r "$console" ] || { echo "not ok - kernel log of $name: no console log $console"; exit 1; }
. "$HERE/../tests/guest/splats.sh"

# SCRIPT<TAB>REGEX lines: what each test declared it provokes
expect=$(for d in "${suites[@]}"; do
	for t in "$d"/[0-9]*.sh; do
		[ -f "$t" ] || continue
		sed -n "s/^# kernel-log-expect: *//p" "$t" |
			while IFS= read -r re; do printf '%s\t%s\n' "$(basename "$t" .sh)" "$re"; done
	done
done)

# scan FILE [raw]: "TEST<TAB>LINE" for each finding; the kernel
# lines of a raw log are those of level 0-4, as on the console
scan() {
	EXPECT=$expect SPLAT=$KERNEL_SPLATS SCX=$SCX_MESSAGES awk -v raw="${2:-}" '
	BEGIN {
		# from the environment: awk -v would eat the backslashes of a regex
		splat = ENVIRON["SPLAT"]; scx = ENVIRON["SCX"]
		n = split(ENVIRON["EXPECT"], e, "\n")
		for (i = 1; i <= n; i++) {
			if (e[i] == "") continue
			t = index(e[i], "\t")
			ns++; es[ns] = substr(e[i], 1, t - 1); er[ns] = substr(e[i], t + 1)
		}
		cur = "(boot)"
	}
	{
		line = $0
		sub(/\r$/, "", line)
		if (raw != "") {
			if (!match(line, /^<[0-9]+>/)) next
			lvl = substr(line, 2, RLENGTH - 2) % 8
			line = substr(line, RLENGTH + 1)
			if (lvl > 4 && line !~ /run-suite: begin /) next
		}
		# kernel lines only: a printk timestamp, not at a TAP comment
		p = match(line, /\[ *[0-9]+\.[0-9]+\] /)
		if (!p || substr(line, 1, 1) == "#") next
		msg = substr(line, p + RLENGTH)
		if (match(msg, /^run-suite: begin /)) { cur = substr(msg, RLENGTH + 1); next }
		if (msg ~ splat) { print cur "\t" msg; next }
		if (msg ~ scx) {
			script = cur; sub(/\/.*/, "", script)
			for (i = 1; i <= ns; i++)
				if (es[i] == script && msg ~ er[i]) next
			print cur "\t" msg
		}
	}' "$1"
}

notes=()
found=$(scan "$console")
if [ -n "$dmesg" ]; then
	if [ ! -s "$dmesg" ]; then
		notes+=("no kernel log from the guest at power-off: the console alone was checked")
	elif ! head -n 1 "$dmesg" | grep -q 'Linux version'; then
		found=$(printf '%s\n(kernel log)\tthe kernel log wrapped: its first line is not the boot banner (raise log_buf_len)' "$found")
	else
		found=$(printf '%s\n%s' "$found" "$(scan "$dmesg" raw)")
	fi
fi
# the same message from both sources counts once
found=$(echo "$found" | sed '/^$/d' | awk -F'\t' '!seen[$0]++')
tests=$(grep -c 'run-suite: begin ' "$console")
if [ -z "$found" ]; then
	echo "ok - kernel log of $name: no splat ($(wc -l <"$console") console lines, $tests tests and cases marked)"
	for m in "${notes[@]}"; do echo "# $m"; done
	exit 0
fi
echo "not ok - kernel log of $name: $(echo "$found" | wc -l) finding(s), first during $(echo "$found" | head -n 1 | cut -f1)"
echo "$found" | head -n 20 | awk -F'\t' '{ printf "#   during %s: %s\n", $1, $2 }'
for m in "${notes[@]}"; do echo "# $m"; done
exit 1
