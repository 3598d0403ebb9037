# smt.sh - workload module: the cost of SMT isolation by cgroup.  Two
# cgroups (groups A and B) each run N CPU hogs and S sleepers
# (tests/tools/spinner, named hogA0.., hogAs0.., hogB0..: the comm names the
# group at a glance in a trace).  Every task of a group is forked by one
# shell started in the group's cgroup, through tests/tools/cookie-run when
# the variant asks for cookies: the group then shares one core-scheduling
# cookie.  (Guest side; sourced by bench/guest/main.sh, bash.)
#
# Variant keys:  groups=A:CGROUP,B:CGROUP   the two cgroups (names A and B)
#                cookies=yes|no             one cookie per group (default no)
# Parameters:    hogs=N      CPU hogs per group (default 2)
#                sleepers=N  per group; each spins 500 us, sleeps 2 ms
#                            (default 1)
# Metrics, over the measured window (times from cpu.stat and /proc/stat):
#   hog_cpu_pct      both groups' CPU time in % of all vCPUs: the throughput
#                    (main metric; the hogs alone could fill every vCPU)
#   share_pct.A/B    each group's part of that time
#   idle_pct         the guest's idle time in % of all vCPUs: with hogs
#                    always runnable in both groups, idle is forced idle,
#                    whoever forces it (core scheduling or pair)
#   forceidle_pct    the kernel core scheduler's own forced-idle time
#                    (cpu.stat core_sched.force_idle_usec of both groups;
#                    schedstats are switched on for it), in % of all vCPUs:
#                    0 under schedulers that do not use cookies
#   overlap_pct      time two SMT siblings ran tasks of different groups
#                    at once, in % of the traced span; overlap_us,
#                    trace_lost (bench/lib/overlap.sh: a run whose trace
#                    lost events is an error)
# Limits: under QEMU TCG the siblings are separate host threads, so two
# siblings busy do twice the work of one; on real SMT hardware the gain is
# far less, and the throughput cost of forced idle here is an upper bound.
# The trace costs every variant the same few events per switch.

SMT_TOOLS=${BUILD:-$ROOT/build}/tools

smt_groups() { scn_var "$1" groups | tr ',' ' '; }

wl_check() {
	local v i n k
	for k in hogs sleepers; do
		n=$(scn_param $k 1)
		scn_valid_uint "$n" || { echo "smt: $k must be a whole number" >&2; return 1; }
	done
	[ "$(scn_param hogs 2)" -ge 1 ] || { echo "smt: hogs must be >= 1" >&2; return 1; }
	[ "$SCN_DURATION" -ge 1 ] || { echo "smt: duration must be >= 1" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		[ "$(smt_groups "$v" | tr ' ' '\n' | cut -d: -f1 | sort | tr '\n' ' ')" = "A B " ] ||
			{ echo "smt: variant $v needs groups=A:CGROUP,B:CGROUP" >&2; return 1; }
		for i in $(smt_groups "$v"); do
			[[ $i =~ ^[AB]:[A-Za-z0-9_./-]+$ ]] || { echo "smt: variant $v: bad group '$i'" >&2; return 1; }
		done
		case $(scn_var "$v" cookies) in '' | yes | no) ;;
		*) echo "smt: variant $v: cookies must be yes or no" >&2; return 1 ;;
		esac
	done
}

wl_prepare() {
	local t
	for t in spinner cookie-run; do
		[ -x "$SMT_TOOLS/$t" ] || { echo "smt: $SMT_TOOLS/$t is not built (make bpf)" >&2; return 1; }
	done
	. "$BENCH/lib/overlap.sh" && ovl_prepare || return 1
	# the core scheduler accounts forced idle only with schedstats on
	echo 1 >/proc/sys/kernel/sched_schedstats
}

wl_start() {
	local i g cg wrap=() n s
	n=$(scn_param hogs 2) s=$(scn_param sleepers 1)
	SMT_PIDS=()
	[ "$(scn_var "$1" cookies)" = yes ] && wrap=("$SMT_TOOLS/cookie-run")
	for i in $(smt_groups "$1"); do
		g=${i%%:*} cg=${i#*:}
		# shellcheck disable=SC2016
		cg_run "$cg" "${wrap[@]}" sh -c '
			i=0; while [ $i -lt $2 ]; do "$1" -n hog$4$i & i=$((i + 1)); done
			i=0; while [ $i -lt $3 ]; do "$1" -n hog$4s$i -r 500 -s 2000 & i=$((i + 1)); done
			wait' sh "$SMT_TOOLS/spinner" "$n" "$s" "$g" >>/tmp/bench-smt.log 2>&1 &
		SMT_PIDS+=($!)
	done
	sleep 1
	for i in $(smt_groups "$1"); do
		cg=$(cg_dir "${i#*:}")
		[ "$(grep -c . "$cg/cgroup.procs")" -ge $((1 + n + s)) ] ||
			{ echo "smt: the tasks of ${i#*:} did not start:" >&2; cat /tmp/bench-smt.log >&2; return 1; }
	done
}

# smt_stat_into VAR CGROUP KEY: cg_stat_into, 0 if the kernel has no KEY
smt_stat_into() { cg_stat_into "$@" || printf -v "$1" 0; }

wl_measure() {
	local v=$1 i k t0 t1 s0 s1 ov names=() paths=() u0=() u1=() f0=() f1=()
	for i in $(smt_groups "$v"); do names+=("${i%%:*}"); paths+=("${i#*:}"); done
	sleep "$SCN_WARMUP"
	# shellcheck disable=SC2046
	ovl_begin $(smt_groups "$v") || return 1
	t0=$EPOCHREALTIME
	cpustat_snap s0
	for k in "${!paths[@]}"; do
		smt_stat_into "u0[$k]" "${paths[$k]}" usage_usec
		smt_stat_into "f0[$k]" "${paths[$k]}" core_sched.force_idle_usec
	done
	sleep "$SCN_DURATION"
	for k in "${!paths[@]}"; do
		smt_stat_into "u1[$k]" "${paths[$k]}" usage_usec
		smt_stat_into "f1[$k]" "${paths[$k]}" core_sched.force_idle_usec
	done
	cpustat_snap s1
	t1=$EPOCHREALTIME
	# the hogs go before the trace is read: under pair this shell's
	# cgroup would otherwise wait for the core at every fork
	ovl_stop
	for k in "${!paths[@]}"; do cg_kill "${paths[$k]}" || return 1; done
	ov=$(ovl_end) || return 1
	echo "$ov"
	awk -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v ncpu="$(nproc)" \
		-v busy="$(cpustat_busy_pct "$s0" "$s1")" '
		NF == 3 { name[++k] = $1; d[k] = $2; fi += $3; s += $2 }
		END {
			if (s <= 0) { print "smt: the hogs used no CPU" > "/dev/stderr"; exit 1 }
			cap = wall * ncpu * 1e6
			printf "hog_cpu_pct %.3f\n", 100 * s / cap
			for (i = 1; i <= k; i++) printf "share_pct.%s %.3f\n", name[i], 100 * d[i] / s
			printf "idle_pct %.3f\nforceidle_pct %.3f\n", 100 - busy, 100 * fi / cap
		}' < <(for k in "${!paths[@]}"; do
			echo "${names[$k]} $((u1[k] - u0[k])) $((f1[k] - f0[k]))"; done)
}

wl_stop() {
	local i
	for i in $(smt_groups "$1"); do cg_kill "${i#*:}" || return 1; done
	wait "${SMT_PIDS[@]}" 2>/dev/null
	return 0
}
