# wakelat.sh - workload module: wake-up latency at a fixed rate beside CPU
# load.  cyclictest (rt-tests) threads of the normal policy (SCHED_OTHER,
# so the scheduler under test places them) wake every `interval` us in the
# probe cgroup while stress-ng CPU hogs keep the load cgroups busy; each
# wake-up's lateness (timer expiry to running) goes into cyclictest's
# histogram.  (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  probe=CGROUP                    where cyclictest runs
#                load=NAME:CGROUP[,NAME:CGROUP]  CPU hogs there
# Parameters:    hogs=N      stress-ng CPU workers per load cgroup (2)
#                threads=N   cyclictest threads (default: the vCPUs)
#                interval=US wake-up period of each thread (1000)
#                hist_us=US  histogram range (50000); a p99 beyond it fails
#                            the run (overflows are counted)
# Metrics: lat_p50_us, lat_p99_us (nearest rank over all threads' wake-ups),
# lat_max_us, lat_avg_us, wakeups (the samples behind the percentiles),
# overflows (wake-ups later than hist_us), busy_pct (the guest's CPUs busy
# over the window, /proc/stat: below 100 the load did not saturate).
# Limits: cyclictest's timer is the guest's; under TCG a vCPU thread the
# host deschedules adds its delay to every figure alike.

wl_check() {
	local v i k
	for k in hogs interval hist_us; do
		scn_valid_uint "$(scn_param $k 1)" && [ "$(scn_param $k 1)" -ge 1 ] || { echo "wakelat: $k must be >= 1" >&2; return 1; }
	done
	[ -z "$(scn_param threads)" ] || { scn_valid_uint "$(scn_param threads)" && [ "$(scn_param threads)" -ge 1 ]; } ||
		{ echo "wakelat: threads must be >= 1" >&2; return 1; }
	[ "$SCN_DURATION" -ge 1 ] || { echo "wakelat: duration must be >= 1" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		case $(scn_var "$v" probe) in
		'' | / ) echo "wakelat: variant $v needs probe=CGROUP, a cgroup of its own (not the root)" >&2; return 1 ;;
		esac
		for i in $(scn_var "$v" load | tr ',' ' '); do
			[[ $i =~ ^[a-z0-9_A-Z]+:[A-Za-z0-9_./-]+$ ]] || { echo "wakelat: variant $v: bad load entry '$i' (NAME:CGROUP)" >&2; return 1; }
		done
	done
}

wl_prepare() {
	command -v cyclictest >/dev/null || { echo "wakelat: cyclictest not installed (Debian rt-tests; make deps)" >&2; return 1; }
}

wl_start() {
	local i t=$((SCN_WARMUP + SCN_DURATION + 120))
	LAT_PIDS=()
	for i in $(scn_var "$1" load | tr ',' ' '); do
		cg_run "${i#*:}" stress-ng -q --temp-path /tmp --cpu "$(scn_param hogs 2)" --cpu-method int64 --timeout "${t}s" >>/tmp/bench-hogs.log 2>&1 &
		LAT_PIDS+=($!)
	done
	sleep 1
	for i in $(scn_var "$1" load | tr ',' ' '); do
		grep -q '^populated 1' "$(cg_dir "${i#*:}")/cgroup.events" ||
			{ echo "wakelat: stress-ng is not running in ${i#*:}:" >&2; cat /tmp/bench-hogs.log >&2; return 1; }
	done
}

# lat_parse FILE: cyclictest -q -h output -> the metrics (see the top)
lat_parse() {
	awk '
	/^[0-9]+[ \t]/ {	# bucket (us) and one count per thread
		for (i = 2; i <= NF; i++) { c[$1 + 0] += $i; n += $i }
		if ($1 + 0 > top) top = $1 + 0
		next
	}
	/^# Max Latencies:/ { for (i = 4; i <= NF; i++) if ($i + 0 > mx) mx = $i + 0; next }
	/^# Avg Latencies:/ { for (i = 4; i <= NF; i++) { as += $i; an++ }; next }
	/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) ov += $i; next }
	END {
		if (n + ov < 1 || !an) { print "wakelat: no histogram in the output" > "/dev/stderr"; exit 1 }
		tot = n + ov; r50 = int(tot * 0.50 + 0.999999); r99 = int(tot * 0.99 + 0.999999)
		for (b = 0; b <= top; b++) {
			cum += c[b]
			if (p50 == "" && cum >= r50) p50 = b
			if (p99 == "" && cum >= r99) p99 = b
		}
		if (p99 == "") { printf "wakelat: p99 lies beyond the histogram (%d of %d wake-ups overflowed): raise hist_us\n", ov, tot > "/dev/stderr"; exit 1 }
		printf "lat_p50_us %d\nlat_p99_us %d\nlat_max_us %d\nlat_avg_us %.1f\nwakeups %d\noverflows %d\n", p50, p99, mx, as / an, tot, ov
	}' "$1"
}

# lat_policies CGROUP: the scheduling policy of each thread in the cgroup
# (/proc/TID/stat field 41; 0 is SCHED_OTHER), one per line
lat_policies() {
	local t line
	while read -r t; do
		read -r line <"/proc/$t/stat" 2>/dev/null || continue
		# shellcheck disable=SC2086
		set -- ${line##*) }	# field 3 is the first after "(comm) "
		echo "${39}"
	done <"$(cg_dir "$1")/cgroup.threads"
}

wl_measure() {
	local v=$1 out=/tmp/bench-cyclictest.out s0 s1 th pid pol
	th=$(scn_param threads "$(nproc)")
	sleep "$SCN_WARMUP"
	cpustat_snap s0
	# -p 0 before --policy: a -p after it would switch back to SCHED_FIFO
	cg_run "$(scn_var "$v" probe)" cyclictest -p 0 --policy=normal -t "$th" -i "$(scn_param interval 1000)" \
		-h "$(scn_param hist_us 50000)" -D "${SCN_DURATION}s" -q -m --default-system >"$out" 2>&1 &
	pid=$!
	sleep 1	# the measurement threads are up, the run lasts SCN_DURATION
	pol=$(lat_policies "$(scn_var "$v" probe)")
	[ "$(grep -c . <<<"$pol")" -gt "$th" ] && [ "$(sort -u <<<"$pol")" = 0 ] || {
		kill "$pid" 2>/dev/null; wait "$pid"
		echo "wakelat: the probe cgroup's threads run policies $(sort -u <<<"$pol" | tr '\n' ' ')(want $th threads and SCHED_OTHER, 0, only)" >&2
		return 1; }
	wait "$pid" || { echo "wakelat: cyclictest failed:" >&2; tail -5 "$out" >&2; return 1; }
	cpustat_snap s1
	lat_parse "$out" || return 1
	echo "busy_pct $(cpustat_busy_pct "$s0" "$s1")"
}

wl_stop() {
	local i
	for i in $(scn_var "$1" load | tr ',' ' '); do cg_kill "${i#*:}" || return 1; done
	cg_kill "$(scn_var "$1" probe)" || return 1
	wait "${LAT_PIDS[@]}" 2>/dev/null
	return 0
}
