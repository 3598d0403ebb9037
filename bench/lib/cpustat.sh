# cpustat.sh - how busy the guest's CPUs were over a window, from /proc/stat
# (sourced by workload modules, bash).  The web scenario's claim only holds
# when the CPUs are saturated, so each run reports busy_pct and the report
# flags runs below 98%.
#   cpustat_snap VAR          store "busy total" jiffies of all CPUs in VAR
#   cpustat_busy_pct A B      busy share between two snapshots, in percent
# Limits: jiffies (USER_HZ) resolution; iowait counts as idle, steal as busy
# (a guest cannot tell steal apart under TCG anyway).

cpustat_snap() {
	local -a f
	read -r -a f </proc/stat	# cpu user nice system idle iowait irq softirq steal ...
	local idle=$((f[4] + f[5])) total=0 i
	for ((i = 1; i <= 8 && i < ${#f[@]}; i++)); do total=$((total + f[i])); done
	printf -v "$1" '%s %s' $((total - idle)) $total
}

cpustat_busy_pct() {
	local b0 t0 b1 t1
	read -r b0 t0 <<<"$1"
	read -r b1 t1 <<<"$2"
	awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { if (t > 0) printf "%.2f\n", 100 * b / t }'
}
