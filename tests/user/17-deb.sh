#!/bin/bash
# sv-test: kernels=first,stock needs=deb cost=L
# The Debian packages (make deb) install, upgrade and remove like packages.
#
#   softverbs-dkms VERSION~old1 (the built package, relabelled older)
#        |  dpkg -i: DKMS builds and installs the module
#        v
#   apt install ./softverbs-dkms ./libsoftverbs1 ./libsoftverbs-dev ./softverbs-tools
#        |  the upgrade: the old package's prerm takes the module out of
#        |  DKMS, the new postinst builds and installs it again; "rdma link
#        |  add" autoloads it, rdma-core and svctl see the device, a program
#        |  built with "pkg-config softverbs" runs on it
#        v
#   apt remove: no softverbs.ko under /lib/modules, nothing in DKMS or /usr/src
#
# check.sh builds the packages on the host ("make deb", build/deb/) before
# the VMs; everything here happens in the guest's tmpfs overlay, so the
# host's /var/lib/dpkg and /lib/modules never change.  The guest has no
# network: apt resolves the packages' dependencies from what the host has
# installed (dkms, libmnl0, libibverbs-dev).  DKMS compiles the module in
# the guest, for this kernel and, as its postinst does, the newest
# installed one; under TCG one such build takes over ten minutes, so the
# compiler goes through ccache (Debian's headers: DEBIAN_KERNEL_USE_CCACHE)
# with the cache scripts/deb-ccache.sh filled on the host, when it exists.
# The old package differs from the new in its version only, so both builds
# hit that cache.
. "$(dirname "$0")/lib.sh"

sv_need dpkg dpkg-deb apt-get dkms rdma ip modinfo ibv_devinfo gcc pkg-config
# Measured on 6.12 under TCG (2026-11-26): dpkg reads its database (182k
# files over 9p) for 40-75 s per call, and DKMS's build ran over 6 minutes
# even with the compiler cache: the whole test is about 20 minutes, too
# much for make check's budget.  It runs when asked for.
[ "${SV_DEB_VM:-0}" = 1 ] || sv_skip "the package install test takes ~20 min under TCG: SV_DEB_VM=1 runs it"
debs=${SV_DEBS:-$SV_ROOT/build/deb}
shopt -s nullglob
found=("$debs"/softverbs-dkms_*_all.deb)
[ ${#found[@]} -eq 1 ] || sv_skip "no (or more than one) softverbs-dkms package in $debs (make deb)"
dkms_deb=${found[0]}
version=$(dpkg-deb -f "$dkms_deb" Version)
arch=$(dpkg --print-architecture)
pkgs=(softverbs-dkms libsoftverbs1 libsoftverbs-dev softverbs-tools)
files=("$dkms_deb")
for p in "${pkgs[@]:1}"; do
	f=$debs/${p}_${version}_$arch.deb
	[ -f "$f" ] || sv_skip "$f is missing (make deb)"
	files+=("$f")
done
[ -e "/lib/modules/$SV_KVER/build/include" ] || sv_skip "no headers for $SV_KVER"
[ ! -d /sys/module/softverbs ] || sv_fail "softverbs is already loaded"
old=$version~old1
dpkg --compare-versions "$old" lt "$version" || sv_fail "$old does not sort before $version"
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"

# A clean slate: check.sh's "make dkms-install" (for 16-dkms) registered the
# same module version with DKMS on the host, which this guest sees.  It is
# put back at exit, for the tests after this one in the same VM.
# restore_host_dkms: the host's DKMS state as it was, and depmod for it
restore_host_dkms() {
	local k
	tar -C / -xf "$tmp/host-dkms.tar"
	for k in $(tar -tf "$tmp/host-dkms.tar" | sed -n 's|^lib/modules/\([^/]*\)/.*|\1|p' | sort -u); do
		depmod -a "$k"
	done
}
if [ -d /var/lib/dkms/softverbs ]; then
	(
		cd /
		saved=(var/lib/dkms/softverbs usr/src/softverbs-* lib/modules/*/updates/dkms/softverbs*.ko*)
		tar -cf "$tmp/host-dkms.tar" "${saved[@]}"
	)
	sv_on_exit restore_host_dkms
fi
for v in /var/lib/dkms/softverbs/*/source; do
	[ -e "$v" ] || continue
	v=${v%/source}
	dkms remove -m softverbs -v "${v##*/}" --all >/dev/null
done
rm -rf /usr/src/softverbs-*
# dpkg asks: no terminal, and no manual pages to index (man-db's trigger)
export DEBIAN_FRONTEND=noninteractive
echo 'path-exclude /usr/share/man/*' >/etc/dpkg/dpkg.cfg.d/sv-noman
sv_on_exit 'rm -f /etc/dpkg/dpkg.cfg.d/sv-noman'
sv_on_exit 'rmmod softverbs 2>/dev/null; dpkg --purge '"${pkgs[*]}"' >/dev/null 2>&1'

# ko_versions: "KVER VERSION" of every softverbs.ko under /lib/modules
ko_versions() {
	local ko k
	for ko in /lib/modules/*/updates/dkms/softverbs.ko*; do
		k=${ko#/lib/modules/}
		echo "${k%%/*} $(modinfo -F version "$ko")"
	done
}

# DKMS's compiler through ccache, if scripts/deb-ccache.sh filled it
ccache_dir=${SV_CACHE:-/var/tmp/softverbs-cache}/ccache-dkms
dkms_env=(LC_ALL=C)
if [ -d "$ccache_dir" ] && command -v ccache >/dev/null; then
	# shellcheck disable=SC2054 # a comma list in one value
	dkms_env+=(DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$ccache_dir"
		CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime)
fi

# --- an older package: the same one relabelled $old --------------------------
dpkg-deb -R "$dkms_deb" "$tmp/old"
sed -i "s/^Version: $version\$/Version: $old/" "$tmp/old/DEBIAN/control"
grep -qx "Version: $old" "$tmp/old/DEBIAN/control" || sv_fail "could not relabel the package"
dpkg-deb -Znone -b "$tmp/old" "$tmp/softverbs-dkms_${old}_all.deb" >/dev/null

t0=$SECONDS
env "${dkms_env[@]}" dpkg -i "$tmp/softverbs-dkms_${old}_all.deb" >"$tmp/install-old.log" 2>&1 ||
	{ cat "$tmp/install-old.log"; sv_fail "dpkg -i of softverbs-dkms $old failed"; }
echo "install $old: $((SECONDS - t0)) s"
[ "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' softverbs-dkms)" = "ii $old" ] ||
	sv_fail "softverbs-dkms $old is not installed"
ko=$(modinfo -k "$SV_KVER" -n softverbs)
case $ko in
*/updates/dkms/*) ;;
*) sv_fail "modinfo finds $ko, not DKMS's module" ;;
esac
sv_assert_eq "$version" "$(modinfo -F version "$ko")" "the installed module's version"
old_ko=$(stat -c '%i %y' "$ko")

# --- the upgrade, with the other packages, through apt ------------------------
t0=$SECONDS
env "${dkms_env[@]}" apt-get install -y --no-install-recommends "${files[@]}" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; sv_fail "apt-get install of the packages failed"; }
echo "upgrade to $version, with the libraries and tools: $((SECONDS - t0)) s"
for p in "${pkgs[@]}"; do
	sv_assert_eq "ii $version" "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$p" | tr -s ' ')" "$p's state"
done
# rebuilt: the old prerm removed the module, the new postinst built it
grep -q "Building initial module for $SV_KVER" "$tmp/install.log" ||
	{ cat "$tmp/install.log"; sv_fail "the upgrade did not build the module for $SV_KVER"; }
[ "$(stat -c '%i %y' "$ko" 2>/dev/null)" != "$old_ko" ] || sv_fail "the upgrade left the old module file in place"
dkms status -m softverbs -k "$SV_KVER" | grep -q "softverbs/$version, $SV_KVER, .*: installed" ||
	sv_fail "DKMS has no installed $version for $SV_KVER: $(dkms status -m softverbs)"
ko_versions | grep -v " $version\$" && sv_fail "a module other than $version is left in /lib/modules"
sv_assert_eq "$version" "$(modinfo -k "$SV_KVER" -F version softverbs)" "the upgraded module's version"
if [ -n "$SV_MODULE" ]; then
	sv_assert_eq "$(modinfo -F srcversion "$SV_MODULE")" "$(modinfo -k "$SV_KVER" -F srcversion softverbs)" \
		"srcversion of the packaged module vs the module under test"
fi

# --- it works with no further step -------------------------------------------
sv_veth_pair vD0 vD1
ip addr add 192.0.2.17/24 dev vD0
rdma link add svd0 type softverbs netdev vD0
sv_on_exit 'rdma link delete svd0 2>/dev/null'
[ -d /sys/module/softverbs ] || sv_fail "rdma link add did not load softverbs"
sv_assert_eq "$version" "$(cat /sys/module/softverbs/version)" "the loaded module's version"
sv_wait_for '[[ "$(rdma link show svd0/1)" == *ACTIVE* ]]' 10 || sv_fail "port not ACTIVE"
ibv_devinfo -d svd0 | grep -q 'PORT_ACTIVE' || sv_fail "ibv_devinfo does not see svd0 ACTIVE"
/usr/sbin/svctl link show svd0 | grep -q vD0 || sv_fail "svctl link show svd0: $(/usr/sbin/svctl link show svd0 2>&1)"
[ -f /usr/share/bash-completion/completions/svctl ] || sv_fail "no bash completion"
bash -n /usr/share/bash-completion/completions/svctl || sv_fail "the bash completion does not parse"

# libsoftverbs-dev: its header and pkg-config file, beside libibverbs-dev's
sv_assert_eq "$version" "$(pkg-config --modversion softverbs)" "pkg-config softverbs"
# shellcheck disable=SC2046 # pkg-config's words
gcc -O1 -o "$tmp/devinfo" "$SV_ROOT/ulib/examples/devinfo.c" $(pkg-config --cflags --libs softverbs)
ldd "$tmp/devinfo" | grep -Eq "libsoftverbs.so.1 => (/usr)?/lib/$(gcc -dumpmachine)/libsoftverbs.so.1" || sv_fail "devinfo does not use the packaged libsoftverbs: $(ldd "$tmp/devinfo")"
ldd "$tmp/devinfo" | grep -q libibverbs && sv_fail "devinfo links libibverbs too"
"$tmp/devinfo" -d svd0 >"$tmp/devinfo.out" 2>&1 || { cat "$tmp/devinfo.out"; sv_fail "the packaged libsoftverbs does not open svd0"; }
# the extensions' header, <softverbs.h> through pkg-config's -I
printf '%s\n' '#include <stdio.h>' '#include <softverbs.h>' \
	'int main(void) { printf("%p\n", (void *)softverbs_post_flush); return SOFTVERBS_FLUSH_GLOBAL != 1; }' >"$tmp/ext.c"
# shellcheck disable=SC2046
gcc -Wall -Werror -o "$tmp/ext" "$tmp/ext.c" $(pkg-config --cflags --libs softverbs) ||
	sv_fail "softverbs.h does not compile with pkg-config's flags"
"$tmp/ext" >/dev/null || sv_fail "a program linked with pkg-config's flags does not run"

rdma link delete svd0
rmmod softverbs
lib=$(dpkg -L libsoftverbs1 | grep '/libsoftverbs\.so\.1$')

# --- removal -------------------------------------------------------------------
t0=$SECONDS
apt-get remove -y "${pkgs[@]}" >"$tmp/remove.log" 2>&1 ||
	{ cat "$tmp/remove.log"; sv_fail "apt-get remove failed"; }
echo "remove: $((SECONDS - t0)) s"
left=$(find /lib/modules -name 'softverbs*.ko*' 2>/dev/null)
[ -z "$left" ] || sv_fail "left in /lib/modules after removal: $left"
modinfo -k "$SV_KVER" softverbs >/dev/null 2>&1 && sv_fail "modinfo still finds softverbs after removal"
dkms status -m softverbs | grep -q . && sv_fail "DKMS still lists: $(dkms status -m softverbs)"
ls -d /usr/src/softverbs-* 2>/dev/null && sv_fail "a DKMS source tree is left in /usr/src"
[ ! -e /usr/sbin/svctl ] || sv_fail "/usr/sbin/svctl is left"
[ ! -e "$lib" ] || sv_fail "$lib is left"
echo "SV_SUMMARY: packages $version: install (from $old), autoload, rdma-core, svctl, pkg-config build, remove"
