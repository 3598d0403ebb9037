#!/bin/bash
# tier: quick - the host-speed probe and its rows (seconds)
# 69-bench-hostspeed.sh - host test: bench/hostspeed (the host-speed probe:
# help, refused options, the sample format, the -i stream, which stops
# when its parent is gone) and hostspeed_rows (bench/lib/hostspeed.sh):
# each run's mean host_chase_us over its measured window from
# windows.csv, over its progress window when it has none, with the run's
# status; no rows without samples.
# Synthetic folders; no QEMU.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
gcc -O2 -Wall -Wextra -Werror -std=c11 -o "$tmp/hs" "$ROOT/bench/hostspeed.c" || { echo "FAIL: hostspeed.c does not build"; exit 1; }
H=$tmp/hs

"$H" -h | grep -q '^usage: hostspeed' || bad "-h gives no usage"
out=$("$H" -i 0 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "-i wants a whole number from 1 to 3600, not '0'" <<<"$out" || bad "-i 0: rc $rc, '$out'"
out=$("$H" -m 1x 2>&1) && bad "-m 1x accepted"
out=$("$H" extra 2>&1) && bad "an operand accepted"
out=$("$H" -m 1 -s 1000) || bad "one sample failed"
grep -Eqx '[0-9]{10}\.[0-9]{3},[0-9]+' <<<"$out" || bad "one sample is not 'epoch,chase_us': '$out'"
# a walk 100 times longer takes longer (the figure measures the walk)
a=$("$H" -m 8 -s 10000 | cut -d, -f2) b=$("$H" -m 8 -s 1000000 | cut -d, -f2)
[ "$b" -gt "$a" ] || bad "1000000 steps ($b us) not slower than 10000 ($a us)"
timeout 3 "$H" -i 1 -m 1 -s 1000 >"$tmp/stream"
head -n 1 "$tmp/stream" | grep -qx 'epoch,chase_us' || bad "-i: no header"
[ "$(grep -Ec '^[0-9]{10}\.[0-9]{3},[0-9]+$' "$tmp/stream")" -ge 2 ] || bad "-i 1: fewer than 2 samples in 3 s: $(cat "$tmp/stream")"
# a stream whose parent is gone (run.sh killed) stops by itself (the
# parent lives 1 s: the one it had when it started is the one it watches)
( "$H" -i 1 -m 1 -s 1000 >/dev/null & echo $! >"$tmp/orphan.pid"; sleep 1 )
sleep 3
if kill -0 "$(cat "$tmp/orphan.pid")" 2>/dev/null; then
	bad "hostspeed -i outlived its parent by 3 s"
	kill "$(cat "$tmp/orphan.pid")"
fi

. "$ROOT/bench/lib/runspans.sh"
. "$ROOT/bench/lib/hostspeed.sh"
d=$tmp/f
mkdir -p "$d"
# runs 1-3 start at 100, 130, 160; the boot is done at 190; a sample every
# 2 s whose value is its time, so a window's mean is the mean of its times
{ echo "epoch,line"
  for i in 1 2 3; do echo "$((70 + 30 * i)),[web] round $i/3  run $i/3  variant v$i  sched cfs"; done
  echo "190,[web] done: 3 runs"; } >"$d/progress-host.csv"
{ echo "epoch,chase_us"; for t in $(seq 100 2 190); do echo "$t.250,$t"; done; } >"$d/host-speed.csv"
{ echo "round,run,variant,sched,config,metric,value,status"
  echo "1,1,v1,cfs,flat.conf,req_s,10,ok"; echo "1,1,v1,cfs,flat.conf,busy_pct,99,ok"
  echo "2,2,v2,flatcg,flat.conf,req_s,0,ejected"
  echo "3,3,v3,cfs,flat.conf,req_s,12,ok"
  echo "4,4,v4,cfs,flat.conf,req_s,12,ok"; } >"$d/raw.csv"
# measured windows for runs 1 and 2 only
printf 'round,run,variant,start,end\n1,1,v1,105.0,115.0\n2,2,v2,135.5,145.5\n' >"$d/windows.csv"
hostspeed_rows "$d" >"$tmp/rows"
# run 1: samples 106..114 (mean 110); run 2: 136..144 (140); run 3, no
# window: its progress window 160..188 (174); run 4 was never announced
want='1,1,v1,cfs,flat.conf,host_chase_us,110,ok
2,2,v2,flatcg,flat.conf,host_chase_us,140,ejected
3,3,v3,cfs,flat.conf,host_chase_us,174,ok'
[ "$(cat "$tmp/rows")" = "$want" ] || bad "hostspeed_rows: got
$(cat "$tmp/rows")
want
$want"
# without windows.csv every run takes its progress window: 100..128 (114)
rm "$d/windows.csv"
[ "$(hostspeed_rows "$d" | head -n 1)" = "1,1,v1,cfs,flat.conf,host_chase_us,114,ok" ] ||
	bad "hostspeed_rows without windows: $(hostspeed_rows "$d" | head -n 1)"
rm "$d/host-speed.csv"
[ -z "$(hostspeed_rows "$d")" ] || bad "rows without host-speed.csv"

[ $fail = 0 ] && echo "bench hostspeed: ok"
exit $fail
