#!/bin/bash
# sv-test: kernels=debug,stock,cloud quick cost=M
# softverbs <-> softverbs across two namespaces, with the distro tools.
#
#   netns sv-52a                              netns sv-52b
#   sv52a (softverbs) on x52a 10.152.0.1  ==== x52b 10.152.0.2 <- sv52b (softverbs)
#                           fd98::1                  fd98::2
#
# Two devices, each with its own RoCEv2 UDP socket in its namespace.  The
# same cases as 51-interop (pingpongs with data checks, perftest bandwidth)
# over IPv4 from A to B, and a subset (rc/ud pingpong, ib_write_bw,
# ib_read_bw) over IPv6 from B to A.  SV_XPORT_DUT=rxe runs them on Soft-RoCE
# (one device talking to itself).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong \
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
XP_PORT=22000
sv_xport_setup 52 softverbs softverbs

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
