#!/bin/bash
# svctl, the management CLI, against the kernel and against rdma/sysfs.
#
#   init_net                                     netns sv-svctl
#   +------------------------------------------+ +-----------------------------+
#   | sv_c0 (softverbs) on vA 10.40.0.1/24      | | sv_c1 (softverbs) on vC     |
#   |                      vA ===== veth ===== vB | vC ===== veth ===== vD      |
#   +------------------------------------------+ +-----------------------------+
#
# svctl link add/del create and delete devices; every bad command line exits
# 2 and every refused operation exits 1 with the kernel's error text, and
# neither leaves a device behind.  "svctl -j dev/link/res/qp" print one valid
# JSON document each, which agrees with "rdma -j" and sysfs: only softverbs
# devices, their GUIDs, port state, netdev, GID count, active MTU (against
# ibv_devinfo when installed).  A device created inside a namespace is seen
# there with its netdev (ip netns exec, svctl -n) and from init_net without
# it.  The resource counts and the QP listing follow a process that holds a
# PD, a CQ and an RC QP (40-svctl.py): its QP shows with its PSNs, pid and
# comm, next to ib_mad's QP1.  With rdma_rxe installed: a Soft-RoCE device
# is not listed and cannot be deleted through svctl.
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
	local want=$1 pat=$2 rc=0 out
	shift 2
	"$svctl" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	out=$(cat "$tmp/err")
	[ "$rc" = "$want" ] || sv_fail "svctl $*: exit $rc, expected $want: $out"
	# shellcheck disable=SC2053
	[[ $out == $pat ]] || sv_fail "svctl $*: message '$out', expected '$pat'"
	[ ! -s "$tmp/out" ] || sv_fail "svctl $*: failed but printed: $(cat "$tmp/out")"
	echo "ok (exit $rc): svctl $*: ${out%%$'\n'*}"
}

# json FILE ARG...: svctl ARG... into FILE, which must be one JSON document
json() {
	local f=$1
	shift
	"$svctl" "$@" >"$f" || sv_fail "svctl $* failed"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" ||
		sv_fail "svctl $*: not valid JSON: $(cat "$f")"
}

# py FILE... <<'EOF': run a check in python over JSON files (sys.argv[1:])
py() { python3 - "$@" || sv_fail "python check failed"; }

ib_devs() { ls /sys/class/infiniband 2>/dev/null | wc -l; }

echo "--- command line"
expect 2 'Usage: svctl *'
expect 2 '*unknown object "bogus"*' bogus
expect 2 '*missing device NAME*' link add
expect 2 '*missing "netdev NETDEV"*' link add sv_x
expect 2 '*netdev needs a value*' link add sv_x netdev
expect 2 '*unknown argument "foo"*' link add sv_x foo bar
expect 2 '*bad device name*' link add "$(printf 'n%.0s' {1..64})" netdev vA
expect 2 '*bad device name*' link add 'sv_%d' netdev vA
expect 2 '*bad netdev name*' link add sv_x netdev "$(printf 'd%.0s' {1..16})"
expect 2 '*missing device NAME*' link del
expect 2 '*unexpected argument "b"*' link del a b
expect 2 '*unexpected argument "b"*' dev show a b
expect 2 '*bad port*' link show a/x
expect 2 '*' -Z dev
"$svctl" help >"$tmp/help" || sv_fail "svctl help failed"
grep -q ' svctl link add NAME netdev NETDEV$' "$tmp/help" || sv_fail "help: $(cat "$tmp/help")"
for o in dev link res qp; do
	"$svctl" $o help | grep -q "^Usage: svctl " || sv_fail "svctl $o help"
	"$svctl" help $o | grep -q "^Usage: svctl " || sv_fail "svctl help $o"
done
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$SV_ROOT/dkms.conf")
"$svctl" -V >"$tmp/ver" || sv_fail "svctl -V"
cat "$tmp/ver"
sv_assert_eq "svctl $ver" "$(head -n 1 "$tmp/ver")" "svctl -V"
grep -q "^softverbs module $(cat /sys/module/softverbs/version)," "$tmp/ver" ||
	sv_fail "svctl -V does not show the module version"

echo "--- nothing yet: empty listings"
for o in dev link res qp; do
	json "$tmp/empty.json" -j $o
	sv_assert_eq "[]" "$(cat "$tmp/empty.json")" "svctl -j $o without devices"
	[ -z "$("$svctl" $o)" ] || sv_fail "svctl $o without devices printed something"
done

echo "--- link add / del"
sv_veth_pair vA vB
ip addr add 10.40.0.1/24 dev vA
"$svctl" link add sv_c0 netdev vA || sv_fail "svctl link add sv_c0 netdev vA"
sv_on_exit 'rdma link delete sv_c0 2>/dev/null'
[ -e /sys/class/infiniband/sv_c0/softverbs_version ] || sv_fail "sv_c0 not created"
sv_wait_for '[[ "$(rdma link show sv_c0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "sv_c0 port not ACTIVE: $(rdma link show sv_c0/1)"

before=$(ib_devs)
expect 1 'svctl: link add sv_c0: File exists' link add sv_c0 netdev vB
expect 1 'svctl: link add sv_c9: File exists' link add sv_c9 netdev vA
expect 1 'svctl: link add sv_c9: No such device' link add sv_c9 netdev nosuchdev
expect 1 'svctl: link add sv_c9: Invalid argument' link add sv_c9 netdev lo
expect 1 'svctl: link del sv_c9: No such device' link del sv_c9
expect 1 'svctl: dev show sv_c9: No such device' dev show sv_c9
expect 1 'svctl: link show sv_c0/2: No such device' link show sv_c0/2
sv_assert_eq "$before" "$(ib_devs)" "RDMA devices after refused commands"

"$svctl" link add sv_c2 netdev vB || sv_fail "svctl link add sv_c2 netdev vB"
sv_on_exit 'rdma link delete sv_c2 2>/dev/null'
"$svctl" link del sv_c2 || sv_fail "svctl link del sv_c2"
[ ! -e /sys/class/infiniband/sv_c2 ] || sv_fail "sv_c2 still there after svctl link del"
expect 1 'svctl: link del sv_c2: No such device' link delete sv_c2
# the short forms dispatch too
"$svctl" l a sv_c2 net vB || sv_fail "svctl l a sv_c2 net vB"
"$svctl" l d sv_c2 || sv_fail "svctl l d sv_c2"

echo "--- tables"
sv_wait_for '[ "$(cat /sys/class/infiniband/sv_c0/ports/1/gids/1)" != 0000:0000:0000:0000:0000:0000:0000:0000 ]' 10 ||
	sv_fail "sv_c0 has no GIDs"
for args in dev "-d dev" "dev sv_c0" link "link sv_c0/1" res qp; do
	# shellcheck disable=SC2086
	"$svctl" $args >"$tmp/table" || sv_fail "svctl $args"
	echo "\$ svctl $args"
	cat "$tmp/table"
done
"$svctl" dev | grep -qE '^ *[0-9]+ +sv_c0 +1 +ACTIVE +1024 +[0-9]+ +vA ' ||
	sv_fail "svctl dev table: $("$svctl" dev)"

echo "--- svctl -j dev / link against rdma and sysfs"
json "$tmp/dev.json" -j dev
json "$tmp/pretty.json" -p dev
json "$tmp/link.json" -j link
rdma -j dev show >"$tmp/rdma-dev.json"
rdma -j link show >"$tmp/rdma-link.json"
gids_sysfs=$(cat /sys/class/infiniband/sv_c0/ports/1/gids/* |
	grep -vc '^0000:0000:0000:0000:0000:0000:0000:0000$' || true)
mtu=
if command -v ibv_devinfo >/dev/null; then
	mtu=$(ibv_devinfo -d sv_c0 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
fi
py "$tmp/dev.json" "$tmp/pretty.json" "$tmp/link.json" "$tmp/rdma-dev.json" \
	"$tmp/rdma-link.json" "$gids_sysfs" "$mtu" <<'EOF'
import json, os, sys
sv, pretty, link, rdev, rlink = (json.load(open(f)) for f in sys.argv[1:6])
gids, mtu = int(sys.argv[6]), sys.argv[7]
ib = '/sys/class/infiniband'
def sysfs(*p):
    return open(os.path.join(ib, *p)).read().strip()
assert sv == pretty, "-p and -j differ"
ours = sorted(d for d in os.listdir(ib)
              if os.path.exists(os.path.join(ib, d, 'softverbs_version')))
assert sorted(d['ifname'] for d in sv) == ours, (sv, ours)
rdev = {d['ifname']: d for d in rdev}
rlink = {(l['ifname'], l['port']): l for l in rlink}
for d in sv:
    r, n = rdev[d['ifname']], d['ifname']
    for k in ('ifindex', 'node_type', 'node_guid', 'sys_image_guid', 'fw'):
        assert d.get(k) == r.get(k), (n, k, d.get(k), r.get(k))
    assert d['node_guid'] == sysfs(n, 'node_guid'), d
    assert d['sys_image_guid'] == sysfs(n, 'sys_image_guid'), d
    assert d['softverbs_version'] == sysfs(n, 'softverbs_version'), d
    assert len(d['ports']) == len(os.listdir(os.path.join(ib, n, 'ports')))
    for p in d['ports']:
        l = rlink[(n, p['port'])]
        for k in ('state', 'netdev', 'netdev_index'):
            assert p.get(k) == l.get(k), (n, k, p.get(k), l.get(k))
        assert p['state'] == sysfs(n, 'ports', str(p['port']), 'state').split()[1]
        assert p['netdev'] == sysfs(n, 'parent')
        assert 'netdev_netns' not in p
        assert p['physical_state'] == 'LINK_UP', p
# sv_c0 in detail
d = next(d for d in sv if d['ifname'] == 'sv_c0')
p = d['ports'][0]
assert p['gids'] == gids, (p['gids'], gids)
assert p['active_mtu'] == (int(mtu) if mtu else 1024), (p['active_mtu'], mtu)
# svctl -j link: the same ports, flat
flat = [dict(ifindex=d['ifindex'], ifname=d['ifname'], **p)
        for d in sv for p in d['ports']]
assert link == flat, (link, flat)
print("dev/link JSON agrees with rdma and sysfs:", json.dumps(sv))
EOF
json "$tmp/one.json" -j dev show sv_c0
py "$tmp/one.json" "$tmp/dev.json" <<'EOF'
import json, sys
one, all = (json.load(open(f)) for f in sys.argv[1:3])
assert one == [d for d in all if d['ifname'] == 'sv_c0'], (one, all)
EOF

echo "--- a device in a namespace"
sv_netns_add sv-svctl
ip -n sv-svctl link add vC type veth peer name vD
ip -n sv-svctl link set vC up
ip -n sv-svctl link set vD up
expect 1 'svctl: link add sv_c1: No such device' link add sv_c1 netdev vC
ip netns exec sv-svctl "$svctl" link add sv_c1 netdev vC || sv_fail "link add in sv-svctl"
sv_on_exit "ip netns exec sv-svctl rdma link delete sv_c1 2>/dev/null"
vc_index=$(ip netns exec sv-svctl cat /sys/class/net/vC/ifindex)
ip netns exec sv-svctl "$svctl" -j dev show sv_c1 >"$tmp/ns.json" || sv_fail "dev show in sv-svctl"
json "$tmp/ns-n.json" -n sv-svctl -j dev show sv_c1
ip netns exec sv-svctl rdma -j link show sv_c1/1 >"$tmp/ns-rdma.json"
shared=$(rdma system show | grep -q 'netns shared' && echo 1 || echo 0)
if [ "$shared" = 1 ]; then
	json "$tmp/ns-out.json" -j dev show sv_c1
else
	expect 1 '*sv_c1*' dev show sv_c1
	echo '[]' >"$tmp/ns-out.json"
fi
py "$tmp/ns.json" "$tmp/ns-n.json" "$tmp/ns-rdma.json" "$tmp/ns-out.json" "$vc_index" "$shared" <<'EOF'
import json, sys
inside, via_n, rdma, outside = (json.load(open(f)) for f in sys.argv[1:5])
vc_index, shared = int(sys.argv[5]), sys.argv[6] == '1'
assert inside == via_n, ("ip netns exec and -n differ", inside, via_n)
p = inside[0]['ports'][0]
assert p['netdev'] == 'vC' and p['netdev_index'] == vc_index, p
assert 'netdev_netns' not in p, p
assert p['netdev'] == rdma[0]['netdev'] and p['netdev_index'] == rdma[0]['netdev_index']
if shared:
    q = outside[0]['ports'][0]
    assert q['netdev'] == 'vC' and q['netdev_netns'] == 'other', q
    assert 'netdev_index' not in q, q
    print("sv_c1 seen from init_net, netdev in another namespace:", json.dumps(q))
print("sv_c1 seen from sv-svctl:", json.dumps(p))
EOF
ip netns exec sv-svctl "$svctl" link del sv_c1 || sv_fail "link del in sv-svctl"
[ ! -e /sys/class/infiniband/sv_c1 ] || sv_fail "sv_c1 still there"

echo "--- resources and QPs"
# ib_mad's QP1 comes up with the port
sv_wait_for '[[ $(rdma resource show qp link sv_c0/1) == *"type GSI state RTS"* ]]' 10 ||
	sv_fail "no QP1 in RTS: $(rdma resource show qp link sv_c0/1)"
json "$tmp/res0.json" -j res sv_c0
rdma -j resource show sv_c0 >"$tmp/rdma-res0.json"
json "$tmp/qp0.json" -j qp sv_c0

held=
if python3 -c 'import pyverbs.qp' 2>/dev/null; then
	gid=0000:0000:0000:0000:0000:ffff:0a28:0001	# ::ffff:10.40.0.1
	gid4=
	port=/sys/class/infiniband/sv_c0/ports/1
	sv_wait_for "grep -lx $gid $port/gids/*" 10 || sv_fail "no GID for 10.40.0.1"
	for f in $(grep -lx $gid $port/gids/*); do
		[ "$(cat "$port/gid_attrs/types/${f##*/}")" = "RoCE v2" ] && gid4=${f##*/}
	done
	[ -n "$gid4" ] || sv_fail "no RoCE v2 GID for 10.40.0.1"
	mkfifo "$tmp/hold"
	python3 "$helper" sv_c0 "$gid4" <"$tmp/hold" >"$tmp/held" 2>&1 &
	holder=$!
	exec 3>"$tmp/hold"	# the holder lives until this closes
	sv_on_exit "exec 3>&-; kill $holder 2>/dev/null; wait $holder 2>/dev/null"
	sv_wait_for "grep -q ready '$tmp/held'" 60 || sv_fail "holder: $(cat "$tmp/held")"
	held=$(sed -n 's/^ready //p' "$tmp/held")
	echo "holder $holder has QP $held"
else
	echo "note: python3-pyverbs is not installed: no user objects to list"
fi
json "$tmp/res1.json" -j res sv_c0
rdma -j resource show sv_c0 >"$tmp/rdma-res1.json"
json "$tmp/qp1.json" -j qp sv_c0
json "$tmp/qpall.json" -j qp
rdma -j resource show qp link sv_c0 >"$tmp/rdma-qp1.json"
py "$tmp/res0.json" "$tmp/rdma-res0.json" "$tmp/qp0.json" "$tmp/res1.json" \
	"$tmp/rdma-res1.json" "$tmp/qp1.json" "$tmp/qpall.json" "$tmp/rdma-qp1.json" \
	"${held:--}" "${holder:-0}" <<'EOF'
import json, sys
res0, rres0, qp0, res1, rres1, qp1, qpall, rqp1 = (json.load(open(f)) for f in sys.argv[1:9])
held, pid = sys.argv[9], int(sys.argv[10])
for ours, theirs in ((res0, rres0), (res1, rres1)):
    assert len(ours) == 1 and len(theirs) == 1, (ours, theirs)
    for k, v in theirs[0].items():
        assert ours[0].get(k) == v, ("res", k, ours[0].get(k), v)
    for k in ('pd', 'cq', 'qp'):
        assert k in ours[0], ours
# QP1 alone at first, owned by the kernel
assert res0[0]['qp'] == len(qp0) == 1, (res0, qp0)
q1 = qp0[0]
assert (q1['lqpn'], q1['type'], q1['state'], q1['port']) == (1, 'GSI', 'RTS', 1), q1
assert 'pid' not in q1 and q1['comm'], q1
# the listing is rdma's
key = lambda q: (q['lqpn'], q['type'], q['state'])
assert sorted(map(key, qp1)) == sorted(map(key, rqp1)), (qp1, rqp1)
assert [q for q in qpall if q['ifname'] == 'sv_c0'] == qp1, (qpall, qp1)
if held != '-':
    for k in ('pd', 'cq', 'qp'):
        assert res1[0][k] == res0[0][k] + 1, (k, res0, res1)
    q = next(q for q in qp1 if q['lqpn'] == int(held))
    want = dict(type='RC', state='RTS', rqpn=int(held), rq_psn=0x123456,
                sq_psn=0xabcdef, pid=pid, comm='python3', port=1)
    for k, v in want.items():
        assert q.get(k) == v, ("qp", k, q.get(k), v, q)
    print("held QP:", json.dumps(q))
print("res:", json.dumps(res1))
EOF
if [ -n "$held" ]; then
	"$svctl" qp sv_c0 | grep -qE "^sv_c0 +1 +$held +RC +RTS +$held +" ||
		sv_fail "svctl qp table: $("$svctl" qp sv_c0)"
	"$svctl" qp sv_c0 | grep -qE '^sv_c0 +1 +1 +GSI +RTS .*\[' ||
		sv_fail "svctl qp table, kernel QP: $("$svctl" qp sv_c0)"
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
	json "$tmp/rxe.json" -j dev
	sv_assert_eq "[]" "$(cat "$tmp/rxe.json")" "svctl -j dev with only a Soft-RoCE device"
	expect 1 'svctl: dev show rxe_c0: rxe_c0 is not a softverbs device' dev show rxe_c0
	expect 1 'svctl: link del rxe_c0: rxe_c0 is not a softverbs device' link del rxe_c0
	expect 1 'svctl: qp: rxe_c0 is not a softverbs device' qp rxe_c0
	[ -e /sys/class/infiniband/rxe_c0 ] || sv_fail "rxe_c0 went away"
else
	echo "note: rdma_rxe not available (or loaded already): provider filter unchecked"
fi
echo "svctl: commands, exit codes, JSON and namespaces as expected"
