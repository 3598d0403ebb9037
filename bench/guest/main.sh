#!/bin/bash
# main.sh - guest side of the bench harness: runs inside ONE QEMU boot
# (started by bench/run.sh through vm/run-qemu.sh).  Never run it on the
# host: it creates, kills and removes cgroups.
#
#   main.sh check CONFIG...          apply and remove each cgroup config;
#                                    stop at the first one cgconfigparser
#                                    refuses (its message is shown)
#   main.sh run SCENARIO [quick]     check the scenario's configs, then run
#                                    rounds x variants (in the scenario's
#                                    order) and write $OUT/raw.csv, plus
#                                    $OUT/runs.csv (one row per run: status,
#                                    loader exit code, exit reason),
#                                    $OUT/hist.csv (histograms a workload
#                                    wrote to $BENCH_HIST as "METRIC VALUE
#                                    COUNT" lines), $OUT/windows.csv (the
#                                    measured window, "START,END" in Unix
#                                    seconds, a workload wrote to
#                                    $BENCH_WINDOW) and $OUT/dmesg.txt
# Progress lines go to stdout and $OUT/progress.log; errors to stderr and
# $OUT/guest-errors.log.  Exit status 0 only if every step worked (runs
# refused because a scheduler was ejected still count as "worked").
set -uo pipefail
BENCH=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(dirname "$BENCH")
# where a workload may write histograms ("METRIC VALUE COUNT" lines)
BENCH_HIST=/tmp/bench-hist
# where a workload may write its measured window ("START,END", Unix
# seconds; the host lines its host-speed samples up with it)
BENCH_WINDOW=/tmp/bench-window
export BENCH ROOT BENCH_HIST BENCH_WINDOW
case ${1-} in -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
: "${OUT:?main.sh: \$OUT is not set (run it through bench/run.sh)}"
. "$BENCH/lib/scenario.sh"
. "$BENCH/lib/cgroup.sh"
. "$BENCH/lib/cpustat.sh"

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bench: $*" >&2; exit 1; }
exec 2> >(tee -a "$OUT/guest-errors.log" >&2)

# scheduler plug-in file: $BENCH_SCHED_DIR (tests) first, then bench/schedulers
sched_file() {
	local d
	for d in ${BENCH_SCHED_DIR-} "$BENCH/schedulers"; do
		[ -f "$d/$1.sh" ] && { echo "$d/$1.sh"; return 0; }
	done
	return 1
}

# config path: a bare name is in cgroup-configs/, anything else is from ROOT
cfg_path() { case $1 in */*) echo "$ROOT/$1" ;; *) echo "$ROOT/cgroup-configs/$1" ;; esac; }

check_configs() {
	local c
	[ -d /sys/fs/cgroup ] && grep -q cgroup2 /proc/mounts || die "cgroup2 is not mounted"
	for c in "$@"; do
		cg_snapshot
		cg_apply "$(cfg_path "$c")" || die "cgroup config $c refused; nothing was run"
		cg_teardown || die "could not remove the cgroups of $c"
		echo "config ok: $c"
	done
}

progress() {
	local e=$(($(date +%s) - START))
	printf '[%s] %s  elapsed %d:%02d\n' "$SCN_NAME" "$*" $((e / 60)) $((e % 60)) | tee -a "$OUT/progress.log"
}

# one_run ROUND RUN VARIANT: one measurement; appends rows to raw.csv
one_run() {
	local r=$1 i=$2 v=$3 s c status=ok m val
	s=$(scn_var "$v" sched) c=$(scn_var "$v" config)
	cg_snapshot
	if [ "$c" != none ]; then cg_apply "$(cfg_path "$c")" || die "config $c refused"; fi
	unset -f sched_start sched_alive sched_stop sched_exit_info
	# extra loader arguments of this variant (sched_args=A,B: "A B")
	SCHED_ARGS=$(scn_var "$v" sched_args | tr ',' ' ')
	. "$(sched_file "$s")" || die "cannot load scheduler $s"
	: >/tmp/bench-metrics
	: >"$BENCH_HIST"
	: >"$BENCH_WINDOW"
	if ! sched_start; then
		status=sched-start-failed
		sched_stop || die "scheduler $s did not stop after a failed start"
	elif ! wl_start "$v"; then
		# a scheduler ejected while the workload starts is a refused run,
		# anything else is a broken set-up
		sched_alive && die "workload failed to start (variant $v)"
		status=ejected
		wl_stop "$v"
		sched_stop || die "scheduler $s did not stop"
	else
		if ! wl_measure "$v" >/tmp/bench-metrics; then status=workload-errors; fi
		sched_alive || status=ejected
		wl_stop "$v" || die "workload did not stop (variant $v)"
		sched_stop || die "scheduler $s did not stop"
	fi
	cg_teardown || die "could not remove the cgroups of $c"
	[ -s /tmp/bench-metrics ] || echo "- " >/tmp/bench-metrics
	while read -r m val; do
		echo "$r,$i,$v,$s,$c,$m,$val,$status" >>"$OUT/raw.csv"
	done </tmp/bench-metrics
	if [ -s "$BENCH_HIST" ]; then
		[ -s "$OUT/hist.csv" ] || echo "round,run,variant,sched,metric,value,count,status" >"$OUT/hist.csv"
		awk -v OFS=, -v p="$r,$i,$v,$s" -v st="$status" 'NF == 3 { print p, $1, $2, $3, st }' \
			"$BENCH_HIST" >>"$OUT/hist.csv"
	fi
	if [ -s "$BENCH_WINDOW" ]; then
		[ -s "$OUT/windows.csv" ] || echo "round,run,variant,start,end" >"$OUT/windows.csv"
		echo "$r,$i,$v,$(head -n 1 "$BENCH_WINDOW")" >>"$OUT/windows.csv"
	fi
	# how the scheduler ended: "RC|REASON" from the plug-in, if it knows
	local info='|'
	declare -F sched_exit_info >/dev/null && info=$(sched_exit_info)
	echo "$r,$i,$v,$s,$status,${info%%|*},$(printf '%s' "${info#*|}" | tr ',\n' ';  ')" >>"$OUT/runs.csv"
	[ $status = ok ] || progress "run $i: status $status (no numbers reported for it)"
}

run_scenario() {
	local file=$1 quick=${2-} r i=0 v n nv
	scn_load "$file" "$quick" || exit 1
	[ -f "$BENCH/workloads/$SCN_WORKLOAD.sh" ] || die "unknown workload $SCN_WORKLOAD"
	. "$BENCH/workloads/$SCN_WORKLOAD.sh"
	wl_check || die "scenario $file is not valid for workload $SCN_WORKLOAD"
	for v in $(scn_scheds); do sched_file "$v" >/dev/null || die "unknown scheduler $v"; done
	START=$(date +%s)
	# shellcheck disable=SC2046
	check_configs $(scn_configs)
	{
		echo "nproc=$(nproc)"
		echo "kernel=$(uname -r)"
		echo "cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
		echo "mem_kib=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
		echo "sched_ext=$(cat /sys/kernel/sched_ext/state 2>/dev/null || echo absent)"
	} >"$OUT/guest-info.txt"
	# a shuffled order without a seed in the file gets one, recorded
	[ "$SCN_ORDER" != shuffle ] || [ -n "$SCN_SEED" ] || SCN_SEED=$(( $(date +%s%N) % 1000000 ))
	echo "order=$SCN_ORDER" >>"$OUT/guest-info.txt"
	echo "seed=${SCN_SEED:--}" >>"$OUT/guest-info.txt"
	echo "round,run,variant,sched,config,metric,value,status" >"$OUT/raw.csv"
	echo "round,run,variant,sched,status,loader_rc,exit_reason" >"$OUT/runs.csv"
	wl_prepare || die "workload preparation failed"
	nv=$(wc -w <<<"$SCN_VARIANTS")
	n=$((SCN_ROUNDS * nv))
	# full mode: one run before round 1, recorded nowhere.  The first run
	# of a boot is slower than the rest (code TCG has not translated yet,
	# files not yet cached: in the web and aa boots up to 2026-12-06 it
	# was mostly among the slowest runs of its variant), and with a fixed
	# order it would always fall on the same variant.
	if [ -z "$quick" ]; then
		read -r v _ <<<"$(scn_round_order 1)"
		progress "warm-up run  variant $v  sched $(scn_var "$v" sched)  (not recorded)"
		mkdir -p /tmp/bench-warmup
		OUT=/tmp/bench-warmup one_run 0 0 "$v"
		echo "boot_warmup=$v" >>"$OUT/guest-info.txt"
	fi
	for r in $(seq "$SCN_ROUNDS"); do
		for v in $(scn_round_order "$r"); do
			i=$((i + 1))
			progress "round $r/$SCN_ROUNDS  run $i/$n  variant $v  sched $(scn_var "$v" sched)"
			one_run "$r" "$i" "$v"
		done
	done
	dmesg >"$OUT/dmesg.txt" 2>&1
	progress "done: $n runs"
}

case ${1-} in
-h | --help) usage ;;
check) shift; [ $# -ge 1 ] || die "check: no config given"; START=$(date +%s); check_configs "$@" ;;
run) shift; [ $# -ge 1 ] && [ $# -le 2 ] || die "run: SCENARIO [quick]"; run_scenario "$@" ;;
*) usage >&2; exit 2 ;;
esac
