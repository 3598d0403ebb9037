#!/bin/bash
# tier: quick - bench -a merging rounds into a results folder (seconds)
# 68-bench-append.sh - host test: bench/run.sh -a adds a new boot's rounds
# to a results folder.  bench/lib/append.sh renumbers the new rounds and
# runs after the old ones (raw.csv, runs.csv, windows.csv, progress),
# keeps the host samples (load and speed) so a busy host still flags the
# right run, records the boot in meta.txt; report.sh pairs across the
# merged rounds and lists the boots.
# Refused: another kernel in the guest (folder left as it was), and in
# run.sh, before any boot, another kernel build, scheduler binary (unless
# built again from the same sources), pinning, rounds of the old shuffle
# or bad options.
# bench/merge.sh adds a results folder's boot to another under the same
# checks (and the same scenario file); the report gives each comparison
# per boot.
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
		host_other_qemu_samples=0 "harness_commit=h$3" "guest_kernel=$2" guest_order=shuffle "guest_seed=$3" \
		shuffle_draw=lowbias32
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
# a build's id may differ where its sources' id does not (a new machine
# builds the same sources with other commit dates), never otherwise
c=$tmp/compat
mkdir -p "$c"
cp "$d/raw.csv" "$d/scenario.scn" "$c/"
{ meta 3 k1 1; echo series_tree=t0; echo sched_sha1_x=b0; echo sched_src_x=c0; } >"$c/meta.txt"
out=$(append_compat "$c" series_commit=s9 series_tree=t0 sched_sha1_x=b9 sched_src_x=c0 2>&1) ||
	bad "append_compat refused the same sources built again: $out"
grep -q 'series_commit differs (s0, now s9) but series_tree is the same' <<<"$out" &&
	grep -q 'sched_sha1_x differs (b0, now b9) but sched_src_x is the same' <<<"$out" ||
	bad "append_compat did not say why it took another build: $out"
out=$(append_compat "$c" series_commit=s9 series_tree=t9 2>&1) && bad "append_compat took another series"
grep -q 'series_commit=s0, this run would have series_commit=s9' <<<"$out" &&
	grep -q 'series_tree=t0, this run would have series_tree=t9' <<<"$out" || bad "another series: $out"
out=$(append_compat "$c" sched_sha1_x=b9 sched_src_x=c9 2>&1) && bad "append_compat took other scheduler sources"
out=$(append_compat "$c" sched_sha1_x=b9 2>&1) && bad "append_compat took another binary with no sources' id"
# a folder from before series_tree: its commit must match
out=$(append_compat "$d" series_commit=s9 series_tree=t0 2>&1) && bad "append_compat took another commit, no tree in DIR"
append_compat "$d" series_commit=s0 series_tree=t0 2>/dev/null || bad "a tree DIR lacks was checked"
# a tree that could not be read (no git in build/linux) vouches for nothing
sed -i 's/^series_tree=t0/series_tree=unknown/' "$c/meta.txt"
out=$(append_compat "$c" series_commit=s9 series_tree=unknown 2>&1) && bad "append_compat took an unknown tree as the same"

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
grep -q '^| boot 2, added (run.sh -a or merge.sh) | rounds 4-5 ' "$s" || bad "boot 2 not listed"
grep -q '^- run 1 (a): req_s 10.1, rank 2 of 5$' "$s" && grep -q '^- run 7 (a): req_s 10.1, rank 2 of 5$' "$s" ||
	bad "first runs of the two boots not ranked"
grep -Eq '^\| req_s \| 5 \| 1\.[0-9]{4} \|' "$s" || bad "ratio not over 5 pairs"
grep -q '^- run 8: host busy: a compiler ran;' "$s" || bad "host-busy run 8 not flagged"
grep -Eq '^\| 1 \| 1-3 \| 2026-01-01T00:00:00Z \| b/a \| req_s \| 3 \| 1\.[0-9]{4} \|' "$s" &&
	grep -Eq '^\| 2 \| 4-5 \| 2026-01-02T00:00:00Z \| b/a \| req_s \| 2 \| 1\.[0-9]{4} \|' "$s" &&
	[ "$(grep -Ec '^\| [0-9] \| [0-9]+-[0-9]+ \| 2026' "$s")" = 2 ] || bad "comparison per boot not listed"
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
# the fake build's kernel, as make exports KIMAGE for the real one
run() { BUILD=$fake KIMAGE=$fake/kbuild/arch/x86/boot/bzImage STATS=$STATS "$ROOT/bench/run.sh" "$@" 2>&1; }
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
# the same scheduler sources built again: the binary's sha1 is no reason
# (refused here for the vCPU count, before any boot)
printf '%s\n' 'sched_binary() { echo "$BIN"; }' 'sched_sources() { echo "$SRC1 $SRC2"; }' >"$tmp/plug/fake.sh"
echo src1 >"$tmp/src1"
echo src2 >"$tmp/src2"
echo "sched_src_fake=$(cat "$tmp/src1" "$tmp/src2" | sha1sum | cut -d' ' -f1)" >>"$tmp/sd/meta.txt"
out=$(SRC1=$tmp/src1 SRC2=$tmp/src2 BIN=$tmp/bin BENCH_SCHED_DIR=$tmp/plug run -a "$tmp/sd" -c 3) &&
	bad "run.sh -a accepted 3 vCPUs"
grep -q 'sched_sha1_fake differs .* but sched_src_fake is the same' <<<"$out" &&
	! grep -q 'would have sched_' <<<"$out" && grep -q 'would have guest_vcpus=3' <<<"$out" ||
	bad "run.sh -a with the same scheduler sources: $out"
echo src3 >"$tmp/src2"
out=$(SRC1=$tmp/src1 SRC2=$tmp/src2 BIN=$tmp/bin BENCH_SCHED_DIR=$tmp/plug run -a "$tmp/sd") &&
	bad "run.sh -a accepted other scheduler sources"
grep -q 'would have sched_src_fake=' <<<"$out" && grep -q 'would have sched_sha1_fake=' <<<"$out" ||
	bad "run.sh -a with other scheduler sources: $out"
# rounds shuffled by the old, correlated draw (no shuffle_draw): refused
sed '/^shuffle_draw=/d' "$tmp/sd/meta.txt" >"$tmp/sd/m" && mv "$tmp/sd/m" "$tmp/sd/meta.txt"
out=$(SRC1=$tmp/src1 SRC2=$tmp/src2 BIN=$tmp/bin BENCH_SCHED_DIR=$tmp/plug run -a "$tmp/sd") &&
	bad "run.sh -a accepted rounds of the old shuffle"
grep -q 'has shuffle_draw=(none), this run would have shuffle_draw=lowbias32' <<<"$out" ||
	bad "run.sh -a, old shuffle: $out"
out=$(run -a "$d" web) && bad "run.sh -a with a scenario accepted"
grep -q 'give no scenario' <<<"$out" || bad "run.sh -a DIR SCENARIO: $out"
out=$(run -a "$d" -q) && bad "run.sh -a -q accepted"
out=$(run -r 0 web) && bad "run.sh -r 0 accepted"
grep -q -- "-r takes a whole number >= 1, got '0'" <<<"$out" || bad "run.sh -r 0: $out"
run -h | grep -q -- '-a DIR' || bad "run.sh -h does not explain -a"

# bench/merge.sh: a results folder's boot added to another, SRC unchanged
m=$tmp/m1
folder "$m" 2 k1 4 5000
sed 's/^rounds 3/rounds 2/' "$d/scenario.scn" >"$m/scenario.scn"
folder "$tmp/m2" 3 k1 5 6000
cp "$d/scenario.scn" "$tmp/m2/"
sed -i 's/^series_commit=s0/series_commit=s5/' "$tmp/m2/meta.txt"
echo series_tree=t0 | tee -a "$m/meta.txt" >>"$tmp/m2/meta.txt"
sum=$(cat "$tmp/m2"/* | sha1sum)
out=$("$ROOT/bench/merge.sh" "$m" "$tmp/m2" 2>&1) || bad "merge.sh failed: $out"
grep -q "series_commit differs (s0, now s5) but series_tree is the same" <<<"$out" &&
	grep -q "m2 -> .*m1 (5 rounds)" <<<"$out" || bad "merge.sh said: $out"
[ "$(cat "$tmp/m2"/* | sha1sum)" = "$sum" ] || bad "merge.sh changed SRC"
grep -q '^append_1=rounds 3-5 (runs 5-10) on 2026-01-05T00:00:00Z, seed 5' "$m/meta.txt" &&
	[ "$(awk -F, 'NR > 1' "$m/raw.csv" | wc -l)" = 10 ] || bad "merge.sh did not add the 3 rounds"
grep -Eq '^\| 2 \| 3-5 \| 2026-01-05T00:00:00Z \| b/a \| req_s \| 3 \|' "$m/summary.md" ||
	bad "merge.sh: no report of the merged folder"
sum=$(cat "$m"/* | sha1sum)
out=$("$ROOT/bench/merge.sh" "$tmp/m2" "$m" 2>&1) && bad "merge.sh took a folder of two boots"
grep -q 'holds several boots' <<<"$out" || bad "merge.sh, two boots: $out"
folder "$tmp/m3" 1 k1 6 7000
sed 's/^duration 15/duration 30/' "$d/scenario.scn" >"$tmp/m3/scenario.scn"
out=$("$ROOT/bench/merge.sh" "$m" "$tmp/m3" 2>&1) && bad "merge.sh took another scenario"
grep -q 'another scenario file' <<<"$out" || bad "merge.sh, other scenario: $out"
cp "$d/scenario.scn" "$tmp/m3/"
sed -i 's/^guest_mem_mib=2048/guest_mem_mib=4096/' "$tmp/m3/meta.txt"
out=$("$ROOT/bench/merge.sh" "$m" "$tmp/m3" 2>&1) && bad "merge.sh took another guest memory"
grep -q 'guest_mem_mib=2048, this run would have guest_mem_mib=4096' <<<"$out" &&
	grep -q 'nothing merged' <<<"$out" || bad "merge.sh, other memory: $out"
[ "$(cat "$m"/* | sha1sum)" = "$sum" ] || bad "a refused merge.sh changed DIR"
mkdir -p "$tmp/empty"
out=$("$ROOT/bench/merge.sh" "$tmp/empty" "$tmp/m3" 2>&1) && bad "merge.sh took an empty DIR"
grep -q 'empty is not a results folder' <<<"$out" || bad "merge.sh, DIR not a results folder: $out"
"$ROOT/bench/merge.sh" -h | grep -q '^usage: bench/merge.sh DIR SRC' || bad "merge.sh -h"
"$ROOT/bench/merge.sh" "$m" >/dev/null 2>&1; [ $? = 2 ] || bad "merge.sh with one folder: not exit 2"

# scn_set_rounds: the count wins in full and quick mode
. "$ROOT/bench/lib/scenario.sh"
printf 'workload web\nrounds 30\nquick duration=3 rounds=1\nvariant a sched=cfs config=flat.conf\n' >"$tmp/s.scn"
scn_set_rounds "$tmp/s.scn" 7 >"$tmp/s7.scn"
scn_load "$tmp/s7.scn" && [ "$SCN_ROUNDS" = 7 ] || bad "scn_set_rounds: full mode has $SCN_ROUNDS rounds"
scn_load "$tmp/s7.scn" quick && [ "$SCN_ROUNDS" = 7 ] && [ "$SCN_DURATION" = 3 ] ||
	bad "scn_set_rounds: quick mode has $SCN_ROUNDS rounds, ${SCN_DURATION}s"

[ $fail = 0 ] && echo "ok: bench append" || exit 1
