#!/bin/bash
# The guest half of "make demo" (runs inside the VM, as root).
#
#   init_net                               netns demo
#   +--------------------------+           +---------------------------+
#   | rxe0 (Soft-RoCE)         |           | sv0 (softverbs)           |
#   |   on vA 10.77.0.1/24 ========= veth ======= vB 10.77.0.2/24     |
#   +--------------------------+           +---------------------------+
set -euo pipefail
. tests/user/lib.sh

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "load softverbs"
sv_load_module
run modinfo -F version "$SV_MODULE"

step "a veth pair: vA in init_net, vB in namespace 'demo'"
sv_netns_add demo
sv_veth_pair vA vB demo
ip addr add 10.77.0.1/24 dev vA
ip -n demo addr add 10.77.0.2/24 dev vB

step "create a softverbs device inside the namespace"
run ip netns exec demo rdma link add sv0 type softverbs netdev vB
sv_on_exit 'ip netns exec demo rdma link delete sv0 2>/dev/null'
sv_wait_for '[[ "$(ip netns exec demo rdma link show sv0/1)" == *ACTIVE* ]]' 10
run ip netns exec demo rdma link show
if modinfo rdma_rxe >/dev/null 2>&1; then
	step "and a Soft-RoCE device in init_net, its future peer"
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	run rdma link add rxe0 type rxe netdev vA
	sv_on_exit 'rdma link delete rxe0 2>/dev/null'
fi

step "distro rdma-core sees both (its Soft-RoCE provider drives softverbs)"
run ibv_devices
run ibv_devinfo -d sv0

step "libsoftverbs (no rdma-core) sees only softverbs devices"
run ulib/examples/devinfo -l
run ulib/examples/devinfo -d sv0 | grep -E '^(hca_id|node_guid|fw_ver|state|active_mtu|link_layer|GID)'

step "the port follows the link: take vA down and up, watch the async events"
ulib/examples/asyncwatch sv0 4 &
sleep 1
run ip link set vA down
sleep 1
run ip link set vA up
wait
run ibv_devinfo -d sv0 | grep -E 'state'

step "the RoCE GID table follows the addresses"
run ip -n demo addr add 10.77.0.9/24 dev vB
sleep 1
run ip netns exec demo bash -c 'ibv_devinfo -v -d sv0 | grep GID'

step "remove everything"
run ip netns exec demo rdma link delete sv0
sv_unload_module
echo
echo "demo done: softverbs devices created, seen by rdma-core and libsoftverbs, removed."
echo "(data transfers arrive with the RoCEv2 transport engine)"
