#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=L
# Multicast UD data: rdma_cm multicast joins and UD SENDs to the group's
# GID, received by the QPs attached to it.
#
#   netns sv-60a                              netns sv-60b
#   sv60a (softverbs) on x60a 10.160.0.1  ==== x60b 10.160.0.2 sv60b (softverbs)
#
# then softverbs and Soft-RoCE sending to each other (softverbs in netns
# sv-6061a, rxe in init_net).  The receiver is mckey (rdmacm-utils): it joins
# the group through rdma_cm, which attaches its UD QP (ibv_attach_mcast);
# softverbs then joins the IP group on the netdev (IGMP/MLD and the MAC
# filter), without which the IP layer would drop the packets before the
# UDP 4791 socket sees them.  It waits for every message (-C), so a message
# that is not delivered to the attached QP fails the case by timeout.  The
# sender's messages leave after its join; the sender is told to start only
# once the receiver has joined.
#
# The sender is 60-mcast-data.py (pyverbs, rdma_cm), not "mckey -s": mckey
# posts its messages unsignalled and at once leaves, destroys its AH and
# QP, so whatever the device has not transmitted by then is lost.  6.12's
# Soft-RoCE transmits a user QP's sends from a work item (rxe_post_send
# only schedules it; 6.1 ran it inside the system call), which then finds
# the AH destroyed ("rxe_get_av: Unable to find AH matching ah_num"),
# fails the WQE and moves the QP to the error state: in the VM one of ten
# messages reached the wire, and softverbs received that one (rx_packets
# 1, no drops).  (softverbs' destroy_ah and destroy_qp send what was rung
# in first, also when a work item on a busy CPU was to send it: 25-ah
# "late"; 33-ulib-stock runs "mckey -s" between softverbs devices.)  The
# cases here include Soft-RoCE senders, so the helper waits for each
# send completion before it tears down, as a verbs consumer must; it
# otherwise sends what mckey does (the join's AH, QPN 0xFFFFFF, Q_Key
# 0x01234567, 10 x 256 bytes), but SENDs without immediate data.
#
# Not covered: IPv6 groups, which rdma_cm refuses on RoCE v2 (6.1's
# cma_iboe_join_multicast: -ENOTSUPP before any driver is asked).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma mckey stdbuf
mc_helper=$(dirname "$0")/60-mcast-data.py
# located, not imported: importing pyverbs takes 5-20 s under the debug kernel
/usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.cmid"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"
modinfo rdma_ucm >/dev/null 2>&1 || sv_skip "no rdma_ucm module"
modprobe rdma_ucm

# mc_pair RECV SEND GROUP BIND_RECV BIND_SEND: mckey receiving on side RECV
# bound to BIND_RECV, then 60-mcast-data.py sending on side SEND; the
# receiver must get all of its -C messages.  The sender starts together with
# mckey (a coprocess: its python and pyverbs start takes seconds under the
# debug kernel) and is told "go" once mckey has joined: librdmacm attaches
# the QP (ibv_attach_mcast) before it returns the join event that mckey
# prints as "joined dgid", and mckey posted its receives before joining.
# mckey then pauses 3 s before it polls; the messages wait in its receive
# queue meanwhile.
mc_pair() {
	local recv=$1 send=$2 group=$3 brecv=$4 bsend=$5 ro so rr=0 rs=0 pid spid gofd w t s dv
	ro=$(mktemp) so=$(mktemp)
	t=$(_xp_run_timeout)
	xp_exec "$recv" timeout -k 5 "$t" stdbuf -oL mckey -m "$group" -b "$brecv" -C 10 -S 256 >"$ro" 2>&1 &
	pid=$!
	coproc MC_SEND { xp_exec "$send" timeout -k 5 "$t" /usr/bin/python3 "$mc_helper" \
		--go "$bsend" "$group" 10 256 >"$so" 2>&1; }
	# bash closes a coprocess's descriptors in subshells: a copy of the
	# write end for the "go" below
	spid=$MC_SEND_PID w=${MC_SEND[1]}
	exec {gofd}>&"$w" {w}>&-
	# mckey prints this once its QP is attached to the group
	sv_wait_for "sv_file_has '$ro' 'joined dgid'" 30 || rr=1
	if [ $rr -eq 0 ]; then
		# in a subshell that ignores SIGPIPE: a sender that already died
		# must fail the case, not kill the test
		(trap '' PIPE; echo go >&"$gofd") 2>/dev/null || true
		exec {gofd}>&-
		wait "$spid" || rs=$?
		wait "$pid" || rr=$?
	else
		# no go: the sender exits at the end of its input
		exec {gofd}>&-
		wait "$spid" 2>/dev/null || true
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	echo "--- $group: receiver $recv ($brecv) rc $rr, sender $send ($bsend) rc $rs"
	if [ $rr -ne 0 ] || [ $rs -ne 0 ] || ! grep -q 'data transfers complete' "$ro"; then
		sed 's/^/  recv| /' "$ro" | tail -n 20
		sed 's/^/  send| /' "$so" | tail -n 20
		for s in "$recv" "$send"; do
			dv=XP_${s}_DEV
			xp_exec "$s" rdma statistic show link "${!dv}/1" 2>&1 | sed 's/^/  stats| /'
		done
		dmesg | tail -n 15 | sed 's/^/  dmesg| /'
		rm -f "$ro" "$so"
		return 1
	fi
	grep -E 'joined dgid' "$ro" | sed 's/^/  recv| /'
	grep -E 'completed$' "$so" | sed 's/^/  send| /'
	rm -f "$ro" "$so"
}

# a multicast route: the /24 subnet route does not cover the groups
mc_routes() {
	local s ifv
	for s in A B; do
		ifv=XP_${s}_IF
		xp_exec "$s" ip route add 224.0.0.0/4 dev "${!ifv}" 2>/dev/null || true
	done
}

sv_xport_setup 60 softverbs softverbs
mc_routes
xp_case "IPv4 B<-A" mc_pair B A 239.1.60.1 "$XP_B_IP4" "$XP_A_IP4"
xp_case "IPv4 A<-B" mc_pair A B 239.1.60.2 "$XP_A_IP4" "$XP_B_IP4"

if [ "${SV_XPORT_DUT:-}" != rxe ] && modinfo rdma_rxe >/dev/null 2>&1; then
	sv_xport_setup 6061 softverbs rxe
	mc_routes
	xp_case "IPv4 softverbs<-rxe" mc_pair A B 239.1.61.1 "$XP_A_IP4" "$XP_B_IP4"
	xp_case "IPv4 rxe<-softverbs" mc_pair B A 239.1.61.2 "$XP_B_IP4" "$XP_A_IP4"
fi
xp_summary
