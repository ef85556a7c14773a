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
# Then data-checked pingpongs of 64 KiB as local bursts, counted; on a
# jumbo-frame netdev, RC pingpongs with data checks at path MTU 2048 and
# 4096.  Last, with fault injection on (drop, dup, corrupt), an
# RC bulk transfer with data checks (53-verbs-matrix.py bulk) still
# completes: local packets are then built as for the wire, judged by the
# fault hooks and received with the ICRC check, so corrupted ones fail it,
# lost ones are retransmitted, and none takes lo (rx_drop_loopback stays 0:
# the receive hook drops what comes over lo).
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
# xp_loop_bursts: data-checked RC and UC pingpongs of 64 KiB SENDs, 20
# each way, go as local bursts (design.md, "Local bursts") whose payload
# stays in the sender's MR: at least one per message, each by reference,
# and tx_packets still counts every packet of the path MTU (64 per
# message at MTU 1024) they stand for.
xp_loop_bursts() {
	local tmp rc=0 prog
	tmp=$(mktemp -d)
	for prog in ibv_rc_pingpong ibv_uc_pingpong; do
		xp_svctl A -j stats "$XP_A_DEV" >"$tmp/before.json" &&
			xp_pair 4 B A $prog -n 20 -s 65536 -c &&
			xp_svctl A -j stats "$XP_A_DEV" >"$tmp/after.json" || rc=1
		[ $rc != 0 ] || python3 - "$tmp" $prog <<'EOF' || rc=$?
import json, sys
t, prog = sys.argv[1:]
c = [{x['name']: x['value'] for x in json.load(open(f"{t}/{n}.json"))[0]['counters']}
     for n in ('before', 'after')]
d = {k: c[1][k] - c[0][k] for k in c[0]}
msgs = 40
print(prog, " ".join(f"{k} {v}" for k, v in d.items() if v))
assert d['tx_local_bursts'] >= msgs, ("too few local bursts", d)
assert d['tx_local_by_ref'] >= d['tx_local_bursts'], ("bursts not by reference", d)
assert d['tx_packets'] >= 64 * msgs, ("bursts not counted as their packets", d)
assert d['rx_packets'] >= 64 * msgs, ("bursts not counted as their packets", d)
print(f"ok: {prog}: {d['tx_local_bursts']} bursts for {d['tx_packets']} packets, "
      f"{d['tx_local_by_ref']} by reference")
EOF
		[ $rc = 0 ] || break
	done
	rm -rf "$tmp"
	return $rc
}
[ "${SV_XPORT_DUT:-}" = rxe ] ||
	xp_case "local bursts: IPv4 RC and UC pingpongs of 64 KiB" xp_loop_bursts
# xp_loop_jumbo: data-checked RC pingpongs at path MTU 2048 and 4096 on a
# jumbo-frame netdev: their packets are built on the packet buffer rings'
# reused pages (sv_pktbuf.c; MTU 4096 packets on the two-page ring), the
# 1024 cases above on the single-page ring.  The carrier end x59b is always
# in sv-59b (XP_B_NS names A's namespace here: B is A talking to itself).
xp_loop_jumbo() {
	local rc=0 m
	ip ${XP_A_NS:+-n "$XP_A_NS"} link set x59a mtu 9000 &&
		ip -n sv-59b link set x59b mtu 9000 || return 1
	sv_wait_for "grep -q 'active_mtu:.*4096' <<<\"\$(ibv_devinfo -d $XP_A_DEV)\"" 10 ||
		{ echo "active_mtu not 4096 at netdev MTU 9000"; rc=1; }
	for m in 2048 4096; do
		[ $rc != 0 ] ||
			xp_pair 4 B A ibv_rc_pingpong -m $m -n 100 -s 65536 -c ||
			rc=$?
	done
	ip ${XP_A_NS:+-n "$XP_A_NS"} link set x59a mtu 1500
	ip -n sv-59b link set x59b mtu 1500
	return $rc
}
xp_case "jumbo frames: IPv4 rc_pingpong at MTU 2048 and 4096" xp_loop_jumbo
# xp_loop_faults: the fault case above (softverbs only)
xp_loop_faults() {
	local tmp rc=0
	tmp=$(mktemp -d)
	xp_svctl A -j stats "$XP_A_DEV" >"$tmp/before.json" &&
		xp_svctl A fault "$XP_A_DEV" drop 2% dup 1% corrupt 1% seed 5 || rc=1
	# the verbs matrix's bulk case: one process reaps every completion before
	# it destroys its QPs (two pingpong processes race at their end: a lost
	# last ACK leaves the slower side retrying against a destroyed QP)
	[ $rc != 0 ] || XP_BULK_MIB=0.25 xp_exec A timeout -k 5 600 /usr/bin/python3 \
		"$(dirname "$0")/53-verbs-matrix.py" "$XP_A_DEV" "$XP_A_GID4" \
		"$XP_B_DEV" "$XP_B_GID4" '^bulk$' || rc=$?
	xp_svctl A -j fault "$XP_A_DEV" >"$tmp/hooks.json"
	xp_svctl A fault "$XP_A_DEV" off
	xp_svctl A -j stats "$XP_A_DEV" >"$tmp/after.json"
	[ $rc != 0 ] || python3 - "$tmp" <<'EOF' || rc=$?
import json, sys
t = sys.argv[1]
c = [{x['name']: x['value'] for x in json.load(open(f"{t}/{n}.json"))[0]['counters']}
     for n in ('before', 'after')]
d = {k: c[1][k] - c[0][k] for k in c[0]}
f = {x['dir']: x for x in json.load(open(f"{t}/hooks.json"))[0]['dirs']}
print("faults:", json.dumps(f))
print(" ".join(f"{k} {v}" for k, v in d.items() if v))
corrupted = f['tx']['corrupted'] + f['rx']['corrupted']
assert f['tx']['packets'] >= d['tx_packets'] > 0 and f['rx']['packets'] > 0, \
    ("local packets not judged by both hooks", f, d)
assert f['tx']['dropped'] + f['rx']['dropped'] > 0 and corrupted > 0, f
assert corrupted <= d['rx_drop_icrc'] <= 2 * corrupted, ("ICRC drops", corrupted, d)
assert d['retrans_packets'] > 0, "no retransmits"
assert d['rx_drop_loopback'] == 0, d
print("ok: faults judged on the local path; corrupted packets failed the ICRC, none came over lo")
EOF
	rm -rf "$tmp"
	return $rc
}
[ "${SV_XPORT_DUT:-}" = rxe ] ||
	xp_case "faults on the local path: IPv4 RC bulk" xp_loop_faults
xp_summary
