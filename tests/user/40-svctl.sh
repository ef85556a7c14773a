#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=XL
# svctl, the management CLI, against the kernel and against rdma/sysfs.
#
#   init_net                                      netns sv-svctl
#   +-------------------------------------------+ +---------------------------+
#   | sv_c0 (softverbs) on vA 10.40.0.1/24       | | sv_c1 (softverbs) on vC   |
#   |                      vA ===== veth ===== vB | vC ===== veth ===== vD    |
#   +-------------------------------------------+ +---------------------------+
#
# svctl link add/del create and delete devices; a bad command line exits 2
# and a refused operation exits 1 with the kernel's error text, and neither
# leaves a device behind.  "svctl -j dev/link/res/qp" print one valid JSON
# document each, which agrees with "rdma -j" and sysfs: only softverbs
# devices, their GUIDs, port state, netdev, GID count, active MTU (against
# ibv_devinfo when installed).  A device created inside a namespace is seen
# there with its netdev (ip netns exec, svctl -n) and from init_net without
# it.  The resource counts and the QP listing follow a process that holds a
# PD, a CQ and an RC QP (40-svctl.py): its QP shows with its PSNs, pid and
# comm, and the driver's detail (its PSNs again, queue sizes), next to
# ib_mad's QP1.  stats and fault list nothing without devices (41-stats.sh
# and 42-fault.sh test them with devices).  With rdma_rxe installed: a Soft-RoCE device
# is not listed and cannot be deleted through svctl.
#
# Every command line error is in tools/selftest.sh (make -C tools test, no
# kernel needed); here only a few, to see them end to end.  Python starts
# slowly under TCG: the JSON is checked in two python runs, not one per file.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma python3
svctl=$SV_TOOLS/tools/svctl
helper=$(dirname "$0")/40-svctl.py
[ -x "$svctl" ] || sv_fail "$svctl is not built (make -C tools)"

sv_load_module
sv_on_exit sv_unload_module
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"

# expect RC PATTERN ARG...: svctl ARG... exits RC with stderr matching the
# shell PATTERN and prints nothing on stdout
expect() {
	local want=$1 pat=$2 rc=0 err=
	shift 2
	"$svctl" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	read -r -d '' err <"$tmp/err" || true
	err=${err%$'\n'}
	[ "$rc" = "$want" ] || sv_fail "svctl $*: exit $rc, expected $want: $err"
	# shellcheck disable=SC2053
	[[ $err == $pat ]] || sv_fail "svctl $*: message '$err', expected '$pat'"
	[ ! -s "$tmp/out" ] || sv_fail "svctl $*: failed but printed to stdout"
	echo "ok (exit $rc): svctl $*: ${err%%$'\n'*}"
}

# run FILE ARG...: svctl ARG... into $tmp/FILE (checked by python later)
run() {
	local f=$1
	shift
	"$svctl" "$@" >"$tmp/$f" || sv_fail "svctl $* failed"
}

echo "--- command line"
expect 2 'Usage: svctl *'
expect 2 '*unknown object "bogus"*' bogus
expect 2 '*missing "netdev NETDEV"*' link add sv_x
expect 2 '*bad device name*' link add "$(printf 'n%.0s' {1..64})" netdev vA
"$svctl" help >"$tmp/help" || sv_fail "svctl help failed"
grep -q ' svctl link add NAME netdev NETDEV$' "$tmp/help" || sv_fail "help: $(cat "$tmp/help")"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$SV_ROOT/dkms.conf")
"$svctl" -V >"$tmp/ver" || sv_fail "svctl -V"
read -r modver </sys/module/softverbs/version
{ read -r l1; read -r l2; } <"$tmp/ver"
echo "$l1 / $l2"
sv_assert_eq "svctl $ver" "$l1" "svctl -V"
[[ $l2 == "softverbs module $modver,"* ]] || sv_fail "svctl -V: module version: $l2"

echo "--- nothing yet: empty listings"
for o in dev link res qp stats fault; do
	"$svctl" -j $o >"$tmp/empty" || sv_fail "svctl -j $o"
	read -r out <"$tmp/empty"
	sv_assert_eq "[]" "$out" "svctl -j $o without devices"
	"$svctl" $o >"$tmp/empty" || sv_fail "svctl $o"
	[ ! -s "$tmp/empty" ] || sv_fail "svctl $o without devices printed something"
done

echo "--- link add / del"
sv_veth_pair vA vB
ip addr add 10.40.0.1/24 dev vA
"$svctl" link add sv_c0 netdev vA || sv_fail "svctl link add sv_c0 netdev vA"
sv_on_exit 'rdma link delete sv_c0 2>/dev/null'
[ -e /sys/class/infiniband/sv_c0/softverbs_version ] || sv_fail "sv_c0 not created"

before=$(ls /sys/class/infiniband)
expect 1 'svctl: link add sv_c0: File exists' link add sv_c0 netdev vB
expect 1 'svctl: link add sv_c9: File exists' link add sv_c9 netdev vA
expect 1 'svctl: link add sv_c9: No such device' link add sv_c9 netdev nosuchdev
expect 1 'svctl: link add sv_c9: Invalid argument' link add sv_c9 netdev lo
expect 1 'svctl: link del sv_c9: No such device' link del sv_c9
expect 1 'svctl: dev show sv_c9: No such device' dev show sv_c9
expect 1 'svctl: link show sv_c0/2: No such device' link show sv_c0/2
sv_assert_eq "$before" "$(ls /sys/class/infiniband)" "RDMA devices after refused commands"

# the short forms dispatch too
"$svctl" l a sv_c2 net vB || sv_fail "svctl l a sv_c2 net vB"
sv_on_exit 'rdma link delete sv_c2 2>/dev/null'
[ -e /sys/class/infiniband/sv_c2 ] || sv_fail "sv_c2 not created"
"$svctl" link delete sv_c2 || sv_fail "svctl link delete sv_c2"
[ ! -e /sys/class/infiniband/sv_c2 ] || sv_fail "sv_c2 still there after svctl link del"
expect 1 'svctl: link del sv_c2: No such device' l d sv_c2

echo "--- tables"
# the port is up and the GID of 10.40.0.1 is in: nothing changes from here
gid=0000:0000:0000:0000:0000:ffff:0a28:0001
sv_wait_for '[[ "$(rdma link show sv_c0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "sv_c0 port not ACTIVE: $(rdma link show sv_c0/1)"
sv_wait_for "sv_gid_present sv_c0 $gid" 10 || sv_fail "no GID for 10.40.0.1"

# The holder of a PD, a CQ and a QP (used under "resources and QPs") starts
# now and waits for "go" on the FIFO: its python3 and pyverbs start, seconds
# under a debug kernel, overlap the steps in between.
mkfifo "$tmp/hold"
python3 "$helper" --go sv_c0 $gid <"$tmp/hold" >"$tmp/held" 2>&1 &
holder=$!
exec 3>"$tmp/hold"	# the holder lives until this closes
sv_on_exit "exec 3>&-; kill $holder 2>/dev/null; wait $holder 2>/dev/null"
for args in dev "-d dev" link res qp; do
	# shellcheck disable=SC2086
	"$svctl" $args >"$tmp/table" || sv_fail "svctl $args"
	echo "\$ svctl $args"
	cat "$tmp/table"
	[ "$args" != dev ] || grep -qE '^ *[0-9]+ +sv_c0 +1 +ACTIVE +1024 +[0-9]+ +vA ' "$tmp/table" ||
		sv_fail "svctl dev: no line for sv_c0 on vA, ACTIVE, MTU 1024"
done

echo "--- svctl -j dev / link against rdma and sysfs"
run dev.json -j dev
run pretty.json -p dev
run one.json -j dev show sv_c0
run link.json -j link
rdma -j dev show >"$tmp/rdma-dev.json"
rdma -j link show >"$tmp/rdma-link.json"
mtu=
if command -v ibv_devinfo >/dev/null; then
	mtu=$(ibv_devinfo -d sv_c0 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
fi
python3 - "$tmp" "$mtu" <<'EOF' || sv_fail "svctl -j dev/link disagree with rdma or sysfs"
import json, os, sys
tmp, mtu = sys.argv[1:3]
def load(name):
    with open(os.path.join(tmp, name)) as f:
        return json.load(f)
sv, pretty, one, link = map(load, ('dev.json', 'pretty.json', 'one.json', 'link.json'))
rdev = {d['ifname']: d for d in load('rdma-dev.json')}
rlink = {(l['ifname'], l['port']): l for l in load('rdma-link.json')}
ib = '/sys/class/infiniband'
def sysfs(*p):
    with open(os.path.join(ib, *p)) as f:
        return f.read().strip()
def gid_count(dev, port):
    d = os.path.join(ib, dev, 'ports', str(port), 'gids')
    zero = '0000:0000:0000:0000:0000:0000:0000:0000'
    return sum(sysfs(d, g) != zero for g in os.listdir(d))
assert sv == pretty, "-p and -j differ"
ours = sorted(d for d in os.listdir(ib) if os.path.exists(os.path.join(ib, d, 'softverbs_version')))
assert sorted(d['ifname'] for d in sv) == ours, (sv, ours)
for d in sv:
    r, n = rdev[d['ifname']], d['ifname']
    for k in ('ifindex', 'node_type', 'node_guid', 'sys_image_guid', 'fw'):
        assert d.get(k) == r.get(k), (n, k, d.get(k), r.get(k))
    for k in ('node_guid', 'sys_image_guid', 'softverbs_version'):
        assert d[k] == sysfs(n, k), (n, k, d[k])
    assert len(d['ports']) == len(os.listdir(os.path.join(ib, n, 'ports')))
    for p in d['ports']:
        l = rlink[(n, p['port'])]
        for k in ('state', 'netdev', 'netdev_index'):
            assert p.get(k) == l.get(k), (n, k, p.get(k), l.get(k))
        assert p['state'] == sysfs(n, 'ports', str(p['port']), 'state').split()[1]
        assert p['physical_state'] == 'LINK_UP', p
        assert p['netdev'] == sysfs(n, 'parent') and 'netdev_netns' not in p, p
        assert p['gids'] == gid_count(n, p['port']), (p, gid_count(n, p['port']))
d = next(d for d in sv if d['ifname'] == 'sv_c0')
assert d['ports'][0]['active_mtu'] == (int(mtu) if mtu else 1024), (d, mtu)
assert one == [d], (one, d)
flat = [dict(ifindex=d['ifindex'], ifname=d['ifname'], **p) for d in sv for p in d['ports']]
assert link == flat, (link, flat)
print("dev/link JSON agrees with rdma and sysfs:", json.dumps(sv))
EOF

echo "--- a device in a namespace"
sv_netns_add sv-svctl
ip -n sv-svctl link add vC type veth peer name vD
ip -n sv-svctl link set vC up
ip -n sv-svctl link set vD up
expect 1 'svctl: link add sv_c1: No such device' link add sv_c1 netdev vC
ip netns exec sv-svctl "$svctl" link add sv_c1 netdev vC || sv_fail "link add in sv-svctl"
sv_on_exit "ip netns exec sv-svctl rdma link delete sv_c1 2>/dev/null"
sv_wait_for '[[ "$(ip netns exec sv-svctl rdma link show sv_c1/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "sv_c1 port not ACTIVE"
ip netns exec sv-svctl cat /sys/class/net/vC/ifindex >"$tmp/vc-index"
ip netns exec sv-svctl "$svctl" -j dev show sv_c1 >"$tmp/ns.json" || sv_fail "dev show in sv-svctl"
run ns-n.json -n sv-svctl -j dev show sv_c1
ip netns exec sv-svctl rdma -j link show sv_c1/1 >"$tmp/ns-rdma.json"
if grep -q 'netns shared' <<<"$(rdma system show)"; then
	run ns-out.json -j dev show sv_c1
else
	expect 1 '*sv_c1*' dev show sv_c1	# exclusive: not visible here
fi
ip netns exec sv-svctl "$svctl" link del sv_c1 || sv_fail "link del in sv-svctl"
[ ! -e /sys/class/infiniband/sv_c1 ] || sv_fail "sv_c1 still there"

echo "--- resources and QPs"
# ib_mad's QP1 comes up with the port
sv_wait_for '[[ $(rdma resource show qp link sv_c0/1) == *"type GSI state RTS"* ]]' 10 ||
	sv_fail "no QP1 in RTS: $(rdma resource show qp link sv_c0/1)"
run res0.json -j res sv_c0
rdma -j resource show sv_c0 >"$tmp/rdma-res0.json"
run qp0.json -j qp sv_c0

# (a holder gone already, e.g. "skip:" without pyverbs, must not SIGPIPE us)
(trap '' PIPE; echo go >&3) 2>/dev/null || true
sv_wait_for "sv_file_has '$tmp/held' ready || sv_file_has '$tmp/held' skip" 120 || sv_fail "holder: $(cat "$tmp/held")"
read -r what held <<<"$(grep -m1 '^ready\|^skip' "$tmp/held")"
if [ "$what" = ready ]; then
	echo "holder $holder has QP $held"
	echo "$holder $held" >"$tmp/holder"
else
	echo "note: no user objects to list: $what $held"
fi
run res1.json -j res sv_c0
rdma -j resource show sv_c0 >"$tmp/rdma-res1.json"
run qp1.json -j qp sv_c0
run qpall.json -j qp
rdma -j resource show qp link sv_c0 >"$tmp/rdma-qp1.json"
"$svctl" qp sv_c0 >"$tmp/qp-table" || sv_fail "svctl qp sv_c0"
cat "$tmp/qp-table"
grep -qE '^sv_c0 +1 +1 +GSI +RTS .*\[' "$tmp/qp-table" || sv_fail "svctl qp: no line for QP1"
if [ "$what" = ready ]; then
	grep -qE "^sv_c0 +1 +$held +RC +RTS +$held +" "$tmp/qp-table" ||
		sv_fail "svctl qp: no line for QP $held"
	exec 3>&-
	wait "$holder" || sv_fail "holder failed: $(cat "$tmp/held")"
	sv_wait_for "\"\$svctl\" -j res sv_c0 | cmp -s - '$tmp/res0.json'" 10 ||
		sv_fail "counts after the holder exited: $("$svctl" -j res sv_c0), before: $(cat "$tmp/res0.json")"
fi

echo "--- other providers are not ours"
if modinfo rdma_rxe >/dev/null 2>&1 && [ ! -d /sys/module/rdma_rxe ]; then
	# rdma_rxe binds UDP 4791 in init_net: softverbs must leave it first
	"$svctl" link del sv_c0 || sv_fail "svctl link del sv_c0"
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	rdma link add rxe_c0 type rxe netdev vA
	sv_on_exit 'rdma link delete rxe_c0 2>/dev/null'
	"$svctl" -j dev >"$tmp/rxe" || sv_fail "svctl -j dev"
	read -r out <"$tmp/rxe"
	sv_assert_eq "[]" "$out" "svctl -j dev with only a Soft-RoCE device"
	expect 1 'svctl: dev show rxe_c0: not a softverbs device' dev show rxe_c0
	expect 1 'svctl: link del rxe_c0: not a softverbs device' link del rxe_c0
	expect 1 'svctl: qp rxe_c0: not a softverbs device' qp rxe_c0
	[ -e /sys/class/infiniband/rxe_c0 ] || sv_fail "rxe_c0 went away"
else
	echo "note: rdma_rxe not available (or loaded already): provider filter unchecked"
fi

echo "--- namespace and resource JSON"
python3 - "$tmp" <<'EOF' || sv_fail "svctl -j res/qp or the namespace view disagree"
import json, os, sys
tmp = sys.argv[1]
def load(name):
    with open(os.path.join(tmp, name)) as f:
        return json.load(f)
def have(name):
    return os.path.exists(os.path.join(tmp, name))

# sv_c1 from its namespace (ip netns exec and -n), and from init_net
inside, via_n, rdma = load('ns.json'), load('ns-n.json'), load('ns-rdma.json')
with open(os.path.join(tmp, 'vc-index')) as f:
    vc_index = int(f.read())
assert inside == via_n, ("ip netns exec and -n differ", inside, via_n)
p = inside[0]['ports'][0]
assert p['netdev'] == 'vC' and p['netdev_index'] == vc_index, p
assert 'netdev_netns' not in p, p
assert (p['netdev'], p['netdev_index']) == (rdma[0]['netdev'], rdma[0]['netdev_index'])
print("sv_c1 from sv-svctl:", json.dumps(p))
if have('ns-out.json'):
    q = load('ns-out.json')[0]['ports'][0]
    assert q['netdev'] == 'vC' and q['netdev_netns'] == 'other', q
    assert 'netdev_index' not in q, q
    print("sv_c1 from init_net:", json.dumps(q))

# resource counts are rdma's; QP1 alone at first, owned by the kernel
res0, res1, qp0, qp1, qpall = map(load, ('res0.json', 'res1.json', 'qp0.json', 'qp1.json', 'qpall.json'))
for ours, theirs in ((res0, load('rdma-res0.json')), (res1, load('rdma-res1.json'))):
    assert len(ours) == 1 and len(theirs) == 1, (ours, theirs)
    for k, v in theirs[0].items():
        assert ours[0].get(k) == v, ("res", k, ours[0].get(k), v)
    assert all(k in ours[0] for k in ('pd', 'cq', 'qp')), ours
assert res0[0]['qp'] == len(qp0) == 1, (res0, qp0)
q1 = qp0[0]
assert (q1['lqpn'], q1['type'], q1['state'], q1['port']) == (1, 'GSI', 'RTS', 1), q1
assert 'pid' not in q1 and q1['comm'], q1
key = lambda q: (q['lqpn'], q['type'], q['state'])
assert sorted(map(key, qp1)) == sorted(map(key, load('rdma-qp1.json'))), qp1
assert [q for q in qpall if q['ifname'] == 'sv_c0'] == qp1, (qpall, qp1)

# the holder's objects
if have('holder'):
    with open(os.path.join(tmp, 'holder')) as f:
        pid, qpn = map(int, f.read().split())
    for k in ('pd', 'cq', 'qp'):
        assert res1[0][k] == res0[0][k] + 1, (k, res0, res1)
    q = next(q for q in qp1 if q['lqpn'] == qpn)
    want = dict(type='RC', state='RTS', rqpn=qpn, rq_psn=0x123456,
                sq_psn=0xabcdef, pid=pid, comm='python3', port=1)
    for k, v in want.items():
        assert q.get(k) == v, ("qp", k, q.get(k), v, q)
    # the driver's own view (restrack detail, sv_stats.c)
    d = q['driver']
    assert (d['sq_psn'], d['rq_psn'], d['in_flight']) == (0xabcdef, 0x123456, 0), d
    assert d['sq_size'] >= 4 and d['rq_size'] >= 4, d
    print("held QP:", json.dumps(q))
print("res:", json.dumps(res1))
EOF
echo "svctl: commands, exit codes, JSON and namespaces as expected"
