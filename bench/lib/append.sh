# append.sh - add the rounds of a new run to an existing results folder
# (sourced by bench/run.sh -a, bash).  A comparison's interval narrows with
# the square root of its pair count, so a claim that needs more pairs than
# one sitting can give is measured in several boots and merged here.
#   append_compat DIR KEY=VALUE...  refuse (return 1, say why) unless DIR's
#                                   meta.txt has each KEY at VALUE: rounds
#                                   from another kernel, vCPU count, memory
#                                   or pinning would not be the same
#                                   experiment.  A build's identity
#                                   (series_commit, sched_sha1_NAME) may
#                                   differ where its sources' does not
#                                   (series_tree, sched_src_NAME): a new
#                                   machine builds the same sources again
#                                   with other commit dates; a sources'
#                                   key DIR lacks is not checked
#   append_identity META            the KEY=VALUE lines of a meta.txt that
#                                   append_compat checks (bench/merge.sh;
#                                   run.sh -a passes its now_identity)
#   append_merge DIR NEW            merge the run in folder NEW (raw.csv,
#                                   runs.csv, progress, host samples and
#                                   speed, logs, meta.txt) into DIR: rounds
#                                   and runs are renumbered after DIR's
#                                   last, meta.txt gains an append_K= line
#                                   and the new round total; all or nothing
# Limits: the report pairs variants within a round, so a round is never
# split across boots; the scenario file is DIR's own (run.sh runs it).

# append_meta FILE KEY: KEY's value in a meta.txt
append_meta() { sed -n "s/^$2=//p" "$1" | head -n 1; }

# append_samples FILE: "compiler_samples other_qemu_samples" of a
# host-samples.csv, in meta.txt's wording (run.sh meta(), append_merge)
append_samples() {
	awk -F, 'NR > 1 { n++; if ($3 == 1) c++; if ($4 > 0) q++ }
		END { printf "%d of %d (every 5 s)\n%d\n", c, n, q }' "$1"
}

append_compat() {
	local dir=${1%/} kv k want have ck bad=0
	local -A given=()
	shift
	[ -f "$dir/meta.txt" ] && [ -f "$dir/raw.csv" ] && [ -f "$dir/scenario.scn" ] || {
		echo "append: $dir is not a results folder (meta.txt, raw.csv, scenario.scn)" >&2
		return 1
	}
	for kv in "$@"; do given[${kv%%=*}]=${kv#*=}; done
	for kv in "$@"; do
		k=${kv%%=*} want=${kv#*=}
		have=$(append_meta "$dir/meta.txt" "$k")
		[ "$have" = "$want" ] && continue
		case $k in
		series_tree | sched_src_*)
			# the sources' identity: only where DIR recorded it
			[ -z "$have" ] && continue ;;
		series_commit) ck=series_tree ;;
		sched_sha1_*) ck=sched_src_${k#sched_sha1_} ;;
		*) ck= ;;
		esac
		# "unknown" (no git tree to read) vouches for nothing
		if [ -n "$ck" ] && [ -n "${given[$ck]-}" ] && [ "${given[$ck]}" != unknown ] &&
			[ "$(append_meta "$dir/meta.txt" "$ck")" = "${given[$ck]}" ]; then
			echo "append: $k differs ($have, now $want) but $ck is the same: the same sources built again" >&2
			continue
		fi
		echo "append: $dir has $k=${have:-(none)}, this run would have $k=$want" >&2
		bad=1
	done
	return $bad
}

# the keys are those bench/run.sh's now_identity writes
append_identity() {
	grep -E '^(kernel_config_sha1|series_commit|series_tree|mode|guest_vcpus|guest_mem_mib|vcpus_pinned|shuffle_draw|sched_sha1_[A-Za-z0-9_]+|sched_src_[A-Za-z0-9_]+)=' "$1"
}

# append_renumber ROUND_OFF RUN_OFF ROUNDS RUNS: progress lines with their
# "round r/R" and "run i/N" moved after the existing ones
append_renumber() {
	awk -v ro="$1" -v io="$2" -v rt="$3" -v it="$4" '
		function shift_num(s, word, off, tot,   re, m, a) {
			re = word " [0-9]+/[0-9]+"
			if (!match(s, re)) return s
			m = substr(s, RSTART + length(word) + 1, RLENGTH - length(word) - 1)
			split(m, a, "/")
			return substr(s, 1, RSTART - 1) word " " (a[1] + off) "/" tot substr(s, RSTART + RLENGTH)
		}
		{ print shift_num(shift_num($0, "round", ro, rt), "run", io, it) }'
}

append_merge() {
	local dir=${1%/} new=$2 tmp k ro io nr ni rt it f kern_old kern_new samples
	for f in raw.csv meta.txt; do
		[ -s "$new/$f" ] || { echo "append: $new/$f missing; nothing merged" >&2; return 1; }
	done
	kern_old=$(append_meta "$dir/meta.txt" guest_kernel)
	kern_new=$(append_meta "$new/meta.txt" guest_kernel)
	if [ "$kern_old" != "$kern_new" ]; then
		echo "append: $dir was measured on kernel '$kern_old', the new run on '$kern_new'; nothing merged" >&2
		return 1
	fi
	ro=$(awk -F, 'NR > 1 && $1 + 0 > m { m = $1 + 0 } END { print m + 0 }' "$dir/raw.csv")
	io=$(cat "$dir/raw.csv" "$dir/runs.csv" 2>/dev/null |
		awk -F, '$2 ~ /^[0-9]+$/ && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }')
	nr=$(append_meta "$new/meta.txt" rounds)
	ni=$(awk -F, 'NR > 1 && $2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$new/raw.csv")
	rt=$((ro + nr)) it=$((io + ni))
	k=$(($(grep -c '^append_[0-9]*=' "$dir/meta.txt") + 1))

	# build the merged folder beside DIR, then swap: an interrupted merge
	# leaves DIR as it was
	tmp=$dir.merge-$$
	rm -rf "$tmp"
	cp -a "$dir" "$tmp" || return 1
	for f in raw.csv runs.csv hist.csv windows.csv; do
		[ -s "$new/$f" ] || continue
		[ -s "$tmp/$f" ] || head -n 1 "$new/$f" >"$tmp/$f"
		awk -F, -v OFS=, -v ro="$ro" -v io="$io" 'NR > 1 { $1 += ro; $2 += io; print }' \
			"$new/$f" >>"$tmp/$f"
	done
	[ -s "$new/progress.log" ] &&
		append_renumber "$ro" "$io" "$rt" "$it" <"$new/progress.log" >>"$tmp/progress.log"
	[ -s "$new/progress-host.csv" ] &&
		tail -n +2 "$new/progress-host.csv" | append_renumber "$ro" "$io" "$rt" "$it" >>"$tmp/progress-host.csv"
	for f in host-samples.csv host-speed.csv; do
		[ -s "$new/$f" ] || continue
		[ -s "$tmp/$f" ] || head -n 1 "$new/$f" >"$tmp/$f"
		tail -n +2 "$new/$f" >>"$tmp/$f"
	done
	for f in dmesg.txt scx-loader.log guest-errors.log; do
		[ -s "$new/$f" ] || continue
		{ echo "==== append $k: rounds $((ro + 1))-$rt, runs $((io + 1))-$it ===="
		  cat "$new/$f"; } >>"$tmp/$f"
	done
	samples=$(append_samples "$tmp/host-samples.csv" 2>/dev/null)
	{
		sed -e "s/^rounds=.*/rounds=$rt/" -e '/^host_compiler_samples=/d' -e '/^host_other_qemu_samples=/d' \
			"$dir/meta.txt"
		if [ -n "$samples" ]; then
			echo "host_compiler_samples=$(sed -n 1p <<<"$samples")"
			echo "host_other_qemu_samples=$(sed -n 2p <<<"$samples")"
		fi
		printf 'append_%d=rounds %d-%d (runs %d-%d) on %s, seed %s, harness %s, host load %s before and %s after, compiler samples %s, other QEMU samples %s, vCPUs pinned %s, series commit %s\n' \
			"$k" $((ro + 1)) "$rt" $((io + 1)) "$it" \
			"$(append_meta "$new/meta.txt" date)" "$(append_meta "$new/meta.txt" guest_seed)" \
			"$(append_meta "$new/meta.txt" harness_commit)" \
			"$(append_meta "$new/meta.txt" host_load_before)" "$(append_meta "$new/meta.txt" host_load_after)" \
			"$(append_meta "$new/meta.txt" host_compiler_samples)" \
			"$(append_meta "$new/meta.txt" host_other_qemu_samples)" \
			"$(append_meta "$new/meta.txt" vcpus_pinned)" "$(append_meta "$new/meta.txt" series_commit)"
	} >"$tmp/meta.txt.new" && mv "$tmp/meta.txt.new" "$tmp/meta.txt" || { rm -rf "$tmp"; return 1; }
	mv "$dir" "$dir.old-$$" && mv "$tmp" "$dir" && rm -rf "$dir.old-$$"
}
