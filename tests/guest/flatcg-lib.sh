# flatcg-lib.sh - shared by the flatcg guest tests (sourced, not run):
# starting flatcg, CPU hogs in cgroups, measuring CPU shares and checking
# them against a tolerance, TAP result lines.
#
#   fcg_start [ARGS...]       start build/flatcg/flatcg ARGS, wait for enabled
#   fcg_stop                  SIGINT, check the clean exit (scx-lib.sh)
#   spawn CGROUP CMD...       CMD in the background in CGROUP, PID in HOG_PIDS
#   hogs CGROUP N [CPU]       N busy loops in CGROUP (pinned to CPU if given);
#                             their PIDs are appended to HOG_PIDS
#   measure SECS NAME=SPEC... CPU time of each SPEC over SECS seconds as a
#                             percentage of the sum of all SPECs, into
#                             PCT[NAME]; SPEC is a cgroup path or pid:P,P,...
#   near NAME WANT TOL        PCT[NAME] within TOL points of WANT
#   result OK NAME [DETAIL]   print "ok N NAME" / "not ok N NAME"
# Limits: shares are of the measured set, not of the machine; the guest's
# vCPUs are host threads, so a window shorter than a few seconds is noisy.
. "$(dirname "${BASH_SOURCE[0]}")/scx-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../../bench/lib/cgroup.sh"
FCG=${FCG:-build/flatcg/flatcg}
TOOLS=${TOOLS:-build/tools}
export CG_STATE=/tmp/flatcg-test-cg
HOG_PIDS=()
declare -A PCT=()

fcg_log() { echo "$TEST_LOG_DIR/flatcg-$1.log"; }

fcg_start() { sched_start "$(fcg_log "$TNAME")" "$FCG" -i 1 "$@"; }
fcg_stop() { sched_stop "$(fcg_log "$TNAME")"; }

# spawn CGROUP CMD...: CMD in the background in CGROUP; its PID (CMD is
# exec'ed, so the PID is CMD's) is appended to HOG_PIDS and left in LAST_PID
spawn() {
	local d
	d=$(cg_dir "$1")
	shift
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$d" "$@" &
	LAST_PID=$!
	HOG_PIDS+=($LAST_PID)
}

hogs() {	# CGROUP N [CPU]
	local cg=$1 n=$2 cpu=${3:-} i
	for i in $(seq "$n"); do
		if [ -n "$cpu" ]; then
			spawn "$cg" taskset -c "$cpu" sh -c 'while :; do :; done'
		else
			spawn "$cg" sh -c 'while :; do :; done'
		fi
	done
}

hogs_kill() {
	# an empty list would make wait wait for every child (the scheduler)
	[ ${#HOG_PIDS[@]} = 0 ] && return 0
	kill -9 "${HOG_PIDS[@]}" 2>/dev/null
	wait "${HOG_PIDS[@]}" 2>/dev/null
	HOG_PIDS=()
}

# on-CPU time of SPEC in usec, into variable $1, with builtins only
# (tasks: se.sum_exec_runtime of /proc/PID/sched, in ms with 6 decimals)
usage_into() {
	local spec=$2 p k v ms us sum=0
	if [ "${spec#pid:}" != "$spec" ]; then
		for p in ${spec#pid:}; do
			while IFS=: read -r k v; do
				[[ $k == se.sum_exec_runtime* ]] || continue
				v=${v// /}
				ms=${v%.*} us=${v#*.}
				us=${us:0:3}
				sum=$((sum + 10#$ms * 1000 + 10#$us))
				break
			done <"/proc/$p/sched"
		done
		printf -v "$1" '%s' "$sum"
	else
		cg_usage_into "$1" "$spec"
	fi
}

# measure_start NAME=SPEC...: the usage of each SPEC now; measure_end then
# sets PCT[NAME] to each one's part of their total since. measure SECS
# NAME=SPEC... does both around a sleep.
measure_start() {
	local e k
	M_NAMES=() M_SPECS=() M_U0=()
	for e; do
		M_NAMES+=("${e%%=*}") M_SPECS+=("$(tr ',' ' ' <<<"${e#*=}")")
		PCT[${e%%=*}]=nan
	done
	for k in "${!M_SPECS[@]}"; do usage_into "M_U0[$k]" "${M_SPECS[$k]}" || return 1; done
}

measure_end() {
	local k total=0
	local -a u1=()
	for k in "${!M_SPECS[@]}"; do usage_into "u1[$k]" "${M_SPECS[$k]}" || return 1; done
	for k in "${!M_SPECS[@]}"; do total=$((total + u1[k] - M_U0[k])); done
	[ $total -gt 0 ] || { echo "# FAIL nothing ran during the window"; return 1; }
	for k in "${!M_NAMES[@]}"; do
		PCT[${M_NAMES[$k]}]=$(awk -v d=$((u1[k] - M_U0[k])) -v t=$total 'BEGIN { printf "%.1f", 100 * d / t }')
	done
}

measure() {	# SECS NAME=SPEC...
	local secs=$1
	shift
	measure_start "$@" || return 1
	sleep "$secs"
	measure_end
}

near() {	# NAME WANT TOL
	awk -v m="${PCT[$1]}" -v w="$2" -v t="$3" 'BEGIN { d = m - w; if (d < 0) d = -d; exit !(d <= t) }'
}

ntap=0
result() {	# OK NAME [DETAIL]
	ntap=$((ntap + 1))
	if [ "$1" = 0 ]; then
		echo "ok $ntap $2${3:+ # $3}"
	else
		echo "not ok $ntap $2${3:+ # $3}"
	fi
}
