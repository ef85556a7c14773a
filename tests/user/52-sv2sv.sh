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
# ib_read_bw) over IPv6 from B to A.  Then, for IPv4 and IPv6, an RC QP
# whose route changes after its first WRITE takes the new route (softverbs
# keeps a connected QP's route).  SV_XPORT_DUT=rxe runs the tools on
# Soft-RoCE (one device talking to itself).
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

# route_case FAM: an RC QP A->B follows a routing change in A's namespace
# (53-verbs-matrix.py route_change): softverbs keeps the output route of a
# connected QP's path, which must go stale when the routes change.  The
# cut sends B's address through a gateway on the link that nobody answers.
route_case() {
	local gw dst gid cmd
	if [ "$1" = 4 ]; then
		gw=10.152.0.9 dst=$XP_B_IP4/32 gid=GID4 cmd="ip -n $XP_A_NS route"
	else
		gw=fd98::9 dst=$XP_B_IP6/128 gid=GID6 cmd="ip -n $XP_A_NS -6 route"
	fi
	local ga=XP_A_$gid gb=XP_B_$gid
	XP_ONE_WAY=1 XP_ROUTE_CUT="$cmd add $dst via $gw dev $XP_A_IF onlink" \
		XP_ROUTE_MEND="$cmd del $dst" timeout -k 5 300 /usr/bin/python3 \
		"$(dirname "$0")/53-verbs-matrix.py" "$XP_A_DEV" "${!ga}" \
		"$XP_B_DEV" "${!gb}" '^route_change$'
}
if [ "${SV_XPORT_DUT:-}" != rxe ]; then
	xp_case "IPv4 RC QP follows a route change" route_case 4
	xp_case "IPv6 RC QP follows a route change" route_case 6
fi
xp_summary
