# hostspeed.sh - the host's speed per run, as raw.csv rows (sourced by
# bench/run.sh after runspans.sh, bash).
#   hostspeed_rows DIR   print one raw.csv row per run of DIR/raw.csv:
#                        metric host_chase_us, the mean of the samples of
#                        DIR/host-speed.csv (bench/hostspeed -i) taken in
#                        the run's span (`run_spans DIR measured`: its
#                        measured window, else while it went), with the
#                        run's round, variant, scheduler, config and
#                        status.  A run without a sample gets no row.
# bench/stats adjust reads the rows as the covariate of a comparison.
# Limits: every sample counts the same, whatever share of it fell in the
# window.

hostspeed_rows() {
	local d=$1
	[ -s "$d/host-speed.csv" ] && [ -s "$d/progress-host.csv" ] && [ -s "$d/raw.csv" ] || return 0
	# f: 1 spans (run_spans, no header), 2 samples, 3 raw.csv
	awk -F, 'FILENAME != cur { cur = FILENAME; f = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3 }
		f == 1 { id[++nr] = $1 + 0; a[nr] = $2; b[nr] = $3; next }
		FNR == 1 { next }
		f == 2 { t[++ns] = $1; v[ns] = $2; next }
		!(($2 + 0) in key) { key[$2 + 0] = $1 FS $2 FS $3 FS $4 FS $5; stat[$2 + 0] = $8 }
		END {
			for (i = 1; i <= nr; i++) {
				r = id[i]
				if (!(r in key)) continue
				s = c = 0
				for (k = 1; k <= ns; k++)
					if (t[k] >= a[i] && t[k] < b[i]) { s += v[k]; c++ }
				if (c) printf "%s,host_chase_us,%.0f,%s\n", key[r], s / c, stat[r]
			}
		}' <(run_spans "$d" measured) "$d/host-speed.csv" "$d/raw.csv"
}
