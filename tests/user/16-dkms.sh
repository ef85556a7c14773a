#!/bin/bash
# sv-test: kernels=debug,first,stock,cloud,trixie needs=dkms cost=S
# The DKMS-installed module loads with a plain "modprobe softverbs".
#
# check.sh (as root) runs "make dkms-install" on the host before booting the
# VM; the VM sees the host's /lib/modules, so DKMS's build for this kernel is
# there (for a cloud kernel, DKMS installed into its unpacked tree, which the
# VM has at /lib/modules/KVER: scripts/cloud-kernel.sh dkms-install; for a
# Debian 13 kernel, the dkms of the Debian 13 root that this VM boots
# built it there: scripts/trixie-kernel.sh dkms-install).  It must be the
# same source as the module under test (srcversion), load with its
# dependencies resolved by modprobe, create a device, unload.  Where the
# root lacks the compiler the kernel names (Debian 13's kernels under
# Debian 12's user space) it skips: no one installs through DKMS there.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma modinfo
sv_need_kernel_cc
path=$(modinfo -n softverbs 2>/dev/null) || sv_skip "softverbs is not installed for $SV_KVER (make dkms-install)"
case $path in */updates/dkms/*) ;; *) sv_skip "the installed softverbs ($path) is not DKMS's" ;; esac
[ ! -d /sys/module/softverbs ] || sv_fail "softverbs is already loaded"

if [ -n "$SV_MODULE" ]; then
	sv_assert_eq "$(modinfo -F srcversion "$SV_MODULE")" "$(modinfo -F srcversion "$path")" \
		"srcversion of the DKMS build vs the module under test"
fi

modprobe softverbs
sv_on_exit 'rmmod softverbs 2>/dev/null'
sv_assert_eq "$(modinfo -F version "$path")" "$(cat /sys/module/softverbs/version)" "loaded version"

sv_veth_pair vA vB
rdma link add sv_k0 type softverbs netdev vA
sv_wait_for '[[ "$(rdma link show sv_k0/1)" == *ACTIVE* ]]' 10 || sv_fail "port not ACTIVE"
rdma link delete sv_k0
rmmod softverbs

# "rdma link add" autoloads the module (MODULE_ALIAS_RDMA_LINK)
rdma link add sv_k1 type softverbs netdev vA
[ -d /sys/module/softverbs ] || sv_fail "rdma link add did not autoload softverbs"
rdma link delete sv_k1
rmmod softverbs
echo "DKMS module: modprobe, autoload, device, unload"
