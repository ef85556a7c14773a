#!/bin/bash
# sv-test: kernels=first needs=deb cost=XL
# The Debian packages (make deb) upgrade like packages.
#
#   softverbs-dkms VERSION~old1 (the built package, relabelled older)
#        |  dpkg -i: DKMS builds and installs the module
#        v
#   apt install ./softverbs-dkms ./libsoftverbs1 ./libsoftverbs-dev ./softverbs-tools
#        |  the upgrade: the old package's prerm takes the module out of
#        |  DKMS, the new postinst builds and installs it again; then it
#        |  all works as in 17-deb
#        v
#   apt remove: nothing left
#
# Upgrading is the packages' maintainer scripts and DKMS, the same on every
# kernel: it runs on the first stock kernel, and 17-deb installs on the
# others.  The fixture and its costs are in lib/deb.sh.
# shellcheck source=tests/user/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/user/lib/deb.sh
. "$(dirname "$0")/lib/deb.sh"

sv_need dpkg dpkg-deb apt-get dkms rdma ip modinfo ibv_devinfo gcc pkg-config
deb_when_asked
deb_find
old=$deb_version~old1
dpkg --compare-versions "$old" lt "$deb_version" || sv_fail "$old does not sort before $deb_version"
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
deb_system "$tmp"

# --- an older package: the same one relabelled $old --------------------------
# The module's own version (dkms.conf's) stays: the upgrade is told by the
# package's, and by the new module file DKMS installs.
dpkg-deb -R "${deb_files[0]}" "$tmp/old"
sed -i "s/^Version: $deb_version\$/Version: $old/" "$tmp/old/DEBIAN/control"
grep -qx "Version: $old" "$tmp/old/DEBIAN/control" || sv_fail "could not relabel the package"
dpkg-deb -Znone -b "$tmp/old" "$tmp/softverbs-dkms_${old}_all.deb" >/dev/null

t0=$SECONDS
env "${deb_env[@]}" dpkg -i "$tmp/softverbs-dkms_${old}_all.deb" >"$tmp/install-old.log" 2>&1 ||
	{ cat "$tmp/install-old.log"; sv_fail "dpkg -i of softverbs-dkms $old failed"; }
t_old=$((SECONDS - t0))
deb_installed "$old" softverbs-dkms
ko=$(deb_module_of "$deb_version")
old_ko=$(stat -c '%i %y' "$ko")

# --- the upgrade, with the other packages, through apt ------------------------
t0=$SECONDS
env "${deb_env[@]}" apt-get install -y --no-install-recommends "${deb_files[@]}" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; sv_fail "apt-get install of the packages failed"; }
t_up=$((SECONDS - t0))
deb_installed "$deb_version" "${deb_pkgs[@]}"
# rebuilt: the old prerm removed the module, the new postinst built it
grep -q "Building initial module for $SV_KVER" "$tmp/install.log" ||
	{ cat "$tmp/install.log"; sv_fail "the upgrade did not build the module for $SV_KVER"; }
ko=$(deb_module_of "$deb_version")
[ "$(stat -c '%i %y' "$ko")" != "$old_ko" ] || sv_fail "the upgrade left the old module file in place"

deb_use "$tmp"
t0=$SECONDS
deb_remove "$tmp"
echo "SV_SUMMARY: packages $deb_version on $SV_KVER: dpkg -i $old with DKMS build ${t_old} s, apt upgrade with rebuild ${t_up} s, autoload, rdma-core, svctl, pkg-config build, apt remove $((SECONDS - t0)) s; $(deb_ccache_stats)"
