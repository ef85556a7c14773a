#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Forged packets against a connected QP: only the QP's peer may talk to it.
#
#   netns sv-66a  sv66a (softverbs) on x66a fda6::1 ==== x66b fda6::2, fda6::3  sv66b (softverbs)  netns sv-66b
#
# An RC QP on sv66a is connected to one on sv66b over the IPv6 GIDs.  From
# sv-66b a plain UDP socket sends RDMA WRITE Only requests that know all a
# local user can learn (the QPN, the PSN "rdma resource show qp" prints,
# the R_Key) with a valid ICRC: from fda6::2, the peer's address, the write
# lands (a check of the forger itself); from fda6::3, another address of
# that host, it is dropped and counted as rx_drop_not_peer (sv_recv.c).
# Then a 9000-byte datagram is refused as invalid before it is CRCed.  Last,
# two RC QPs of sv66a connected to each other: a write from a plain socket
# in sv-66a bound to sv66a's own address (the local peer's) comes in over lo
# and is dropped, counted as rx_drop_loopback (sv_net.c: softverbs' own
# local packets never take lo).  And a QP with max_dest_rd_atomic 128
# gets 128 READs from its peer's address (the first of 1 MiB), a duplicate
# of the first and at once one READ more: every resource is taken, so that
# READ is NAKed as an invalid request (tx_nak_inv_req), never a WARN (a
# remote WARN is a remote crash where panic_on_warn is set).  If the
# duplicate's responses all went out before that READ came, its resource
# was free and taking the READ was right: the scenario runs again on new
# QPs, up to three times, and fails if the READ is never NAKed.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/66-forged.py
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"
[ -e /proc/net/if_inet6 ] || sv_skip "IPv6 is disabled"

sv_xport_setup 66 softverbs softverbs
other=${XP_B_IP6%::*}::3
ip -n "$XP_B_NS" addr add "$other/64" dev "$XP_B_IF" nodad
timeout -k 5 "$(sv_t 120)" $py "$helper" run "$XP_A_DEV" "$XP_A_GID6" \
	"$XP_B_DEV" "$XP_B_GID6" "$XP_B_NS" "$XP_B_IP6" "$other" "$XP_A_NS" ||
	sv_fail "66-forged.py failed"
