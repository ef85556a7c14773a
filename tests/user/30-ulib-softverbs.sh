#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# libsoftverbs' object test (ulib/examples/loopback) against softverbs.
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#
# The same program 30-ulib-objects.sh runs against Soft-RoCE, plus its
# threaded phase (-t: two threads posting to one SQ while a third polls),
# which Soft-RoCE fails (it loses completions; librxe too): every object,
# RC ping-pong with data checks, UD send and reply through
# ibv_create_ah_from_wc, all through libsoftverbs' mapped rings.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
loopback=$SV_TOOLS/ulib/examples/loopback
[ -x "$loopback" ] || sv_fail "$loopback is not built (make -C ulib)"
# rdma_rxe owns UDP 4791 in init_net
[ ! -d /sys/module/rdma_rxe ] || sv_skip "rdma_rxe is loaded"

sv_load_module
sv_on_exit sv_unload_module
ulimit -l unlimited
sv_veth_pair vA vB
ip addr add 10.31.0.1/24 dev vA
rdma link add sv_u0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_u0 2>/dev/null'
sv_wait_for '[[ "$(rdma link show sv_u0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "sv_u0 port not ACTIVE"
sv_wait_for 'sv_gid_present sv_u0 0000:0000:0000:0000:0000:ffff:0a1f:0001' 10 ||
	sv_fail "no IPv4 GID on sv_u0"

rc=0
out=$("$loopback" -v -d sv_u0 -n 200 -t 3 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || sv_fail "loopback against sv_u0 exited $rc"
echo "libsoftverbs drove sv_u0 end to end"
