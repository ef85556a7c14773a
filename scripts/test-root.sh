#!/bin/bash
# test-root.sh: cached Debian roots that the test VMs boot in place of the
# host's (tests/vm/run.sh --root), for the user space of Debian 13 and of sid.
#
#   test-root.sh build SUITE    debootstrap it unless it is there; prints
#                               ROOT=<dir>
#   test-root.sh print SUITE    ROOT=<dir> of a complete root; exit 1 if
#                               there is none (tests and check.sh ask this:
#                               they never build)
#   test-root.sh list SUITE     the packages it holds that matter, with
#                               their versions (what is recorded in the root)
#   test-root.sh clean SUITE    remove it
#
# SUITE: trixie (Debian 13: rdma-core 56, UCX, libfabric 2, Open MPI 5, and
# dkms with gcc-14 for its kernels' DKMS builds), or
# sid (rdma-core 65, whose python3-pyverbs needs sid's python3.14; its test
# suite is /usr/share/doc/rdma-core/tests).
#
# A root is debootstrap --variant=minbase of SUITE, then apt-get install of
# the packages below in it: all at once, else each alone, so a package that
# does not install in that suite (sid moves) is left out and named in
# .sv-missing, not a failed build.  The root is complete as made: a test VM
# downloads nothing.  It is built in a staging directory and moved in place
# as $SV_CACHE/test-root-SUITE (default cache /var/tmp/softverbs-cache),
# keyed by the suite, this list and the build steps: a changed list
# rebuilds it, an interrupted build leaves none.  The mirror is the one the
# host's apt sources name (scripts/debian-apt.sh), read at run time.
# Needs root (debootstrap, chroot).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/debian-apt.sh
. "$here/debian-apt.sh"
cache=${SV_CACHE:-/var/tmp/softverbs-cache}

# What the test VMs run: rdma-core's tools, providers and pyverbs suite, the
# benchmarks and upper libraries (UCX, libfabric, Open MPI with mpi4py for
# tests/user/72-mpi), and what tests/vm/init and
# tests/user/lib.sh use (kmod's modprobe, iproute2's ip and rdma, procps,
# python3).  Each suite's own versions.
packages=(
	rdma-core ibverbs-utils ibverbs-providers python3-pyverbs perftest
	rdmacm-utils iproute2 kmod procps python3 ethtool
	ucx-utils libfabric-bin openmpi-bin python3-mpi4py
)
# Debian 13's root is also where its user installs softverbs' packages
# with apt and DKMS builds them for Debian 13's kernel
# (scripts/deb-install.sh --root, tests/user/16-dkms.sh and 17-deb.sh):
# what such a machine has for that.  dkms; what linux-headers-7.3.4+deb13
# and its kbuild package depend on (gcc-14-for-host, pahole, linux-base and
# the libraries of kbuild's tools), less the headers themselves, which
# come from the unpacked tree of scripts/trixie-kernel.sh; what the
# packages depend on (libibverbs-dev, libmnl0); and what 17-deb builds a
# program with (gcc, pkg-config).  Not sid's: nothing tests DKMS there.
if [ "${2:-}" = trixie ]; then
	packages+=(
		dkms gcc gcc-14-for-host make libc6-dev pkg-config pahole
		linux-base libelf1t64 libssl3t64 zlib1g libibverbs-dev libmnl0
	)
fi
# bump when the build steps below change what a root holds
steps=1

die() { echo "test-root.sh: $*" >&2; exit 1; }

usage() { sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

[ $# -eq 2 ] || usage
cmd=$1 suite=$2
case $suite in
trixie | sid) ;;
*) die "SUITE is trixie or sid, not $suite" ;;
esac
root=$cache/test-root-$suite
key="$suite minbase steps=$steps ${packages[*]}"

complete() { [ -f "$root/.sv-key" ] && [ "$(cat "$root/.sv-key")" = "$key" ]; }

# in_root STAGE CMD...: CMD chrooted in STAGE with /proc, /sys and /dev
# mounted in a mount namespace of its own (nothing stays mounted after it)
in_root() {
	local dir=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		r=$1; shift
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount --rbind /dev "$r/dev"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in-root "$dir" "$@"
}

build() {
	local mirror stage log p missing=() t0=$SECONDS
	complete && return 0
	[ "$(id -u)" = 0 ] || die "building the root needs root"
	command -v debootstrap >/dev/null || {
		echo "test-root.sh: installing debootstrap" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
	}
	mirror=$(sv_apt_mirror)
	stage=$cache/.stage-test-root-$suite.$$
	log=$cache/test-root-$suite.log
	rm -rf "$stage"
	mkdir -p "$cache"
	trap 'rm -rf "$stage"' EXIT
	echo "test-root.sh: debootstrap $suite into $root (a few minutes)" >&2
	if ! debootstrap --variant=minbase "$suite" "$stage" "$mirror" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "debootstrap failed (log: $log)"
	fi
	# no daemons started by package scripts while installing
	printf '#!/bin/sh\nexit 101\n' >"$stage/usr/sbin/policy-rc.d"
	chmod 755 "$stage/usr/sbin/policy-rc.d"
	# a mirror's copy of sid can be older than its Release file's
	# Valid-Until: what the root gets is recorded (list), not "the newest"
	in_root "$stage" apt-get -o Acquire::Check-Valid-Until=false update -q >>"$log" 2>&1 ||
		die "apt-get update failed (log: $log)"
	if ! in_root "$stage" apt-get install -y -q --no-install-recommends "${packages[@]}" >>"$log" 2>&1; then
		echo "test-root.sh: not everything installs in $suite, trying each package" >&2
		for p in "${packages[@]}"; do
			in_root "$stage" apt-get install -y -q --no-install-recommends "$p" >>"$log" 2>&1 ||
				missing+=("$p")
		done
	fi
	rm -f "$stage/usr/sbin/policy-rc.d"
	# the .debs and package lists are dead weight once installed
	in_root "$stage" apt-get clean >>"$log" 2>&1
	rm -rf "$stage"/var/lib/apt/lists/*
	: >"$stage/.sv-missing"
	[ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}" >"$stage/.sv-missing"
	[ ${#missing[@]} -eq 0 ] || echo "test-root.sh: not in the $suite root: ${missing[*]}" >&2
	echo "$key" >"$stage/.sv-key"
	rm -rf "$root"
	mv "$stage" "$root"
	trap - EXIT
	echo "test-root.sh: $root: $(du -sh "$root" | cut -f1), built in $((SECONDS - t0)) s" >&2
}

case $cmd in
build)
	build
	echo "ROOT=$root"
	;;
print)
	complete || exit 1
	echo "ROOT=$root"
	;;
list)
	complete || die "no complete $suite root (test-root.sh build $suite)"
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Package} ${Version}\n' \
		"${packages[@]}" python3-pyverbs libibverbs1 librdmacm1t64 2>/dev/null || true
	[ ! -s "$root/.sv-missing" ] || echo "missing: $(tr '\n' ' ' <"$root/.sv-missing")"
	;;
clean)
	rm -rf "$root" "$cache"/.stage-test-root-"$suite".*
	;;
*) usage ;;
esac
