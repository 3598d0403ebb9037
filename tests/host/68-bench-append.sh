#!/bin/bash
# 68-bench-append.sh - host test: bench/run.sh -a adds a new boot's rounds
# to a results folder.  bench/lib/append.sh renumbers the new rounds and
# runs after the old ones (raw.csv, runs.csv, windows.csv, progress),
# keeps the host samples (load and speed) so a busy host still flags the
# right run, records the boot in meta.txt; report.sh pairs across the
# merged rounds and lists the boots.
# Refused: another kernel in the guest (folder left as it was), and in
# run.sh, before any boot, another kernel build, scheduler binary, pinning
# or bad options.
# Synthetic folders, no QEMU.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# STATS: a built bench/stats (make bench-stats), else built here
if [ ! -x "${STATS:-}" ]; then
	gcc -O2 -Wall -std=c11 -o "$tmp/stats" "$ROOT/bench/stats.c" -lm || exit 1
	STATS=$tmp/stats
fi
export STATS
. "$ROOT/bench/lib/append.sh"

# meta ROUNDS KERNEL SEED
meta() {
	printf '%s\n' "date=2026-01-0$3T00:00:00Z" scenario=web mode=full "rounds=$1" "variants=a b" \
		guest_vcpus=2 guest_mem_mib=2048 vcpus_pinned=no kernel_config_sha1=k0 series_commit=s0 \
		"host_load_before=0.1" "host_load_after=0.2" "host_compiler_samples=0 of 3 (every 5 s)" \
		host_other_qemu_samples=0 "harness_commit=h$3" "guest_kernel=$2" guest_order=shuffle "guest_seed=$3"
}
# folder DIR ROUNDS KERNEL SEED T0 [COMPILER_AT]: a web run of variants a
# and b, b 10% faster; progress lines every 10 s from T0
folder() {
	local d=$1 n=$2 i=0 r v
	mkdir -p "$d"
	meta "$n" "$3" "$4" >"$d/meta.txt"
	echo "round,run,variant,sched,config,metric,value,status" >"$d/raw.csv"
	echo "round,run,variant,sched,status,loader_rc,exit_reason" >"$d/runs.csv"
	echo "round,run,variant,start,end" >"$d/windows.csv"
	echo "epoch,line" >"$d/progress-host.csv"
	: >"$d/progress.log"
	for r in $(seq "$n"); do
		for v in a b; do
			i=$((i + 1))
			echo "$r,$i,$v,cfs,flat.conf,req_s,$([ $v = a ] && echo 10 || echo 11).$((r % 3)),ok" >>"$d/raw.csv"
			echo "$r,$i,$v,cfs,ok,," >>"$d/runs.csv"
			echo "$r,$i,$v,$(($5 + 10 * i + 3)),$(($5 + 10 * i + 8))" >>"$d/windows.csv"
			echo "[web] round $r/$n  run $i/$((2 * n))  variant $v  sched cfs  elapsed 0:0$i" >>"$d/progress.log"
			echo "$(($5 + 10 * i)),[web] round $r/$n  run $i/$((2 * n))  variant $v  sched cfs" >>"$d/progress-host.csv"
		done
	done
	echo "$(($5 + 10 * i + 10)),[web] done: $i runs" >>"$d/progress-host.csv"
	{ echo "epoch,load1,compiler,other_qemu"
	  for t in $(seq $(($5 + 5)) 10 $(($5 + 10 * i + 5))); do
		echo "$t,0.1,$([ "$t" = "${6-}" ] && echo 1 || echo 0),0"
	  done; } >"$d/host-samples.csv"
	# host speed every 2 s, the value the boot's seed followed by the time
	{ echo "epoch,chase_us"; for t in $(seq "$5" 2 $(($5 + 10 * i + 10))); do echo "$t,$4$t"; done; } >"$d/host-speed.csv"
	echo "boot seed $4" >"$d/dmesg.txt"
	{ echo "round,run,variant,sched,metric,value,count,status"
	  echo "$n,$i,b,cfs,latency_us.web,1000,3,ok"; } >"$d/hist.csv"
}

d=$tmp/res
folder "$d" 3 k1 1 1000
cat >"$d/scenario.scn" <<'EOF'
workload web
duration 15
rounds 3
order shuffle
variant a sched=cfs config=flat.conf web=web:bench/web client=client
variant b sched=cfs config=flat.conf web=web:bench/web client=client
compare a b label=b/a
EOF

# compatibility: same setup accepted, another pinning refused by name
append_compat "$d" kernel_config_sha1=k0 series_commit=s0 mode=full guest_vcpus=2 2>/dev/null ||
	bad "append_compat refused a matching folder"
out=$(append_compat "$d" kernel_config_sha1=k0 vcpus_pinned=yes 2>&1) && bad "append_compat accepted another pinning"
grep -q 'vcpus_pinned=no, this run would have vcpus_pinned=yes' <<<"$out" || bad "append_compat did not name the field: $out"
append_compat "$tmp/nowhere" mode=full 2>/dev/null && bad "append_compat accepted a missing folder"

# a new boot of 2 rounds, a compiler seen during its run 2 (t=2025)
folder "$tmp/new" 2 k1 2 2000 2025
append_merge "$d" "$tmp/new" || bad "append_merge failed"
[ "$(awk -F, 'NR > 1' "$d/raw.csv" | wc -l)" = 10 ] || bad "raw.csv does not hold 10 runs"
[ "$(awk -F, 'NR > 1 { print $1 }' "$d/raw.csv" | sort -un | tr '\n' ' ')" = "1 2 3 4 5 " ] || bad "rounds not 1-5"
[ "$(awk -F, 'NR > 1 { print $2 }' "$d/raw.csv" | sort -un | wc -l)" = 10 ] || bad "run numbers not unique"
grep -qx '5,10,b,cfs,ok,,' "$d/runs.csv" || bad "runs.csv not renumbered"
grep -qx '5,10,b,cfs,latency_us.web,1000,3,ok' "$d/hist.csv" && [ "$(wc -l <"$d/hist.csv")" = 3 ] ||
	bad "hist.csv not merged"
[ "$(grep -c '^round' "$d/raw.csv")" = 1 ] || bad "a second header in raw.csv"
grep -q '^2040,\[web\] round 5/5  run 10/10  variant b' "$d/progress-host.csv" || bad "progress-host.csv not renumbered"
grep -qx '5,10,b,2043,2048' "$d/windows.csv" && [ "$(grep -c '^round' "$d/windows.csv")" = 1 ] ||
	bad "windows.csv not renumbered"
[ "$(awk -F, '$2 ~ /^1/' "$d/host-speed.csv" | wc -l)" = 36 ] && [ "$(awk -F, '$2 ~ /^2/' "$d/host-speed.csv" | wc -l)" = 26 ] &&
	[ "$(grep -c '^epoch' "$d/host-speed.csv")" = 1 ] || bad "host-speed.csv not merged"
grep -q '^\[web\] round 4/5  run 7/10  variant a' "$d/progress.log" || bad "progress.log not renumbered"
grep -qx 'rounds=5' "$d/meta.txt" || bad "meta.txt rounds not 5"
grep -q '^append_1=rounds 4-5 (runs 7-10) on 2026-01-02T00:00:00Z, seed 2, harness h2' "$d/meta.txt" || bad "append_1 line"
grep -qx 'host_compiler_samples=1 of 12 (every 5 s)' "$d/meta.txt" || bad "compiler samples not recounted"
grep -q '^==== append 1: rounds 4-5' "$d/dmesg.txt" && grep -q 'boot seed 2' "$d/dmesg.txt" || bad "dmesg.txt not appended"
ls -d "$tmp"/res.* 2>/dev/null && bad "merge left a folder behind"

# a compiler while the second guest booted (before its first run): no run's
echo "2003,0.1,1,0" >>"$d/host-samples.csv"
"$ROOT/bench/report.sh" "$d" >/dev/null || bad "report.sh on the merged folder"
s=$d/summary.md
grep -q '^| runs | 5 rounds x variants (a b) in 2 boots' "$s" || bad "runs row does not say 2 boots"
grep -q '^| boot 2, added by bench/run.sh -a | rounds 4-5 ' "$s" || bad "boot 2 not listed"
grep -q '^- run 1 (a): req_s 10.1, rank 2 of 5$' "$s" && grep -q '^- run 7 (a): req_s 10.1, rank 2 of 5$' "$s" ||
	bad "first runs of the two boots not ranked"
grep -Eq '^\| req_s \| 5 \| 1\.[0-9]{4} \|' "$s" || bad "ratio not over 5 pairs"
grep -q '^- run 8: host busy: a compiler ran;' "$s" || bad "host-busy run 8 not flagged"
[ "$(grep -c 'host busy' "$s")" = 1 ] || bad "other runs flagged as host busy (the boot between)"

# another guest kernel: refused, the folder left as it was
sum=$(cat "$d/raw.csv" "$d/meta.txt" | sha1sum)
folder "$tmp/other" 1 k2 3 3000
out=$(append_merge "$d" "$tmp/other" 2>&1) && bad "append_merge took rounds from another kernel"
grep -q "kernel 'k1', the new run on 'k2'" <<<"$out" || bad "kernel refusal not explained: $out"
[ "$(cat "$d/raw.csv" "$d/meta.txt" | sha1sum)" = "$sum" ] || bad "refused merge changed the folder"

# run.sh: options and the check before any boot
fake=$tmp/build
mkdir -p "$fake/kbuild"
echo 'CONFIG_OTHER=y' >"$fake/kbuild/.config"
run() { BUILD=$fake STATS=$STATS "$ROOT/bench/run.sh" "$@" 2>&1; }
out=$(run -a "$d") && bad "run.sh -a accepted another kernel build"
grep -q 'kernel_config_sha1=k0, this run would have kernel_config_sha1=' <<<"$out" &&
	grep -q 'not the same experiment (above); nothing was booted' <<<"$out" || bad "run.sh -a refusal: $out"
# the same kernel build but another scheduler binary: refused by name
mkdir -p "$tmp/plug" "$tmp/sd"
echo 'sched_binary() { echo "$BIN"; }' >"$tmp/plug/fake.sh"
echo one >"$tmp/bin"
cp "$d/meta.txt" "$d/scenario.scn" "$d/raw.csv" "$tmp/sd/"
sed -i 's/sched=cfs/sched=fake/' "$tmp/sd/scenario.scn"
sed -i -e "s/^kernel_config_sha1=.*/kernel_config_sha1=$(sha1sum "$fake/kbuild/.config" | cut -d' ' -f1)/" \
	-e 's/^series_commit=.*/series_commit=unknown/' "$tmp/sd/meta.txt"
echo "sched_sha1_fake=$(echo two | sha1sum | cut -d' ' -f1)" >>"$tmp/sd/meta.txt"
out=$(BIN=$tmp/bin BENCH_SCHED_DIR=$tmp/plug run -a "$tmp/sd") && bad "run.sh -a accepted another scheduler binary"
grep -q "this run would have sched_sha1_fake=$(sha1sum "$tmp/bin" | cut -d' ' -f1)" <<<"$out" &&
	[ "$(grep -c 'this run would have' <<<"$out")" = 1 ] || bad "run.sh -a scheduler refusal: $out"
out=$(run -a "$d" web) && bad "run.sh -a with a scenario accepted"
grep -q 'give no scenario' <<<"$out" || bad "run.sh -a DIR SCENARIO: $out"
out=$(run -a "$d" -q) && bad "run.sh -a -q accepted"
out=$(run -r 0 web) && bad "run.sh -r 0 accepted"
grep -q -- "-r takes a whole number >= 1, got '0'" <<<"$out" || bad "run.sh -r 0: $out"
run -h | grep -q -- '-a DIR' || bad "run.sh -h does not explain -a"

# scn_set_rounds: the count wins in full and quick mode
. "$ROOT/bench/lib/scenario.sh"
printf 'workload web\nrounds 30\nquick duration=3 rounds=1\nvariant a sched=cfs config=flat.conf\n' >"$tmp/s.scn"
scn_set_rounds "$tmp/s.scn" 7 >"$tmp/s7.scn"
scn_load "$tmp/s7.scn" && [ "$SCN_ROUNDS" = 7 ] || bad "scn_set_rounds: full mode has $SCN_ROUNDS rounds"
scn_load "$tmp/s7.scn" quick && [ "$SCN_ROUNDS" = 7 ] && [ "$SCN_DURATION" = 3 ] ||
	bad "scn_set_rounds: quick mode has $SCN_ROUNDS rounds, ${SCN_DURATION}s"

[ $fail = 0 ] && echo "ok: bench append" || exit 1
