# Shared by the guest loops of scripts/soak.sh (sourced, not run): a sleep
# and a hang report that use shell builtins only (no fork, no exec, no 9p),
# so they still work when the guest's file share or the scheduler is stuck.
fifo=/tmp/soak.fifo
rm -f $fifo; mkfifo $fifo; exec 9<>$fifo
bsleep() { read -r -t "$1" -u 9; }	# sleep without a fork

# report_hang I WHAT: on the console, the sched_ext state, every task not
# sleeping or idle with its wait channel, the kernel stacks of the D and R
# ones, and SysRq-W; the caller then ends its loop with exit 1
report_hang() {
	local d st w l
	echo "run $1 HUNG: $2; sched_ext state $(</sys/kernel/sched_ext/state)"
	for d in /proc/[0-9]*; do
		read -r st <"$d/stat" 2>/dev/null || continue
		read -r w <"$d/wchan" 2>/dev/null
		set -- $st
		case $3 in S | I) continue ;; esac
		echo "task $1 $2 $3 ppid=$4 wchan=$w"
		case $3 in D | R)
			while read -r l; do echo "  $l"; done <"$d/stack" ;;
		esac
	done
	echo w >/proc/sysrq-trigger
	bsleep 3
}
