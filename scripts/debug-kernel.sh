#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the softverbs debug test kernel (KASAN, lockdep, kmemleak, UBSAN,
# KUnit, Soft-RoCE as a module) from Debian's linux-source-6.1.
#
#   scripts/debug-kernel.sh build    configure + build if needed, print paths
#   scripts/debug-kernel.sh print    print paths of an existing build (exit 1 if none)
#   scripts/debug-kernel.sh config   configure and verify only (no compile)
#   scripts/debug-kernel.sh clean [--all]
#                                    remove builds and the extracted source
#                                    (--all: the ccache too)
#
# The last lines printed by build/print are, in this order:
#   KERNEL=<bootable image: vmlinux (PVH ELF) for qemu -kernel>
#   MODULES=<staging dir containing lib/modules/$KVER>
#   KDIR=<object tree, usable as make -C $KDIR M=...>
#   KVER=<kernel release>
# Also printed before them: BZIMAGE=<arch/x86/boot/bzImage>.
#
# Layout under ${SV_CACHE:-/var/tmp/softverbs-cache}:
#   linux-source-<ver>/    extracted once per Debian package version
#   ccache/                compiler cache (max 2G)
#   debug-<hash>/obj/      O= build tree = KDIR
#   debug-<hash>/modules/  modules_install staging (stripped)
#   debug-<hash>/build.log full build output
#   debug-<hash>/stamp     written last: the build is complete
# <hash> covers the source package version, tests/kernel/patches, the
# config fragment, this script's build recipe version and the compiler
# version, so changing any of them builds a new tree (ccache makes that
# ~2 min instead of ~13 on an idle machine).
#
# Environment: SV_CACHE, SV_KERNEL_TARBALL (default
# /usr/src/linux-source-6.1.tar.xz), SV_JOBS (default nproc),
# SV_KEEP_BUILDS (old debug-* trees kept, default 1).

set -euo pipefail

# Bump when the way the kernel is built changes in a way that the fragment
# does not capture (make targets, flags, staging layout).
RECIPE=1

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FRAGMENT="$REPO/tests/kernel/debug.config"
PATCHES="$REPO/tests/kernel/patches"		# *.patch, applied in name order
SV_CACHE=${SV_CACHE:-/var/tmp/softverbs-cache}
TARBALL=${SV_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SRC_PKG=linux-source-6.1
JOBS=${SV_JOBS:-$(nproc)}
KEEP=${SV_KEEP_BUILDS:-1}

export CCACHE_DIR="$SV_CACHE/ccache"
# Rewrite absolute paths under the cache to relative ones so that a fresh
# debug-<hash>/obj hits the entries made by its predecessor.
export CCACHE_BASEDIR="$SV_CACHE"
# Reproducible version strings: init/version.c then hits the cache too.
export KBUILD_BUILD_USER=softverbs KBUILD_BUILD_HOST=softverbs
export KBUILD_BUILD_TIMESTAMP="1970-01-01"

log() { printf 'debug-kernel: %s\n' "$*" >&2; }
die() { printf 'debug-kernel: error: %s\n' "$*" >&2; exit 1; }

# --- identity ---------------------------------------------------------------

src_pkg_version() {
	# Debian version of the source package, e.g. 6.1.192-2.  Falls back to
	# the tarball's size+mtime when dpkg does not know it (tarball copied in).
	local v
	v=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || true)
	if [ -z "$v" ]; then
		[ -r "$TARBALL" ] || die "no $TARBALL (apt-get install $SRC_PKG)"
		v="unpackaged-$(stat -c '%s-%Y' "$TARBALL")"
	fi
	printf '%s\n' "$v"
}

PKG_VERSION=$(src_pkg_version)
UPSTREAM_VERSION=${PKG_VERSION%%-*}		# 6.1.192
SRC="$SV_CACHE/linux-source-$UPSTREAM_VERSION"

patch_files() { ls -1 "$PATCHES"/*.patch 2>/dev/null | sort; }

patches_hash() {
	local f
	for f in $(patch_files); do
		basename "$f"
		cat "$f"
	done | sha256sum | cut -c1-12
}

build_hash() {
	{
		echo "recipe $RECIPE"
		echo "source $PKG_VERSION"
		echo "patches $(patches_hash)"
		gcc --version | head -n1
		cat "$FRAGMENT"
	} | sha256sum | cut -c1-12
}

[ -r "$FRAGMENT" ] || die "missing $FRAGMENT"
HASH=$(build_hash)
BDIR="$SV_CACHE/debug-$HASH"
OBJ="$BDIR/obj"
STAGING="$BDIR/modules"
BUILDLOG="$BDIR/build.log"
STAMP="$BDIR/stamp"

# --- helpers ----------------------------------------------------------------

check_tools() {
	local missing=() t
	for t in gcc make ccache flex bison bc perl xz tar cpio sha256sum patch; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	[ -e /usr/include/libelf.h ] || missing+=(libelf-dev)
	[ -e /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
	[ -r "$TARBALL" ] || missing+=("$SRC_PKG")
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ -x "$REPO/scripts/deps.sh" ]; then
		log "missing: ${missing[*]}; running scripts/deps.sh"
		"$REPO/scripts/deps.sh" >&2
		missing=()
		for t in gcc make ccache flex bison bc; do
			command -v "$t" >/dev/null 2>&1 || missing+=("$t")
		done
		[ -r "$TARBALL" ] || missing+=("$SRC_PKG")
		[ ${#missing[@]} -eq 0 ] && return 0
	fi
	die "missing build dependencies: ${missing[*]}
  (Debian: apt-get install gcc make ccache flex bison bc libelf-dev libssl-dev xz-utils cpio $SRC_PKG)"
}

# The source tree: Debian's tarball plus tests/kernel/patches.  Re-extracted
# when either changes, so a patch is never applied twice or left behind.
extract_source() {
	local want f
	want="$PKG_VERSION patches $(patches_hash)"
	if [ -f "$SRC/.sv-source" ] && [ "$(cat "$SRC/.sv-source")" = "$want" ]; then
		return 0
	fi
	log "extracting $TARBALL -> $SRC (once per package version and patch set, ~1 min)"
	rm -rf "$SRC" "$SV_CACHE"/.extract.*
	local tmp
	tmp=$(mktemp -d "$SV_CACHE/.extract.XXXXXX")
	tar -C "$tmp" -xf "$TARBALL"
	local top
	top=$(head -n1 <<<"$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)")
	[ -f "$top/Makefile" ] || die "unexpected tarball layout in $TARBALL"
	for f in $(patch_files); do
		log "applying $(basename "$f")"
		patch -p1 -d "$top" --batch --forward --quiet < "$f" ||
			die "$(basename "$f") does not apply to $PKG_VERSION"
	done
	mv "$top" "$SRC"
	rmdir "$tmp"
	echo "$want" > "$SRC/.sv-source"
}

kmake() {
	make -C "$SRC" O="$OBJ" CC="ccache gcc" -j"$JOBS" "$@"
}

# Check every line of the fragment against the final .config.
verify_config() {
	local config="$OBJ/.config" bad=0 line sym want got
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}; want=${line#*=} ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}; want=n ;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=" "$config" | head -n1 | cut -d= -f2- || true)
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			printf 'debug-kernel: config: %s wanted %s, got %s\n' "$sym" "$want" "$got" >&2
			bad=1
		fi
	done < "$FRAGMENT"
	if [ $bad -ne 0 ]; then
		log "config: some requested options did not survive olddefconfig"
		log "  (a missing dependency drops an option silently; see"
		log "   make -C $SRC O=$OBJ menuconfig, '/' search shows Depends on:)"
		return 1
	fi
	log "config: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$FRAGMENT") requested options verified"
}

configure() {
	mkdir -p "$OBJ"
	# Fresh every time: the fragment is the only input, never a stale .config.
	# An unchanged result keeps the old .config's mtime, so resuming an
	# interrupted build does not make kbuild re-sync its configuration.
	[ -f "$OBJ/.config" ] && mv "$OBJ/.config" "$OBJ/.config.sv-prev"
	kmake -s x86_64_defconfig >>"$BUILDLOG" 2>&1
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" \
		"$OBJ/.config" "$FRAGMENT") >>"$BUILDLOG" 2>&1
	kmake -s olddefconfig >>"$BUILDLOG" 2>&1
	if [ -f "$OBJ/.config.sv-prev" ]; then
		if cmp -s "$OBJ/.config" "$OBJ/.config.sv-prev"; then
			mv "$OBJ/.config.sv-prev" "$OBJ/.config"
		else
			rm -f "$OBJ/.config.sv-prev"
		fi
	fi
	verify_config
}

# Run make with output to the log and a progress line every minute.
make_logged() {
	local what=$1; shift
	local start=$SECONDS next=$((SECONDS + 60)) rc=0 pid
	echo "=== make $* ===" >>"$BUILDLOG"
	kmake "$@" >>"$BUILDLOG" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		if [ $SECONDS -ge $next ]; then
			next=$((next + 60))
			log "$what: $(( (SECONDS - start) / 60 )) min, $(grep -c '^  CC' "$BUILDLOG" || true) objects compiled so far"
		fi
	done
	wait "$pid" || rc=$?
	if [ $rc -ne 0 ]; then
		log "$what failed (exit $rc); last lines of $BUILDLOG:"
		grep -E 'error|Error' "$BUILDLOG" | tail -n 20 >&2 || true
		tail -n 20 "$BUILDLOG" >&2
		return $rc
	fi
	log "$what: done in $((SECONDS - start)) s"
}

kernel_release() { cat "$OBJ/include/config/kernel.release"; }

print_paths() {
	local kver
	kver=$(kernel_release)
	echo "BZIMAGE=$OBJ/arch/x86/boot/bzImage"
	echo "KERNEL=$OBJ/vmlinux"
	echo "MODULES=$STAGING"
	echo "KDIR=$OBJ"
	echo "KVER=$kver"
}

prune_old_builds() {
	# Keep the current tree and the $KEEP most recent others (~1 GB each).
	local d n=0
	for d in $(ls -1dt "$SV_CACHE"/debug-* 2>/dev/null); do
		[ "$d" = "$BDIR" ] && continue
		n=$((n + 1))
		if [ $n -gt "$KEEP" ]; then
			log "removing old build $d"
			rm -rf "$d"
		fi
	done
}

lock_cache() {
	mkdir -p "$SV_CACHE"
	exec 9>"$SV_CACHE/.lock"
	if ! flock -n 9; then
		log "another debug-kernel.sh holds $SV_CACHE/.lock; waiting"
		flock 9
	fi
}

# --- commands ---------------------------------------------------------------

cmd_print() {
	if [ ! -f "$STAMP" ]; then
		log "no complete build for this fragment (expected $STAMP); run: $0 build"
		return 1
	fi
	print_paths
}

cmd_config() {
	check_tools
	lock_cache
	extract_source
	mkdir -p "$BDIR"
	configure
	log "config: $OBJ/.config"
}

cmd_build() {
	if [ -f "$STAMP" ]; then
		log "up to date: $BDIR (hash $HASH)"
		print_paths
		return 0
	fi
	check_tools
	lock_cache
	# Someone else may have finished it while we waited for the lock.
	if [ -f "$STAMP" ]; then
		print_paths
		return 0
	fi
	local t0=$SECONDS
	extract_source
	mkdir -p "$BDIR" "$CCACHE_DIR"
	ccache -M 2G >/dev/null
	echo "=== $(date -u +%FT%TZ) build $HASH ===" >> "$BUILDLOG"
	log "building $UPSTREAM_VERSION debug kernel in $BDIR (log: $BUILDLOG)"
	configure || die "config verification failed"
	ccache -z >/dev/null
	make_logged "bzImage+modules" bzImage modules
	rm -rf "$STAGING"
	make_logged "modules_install" INSTALL_MOD_PATH="$STAGING" \
		INSTALL_MOD_STRIP=1 modules_install
	# Dangling links into $OBJ would only confuse a guest that mounts
	# MODULES elsewhere; KDIR is printed separately.
	rm -f "$STAGING/lib/modules/$(kernel_release)/build" \
	      "$STAGING/lib/modules/$(kernel_release)/source"
	log "ccache: $(ccache -s | grep -E 'Hits|hit rate|cache hit \(' | head -n 2 | tr -s ' ' | tr '\n' ';')"
	{
		echo "hash=$HASH"
		echo "kver=$(kernel_release)"
		echo "source=$PKG_VERSION"
		echo "seconds=$((SECONDS - t0))"
		date -u +built=%Y-%m-%dT%H:%M:%SZ
	} > "$STAMP.tmp"
	mv "$STAMP.tmp" "$STAMP"
	log "built in $((SECONDS - t0)) s"
	prune_old_builds
	print_paths
}

cmd_clean() {
	lock_cache
	log "removing $SV_CACHE/debug-* and $SV_CACHE/linux-source-*"
	rm -rf "$SV_CACHE"/debug-* "$SV_CACHE"/linux-source-* "$SV_CACHE"/.extract.*
	if [ "${1:-}" = "--all" ]; then
		log "removing $CCACHE_DIR"
		rm -rf "$CCACHE_DIR"
	fi
}

case "${1:-}" in
build)	cmd_build ;;
print)	cmd_print ;;
config)	cmd_config ;;
clean)	shift; cmd_clean "$@" ;;
*)	sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
