#!/bin/bash
# deb-install.sh [--upgrade] [--root DIR [--from KVER0 [--also KVER2]...]]
#     KVER OUT: install make deb's
# packages for one kernel the way a user does ("apt install ./*.deb"), in a
# throwaway copy of this system (or of the Debian root DIR), check the
# result, and leave in OUT what the kernel's VM needs to use it
# (tests/user/17-deb.sh); then "apt remove" them there and check that
# nothing is left.
#
#   a private mount namespace
#     overlay over /             (this host, writes to a tmpfs)
#     overlay over /lib/modules/KVER  (its lower: the stock kernel's tree,
#                                or the cloud kernel's unpacked one)
#     tmpfs over every other /lib/modules/*  (DKMS builds for KVER only)
#   chroot into it:
#     [--upgrade: dpkg -i softverbs-dkms VERSION~old1, the same package
#      relabelled older; DKMS builds and installs the module]
#     apt-get install ./softverbs-dkms ./libsoftverbs1 ./libsoftverbs-dev
#                     ./softverbs-tools      (dh_dkms's postinst: DKMS
#                                             builds and installs for KVER)
#     check: dpkg's state, DKMS's, the module's place and version, and
#            its compiler: the one the kernel's headers name
#     OUT/root.tar   <- what the install wrote outside dpkg's database
#     apt-get remove -> check: no module, no DKMS tree, no tools, no library
#
# --root DIR: the copy is of DIR, a root of scripts/test-root.sh (the
# Debian 13 one: its dkms, gcc-14 and what Debian 13's linux-headers
# packages depend on), not of /, for a Debian 13 kernel unpacked by
# scripts/trixie-kernel.sh: the packages install as on a Debian 13 machine
# with that kernel's headers installed, and the postinst's DKMS builds
# with Debian 13's own compiler.  The kernel's packages are not installed
# (nor downloaded): their unpacked tree is a layer of the overlay, below a
# layer that undoes the cache's relocation, so the files are where
# Debian's packages put them:
#     overlay over DIR, lower layers (top first):
#       fix    the flavour Makefile naming /usr/src/... again, and
#              /lib/modules/KVER/build -> /usr/src/linux-headers-KVER
#       tree   $SV_CACHE/trixie/KVER: /usr/src/linux-headers-KVER(-common),
#              /usr/lib/linux-kbuild-*, /usr/lib/modules/KVER
#       DIR
# Then the same install, checks and root.tar.  OUT/root names the root
# ("host", or DIR's suite from its .sv-key): 17-deb uses an install only in
# the root it was made in.
#
# --from KVER0 (with --root): the kernel upgrade through DKMS's hook, as a
# Debian 13 user running Debian 13's own KVER0 (6.12) makes it to KVER
# (7.3 of trixie-backports).  The copy of DIR starts with KVER0's headers
# (its unpacked tree, laid out as above; its image only as an empty
# modules.dep, which is what DKMS asks of it) and KVER's image (its
# module tree, without headers: the "build" link whited out):
#     apt-get install ./softverbs-*.deb      DKMS builds for KVER0 only
#                                            (KVER has no headers)
#     linux-run-hooks image postinst KVER    what linux-image-KVER's
#                                            postinst runs: DKMS's hook
#                                            skips KVER, no headers yet
#     apt-get install ./linux-headers-KVER ./linux-headers-*-common
#                     ./linux-kbuild-* ./linux-base-KVER
#                          the real packages (trixie-kernel.sh debs): their
#                          postinst runs linux-run-hooks headers postinst,
#                          /etc/kernel/header_postinst.d/dkms, and DKMS
#                          builds and installs the module for KVER
#     check: the same as above for KVER0 and for KVER
#     [--also KVER2: KVER2's headers the same way after KVER's (the 7.3
#      cloud kernel); checked the same]
# OUT/root.tar holds what the install wrote for KVER (the kernel packages'
# files and KVER0's tree left out), for 17-deb on KVER as without --from,
# and OUT's sibling KVER2/ the same for KVER2; apt-get remove must then
# take the module out of every kernel.
#
# Why on the host: DKMS's build in a TCG guest took 6-10 minutes per build
# in make check (Documentation/testing.md, "The package tests"); here it
# takes seconds.  Nothing of it depends on the running kernel: the
# postinst builds against KVER's headers and installs into KVER's tree.
# What does depend on it (autoload by "rdma link add", the module loading,
# the tools and library working) is what the VM checks, on root.tar.
#
# The postinst builds for every kernel in /lib/modules when the running
# one (this host's) has no tree there, as in any chroot: with the others
# hidden that is KVER.
#
# OUT gets: root.tar, install.log (install-old.log), remove.log, summary
# (one line for the test's SV_SUMMARY), root, and "ok" when every check
# passed, else "failed" with the reason.  Root only.  Env: SV_CACHE (its
# ccache-dkms holds DKMS's compiler cache; not used with --root, whose
# root has no ccache, as a user's machine), SV_DEBS (default build/deb).
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
upgrade=0 troot='' from='' also=()
while [ $# -gt 0 ]; do
	case $1 in
	--upgrade) upgrade=1; shift ;;
	--root) troot=$(realpath "${2:?--root DIR}"); shift 2 ;;
	--from) from=${2:?--from KVER0}; shift 2 ;;
	--also) also+=("${2:?--also KVER2}"); shift 2 ;;
	*) break ;;
	esac
done
usage="usage: deb-install.sh [--upgrade] [--root DIR [--from KVER0 [--also KVER2]...]] KVER OUT"
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
kver=$1 out=$2
[[ -z $from || -n $troot ]] || { echo "deb-install.sh: --from needs --root" >&2; exit 2; }
[[ ${#also[@]} = 0 || -n $from ]] || { echo "deb-install.sh: --also needs --from" >&2; exit 2; }
[[ -z $from || $upgrade = 0 ]] || { echo "deb-install.sh: --from or --upgrade, not both" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "deb-install.sh: needs root (a mount namespace)" >&2; exit 1; }
debs=${SV_DEBS:-$root/build/deb}
pkgs=(softverbs-dkms libsoftverbs1 libsoftverbs-dev softverbs-tools)

# the four packages, dkms first
shopt -s nullglob
found=("$debs"/softverbs-dkms_*_all.deb)
shopt -u nullglob
[ ${#found[@]} -eq 1 ] || { echo "deb-install.sh: no (or more than one) softverbs-dkms package in $debs (make deb)" >&2; exit 1; }
version=$(dpkg-deb -f "${found[0]}" Version)
arch=$(dpkg --print-architecture)
files=("$(realpath "${found[0]}")")
for p in "${pkgs[@]:1}"; do
	f=$debs/${p}_${version}_$arch.deb
	[ -f "$f" ] || { echo "deb-install.sh: $f is missing (make deb)" >&2; exit 1; }
	files+=("$(realpath "$f")")
done

# the kernel's module tree: installed, or unpacked by cloud-kernel.sh; with
# --root, the tree unpacked by trixie-kernel.sh (ktop: its top directory)
ktree=/lib/modules/$kver ktop=
if [ -n "$troot" ]; then
	[[ -x $troot/usr/bin/dpkg && -f $troot/.sv-key ]] ||
		{ echo "deb-install.sh: $troot is not a root of scripts/test-root.sh" >&2; exit 1; }
	ktree=$(bash "$root/scripts/trixie-kernel.sh" print "$kver" 2>/dev/null | sed -n 's/^MODULES=//p')
	ktop=${ktree%/lib/modules/"$kver"}
	if [ -z "$ktree" ] || [ ! -f "$ktop/usr/src/linux-headers-$kver/Makefile" ]; then
		echo "deb-install.sh: --root: $kver is not a kernel unpacked with its image by scripts/trixie-kernel.sh" >&2
		exit 1
	fi
	# --from: KVER0's headers (ktop0: its tree); the module trees of the
	# kernels whose headers install through apt (hook_trees)
	hook_kvers=("$kver" "${also[@]}")
	declare -A hook_trees=()
	if [ -n "$from" ]; then
		ktop0=$(bash "$root/scripts/trixie-kernel.sh" print "$from" 2>/dev/null | sed -n 's/^KDIR=//p')
		ktop0=${ktop0%/usr/src/linux-headers-"$from"}
		if [ -z "$ktop0" ] || [ ! -f "$ktop0/usr/src/linux-headers-$from/Makefile" ]; then
			echo "deb-install.sh: --from: $from is not a kernel unpacked by scripts/trixie-kernel.sh (fetch 6.12)" >&2
			exit 1
		fi
		for k in "${hook_kvers[@]}"; do
			hook_trees[$k]=$(bash "$root/scripts/trixie-kernel.sh" print "$k" 2>/dev/null | sed -n 's/^MODULES=//p')
			[ -n "${hook_trees[$k]}" ] ||
				{ echo "deb-install.sh: --from: $k is not a kernel unpacked with its image by scripts/trixie-kernel.sh" >&2; exit 1; }
		done
	fi
elif [ ! -e "$ktree/build/include" ]; then
	ktree=$(bash "$root/scripts/cloud-kernel.sh" print "$kver" 2>/dev/null | sed -n 's/^MODULES=//p')
	if [ -z "$ktree" ] || [ ! -e "$ktree/build/include" ]; then
		echo "deb-install.sh: no headers for $kver (nor an unpacked cloud kernel)" >&2
		exit 1
	fi
fi

# DKMS's compiler through ccache: Debian's headers honour
# DEBIAN_KERNEL_USE_CCACHE (.kernelvariables) and DKMS takes its CC from
# there.  The cache is bind-mounted into the throwaway root, so it keeps.
cache=${SV_CACHE:-/var/tmp/softverbs-cache}/ccache-dkms
# ccache hashes the locale too: the caller's, as check.sh's "make
# dkms-install" has it, so the two share the cache.
# A root without ccache (Debian 13's: a user's machine) builds without.
dkms_env=()
[ -z "${LANG:-}" ] || dkms_env+=(LANG="$LANG")
[ -z "${LC_ALL:-}" ] || dkms_env+=(LC_ALL="$LC_ALL")
if [ -n "$troot" ]; then
	cache=
	dkms_env=(LANG=C.UTF-8)
elif command -v ccache >/dev/null; then
	mkdir -p "$cache"
	dkms_env+=(DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$cache")
	[ -n "${SV_DEB_NS:-}" ] || CCACHE_DIR=$cache ccache -z >/dev/null
else
	cache=
fi

# Everything below runs in a private mount namespace: its mounts vanish
# with it, so nothing of this host changes (but the compiler cache).
if [ -z "${SV_DEB_NS:-}" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	for k in "${also[@]}"; do
		rm -rf "$(dirname "$out")/${k:?}"
		mkdir "$(dirname "$out")/$k"
	done
	args=("$kver" "$(realpath "$out")")
	for k in "${also[@]}"; do args=(--also "$k" "${args[@]}"); done
	[ -z "$from" ] || args=(--from "$from" "${args[@]}")
	[ -z "$troot" ] || args=(--root "$troot" "${args[@]}")
	[ $upgrade = 0 ] || args=(--upgrade "${args[@]}")
	exec unshare --mount --propagation private env SV_DEB_NS=1 bash "$0" "${args[@]}"
fi

# (OUT's siblings of --also fail with it)
fail() {
	local k
	echo "$*" >"$out/failed"
	for k in "${also[@]}"; do echo "$*" >"$(dirname "$out")/$k/failed"; done
	echo "deb-install.sh: $kver: $*" >&2
	exit 1
}

t=$(mktemp -d /tmp/sv-deb-install.XXXXXX)
mount -t tmpfs sv-deb-install "$t"
# (lazily when busy: in a Debian 13 root something keeps a pty of the
# bound /dev/pts open to the end; the namespace's mounts go with it)
trap 'umount -R "$t" 2>/dev/null || umount -R -l "$t"; rmdir "$t"' EXIT
mkdir "$t/up" "$t/work" "$t/kup" "$t/kwork" "$t/root"
if [ -n "$from" ]; then
	# the layers of --from (above): KVER0's headers over the root
	bash "$root/scripts/trixie-kernel.sh" debian-layer "$from" "$t/fix" || fail "trixie-kernel.sh debian-layer failed"
	# KVER0's image, installed as it is on the machine that runs it,
	# stands in as its modules.dep (DKMS runs depmod only for a kernel with
	# one); its modules are not fetched
	: >"$t/fix/usr/lib/modules/$from/modules.dep"
	mount -t overlay sv-deb-root -o "lowerdir=$t/fix:$ktop0:$troot,upperdir=$t/up,workdir=$t/work" "$t/root"
	cut -d' ' -f1 "$troot/.sv-key" >"$out/root"
elif [ -n "$troot" ]; then
	# the layers of --root (above)
	bash "$root/scripts/trixie-kernel.sh" debian-layer "$kver" "$t/fix" || fail "trixie-kernel.sh debian-layer failed"
	mount -t overlay sv-deb-root -o "lowerdir=$t/fix:$ktop:$troot,upperdir=$t/up,workdir=$t/work" "$t/root"
	cut -d' ' -f1 "$troot/.sv-key" >"$out/root"
else
	mount -t overlay sv-deb-root -o "lowerdir=/,upperdir=$t/up,workdir=$t/work" "$t/root"
	echo host >"$out/root"
fi
r=$t/root
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --rbind /dev "$r/dev"
# no /run/systemd: the maintainer scripts start no service, as in any chroot
mount -t tmpfs sv-run "$r/run"
[ -z "$cache" ] || mount --bind "$cache" "$r$cache"

# DKMS builds for this kernel only: the others hidden, this one writable
# (with --from, KVER0's headers stay)
for d in "$r"/lib/modules/*; do
	[ "${d##*/}" = "$kver" ] || [ "${d##*/}" = "$from" ] || mount -t tmpfs sv-hidden "$d"
done
# (with --root the tree is in the root's overlay already)
if [ -z "$troot" ]; then
	mkdir -p "$r/lib/modules/$kver"
	mount -t overlay sv-deb-kmods -o "lowerdir=$ktree,upperdir=$t/kup,workdir=$t/kwork" "$r/lib/modules/$kver"
fi
# --from: the images of the kernels to come, without their headers (the
# cache's links to them whited out; the headers packages bring their own)
if [ -n "$from" ]; then
	for k in "${hook_kvers[@]}"; do
		mkdir -p "$t/kup-$k" "$t/kwork-$k" "$r/usr/lib/modules/$k"
		mount -t overlay sv-deb-kmods -o "lowerdir=${hook_trees[$k]},upperdir=$t/kup-$k,workdir=$t/kwork-$k" \
			"$r/usr/lib/modules/$k"
		rm -f "$r/usr/lib/modules/$k/build" "$r/usr/lib/modules/$k/source"
	done
fi

# A clean slate: check.sh's "make dkms-install" (for 16-dkms) registered
# the same module version with DKMS on this host
rm -rf "$r"/var/lib/dkms/softverbs "$r"/usr/src/softverbs-* "$r"/lib/modules/*/updates/dkms/softverbs.ko*

in_root() { chroot "$r" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root DEBIAN_FRONTEND=noninteractive "${dkms_env[@]}" "$@"; }
# module_of [K]: DKMS's module for the kernel K (default KVER), at the
# package's version
module_of() {
	local ko kver=${1:-$kver}
	ko=$(in_root modinfo -k "$kver" -n softverbs) || fail "no softverbs module for $kver"
	case $ko in */updates/dkms/*) ;; *) fail "modinfo finds $ko, not DKMS's module" ;; esac
	[ "$(in_root modinfo -F version "$ko")" = "$version" ] ||
		fail "the installed module is version $(in_root modinfo -F version "$ko"), not $version"
	# grep a copy, not a pipe: with pipefail, "CMD | grep -q" is false when
	# CMD dies of SIGPIPE after grep's early exit (tests/user/lib.sh)
	grep -q "softverbs/$version, $kver, .*: installed" <<<"$(in_root dkms status -m softverbs -k "$kver")" ||
		fail "DKMS has no installed $version for $kver: $(in_root dkms status -m softverbs)"
	echo "$ko"
}
# cc_check K KO: KO was built by the compiler the kernel K was built
# with, as its headers name it (CONFIG_CC_VERSION_TEXT,
# "x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0"): the module's
# .comment says "GCC: (Debian 14.2.0-19) 14.2.0" (read in the chroot:
# build is an absolute link); sets kcc
cc_check() {
	local kver=$1 ko=$2 mcc
	kcc=$(in_root cat "/lib/modules/$kver/build/include/config/auto.conf") || fail "the headers of $kver have no auto.conf"
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}[^ ]* \([^"]*\)"\{0,1\}$/\1/p' <<<"$kcc")
	case $ko in
	*.xz) xz -dc "$r$ko" >"$t/module.ko" ;;
	*.zst) zstd -qdc "$r$ko" >"$t/module.ko" ;;
	*) cp "$r$ko" "$t/module.ko" ;;
	esac
	mcc=$(readelf -p .comment "$t/module.ko" | sed -n 's/^ *\[ *[0-9]*\] *GCC: //p' | sort -u)
	[[ -n $kcc && $mcc == "$kcc" ]] || fail "the module for $kver was built by \"$mcc\", the kernel by \"$kcc\""
}
installed() {
	local v=$1 p s
	shift
	for p in "$@"; do
		# shellcheck disable=SC2016 # dpkg-query's format, not ours
		s=$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$p" | tr -s " ")
		[ "$s" = "ii $v" ] || fail "$p is \"$s\", not \"ii $v\""
	done
}

summary=() kpkgs=()
if [ "$upgrade" = 1 ]; then
	# the older package: the same one relabelled; the module keeps its
	# version (dkms.conf's), the upgrade is told by the package's
	old=$version~old1
	dpkg --compare-versions "$old" lt "$version" || fail "$old does not sort before $version"
	dpkg-deb -R "${files[0]}" "$t/old"
	sed -i "s/^Version: $version\$/Version: $old/" "$t/old/DEBIAN/control"
	grep -qx "Version: $old" "$t/old/DEBIAN/control" || fail "could not relabel the package"
	dpkg-deb -Znone -b "$t/old" "$r/tmp/softverbs-dkms_${old}_all.deb" >/dev/null
	t0=$SECONDS
	in_root dpkg -i "/tmp/softverbs-dkms_${old}_all.deb" >"$out/install-old.log" 2>&1 ||
		fail "dpkg -i of softverbs-dkms $old failed (install-old.log)"
	summary+=("dpkg -i $old with DKMS build $((SECONDS - t0)) s")
	installed "$old" softverbs-dkms
	ko=$(module_of)
	old_ko=$(stat -c '%i %y' "$r$ko")
fi

# the packages where the chroot sees them (another root has no checkout)
mkdir "$r/tmp/softverbs-debs"
in_files=()
for f in "${files[@]}"; do
	cp "$f" "$r/tmp/softverbs-debs/"
	in_files+=("/tmp/softverbs-debs/${f##*/}")
done
t0=$SECONDS
in_root apt-get install -y --no-install-recommends "${in_files[@]}" >"$out/install.log" 2>&1 ||
	fail "apt-get install of the packages failed (install.log)"
if [ "$upgrade" = 1 ]; then
	summary+=("apt upgrade with rebuild $((SECONDS - t0)) s")
elif [ -n "$from" ]; then
	summary+=("on $from: apt install with DKMS build $((SECONDS - t0)) s")
else
	summary+=("apt install with DKMS build $((SECONDS - t0)) s")
fi
installed "$version" "${pkgs[@]}"
# (dkms 3.0, Debian 12's, says "module for KVER"; 3.2, Debian 13's,
# "module softverbs/VERSION for KVER")
built_for() {
	grep -qF -e "Building initial module for $1" -e "Building initial module softverbs/$version for $1" "$2"
}
if [ -n "$from" ]; then
	built_for "$from" "$out/install.log" || fail "the postinst did not build the module for $from (install.log)"
	for k in "${hook_kvers[@]}"; do
		! built_for "$k" "$out/install.log" || fail "the postinst built for $k, which has no headers yet (install.log)"
	done
	ko=$(module_of "$from")
	cc_check "$from" "$ko"
	# the kernels' upgrade: the image's hook, then the headers' (above)
	for k in "${hook_kvers[@]}"; do
		in_root linux-run-hooks image postinst "$k" "/boot/vmlinuz-$k" -- configure >"$out/image-$k.log" 2>&1 ||
			fail "linux-image-$k's hooks failed (image-$k.log)"
		grep -q "installation of modules for kernel $k was skipped" "$out/image-$k.log" ||
			fail "DKMS's image hook did not skip $k without its headers (image-$k.log)"
		mkdir -p "$r/tmp/kernel-debs-$k"
		in_files=()
		for f in $(bash "$root/scripts/trixie-kernel.sh" debs "$k"); do
			cp "$f" "$r/tmp/kernel-debs-$k/"
			in_files+=("/tmp/kernel-debs-$k/${f##*/}")
		done
		[ ${#in_files[@]} -gt 0 ] || fail "no headers packages of $k (trixie-kernel.sh debs $k)"
		t0=$SECONDS
		in_root apt-get install -y --no-install-recommends "${in_files[@]}" >"$out/headers-$k.log" 2>&1 ||
			fail "apt-get install of linux-headers-$k failed (headers-$k.log)"
		in_files=("${in_files[@]##*/}")
		kpkgs+=("${in_files[@]%%_*}")
		installed "$(dpkg-deb -f "$r/tmp/kernel-debs-$k/linux-headers-${k}_"*.deb Version)" "linux-headers-$k"
		# run-parts --report names the hook that printed
		grep -q "^/etc/kernel/header_postinst.d/dkms:" "$out/headers-$k.log" ||
			fail "the headers' postinst ran no /etc/kernel/header_postinst.d/dkms (headers-$k.log)"
		grep -q "Autoinstall on $k succeeded for module(s) .*softverbs" "$out/headers-$k.log" ||
			fail "DKMS's header hook did not install softverbs for $k (headers-$k.log)"
		ko=$(module_of "$k")
		cc_check "$k" "$ko"
		summary+=("$k: apt install linux-headers-$k, DKMS hook build $((SECONDS - t0)) s")
	done
	ko=$(module_of)
else
	built_for "$kver" "$out/install.log" || fail "the postinst did not build the module for $kver (install.log)"
	ko=$(module_of)
	cc_check "$kver" "$ko"
fi
summary+=("built by GCC ${kcc##* }")
if [ "$upgrade" = 1 ]; then
	# rebuilt: the old prerm took the module out, the new postinst built it
	[ "$(stat -c '%i %y' "$r$ko")" != "$old_ko" ] || fail "the upgrade left the old module file in place"
fi

# What the VM gets: the files the install wrote or changed, outside dpkg's
# and apt's own state (the VM checks use, not bookkeeping).  Whiteouts
# (character devices: what the clean slate deleted) stay out; the test
# makes its own clean slate.
# pack_hooked K TAR: for --from, what a VM of K gets: not the kernel
# packages' files (the VM has its kernel), nor the module trees of the
# upper layer (KVER0's); K's tree from its own overlay's upper layer.  (No
# file name here has a newline.)
pack_hooked() {
	local k=$1 tar=$2
	(
		cd "$t/up"
		for d in usr etc var/lib/dkms; do [ ! -e "$d" ] || find "$d" ! -type c ! -path 'usr/lib/modules/*'; done
	) | grep -vxF -f "$t/kernel-files" | tar -C "$t/up" --no-recursion -T - -cf "$tar"
	(cd "$t/kup-$k" && find . -mindepth 1 ! -type c -printf "usr/lib/modules/$k/%P\n") |
		grep -vxF -f "$t/kernel-files" | sed "s,^usr/lib/modules/$k/,," |
		tar -C "$t/kup-$k" --no-recursion -T - --transform "s,^,usr/lib/modules/$k/," -rf "$tar"
	# (a copy of tar's listing, as in module_of)
	grep -q "^usr/lib/modules/$k/updates/dkms/softverbs\.ko" <<<"$(tar -tf "$tar")" ||
		fail "$tar lacks the module for $k"
}
if [ -n "$from" ]; then
	in_root dpkg -L "${kpkgs[@]}" | sed 's,^/,,' >"$t/kernel-files"
	pack_hooked "$kver" "$out/root.tar"
	for k in "${also[@]}"; do
		pack_hooked "$k" "$(dirname "$out")/$k/root.tar"
		cp "$out/root" "$(dirname "$out")/$k/root"
	done
else
	(
		cd "$t/up"
		for d in usr etc var/lib/dkms; do [ ! -e "$d" ] || find "$d" ! -type c -print0; done
	) | tar -C "$t/up" --null --no-recursion -T - -cf "$out/root.tar"
	[ -n "$troot" ] || find "$t/kup" -mindepth 1 ! -type c -printf '%P\0' |
		tar -C "$t/kup" --null --no-recursion -T - --transform "s,^,usr/lib/modules/$kver/," -rf "$out/root.tar"
fi
# (a copy of tar's listing, as in module_of; modinfo names /lib or /usr/lib)
rel=${ko#/usr}
grep -qx "usr/lib/modules/$kver/${rel#/lib/modules/"$kver"/}" <<<"$(tar -tf "$out/root.tar")" ||
	fail "root.tar lacks the module ${ko}"

# apt remove takes everything away again
lib=$(in_root dpkg -L libsoftverbs1 | grep '/libsoftverbs\.so\.1$')
t0=$SECONDS
in_root apt-get remove -y "${pkgs[@]}" >"$out/remove.log" 2>&1 || fail "apt-get remove failed (remove.log)"
summary+=("apt remove $((SECONDS - t0)) s")
for k in "$kver" ${from:+"$from" "${also[@]}"}; do
	left=$(find "$r/lib/modules/$k" -name "softverbs*.ko*" -printf '%P ')
	[ -z "$left" ] || fail "left in /lib/modules/$k after removal: $left"
	! in_root modinfo -k "$k" softverbs >/dev/null 2>&1 || fail "modinfo still finds softverbs for $k after removal"
done
left=$(in_root dkms status -m softverbs)
[ -z "$left" ] || fail "DKMS still lists: $left"
left=$(find "$r/usr/src" -maxdepth 1 -name 'softverbs-*' -printf '%f ')
[ -z "$left" ] || fail "a DKMS source tree is left in /usr/src: $left"
[ ! -e "$r/usr/sbin/svctl" ] || fail "/usr/sbin/svctl is left"
[ ! -e "$r$lib" ] || fail "$lib is left"

ccache=
[ -z "$cache" ] || ccache=$(CCACHE_DIR=$cache ccache --print-stats |
	awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 }
		END { printf "ccache %d hits, %d misses", h, m }')
[ -z "$ccache" ] || summary+=("$ccache")
(IFS=";"; echo "${summary[*]}") | sed "s/;/, /g" >"$out/summary"
for k in "${also[@]}"; do
	cp "$out/summary" "$(dirname "$out")/$k/summary"
	touch "$(dirname "$out")/$k/ok"
done
touch "$out/ok"
