#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate tests/kunit/icrc_vectors.h: RoCEv2 packets as Soft-RoCE
# (rdma_rxe) puts them on a wire, each with the ICRC Soft-RoCE computed.
#
#   icrc-capture.sh [--kver KVER] [-o FILE]   on the host: boot a VM of the
#                                             stock kernel KVER (default
#                                             6.12.117+deb12-amd64), run the
#                                             capture there, write FILE
#                                             (default tests/kunit/icrc_vectors.h)
#   icrc-capture.sh --guest                   inside a VM (root): set up,
#                                             capture, print the vectors
#
# Topology (guest).  Soft-RoCE sockets live in init_net, so both devices are
# there; policy routing sends traffic between their two local addresses out
# over the veths and through a forwarding namespace, so it crosses a wire
# where AF_PACKET sees it (rxe loops packets to a local address back
# without any netdev):
#
#   init_net                          netns icrc-fwd (forwarding)
#   rxe_a on vA 10.9.0.1  fd00:9:0::1 ===== vB 10.9.0.2  fd00:9:0::2
#   rxe_b on vD 10.9.1.1  fd00:9:1::1 ===== vC 10.9.1.2  fd00:9:1::2
#
#   rules (pref 10/11, before "local" moved to pref 100): locally sent
#   packets to 10.9.1.1 go via 10.9.0.2 on vA, to 10.9.0.1 via 10.9.1.2 on
#   vD; accept_local lets each side take packets from the other local
#   address.  Capture point: vA (requests as sent, replies as forwarded,
#   TTL/hop limit decremented: the ICRC must not care).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	kver=6.12.117+deb12-amd64
	out=$root/tests/kunit/icrc_vectors.h
	while [ $# -gt 0 ]; do
		case $1 in
		--kver) kver=$2; shift 2 ;;
		-o) out=$2; shift 2 ;;
		*) echo "usage: $0 [--kver KVER] [-o FILE] | --guest" >&2; exit 2 ;;
		esac
	done
	mkdir -p "$root/build"
	log=$root/build/icrc-capture-$kver.log
	"$root/tests/vm/run.sh" --kver "$kver" --results "$log" -- \
		bash tests/tools/icrc-capture.sh --guest
	grep -q '^// icrc-vectors-end' "$log" || { echo "no vectors in $log" >&2; exit 1; }
	{
		cat <<-EOF
		/* SPDX-License-Identifier: GPL-2.0 */
		/*
		 * RoCEv2 packets captured from Soft-RoCE (rdma_rxe, Linux $kver)
		 * on a veth by tests/tools/icrc-capture.sh: IP header through ICRC,
		 * with the ICRC Soft-RoCE computed.  Generated; do not edit.
		 * Regenerate: tests/tools/icrc-capture.sh [--kver KVER]
		 */
		EOF
		sed -n '/^\/\/ icrc-vectors-begin/,/^\/\/ icrc-vectors-end/p' "$log" |
			sed '1d;$d' | tr -d '\r'
	} > "$out"
	echo "wrote $out"
	exit 0
fi

# --- guest -------------------------------------------------------------------
. "$root/tests/user/lib.sh"

sv_need ip rdma
/usr/bin/python3 -c 'import pyverbs.qp' 2>/dev/null || sv_skip "python3-pyverbs is not installed"
modprobe rdma_rxe || sv_skip "no rdma_rxe module"
ulimit -l unlimited

sv_netns_add icrc-fwd
ip link add vA type veth peer name vB netns icrc-fwd
ip link add vD type veth peer name vC netns icrc-fwd
sv_on_exit 'ip link del vA 2>/dev/null; ip link del vD 2>/dev/null'

ip netns exec icrc-fwd sh -c '
	echo 1 > /proc/sys/net/ipv4/ip_forward
	echo 1 > /proc/sys/net/ipv6/conf/all/forwarding'
ip link set vA up
ip link set vD up
ip -n icrc-fwd link set vB up
ip -n icrc-fwd link set vC up
ip addr add 10.9.0.1/24 dev vA
ip addr add 10.9.1.1/24 dev vD
ip addr add fd00:9:0::1/64 dev vA nodad
ip addr add fd00:9:1::1/64 dev vD nodad
ip -n icrc-fwd addr add 10.9.0.2/24 dev vB
ip -n icrc-fwd addr add 10.9.1.2/24 dev vC
ip -n icrc-fwd addr add fd00:9:0::2/64 dev vB nodad
ip -n icrc-fwd addr add fd00:9:1::2/64 dev vC nodad
for c in all vA vD; do
	echo 0 > /proc/sys/net/ipv4/conf/$c/rp_filter
	echo 1 > /proc/sys/net/ipv4/conf/$c/accept_local
done

ip rule add pref 10 iif lo to 10.9.1.1 lookup 100
ip rule add pref 11 iif lo to 10.9.0.1 lookup 101
ip route add 10.9.1.1 via 10.9.0.2 dev vA table 100
ip route add 10.9.0.1 via 10.9.1.2 dev vD table 101
ip rule add pref 100 lookup local
ip rule del pref 0 lookup local
sv_on_exit 'ip rule add pref 0 lookup local; ip rule del pref 100 lookup local'
ip -6 rule add pref 10 iif lo to fd00:9:1::1 lookup 100
ip -6 rule add pref 11 iif lo to fd00:9:0::1 lookup 101
ip -6 route add fd00:9:1::1 via fd00:9:0::2 dev vA table 100
ip -6 route add fd00:9:0::1 via fd00:9:1::2 dev vD table 101
ip -6 rule add pref 100 lookup local
ip -6 rule del pref 0 lookup local
sv_on_exit 'ip -6 rule add pref 0 lookup local; ip -6 rule del pref 100 lookup local'

if command -v ping >/dev/null; then
	ping -c1 -W2 -I 10.9.0.1 10.9.1.1 || sv_fail "no IPv4 path through icrc-fwd"
	ping -c1 -W2 -I fd00:9:0::1 fd00:9:1::1 || sv_fail "no IPv6 path through icrc-fwd"
fi

rdma link add rxe_a type rxe netdev vA
sv_on_exit 'rdma link delete rxe_a'
rdma link add rxe_b type rxe netdev vD
sv_on_exit 'rdma link delete rxe_b'

# gid_index DEV ADDRESS: the RoCEv2 GID index of ADDRESS on DEV
gid_index() {
	local want i p=/sys/class/infiniband/$1/ports/1
	want=$(/usr/bin/python3 -c 'import ipaddress, sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.ip_address("::ffff:" + sys.argv[1])
print(a.exploded)' "$2")
	for i in $(ls "$p/gids"); do
		if [ "$(cat "$p/gids/$i")" = "$want" ] &&
		   [ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

for pair in rxe_a:10.9.0.1 rxe_b:10.9.1.1 rxe_a:fd00:9:0::1 rxe_b:fd00:9:1::1; do
	sv_wait_for "gid_index ${pair%%:*} ${pair#*:}" 10 ||
		sv_fail "no RoCEv2 GID for ${pair#*:} on ${pair%%:*}"
done

echo "# capturing on vA"
/usr/bin/python3 "$here/icrc-capture.py" rxe_a rxe_b vA \
	"$(gid_index rxe_a 10.9.0.1)" "$(gid_index rxe_b 10.9.1.1)" \
	"$(gid_index rxe_a fd00:9:0::1)" "$(gid_index rxe_b fd00:9:1::1)"
