# shellcheck shell=bash
# The one definition of the environment DKMS's compiler runs in for the
# package tests: scripts/deb-ccache.sh fills the cache on the host with it
# and tests/user/lib/deb.sh gives it to DKMS in the guest.  A ccache hit
# needs the two to agree on everything ccache hashes, which includes LANG
# and LC_* (the guest's LANG is tests/vm/init's C.UTF-8; with LANG unset on
# the host every guest compile missed).

# dkms_ccache_dir: where the cache lives (host and guest see one path)
dkms_ccache_dir() { echo "${SV_CACHE:-/var/tmp/softverbs-cache}/ccache-dkms"; }

# dkms_ccache_env DIR: set the array dkms_env to the locale and, with DIR,
# the ccache settings (Debian's headers honour DEBIAN_KERNEL_USE_CCACHE
# through .kernelvariables, and DKMS takes its CC from there)
dkms_ccache_env() {
	dkms_env=(LANG=C.UTF-8 LC_ALL=C)
	# shellcheck disable=SC2054 # a comma list in one value
	[ -z "${1:-}" ] || dkms_env+=(DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$1"
		CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime)
}
