#!/bin/bash
# sv-test: kernels=first,stock needs=rxe cost=S
# Sanity check of the test environment and of the interop peer, Soft-RoCE.
#
#   init_net                              netns sv-sanity
#   +----------------------------+        +------------------+
#   | rxe_t0 (rdma_rxe)          |        |                  |
#   |   on vA 10.99.0.1/24 ======== veth ====== vB 10.99.0.2/24 |
#   +----------------------------+        +------------------+
#
# Proves what every other test relies on: the RDMA core loads, namespaces and
# veth work, rdma_rxe attaches to a veth end and brings its port up, and the
# rdma-core userspace (ibv_devices, ibv_devinfo, the rxe provider) sees the
# device. Then tears it all down and unloads rdma_rxe, which must succeed.
# vB sits in its own namespace because a veth only has carrier while its
# peer is up, and the rxe port is ACTIVE only with carrier.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_devices ibv_devinfo
modinfo rdma_rxe >/dev/null 2>&1 || sv_skip "no rdma_rxe module for $SV_KVER"
# rdma_rxe owns UDP 4791 in init_net; if something else already loaded it we
# would tear down someone else's devices at the end.
[ ! -d /sys/module/rdma_rxe ] || sv_skip "rdma_rxe is already loaded"

modprobe ib_core
modprobe ib_uverbs
modprobe rdma_rxe
sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'

sv_netns_add sv-sanity
sv_veth_pair vA vB sv-sanity
ip addr add 10.99.0.1/24 dev vA
ip -n sv-sanity addr add 10.99.0.2/24 dev vB
# No ping here (iputils is not a dependency): carrier on vA proves the pair is wired.
sv_wait_for '[ "$(cat /sys/class/net/vA/carrier)" = 1 ]' 10 || sv_fail "vA has no carrier"

rdma link add rxe_t0 type rxe netdev vA
sv_on_exit 'rdma link delete rxe_t0 2>/dev/null'

# Command output goes into variables, not into "| grep -q": grep -q quits at
# the first match, and with pipefail the writer's SIGPIPE would fail the check.
devs=$(ibv_devices)
echo "$devs"
grep -qw rxe_t0 <<<"$devs" || sv_fail "ibv_devices does not list rxe_t0"
sv_wait_for '[[ $(ibv_devinfo -d rxe_t0) == *PORT_ACTIVE* ]]' 10 ||
	sv_fail "rxe_t0 port not active: $(ibv_devinfo -d rxe_t0 2>&1)"
info=$(ibv_devinfo -d rxe_t0)
echo "$info"
grep -q 'state:[[:space:]]*PORT_ACTIVE' <<<"$info" || sv_fail "rxe_t0 port is not PORT_ACTIVE"
grep -q 'link_layer:[[:space:]]*Ethernet' <<<"$info" || sv_fail "rxe_t0 link layer is not Ethernet"

# Teardown is part of the test: both steps must work, not just be attempted.
rdma link delete rxe_t0
devs=$(ibv_devices)
! grep -qw rxe_t0 <<<"$devs" || sv_fail "rxe_t0 still listed after rdma link delete"
modprobe -r rdma_rxe
[ ! -d /sys/module/rdma_rxe ] || sv_fail "rdma_rxe still loaded after modprobe -r"
echo "rdma_rxe: device created, port active, removed"
