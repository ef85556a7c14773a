#!/bin/bash
# sv-test: kernels=debug,stock,cloud needs=nvmet,rxe cost=M
# NVMe over Fabrics (RDMA) on a softverbs port: nvmet-rdma target and
# nvme-rdma host in the same VM.
#
#   init_net                                   netns sv-56b
#   sv56a (softverbs) on x56a 10.156.0.1 ===== x56b (carrier only)
#     nvmet port 4420 (a loop device over a 16 MiB file)
#     nvme connect -t rdma -a 10.156.0.1  -> /dev/nvmeXn1
#
# nvmet-rdma and nvme-rdma create their rdma_cm IDs in init_net, so target
# and host share one softverbs device there and it talks to itself (rdma_rxe
# must not be loaded: it would own UDP 4791 in init_net).  Write a 4 MiB
# pattern with O_DIRECT, read it back through the host and compare; check the
# backing device got it too; disconnect, remove the target, unload the NVMe
# modules and softverbs; the runner checks the kernel log stays clean.  Skips
# (exit 4) without the nvmet/nvme-rdma modules or nvme-cli.
# SV_XPORT_DUT=rxe: the same on a Soft-RoCE device.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/storage.sh
. "$sv_lib/storage.sh"

sv_need ip rdma nvme dd cmp losetup
for m in nvmet nvmet_rdma nvme_rdma; do
	modinfo "$m" >/dev/null 2>&1 || sv_skip "no $m module for $SV_KVER"
done
kind=softverbs
if [ "$SV_XPORT_DUT" = rxe ]; then
	kind=rxe
	modinfo rdma_rxe >/dev/null 2>&1 || sv_skip "no rdma_rxe module"
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
else
	sv_load_module_init_net
fi
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
ulimit -l unlimited

sv_netns_add sv-56b
sv_veth_pair x56a x56b sv-56b
ip addr add 10.156.0.1/24 dev x56a
dev=${kind/softverbs/sv}56a
rdma link add $dev type $kind netdev x56a
sv_on_exit "rdma link delete $dev 2>/dev/null"
sv_wait_for "[[ \"\$(rdma link show $dev/1)\" == *'state ACTIVE'* ]]" 20 || sv_fail "$dev not ACTIVE"

modprobe nvmet
modprobe nvmet_rdma
modprobe nvme_rdma
sv_on_exit 'modprobe -r nvme_rdma nvmet_rdma nvmet 2>/dev/null'

# --- target: a file-backed namespace behind an RDMA port -----------------
img=$(mktemp /tmp/sv-nvmeof.XXXXXX)
sv_on_exit "rm -f '$img'"
truncate -s 16M "$img"
# a loop device over a file: nvmet's block backend (its file backend saw a
# size of 0 for a tmpfs file in the VM)
modprobe loop
loopdev=$(losetup -f --show "$img") || sv_fail "losetup failed"
sv_on_exit "losetup -d $loopdev"
nqn=nqn.2026-11.org.softverbs:test56
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e5e5e56-0000-4000-8000-000000000056
sv_on_exit "sv_nvmet_del $nqn 56"
sv_nvmet_add $nqn "$loopdev" 10.156.0.1 56 || sv_fail "nvmet target setup failed"
echo "target: $nqn on rdma 10.156.0.1:4420 ($dev)"

# --- host ------------------------------------------------------------------
sv_on_exit "nvme disconnect -n $nqn >/dev/null 2>&1"
ns=$(sv_nvme_connect $nqn 10.156.0.1 $hostnqn) || sv_fail "no NVMe-oF namespace: $(dmesg | tail -n 20)"
ctrl=$(sv_nvme_ctrl $nqn) || sv_fail "no controller for $nqn"
# the host learns the size from Identify Namespace, maybe after the disk appears
sv_wait_for "[ \$(cat /sys/class/block/$ns/size) -gt 0 ]" 30 ||
	sv_fail "/dev/$ns has size 0 (backing file $(stat -c %s "$img") bytes)"
echo "host: $ctrl ($(cat /sys/class/nvme/$ctrl/transport) $(cat /sys/class/nvme/$ctrl/address)) -> /dev/$ns, $(($(cat /sys/class/block/$ns/size) / 2048)) MiB"

pat=$(mktemp)
back=$(mktemp)
sv_on_exit "rm -f '$pat' '$back'"
head -c 4M /dev/urandom >"$pat"
timeout 120 dd if="$pat" of=/dev/$ns bs=256k oflag=direct status=none || sv_fail "write failed"
timeout 120 dd if=/dev/$ns of="$back" bs=256k count=16 iflag=direct status=none || sv_fail "read failed"
cmp "$pat" "$back" || sv_fail "data read back differs"
dd if="$loopdev" of="$back" bs=256k count=16 iflag=direct status=none
cmp "$pat" "$back" || sv_fail "the backing device does not hold the data"
echo "4 MiB written and read back over nvme-rdma: identical (and on the backing device)"

nvme disconnect -n $nqn
sv_wait_for "! sv_nvme_ctrl $nqn" 30 || sv_fail "$ctrl still there after disconnect"
sv_nvmet_del $nqn 56 || sv_fail "the nvmet target does not go away"
modprobe -r nvme_rdma nvmet_rdma nvmet || sv_fail "NVMe modules do not unload"
rdma link delete $dev
echo "disconnected, target removed, modules unloaded"
