#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Device counters: "rdma statistic show", svctl stats and the restrack driver
# detail, against traffic of known size.
#
#   netns sv-41a                              netns sv-41b
#   sv41a (softverbs) on x41a 10.141.0.1  ==== x41b 10.141.0.2 <- sv41b (softverbs)
#
# Idle: every counter of "rdma statistic show" is in "svctl -j stats", same
# name, same order, same value; qps counts ib_mad's QP1, qps_peak >= qps;
# "svctl stats -w" reports rates.  An RC send each way: what one side sent,
# the other counted as received or dropped (no delivery needed); the send
# must complete.  Traffic: 100 UD
# datagrams of 512 bytes each way (53-verbs-matrix.py ud_loss on a clean
# path): each side's tx_packets and rx_packets move by exactly 100 and
# tx_bytes by 100 x (BTH 12 + DETH 8 + 512 + ICRC 4), matching the peer's
# rx_bytes; then an RC bulk transfer (4 MiB written, read back, sent): ACKs
# are counted on both sides, no ICRC or validation drops, no retransmits on
# a clean path, and qps_peak shows the QPs the cases created.  Then ACK
# requests (53-verbs-matrix.py acks): 200 unsignaled 64-byte WRITEs, every
# 50th signaled, draw about one ACK in 25 (AckReq only where the requester
# needs an answer, kmod/sv_req.c), and 5 unsignaled WRITEs with nothing after
# them, on a QP with no local ACK timeout, are retired all the same: the
# requester asked for their ACK (tail_ack_requests), no retransmission.  Before any
# traffic, while an RC QP is held (40-svctl.py), "rdma -dd resource show qp"
# prints its driver detail (PSNs as set, queue sizes, retry state), and
# svctl -j qp the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xp-matrix.sh"

sv_need ip rdma python3
svctl=$SV_TOOLS/tools/svctl
[ -x "$svctl" ] || sv_fail "$svctl is not built (make -C tools)"
# (no separate pyverbs probe: the holder below, the first user of pyverbs,
# says "skip:" without it, and python3 plus pyverbs start in seconds under a
# debug kernel)
holder=$(dirname "$0")/40-svctl.py
XP_PORT=21000
sv_xport_setup 41 softverbs softverbs
# The traffic cases run in one 53-verbs-matrix.py --serve (xp-matrix.sh),
# started now so that its python and pyverbs start overlaps the idle and
# holder steps (and before the holder's FIFO is opened, which it must not
# inherit); the bulk case's MiB sizes its memory regions.
xp_matrix_start XP_BULK_MIB=1
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"

# snap TAG: both sides' counters, as svctl and rdma see them
snap() {
	xp_svctl A -j stats "$XP_A_DEV" >"$tmp/A.$1.json" || sv_fail "svctl stats A"
	xp_svctl B -j stats "$XP_B_DEV" >"$tmp/B.$1.json" || sv_fail "svctl stats B"
	rdma -j statistic show link "$XP_A_DEV/1" >"$tmp/A.$1.rdma" || sv_fail "rdma statistic A"
}

# stats_checks SECTION...: the JSON checks of the sections named, in one
# python start (a second or two each under the debug kernel), each section
# failing the test with its own message
stats_checks() {
	local rc=0
	python3 - "$tmp" "$qpn" "$@" <<'EOF' || rc=$?
import json, sys, traceback
tmp = sys.argv[1]


def c(side, tag):
    return {x['name']: x['value'] for x in json.load(open(f"{tmp}/{side}.{tag}.json"))[0]['counters']}


def idle():
    sv = json.load(open(f"{tmp}/A.0.json"))[0]
    rd = json.load(open(f"{tmp}/A.0.rdma"))[0]
    names = [c['name'] for c in sv['counters']]
    vals = {c['name']: c['value'] for c in sv['counters']}
    rnames = [k for k in rd if k not in ('ifname', 'ifindex', 'port')]
    assert names == rnames, (names, rnames)
    for k in rnames:
        # idle, but QP1 MADs may move between the two reads: only the gauges and
        # the drop counters must be equal
        if k in ('qps', 'qps_peak', 'rx_drop_icrc', 'rx_drop_invalid'):
            assert vals[k] == rd[k], (k, vals[k], rd[k])
    assert vals['qps'] >= 1 and vals['qps_peak'] >= vals['qps'], vals
    rate = json.load(open(f"{tmp}/A.rate.json"))[0]['counters']
    assert all('rate' in c for c in rate), rate
    assert all(c['rate'] == 0 for c in rate if c['name'].startswith(('rx_drop', 'retrans'))), rate
    print(f"ok: {len(names)} counters agree with rdma; qps {vals['qps']} peak {vals['qps_peak']}")


def qp():
    q = next(q for q in json.load(open(f"{sys.argv[1]}/qp.json")) if q['lqpn'] == int(sys.argv[2]))
    d = q['driver']
    assert d['sq_psn'] == 0xabcdef and d['rq_psn'] == 0x123456, d
    assert d['sq_size'] >= 4 and d['rq_size'] >= 4 and d['in_flight'] == 0, d
    print("ok: svctl qp driver detail:", json.dumps(d))


def packets():
    d = {s: {k: c(s, 'p')[k] - c(s, '0')[k] for k in c(s, '0')} for s in 'AB'}
    def rx_total(x):
        return x['rx_packets'] + x['rx_drop_no_qp'] + x['rx_drop_icrc'] + x['rx_drop_invalid']
    for s, o in (('A', 'B'), ('B', 'A')):
        print(f"{s}: " + " ".join(f"{k} {v}" for k, v in d[s].items() if v))
        assert d[s]['tx_packets'] > 0, d[s]
        assert d[s]['tx_packets'] == rx_total(d[o]), (s, d[s]['tx_packets'], o, rx_total(d[o]))
        assert d[s]['rx_drop_icrc'] == 0 and d[s]['rx_drop_invalid'] == 0, d[s]
    print("ok: every packet sent was counted by the receiver")


def ud():
    d = {s: {k: c(s, '1')[k] - c(s, '0')[k] for k in c(s, '0')} for s in 'AB'}
    want = 100 * (12 + 8 + 512 + 4)
    for s, o in (('A', 'B'), ('B', 'A')):
        print(f"{s}: tx {d[s]['tx_packets']} pkts {d[s]['tx_bytes']} B, rx {d[s]['rx_packets']} pkts {d[s]['rx_bytes']} B")
        assert d[s]['tx_packets'] == 100 and d[s]['rx_packets'] == 100, (s, d[s])
        assert d[s]['tx_bytes'] == want, (s, d[s]['tx_bytes'], want)
        assert d[s]['tx_bytes'] == d[o]['rx_bytes'], (s, d[s]['tx_bytes'], d[o]['rx_bytes'])
        for k in ('rx_drop_icrc', 'rx_drop_invalid', 'tx_drops', 'qkey_drops'):
            assert d[s][k] == 0, (s, k, d[s][k])
    print("ok: UD packets and bytes counted exactly")


def acks():
    # per direction 205 WRITEs (53-verbs-matrix.py acks); as requester each
    # side asked at every 32nd packet and each signaled one (about 8), plus
    # the tail's ask and any tail_timer ask while the poster was slow (each
    # answered by one ACK); one ACK per message would be 205
    for s in 'AB':
        a, b = c(s, '2'), c(s, '3')
        d = {k: b[k] - a[k] for k in a}
        print(f"{s}: " + " ".join(f"{k} {v}" for k, v in d.items() if v))
        assert d['tail_ack_requests'] >= 1, d
        assert 1 <= d['rx_acks'] - d['tail_ack_requests'] <= 25, d
        assert d['retrans_packets'] == 0 and d['retry_timeouts'] == 0, d
        assert d['send_cqe_errors'] == 0 and d['recv_cqe_errors'] == 0, d
    print("ok: ACKs asked for by the requester only where needed")


def rc():
    for s in 'AB':
        a, b = c(s, '1'), c(s, '2')
        d = {k: b[k] - a[k] for k in a}
        print(f"{s}: " + " ".join(f"{k} {v}" for k, v in d.items() if v))
        assert d['tx_packets'] > 100 and d['rx_packets'] > 100, d
        assert d['tx_acks'] > 0 and d['rx_acks'] > 0, d
        assert d['rx_drop_icrc'] == 0 and d['rx_drop_invalid'] == 0, d
        assert d['retrans_packets'] == 0 and d['retry_exceeded'] == 0, d
        assert d['send_cqe_errors'] == 0 and d['recv_cqe_errors'] == 0, d
        assert b['qps_peak'] >= b['qps'] + 1, b
        print(f"{s}: qps {b['qps']}, qps_peak {b['qps_peak']}")
    print("ok: RC counters on a clean path")


SECTIONS = ('idle', 'qp', 'packets', 'ud', 'rc', 'acks')
for name in sys.argv[3:]:
    try:
        globals()[name]()
    except Exception:
        traceback.print_exc()
        sys.exit(10 + SECTIONS.index(name))
EOF
	case $rc in
	0) ;;
	10) sv_fail "idle counters" ;;
	11) sv_fail "svctl qp driver detail" ;;
	12) sv_fail "packet accounting" ;;
	13) sv_fail "UD counters" ;;
	14) sv_fail "RC counters" ;;
	15) sv_fail "ACK requests" ;;
	*) sv_fail "stats checks $*: exit $rc" ;;
	esac
}

echo "--- idle: svctl stats = rdma statistic show"
snap 0
out=$(xp_svctl A stats "$XP_A_DEV")
head -5 <<<"$out"
xp_svctl A -j stats "$XP_A_DEV" -w 0.5 >"$tmp/A.rate.json" || sv_fail "svctl stats -w"
# (checked with the packet accounting below, in one python start)

echo "--- restrack driver detail of a held QP"
read -r gid <"/sys/class/infiniband/$XP_A_DEV/ports/1/gids/$XP_A_GID4"
mkfifo "$tmp/hold"
python3 "$holder" "$XP_A_DEV" "$gid" <"$tmp/hold" >"$tmp/held" 2>&1 &
hpid=$!
exec 3>"$tmp/hold"
sv_on_exit "exec 3>&-; kill $hpid 2>/dev/null; wait $hpid 2>/dev/null"
sv_wait_for "sv_file_has '$tmp/held' ready || sv_file_has '$tmp/held' skip" 120 || sv_fail "holder: $(cat "$tmp/held")"
while read -r what qpn; do
	[[ $what != ready && $what != skip* ]] || break
done <"$tmp/held"
[ "$what" != skip: ] || sv_skip "python3-pyverbs is not installed"
[ "$what" = ready ] || sv_fail "holder: $what $qpn"
line=$(rdma -dd resource show qp link "$XP_A_DEV/1" lqpn "$qpn")
echo "$line"
# (the retry state is set when a WQE starts: only its presence counts)
for kv in "drv_sq_psn $((0xabcdef))" "drv_rq_psn $((0x123456))" "drv_in_flight 0" "drv_sq_used 0" \
	"drv_resp_res_queued 0" "drv_msn 0" "drv_unacked_psn" "drv_retry_left" "drv_dup_reqs"; do
	[[ $line == *" $kv "* ]] || sv_fail "rdma -dd: no '$kv' in: $line"
done
xp_svctl A -j qp "$XP_A_DEV" >"$tmp/qp.json" || sv_fail "svctl -j qp"
xp_svctl A qp "$XP_A_DEV"
exec 3>&-
wait "$hpid" || sv_fail "holder failed: $(cat "$tmp/held")"

echo "--- packets sent by one side = packets the other received or dropped"
# holds whether or not the transport delivers: a clean veth loses nothing
xp_matrix_ready 300 || sv_fail "53-verbs-matrix.py --serve did not start"
xp_matrix 300 '^send$' && xport_ok=1 || xport_ok=0
snap p
stats_checks idle qp packets
[ $xport_ok = 1 ] || sv_fail "an RC send between the devices failed (53-verbs-matrix.py send); idle counters, rdma agreement and packet accounting passed"
snap 0

echo "--- UD: 100 datagrams of 512 bytes each way"
xp_matrix 300 '^ud_loss$' ||
	sv_fail "UD traffic failed"
snap 1

echo "--- RC: bulk transfer"
xp_matrix 300 '^bulk$' XP_BULK_MIB=1 ||
	sv_fail "RC traffic failed"
snap 2

echo "--- RC: ACKs asked for where needed, an unsignaled tail retired (timeout 0)"
xp_matrix 300 '^acks$' ||
	sv_fail "RC ACK requests failed"
snap 3
stats_checks ud rc acks

echo "stats: counters move with traffic and match what was sent"
