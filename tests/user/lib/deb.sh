# shellcheck shell=bash
# The Debian packages' fixture, for tests/user/17-deb*.sh: source it after
# lib.sh.  It finds make deb's packages, gives the test a system of its own
# to install them into, and holds the checks every package test makes.
#
# check.sh builds the packages on the host ("make deb", build/deb/) before
# the VMs.  Everything happens in the guest's tmpfs overlay, so the host's
# /var/lib/dpkg, DKMS state and /lib/modules never change.  The guest has no
# network: apt resolves the packages' dependencies from what the host has
# installed (dkms, libmnl0, libibverbs-dev).
#
# What makes it affordable under TCG (measured on 6.12, 2026-11-26):
#  - dpkg reads its whole database on every call (3800 files, 48 MB; over 9p
#    a cat of the md5sums alone took 40 s).  check.sh packs the database
#    into build/deb-dpkg.tar once; the guest unpacks that into tmpfs and
#    binds it over /var/lib/dpkg (a copy file by file took 216 s).
#  - apt reads no package lists (a tmpfs over /var/lib/apt/lists): it
#    resolves from the status file alone, as the guest cannot download.
#  - DKMS's postinst builds for the running kernel and the newest
#    installed one; the other kernels' module trees are hidden (an empty
#    tmpfs over each), so it builds once.  Every Kbuild run still costs
#    1-2 minutes before its first object (~40 compiler runs: option tests
#    and kmod/compat's probes); objects go through ccache
#    (DEBIAN_KERNEL_USE_CCACHE) with the cache scripts/deb-ccache.sh filled
#    on the host.
#  - depmod, which DKMS runs after each install and removal, reads every
#    module of the tree (60-100 s a call on 6.12): the running kernel's
#    tree is trimmed to the modules the test loads (deb_trim_modules).

# deb_when_asked: skip unless SV_DEB_VM=1 (make check passes it on).  A
# DKMS build in a TCG guest takes 3 minutes on a quiet host and 6-10 in
# make check, with every object a hit in the host-filled compiler cache
# (Kbuild's ~35 option tests, kmod/compat's probes, modpost and the link
# are never cached): more than make check's budget has room for.
deb_when_asked() {
	[ "${SV_DEB_VM:-0}" = 1 ] ||
		sv_skip "a DKMS build takes 6-10 min under TCG in make check: SV_DEB_VM=1 runs the package tests"
}

# shellcheck source=tests/user/lib/dkms-ccache.sh
. "$SV_ROOT/tests/user/lib/dkms-ccache.sh"

deb_dir=${SV_DEBS:-$SV_ROOT/build/deb}
deb_pkgs=(softverbs-dkms libsoftverbs1 libsoftverbs-dev softverbs-tools)
deb_files=()

# deb_find: set deb_version and deb_files (the four .deb files, dkms first),
# or skip
deb_find() {
	local found p f arch
	shopt -s nullglob
	found=("$deb_dir"/softverbs-dkms_*_all.deb)
	shopt -u nullglob
	[ ${#found[@]} -eq 1 ] || sv_skip "no (or more than one) softverbs-dkms package in $deb_dir (make deb)"
	deb_version=$(dpkg-deb -f "${found[0]}" Version)
	arch=$(dpkg --print-architecture)
	deb_files=("${found[0]}")
	for p in "${deb_pkgs[@]:1}"; do
		f=$deb_dir/${p}_${deb_version}_$arch.deb
		[ -f "$f" ] || sv_skip "$f is missing (make deb)"
		deb_files+=("$f")
	done
}

# deb_system TMP: the guest becomes a system of its own for dpkg, apt and
# DKMS, in TMP (a directory the test removes at exit)
deb_system() {
	local tmp=$1 d v db=$SV_ROOT/build/deb-dpkg.tar
	[ -e "/lib/modules/$SV_KVER/build/include" ] || sv_skip "no headers for $SV_KVER"
	[ ! -d /sys/module/softverbs ] || sv_fail "softverbs is already loaded"

	# dpkg's database in tmpfs, from check.sh's snapshot when it is the
	# database this guest sees (else file by file, minutes under TCG)
	mkdir "$tmp/dpkg"
	if [ -f "$db" ] && [ "$db" -nt /var/lib/dpkg/status ]; then
		tar -C "$tmp/dpkg" -xf "$db"
	else
		cp -a /var/lib/dpkg/. "$tmp/dpkg/"
	fi
	mount --bind "$tmp/dpkg" /var/lib/dpkg
	sv_on_exit 'umount /var/lib/dpkg'
	mount -t tmpfs sv-apt-lists /var/lib/apt/lists
	sv_on_exit 'umount /var/lib/apt/lists'

	# A clean slate: check.sh's "make dkms-install" (for 16-dkms)
	# registered the same module version with DKMS on the host, which this
	# guest sees.  Its files are set aside here (in the overlay: no depmod
	# needed, the package's DKMS runs depmod for this kernel) and put back
	# at exit with this kernel's module index, for the tests after this one.
	if [ -d /var/lib/dkms/softverbs ]; then
		(
			cd /
			shopt -s nullglob
			tar -cf "$tmp/host-dkms.tar" var/lib/dkms/softverbs usr/src/softverbs-* \
				lib/modules/*/updates/dkms/softverbs*.ko* "lib/modules/$SV_KVER"/modules.*
		)
		sv_on_exit 'tar -C / -xf "'"$tmp"'/host-dkms.tar"'
	fi
	rm -rf /var/lib/dkms/softverbs /usr/src/softverbs-* /lib/modules/*/updates/dkms/softverbs*.ko*

	# DKMS builds for this kernel only
	for d in /lib/modules/*; do
		v=${d##*/}
		[ "$v" = "$SV_KVER" ] || { mount -t tmpfs sv-hidden "$d" && sv_on_exit "umount '$d'"; }
	done
	deb_trim_modules "$tmp"

	# dpkg asks: no terminal, and no manual pages to index (man-db's trigger)
	export DEBIAN_FRONTEND=noninteractive
	echo 'path-exclude /usr/share/man/*' >/etc/dpkg/dpkg.cfg.d/sv-noman
	sv_on_exit 'rm -f /etc/dpkg/dpkg.cfg.d/sv-noman'
	sv_on_exit 'rmmod softverbs 2>/dev/null; dpkg --purge '"${deb_pkgs[*]}"' >/dev/null 2>&1'

	# DKMS's compiler through ccache, if scripts/deb-ccache.sh filled it
	local ccache_dir
	ccache_dir=$(dkms_ccache_dir)
	if [ -d "$ccache_dir" ] && command -v ccache >/dev/null; then
		dkms_ccache_env "$ccache_dir"
		# counted from here (in the overlay), for deb_ccache_stats
		CCACHE_DIR=$ccache_dir ccache -z >/dev/null
	else
		dkms_ccache_env
	fi
	deb_env=("${dkms_env[@]}")
}

# deb_ccache_stats: the compiler cache's hits and misses since deb_system
deb_ccache_stats() {
	local ccache_dir
	ccache_dir=$(dkms_ccache_dir)
	[[ " ${deb_env[*]} " == *" DEBIAN_KERNEL_USE_CCACHE=1 "* ]] || { echo "no compiler cache"; return; }
	CCACHE_DIR=$ccache_dir ccache --print-stats |
		awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_(hit|miss)$/ { n[$1] = $2 }
			END { printf "ccache %d direct + %d preprocessed hits, %d misses", n["direct_cache_hit"],
				n["preprocessed_cache_hit"], n["preprocessed_cache_miss"] }'
}

# deb_trim_modules TMP: this kernel's module tree, as a tmpfs over
# /lib/modules/KVER holding the kernel's index files, its headers link and
# only the modules this test loads (softverbs' dependencies, veth).  DKMS
# runs depmod after every install and removal, and depmod reads every
# module of the tree: 4230 xz-compressed ones on 6.12, 60-100 s a call
# under TCG, 2-4 calls a test.  The package's module goes into this tree
# like into the whole one (updates/dkms, found by depmod and modprobe);
# the whole tree is back at exit.
deb_trim_modules() {
	local tmp=$1 m=/lib/modules/$SV_KVER want dep f
	[ -n "$SV_MODULE" ] || sv_skip "no module under test (SV_MODULE) to take the dependencies from"
	# the module under test is the packaged source built for this kernel
	want=$(modinfo -F depends "$SV_MODULE" | tr ',' ' ')
	mkdir "$tmp/modules"
	cp -a "$m"/modules.* "$m/build" "$tmp/modules/"
	# shellcheck disable=SC2086 # a list of module names
	for dep in $(modprobe -S "$SV_KVER" --show-depends -a veth $want | awk '$1 == "insmod" { print $2 }'); do
		f=${dep#"$m"/}
		[ "$f" != "$dep" ] || sv_fail "modprobe names $dep, outside $m"
		mkdir -p "$tmp/modules/${f%/*}"
		cp -a "$dep" "$tmp/modules/$f"
	done
	mount --bind "$tmp/modules" "$m"
	sv_on_exit "umount '$m'"
}

# deb_installed VERSION PKG...: each PKG is installed at VERSION
deb_installed() {
	local v=$1 p
	shift
	for p in "$@"; do
		sv_assert_eq "ii $v" "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$p" | tr -s ' ')" "$p's state"
	done
}

# deb_module_of VERSION: DKMS's module for this kernel is installed, at
# VERSION; prints its path
deb_module_of() {
	local ko
	ko=$(modinfo -k "$SV_KVER" -n softverbs) || sv_fail "no softverbs module for $SV_KVER"
	case $ko in
	*/updates/dkms/*) ;;
	*) sv_fail "modinfo finds $ko, not DKMS's module" ;;
	esac
	sv_assert_eq "$1" "$(modinfo -F version "$ko")" "the installed module's version"
	dkms status -m softverbs -k "$SV_KVER" | grep -q "softverbs/$1, $SV_KVER, .*: installed" ||
		sv_fail "DKMS has no installed $1 for $SV_KVER: $(dkms status -m softverbs)"
	echo "$ko"
}

# deb_use TMP: with every package installed, it all works with no further
# step: "rdma link add" autoloads the module, rdma-core and svctl see the
# device, a program built with "pkg-config softverbs" runs on it
deb_use() {
	local tmp=$1 v=$deb_version
	if [ -n "$SV_MODULE" ]; then
		sv_assert_eq "$(modinfo -F srcversion "$SV_MODULE")" "$(modinfo -k "$SV_KVER" -F srcversion softverbs)" \
			"srcversion of the packaged module vs the module under test"
	fi
	sv_veth_pair vD0 vD1
	ip addr add 192.0.2.17/24 dev vD0
	rdma link add svd0 type softverbs netdev vD0
	sv_on_exit 'rdma link delete svd0 2>/dev/null'
	[ -d /sys/module/softverbs ] || sv_fail "rdma link add did not load softverbs"
	sv_assert_eq "$v" "$(cat /sys/module/softverbs/version)" "the loaded module's version"
	# shellcheck disable=SC2016 # evaluated by sv_wait_for
	sv_wait_for '[[ "$(rdma link show svd0/1)" == *ACTIVE* ]]' 10 || sv_fail "port not ACTIVE"
	ibv_devinfo -d svd0 | grep -q 'PORT_ACTIVE' || sv_fail "ibv_devinfo does not see svd0 ACTIVE"
	/usr/sbin/svctl link show svd0 | grep -q vD0 || sv_fail "svctl link show svd0: $(/usr/sbin/svctl link show svd0 2>&1)"
	[ -f /usr/share/bash-completion/completions/svctl ] || sv_fail "no bash completion"
	bash -n /usr/share/bash-completion/completions/svctl || sv_fail "the bash completion does not parse"

	# libsoftverbs-dev: its header and pkg-config file, beside libibverbs-dev's
	sv_assert_eq "$v" "$(pkg-config --modversion softverbs)" "pkg-config softverbs"
	# shellcheck disable=SC2046 # pkg-config's words
	gcc -O1 -o "$tmp/devinfo" "$SV_ROOT/ulib/examples/devinfo.c" $(pkg-config --cflags --libs softverbs)
	ldd "$tmp/devinfo" | grep -Eq "libsoftverbs.so.1 => (/usr)?/lib/$(gcc -dumpmachine)/libsoftverbs.so.1" ||
		sv_fail "devinfo does not use the packaged libsoftverbs: $(ldd "$tmp/devinfo")"
	ldd "$tmp/devinfo" | grep -q libibverbs && sv_fail "devinfo links libibverbs too"
	"$tmp/devinfo" -d svd0 >"$tmp/devinfo.out" 2>&1 ||
		{ cat "$tmp/devinfo.out"; sv_fail "the packaged libsoftverbs does not open svd0"; }
	# the extensions' header, <softverbs.h> through pkg-config's -I
	printf '%s\n' '#include <stdio.h>' '#include <softverbs.h>' \
		'int main(void) { printf("%p\n", (void *)softverbs_post_flush); return SOFTVERBS_FLUSH_GLOBAL != 1; }' >"$tmp/ext.c"
	# shellcheck disable=SC2046
	gcc -Wall -Werror -o "$tmp/ext" "$tmp/ext.c" $(pkg-config --cflags --libs softverbs) ||
		sv_fail "softverbs.h does not compile with pkg-config's flags"
	"$tmp/ext" >/dev/null || sv_fail "a program linked with pkg-config's flags does not run"
	rdma link delete svd0
	rmmod softverbs
}

# deb_remove TMP: apt remove takes everything away: no module under
# /lib/modules, nothing in DKMS or /usr/src, no tools, no library
deb_remove() {
	local tmp=$1 lib left
	lib=$(dpkg -L libsoftverbs1 | grep '/libsoftverbs\.so\.1$')
	apt-get remove -y "${deb_pkgs[@]}" >"$tmp/remove.log" 2>&1 ||
		{ cat "$tmp/remove.log"; sv_fail "apt-get remove failed"; }
	left=$(find /lib/modules -name 'softverbs*.ko*' 2>/dev/null)
	[ -z "$left" ] || sv_fail "left in /lib/modules after removal: $left"
	modinfo -k "$SV_KVER" softverbs >/dev/null 2>&1 && sv_fail "modinfo still finds softverbs after removal"
	dkms status -m softverbs | grep -q . && sv_fail "DKMS still lists: $(dkms status -m softverbs)"
	left=$(ls -d /usr/src/softverbs-* 2>/dev/null || true)
	[ -z "$left" ] || sv_fail "a DKMS source tree is left in /usr/src: $left ($(find "$left" | head -n 5))"
	[ ! -e /usr/sbin/svctl ] || sv_fail "/usr/sbin/svctl is left"
	[ ! -e "$lib" ] || sv_fail "$lib is left"
}
