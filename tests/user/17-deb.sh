#!/bin/bash
# sv-test: kernels=stock,cloud1 needs=deb cost=XL
# The Debian packages (make deb) install, work and remove like packages, on
# this kernel.
#
#   apt install ./softverbs-dkms ./libsoftverbs1 ./libsoftverbs-dev ./softverbs-tools
#        |  the postinst's DKMS builds and installs the module for this
#        |  kernel; "rdma link add" autoloads it, rdma-core and svctl see
#        |  the device, a program built with "pkg-config softverbs" runs
#        v
#   apt remove: no softverbs.ko under /lib/modules, nothing in DKMS or /usr/src
#
# 17-deb-upgrade does the same through an upgrade, on the first stock
# kernel; the fixture and its costs are in lib/deb.sh.
# shellcheck source=tests/user/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/user/lib/deb.sh
. "$(dirname "$0")/lib/deb.sh"

sv_need dpkg dpkg-deb apt-get dkms rdma ip modinfo ibv_devinfo gcc pkg-config
deb_when_asked
deb_find
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
deb_system "$tmp"

t0=$SECONDS
env "${deb_env[@]}" apt-get install -y --no-install-recommends "${deb_files[@]}" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; sv_fail "apt-get install of the packages failed"; }
t_install=$((SECONDS - t0))
deb_installed "$deb_version" "${deb_pkgs[@]}"
deb_module_of "$deb_version" >/dev/null
deb_use "$tmp"
t0=$SECONDS
deb_remove "$tmp"
echo "SV_SUMMARY: packages $deb_version on $SV_KVER: apt install with DKMS build ${t_install} s, autoload, rdma-core, svctl, pkg-config build, apt remove $((SECONDS - t0)) s; $(deb_ccache_stats)"
