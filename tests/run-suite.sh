#!/bin/bash
# TAP-style test runner, used on the host (tests/host) and inside the guest
# (tests/guest).  Runs every executable NN-*.sh in the given folder in name
# order.  Exit 0 = pass, 77 = skip, anything else (including the timeout)
# = fail.  A test's `# timeout: N` line sets its limit (default 120 s).
# Output: `ok N name`, `not ok N name` (with the tail of the test's log as
# `#` lines), then `# passed=P failed=F skipped=S`.  Exit 1 if any failed.
# A test with a `# tap: yes` line prints TAP itself (`ok N name`, `not ok N
# name`, `ok N name # SKIP why`): each of its lines counts as one test,
# named SCRIPT/name; it fails as a whole only if it exits non-zero without
# reporting a failure or reports nothing.
# Limits: tests run one at a time; each sees $TEST_LOG_DIR for scratch logs.
set -u
usage() { echo "usage: run-suite.sh [-l LOGDIR] [-h] DIR"; }
logdir=
while getopts "l:h" opt; do
	case $opt in
	l) logdir=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] && [ -d "$1" ] || { usage >&2; exit 2; }
dir=$(cd "$1" && pwd)
logdir=${logdir:-${OUT:-/tmp}/logs-$(basename "$dir")}
mkdir -p "$logdir"
export TEST_LOG_DIR=$logdir

# failed DETAIL: report test $n ($name) as failed, with the tail of its log
failed() {
	[ $rc = 124 ] && echo "timed out after ${limit}s" >>"$log"
	echo "not ok $n $name ($1)"
	fail=$((fail + 1))
	tail -n 15 "$log" | sed 's/^/#   /'
}

n=0 pass=0 fail=0 skip=0
for t in "$dir"/[0-9]*.sh; do
	[ -x "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t" .sh)
	limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n1)
	limit=${limit:-120}
	log=$logdir/$name.log
	start=$(date +%s)
	timeout -k 5 "$limit" "$t" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(( $(date +%s) - start ))
	if grep -q '^# tap: *yes' "$t"; then
		n=$((n - 1)) sub_fail=0 sub_n=0
		while read -r line; do
			case $line in
			"ok "*|"not ok "*) ;;
			*) continue ;;
			esac
			n=$((n + 1)) sub_n=$((sub_n + 1))
			res=${line%% [0-9]*} rest=${line#"$res" }
			rest=${rest#* }
			echo "$res $n $name/$rest"
			if [ "$res" = "not ok" ]; then
				fail=$((fail + 1)) sub_fail=$((sub_fail + 1))
			elif [ "${rest#*# SKIP}" != "$rest" ]; then
				skip=$((skip + 1))
			else
				pass=$((pass + 1))
			fi
		done <"$log"
		if [ $rc != 0 ] && [ $sub_fail = 0 ] || [ $sub_n = 0 ]; then
			n=$((n + 1))
			failed "exit $rc, ${secs}s, $sub_n results"
		elif [ $sub_fail != 0 ]; then
			grep -E '^# (ERR|FAIL)' "$log" | head -n 20 | sed 's/^/#   /'
		fi
	elif [ $rc = 0 ]; then
		echo "ok $n $name (${secs}s)"; pass=$((pass + 1))
	elif [ $rc = 77 ]; then
		echo "ok $n $name # SKIP $(tail -n1 "$log")"; skip=$((skip + 1))
	else
		failed "exit $rc, ${secs}s"
	fi
done
echo "# passed=$pass failed=$fail skipped=$skip"
[ $fail = 0 ]
