#!/bin/bash
# sv-test: kernels=first,stock,cloud1,trixie needs=deb cost=S
# The Debian packages (make deb), installed the way a user does, work on
# this kernel with no further step.
#
#   on the host, scripts/deb-install.sh (check.sh's deb-install stage), in
#   a throwaway copy of the host with only this kernel's module tree (for
#   a Debian 13 kernel, of the Debian 13 root this VM boots, with the
#   kernel's headers: deb-install.sh --root):
#     [first stock kernel: dpkg -i softverbs-dkms VERSION~old1, DKMS builds]
#     apt install ./softverbs-dkms ./libsoftverbs1 ./libsoftverbs-dev ./softverbs-tools
#        |  the postinst's DKMS builds and installs the module for this
#        |  kernel (on the upgrade: again, after the old prerm removed it)
#        |  checked there: dpkg's state, DKMS's, the module's version
#        v
#     [Debian 13 root, deb-install.sh --from: the install above on
#      Debian 13's 6.12, then apt install of linux-headers-KVER: its
#      postinst's DKMS hook builds the module for this kernel]
#     build/deb-inst/KVER/root.tar: what the install wrote
#     apt remove: checked there that nothing is left
#   here, on the unpacked install:
#     the module is DKMS's, at the package's version; "rdma link add"
#     autoloads it; rdma-core and svctl see the device; a program built
#     with "pkg-config softverbs" runs on it
#
# The fixture and why the install runs on the host are in lib/deb.sh.
# shellcheck source=tests/user/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/user/lib/deb.sh
. "$(dirname "$0")/lib/deb.sh"

sv_need dpkg-deb dkms rdma ip modinfo ibv_devinfo gcc pkg-config tar
sv_need_kernel_cc
deb_find
deb_host_install
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
deb_unpack "$tmp"
deb_module_of "$deb_version" >/dev/null
deb_use "$tmp"
echo "SV_SUMMARY: packages $deb_version on $SV_KVER: on the host ($deb_suite root) $(cat "$deb_inst/summary"); here autoload, rdma-core, svctl, pkg-config build"
