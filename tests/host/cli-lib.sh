# cli-lib.sh - shared by the host tests of the schedulers' loaders
# (40-flatcg-cli.sh, 41-pair-cli.sh; sourced, not run): a failure flag,
# an expectation on a command's exit status and output, the refusals every
# loader shares, and the checks of an install and its systemd unit.
#   bad MSG...                 print "FAIL: MSG" and remember the failure
#   expect RC PATTERN CMD...   CMD exits RC and its output matches PATTERN
#   expect_refusals LOADER     not root, no sched_ext: exit 1 with a reason
#   check_destdir TARGET NAME  make TARGET DESTDIR= installs NAME's loader,
#                              unit (its ExecStart names it) and README;
#                              leaves the folder in $tmp (removed on exit)
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
	command -v systemd-analyze >/dev/null ||
		{ bad "systemd-analyze missing (package systemd: make deps)"; return; }
	out=$(systemd-analyze verify "$1" 2>&1) || { bad "systemd-analyze verify: $out"; return; }
	[ -z "$out" ] || bad "systemd-analyze verify warns: $out"
}

expect_refusals() {
	if command -v setpriv >/dev/null; then
		expect 1 'must run as root' setpriv --reuid=65534 --regid=65534 --clear-groups "$1"
	else
		bad "setpriv missing (package util-linux: make deps)"
	fi
	if [ ! -e /sys/kernel/sched_ext/state ]; then
		expect 1 'this kernel has no sched_ext' "$1"
	fi
}

check_destdir() {
	local target=$1 name=$2 f
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	make -s "$target" DESTDIR="$tmp/dest" >"$tmp/log" 2>&1 ||
		bad "make $target DESTDIR: $(cat "$tmp/log")"
	for f in sbin/$name lib/systemd/system/$name.service share/doc/$name/README.md; do
		[ -f "$tmp/dest/usr/local/$f" ] || bad "DESTDIR install: no /usr/local/$f"
	done
	grep -q "^ExecStart=/usr/local/sbin/$name " "$tmp/dest/usr/local/lib/systemd/system/$name.service" ||
		bad "unit's ExecStart does not name /usr/local/sbin/$name"
}
