# hostspeed.sh - the host's speed per run, as raw.csv rows (sourced by
# bench/run.sh, bash).
#   hostspeed_rows DIR   print one raw.csv row per run of DIR/raw.csv:
#                        metric host_chase_us, the mean of the samples of
#                        DIR/host-speed.csv (bench/hostspeed -i) taken in
#                        the run's measured window (DIR/windows.csv, which
#                        a workload may write through the guest), else
#                        while the run went (its progress line to the next
#                        one, or to the boot's "done" line), with the run's
#                        round, variant, scheduler, config and status.  A
#                        run without a sample gets no row.
# bench/stats adjust reads the rows as the covariate of a comparison.
# Limits: the measured window is in the guest's clock, set from the host's
# at boot (QEMU's RTC; off by up to a second); every sample counts the same.

hostspeed_rows() {
	local d=$1 win=/dev/null
	[ -s "$d/host-speed.csv" ] && [ -s "$d/progress-host.csv" ] && [ -s "$d/raw.csv" ] || return 0
	[ -s "$d/windows.csv" ] && win=$d/windows.csv
	# f: 1 progress, 2 windows (empty: /dev/null), 3 samples, 4 raw.csv
	awk -F, 'FILENAME != cur { cur = FILENAME; f = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : FILENAME == ARGV[3] ? 3 : 4 }
		FNR == 1 { next }
		f == 1 && $2 ~ /run [0-9]+\// { match($2, /run [0-9]+\//)
			r = substr($2, RSTART + 4, RLENGTH - 5) + 0
			if (nr && !(nr in en)) en[nr] = $1
			st[++nr] = $1; id[nr] = r; next }
		f == 1 && $2 ~ /done:/ { if (nr && !(nr in en)) en[nr] = $1; next }
		f == 2 { wst[$2 + 0] = $4; wen[$2 + 0] = $5; next }
		f == 3 { t[++ns] = $1; v[ns] = $2; next }
		f == 4 && !(($2 + 0) in key) { key[$2 + 0] = $1 FS $2 FS $3 FS $4 FS $5; stat[$2 + 0] = $8 }
		END {
			if (nr && !(nr in en)) en[nr] = 1e18
			for (i = 1; i <= nr; i++) {
				r = id[i]
				if (!(r in key)) continue
				a = st[i]; b = en[i]
				if (r in wst) { a = wst[r]; b = wen[r] }
				s = c = 0
				for (k = 1; k <= ns; k++)
					if (t[k] >= a && t[k] < b) { s += v[k]; c++ }
				if (c) printf "%s,host_chase_us,%.0f,%s\n", key[r], s / c, stat[r]
			}
		}' "$d/progress-host.csv" "$win" "$d/host-speed.csv" "$d/raw.csv"
}
