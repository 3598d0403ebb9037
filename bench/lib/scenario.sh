# scenario.sh - strict parser for bench scenario files (sourced by the host
# runner and by the guest driver; bash).  A scenario file is declarative: it
# is read line by line, never sourced, so it cannot run code.
#
# Format (one statement per line, '#' starts a comment):
#   workload  web|hogs|overhead     which workload module runs
#   duration  SECONDS               measured time per run (default 0)
#   warmup    SECONDS               discarded time before each run (default 0)
#   rounds    N                     rounds; a round runs every variant once,
#                                   in file order (A B A B ...)
#   set       KEY=VALUE ...         workload parameters (see the workload)
#   quick     KEY=VALUE ...         overrides for quick mode (duration,
#                                   warmup, rounds or any `set` key)
#   variant   NAME KEY=VALUE ...    sched=NAME (bench/schedulers/NAME.sh),
#                                   config=FILE (in cgroup-configs/) or none,
#                                   plus the workload's placement keys
# Limits: variant and key names are [a-z0-9_], file names [a-z0-9_-];
# values cannot contain spaces.
#
# After scn_load FILE [quick]: SCN_NAME SCN_WORKLOAD SCN_DURATION SCN_WARMUP
# SCN_ROUNDS SCN_VARIANTS (space-separated) are set; scn_var V KEY and
# scn_param KEY [DEFAULT] read the rest.  Errors name FILE:LINE and return 1.

scn_err() { echo "scenario error: $*" >&2; return 1; }

scn_valid_name() { [[ $1 =~ ^[a-z0-9_]+$ ]]; }
scn_valid_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# scn_kv PREFIX WHERE KEY=VALUE... : store KEY=VALUE pairs as PREFIX_KEY
scn_kv() {
	local prefix=$1 where=$2 kv k v
	shift 2
	for kv in "$@"; do
		[[ $kv == *=* ]] || { scn_err "$where: expected KEY=VALUE, got '$kv'"; return 1; }
		k=${kv%%=*} v=${kv#*=}
		scn_valid_name "$k" || { scn_err "$where: bad key '$k'"; return 1; }
		[ -n "$v" ] || { scn_err "$where: empty value for '$k'"; return 1; }
		printf -v "${prefix}_$k" '%s' "$v"
	done
}

scn_var() { local n="SCNV_${1}_$2"; printf '%s' "${!n-}"; }
scn_param() { local n="SCNP_$1"; printf '%s' "${!n-${2-}}"; }

# scn_load FILE [quick]
scn_load() {
	local file=$1 quick=${2-} n=0 line kw rest where v k
	local -a words
	[ -f "$file" ] || { scn_err "$file: no such scenario file"; return 1; }
	SCN_FILE=$file SCN_NAME=$(basename "$file" .scn)
	[[ $SCN_NAME =~ ^[a-z0-9_-]+$ ]] || { scn_err "$file: file name must be NAME.scn with NAME in [a-z0-9_-]"; return 1; }
	unset "${!SCNV_@}" "${!SCNP_@}"
	SCN_WORKLOAD= SCN_DURATION=0 SCN_WARMUP=0 SCN_ROUNDS= SCN_VARIANTS= SCN_QUICK=
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		where="$file:$n"
		line=${line%%#*}
		read -r -a words <<<"$line"
		[ ${#words[@]} -gt 0 ] || continue
		kw=${words[0]}
		case $kw in
		workload | duration | warmup | rounds)
			[ ${#words[@]} -eq 2 ] || { scn_err "$where: '$kw' takes one value"; return 1; }
			v=${words[1]}
			if [ "$kw" = workload ]; then
				scn_valid_name "$v" || { scn_err "$where: bad workload '$v'"; return 1; }
			else
				scn_valid_uint "$v" || { scn_err "$where: '$kw' must be a whole number, got '$v'"; return 1; }
			fi
			printf -v "SCN_${kw^^}" '%s' "$v" ;;
		set)
			scn_kv SCNP "$where" "${words[@]:1}" || return 1 ;;
		quick)
			SCN_QUICK="$SCN_QUICK ${words[*]:1}" ;;
		variant)
			[ ${#words[@]} -ge 2 ] || { scn_err "$where: variant needs a name"; return 1; }
			v=${words[1]}
			scn_valid_name "$v" || { scn_err "$where: bad variant name '$v'"; return 1; }
			[[ " $SCN_VARIANTS " != *" $v "* ]] || { scn_err "$where: variant '$v' defined twice"; return 1; }
			SCN_VARIANTS="${SCN_VARIANTS:+$SCN_VARIANTS }$v"
			scn_kv "SCNV_$v" "$where" "${words[@]:2}" || return 1
			[ -n "$(scn_var "$v" sched)" ] || { scn_err "$where: variant '$v' has no sched=NAME"; return 1; }
			[ -n "$(scn_var "$v" config)" ] || { scn_err "$where: variant '$v' has no config=FILE|none"; return 1; } ;;
		*)
			scn_err "$where: unknown statement '$kw'"; return 1 ;;
		esac
	done <"$file"
	for k in workload rounds; do
		v="SCN_${k^^}"
		[ -n "${!v}" ] || { scn_err "$file: missing '$k'"; return 1; }
	done
	[ -n "$SCN_VARIANTS" ] || { scn_err "$file: no variant"; return 1; }
	if [ -n "$quick" ]; then
		for kv in $SCN_QUICK; do
			k=${kv%%=*} v=${kv#*=}
			case $k in
			duration | warmup | rounds)
				scn_valid_uint "$v" || { scn_err "$file: quick $k must be a whole number"; return 1; }
				printf -v "SCN_${k^^}" '%s' "$v" ;;
			*) scn_kv SCNP "$file (quick)" "$kv" || return 1 ;;
			esac
		done
	fi
	[ "$SCN_ROUNDS" -ge 1 ] || { scn_err "$file: rounds must be >= 1"; return 1; }
	return 0
}

# scn_configs: the distinct cgroup config files the variants use (not 'none')
scn_configs() {
	local v c seen=" "
	for v in $SCN_VARIANTS; do
		c=$(scn_var "$v" config)
		[ "$c" = none ] && continue
		[[ $seen == *" $c "* ]] && continue
		seen="$seen$c "
		echo "$c"
	done
}

# scn_scheds: the distinct schedulers the variants use
scn_scheds() {
	local v
	for v in $SCN_VARIANTS; do scn_var "$v" sched; echo; done | sort -u
}
