#!/bin/bash
# Address handles, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net                                  netns sv-ah
#   sv_ah0 (softverbs) on vA ======== veth ======== vB
#     10.25.0.1/24                                  10.25.0.2/24
#     2001:db8:25::1/64                             2001:db8:25::2/64
#     fe80::... (link-local)                        fe80::... (link-local)
#
# 25-ah.py does the verbs: AHs with IPv4, IPv6 and link-local IPv6 GIDs to
# the peer, to the local address and to multicast groups, a UD send through
# an AH, 1000 AHs; destinations without an answer or a route refused in
# about a second (ETIMEDOUT from ib_core's ARP/ND resolution, ENETUNREACH
# with no IPv6 route); an empty source GID index, a RoCE v1 source GID
# (EOPNOTSUPP: softverbs speaks RoCEv2 only), no GRH, a bad port, SL or flow
# label refused.  Here: a process killed with SIGKILL while holding AHs, the
# device removed under a process holding AHs, the module unloads without
# complaining about AHs left behind; the kernel log stays clean.
#
# Not reachable from user space: create_ah/destroy_ah of kernel consumers in
# atomic context (ib_cm does it with interrupts off), query_ah, and the
# kernel's use of the AH in a UD send (needs the transport).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/25-ah.py
$py -c 'import pyverbs.addr' 2>/dev/null || sv_skip "python3-pyverbs is not installed"
[ -e /proc/net/if_inet6 ] || sv_skip "IPv6 is disabled"

dev=sv_ah0
log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_netns_add sv-ah
sv_veth_pair vA vB sv-ah
ip addr add 10.25.0.1/24 dev vA
ip addr add 2001:db8:25::1/64 dev vA nodad
ip -n sv-ah addr add 10.25.0.2/24 dev vB
ip -n sv-ah addr add 2001:db8:25::2/64 dev vB nodad
rdma link add $dev type softverbs netdev vA
sv_on_exit "rdma link delete $dev 2>/dev/null"

# exploded IPv6 ADDR: the GID notation of sysfs
exploded() { $py -c "import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).exploded)" "$1"; }
# link_local NETNS DEV: DEV's link-local address, once usable ("" NETNS:
# this namespace)
link_local() {
	local out
	out=$(ip ${1:+-n "$1"} -6 -o addr show dev "$2" scope link -tentative 2>/dev/null) ||
		return 1
	sed -n 's/.* inet6 \(fe80[^/]*\)\/.*/\1/p' <<<"$out" | head -n 1
}
# gid_index TYPE GID: the index of GID of TYPE in the device's GID table
gid_index() {
	local port=/sys/class/infiniband/$dev/ports/1 f
	for f in $(grep -lx "$2" "$port"/gids/* 2>/dev/null); do
		[ "$(cat "$port/gid_attrs/types/${f##*/}" 2>/dev/null)" = "$1" ] &&
			{ echo "${f##*/}"; return 0; }
	done
	return 1
}

sv_wait_for '[ -n "$(link_local "" vA)" ] && [ -n "$(link_local sv-ah vB)" ]' 10 ||
	sv_fail "no usable link-local addresses"
my4=0000:0000:0000:0000:0000:ffff:0a19:0001
my6=$(exploded 2001:db8:25::1)
myll=$(exploded "$(link_local "" vA)")
for g in "$my4" "$my6" "$myll"; do
	sv_wait_for "gid_index 'RoCE v2' $g" 10 || sv_fail "no RoCE v2 GID $g"
done
export V4 V6 LL V1 PEER4 PEER6 PEERLL
V4=$(gid_index 'RoCE v2' $my4)
V6=$(gid_index 'RoCE v2' "$my6")
LL=$(gid_index 'RoCE v2' "$myll")
V1=$(gid_index 'IB/RoCE v1' $my4) || sv_fail "no RoCE v1 GID for 10.25.0.1"
PEER4=0000:0000:0000:0000:0000:ffff:0a19:0002
PEER6=$(exploded 2001:db8:25::2)
PEERLL=$(exploded "$(link_local sv-ah vB)")
echo "GIDs: IPv4 $V4 (RoCE v1: $V1), IPv6 $V6, link-local $LL"

for t in good unreach bad; do
	echo "--- $t"
	$py "$helper" $dev $t || sv_fail "25-ah.py $t"
done

# hold N OUT: start a process holding N AHs; wait until it has them
hold() {
	$py "$helper" $dev hold "$1" >"$2" 2>&1 &
	holder=$!
	sv_on_exit "kill -9 $holder 2>/dev/null"
	sv_wait_for "grep -q ready '$2'" 60 || sv_fail "holder did not start: $(cat "$2")"
}

echo "--- SIGKILL while holding AHs"
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
hold 200 "$tmp/hold1"
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
echo "ok: process holding 200 AHs killed"

echo "--- device removed while a process holds AHs"
hold 50 "$tmp/hold2"
rdma link delete $dev
sv_wait_for "! rdma dev show $dev" 20 || sv_fail "$dev still there after link delete"
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
echo "ok: device removal with AHs held"

# the device's teardown warns if any AH was left behind
sv_unload_module
echo "ok: module unloaded"

reports=$(dmesg | tail -n +"$((log_start + 1))" |
	grep -E 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|Call Trace' || true)
[ -z "$reports" ] || sv_fail "kernel reports: $reports"
echo "ok: no kernel reports"
