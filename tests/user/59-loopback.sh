#!/bin/bash
# sv-test: kernels=debug,stock quick cost=M
# softverbs talking to itself: every packet is local and takes sv_net.c's
# in-driver loopback (no IP stack, no ICRC, delivery by the per-CPU
# tasklet), the path `make bench` measures.
#
#   netns sv-59a                              netns sv-59b
#   sv59a (softverbs) on x59a 10.159.0.1  ==== x59b (carrier only)
#                           fd9f::1
#   server and client of each case on sv59a
#
# The same cases as 52-sv2sv: the full list over IPv4 (pingpongs with data
# checks, SRQ, completion events, perftest bandwidth, atomics), the subset
# over IPv6.  A QP's requester, responder and completer all run on one
# device here, so a request, its ACK and the next request follow each
# other on one CPU's queue.  SV_XPORT_DUT=rxe runs them on Soft-RoCE.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong \
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
XP_PORT=23000
sv_xport_setup 59 softverbs self

xp_tools_suite 4 A B
if [ -z "$SV_QUICK" ]; then
	xp_tools_suite 6 B A quick
else
	# SV_QUICK (the debug kernel): over IPv6 the data-checked pingpong
	# alone; its SENDs and ACKs cross IPv6 in both directions, and the
	# READ ran over IPv4 above
	xp_case "IPv6 B<-A rc_pingpong" xp_pair 6 B A ibv_rc_pingpong -n 20 -s 4096 -c
fi
xp_summary
