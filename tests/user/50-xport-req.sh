#!/bin/bash
# sv-test: kernels=debug,first needs=rxe quick cost=L
# The requester and completer (kmod/sv_req.c, sv_comp.c) against Soft-RoCE as
# the responder.
#
#   netns sv-49a                              init_net
#   sv49a (softverbs) on x49a 10.149.0.1  ==== x49b 10.149.0.2 <- rxe49b (rdma_rxe)
#                           fd95::1                  fd95::2
#
# softverbs is always the perftest client, so what is exercised on its side is
# the requester (segmentation by the MTU, PSNs, AckReq, max_rd_atomic, the
# READ resume) and the completer (coalesced ACKs, READ responses placed into
# the SGEs, atomic ACKs, in-order completions): RDMA WRITE, RDMA READ, SEND
# of 1 byte .. 1 MiB, both atomics, over IPv4 and IPv6.  Then the same with
# 2% loss in each direction on the veth (netem): sequence NAKs, implied NAKs,
# local ACK timeouts and resends; the transfers must still complete, and the
# retransmission counters must have moved.  XP_REQ_QUICK=1 (the debug
# kernel): IPv4 write/read/atomic/send once each, and one lossy write.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma tc ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
XP_PORT=24000
XP_RUN_TIMEOUT=${XP_RUN_TIMEOUT:-90}
sv_xport_setup 49 softverbs rxe

xp_req_suite() {
	local t=$1 f=$2
	xp_case "$t v$f write 3B" xp_pair "$f" B A ib_write_bw -F -n 500 -s 3
	xp_case "$t v$f write 5000B" xp_pair "$f" B A ib_write_bw -F -n 200 -s 5000
	xp_case "$t v$f write 1M" xp_pair "$f" B A ib_write_bw -F -n 20 -s 1048576
	xp_case "$t v$f read 3B" xp_pair "$f" B A ib_read_bw -F -n 500 -s 3
	xp_case "$t v$f read 64K" xp_pair "$f" B A ib_read_bw -F -n 100 -s 65536
	xp_case "$t v$f read 1M" xp_pair "$f" B A ib_read_bw -F -n 20 -s 1048576
	xp_case "$t v$f atomic fadd" xp_pair "$f" B A ib_atomic_bw -F -n 200 -A FETCH_AND_ADD
	xp_case "$t v$f atomic cas" xp_pair "$f" B A ib_atomic_bw -F -n 200 -A CMP_AND_SWAP
	xp_case "$t v$f send 64K" xp_pair "$f" B A ib_send_bw -F -n 100 -s 65536
}

if [ -n "${XP_REQ_QUICK-$SV_QUICK}" ]; then
	XP_RUN_TIMEOUT=300
	xp_case "quick write 5000B" xp_pair 4 B A ib_write_bw -F -n 50 -s 5000
	xp_case "quick read 64K" xp_pair 4 B A ib_read_bw -F -n 20 -s 65536
	xp_case "quick atomic" xp_pair 4 B A ib_atomic_bw -F -n 50
	xp_case "quick send 8K" xp_pair 4 B A ib_send_bw -F -n 50 -s 8192
	xp_exec A tc qdisc add dev "$XP_A_IF" root netem loss 2%
	xp_case "quick loss write 64K" xp_pair 4 B A ib_write_bw -F -n 20 -s 65536
	xp_summary
	exit 0
fi
xp_req_suite clean 4
xp_req_suite clean 6

# loss both ways: requests (softverbs -> rxe) and responses/ACKs
xp_exec A tc qdisc add dev "$XP_A_IF" root netem loss 2%
tc qdisc add dev "$XP_B_IF" root netem loss 2%
sv_on_exit "tc qdisc del dev $XP_B_IF root 2>/dev/null"
XP_RUN_TIMEOUT=180
xp_case "loss write 64K" xp_pair 4 B A ib_write_bw -F -n 100 -s 65536
xp_case "loss read 64K" xp_pair 4 B A ib_read_bw -F -n 100 -s 65536
xp_case "loss send 64K" xp_pair 4 B A ib_send_bw -F -n 100 -s 65536
xp_case "loss atomic" xp_pair 4 B A ib_atomic_bw -F -n 200

xp_exec A rdma statistic show link "$XP_A_DEV/1" 2>/dev/null | tr ' ' '\n' |
	grep -A1 -E '^(retrans_pkts|retry_timeouts|rx_nak_seq|tx_drops|rx_drop_icrc)$' | paste - - |
	sed 's/^/counter: /'
xp_summary
