#!/bin/bash
# sv-test: kernels=debug,stock cost=XL
# Fault injection (svctl fault, kmod/sv_fault.c) between two softverbs devices.
#
#   netns sv-42a                              netns sv-42b
#   sv42a (softverbs) on x42a 10.142.0.1  ==== x42b 10.142.0.2 <- sv42b (softverbs)
#           faults on sv42a: transmit and receive
#
# Settings: svctl fault/set change them, show and -j show them, off clears
# them, bad values exit 2, an unprivileged user gets EPERM (exit 1) and a
# namespace without the device gets ENODEV.  UD: with drop 10 % on both
# directions of sv42a, about 10 % of 100 datagrams are lost each way, the
# rest arrive intact, the fault's hit counter matches the packets lost, and
# the same seed gives the same hits again.  RC: with drop 3 %, dup 2 %,
# reorder 2 % and corrupt 1 % both ways, a 1 MiB bulk transfer still arrives
# intact (53-verbs-matrix.py bulk); retransmits are counted, every corrupted
# packet fails the receiver's ICRC check (rx_drop_icrc).
# Without depending on delivery: with 20 % of every fault both ways on
# sv42a, the hooks' counters add up exactly with both devices' packet
# counters (sent = judged; received = judged - dropped + duplicated;
# ICRC drops >= corrupted), and deleting the device while a packet is held
# back leaks nothing (the guest's kmemleak/KASAN checks).  An RC send
# without faults must complete before the delivery checks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xp-matrix.sh"

sv_need ip rdma python3 setpriv
svctl=$SV_TOOLS/tools/svctl
[ -x "$svctl" ] || sv_fail "$svctl is not built (make -C tools)"
XP_PORT=21500
sv_xport_setup 42 softverbs softverbs
# The cases run in 53-verbs-matrix.py --serve (xp-matrix.sh): one python and
# pyverbs start for those before the device removal, one for those after
# (seconds each under a debug kernel).  The first starts now, alongside the
# settings checks; whether pyverbs is there is known when it is ready.
xp_matrix_start
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
A() { xp_svctl A "$@"; }
sv_on_exit "xp_svctl A fault '$XP_A_DEV' off 2>/dev/null"

# fault_checks SECTION...: the JSON checks of the sections named, in one
# python start (a second or two each under the debug kernel), each section
# failing the test with its own message
fault_checks() {
	local rc=0
	python3 - "$tmp" "$@" <<'EOF' || rc=$?
import json, sys, traceback
t = sys.argv[1]


def c(side, tag):
    return {x['name']: x['value'] for x in json.load(open(f"{t}/{side}.{tag}.json"))[0]['counters']}


def dirs(name):
    return json.load(open(f"{t}/{name}.json"))[0]['dirs']


def delta(before, after, hooks):
    """both devices' counter changes and the fault hooks' counts, printed"""
    d = {s: {k: c(s, after)[k] - c(s, before)[k] for k in c(s, before)} for s in 'AB'}
    f = {x['dir']: x for x in dirs(hooks)}
    for s in 'AB':
        print(f"{s}: " + " ".join(f"{k} {v}" for k, v in d[s].items() if v))
    print("faults:", json.dumps(f))
    return d, f


def settings():
    f1, f2 = (json.load(open(f"{t}/{n}.json"))[0] for n in ('f1', 'f2'))
    d1 = {d['dir']: d for d in f1['dirs']}
    assert f1['seed'] == 7, f1
    assert (d1['tx']['drop_ppm'], d1['tx']['dup_ppm'], d1['tx']['reorder_ppm']) == (50000, 10000, 0), d1
    assert (d1['rx']['drop_ppm'], d1['rx']['reorder_ppm'], d1['rx']['corrupt_ppm']) == (0, 1000, 0), d1
    d2 = {d['dir']: d for d in f2['dirs']}
    assert d2['rx']['drop_ppm'] == 5000 and d2['rx']['reorder_ppm'] == 1000 and d2['tx']['drop_ppm'] == 50000, d2
    print("ok: settings round trip")


def off():
    d = dirs('off')
    assert all(x[k] == 0 for x in d for k in ("drop_ppm", "dup_ppm", "reorder_ppm", "corrupt_ppm")), d


def counters():
    d, f = delta('h0', 'h1', 'hooks')
    def rx_total(x):
        return x['rx_packets'] + x['rx_drop_no_qp'] + x['rx_drop_icrc'] + x['rx_drop_invalid']
    tx, rx = f['tx'], f['rx']
    for x in (tx, rx):
        assert x['packets'] >= 20, ("too few packets to judge", x)
    for k in ('dropped', 'duplicated', 'reordered', 'corrupted'):
        assert tx[k] + rx[k] > 0, (k, tx, rx)
    # every packet A sends is judged once and counted once as sent
    assert tx['packets'] == d['A']['tx_packets'] and d['A']['tx_drops'] == 0, (tx, d['A'])
    # B sees A's packets less the dropped, plus the copies
    assert rx_total(d['B']) == tx['packets'] - tx['dropped'] + tx['duplicated'], (rx_total(d['B']), tx)
    # A's receive hook judges everything B sent; A processes the survivors and copies
    assert rx['packets'] == d['B']['tx_packets'], (rx, d['B'])
    assert rx_total(d['A']) == rx['packets'] - rx['dropped'] + rx['duplicated'], (rx_total(d['A']), rx)
    # a corrupted packet (and its copy, if it had one) fails the ICRC check
    assert tx['corrupted'] <= d['B']['rx_drop_icrc'] <= 2 * tx['corrupted'], (tx, d['B'])
    assert rx['corrupted'] <= d['A']['rx_drop_icrc'] <= 2 * rx['corrupted'], (rx, d['A'])
    print("ok: judged, dropped, duplicated and corrupted packets add up with both devices' counters")


def clean():
    d = dirs('clean')
    assert all(x[k] == 0 for x in d for k in ("drop_ppm", "dup_ppm", "reorder_ppm", "corrupt_ppm", "packets")), d
    print("ok: removed with a packet held; the new device starts clean")


def ud():
    r = [{d['dir']: d for d in json.load(open(f"{t}/{n}.json"))[0]['dirs']} for n in ('ud1', 'ud2')]
    for d in ('tx', 'rx'):
        h = [x[d]['dropped'] for x in r]
        p = [x[d]['packets'] for x in r]
        print(f"{d}: packets {p}, dropped {h}")
        assert 1 <= h[0] <= 30, (d, h)
        assert h[0] == h[1] and p[0] == p[1], ("same seed, different hits", d, h, p)
    print("ok: about 10 % lost each way; same seed, same hits")


def rc():
    d, f = delta('0', '1', 'rc')
    assert f['tx']['dropped'] + f['rx']['dropped'] > 0, f
    assert d['A']['retrans_packets'] + d['B']['retrans_packets'] > 0, "no retransmits"
    # a corrupted packet (and its duplicate, if it had one) fails the ICRC
    assert f['tx']['corrupted'] <= d['B']['rx_drop_icrc'] <= 2 * f['tx']['corrupted'], (f['tx'], d['B'])
    assert f['rx']['corrupted'] <= d['A']['rx_drop_icrc'] <= 2 * f['rx']['corrupted'], (f['rx'], d['A'])
    print("ok: RC data intact; retransmits and ICRC drops counted")


SECTIONS = ('settings', 'off', 'counters', 'clean', 'ud', 'rc')
for name in sys.argv[2:]:
    try:
        globals()[name]()
    except Exception:
        traceback.print_exc()
        sys.exit(10 + SECTIONS.index(name))
EOF
	case $rc in
	0) ;;
	10) sv_fail "fault settings" ;;
	11) sv_fail "off: $(<"$tmp/off.json")" ;;
	12) sv_fail "fault counters against the device counters" ;;
	13) sv_fail "a new device starts without faults: $(<"$tmp/clean.json")" ;;
	14) sv_fail "UD loss" ;;
	15) sv_fail "RC under faults" ;;
	*) sv_fail "fault checks $*: exit $rc" ;;
	esac
}

echo "--- settings"
A fault "$XP_A_DEV" tx drop 5% dup 0.01 rx reorder 1000ppm corrupt 0 seed 7 ||
	sv_fail "svctl fault set"
A fault "$XP_A_DEV"
A -j fault "$XP_A_DEV" >"$tmp/f1.json" || sv_fail "svctl -j fault"
A set "$XP_A_DEV" fault rx drop 0.5% || sv_fail "svctl set"
A -j fault show "$XP_A_DEV" >"$tmp/f2.json" || sv_fail "svctl -j fault show"
# (f1, f2 and off below are checked with the counters, in one python start)
rc=0; A fault "$XP_A_DEV" drop 1.5 2>"$tmp/err" || rc=$?
[ $rc = 2 ] && sv_file_has "$tmp/err" 'bad probability' || sv_fail "drop 1.5: exit $rc: $(cat "$tmp/err")"
rc=0; A fault nosuchdev drop 1% 2>"$tmp/err" || rc=$?
[ $rc = 1 ] && sv_file_has "$tmp/err" 'No such device (kernel: no softverbs device' ||
	sv_fail "unknown device: exit $rc: $(cat "$tmp/err")"
rc=0; "$svctl" fault "$XP_A_DEV" drop 1% 2>"$tmp/err" || rc=$?
[ $rc = 1 ] && sv_file_has "$tmp/err" 'No such device' ||
	sv_fail "device of another namespace: exit $rc: $(cat "$tmp/err")"
rc=0; ip netns exec "$XP_A_NS" setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$svctl" fault "$XP_A_DEV" drop 1% 2>"$tmp/err" || rc=$?
[ $rc = 1 ] && sv_file_has "$tmp/err" 'Operation not permitted' && sv_file_has "$tmp/err" CAP_NET_ADMIN ||
	sv_fail "unprivileged: exit $rc: $(cat "$tmp/err")"
ip netns exec "$XP_A_NS" setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$svctl" fault "$XP_A_DEV" >/dev/null || sv_fail "unprivileged read"
echo "ok: bad value, unknown device, other namespace, unprivileged write refused; unprivileged read works"
A fault "$XP_A_DEV" off || sv_fail "fault off"
A -j fault "$XP_A_DEV" >"$tmp/off.json" || sv_fail "svctl -j fault after off"

snap() {
	A -j stats "$XP_A_DEV" >"$tmp/A.$1.json"
	xp_svctl B -j stats "$XP_B_DEV" >"$tmp/B.$1.json"
}

echo "--- every fault on both directions of A, against the counters"
rc=0; xp_matrix_ready 300 || rc=$?
[ $rc != 2 ] || sv_skip "python3-pyverbs is not installed"
[ $rc = 0 ] || sv_fail "53-verbs-matrix.py --serve did not start"
# Needs packets, not delivery: an RC send each way is retransmitted until
# it succeeds or its retries run out, and every packet crosses both hooks.
snap h0
A fault "$XP_A_DEV" drop 20% dup 20% reorder 20% corrupt 20% seed 3 || sv_fail "fault on"
# (whether the cases succeed does not matter here)
xp_matrix 300 '^(send|send_big|write|read)$' || true
A fault "$XP_A_DEV"
A fault "$XP_A_DEV" off		# a held packet goes out now
A -j fault "$XP_A_DEV" >"$tmp/hooks.json"
sv_sleep 1
snap h1
fault_checks settings off counters

echo "--- device removal with faults on and a packet held"
A fault "$XP_A_DEV" reorder 100% || sv_fail "fault on"
# The server's last request: it ends after the case, as the one-shot
# process did (a process that keeps the device open holds up the delete).
# (It may have ended already if the case above hung: then there is no
# sender, and the removal still has to work.)
xp_matrix_send '^ud_send$' || true
xp_matrix_close
sv_sleep 3
xp_exec A rdma link delete "$XP_A_DEV" || sv_fail "link delete with faults on"
# (whether the case succeeded does not matter)
xp_matrix_answer 60 >/dev/null || true
xp_matrix_stop
xp_exec A rdma link add "$XP_A_DEV" type softverbs netdev "$XP_A_IF" || sv_fail "link add again"
sv_wait_for "[[ \"\$(rdma link show $XP_A_DEV/1)\" == *'state ACTIVE'* ]]" 20 || sv_fail "$XP_A_DEV not ACTIVE again"
sv_wait_for "_sv_xport_gid $XP_A_DEV 0000:0000:0000:0000:0000:ffff:0a8e:0001" 20 ||
	sv_fail "$XP_A_DEV: no IPv4 GID again"
XP_A_GID4=$(_sv_xport_gid "$XP_A_DEV" 0000:0000:0000:0000:0000:ffff:0a8e:0001)
# the second server: its start overlaps the check below; the bulk case's
# MiB sizes its memory regions
xp_matrix_start XP_BULK_MIB=1
A -j fault "$XP_A_DEV" >"$tmp/clean.json" || sv_fail "svctl -j fault on the new device"

echo "--- does the transport deliver? (RC send, no faults)"
xport_ok=1
xp_matrix_ready 300 || sv_fail "53-verbs-matrix.py --serve did not start again"
xp_matrix 300 '^send$' || xport_ok=0
if [ $xport_ok = 0 ]; then
	fault_checks clean
	sv_fail "an RC send between the devices failed without faults (53-verbs-matrix.py send); settings, permissions, removal and the fault/counter accounting passed"
fi

# ud_run TAG: 100 UD datagrams each way with drop 10 % on both directions
# of A, seed 42; the hit counters into $tmp/TAG.json
ud_run() {
	A fault "$XP_A_DEV" drop 10% seed 42 || sv_fail "fault on"
	xp_matrix 300 '^ud_loss$' XP_LOSSY=1 XP_LOSS_PCT=10 || sv_fail "UD under 10 % loss"
	A -j fault "$XP_A_DEV" >"$tmp/$1.json"
	A fault "$XP_A_DEV"
	A fault "$XP_A_DEV" off
}
echo "--- UD under drop 10 %, twice with seed 42"
ud_run ud1
ud_run ud2

echo "--- RC bulk under drop/dup/reorder/corrupt"
snap 0
A fault "$XP_A_DEV" drop 3% dup 2% reorder 2% corrupt 1% seed 1 || sv_fail "fault on"
xp_matrix 600 '^bulk$' XP_BULK_MIB=1 XP_LOSSY=1 || sv_fail "RC bulk under faults"
A -j fault "$XP_A_DEV" >"$tmp/rc.json"
A fault "$XP_A_DEV"
A fault "$XP_A_DEV" off
snap 1
fault_checks clean ud rc
echo "fault: settings, permissions, UD loss share, reproducible seed, RC recovery"
