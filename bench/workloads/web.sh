# web.sh - workload module: apache2 prefork serving a CGI that runs sha1sum
# on a 4 KiB file, one instance per web cgroup, driven by wrk --latency from
# the client cgroup (guest side; sourced by bench/guest/main.sh, bash).
#
# Variant keys:  web=NAME:CGROUP[,NAME:CGROUP...]   one apache per entry
#                client=CGROUP                      where wrk runs
#                cookies=yes|no   one core-scheduling cookie per cgroup
#                         (each instance's and the client's; default no):
#                         a task started first in each cgroup holds it
#                         and apache and wrk take it (cookie-run -f)
# Parameters:    conns=N  total wrk connections, split evenly over the
#                         instances (same offered concurrency per variant);
#                         a variant's own conns=N key overrides it (for a
#                         sweep of the offered load)
#                overlap=yes  trace the measured window and report
#                         overlap_us, overlap_pct, trace_lost: time SMT
#                         siblings ran tasks of two different cgroups
#                         (bench/lib/overlap.sh; needs 'threads 2')
#                waits=yes  trace the measured window and report, per web
#                         instance and for the client, how long runnable
#                         tasks waited until they ran: waits.NAME,
#                         wait_mean_us.NAME, wait_p99_us.NAME,
#                         wait_max_us.NAME (bench/lib/overlap.sh; the
#                         tracing costs throughput: compare such runs only
#                         with each other)
# Metrics: req_s (sum over instances); per instance req_s.NAME,
# p50_ms.NAME p90_ms.NAME p99_ms.NAME, requests.NAME (wrk's request count:
# the samples behind those percentiles) and cpu_pct.NAME (share of the web
# cgroups' CPU time); client_cpu_pct (wrk's CPU time in % of one vCPU);
# busy_pct (the guest's CPUs busy over the measured window, /proc/stat);
# conns (the variant's wrk connections); web_cpu_ms_per_req (the web
# cgroups' CPU ms per second of the measured window over req_s).  hist.csv
# gets wrk's whole latency histogram per instance (latency_us.NAME,
# bench/lib/wrk-hist.lua), from which the report pools percentiles over runs.
# Limits: up to 9 instances (ports 8081..8089 on 127.0.0.1); apache's
# workers run as www-data (apache refuses root workers); files in /tmp.

WEB_DIR=/tmp/bench-web

web_instances() { scn_var "$1" web | tr ',' ' '; }

# web_conns V: total wrk connections of variant V
web_conns() { scn_get "$1" conns 8; }

wl_check() {
	local v i n conns
	[ "$SCN_DURATION" -ge 1 ] || { echo "web: duration must be >= 1" >&2; return 1; }
	for v in $SCN_VARIANTS; do
		[ -n "$(scn_var "$v" client)" ] || { echo "web: variant $v has no client=CGROUP" >&2; return 1; }
		n=0
		for i in $(web_instances "$v"); do
			[[ $i =~ ^[a-z0-9_]+:[A-Za-z0-9_./-]+$ ]] || { echo "web: variant $v: bad web entry '$i' (NAME:CGROUP)" >&2; return 1; }
			n=$((n + 1))
		done
		[ $n -ge 1 ] && [ $n -le 9 ] || { echo "web: variant $v needs 1..9 web=NAME:CGROUP entries" >&2; return 1; }
		conns=$(web_conns "$v")
		scn_valid_uint "$conns" && [ "$conns" -ge 1 ] || { echo "web: variant $v: conns must be >= 1" >&2; return 1; }
		[ "$conns" -ge $n ] || { echo "web: conns ($conns) < instances ($n) in variant $v" >&2; return 1; }
		case $(scn_var "$v" cookies) in '' | yes | no) ;;
		*) echo "web: variant $v: cookies must be yes or no" >&2; return 1 ;;
		esac
	done
	case $(scn_param overlap no) in yes | no) ;;
	*) echo "web: overlap must be yes or no" >&2; return 1 ;;
	esac
	case $(scn_param waits no) in yes | no) ;;
	*) echo "web: waits must be yes or no" >&2; return 1 ;;
	esac
}

# web_traced: what the measured window's trace reports ("" if untraced)
web_traced() {
	local w=
	[ "$(scn_param overlap no)" = no ] || w=overlap
	[ "$(scn_param waits no)" = no ] || w="$w waits"
	echo $w
}

# web_cookie_start V: with cookies=yes, one cookie holder (a sleep under
# a new cookie) per cgroup of the variant, instances first, then the
# client; WEB_WRAP[n] becomes the command prefix that puts a task under
# the n-th cgroup's cookie.  The holders die with their cgroups (wl_stop).
web_cookie_start() {
	local v=$1 i cg n=0 pid
	WEB_WRAP=()
	[ "$(scn_var "$v" cookies)" = yes ] || return 0
	for cg in $(for i in $(web_instances "$v"); do echo "${i#*:}"; done) "$(scn_var "$v" client)"; do
		# not cg_run: $! must be the holder itself (sh execs cookie-run,
		# which execs sleep once the cookie is set)
		# shellcheck disable=SC2016
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$(cg_dir "$cg")" "$WEB_COOKIE" sleep 100000 &
		pid=$!
		disown $pid	# killed with its cgroup: no job notice
		for i in $(seq 100); do
			[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
			kill -0 $pid 2>/dev/null && [ "$i" != 100 ] ||
				{ echo "web: no cookie holder in $cg (cookie-run failed or slow)" >&2; return 1; }
			sleep 0.1
		done
		WEB_WRAP[n]="$WEB_COOKIE -f $pid"
		n=$((n + 1))
	done
}

# web_wrap V CGROUP: the command prefix for a task of that cgroup ("" without
# cookies); instance k's cgroup is entry k, the client's the last
web_wrap() {
	local v=$1 cg=$2 i k=0
	[ ${#WEB_WRAP[@]} -gt 0 ] || return 0
	for i in $(web_instances "$v"); do
		[ "${i#*:}" = "$cg" ] && { echo "${WEB_WRAP[k]}"; return 0; }
		k=$((k + 1))
	done
	echo "${WEB_WRAP[k]}"
}

WEB_COOKIE=${BUILD:-$ROOT/build}/tools/cookie-run

wl_prepare() {
	local v
	for v in $SCN_VARIANTS; do
		[ "$(scn_var "$v" cookies)" != yes ] || [ -x "$WEB_COOKIE" ] ||
			{ echo "web: $WEB_COOKIE is not built (make bpf)" >&2; return 1; }
	done
	if [ -n "$(web_traced)" ]; then
		# shellcheck disable=SC2046
		. "$BENCH/lib/overlap.sh" && ovl_prepare $(web_traced) || return 1
	fi
	rm -rf "$WEB_DIR"
	mkdir -p "$WEB_DIR/cgi-bin" "$WEB_DIR/data" "$WEB_DIR/htdocs"
	head -c 4096 /dev/urandom >"$WEB_DIR/data/blob"
	WEB_SHA1=$(sha1sum "$WEB_DIR/data/blob" | cut -d' ' -f1)
	cat >"$WEB_DIR/cgi-bin/sha1" <<-EOF
		#!/bin/sh
		printf 'Content-Type: text/plain\r\n\r\n'
		exec sha1sum $WEB_DIR/data/blob
	EOF
	chmod 755 "$WEB_DIR" "$WEB_DIR"/* "$WEB_DIR/cgi-bin/sha1"
	chmod 644 "$WEB_DIR/data/blob"
}

# web_conf NAME PORT WORKERS: write the instance's httpd.conf, print its path
web_conf() {
	local d="$WEB_DIR/inst/$1" m=/usr/lib/apache2/modules
	mkdir -p "$d/logs" "$d/run"
	cat >"$d/httpd.conf" <<-EOF
		ServerRoot $d
		ServerName localhost
		Listen 127.0.0.1:$2
		PidFile run/httpd.pid
		DefaultRuntimeDir run
		ErrorLog logs/error.log
		LogLevel warn
		User www-data
		Group www-data
		LoadModule mpm_prefork_module $m/mod_mpm_prefork.so
		LoadModule authz_core_module $m/mod_authz_core.so
		LoadModule alias_module $m/mod_alias.so
		LoadModule cgi_module $m/mod_cgi.so
		StartServers $3
		MinSpareServers $3
		MaxSpareServers $(($3 + 4))
		ServerLimit 64
		MaxRequestWorkers 64
		MaxConnectionsPerChild 0
		KeepAlive On
		MaxKeepAliveRequests 0
		Timeout 60
		DocumentRoot $WEB_DIR/htdocs
		ScriptAlias /cgi-bin/ $WEB_DIR/cgi-bin/
		<Directory $WEB_DIR/cgi-bin>
		    Require all granted
		</Directory>
	EOF
	echo "$d/httpd.conf"
}

# web_get PORT: one HTTP/1.0 request to the CGI, response on stdout
web_get() {
	timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 || exit 1
		printf "GET /cgi-bin/sha1 HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3
		cat <&3' "$1" 2>/dev/null
}

wl_start() {
	local v=$1 i name cg port=8080 conf per n=0 k
	for i in $(web_instances "$v"); do n=$((n + 1)); done
	per=$(($(web_conns "$v") / n))
	web_cookie_start "$v" || return 1
	for i in $(web_instances "$v"); do
		name=${i%%:*} cg=${i#*:} port=$((port + 1))
		conf=$(web_conf "$name" $port $((per + 2)))
		# shellcheck disable=SC2046
		cg_run "$cg" $(web_wrap "$v" "$cg") apache2 -f "$conf" -k start ||
			{ echo "web: apache2 ($name) failed to start:" >&2; cat "$WEB_DIR/inst/$name/logs/error.log" >&2; return 1; }
		for k in $(seq 60); do
			web_get $port | grep -q "$WEB_SHA1" && break
			[ "$k" = 60 ] && { echo "web: $name on port $port does not answer with the file's sha1" >&2
				cat "$WEB_DIR/inst/$name/logs/error.log" >&2; return 1; }
			sleep 0.5
		done
	done
}

# web_parse FILE: wrk --latency output -> "req_s P50 P90 P99 ERRORS REQUESTS"
# (latencies in ms)
web_parse() {
	awk 'function ms(s,  v) {
		v = s + 0
		if (s ~ /us$/) return v / 1000
		if (s ~ /ms$/) return v
		if (s ~ /m$/) return v * 60000
		if (s ~ /s$/) return v * 1000
		return -1
	}
	/Latency Distribution/ { ld = 1 }
	ld && $1 == "50%" { p50 = ms($2) }
	ld && $1 == "90%" { p90 = ms($2) }
	ld && $1 == "99%" { p99 = ms($2) }
	/Non-2xx or 3xx responses:/ { err += $NF }
	/Socket errors:/ { gsub(/,/, ""); err += $4 + $6 + $8 + $10 }
	/ requests in / { nreq = $1 }
	/^Requests\/sec:/ { rps = $2; ok = 1 }
	END { if (!ok || p99 == "") exit 1; printf "%s %s %s %s %d %d\n", rps, p50, p90, p99, err, nreq }' "$1"
}

# web_wrk V SECONDS TAG: run one wrk per instance concurrently from the client
web_wrk() {
	local v=$1 secs=$2 tag=$3 i n=0 port=8080 per pids=()
	for i in $(web_instances "$v"); do n=$((n + 1)); done
	per=$(($(web_conns "$v") / n))
	for i in $(web_instances "$v"); do
		port=$((port + 1))
		# shellcheck disable=SC2046
		cg_run "$(scn_var "$v" client)" $(web_wrap "$v" "$(scn_var "$v" client)") wrk --latency -t1 -c"$per" -d"${secs}s" --timeout 30s \
			-s "$BENCH/lib/wrk-hist.lua" \
			"http://127.0.0.1:$port/cgi-bin/sha1" >"$WEB_DIR/wrk-$tag-${i%%:*}.out" 2>&1 &
		pids+=($!)
	done
	# traced: wrk started after the trace, from outside the client cgroup
	if [ "$tag" = run ] && [ -n "$(web_traced)" ]; then
		sleep 0.5
		ovl_add "client:$(scn_var "$v" client)"
	fi
	for i in "${pids[@]}"; do wait "$i" || return 1; done
}

wl_measure() {
	local v=$1 i k name total=0 sum=0 rc=0 r p50 p90 p99 err nreq c0 c1 cl out s0 s1 ov= t0 t1
	local names=() paths=() u0=() u1=() groups=()
	for i in $(web_instances "$v"); do names+=("${i%%:*}"); paths+=("${i#*:}"); done
	cl=$(scn_var "$v" client)
	if [ "$SCN_WARMUP" -gt 0 ]; then web_wrk "$v" "$SCN_WARMUP" warm || { echo "web: warm-up wrk failed" >&2; return 1; }; fi
	if [ -n "$(web_traced)" ]; then
		for i in $(web_instances "$v"); do groups+=("$i"); done
		ovl_begin "${groups[@]}" "client:$cl" || return 1
	fi
	t0=$EPOCHREALTIME
	for k in "${!paths[@]}"; do cg_usage_into "u0[$k]" "${paths[$k]}" || return 1; done
	cg_usage_into c0 "$cl" || return 1
	cpustat_snap s0
	web_wrk "$v" "$SCN_DURATION" run || { echo "web: wrk failed" >&2; return 1; }
	cpustat_snap s1
	for k in "${!paths[@]}"; do
		cg_usage_into "u1[$k]" "${paths[$k]}" || return 1
		sum=$((sum + u1[k] - u0[k]))
	done
	t1=$EPOCHREALTIME
	echo "$t0,$t1" >"$BENCH_WINDOW"
	if [ ${#groups[@]} -gt 0 ]; then ov=$(ovl_end) || rc=1; fi
	cg_usage_into c1 "$cl" || return 1
	for k in "${!paths[@]}"; do
		name=${names[$k]}
		out=$(web_parse "$WEB_DIR/wrk-run-$name.out") ||
			{ echo "web: cannot parse wrk output:" >&2; cat "$WEB_DIR/wrk-run-$name.out" >&2; return 1; }
		read -r r p50 p90 p99 err nreq <<<"$out"
		[ "$err" = 0 ] || { echo "web: $name: $err wrk errors (non-2xx or socket)" >&2; rc=1; }
		total=$(awk -v a="$total" -v b="$r" 'BEGIN { print a + b }')
		echo "req_s.$name $r"
		echo "p50_ms.$name $p50"
		echo "p90_ms.$name $p90"
		echo "p99_ms.$name $p99"
		echo "requests.$name $nreq"
		# the whole histogram, for percentiles pooled over runs (hist.csv)
		awk -v n="$name" '$1 == "latency_hist" { print "latency_us." n, $2, $3 }' \
			"$WEB_DIR/wrk-run-$name.out" >>"$BENCH_HIST"
		awk -v d=$((u1[k] - u0[k])) -v s=$sum -v n="$name" 'BEGIN { if (s > 0) printf "cpu_pct.%s %.3f\n", n, 100 * d / s }'
	done
	echo "req_s $total"
	echo "conns $(web_conns "$v")"
	# a rate over a rate: the window of the usage reads is longer than
	# wrk's (its start and exit), so totals would not match
	awk -v u="$sum" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v r="$total" \
		'BEGIN { if (w > 0 && r > 0) printf "web_cpu_ms_per_req %.3f\n", u / 1000 / w / r }'
	[ -z "$ov" ] || echo "$ov"
	echo "busy_pct $(cpustat_busy_pct "$s0" "$s1")"
	awk -v d=$((c1 - c0)) -v t="$SCN_DURATION" 'BEGIN { printf "client_cpu_pct %.3f\n", d / (t * 10000) }'
	return $rc
}

wl_stop() {
	local i
	for i in $(web_instances "$1"); do cg_kill "${i#*:}" || return 1; done
	cg_kill "$(scn_var "$1" client)"
}
