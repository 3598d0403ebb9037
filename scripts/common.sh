# Shared settings for the build scripts (sourced, not run).
# Paths are absolute so scripts work from any directory.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KSRC=${KSRC:-$BUILD/linux}              # git tree: baseline + series
KOBJ=${KOBJ:-$BUILD/kbuild}             # out-of-tree object folder
KTARBALL=${KTARBALL:-/usr/src/linux-source-6.1.tar.xz}
PATCHDIR=$ROOT/kernel-patches
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/scx-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Hit across clones: paths below the repo are hashed relative to it, and the
# object folder is not hashed (debug info may then name another clone's path).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Fixed build identity so ccache hits across clones and rebuilds.
export KBUILD_BUILD_USER=scx KBUILD_BUILD_HOST=build
JOBS=${JOBS:-$(nproc)}

say() { printf '  %-8s %s\n' "$1" "$2"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run a command quietly unless V=1; on failure show the tail of its log.
run_logged() {
	local log=$1; shift
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee "$log"; return "${PIPESTATUS[0]}"
	fi
	if ! "$@" >"$log" 2>&1; then
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		return 1
	fi
}

# Hash of everything that defines the patched tree.
# The patch file names listed in kernel-patches/series, one per line, in
# order (comment and blank lines skipped).
series_patches() {
	{ grep -v '^[[:space:]]*#' "$PATCHDIR/series" || true; } | sed '/^[[:space:]]*$/d'
}

series_hash() {
	(cd "$PATCHDIR" && cat series $(series_patches)) | sha1sum | cut -c1-12
}
