#!/bin/bash
# run.sh - host side of the bench harness.  Checks the scenarios, boots the
# project kernel once to check every cgroup config (a broken one stops the
# harness before anything runs), then boots once per scenario through
# vm/run-qemu.sh, where bench/guest/main.sh alternates the variants.  Each
# scenario's folder gets raw.csv, meta.txt, qemu-cmdline, summary.md and
# PNG plots (bench/report.sh).
# With -a DIR the rounds of a new boot are added to the results folder DIR
# (bench/lib/append.sh): a claim that needs more pairs than one sitting
# can give is measured in several.
# Limits: runs the scenarios one after another; numbers taken while the
# host is busy (e.g. a kernel build) are noise, see -w.
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH")
BUILD=${BUILD:-$ROOT/build}
STATS=${STATS:-$BUILD/bench/stats}
HOSTSPEED=${HOSTSPEED:-$BUILD/bench/hostspeed}
. "$BENCH/lib/scenario.sh"
. "$BENCH/lib/append.sh"
. "$BENCH/lib/runspans.sh"
. "$BENCH/lib/hostspeed.sh"

usage() {
	cat <<EOF
usage: bench/run.sh [-q] [-w] [-P] [-o DIR] [-c N] [-m MiB] [-r N] [SCENARIO...]
       bench/run.sh -a DIR [-w] [-P] [-c N] [-m MiB] [-r N]
Run bench scenarios (default: every bench/scenarios/*.scn) in QEMU.
  -q        quick mode: each scenario's 'quick' overrides (one short round);
            results go to build/bench/ unless -o is given
  -w        wait (poll every 60 s, up to 30 min) until no kernel build runs
            and the 1-minute load average is below 0.5 before starting
  -o DIR    parent folder for <date>-<scenario>/ (default: results/, or
            build/bench/ with -q)
  -c N      guest vCPUs (default 2; a scenario with 'threads 2' pairs them
            as SMT siblings)
  -m MiB    guest memory (default 2048)
  -P        pin each vCPU thread to one host CPU (vm/run-qemu.sh -P);
            recorded in meta.txt, the pinning in each folder's 'pinning'
  -r N      run N rounds instead of the scenario's (or quick mode's) count
  -a DIR    add rounds to the results folder DIR: runs DIR/scenario.scn
            again (a new shuffle seed unless the file fixes one), then
            merges raw.csv, the logs and host samples into DIR and remakes
            its report.  Refused before booting unless the kernel (config
            sha1, series commit), the schedulers' binaries, mode, vCPUs,
            memory and pinning match DIR/meta.txt, and before merging
            unless the guest kernel does
  -h        this help
SCENARIO is a name (bench/scenarios/NAME.scn) or a path to a .scn file.
Progress is printed as: [scenario] round r/R run i/n variant V sched S elapsed.
EOF
}

die() { echo "bench: $*" >&2; exit 1; }

quick= wait_quiet=0 parent= cpus=2 mem=2048 pin= rounds= append=
while getopts "qwPo:c:m:r:a:h" opt; do
	case $opt in
	q) quick=quick ;;
	w) wait_quiet=1 ;;
	o) parent=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	P) pin=-P ;;
	r) rounds=$OPTARG ;;
	a) append=${OPTARG%/} ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -z "$rounds" ] || { scn_valid_uint "$rounds" && [ "$rounds" -ge 1 ]; } || die "-r takes a whole number >= 1, got '$rounds'"
if [ -n "$append" ]; then
	[ $# = 0 ] || die "-a runs DIR/scenario.scn; give no scenario"
	[ -z "$quick" ] && [ -z "$parent" ] || die "-a takes its mode and folder from DIR; no -q or -o"
	[ -d "$append" ] || die "-a $append: no such folder"
	grep -qx 'mode=quick' "$append/meta.txt" 2>/dev/null && quick=quick
	set -- "$append/scenario.scn"
fi
[ -n "$parent" ] || { if [ -n "$quick" ]; then parent=$BUILD/bench; else parent=$ROOT/results; fi; }
[ -x "$ROOT/vm/run-qemu.sh" ] || die "vm/run-qemu.sh missing"

# Resolve scenario files; check them all before booting anything.
files=()
if [ $# = 0 ]; then
	for f in "$BENCH"/scenarios/*.scn; do files+=("$f"); done
else
	for s in "$@"; do
		case $s in */* | *.scn) f=$(realpath -m "$s") ;; *) f=$BENCH/scenarios/$s.scn ;; esac
		files+=("$f")
	done
fi
configs=()
cfg_path() { case $1 in */*) echo "$ROOT/$1" ;; *) echo "$ROOT/cgroup-configs/$1" ;; esac; }
for f in "${files[@]}"; do
	scn_load "$f" "$quick" || exit 1
	[ -f "$BENCH/workloads/$SCN_WORKLOAD.sh" ] || die "$f: unknown workload '$SCN_WORKLOAD'"
	( . "$BENCH/workloads/$SCN_WORKLOAD.sh" && wl_check ) || die "$f: not valid for workload $SCN_WORKLOAD"
	for s in $(scn_scheds); do
		sf=${BENCH_SCHED_DIR:-/nonexistent}/$s.sh
		[ -f "$sf" ] || sf=$BENCH/schedulers/$s.sh
		[ -f "$sf" ] || die "$f: unknown scheduler '$s' (no bench/schedulers/$s.sh)"
		# the plug-in's own host-side check (loader built, class present)
		( . "$sf" && ! declare -F sched_preflight >/dev/null || sched_preflight ) ||
			die "$f: scheduler '$s' cannot run here (see above); nothing was booted"
	done
	for c in $(scn_configs); do
		[ -f "$(cfg_path "$c")" ] || die "$f: cgroup config $(cfg_path "$c") not found"
		[[ " ${configs[*]-} " == *" $c "* ]] || configs+=("$c")
	done
done

# what this run would be measured on (meta.txt, the -a check)
# (the config beside the image vm/run-qemu.sh boots: KIMAGE, as make sets it
# for DEBUG=1, or the normal build's)
now_kcfg() {
	local img=${KIMAGE:-$BUILD/kbuild/arch/x86/boot/bzImage}
	sha1sum "${img%/arch/x86/boot/bzImage}/.config" 2>/dev/null | cut -d' ' -f1
}
now_series() { git -C "$BUILD/linux" rev-parse HEAD 2>/dev/null || echo unknown; }
# the series' content: the same on any machine that applies the same
# patches to the same linux-source (the commit ids carry the dates)
now_series_tree() { git -C "$BUILD/linux" rev-parse 'HEAD^{tree}' 2>/dev/null || echo unknown; }
now_pinned() { [ -n "$pin" ] && echo yes || echo no; }
# how a shuffled order is drawn (bench/lib/scenario.sh); rounds drawn
# otherwise (the correlated LCG before 1498ce5) are not added to them
now_draw() { [ "$SCN_ORDER" = shuffle ] && echo shuffle_draw=lowbias32; }
# sched_sha1_NAME=HASH per scheduler of the loaded scenario whose plug-in
# names its binary (sched_binary), and sched_src_NAME=HASH of the sources
# it is built from outside the series (sched_sources, in their order):
# rounds are only merged under the same binary, or the same sources
now_scheds() {
	local s sf bin src
	for s in $(scn_scheds); do
		sf=${BENCH_SCHED_DIR:-/nonexistent}/$s.sh
		[ -f "$sf" ] || sf=$BENCH/schedulers/$s.sh
		bin=$(. "$sf" && declare -F sched_binary >/dev/null && sched_binary) || continue
		echo "sched_sha1_$s=$(sha1sum "$bin" 2>/dev/null | cut -d' ' -f1)"
		# shellcheck disable=SC2046
		src=$(. "$sf" && declare -F sched_sources >/dev/null && set -o pipefail &&
			cat $(sched_sources) | sha1sum) &&
			echo "sched_src_$s=${src%% *}"
	done
}
# the experiment's identity, KEY=VALUE per line: meta.txt records it and
# -a checks it (bench/lib/append.sh's append_identity names these keys)
now_identity() {
	echo "kernel_config_sha1=$(now_kcfg)"
	echo "series_commit=$(now_series)"
	echo "series_tree=$(now_series_tree)"
	echo "mode=${quick:-full}"
	echo "guest_vcpus=$cpus"
	echo "guest_mem_mib=$mem"
	echo "vcpus_pinned=$(now_pinned)"
	now_draw
	now_scheds
}
if [ -n "$append" ]; then
	scn_load "$1" "$quick" || exit 1
	mapfile -t identity < <(now_identity)
	append_compat "$append" "${identity[@]}" ||
		die "-a $append: not the same experiment (above); nothing was booted"
fi

[ -x "$STATS" ] || die "$STATS missing: build it with 'make bench' (or gcc -O2 -o $STATS bench/stats.c -lm)"
[ -x "$HOSTSPEED" ] || die "$HOSTSPEED missing: build it with 'make bench' (or gcc -O2 -o $HOSTSPEED bench/hostspeed.c)"

# compiling: is a compiler (a kernel build) running on the host?
compiling() { pgrep -f 'make -C .*build/linux' >/dev/null || pgrep -x cc1 >/dev/null; }
# busy: why the host is not quiet enough to benchmark ("" if it is)
busy() {
	local load
	load=$(cut -d' ' -f1 /proc/loadavg)
	if compiling; then
		echo "a compiler (kernel build?) is running, load $load"
	elif ! awk -v l="$load" 'BEGIN { exit !(l < 0.5) }'; then
		echo "load average $load >= 0.5"
	fi
}
if [ $wait_quiet = 1 ]; then
	for i in $(seq 31); do
		why=$(busy)
		[ -z "$why" ] && break
		[ "$i" = 31 ] && die "host still busy after 30 min ($why); not benchmarking"
		echo "bench: host busy ($why); waiting 60 s"
		sleep 60
	done
fi

stamp=$(date +%Y%m%d-%H%M%S)
stage=$BUILD/bench/stage-$stamp
mkdir -p "$stage"
t0=$(date +%s)
qemu() { "$ROOT/vm/run-qemu.sh" -q $pin -c "$cpus" -m "$mem" -e "BENCH_SCHED_DIR=${BENCH_SCHED_DIR-}" "$@"; }

# Boot 1: every cgroup config must be accepted before anything is measured.
if [ ${#configs[@]} -gt 0 ]; then
	echo "bench: checking cgroup configs in the guest: ${configs[*]}"
	qemu -T 180 -o "$stage/preflight" -- "$BENCH/guest/main.sh" check "${configs[@]}"
	prc=$?
	if [ $prc != 0 ]; then
		echo "bench: the cgroup config check failed (exit $prc); nothing was run." >&2
		if [ -s "$stage/preflight/guest-errors.log" ]; then
			sed 's/^/  /' "$stage/preflight/guest-errors.log" >&2
		else
			tail -n 20 "$stage/preflight/console.log" 2>/dev/null | sed 's/^/  | /' >&2
		fi
		exit 1
	fi
fi

# the harness as it was when the runs began (the guest reads it live)
harness=$(git -C "$ROOT" rev-parse -q --verify HEAD 2>/dev/null || echo none)$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo '+dirty')

# meta FILE: what was measured on what
meta() {
	echo "date=$(date -u +%FT%TZ)"
	echo "scenario=$SCN_NAME"
	echo "rounds=$SCN_ROUNDS"
	echo "duration_s=$SCN_DURATION"
	echo "warmup_s=$SCN_WARMUP"
	echo "variants=$SCN_VARIANTS"
	echo "host_cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "host_cpus=$(nproc)"
	echo "host_load_before=$1"
	echo "host_compiler_running_before=$3"
	echo "host_load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "host_compiler_running_after=$(compiling && echo yes || echo no)"
	local samples
	samples=$(append_samples "$2/host-samples.csv" 2>/dev/null)
	echo "host_compiler_samples=$(sed -n 1p <<<"$samples")"
	echo "host_other_qemu_samples=$(sed -n 2p <<<"$samples")"
	echo "guest_threads_per_core=$SCN_THREADS"
	echo "accel=$(sed -n 's/^accel=//p' "$2/timing" 2>/dev/null || grep -o 'accel [a-z]*' "$2/qemu-cmdline" | cut -d' ' -f2)"
	now_identity
	echo "harness_commit=$harness"
	echo "qemu=$(qemu-system-x86_64 --version | head -1)"
	sed 's/^/guest_/' "$2/guest-info.txt" 2>/dev/null
}

rc=0
for f in "${files[@]}"; do
	scn_load "$f" "$quick" || exit 1
	# -a runs DIR/scenario.scn under the name DIR's runs were taken with
	if [ -n "$append" ]; then
		SCN_NAME=$(append_meta "$append/meta.txt" scenario)
		[[ $SCN_NAME =~ ^[a-z0-9_-]+$ ]] || die "-a $append: meta.txt names no scenario"
	fi
	dir=$stage/$SCN_NAME
	mkdir -p "$dir"
	run_file=$f
	if [ -n "$rounds" ] || [ -n "$append" ]; then
		# the guest names the scenario after its file
		run_file=$stage/$SCN_NAME.scn
		if [ -n "$rounds" ]; then
			SCN_ROUNDS=$rounds
			scn_set_rounds "$f" "$rounds" >"$run_file"
		else
			cp "$f" "$run_file"
		fi
		cp "$run_file" "$dir/scenario.scn"
	else
		cp "$f" "$dir/scenario.scn"
	fi
	: >"$dir/progress.log"
	nv=$(wc -w <<<"$SCN_VARIANTS")
	limit=$((SCN_ROUNDS * nv * (SCN_WARMUP + SCN_DURATION + 60) + 180))
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	comp_before=$(compiling && echo yes || echo no)
	echo "bench: scenario $SCN_NAME: $SCN_ROUNDS round(s) x $nv variant(s) ($SCN_VARIANTS), ${SCN_DURATION}s + ${SCN_WARMUP}s warm-up each"
	qemu -T "$limit" -t "$SCN_THREADS" -o "$dir" -- "$BENCH/guest/main.sh" run "$run_file" $quick &
	qpid=$!
	# sample the host every 5 s: load, a compiler, other QEMU processes
	# (report.sh marks the runs such a sample falls into)
	( echo "epoch,load1,compiler,other_qemu"
	while kill -0 $qpid 2>/dev/null; do
		nq=$(pgrep -c -f '^qemu-system' || true)
		echo "$(date +%s),$(cut -d' ' -f1 /proc/loadavg),$(compiling && echo 1 || echo 0),$((nq > 1 ? nq - 1 : 0))"
		sleep 5
	done ) >"$dir/host-samples.csv" &
	spid=$!
	# the host's speed every 2 s (bench/hostspeed.c): each run's mean goes
	# into raw.csv as host_chase_us, the covariate of bench/stats adjust
	"$HOSTSPEED" -i 2 >"$dir/host-speed.csv" &
	hpid=$!
	# each progress line with the host's clock: when each run started
	echo "epoch,line" >"$dir/progress-host.csv"
	tail -n +1 -F --pid=$qpid "$dir/progress.log" 2>/dev/null | while IFS= read -r l; do
		echo "$(date +%s),${l//,/;}" >>"$dir/progress-host.csv"
		e=$(($(date +%s) - t0)); printf '  %d:%02d %s\n' $((e / 60)) $((e % 60)) "$l"; done
	wait $qpid
	grc=$?
	wait $spid
	kill $hpid 2>/dev/null
	wait $hpid 2>/dev/null
	if [ $grc != 0 ]; then
		echo "bench: scenario $SCN_NAME failed (guest exit $grc); logs in $dir" >&2
		sed 's/^/  /' "$dir/guest-errors.log" >&2 2>/dev/null
		rc=1
		continue
	fi
	meta "$load" "$dir" "$comp_before" >"$dir/meta.txt"
	rows=$(hostspeed_rows "$dir") && [ -n "$rows" ] && echo "$rows" >>"$dir/raw.csv"
	if [ -n "$append" ]; then
		append_merge "$append" "$dir" || { echo "bench: rounds not added; this run stays in $dir" >&2; rc=1; continue; }
		"$BENCH/report.sh" "$append" || { echo "bench: report for $append failed" >&2; rc=1; continue; }
		echo "bench: $SCN_NAME: $SCN_ROUNDS round(s) added -> $append ($(sed -n 's/^rounds=//p' "$append/meta.txt") rounds)"
		continue
	fi
	"$BENCH/report.sh" "$dir" || { echo "bench: report for $SCN_NAME failed" >&2; rc=1; continue; }
	final=$parent/$(date +%F)-$SCN_NAME
	n=1
	while [ -e "$final" ]; do n=$((n + 1)); final=$parent/$(date +%F)-$SCN_NAME-$n; done
	mkdir -p "$parent"
	mkdir "$final"
	for x in raw.csv runs.csv hist.csv windows.csv meta.txt qemu-cmdline scenario.scn summary.md progress.log \
		progress-host.csv host-samples.csv host-speed.csv guest-errors.log scx-loader.log dmesg.txt pinning; do
		[ -s "$dir/$x" ] && cp "$dir/$x" "$final/"
	done
	cp "$dir"/*.png "$dir"/stats-*.csv "$final/" 2>/dev/null
	echo "bench: $SCN_NAME -> $final"
done
e=$(($(date +%s) - t0))
echo "bench: finished in $((e / 60))m$((e % 60))s$([ $rc = 0 ] || echo ' WITH FAILURES')"
exit $rc
