#!/bin/bash
# deb-ccache.sh KVER...: fill the compiler cache that the DKMS builds of
# tests/user/17-deb*.sh use in the VMs, by building the packaged module
# source on the host exactly where and as DKMS builds it.
#
# In a qemu TCG guest DKMS's build of softverbs takes minutes (gcc runs
# ~15 times slower than on the host, and its include files come over 9p).
# Debian's kernel headers can compile through ccache
# (DEBIAN_KERNEL_USE_CCACHE=1, .kernelvariables), and DKMS takes its CC
# from there, so the guest sets that and CCACHE_DIR to this cache (read
# through the 9p root, written to its overlay) and DKMS's compiler calls
# hit.  A hit needs the same command line in the same directories: the
# source is the package's (make deb's build/deb tree), built in
# /var/lib/dkms/softverbs/VERSION/build with DKMS's make command, inside
# a private mount namespace with a tmpfs on /var/lib/dkms, so the host's
# DKMS state is never touched.  Root only (the mount namespace).
#
# Env: SV_CACHE (default /var/tmp/softverbs-cache); the cache is
# $SV_CACHE/ccache-dkms.  Prints ccache's hit counts at the end.
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
# shellcheck source=tests/user/lib/dkms-ccache.sh
. "$root/tests/user/lib/dkms-ccache.sh"
cache=$(dkms_ccache_dir)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/dkms.conf")
src=$root/build/deb/softverbs-$version/debian/softverbs-dkms/usr/src/softverbs-$version
[ -d "$src" ] || { echo "deb-ccache.sh: no $src (make deb first)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "deb-ccache.sh: needs root (a private mount namespace)" >&2; exit 1; }
command -v ccache >/dev/null || { echo "deb-ccache.sh: no ccache" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: deb-ccache.sh KVER..." >&2; exit 2; }
mkdir -p "$cache"

# what tests/user/lib/deb.sh gives DKMS, and nothing else from our environment
dkms_ccache_env "$cache"
ccenv=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${dkms_env[@]}")
CCACHE_DIR=$cache ccache -z >/dev/null
for k in "$@"; do
	kdir=/lib/modules/$k/build
	# a cloud kernel: unpacked into the cache, where its guest finds it too
	[ -e "$kdir" ] || kdir=$(bash "$root/scripts/cloud-kernel.sh" print "$k" | sed -n 's/^KDIR=//p')
	[ -f "$kdir/.kernelvariables" ] || { echo "deb-ccache.sh: $k: no Debian headers ($kdir/.kernelvariables)" >&2; exit 1; }
	echo "deb-ccache.sh: $k"
	unshare --mount --propagation private env -i "${ccenv[@]}" \
		SRC="$src" V="$version" K="$k" KDIR="$kdir" bash -c '
		set -euo pipefail
		mount -t tmpfs tmpfs /var/lib/dkms
		b=/var/lib/dkms/softverbs/$V/build
		mkdir -p "${b%/build}"
		cp -a "$SRC/" "$b"
		cd "$b"
		# DKMS: CC from the headers, then its make command (dkms.conf MAKE[0])
		export CC=$(printf "show-%%:\n\t@echo \$(\$*)\ninclude %s/.kernelvariables\n" "$KDIR" | make -f - show-CC)
		make -j2 KERNELRELEASE="$K" -C "$KDIR" M="$b" modules >/dev/null
		[ -f "$b/kmod/softverbs.ko" ]'
done
CCACHE_DIR=$cache ccache -s | grep -Ei 'hits|misses' || true
