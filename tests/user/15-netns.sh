#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# A softverbs device lives in its netdev's network namespace.
#
#   init_net                 netns sv-ns1
#   vB ======== veth ======== vA 10.15.0.1/24 <- sv_n0 (softverbs)
#
# The device is created from inside sv-ns1 on a netdev only that namespace
# can see; its GIDs come from that namespace's addresses; two namespaces can
# each have a device (each has its own RoCEv2 UDP socket); deleting the
# namespace removes its device.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
sv_load_module
sv_on_exit sv_unload_module

sv_netns_add sv-ns1
ip link add vA type veth peer name vB
ip link set vA netns sv-ns1
ip link set vB up
ip -n sv-ns1 link set vA up
ip -n sv-ns1 addr add 10.15.0.1/24 dev vA

# vA does not exist in init_net
sv_expect_fail rdma link add sv_n0 type softverbs netdev vA
ip netns exec sv-ns1 rdma link add sv_n0 type softverbs netdev vA
sv_wait_for '[[ "$(ip netns exec sv-ns1 rdma link show sv_n0/1)" == *"state ACTIVE"*"netdev vA"* ]]' 10 ||
	sv_fail "sv_n0 in sv-ns1: $(ip netns exec sv-ns1 rdma link show sv_n0/1)"
sv_wait_for 'sv_gid_present sv_n0 0000:0000:0000:0000:0000:ffff:0a0f:0001' 10 ||
	sv_fail "no GID for sv-ns1's address 10.15.0.1"

# a second namespace with its own device: its own UDP 4791 socket
sv_netns_add sv-ns2
ip -n sv-ns2 link add vC type veth peer name vD
ip -n sv-ns2 link set vC up
ip -n sv-ns2 link set vD up
ip netns exec sv-ns2 rdma link add sv_n1 type softverbs netdev vC
# and one in init_net
sv_veth_pair vE vF
rdma link add sv_n2 type softverbs netdev vE
sv_on_exit 'rdma link delete sv_n2 2>/dev/null'
for d in sv_n0 sv_n1 sv_n2; do
	[ -e /sys/class/infiniband/$d ] || sv_fail "$d missing"
done

# namespace deletion removes the devices in it (and closes their socket)
ip netns del sv-ns2
sv_wait_for '[ ! -e /sys/class/infiniband/sv_n1 ]' 10 || sv_fail "sv_n1 outlived its namespace"
ip netns del sv-ns1
sv_wait_for '[ ! -e /sys/class/infiniband/sv_n0 ]' 10 || sv_fail "sv_n0 outlived its namespace"
[ -e /sys/class/infiniband/sv_n2 ] || sv_fail "sv_n2 in init_net went away too"
# namespaces are gone: their cleanups must not fail
ip netns add sv-ns1 && ip netns add sv-ns2
echo "devices follow their namespaces"
