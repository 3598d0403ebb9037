# cgroup.sh - cgroup v2 helpers for the guest side of the bench harness
# (sourced; bash).  Only ever run inside the QEMU guest: these functions
# create, kill and remove cgroups.  Paths are relative to the cgroup2 mount
# ($CG, default /sys/fs/cgroup); "/" or "" is the root cgroup.
#
#   cg_snapshot            remember the cgroups and root controllers present now
#   cg_apply FILE          cgconfigparser -l FILE; on failure print its message
#   cg_teardown            kill tasks in and remove every cgroup created since
#                          cg_snapshot; restore the root's subtree_control
#   cg_run PATH CMD...     run CMD inside cgroup PATH (waits; use & to background)
#   cg_stat_into VAR PATH KEY  VAR = the KEY line of PATH's cpu.stat (no fork)
#   cg_usage_into VAR PATH VAR = cpu.stat usage_usec of PATH (no fork)
#   cg_shares LEAF...      "LEAF SHARE" lines: the share of the CPU each leaf
#                          gets by its cpu.weight chain when all leaves are busy

CG=${CG:-/sys/fs/cgroup}
CG_STATE=${CG_STATE:-/tmp/bench-cg-state}

cg_dir() { local p=${1#/}; printf '%s' "$CG${p:+/$p}"; }

cg_snapshot() {
	mkdir -p "$CG_STATE"
	(cd "$CG" && find . -mindepth 1 -type d | sort) >"$CG_STATE/dirs"
	cat "$CG/cgroup.subtree_control" >"$CG_STATE/root-controllers"
}

cg_apply() {
	local file=$1 out rc
	[ -f "$file" ] || { echo "cgroup config not found: $file" >&2; return 2; }
	out=$(cgconfigparser -l "$file" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "cgconfigparser -l $file failed (exit $rc):" >&2
		printf '%s\n' "$out" | sed 's/^/  /' >&2
		return $rc
	fi
	return 0
}

# Kill everything in a cgroup subtree and wait (up to 10 s) until it is empty.
cg_kill() {
	local d i
	d=$(cg_dir "$1")
	[ -d "$d" ] || return 0
	echo 1 >"$d/cgroup.kill" 2>/dev/null || true
	for i in $(seq 100); do
		grep -q '^populated 0' "$d/cgroup.events" && return 0
		sleep 0.1
	done
	echo "cgroup $1 still has tasks after cgroup.kill" >&2
	return 1
}

cg_teardown() {
	local d c rc=0
	[ -f "$CG_STATE/dirs" ] || { echo "cg_teardown without cg_snapshot" >&2; return 1; }
	# new cgroups, deepest first
	(cd "$CG" && find . -mindepth 1 -type d | sort) |
		comm -13 "$CG_STATE/dirs" - |
		awk -F/ '{ print NF "\t" $0 }' | sort -rn | cut -f2 |
		while read -r d; do
			d=${d#./}
			cg_kill "$d" || rc=1
			rmdir "$CG/$d" || rc=1
			[ $rc = 0 ] || exit 1
		done || rc=1
	for c in $(cat "$CG/cgroup.subtree_control"); do
		grep -qw "$c" "$CG_STATE/root-controllers" ||
			echo "-$c" >"$CG/cgroup.subtree_control" 2>/dev/null || true
	done
	return $rc
}

cg_run() {
	local d
	d=$(cg_dir "$1")
	shift
	[ -d "$d" ] || { echo "no such cgroup: $d" >&2; return 1; }
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$d" "$@"
}

# cg_stat_into VAR PATH KEY: VAR = the KEY line of PATH's cpu.stat, with
# builtins only (no fork), so several cgroups can be read within
# microseconds of each other; 1 (VAR untouched) if there is no such line
cg_stat_into() {
	local k v p=${2#/}
	while read -r k v; do
		[ "$k" = "$3" ] && { printf -v "$1" '%s' "$v"; return 0; }
	done <"$CG${p:+/$p}/cpu.stat"
	return 1
}

# cg_usage_into VAR PATH: VAR=usage_usec of PATH (cg_stat_into)
cg_usage_into() {
	cg_stat_into "$1" "$2" usage_usec && return 0
	echo "no usage_usec for cgroup $2" >&2
	return 1
}

# Walks the tree with bash builtins and does the arithmetic in one awk.
cg_shares() {
	local -A active=() weight=()
	local leaf p q s sum expr=""
	for leaf in "$@"; do
		p=${leaf#/}
		while [ -n "$p" ]; do
			active[$p]=1
			[[ $p == */* ]] && p=${p%/*} || p=
		done
	done
	for p in "${!active[@]}"; do
		read -r "weight[$p]" <"$CG/$p/cpu.weight" 2>/dev/null ||
			{ echo "no cpu.weight for cgroup $p (cpu controller not enabled?)" >&2; return 1; }
	done
	for leaf in "$@"; do
		p=${leaf#/}
		expr="$expr$leaf 1"
		while [ -n "$p" ]; do
			[[ $p == */* ]] && q=${p%/*} || q=
			sum=0
			for s in "${!active[@]}"; do
				if [[ $s == */* ]]; then [ "${s%/*}" = "$q" ]; else [ -z "$q" ]; fi && sum=$((sum + weight[$s]))
			done
			expr="$expr ${weight[$p]} $sum"
			p=$q
		done
		expr="$expr"$'\n'
	done
	awk '{ s = $2; for (i = 3; i < NF; i += 2) s *= $i / $(i + 1); printf "%s %.6f\n", $1, s }' <<<"${expr%$'\n'}"
}
