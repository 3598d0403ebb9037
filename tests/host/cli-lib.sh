# cli-lib.sh - shared by the host tests of the schedulers' loaders
# (40-flatcg-cli.sh, 41-pair-cli.sh; sourced, not run): a failure flag,
# an expectation on a command's exit status and output, and the check of
# an installed systemd unit.
#   bad MSG...                 print "FAIL: MSG" and remember the failure
#   expect RC PATTERN CMD...   CMD exits RC and its output matches PATTERN
#   verify_unit FILE           systemd-analyze verify passes, without warnings
fail=0
bad() { echo "FAIL: $*"; fail=1; }

expect() {
	local rc=$1 pat=$2 out got
	shift 2
	out=$("$@" 2>&1)
	got=$?
	[ $got = "$rc" ] || bad "'$*' exited $got, want $rc: $out"
	grep -qE -- "$pat" <<<"$out" || bad "'$*' said '$out', want /$pat/"
}

verify_unit() {
	local out
	if ! command -v systemd-analyze >/dev/null; then
		echo "systemd-analyze missing: unit not verified"
		return 0
	fi
	out=$(systemd-analyze verify "$1" 2>&1) || { bad "systemd-analyze verify: $out"; return; }
	[ -z "$out" ] || bad "systemd-analyze verify warns: $out"
}
