#!/bin/bash
# cloud-kernel.sh: Debian's cloud kernels for the test matrix, fetched and
# unpacked into the cache, never installed on the host.
#
#   cloud-kernel.sh fetch [META...]   download (apt-get download) and unpack
#                                     the kernels the meta packages point at
#                                     (default: linux-image-cloud-amd64 and
#                                     linux-image-6.12-cloud-amd64), reusing
#                                     an unpacked tree of the same packages;
#                                     prints each kernel's paths
#   cloud-kernel.sh print [KVER]      the paths of unpacked kernels (all, or
#                                     KVER's); exit 1 if there is none
#   cloud-kernel.sh dkms-install KVER MODULE/VERSION
#                                     build and install an added DKMS module
#                                     (dkms add) for KVER, into the unpacked
#                                     tree: the guest's /lib/modules/KVER
#   cloud-kernel.sh dkms-remove KVER MODULE/VERSION
#                                     and remove it again
#   cloud-kernel.sh clean             remove every unpacked tree and download
#
# For each kernel it prints, one line each:
#   KVER=6.1.0-56-cloud-amd64  KERNEL=<tree>/boot/vmlinuz-KVER
#   MODULES=<tree>/lib/modules/KVER  KDIR=<tree>/usr/src/linux-headers-KVER
# KDIR builds the module (scripts/build-kmod.sh KDIR OUTDIR); tests/vm/run.sh
# --kver KVER finds the tree by itself.
#
# Why not install them: the harness and make check take their stock kernels
# from /boot and /lib/modules, DKMS builds for every kernel there, and
# update-initramfs would run for it: a cloud kernel installed on the host
# would change what every other test sees.  So the image, its headers, the
# common headers and kbuild packages of the same build are unpacked with
# dpkg-deb -x into one tree per kernel, $SV_CACHE/cloud/KVER, whose
# flavour Makefile is pointed at the tree's own common headers (Debian's
# says /usr/src/linux-headers-*-common) and whose modules get a modules.dep
# (depmod -b; the package's postinst would run depmod).  The tree is keyed
# by the four .deb file names (name_version_arch): a newer kernel ABI is a
# new KVER, a rebuilt one replaces the tree.
#
# Debian's cloud flavour (configs of 6.1.0-56 and 6.12.117): ib_core,
# ib_uverbs, rdma_cm, ODP, nvme-rdma, nvmet-rdma, virtio-fs, overlayfs,
# veth; no rdma_rxe, no siw, no SRP, and no 9p (tests/vm/run.sh boots it
# with the host's / over virtio-fs instead).  About 90 MB of .debs and
# 320 MB unpacked for the two kernels.
set -euo pipefail

cache=${SV_CACHE:-/var/tmp/softverbs-cache}
base=$cache/cloud
dl=$base/dl

# deps_of REGEX PKG...: "PKG DEP" for each PKG's first dependency (of its
# candidate) matching REGEX, one apt-cache call for all
deps_of() {
	local re=$1
	shift
	apt-cache depends --no-recommends --no-suggests "$@" 2>/dev/null |
		awk -v re="$re" '/^[^ ]/ { pkg = $1; next }
			pkg != "" && $1 ~ /^\|?Depends:$/ && $2 ~ re { print pkg, $2; pkg = "" }'
}

# print_tree KVER: the paths of one unpacked kernel
print_tree() {
	local t=$base/$1
	echo "KVER=$1"
	echo "KERNEL=$t/boot/vmlinuz-$1"
	echo "MODULES=$t/lib/modules/$1"
	echo "KDIR=$t/usr/src/linux-headers-$1"
}

# unpack KVER DEB...: the tree of KVER from these .debs, unless it is there
unpack() {
	local kver=$1 tree=$base/$1 stage key f
	shift
	key=$(printf '%s\n' "$@")
	if [ -f "$tree/.sv-key" ] && [ "$(cat "$tree/.sv-key")" = "$key" ]; then
		touch "$tree/.sv-key"	# last use, for the clean-up in fetch
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
	if [ ! -f "$stage/boot/vmlinuz-$kver" ] || [ ! -f "$stage/usr/src/linux-headers-$kver/Makefile" ]; then
		echo "cloud-kernel.sh: $kver: the packages lack the kernel or its headers" >&2
		rm -rf "$stage"
		return 1
	fi
	# the flavour's Makefile includes the common headers' by absolute path
	sed -i "s|^include /usr/src/|include $tree/usr/src/|" "$stage/usr/src/linux-headers-$kver/Makefile"
	ln -sfn "$tree/usr/src/linux-headers-$kver" "$stage/lib/modules/$kver/build"
	depmod -b "$stage" "$kver"
	echo "$key" >"$stage/.sv-key"
	rm -rf "$tree"
	mv "$stage" "$tree"
}

# fetch META...: the kernels the meta packages point at, downloaded and
# unpacked.  Four apt-cache calls in all (each takes seconds on a busy
# machine), apt-get download only for .debs not here yet.
fetch() {
	local -A image_of=() common_of=() kbuild_of=() file_of=()
	local m p k f kvers=() pkgs=() missing=() files
	while read -r m p; do image_of[$m]=$p; done < <(deps_of '^linux-image-.*-cloud-amd64(-unsigned)?$' "$@")
	if [ ${#image_of[@]} -lt $# ] && [ "$(id -u)" = 0 ]; then
		# a machine whose package lists were never fetched (or cleaned)
		apt-get update -q >/dev/null
		while read -r m p; do image_of[$m]=$p; done < <(deps_of '^linux-image-.*-cloud-amd64(-unsigned)?$' "$@")
	fi
	for m in "$@"; do
		[ -n "${image_of[$m]:-}" ] || { echo "cloud-kernel.sh: $m: no cloud kernel image among its dependencies" >&2; return 1; }
		k=${image_of[$m]#linux-image-}
		kvers+=("${k%-unsigned}")
	done
	while read -r p f; do common_of[$p]=$f; done < <(deps_of '^linux-headers-.*-common$' "${kvers[@]/#/linux-headers-}")
	while read -r p f; do kbuild_of[$p]=$f; done < <(deps_of '^linux-kbuild-' "${kvers[@]/#/linux-headers-}")
	for m in "$@"; do pkgs+=("${image_of[$m]}"); done
	for k in "${kvers[@]}"; do
		p=linux-headers-$k
		if [ -z "${common_of[$p]:-}" ] || [ -z "${kbuild_of[$p]:-}" ]; then
			echo "cloud-kernel.sh: $p: no common headers or kbuild package among its dependencies" >&2
			return 1
		fi
		pkgs+=("$p" "${common_of[$p]}" "${kbuild_of[$p]}")
	done
	# the candidates' file names (name_version_arch.deb)
	while read -r p f; do file_of[$p]=$(basename "$f"); done < <(
		apt-cache show --no-all-versions "${pkgs[@]}" | awk '$1 == "Package:" { p = $2 } $1 == "Filename:" { print p, $2 }')
	mkdir -p "$dl"
	for p in "${pkgs[@]}"; do
		[ -n "${file_of[$p]:-}" ] || { echo "cloud-kernel.sh: $p: no candidate version" >&2; return 1; }
		[ -f "$dl/${file_of[$p]}" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		(cd "$dl" && apt-get download -q "${missing[@]}" >/dev/null 2>"$dl/apt.err") || {
			cat "$dl/apt.err" >&2
			return 1
		}
	fi
	for m in "$@"; do
		p=${image_of[$m]}
		k=${p#linux-image-}
		k=${k%-unsigned}
		files=("${file_of[$p]}" "${file_of[linux-headers-$k]}" "${file_of[${common_of[linux-headers-$k]}]}"
			"${file_of[${kbuild_of[linux-headers-$k]}]}")
		unpack "$k" "${files[@]}"
		print_tree "$k"
	done
	# superseded downloads are dead weight, and so are the trees of older
	# kernels once unused for a day (another checkout may be booting one)
	# (the lists are grepped as copies: with pipefail, "printf | grep -q"
	# is false when printf dies of SIGPIPE after grep's early exit, and
	# that would delete what is in use)
	for f in "$dl"/*.deb; do
		[ -e "$f" ] || continue
		grep -qxF "$(basename "$f")" <<<"$(printf '%s\n' "${file_of[@]}")" || rm -f "$f"
	done
	for f in "$base"/*/.sv-key; do
		[ -e "$f" ] || continue
		k=$(basename "$(dirname "$f")")
		grep -qxF "$k" <<<"$(printf '%s\n' "${kvers[@]}")" && continue
		[ -z "$(find "$f" -mmin +1440)" ] || rm -rf "${f%/.sv-key}"
	done
}

case ${1:-} in
fetch)
	shift
	[ $# -gt 0 ] || set -- linux-image-cloud-amd64 linux-image-6.12-cloud-amd64
	# package lists older than the archive name files it no longer has (the
	# security archive replaces kernels): fetch the lists once, try again
	# (each try a run of its own, so that set -e holds inside fetch)
	bash "$0" fetch-once "$@" || {
		[ "$(id -u)" = 0 ] || exit 1
		echo "cloud-kernel.sh: fetching the package lists and trying again" >&2
		apt-get update -q >/dev/null
		bash "$0" fetch-once "$@"
	}
	;;
fetch-once)
	shift
	fetch "$@"
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
dkms-install | dkms-remove)
	# DKMS as for an installed kernel, with the tree's lib/modules as its
	# install tree and the unpacked headers as the kernel source; depmod
	# on the tree (DKMS's own would write the host's /lib/modules/KVER)
	kver=${2:?KVER} mod=${3:?MODULE/VERSION}
	tree=$base/$kver
	[ -f "$tree/.sv-key" ] || { echo "cloud-kernel.sh: $kver is not unpacked (fetch)" >&2; exit 1; }
	opts=(-k "$kver" --installtree "$tree/lib/modules" --kernelsourcedir "$tree/usr/src/linux-headers-$kver" --no-depmod)
	rc=0
	if [ "$1" = dkms-install ]; then
		dkms build "$mod" "${opts[@]}" && dkms install "$mod" "${opts[@]}" || rc=$?
	else
		dkms remove "$mod" "${opts[@]}" >/dev/null 2>&1 || true
		rm -rf "$tree/lib/modules/$kver/updates"
	fi
	depmod -b "$tree" "$kver"
	exit $rc
	;;
clean)
	rm -rf "$base"
	;;
*)
	sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
