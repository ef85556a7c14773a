#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# libsoftverbs' thread safety as libibverbs documents it, against softverbs
# (ulib/examples/threads): several threads post to one RC QP at once, half
# with ibv_post_send and half with ibv_wr_start..ibv_wr_complete batches,
# while several threads poll its one send CQ, half with ibv_poll_cq and
# half with start_poll/next_poll/end_poll.  Every RDMA WRITE must complete
# exactly once, successfully, and land.  Two runs: 4 posters/3 pollers and
# 8 posters/2 pollers.
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
threads=$SV_TOOLS/ulib/examples/threads
[ -x "$threads" ] || sv_fail "$threads is not built (make -C ulib)"
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

for args in "-p 4 -c 3 -n 250" "-p 8 -c 2 -n 100"; do
	echo "=== threads $args"
	rc=0
	# shellcheck disable=SC2086 # word splitting of args is intended
	out=$("$threads" -d sv_u0 $args 2>&1) || rc=$?
	echo "$out"
	[ $rc -eq 0 ] || sv_fail "threads $args exited $rc"
	echo "SV_SUMMARY: $(echo "$out" | tail -n 1)"
done
echo "one QP, many posting and polling threads: every WR completed once"
