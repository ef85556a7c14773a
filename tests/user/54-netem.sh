#!/bin/bash
# sv-test: kernels=debug,first quick cost=L
# softverbs <-> softverbs through a lossy, duplicating, reordering veth.
#
#   netns sv-54a                              netns sv-54b
#   sv54a (softverbs) on x54a 10.154.0.1  ==== x54b 10.154.0.2 <- sv54b (softverbs)
#           tc qdisc netem on x54a and x54b (each end's egress)
#
# Phases (the Python cases are in 53-verbs-matrix.py):
#   loss 3 % both ways           RC bulk: 4 MiB by RDMA WRITE, SEND, READ back,
#                                every byte checked; ib_send_bw -n 200
#   duplicate 5 %, delay 2 ms    RC bulk again (duplicate requests, ACKs and
#   with 25 % reordered          read responses; PSN sequence NAKs)
#   loss 10 % both ways          UD: about that share of 100 datagrams lost;
#                                UC: 3-packet messages dropped whole, the rest
#                                intact and in order, all arrive once the loss
#                                stops
#   loss 100 % on x54a           RC: IBV_WC_RETRY_EXC_ERR (timeout 10, retry 2)
# SV_XPORT_DUT=rxe: one Soft-RoCE device talking to itself never crosses the
# veth, so netem has no effect there; the cases then only check the data.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma tc ib_send_bw
py=/usr/bin/python3
helper=$(dirname "$0")/53-verbs-matrix.py
# located, not imported: importing pyverbs takes 5-20 s under the debug kernel
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"
modprobe sch_netem 2>/dev/null || sv_skip "no sch_netem module"
XP_PORT=24000
sv_xport_setup 54 softverbs softverbs

export XP_LOSSY=1
# SV_QUICK (the debug kernel): 1 MiB per bulk phase instead of 4, and 50
# instead of 200 ib_send_bw iterations.  With the veth's 1024-byte path MTU
# and 3 % loss each way a bulk phase (WRITE, SEND, READ) still loses about
# 30 of its 1024 packets plus their ACKs, and ib_send_bw about 100 of 3200,
# so every retransmission path runs; stock kernels move the full volumes.
bw_n=200
if [ -n "$SV_QUICK" ]; then
	export XP_BULK_MIB=${XP_BULK_MIB:-1}
	bw_n=50
fi
[ "$XP_A_DEV" != "$XP_B_DEV" ] || XP_LOSSY=0

# sv_xport_setup made permanent neighbour entries both ways: under 3 % loss
# each way about one run in twenty lost the ARP exchange itself, and under
# 100 % loss an entry could go FAILED before retry_blackhole's QP is set up.

# netem SIDES ARGS...: set (or with "off", remove) netem on the veth end of
# each side in SIDES ("A", "B" or "AB").  tc enters the namespace itself
# (-n) and the sides are split by the shell: one exec per side and call.
netem() {
	local sides=$1 i ifv nsv
	shift
	for ((i = 0; i < ${#sides}; i++)); do
		ifv=XP_${sides:i:1}_IF nsv=XP_${sides:i:1}_NS
		if [ "$1" = off ]; then
			tc ${!nsv:+-n "${!nsv}"} qdisc del dev "${!ifv}" root 2>/dev/null || true
		else
			tc ${!nsv:+-n "${!nsv}"} qdisc replace dev "${!ifv}" root netem "$@"
		fi
	done
	echo "netem $sides: ${*}"
}
sv_on_exit 'netem AB off >/dev/null'

rc=0
matrix() {
	timeout -k 5 600 $py "$helper" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" "$1" && return 0
	echo "--- kernel log"
	dmesg | tail -n 30
	rc=1
}
# stats: A's netem counters (the lines naming netem, Sent or dropped; read
# by the shell, one exec)
stats() {
	local l
	while IFS= read -r l; do
		[[ $l =~ netem|Sent|dropped ]] && echo "  A: $l"
	done < <(tc ${XP_A_NS:+-n "$XP_A_NS"} -s qdisc show dev "$XP_A_IF")
	return 0
}

netem AB loss 3%
matrix '^bulk$'
xp_pair 4 B A ib_send_bw -F -n $bw_n -s 65536 || rc=1
stats

# SV_QUICK (the debug kernel): RC under loss and into a black hole only
if [ -z "$SV_QUICK" ]; then
	netem AB duplicate 5% delay 2ms reorder 75% 50%
	matrix '^bulk$'
	stats

	netem AB off
	netem AB loss 10%
	off=
	[ -z "$XP_A_NS" ] || off="ip netns exec $XP_A_NS tc qdisc del dev $XP_A_IF root; ip netns exec $XP_B_NS tc qdisc del dev $XP_B_IF root"
	# one way: uc_loss lifts the loss at its end (XP_NETEM_OFF)
	XP_ONE_WAY=1 XP_LOSS_PCT=10 XP_NETEM_OFF=$off matrix '^(ud_loss|uc_loss)$'
fi

netem A loss 100%
matrix '^retry_blackhole$'
netem AB off
[ $rc -eq 0 ] || sv_fail "failures under netem (see above)"
