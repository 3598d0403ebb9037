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
#                                   sched_args=A,B,... (optional: arguments
#                                   added to a BPF scheduler's loader, commas
#                                   for spaces; not for cfs), plus the
#                                   workload's placement keys
#   order     fixed|abba|shuffle    variant order inside a round: file order,
#                                   reversed every other round, or shuffled
#                                   per round from the seed (default fixed)
#   seed      N                     seed of the shuffle (default: drawn at
#                                   start and recorded in meta.txt)
#   threads   1|2                   SMT threads per core of the guest this
#                                   scenario boots (default 1; with 2 the
#                                   vCPUs form sibling pairs)
#   compare   BASE OTHER [claim=R] [metric=M] [label=TEXT]
#                                   a declared comparison: OTHER/BASE per
#                                   round on metric M (default: the
#                                   workload's main metric); R is the ratio
#                                   a claim predicts (the report gives a
#                                   verdict).  Without any compare line each
#                                   variant is compared with the first.
# Limits: variant and key names are [a-z0-9_], file names [a-z0-9_-];
# values cannot contain spaces.
#
# After scn_load FILE [quick]: SCN_NAME SCN_WORKLOAD SCN_DURATION SCN_WARMUP
# SCN_ROUNDS SCN_VARIANTS (space-separated) SCN_ORDER SCN_SEED SCN_THREADS
# are set;
# scn_var V KEY and scn_param KEY [DEFAULT] read the rest, scn_get V KEY
# [DEFAULT] a key a variant may set for itself over the scenario's; scn_compares
# lists the comparisons, scn_round_order R the variants of round R.  Errors
# name FILE:LINE and return 1.

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
# scn_get V KEY [DEFAULT]: variant V's KEY, else the scenario's, else DEFAULT
scn_get() { local v; v=$(scn_var "$1" "$2"); printf '%s' "${v:-$(scn_param "$2" "${3-}")}"; }

# scn_load FILE [quick]
scn_load() {
	local file=$1 quick=${2-} n=0 line kw rest where v k
	local -a words
	[ -f "$file" ] || { scn_err "$file: no such scenario file"; return 1; }
	SCN_FILE=$file SCN_NAME=$(basename "$file" .scn)
	[[ $SCN_NAME =~ ^[a-z0-9_-]+$ ]] || { scn_err "$file: file name must be NAME.scn with NAME in [a-z0-9_-]"; return 1; }
	unset "${!SCNV_@}" "${!SCNP_@}"
	SCN_WORKLOAD= SCN_DURATION=0 SCN_WARMUP=0 SCN_ROUNDS= SCN_VARIANTS= SCN_QUICK=
	SCN_ORDER=fixed SCN_SEED= SCN_THREADS=1 SCN_COMPARES=()
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
			[ -n "$(scn_var "$v" config)" ] || { scn_err "$where: variant '$v' has no config=FILE|none"; return 1; }
			k=$(scn_var "$v" sched_args)
			if [ -n "$k" ]; then
				# split into words, never globbed or evaluated
				[[ $k =~ ^[A-Za-z0-9_.=/:+-]+(,[A-Za-z0-9_.=/:+-]+)*$ ]] ||
					{ scn_err "$where: variant '$v': sched_args must be words of [A-Za-z0-9_.=/:+-] joined by commas, got '$k'"; return 1; }
				[ "$(scn_var "$v" sched)" != cfs ] ||
					{ scn_err "$where: variant '$v': cfs takes no sched_args"; return 1; }
			fi ;;
		order)
			[ ${#words[@]} -eq 2 ] || { scn_err "$where: 'order' takes one value"; return 1; }
			case ${words[1]} in fixed | abba | shuffle) SCN_ORDER=${words[1]} ;;
			*) scn_err "$where: order must be fixed, abba or shuffle, got '${words[1]}'"; return 1 ;;
			esac ;;
		threads)
			[ ${#words[@]} -eq 2 ] && [[ ${words[1]} =~ ^[12]$ ]] ||
				{ scn_err "$where: 'threads' takes 1 or 2"; return 1; }
			SCN_THREADS=${words[1]} ;;
		seed)
			[ ${#words[@]} -eq 2 ] && scn_valid_uint "${words[1]}" ||
				{ scn_err "$where: 'seed' takes one whole number"; return 1; }
			SCN_SEED=${words[1]} ;;
		compare)
			scn_compare "$where" "${words[@]:1}" || return 1 ;;
		*)
			scn_err "$where: unknown statement '$kw'"; return 1 ;;
		esac
	done <"$file"
	for k in workload rounds; do
		v="SCN_${k^^}"
		[ -n "${!v}" ] || { scn_err "$file: missing '$k'"; return 1; }
	done
	[ -n "$SCN_VARIANTS" ] || { scn_err "$file: no variant"; return 1; }
	for v in "${SCN_COMPARES[@]}"; do
		IFS='|' read -r k kw _ _ _ where <<<"$v"
		for n in "$k" "$kw"; do
			[[ " $SCN_VARIANTS " == *" $n "* ]] ||
				{ scn_err "$where: compare names '$n', which is no variant"; return 1; }
		done
	done
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

# scn_set_rounds FILE N: FILE with N rounds, in full and in quick mode
scn_set_rounds() {
	sed -E -e "s/^([[:space:]]*rounds[[:space:]]+)[0-9]+/\1$2/" \
		-e '/^[[:space:]]*quick[[:space:]]/s/[[:space:]]rounds=[0-9]+//' "$1"
}

# scn_compare WHERE BASE OTHER [claim=R] [metric=M] [label=TEXT]: append
# "BASE|OTHER|CLAIM|METRIC|LABEL|WHERE" to SCN_COMPARES
scn_compare() {
	local where=$1 base=${2-} other=${3-} kv claim= metric= label=
	[ -n "$other" ] || { scn_err "$where: compare needs BASE and OTHER"; return 1; }
	scn_valid_name "$base" && scn_valid_name "$other" ||
		{ scn_err "$where: bad variant name in compare"; return 1; }
	[ "$base" != "$other" ] || { scn_err "$where: compare of '$base' with itself"; return 1; }
	shift 3
	for kv in "$@"; do
		case $kv in
		claim=*)
			claim=${kv#claim=}
			[[ $claim =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! $claim =~ ^0+(\.0*)?$ ]] ||
				{ scn_err "$where: claim must be a positive ratio like 1.10, got '$claim'"; return 1; } ;;
		metric=*)
			metric=${kv#metric=}
			[[ $metric =~ ^[A-Za-z0-9_.]+$ ]] || { scn_err "$where: bad metric '$metric'"; return 1; } ;;
		label=*)
			label=${kv#label=}
			[[ $label =~ ^[A-Za-z0-9_./:+-]+$ ]] || { scn_err "$where: label may hold [A-Za-z0-9_./:+-] only"; return 1; } ;;
		*) scn_err "$where: compare takes claim=, metric= and label=, got '$kv'"; return 1 ;;
		esac
	done
	SCN_COMPARES+=("$base|$other|$claim|$metric|$label|$where")
}

# scn_compares: one "BASE OTHER CLAIM METRIC LABEL" line per comparison
# ('-' for an empty field); without compare lines, each variant vs the first
scn_compares() {
	local c base other claim metric label first v
	if [ ${#SCN_COMPARES[@]} -gt 0 ]; then
		for c in "${SCN_COMPARES[@]}"; do
			IFS='|' read -r base other claim metric label _ <<<"$c"
			echo "$base $other ${claim:--} ${metric:--} ${label:--}"
		done
		return 0
	fi
	first=${SCN_VARIANTS%% *}
	for v in ${SCN_VARIANTS#"$first"}; do echo "$first $v - - -"; done
}

# scn_mix32 X: set SCN_H to a 32-bit integer hash of X (xorshift-multiply,
# "lowbias32"); products are taken mod 2^32 in two halves so that no
# intermediate leaves bash's signed 64 bits
scn_mix32() {
	local x=$(($1 & 0xffffffff)) m
	for m in 0x7feb352d 0x846ca68b; do
		x=$((x ^ (x >> (m == 0x7feb352d ? 16 : 15))))
		x=$(((x * (m & 0xffff) + (((x * (m >> 16)) & 0xffff) << 16)) & 0xffffffff))
	done
	SCN_H=$((x ^ (x >> 16)))
}
# scn_hash32 SEED R K: set SCN_H to 32 mixed bits of a seed, a round, a draw
scn_hash32() {
	scn_mix32 "$1"
	scn_mix32 $((SCN_H + $2 * 0x9e3779b9))
	scn_mix32 $((SCN_H + $3 * 0x85ebca6b))
}

# scn_round_order R: the variants of round R (1-based) in the order they run
scn_round_order() {
	local r=$1
	local -a v
	read -r -a v <<<"$SCN_VARIANTS"
	case $SCN_ORDER in
	fixed) echo "${v[*]}" ;;
	abba)
		if [ $((r % 2)) = 0 ]; then
			local i out=()
			for ((i = ${#v[@]} - 1; i >= 0; i--)); do out+=("${v[$i]}"); done
			echo "${out[*]}"
		else
			echo "${v[*]}"
		fi ;;
	shuffle)
		# Fisher-Yates; draw k of round r is a hash of (seed, r, k), so
		# the order depends only on them and rounds are independent (an
		# LCG started at seed + r * step gave correlated rounds: within a
		# boot some variants never ran in some positions)
		local i j t k=0
		for ((i = ${#v[@]} - 1; i > 0; i--)); do
			k=$((k + 1))
			scn_hash32 "${SCN_SEED:-0}" "$r" "$k"
			j=$((SCN_H % (i + 1)))
			t=${v[$i]} v[$i]=${v[$j]} v[$j]=$t
		done
		echo "${v[*]}" ;;
	esac
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
