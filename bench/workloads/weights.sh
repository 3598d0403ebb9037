# weights.sh - workload module: weight accuracy.  CPU hogs (stress-ng --cpu)
# in every listed leaf cgroup; each leaf's measured share is its cpu.stat
# usage_usec delta over the sum of the leaves' deltas during the measured
# window.  The configured share comes from the cpu.weight files along each
# leaf's path (bench/lib/cgroup.sh cg_shares), not from the scenario.
# (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  hogs=NAME:CGROUP[,NAME:CGROUP...]
# Parameters:    hogs=N  stress-ng CPU workers per leaf (default 2)
#                method=M  stress-ng --cpu-method (default int64; the
#                          default "all" hits SIGILL under QEMU TCG)
# Metrics: share_pct.NAME, share_cfg_pct.NAME, err_pp.NAME (measured minus
# configured, percentage points), max_abs_err_pp, busy_pct (the leaves'
# CPU time in % of all vCPUs: < 100 means the hogs did not saturate),
# spread_pct.NAME (CPU time inside the leaf: (max - min) / mean of its
# workers' CPU time over the window, in %; 0 when they got the same).
# Limits: needs the cpu controller on along every leaf's path.

hog_leaves() { scn_var "$1" hogs | tr ',' ' '; }

wl_check() {
	local v i n
	n=$(scn_param hogs 2)
	scn_valid_uint "$n" && [ "$n" -ge 1 ] || { echo "weights: hogs must be >= 1" >&2; return 1; }
	[ "$SCN_DURATION" -ge 1 ] || { echo "weights: duration must be >= 1" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		[ -n "$(hog_leaves "$v")" ] || { echo "weights: variant $v has no hogs=NAME:CGROUP,..." >&2; return 1; }
		for i in $(hog_leaves "$v"); do
			[[ $i =~ ^[a-z0-9_A-Z]+:[A-Za-z0-9_./-]+$ ]] || { echo "weights: variant $v: bad entry '$i' (NAME:CGROUP)" >&2; return 1; }
		done
	done
}

wl_prepare() { :; }

wl_start() {
	local i t=$((SCN_WARMUP + SCN_DURATION + 120)) leaves=()
	HOG_PIDS=()
	for i in $(hog_leaves "$1"); do leaves+=("${i#*:}"); done
	# configured shares, computed before the hogs make every fork slow
	HOG_CFG=$(cg_shares "${leaves[@]}") || return 1
	for i in $(hog_leaves "$1"); do
		cg_run "${i#*:}" stress-ng -q --temp-path /tmp --cpu "$(scn_param hogs 2)" --cpu-method "$(scn_param method int64)" --timeout "${t}s" >>/tmp/bench-hogs.log 2>&1 &
		HOG_PIDS+=($!)
	done
	sleep 1
	for i in $(hog_leaves "$1"); do
		grep -q '^populated 1' "$(cg_dir "${i#*:}")/cgroup.events" ||
			{ echo "weights: stress-ng is not running in ${i#*:}:" >&2; cat /tmp/bench-hogs.log >&2; return 1; }
	done
}

# hog_times PATH: "TID NS" per worker thread of the leaf (a thread whose
# process is no other leaf task's parent: stress-ng's parent only waits),
# NS its CPU time so far (/proc/TID/schedstat, any scheduling class)
hog_times() {
	local f t line run w
	local -A parent=()
	f=$(cg_dir "$1")/cgroup.threads
	while read -r t; do
		read -r line <"/proc/$t/stat" 2>/dev/null || continue
		# after "(comm) ": state ppid ...
		# shellcheck disable=SC2086
		set -- ${line##*) }
		parent[$2]=1
	done <"$f"
	while read -r t; do
		[ -z "${parent[$t]-}" ] || continue
		read -r run w <"/proc/$t/schedstat" 2>/dev/null || continue
		echo "$t $run"
	done <"$f"
}

# hog_spread BEFORE AFTER: (max - min) / mean of the threads' CPU time
# deltas in %, over the threads in both "TID NS" lists
hog_spread() {
	awk 'FNR == 1 { f++ } f == 1 { a[$1] = $2; next } ($1 in a) {
		d = $2 - a[$1]; n++; s += d
		if (n == 1 || d > mx) mx = d
		if (n == 1 || d < mn) mn = d
	} END { if (n < 1 || s <= 0) exit 1; printf "%.3f\n", 100 * (mx - mn) / (s / n) }' \
		<(echo "$1") <(echo "$2")
}

# The measured window is delimited by builtin-only reads of every leaf.
wl_measure() {
	local v=$1 i k t0 t1 in="" names=() paths=() u0=() u1=() h0=() sp
	for i in $(hog_leaves "$v"); do names+=("${i%%:*}"); paths+=("${i#*:}"); done
	sleep "$SCN_WARMUP"
	t0=$EPOCHREALTIME
	for k in "${!paths[@]}"; do cg_usage_into "u0[$k]" "${paths[$k]}" || return 1; done
	for k in "${!paths[@]}"; do h0[k]=$(hog_times "${paths[$k]}"); done
	sleep "$SCN_DURATION"
	for k in "${!paths[@]}"; do cg_usage_into "u1[$k]" "${paths[$k]}" || return 1; done
	t1=$EPOCHREALTIME
	for k in "${!paths[@]}"; do
		sp=$(hog_spread "${h0[k]}" "$(hog_times "${paths[$k]}")") ||
			{ echo "weights: no worker of ${paths[$k]} ran in the window" >&2; return 1; }
		echo "spread_pct.${names[$k]} $sp"
	done
	for k in "${!paths[@]}"; do
		in="$in${names[$k]} $((u1[k] - u0[k])) ${paths[$k]}"$'\n'
	done
	awk -v cfg="$HOG_CFG" -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v ncpu="$(nproc)" '
		BEGIN { n = split(cfg, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); c[f[1]] = f[2] } }
		NF == 3 { name[++k] = $1; d[k] = $2; p[k] = $3; s += $2 }
		END {
			if (s <= 0) { print "weights: the hogs used no CPU" > "/dev/stderr"; exit 1 }
			for (i = 1; i <= k; i++) {
				if (!(p[i] in c)) { print "weights: no configured share for " p[i] > "/dev/stderr"; exit 1 }
				m = 100 * d[i] / s; e = m - 100 * c[p[i]]; a = e < 0 ? -e : e; if (a > mx) mx = a
				printf "share_pct.%s %.3f\nshare_cfg_pct.%s %.3f\nerr_pp.%s %.3f\n", name[i], m, name[i], 100 * c[p[i]], name[i], e
			}
			printf "max_abs_err_pp %.3f\nbusy_pct %.3f\n", mx, s / (wall * ncpu * 10000)
		}' <<<"$in"
}

wl_stop() {
	local i
	for i in $(hog_leaves "$1"); do cg_kill "${i#*:}" || return 1; done
	wait "${HOG_PIDS[@]}" 2>/dev/null
	return 0
}
