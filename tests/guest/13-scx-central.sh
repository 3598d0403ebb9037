#!/bin/bash
# tier: quick - the example scheduler scx_central under real load
# timeout: 180
# scx_central (one CPU makes every scheduling decision, the others run with
# infinite slices and a BPF timer preempts them) schedules real work:
# - -h prints a Usage line;
# - a CPU-bound loop runs through it (sched_proof, see scx-lib.sh);
# - a parallel make (3 C files compiled by gcc, linked and run, 4 pipelines
#   of seq|sort|awk) and a fork/exec loop, next to two busy loops (more
#   tasks than CPUs, so the timer must preempt), completes with the right
#   results, the loader stays attached, and the counters show that the
#   central CPU dispatched (nr_dispatches), the timer ran (nr_timers) and
#   preempted (nr_timer_kicks).
# stress-ng is not used: its cpu stressor fails its own metrics check in
# this TCG guest even under CFS.  TCG with 4 vCPUs on 2 host cores is slow
# (one gcc compile and link next to 4 busy loops takes ~18 s under CFS,
# scx_simple or scx_central alike): the workload is small.  Takes ~60 s.
. "$(dirname "$0")/scx-lib.sh"
bin=$SCX_BUILD/scx_central
[ -x "$bin" ] || { echo "$bin not built"; exit 1; }
"$bin" -h | grep -q Usage || { echo "no -h help"; exit 1; }

# the timer is started on the central CPU and must stay there
tm=/proc/sys/kernel/timer_migration
old_tm=$(cat $tm 2>/dev/null)
[ -n "$old_tm" ] && echo 0 >$tm
pids= wl=
cleanup() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -n "$spid" ] && scx_stop 2>/dev/null
	[ -n "$old_tm" ] && echo "$old_tm" >$tm
	[ -n "$wl" ] && rm -rf "$wl"
}
trap cleanup EXIT

echo "== sched_proof"
sched_proof "$TEST_LOG_DIR/scx_central-proof.log" "$bin" || exit 1

# the workload, in a writable scratch folder; every result can be checked
# without a reference run
wl=$(mktemp -d /tmp/scx-central-wl.XXXXXX) || exit 1
n=300000
expect=0
for i in 1 2; do
	cat >"$wl/f$i.c" <<-CODE
	unsigned long f$i(void)
	{
		unsigned long s = 0, i;

		for (i = 0; i < ${n}UL * $i; i++)
			s += i;
		return s;
	}
	CODE
	expect=$((expect + n * i * (n * i - 1) / 2))
done
cat >"$wl/main.c" <<-'CODE'
	#include <stdio.h>
	unsigned long f1(void), f2(void);
	int main(void)
	{
		printf("%lu\n", f1() + f2());
		return 0;
	}
CODE
# recipes need tabs: printf
{
	echo 'OBJS := $(patsubst %.c,%.o,$(wildcard *.c))'
	echo 'PIPES := $(addprefix p,$(shell seq 1 4))'
	echo 'all: result $(PIPES)'
	printf 'result: prog\n\t./prog >$@\n'
	printf 'prog: $(OBJS)\n\tgcc -o $@ $^\n'
	printf '%%.o: %%.c\n\tgcc -O1 -c -o $@ $<\n'
	printf 'p%%:\n\tseq 1 $$(($* * 1000)) | sort -rn | '
	echo "awk 'NR == 1 { m = \$\$1 } END { print m, NR }' >\$@"
} >"$wl/Makefile"

echo "== workload"
log=$TEST_LOG_DIR/scx_central-workload.log
sched_start "$log" "$bin" || exit 1

# two busy loops: with make -j4 on top more tasks than CPUs are runnable,
# and the timer must preempt the infinite slices
loops=
for i in 1 2; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
done
pids=$loops
start=$(date +%s.%N)
timeout 90 make -s -C "$wl" -j4 all >"$TEST_LOG_DIR/scx_central-make.log" 2>&1
make_rc=$?
# fork/exec churn
churn_rc=0
for i in $(seq 10); do /bin/true || churn_rc=1; done
end=$(date +%s.%N)
kill $loops
wait $loops 2>/dev/null
pids=

bad=
[ "$(cat "$wl/result" 2>/dev/null)" = "$expect" ] ||
	bad="$bad result($(cat "$wl/result" 2>/dev/null) != $expect)"
for i in $(seq 1 4); do
	[ "$(cat "$wl/p$i" 2>/dev/null)" = "$((i * 1000)) $((i * 1000))" ] ||
		bad="$bad p$i"
done
echo "make exit $make_rc, results ${bad:-ok}, $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"

fail=0
sched_alive scx_central || fail=1
sched_stop "$log" || fail=1
cat "$log"
[ $make_rc = 0 ] || { echo "FAIL: make exited $make_rc"; cat "$TEST_LOG_DIR/scx_central-make.log"; fail=1; }
[ -z "$bad" ] || { echo "FAIL: wrong workload results:$bad"; fail=1; }
[ $churn_rc = 0 ] || { echo "FAIL: fork/exec loop failed"; fail=1; }

# the last counters, printed after the detach
counter() { grep -o "\b$1=[0-9-]*" "$log" | tail -n1 | cut -d= -f2; }
for c in nr_dispatches nr_timers nr_timer_kicks; do
	v=$(counter $c)
	echo "$c=${v:-missing}"
	[ "${v:-0}" -gt 0 ] || { echo "FAIL: $c stayed 0"; fail=1; }
done
echo "nr_timer_off_cpu=$(counter nr_timer_off_cpu) nr_dispatched=$(counter nr_dispatched) nr_resumes=$(counter nr_resumes) nr_mismatches=$(counter nr_mismatches) nr_lost_pids=$(counter nr_lost_pids)"
exit $fail
