#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Packet fuzzer: hostile RoCE packets at live QPs while real traffic runs.
#
#   netns sv-68a                              netns sv-68b
#   sv68a (softverbs) on x68a  ========  x68b  sv68b (softverbs)
#     victims: RC, UC, UD, QP1,  <---  fuzzer (UDP socket, AF_PACKET)
#       XRC target + XRC SRQ     <---  (xrcvictim, connected to sv68b's GID)
#     real RC pair (IPv4 GIDs)   <-->  its peer
#
# From sv-68b, as the victims' own peer (so RC and UC packets pass the peer
# check and reach the transport), 68-fuzz.py sends RoCEv2 datagrams and a
# quarter RoCE v1 frames: opcodes of the victim's transport or any byte,
# PSNs near the expected ones or anywhere, extension headers that make
# sense (the victims' R_Key, addresses in and out of their MR) or random
# bytes, payloads of 0 to 1100 bytes, odd BTH flags and P_Keys, flipped
# bits, a tenth with a wrong ICRC; at an XRC target QP with its XRC SRQ
# (ulib/examples/xrcvictim, through libsoftverbs), XRC opcodes with an
# XRCETH naming its SRQ, another or any, or cut short, over v2 and v1
# alike; afterwards the target can still be queried and destroyed.  Meanwhile a real RC pair on contexts
# of its own writes, reads back, compares and sends, round after round.
# Passes when every real round was intact, the hostile packets show as
# drops, the victims are destroyed and the kernel log
# has no report (KASAN, lockdep, UBSAN, WARN; kmemleak at the end of the
# VM).  SV_FUZZ_SEED repeats a run (the seed is printed); SV_FUZZ_COUNT
# sets the number of packets (3000; 1000 under SV_QUICK).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/68-fuzz.py
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"
[ -e /proc/net/if_inet6 ] || sv_skip "IPv6 is disabled"
[ -x "$SV_TOOLS/ulib/examples/xrcvictim" ] ||
	sv_fail "$SV_TOOLS/ulib/examples/xrcvictim is not built (make -C ulib)"

log_start=$(dmesg | wc -l)
sv_xport_setup 68 softverbs softverbs
count=${SV_FUZZ_COUNT:-$([ -n "$SV_QUICK" ] && echo 1000 || echo 3000)}
dmac=$(ip -n "$XP_A_NS" -br link show "$XP_A_IF" | awk '{print $3}')
[ -n "$dmac" ] || sv_fail "no MAC address for $XP_A_IF"
timeout -k 5 "$(sv_t 600)" $py "$helper" run "$XP_A_DEV" "$XP_A_GID6" \
	"$XP_B_DEV" "$XP_B_GID6" "$XP_A_GID4" "$XP_B_GID4" "$XP_B_NS" \
	"$XP_B_IF" "$dmac" "$count" || sv_fail "68-fuzz.py failed"
sv_log_clean "$log_start"
