# runspans.sh - when each run of a results folder went, in the host's clock
# (sourced by bench/run.sh and bench/report.sh, bash).
#   run_spans DIR           print "run,start,end" (epoch seconds) for every
#                           run of DIR/progress-host.csv: from its progress
#                           line to the next one, or to the "done" line of
#                           its boot (folders merged by run.sh -a hold
#                           several); a boot cut short leaves its last run
#                           open (end 1e18).
#   run_spans DIR measured  the same, but a run with a measured window in
#                           DIR/windows.csv (written by the workload through
#                           the guest) spans that window instead.
# Limits: progress lines carry the second the host read them; windows are in
# the guest's clock, set from the host's at boot (off by up to a second).

run_spans() {
	local d=$1 win=/dev/null
	[ -s "$d/progress-host.csv" ] || return 0
	[ "${2-}" = measured ] && [ -s "$d/windows.csv" ] && win=$d/windows.csv
	awk -F, 'FNR == 1 { f = FILENAME == ARGV[1] ? 1 : 2; next }
		f == 1 && $2 ~ /run [0-9]+\// { match($2, /run [0-9]+\//)
			r = substr($2, RSTART + 4, RLENGTH - 5) + 0
			if (nr && !(nr in en)) en[nr] = $1
			st[++nr] = $1; id[nr] = r; next }
		f == 1 && $2 ~ /done:/ { if (nr && !(nr in en)) en[nr] = $1; next }
		f == 2 { wst[$2 + 0] = $4; wen[$2 + 0] = $5 }
		END {
			if (nr && !(nr in en)) en[nr] = "1e18"
			for (i = 1; i <= nr; i++) {
				r = id[i]
				if (r in wst) print r "," wst[r] "," wen[r]
				else print r "," st[i] "," en[i]
			}
		}' "$d/progress-host.csv" "$win"
}
