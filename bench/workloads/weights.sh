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
#                toggle=NAME  the leaf NAME goes idle and active: frozen
#                          (cgroup.freeze) every other phase of the window
#                period=MS  length of one phase with toggle (default 500)
#                fork=US   (also per variant) the hogs are short-lived
#                          instead: per leaf, `hogs`
#                          forkexit loops (tests/tools/forkexit.c -s US)
#                          each fork a child that spins US microseconds of
#                          CPU and exits; shows whether a scheduler keeps
#                          a cgroup's share when its tasks never live long
# Metrics: share_pct.NAME, share_cfg_pct.NAME, err_pp.NAME (measured minus
# configured, percentage points), max_abs_err_pp, busy_pct (the leaves'
# CPU time in % of all vCPUs: < 100 means the hogs did not saturate),
# spread_pct.NAME (CPU time inside the leaf: (max - min) / mean of its
# workers' CPU time over the window, in %; 0 when they got the same; not
# with fork=, whose workers do not outlive the window).
# With toggle, share_pct/err_pp come from the phases in which every leaf
# runs, and the other leaves also get share_idle_pct.NAME,
# share_idle_cfg_pct.NAME and err_idle_pp.NAME for the phases in which
# NAME is idle (the implied shares without NAME); max_abs_err_pp covers
# both.
# Limits: needs the cpu controller on along every leaf's path.

hog_leaves() { scn_var "$1" hogs | tr ',' ' '; }
# hog_fork V: the child's spin in us with fork= (variant, else scenario), or 0
hog_fork() { scn_get "$1" fork 0; }

# hog_path V NAME: the cgroup of leaf NAME in variant V ("" if none)
hog_path() {
	local i
	for i in $(hog_leaves "$1"); do
		[ "${i%%:*}" = "$2" ] && { echo "${i#*:}"; return 0; }
	done
	return 1
}

HOG_FZ=
FORKEXIT=$ROOT/build/tools/forkexit

wl_check() {
	local v i n t p
	n=$(scn_param hogs 2)
	scn_valid_uint "$n" && [ "$n" -ge 1 ] || { echo "weights: hogs must be >= 1" >&2; return 1; }
	[ "$SCN_DURATION" -ge 1 ] || { echo "weights: duration must be >= 1" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		[ -n "$(hog_leaves "$v")" ] || { echo "weights: variant $v has no hogs=NAME:CGROUP,..." >&2; return 1; }
		for i in $(hog_leaves "$v"); do
			[[ $i =~ ^[a-z0-9_A-Z]+:[A-Za-z0-9_./-]+$ ]] || { echo "weights: variant $v: bad entry '$i' (NAME:CGROUP)" >&2; return 1; }
		done
	done
	for v in $SCN_VARIANTS; do
		t=$(hog_fork "$v")
		scn_valid_uint "$t" && [ "$t" -le 10000000 ] || { echo "weights: variant $v: fork must be 0-10000000 (us)" >&2; return 1; }
	done
	t=$(scn_param toggle '')
	[ -n "$t" ] || return 0
	p=$(scn_param period 500)
	scn_valid_uint "$p" && [ "$p" -ge 50 ] || { echo "weights: period must be >= 50 (ms)" >&2; return 1; }
	[ $((SCN_DURATION * 1000)) -ge $((2 * p)) ] || { echo "weights: duration must hold two phases of period $p ms" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		hog_path "$v" "$t" >/dev/null || { echo "weights: variant $v has no leaf $t to toggle" >&2; return 1; }
		[ "$(hog_leaves "$v" | wc -w)" -ge 2 ] || { echo "weights: variant $v: toggle needs a second leaf" >&2; return 1; }
	done
}

wl_prepare() {
	local v
	for v in $SCN_VARIANTS; do
		[ "$(hog_fork "$v")" = 0 ] || [ -x "$FORKEXIT" ] ||
			{ echo "weights: $FORKEXIT not built (make bpf)" >&2; return 1; }
	done
}

wl_start() {
	local i t=$((SCN_WARMUP + SCN_DURATION + 120)) leaves=()
	HOG_PIDS=()
	for i in $(hog_leaves "$1"); do leaves+=("${i#*:}"); done
	# configured shares, computed before the hogs make every fork slow
	HOG_CFG=$(cg_shares "${leaves[@]}") || return 1
	HOG_CFG_IDLE= HOG_FZ=
FORKEXIT=$ROOT/build/tools/forkexit
	if [ -n "$(scn_param toggle '')" ]; then
		i=$(hog_path "$1" "$(scn_param toggle)")
		HOG_FZ=$(cg_dir "$i")/cgroup.freeze
		[ -w "$HOG_FZ" ] || { echo "weights: no $HOG_FZ (cgroup v2 freezer)" >&2; return 1; }
		# shellcheck disable=SC2046
		HOG_CFG_IDLE=$(cg_shares $(printf '%s\n' "${leaves[@]}" | grep -vxF "$i")) || return 1
	fi
	for i in $(hog_leaves "$1"); do
		if [ "$(hog_fork "$1")" != 0 ]; then
			cg_run "${i#*:}" "$FORKEXIT" -n "$(scn_param hogs 2)" -t "$t" -s "$(hog_fork "$1")" >>/tmp/bench-hogs.log 2>&1 &
		else
			cg_run "${i#*:}" stress-ng -q --temp-path /tmp --cpu "$(scn_param hogs 2)" --cpu-method "$(scn_param method int64)" --timeout "${t}s" >>/tmp/bench-hogs.log 2>&1 &
		fi
		HOG_PIDS+=($!)
	done
	sleep 1
	for i in $(hog_leaves "$1"); do
		grep -q '^populated 1' "$(cg_dir "${i#*:}")/cgroup.events" ||
			{ echo "weights: the hogs are not running in ${i#*:}:" >&2; cat /tmp/bench-hogs.log >&2; return 1; }
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
# With toggle=NAME it is cut into phases of period ms: NAME's leaf runs in
# the even ones and is frozen (cgroup.freeze: its tasks sleep, so the
# scheduler sees the cgroup go idle) in the odd ones, each phase ending
# with a read of every leaf.
wl_measure() {
	local v=$1 i k t0 t1 now ph nph=1 secs=$SCN_DURATION in="" names=() paths=()
	local u=() on=() off=() h0=() h1=() sp
	for i in $(hog_leaves "$v"); do names+=("${i%%:*}"); paths+=("${i#*:}"); on+=(0); off+=(0); done
	if [ -n "$HOG_FZ" ]; then
		nph=$((SCN_DURATION * 1000 / $(scn_param period 500)))
		nph=$((nph - nph % 2))	# whole active/idle pairs
		secs=$(awk -v p="$(scn_param period 500)" 'BEGIN { print p / 1000 }')
	fi
	sleep "$SCN_WARMUP"
	t0=$EPOCHREALTIME
	for k in "${!paths[@]}"; do cg_usage_into "u[$k]" "${paths[$k]}" || return 1; done
	[ "$(hog_fork "$v")" != 0 ] || for k in "${!paths[@]}"; do h0[k]=$(hog_times "${paths[$k]}"); done
	for ((ph = 0; ph < nph; ph++)); do
		[ -z "$HOG_FZ" ] || echo $((ph % 2)) >"$HOG_FZ" || return 1
		sleep "$secs"
		for k in "${!paths[@]}"; do
			cg_usage_into now "${paths[$k]}" || return 1
			if ((ph % 2)); then off[k]=$((off[k] + now - u[k])); else on[k]=$((on[k] + now - u[k])); fi
			u[k]=$now
		done
	done
	[ -z "$HOG_FZ" ] || echo 0 >"$HOG_FZ" || return 1
	t1=$EPOCHREALTIME
	[ "$(hog_fork "$v")" != 0 ] || for k in "${!paths[@]}"; do h1[k]=$(hog_times "${paths[$k]}"); done
	for k in "${!paths[@]}"; do
		in="$in${names[$k]} ${on[k]} ${off[k]} ${paths[$k]}"$'\n'
	done
	# shares while every leaf runs (the untoggled window, or the active
	# phases) against HOG_CFG; while the toggled leaf is idle, the other
	# leaves' shares against HOG_CFG_IDLE
	awk -v cfg="$HOG_CFG" -v cfgi="$HOG_CFG_IDLE" -v tg="$(scn_param toggle '')" \
		-v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v ncpu="$(nproc)" '
		function load(text, arr,	n, l, f, i) {
			n = split(text, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, " "); arr[f[1]] = f[2] }
		}
		function abs(x) { return x < 0 ? -x : x }
		BEGIN { load(cfg, c); load(cfgi, ci) }
		NF == 4 { name[++k] = $1; d[k] = $2; di[k] = $3; p[k] = $4; s += $2; all += $2 + $3; if ($1 != tg) si += $3 }
		END {
			if (s <= 0) { print "weights: the hogs used no CPU" > "/dev/stderr"; exit 1 }
			if (tg != "" && si <= 0) { print "weights: the hogs used no CPU while " tg " was idle" > "/dev/stderr"; exit 1 }
			for (i = 1; i <= k; i++) {
				if (!(p[i] in c)) { print "weights: no configured share for " p[i] > "/dev/stderr"; exit 1 }
				m = 100 * d[i] / s; e = m - 100 * c[p[i]]; if (abs(e) > mx) mx = abs(e)
				printf "share_pct.%s %.3f\nshare_cfg_pct.%s %.3f\nerr_pp.%s %.3f\n", name[i], m, name[i], 100 * c[p[i]], name[i], e
				if (tg == "" || name[i] == tg)
					continue
				if (!(p[i] in ci)) { print "weights: no configured idle share for " p[i] > "/dev/stderr"; exit 1 }
				m = 100 * di[i] / si; e = m - 100 * ci[p[i]]; if (abs(e) > mx) mx = abs(e)
				printf "share_idle_pct.%s %.3f\nshare_idle_cfg_pct.%s %.3f\nerr_idle_pp.%s %.3f\n", name[i], m, name[i], 100 * ci[p[i]], name[i], e
			}
			printf "max_abs_err_pp %.3f\nbusy_pct %.3f\n", mx, all / (wall * ncpu * 10000)
		}' <<<"$in" || return 1
	[ "$(hog_fork "$v")" = 0 ] || return 0
	for k in "${!paths[@]}"; do
		sp=$(hog_spread "${h0[k]}" "${h1[k]}") ||
			{ echo "weights: no worker of ${paths[$k]} ran in the window" >&2; return 1; }
		echo "spread_pct.${names[$k]} $sp"
	done
}

wl_stop() {
	local i
	[ -z "$HOG_FZ" ] || echo 0 >"$HOG_FZ"
	for i in $(hog_leaves "$1"); do cg_kill "${i#*:}" || return 1; done
	wait "${HOG_PIDS[@]}" 2>/dev/null
	return 0
}
