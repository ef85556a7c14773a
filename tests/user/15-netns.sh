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
#
# A VLAN of vA moved into sv-ns2 (which has sv_n1 on vC, so a UDP 4791
# socket) belongs to sv-ns2, not to sv_n0 (issue 40, finding 6):
#
#   init_net                 netns sv-ns1                 netns sv-ns2
#   vB.15 10.115.0.2 -> vB == vA <- sv_n0     vA.15 10.115.0.1 (VLAN of vA)
#                                             vC 10.16.0.1 <- sv_n1
#
# neither RoCEv2 datagrams from init_net to 10.115.0.1 (the v2 receive
# path) nor a UD send of sv_n1 to it (the loopback queue) may reach sv_n0.
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

# rx_seen VAR: VAR = the sum of sv_n0's rx_* counters (received, dropped)
rx_seen() {
	local out w prev= n=0
	out=$(ip netns exec sv-ns1 rdma statistic show link sv_n0/1) ||
		sv_fail "rdma statistic show link sv_n0/1"
	for w in $out; do
		[[ $prev == rx_* && $w =~ ^[0-9]+$ ]] && n=$((n + w))
		prev=$w
	done
	printf -v "$1" %s "$n"
}
# vlan_rx VAR: VAR = packets received on vA.15 in sv-ns2
vlan_rx() {
	local j re='"stats64":\{"rx":\{"bytes":[0-9]+,"packets":([0-9]+)'
	j=$(ip -n sv-ns2 -s -j link show vA.15)
	[[ $j =~ $re ]] || sv_fail "no rx packet count for vA.15 in: $j"
	printf -v "$1" %s "${BASH_REMATCH[1]}"
}
if modprobe 8021q 2>/dev/null && ip -n sv-ns1 link add link vA name vA.15 type vlan id 15; then
	ulimit -l unlimited
	ip -n sv-ns1 link set vA.15 netns sv-ns2
	ip -n sv-ns2 -batch - <<EOF
addr add 10.115.0.1/24 dev vA.15
link set vA.15 up
addr add 10.16.0.1/24 dev vC
EOF
	ip link add link vB name vB.15 type vlan id 15
	sv_on_exit 'ip link del vB.15 2>/dev/null'
	ip addr add 10.115.0.2/24 dev vB.15
	ip link set vB.15 up
	# RoCEv2 receive: datagrams to UDP 4791 arrive on vA.15 in sv-ns2
	rx_seen c0
	vlan_rx v0
	for i in 1 2 3; do
		echo -n "sv-15 RoCEv2 datagram $i, not for sv_n0" >/dev/udp/10.115.0.1/4791
	done
	sv_wait_for 'vlan_rx v1 && [ $v1 -ge $((v0 + 3)) ]' 10 ||
		sv_fail "vA.15 in sv-ns2 did not receive the datagrams"
	sv_sleep 0.5
	rx_seen c1
	bad=
	if [ "$c1" = "$c0" ]; then
		echo "RoCEv2 received on a VLAN of vA in another namespace: not sv_n0's"
	else
		bad+="RoCEv2 on vA.15 in sv-ns2 reached sv_n0 in sv-ns1 (rx counters $c0 -> $c1); "
	fi
	# the loopback queue: sv_n1 sends to an address of sv-ns2 on vA.15.
	# ib_core resolves an AH's route out of the source GID's netdev (vC),
	# where no route leads to another netdev's local address: it takes
	# the destination as on-link there, so a neighbour entry on vC lets
	# the AH be made (a MAC nobody has: on the wire, vD drops it)
	ip -n sv-ns2 neigh replace 10.115.0.1 lladdr 02:00:00:00:15:01 dev vC nud permanent
	g=0000:0000:0000:0000:0000:ffff:0a10:0001
	sv_wait_for "sv_gid_present sv_n1 $g" 10 || sv_fail "no GID 10.16.0.1 on sv_n1"
	gi=$(sv_gid_index sv_n1 $g) || sv_fail "no RoCE v2 GID 10.16.0.1 on sv_n1"
	ip netns exec sv-ns2 /usr/bin/python3 "$(dirname "$0")/lib/ud_send.py" sv_n1 "$gi" \
		0000:0000:0000:0000:0000:ffff:0a73:0001 || sv_fail "ud_send.py sv_n1"
	sv_sleep 0.5
	rx_seen c2
	if [ "$c2" = "$c1" ]; then
		echo "a local send to a VLAN of vA in another namespace: not sv_n0's"
	else
		bad+="sv_n1's send to vA.15 in sv-ns2 reached sv_n0 in sv-ns1 (rx counters $c1 -> $c2)"
	fi
	[ -z "$bad" ] || sv_fail "$bad"
else
	echo "no VLAN (8021q) on $(uname -r): VLAN in another namespace skipped"
fi

# namespace deletion removes the devices in it (and closes their socket)
ip netns del sv-ns2
sv_wait_for '[ ! -e /sys/class/infiniband/sv_n1 ]' 10 || sv_fail "sv_n1 outlived its namespace"
ip netns del sv-ns1
sv_wait_for '[ ! -e /sys/class/infiniband/sv_n0 ]' 10 || sv_fail "sv_n0 outlived its namespace"
[ -e /sys/class/infiniband/sv_n2 ] || sv_fail "sv_n2 in init_net went away too"
# namespaces are gone: their cleanups must not fail
ip netns add sv-ns1 && ip netns add sv-ns2
echo "devices follow their namespaces"
