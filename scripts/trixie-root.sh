#!/bin/bash
# trixie-root.sh: a cached Debian 13 (trixie) root with the compiler that
# Debian 13's kernels name, for building their modules on a Debian 12 host.
#
#   trixie-root.sh build             debootstrap it unless it is there;
#                                    prints ROOT=<dir>
#   trixie-root.sh print             ROOT=<dir> of a complete root; exit 1
#                                    if there is none
#   trixie-root.sh run [--bind DIR]... -- CMD [ARG...]
#                                    run CMD in the root (built first if
#                                    needed), each DIR bind-mounted at its
#                                    own path, in a mount namespace of its
#                                    own (nothing stays mounted after it)
#   trixie-root.sh clean             remove the root
#
# Why a root and not gcc-14 on the host: Debian 13's kernel headers name
# x86_64-linux-gnu-gcc-14 and pass it options (-fmin-function-alignment)
# that Debian 12's gcc-12 refuses, and Debian 12 has no gcc-14.  A Debian
# 13 host needs none of this: scripts/build-kmod.sh uses the root only when
# the host lacks the compiler the headers name.
#
# The root is debootstrap --variant=minbase of trixie with the packages
# below, from the Debian mirror the host's apt sources name (read at run
# time, see debian-apt.sh), about 400 MB under
# ${SV_CACHE:-/var/tmp/softverbs-cache}/trixie-root.  It is built in a
# staging directory and moved in place, keyed by the suite and package
# list: a changed list builds a new root, an interrupted build leaves none.
# Needs root (debootstrap, chroot, mount).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/debian-apt.sh
. "$here/debian-apt.sh"

cache=${SV_CACHE:-/var/tmp/softverbs-cache}
root=$cache/trixie-root
suite=trixie
# dwarves: Debian 13's kernels have BTF for modules (CONFIG_DEBUG_INFO_BTF_
# MODULES), and kbuild warns when its pahole differs from the kernel's
include=gcc-14,make,libc6-dev,libelf-dev,bc,kmod,dwarves
key="$suite minbase $include"

die() { echo "trixie-root.sh: $*" >&2; exit 1; }

complete() { [ -f "$root/.sv-key" ] && [ "$(cat "$root/.sv-key")" = "$key" ]; }

build() {
	local mirror stage
	complete && return 0
	[ "$(id -u)" = 0 ] || die "building the root needs root"
	command -v debootstrap >/dev/null || {
		echo "trixie-root.sh: installing debootstrap" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
	}
	mirror=$(sv_apt_mirror)
	stage=$cache/.stage-trixie-root.$$
	rm -rf "$stage"
	mkdir -p "$cache"
	echo "trixie-root.sh: debootstrap $suite into $root (about a minute)" >&2
	if ! debootstrap --variant=minbase --include="$include" "$suite" "$stage" "$mirror" \
		>"$cache/trixie-root.log" 2>&1; then
		tail -n 20 "$cache/trixie-root.log" >&2
		rm -rf "$stage"
		die "debootstrap failed (log: $cache/trixie-root.log)"
	fi
	# apt's cache of the .debs is dead weight once they are installed
	rm -f "$stage"/var/cache/apt/archives/*.deb
	echo "$key" >"$stage/.sv-key"
	rm -rf "$root"
	mv "$stage" "$root"
}

# run_in [--bind DIR]... -- CMD...: see the usage above.  unshare gives the
# bind mounts a private mount namespace, so they vanish with CMD and never
# show up in the host's mount table (nor in another run's).
run_in() {
	local binds=()
	while [ $# -gt 0 ]; do
		case $1 in
		--bind) binds+=("$(realpath "$2")"); shift 2 ;;
		--) shift; break ;;
		*) die "run: unknown option $1" ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command"
	build
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		root=$1; n=$2; shift 2
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		while [ "$n" -gt 0 ]; do
			mkdir -p "$root$1"
			mount --bind "$1" "$root$1"
			shift; n=$((n - 1))
		done
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"
	' run-in "$root" "${#binds[@]}" ${binds[@]+"${binds[@]}"} "$@"
}

case ${1:-} in
build)
	build
	echo "ROOT=$root"
	;;
print)
	complete || exit 1
	echo "ROOT=$root"
	;;
run)
	shift
	run_in "$@"
	;;
clean)
	rm -rf "$root" "$cache"/.stage-trixie-root.*
	;;
*)
	sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
