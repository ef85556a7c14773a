#!/bin/bash
# sv-test: kernels=debug,first needs=rxe quick cost=L
# Every opcode x QP type with data and completion checks (53-verbs-matrix.py),
# softverbs <-> softverbs and softverbs <-> Soft-RoCE, both directions.
#
#   netns sv-53a  sv53a (softverbs) on x53a 10.153.0.1 ==== x53b 10.153.0.2 sv53b (softverbs)  netns sv-53b
#   netns sv-5390a sv5390a (softverbs) on x5390a 10.190.0.1 ==== x5390b 10.190.0.2 rxe5390b (rdma_rxe)  init_net
#
# The Python helper opens both devices of a pair in one process and runs its
# cases (see its docstring: RC SEND/SEND_WITH_IMM/SEND_WITH_INV/WRITE/
# WRITE_WITH_IMM/READ/CMP_SWP/FETCH_ADD, inline, multi-SGE, multi-MTU,
# zero-length, unsignaled, solicited events, remote access error + flush,
# RNR and retry exhaustion; UC SEND/WRITE (+imm); UD SEND (+imm) with GRH,
# wrong Q_Key dropped) over the IPv4 RoCE v2 GIDs, then the RC basics over
# IPv6.  SV_XPORT_DUT=rxe runs it on Soft-RoCE alone.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/53-verbs-matrix.py
# located, not imported: importing pyverbs takes 5-20 s under the debug kernel
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"

rc=0
matrix() {
	echo "=== $1: $2 <-> $4"
	timeout -k 5 600 $py "$helper" "$2" "$3" "$4" "$5" "${6:-}" && return 0
	echo "--- kernel log"
	dmesg | tail -n 30
	rc=1
}

sv_xport_setup 53 softverbs softverbs
matrix "softverbs - softverbs, IPv4" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
# SV_QUICK (the debug kernel): every case between softverbs devices, the
# data path cases against Soft-RoCE, nothing over IPv6 (52-sv2sv has it)
if [ -z "$SV_QUICK" ]; then
	matrix "softverbs - softverbs, IPv6" "$XP_A_DEV" "$XP_A_GID6" "$XP_B_DEV" "$XP_B_GID6" \
		'^(send|send_big|write|read|ud_send)$'
fi
sv_xport_setup 5390 softverbs rxe
matrix "softverbs - Soft-RoCE, IPv4" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" \
	"${SV_QUICK:+^(send|send_big|write|read|fetch_add|uc_send|ud_send)\$}"
[ $rc -eq 0 ] || sv_fail "verbs matrix failures (see FAIL lines above)"
