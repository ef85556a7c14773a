#!/bin/bash
# sv-test: kernels=all needs=rxe quick cost=M
# softverbs <-> Soft-RoCE with the distro tools, both directions, IPv4 and IPv6.
#
#   netns sv-51a                              init_net
#   sv51a (softverbs) on x51a 10.151.0.1  ==== x51b 10.151.0.2 <- rxe51b (rdma_rxe)
#                           fd97::1                  fd97::2
#
# IPv4 (the RoCE v2 GID index of the address, from sysfs gid_attrs/types),
# softverbs as server: ibv_rc/uc/ud/srq_pingpong with -c (the receiver checks
# the data), rc with completion events and multi-packet messages, then
# perftest ib_send_bw, ib_write_bw, ib_read_bw and ib_atomic_bw (100
# iterations; they must finish and print their result row).  Softverbs
# as client over IPv4, and softverbs as server over IPv6: rc and ud
# pingpong, ib_write_bw and ib_read_bw (the full list both ways and over
# both families took ~7.5 min under TCG).  Every case runs under
# timeout(1); after XP_MAX_FAIL failures the rest is reported as not run.
# The summary lists every case.  SV_XPORT_DUT=rxe runs the same cases on
# Soft-RoCE alone.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong \
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
XP_PORT=21000
sv_xport_setup 51 softverbs rxe

xp_tools_suite 4 A B		# softverbs serves, Soft-RoCE is the client
if [ -z "$SV_QUICK" ]; then
	xp_tools_suite 4 B A quick	# and the other way round
	xp_tools_suite 6 A B quick
else
	# SV_QUICK (the debug kernel): ibv_rc_pingpong is symmetric (both
	# sides send and receive, the server only waits for the first
	# message), so the other way round needs just the READ, softverbs
	# the requester; over IPv6 the data-checked pingpong alone, whose
	# SENDs and ACKs cross IPv6 in both directions
	xp_case "IPv4 B<-A ib_read_bw" xp_pair 4 B A ib_read_bw -F -n 20 -s 65536
	xp_case "IPv6 A<-B rc_pingpong" xp_pair 6 A B ibv_rc_pingpong -n 20 -s 4096 -c
fi
xp_summary
