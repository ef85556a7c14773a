#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# rdma link add/delete for type softverbs, and every bad input to it.
#
#   init_net
#   +---------------------------------------------+
#   | sv_l0 (softverbs) on vA 10.10.0.1/24        |
#   |                      vA ===== veth ===== vB |
#   +---------------------------------------------+
#
# A device appears in "rdma link"/"rdma dev" with its netdev, link type
# Ethernet, its port ACTIVE, a sysfs parent whose net/ links the netdev
# (renamed with it) and that rdma-core's udev rename rule leaves alone; it
# goes away with "rdma link delete".  Unknown
# netdev, duplicate name, loopback and netdevs that are neither Ethernet nor
# IP-only (IP-only ones are accepted: 19-l3dev), and a second link on the
# same netdev each fail with a clear error and leave nothing behind.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
sv_load_module
sv_on_exit sv_unload_module

sv_veth_pair vA vB
ip addr add 10.10.0.1/24 dev vA

rdma link add sv_l0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_l0 2>/dev/null'

out=$(rdma link show sv_l0/1)
echo "$out"
case $out in *"netdev vA"*) ;; *) sv_fail "rdma link does not show netdev vA: $out" ;; esac
sv_wait_for '[[ "$(rdma link show sv_l0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "port not ACTIVE: $(rdma link show sv_l0/1)"
out=$(rdma dev show sv_l0)
case $out in *"node_type ca"*) ;; *) sv_fail "rdma dev: $out" ;; esac
sv_assert_eq vA "$(cat /sys/class/infiniband/sv_l0/parent)" "parent attribute"
sv_assert_eq Ethernet "$(cat /sys/class/infiniband/sv_l0/ports/1/link_layer)" "link layer"
[ -e /dev/infiniband/uverbs0 ] || ls /dev/infiniband/uverbs* >/dev/null ||
	sv_fail "no uverbs char device"

# the sysfs parent: device/net/ names the netdev (where rdma-core's tests
# and other tools look), and follows a rename of it
dir=/sys/class/infiniband/sv_l0/device
[ -L $dir/net/vA ] || sv_fail "no $dir/net/vA: $(ls -l $dir/ $dir/net/ 2>&1)"
read -r mac <$dir/net/vA/address || sv_fail "$dir/net/vA does not lead to vA"
sv_assert_eq "$(cat /sys/class/net/vA/address)" "$mac" "MAC through device/net/vA"
sv_on_exit 'ip link del vAx 2>/dev/null'
ip link set vA down
ip link set vA name vAx
ip link set vAx up
[ -L $dir/net/vAx ] && [ ! -e $dir/net/vA ] ||
	sv_fail "device/net/ after renaming vA to vAx: $(ls $dir/net/)"
ip link set vAx down
ip link set vAx name vA
ip link set vA up
[ -L $dir/net/vA ] || sv_fail "device/net/ after renaming back: $(ls $dir/net/)"
# rdma-core's udev rule (NAME_FALLBACK) renames devices with a PCI or
# firmware-indexed parent; the name the user gave must stay
if [ -x /lib/udev/rdma_rename ]; then
	/lib/udev/rdma_rename sv_l0 NAME_FALLBACK || true
	[ -e /sys/class/infiniband/sv_l0 ] ||
		sv_fail "rdma_rename NAME_FALLBACK renamed sv_l0: $(ls /sys/class/infiniband/)"
fi
sv_wait_for '[[ "$(rdma link show sv_l0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "port not ACTIVE after the renames"

# bad input: each must fail and must not create anything
before=$(rdma dev show | wc -l)
sv_expect_fail rdma link add sv_l1 type softverbs netdev nosuchdev
sv_expect_fail rdma link add sv_l0 type softverbs netdev vB	# duplicate name
sv_expect_fail rdma link add sv_l1 type softverbs netdev vA	# netdev taken
sv_expect_fail rdma link add sv_l1 type softverbs netdev lo	# loopback
# neither Ethernet nor IP-only (IP tunnels are accepted: 19-l3dev)
if ip link add sv_nlmon0 type nlmon 2>/dev/null; then
	sv_on_exit 'ip link del sv_nlmon0 2>/dev/null'
	sv_expect_fail rdma link add sv_l1 type softverbs netdev sv_nlmon0
	grep -q 'softverbs: netdev sv_nlmon0 is neither an Ethernet nor an IP-only device' <<<"$(dmesg)" ||
		sv_fail "no error message for the netlink monitor netdev"
fi
sv_assert_eq "$before" "$(rdma dev show | wc -l)" "devices after bad link adds"
grep -q 'softverbs: netdev lo is a loopback device' <<<"$(dmesg)" ||
	sv_fail "no error message for the loopback netdev"

# delete, and the name and the netdev are free again
rdma link delete sv_l0
[ ! -e /sys/class/infiniband/sv_l0 ] || sv_fail "sv_l0 still exists after delete"
sv_expect_fail rdma link delete sv_l0
rdma link add sv_l0 type softverbs netdev vA
rdma link delete sv_l0

# a VLAN netdev is refused with a pointer to its real device: ib_core
# would list none of the VLAN's addresses as GIDs of it (the VLAN's
# addresses are GIDs of a device on vA: 62-vlan)
ip link add link vA name vA.7 type vlan id 7
sv_on_exit 'ip link del vA.7 2>/dev/null'
sv_expect_fail rdma link add sv_l2 type softverbs netdev vA.7
grep -q 'softverbs: netdev vA.7 is a VLAN device: create the softverbs device on vA' <<<"$(dmesg)" ||
	sv_fail "no error message for the VLAN netdev"
echo "link add/delete and bad input: all as expected"
