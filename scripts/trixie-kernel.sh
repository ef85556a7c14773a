#!/bin/bash
# trixie-kernel.sh: Debian 13's newer kernels (trixie-backports) for the
# build and test matrix, downloaded and unpacked into the cache, never
# installed on the host.  The sibling of cloud-kernel.sh for the suites the
# host's apt sources do not list.
#
#   trixie-kernel.sh fetch [SERIES...]
#                        for each series (default: 6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3) the newest
#                        kernel the archive serves: headers of the amd64
#                        flavour (of 6.16 to 7.1, whose headers the index
#                        omits, from the pool by the newest image's
#                        version); for the series in SV_TRIXIE_IMAGES
#                        (default: 7.3) also the image and modules of the
#                        amd64 and cloud-amd64 flavours, with the cloud
#                        flavour's headers; prints each kernel's paths
#   trixie-kernel.sh kdir KVER
#                        the headers to build for KVER: an installed
#                        kernel's /lib/modules/KVER/build, else the
#                        unpacked tree's; exit 1 if neither
#   trixie-kernel.sh print [KVER]
#                        the paths of unpacked kernels (all, or KVER's);
#                        exit 1 if there is none
#   trixie-kernel.sh debian-layer KVER DIR
#                        write into DIR what puts KVER's unpacked tree back
#                        where Debian's packages place it, as an overlay
#                        layer above the tree (see "Layout")
#   trixie-kernel.sh dkms-install KVER ROOT
#                        build this checkout's module through DKMS for KVER
#                        the Debian 13 way: ROOT's dkms and gcc-14 (the
#                        Debian 13 root of test-root.sh), in a throwaway
#                        copy of ROOT with the tree's headers; installed
#                        into the unpacked tree (the guest's
#                        /lib/modules/KVER, for tests/user/16-dkms.sh); for
#                        a kernel unpacked without its image, DKMS's build
#                        only
#   trixie-kernel.sh dkms-remove KVER
#                        and remove it again
#   trixie-kernel.sh debs KVER
#                        the .deb files that "apt install linux-headers-KVER"
#                        adds to a Debian 13 system (the headers, their
#                        -common, kbuild and linux-base-KVER packages),
#                        downloaded into the cache unless there; one path
#                        a line (scripts/deb-install.sh --from installs
#                        them for real, so that their postinst runs
#                        DKMS's kernel hook)
#   trixie-kernel.sh list
#                        the kernel headers the archive serves (the
#                        series fetch can take)
#   trixie-kernel.sh clean
#
# For each kernel it prints, one line each:
#   KVER=7.3.4+deb13-amd64  KDIR=<tree>/usr/src/linux-headers-KVER
#   and, when the image was unpacked too,
#   KERNEL=<tree>/lib/modules/KVER/vmlinuz  MODULES=<tree>/lib/modules/KVER
# KDIR builds the module (scripts/build-kmod.sh KDIR OUTDIR, which builds
# in the Debian 13 root of trixie-root.sh when the host lacks gcc-14).
#
# Layout: $SV_CACHE/trixie/KVER, one tree per kernel, as dpkg-deb -x of
# linux-headers-KVER, its -common and linux-kbuild packages (and, with the
# image, linux-image-KVER's linux-binary/linux-modules/linux-base packages:
# from 7.x Debian splits the image that way).  The flavour Makefile is
# pointed at the tree's own common headers (Debian's says
# /usr/src/linux-headers-*-common) and the modules get a modules.dep
# (depmod -b).  The tree is keyed by the .deb file names: a rebuilt
# kernel replaces it.  Debian 13's modules are .ko.xz.  An overlay of
# debian-layer's DIR over the tree (over a Debian 13 root: lowerdir=
# DIR:TREE:ROOT) has the headers, kbuild and modules where installing the
# packages would put them, the Makefile naming /usr/src/... and
# /lib/modules/KVER/build -> /usr/src/linux-headers-KVER again: what
# dkms-install and scripts/deb-install.sh --root build in.
#
# What the archive serves: trixie-backports' index lists headers of 7.2.x
# and 7.3.4, and 6.16 to 7.1 as images only; the header packages of the
# newest image of each of those are in the pool (pool_headers).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/debian-apt.sh
. "$here/debian-apt.sh"

cache=${SV_CACHE:-/var/tmp/softverbs-cache}
base=$cache/trixie
dl=$base/dl
images=${SV_TRIXIE_IMAGES:-7.3}

die() { echo "trixie-kernel.sh: $*" >&2; exit 1; }

print_tree() {
	local t=$base/$1
	echo "KVER=$1"
	echo "KDIR=$t/usr/src/linux-headers-$1"
	if [ -f "$t/lib/modules/$1/vmlinuz" ]; then
		echo "KERNEL=$t/lib/modules/$1/vmlinuz"
		echo "MODULES=$t/lib/modules/$1"
	fi
}

# newest KVER (7.3.4+deb13) of a series (7.3) among the served headers
newest() {
	sv_apt_cache search --names-only "^linux-headers-$1[.].*-common\$" |
		sed -n 's/^linux-headers-\([^ ]*\)-common .*/\1/p' | sort -V | tail -n 1
}

# pool_headers SERIES: a series whose headers the index does not list
# (trixie-backports' index names only the images of 6.16 to 7.1; their
# header packages are still in the pool, under the source package "linux"):
# the newest image's kernel, its headers, -common and kbuild packages
# downloaded from the pool by name into $dl; prints the KVER and the file
# names, one a line
pool_headers() {
	local kver base ver mirror f
	kver=$(sv_apt_cache search --names-only "^linux-image-$1[.][0-9]+[+]deb[0-9]+-amd64\$" |
		sed -n 's/^linux-image-\([^ ]*\) .*/\1/p' | sort -V | tail -n 1)
	[ -n "$kver" ] || return 1
	ver=$(sv_apt_cache show --no-all-versions "linux-image-$kver" | awk '$1 == "Version:" { print $2; exit }')
	base=${kver%-amd64}
	mirror=$(sv_apt_mirror) || return 1
	mkdir -p "$dl"
	echo "$kver"
	for f in "linux-headers-${kver}_${ver}_amd64.deb" "linux-headers-$base-common_${ver}_all.deb" \
		"linux-kbuild-${base}_${ver}_amd64.deb"; do
		[ -f "$dl/$f" ] || curl -fsS -o "$dl/$f.part" "$mirror/pool/main/l/linux/$f" ||
			{ rm -f "$dl/$f.part"; die "$f: not in the pool either"; }
		[ ! -f "$dl/$f.part" ] || mv "$dl/$f.part" "$dl/$f"
		echo "$f"
	done
}

# deps PKG REGEX: PKG's candidate's dependencies matching REGEX
deps() {
	sv_apt_cache depends --no-recommends --no-suggests "$1" 2>/dev/null |
		awk -v re="$2" '$1 ~ /^\|?Depends:$/ && $2 ~ re { print $2 }' | sort -u
}

# download PKG...: into $dl unless there; prints each one's file name
download() {
	local p f files=()
	mkdir -p "$dl"
	for p in "$@"; do
		f=$(sv_apt_cache show --no-all-versions "$p" | awk '$1 == "Filename:" { print $2; exit }')
		[ -n "$f" ] || die "$p: no candidate version"
		f=$(basename "$f")
		[ -f "$dl/$f" ] || (cd "$dl" && sv_apt download -q "$p" >/dev/null 2>"$dl/apt.err") || {
			cat "$dl/apt.err" >&2
			die "$p: download failed"
		}
		files+=("$f")
	done
	printf '%s\n' "${files[@]}"
}

# unpack KVER DEB...: the tree of KVER from these .debs, unless it is there
unpack() {
	local kver=$1 tree=$base/$1 stage key f
	shift
	key=$(printf '%s\n' "$@")
	if [ -f "$tree/.sv-key" ] && [ "$(cat "$tree/.sv-key")" = "$key" ]; then
		touch "$tree/.sv-key"
		# a DKMS install that an interrupted run left behind
		if [ -d "$tree/lib/modules/$kver/updates" ]; then
			rm -rf "$tree/lib/modules/$kver/updates"
			depmod -b "$tree" "$kver"
		fi
		return 0
	fi
	stage=$base/.stage-$kver.$$
	rm -rf "$stage"
	mkdir -p "$stage"
	for f in "$@"; do
		dpkg-deb -x "$dl/$f" "$stage"
	done
	[ -f "$stage/usr/src/linux-headers-$kver/Makefile" ] || {
		rm -rf "$stage"
		die "$kver: the packages lack its headers"
	}
	# (and from 7.x names itself as the build directory, KBUILD_OUTPUT)
	sed -i -e "s|^include /usr/src/|include $tree/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$tree/usr/src/|" \
		"$stage/usr/src/linux-headers-$kver/Makefile"
	# from 7.x the packages install into /usr/lib/modules/KVER only
	# (vmlinuz included; the postinst copies it to /boot): lib is usr/lib,
	# as on a merged-/usr system, for depmod -b and the paths printed
	if [ -d "$stage/usr/lib/modules" ] && [ ! -e "$stage/lib" ]; then
		ln -s usr/lib "$stage/lib"
	fi
	if [ -f "$stage/lib/modules/$kver/modules.order" ]; then
		ln -sfn "$tree/usr/src/linux-headers-$kver" "$stage/lib/modules/$kver/build"
		depmod -b "$stage" "$kver"
	fi
	echo "$key" >"$stage/.sv-key"
	rm -rf "$tree"
	mv "$stage" "$tree"
}

# fetch_kernel KVER WITH_IMAGE: download and unpack one kernel
fetch_kernel() {
	local kver=$1 pkgs=() files re
	re=${kver//./[.]}
	re=${re//+/[+]}
	pkgs=("linux-headers-$kver")
	mapfile -t -O 1 pkgs < <(deps "linux-headers-$kver" '^linux-(headers-.*-common|kbuild-.*)$')
	[ ${#pkgs[@]} = 3 ] || die "linux-headers-$kver: no -common or kbuild package among its dependencies"
	if [ "$2" = 1 ]; then
		pkgs+=("linux-image-$kver")
		mapfile -t -O ${#pkgs[@]} pkgs < <(deps "linux-image-$kver" "^linux-(binary|modules|base)-$re\$")
	fi
	files=$(download "${pkgs[@]}")
	# shellcheck disable=SC2086 # one file name a line, none with blanks
	unpack "$kver" $files
	print_tree "$kver"
}

fetch() {
	local s v img flavour kvers=()
	sv_apt_update
	for s in "$@"; do
		v=$(newest "$s")
		if [ -z "$v" ]; then
			# headers in the pool only: amd64, no image
			local got=()
			mapfile -t got < <(pool_headers "$s") || true
			[ ${#got[@]} = 4 ] || die "no kernel headers of series $s in ${sv_apt_suites// /, }"
			unpack "${got[0]}" "${got[@]:1}"
			print_tree "${got[0]}"
			kvers+=("${got[0]}")
			continue
		fi
		img=0
		[[ " $images " != *" $s "* ]] || img=1
		for flavour in amd64 cloud-amd64; do
			[ $img = 1 ] || [ $flavour = amd64 ] || continue
			fetch_kernel "$v-$flavour" $img
			kvers+=("$v-$flavour")
		done
	done
	# superseded trees, unused for a day (another checkout may use one)
	for f in "$base"/*/.sv-key; do
		[ -e "$f" ] || continue
		v=$(basename "$(dirname "$f")")
		grep -qxF "$v" <<<"$(printf '%s\n' "${kvers[@]}")" && continue
		[ -z "$(find "$f" -mmin +1440)" ] || rm -rf "${f%/.sv-key}"
	done
}

# header_debs KVER: see the usage (debs)
header_debs() {
	local kver=$1 re pkgs f
	re=${kver//./[.]}
	re=${re//+/[+]}
	sv_apt_update
	pkgs=("linux-headers-$kver")
	mapfile -t -O 1 pkgs < <(deps "linux-headers-$kver" "^linux-(headers-.*-common|kbuild-.*|base-$re)\$")
	[ ${#pkgs[@]} = 4 ] || die "linux-headers-$kver: not the -common, kbuild and linux-base-$kver packages among its dependencies (${pkgs[*]})"
	for f in $(download "${pkgs[@]}"); do
		echo "$dl/$f"
	done
}

# debian_layer KVER DIR: see the usage
debian_layer() {
	local kver=$1 dir=$2 tree=$base/$1
	[ -f "$tree/usr/src/linux-headers-$kver/Makefile" ] || die "$kver is not unpacked (fetch)"
	mkdir -p "$dir/usr/src/linux-headers-$kver" "$dir/usr/lib/modules/$kver"
	# (the -common headers' Makefile and the kbuild tree's links are
	# relative or name /usr/src already)
	sed -e "s|^include $tree/usr/src/|include /usr/src/|" -e "s|^KBUILD_OUTPUT=$tree/usr/src/|KBUILD_OUTPUT=/usr/src/|" \
		"$tree/usr/src/linux-headers-$kver/Makefile" >"$dir/usr/src/linux-headers-$kver/Makefile"
	! grep -qF "$tree" "$dir/usr/src/linux-headers-$kver/Makefile" || die "the headers' Makefile still names $tree"
	ln -sfn "/usr/src/linux-headers-$kver" "$dir/usr/lib/modules/$kver/build"
}

# dkms_install KVER ROOT: see the usage; runs in a mount namespace of its
# own (SV_TK_NS set), so its mounts vanish with it; t, its scratch
# directory, is global for the EXIT trap
dkms_install() {
	local kver=$1 troot=$2 tree=$base/$1 src version r rc=0
	src=$(cd "$here/.." && pwd)
	version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
	# a kernel without its image (headers only): DKMS builds, nothing to install into
	local image=1
	[ -f "$tree/lib/modules/$kver/modules.dep" ] || image=0
	[ -f "$tree/usr/src/linux-headers-$kver/Makefile" ] || die "$kver is not unpacked (fetch)"
	[ -x "$troot/usr/sbin/dkms" ] || die "$troot has no dkms (scripts/test-root.sh build trixie)"
	# a clean slate, as make dkms-install's "dkms remove" first: DKMS
	# refuses to install over a module of the same version
	if [ -d "$tree/lib/modules/$kver/updates" ]; then
		rm -rf "$tree/lib/modules/$kver/updates"
		depmod -b "$tree" "$kver"
	fi
	t=$(mktemp -d /tmp/sv-trixie-dkms.XXXXXX)
	mount -t tmpfs sv-trixie-dkms "$t"
	# (lazily when busy, as in deb-install.sh)
	trap 'umount -R "$t" 2>/dev/null || umount -R -l "$t"; rmdir "$t"' EXIT
	mkdir "$t/up" "$t/work" "$t/fix" "$t/root"
	debian_layer "$kver" "$t/fix"
	mount -t overlay sv-trixie-dkms -o "lowerdir=$t/fix:$tree:$troot,upperdir=$t/up,workdir=$t/work" "$t/root"
	r=$t/root
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	# the source as make dkms-install puts it in /usr/src
	mkdir -p "$r/usr/src/softverbs-$version/tests"
	(cd "$src" && cp -r dkms.conf Kbuild kmod uapi "$r/usr/src/softverbs-$version/" &&
		cp -r tests/kunit "$r/usr/src/softverbs-$version/tests/")
	find "$r/usr/src/softverbs-$version" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \
		-o -name config.h \) -delete
	in_r() { chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
	in_r dkms add "softverbs/$version" &&
		in_r dkms build "softverbs/$version" -k "$kver" || rc=$?
	[ $rc != 0 ] || [ $image = 0 ] || in_r dkms install "softverbs/$version" -k "$kver" || rc=$?
	if [ $rc != 0 ]; then
		cat "$r/var/lib/dkms/softverbs/$version/build/make.log" 2>/dev/null || true
		return $rc
	fi
	if [ $image = 0 ]; then
		ls "$r/var/lib/dkms/softverbs/$version/$kver/x86_64/module/"softverbs.ko* >/dev/null ||
			die "DKMS built no softverbs.ko for $kver"
		echo "DKMS built softverbs/$version for $kver (headers only: not installed)"
		return 0
	fi
	# what DKMS installed, into the tree; its modules.dep from the host's
	# depmod, as for the tree's own modules
	[ -d "$t/up/usr/lib/modules/$kver/updates" ] || die "DKMS installed nothing into /usr/lib/modules/$kver/updates"
	rm -rf "$tree/lib/modules/$kver/updates"
	cp -a "$t/up/usr/lib/modules/$kver/updates" "$tree/lib/modules/$kver/"
	depmod -b "$tree" "$kver"
	find "$tree/lib/modules/$kver/updates" -type f -printf 'installed: %p\n'
}

case ${1:-} in
debs)
	header_debs "${2:?KVER}"
	;;
debian-layer)
	debian_layer "${2:?KVER}" "${3:?DIR}"
	;;
dkms-install)
	kver=${2:?KVER} troot=$(realpath "${3:?ROOT}")
	[ "$(id -u)" = 0 ] || die "dkms-install needs root (a mount namespace, chroot)"
	if [ -z "${SV_TK_NS:-}" ]; then
		exec unshare --mount --propagation private env SV_TK_NS=1 bash "$0" dkms-install "$kver" "$troot"
	fi
	dkms_install "$kver" "$troot"
	;;
dkms-remove)
	kver=${2:?KVER}
	tree=$base/$kver
	[ -f "$tree/.sv-key" ] || die "$kver is not unpacked (fetch)"
	if [ -d "$tree/lib/modules/$kver/updates" ]; then
		rm -rf "$tree/lib/modules/$kver/updates"
		depmod -b "$tree" "$kver"
	fi
	;;
fetch)
	shift
	[ $# -gt 0 ] || set -- 6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3
	fetch "$@"
	;;
kdir)
	# an installed kernel's headers, or those of one unpacked here
	[ -n "${2:-}" ] || die "usage: trixie-kernel.sh kdir KVER"
	if [ -d "/lib/modules/$2/build" ]; then
		echo "/lib/modules/$2/build"
	elif [ -f "$base/$2/.sv-key" ]; then
		print_tree "$2" | sed -n 's/^KDIR=//p'
	else
		exit 1
	fi
	;;
print)
	found=0
	for t in "$base"/*/.sv-key; do
		[ -f "$t" ] || continue
		k=$(basename "$(dirname "$t")")
		[ -z "${2:-}" ] || [ "$k" = "$2" ] || continue
		print_tree "$k"
		found=1
	done
	[ $found = 1 ]
	;;
list)
	sv_apt_update
	sv_apt_cache search --names-only '^linux-headers-.*-common$' |
		sed -n 's/^linux-headers-\([^ ]*\)-common .*/\1/p' | sort -V
	;;
clean)
	rm -rf "$base"
	;;
*)
	sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
