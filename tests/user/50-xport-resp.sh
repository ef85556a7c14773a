#!/bin/bash
# sv-test: kernels=debug,first needs=rxe quick cost=M
# The responder (kmod/sv_resp.c) against Soft-RoCE as the requester.
#
#   netns sv-50a                              init_net
#   sv50a (softverbs) on x50a 10.150.0.1  ==== x50b 10.150.0.2 <- rxe50b (rdma_rxe)
#
# softverbs is always the perftest server, so what is exercised on its side is
# mostly the responder: RDMA WRITE of 8 bytes .. 1 MiB (First/Middle/Last
# segmentation, ACK coalescing), RDMA READ of 8 bytes .. 4 MiB (responses
# segmented by the MTU; long reads continue from the work item, several
# outstanding reads queue in the responder resources), both atomics, and
# SENDs of 64 KiB (multi-packet receives).  Then the same with 2% loss in
# each direction on the veth (netem): PSN sequence NAKs, duplicate requests
# re-ACKed, duplicate reads re-served; the transfers must still complete.
# XP_RESP_QUICK=1 runs a subset, for the debug kernel (no atomics there:
# at its speed perftest rounds their bandwidth to the 0.00 xp_pair rejects).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma tc ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
XP_PORT=25000
sv_xport_setup 50 softverbs rxe

xp_resp_suite() {
	local t=$1
	xp_case "$t write 8B" xp_pair 4 A B ib_write_bw -F -n 1000 -s 8
	xp_case "$t write 4K" xp_pair 4 A B ib_write_bw -F -n 200 -s 4096
	xp_case "$t write 1M" xp_pair 4 A B ib_write_bw -F -n 20 -s 1048576
	xp_case "$t read 8B" xp_pair 4 A B ib_read_bw -F -n 1000 -s 8
	xp_case "$t read 64K" xp_pair 4 A B ib_read_bw -F -n 100 -s 65536
	xp_case "$t read 4M" xp_pair 4 A B ib_read_bw -F -n 10 -s 4194304
	xp_case "$t atomic fadd" xp_pair 4 A B ib_atomic_bw -F -n 200 -A FETCH_AND_ADD
	xp_case "$t atomic cas" xp_pair 4 A B ib_atomic_bw -F -n 200 -A CMP_AND_SWAP
	xp_case "$t send 64K" xp_pair 4 A B ib_send_bw -F -n 100 -s 65536
}

if [ -n "${XP_RESP_QUICK-$SV_QUICK}" ]; then
	xp_case "quick write 64K" xp_pair 4 A B ib_write_bw -F -n 20 -s 65536
	xp_case "quick read 256K" xp_pair 4 A B ib_read_bw -F -n 10 -s 262144
	xp_case "quick send 16K" xp_pair 4 A B ib_send_bw -F -n 20 -s 16384
	xp_summary
	exit 0
fi
xp_resp_suite clean

# loss both ways: requests (rxe -> softverbs) and responses/ACKs
tc qdisc add dev "$XP_B_IF" root netem loss 2%
xp_exec A tc qdisc add dev "$XP_A_IF" root netem loss 2%
sv_on_exit "tc qdisc del dev $XP_B_IF root 2>/dev/null"
XP_RUN_TIMEOUT=120
xp_case "lossy write 64K" xp_pair 4 A B ib_write_bw -F -n 100 -s 65536
xp_case "lossy read 256K" xp_pair 4 A B ib_read_bw -F -n 50 -s 262144
xp_case "lossy atomic" xp_pair 4 A B ib_atomic_bw -F -n 200 -A FETCH_AND_ADD
xp_case "lossy send 16K" xp_pair 4 A B ib_send_bw -F -n 100 -s 16384
echo "softverbs counters after the lossy runs:"
xp_exec A rdma statistic show link "$XP_A_DEV/1" 2>&1 | tr ' ' '\n' | paste -sd' ' | fold -w 160 | sed 's/^/  /'
xp_summary
