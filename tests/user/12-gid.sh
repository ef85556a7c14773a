#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# The RoCE GID table follows the netdev's IP addresses.
#
#   init_net:  sv_g0 (softverbs) on vA, vA ===== veth ===== vB
#
# Adding an IPv4 or IPv6 address to vA adds a RoCE v1 and a RoCE v2 GID
# for it (IPv4 as an IPv4-mapped GID); removing the address removes both.
# As on RoCE NICs, GID index 0 (what rdma-core's tests, perftest and
# libfabric take by default) is the RoCE v1 link-local GID, index 1 its
# RoCE v2 twin: softverbs carries both framings (67-roce-v1).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
rdma link add sv_g0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_g0 2>/dev/null'

port=/sys/class/infiniband/sv_g0/ports/1
# gid_types GID: the types of every table entry equal to GID, sorted, each
# followed by a comma.  Builtins only (it is polled, and a cat per entry
# costs seconds per poll under the debug kernel).
gid_types() {
	local i j g t types=() out=
	for i in {0..15}; do
		g=
		read -r g 2>/dev/null <"$port/gids/$i" || [ -n "$g" ] || continue
		[ "$g" = "$1" ] || continue
		t=
		read -r t 2>/dev/null <"$port/gid_attrs/types/$i" || [ -n "$t" ] || continue
		# insert in order (a handful of entries)
		for ((j = ${#types[@]}; j > 0; j--)); do
			[[ ${types[j - 1]} > $t ]] || break
			types[j]=${types[j - 1]}
		done
		types[j]=$t
	done
	for t in "${types[@]}"; do out+=$t,; done
	echo "$out"
}
expect_types() {
	sv_wait_for "[ \"\$(gid_types $1)\" = '$2' ]" 10 ||
		sv_fail "GID $1: expected types '$2', got '$(gid_types "$1")'"
}

v4=0000:0000:0000:0000:0000:ffff:0a0c:0001	# ::ffff:10.12.0.1
v6=fd00:0000:0000:0000:0000:0000:0000:0012

ip addr add 10.12.0.1/24 dev vA
expect_types $v4 'IB/RoCE v1,RoCE v2,'
ip -6 addr add fd00::12/64 dev vA nodad
expect_types $v6 'IB/RoCE v1,RoCE v2,'

ip addr del 10.12.0.1/24 dev vA
expect_types $v4 ''
expect_types $v6 'IB/RoCE v1,RoCE v2,'
ip -6 addr del fd00::12/64 dev vA
expect_types $v6 ''

# every listed GID is there as RoCE v1 and as RoCE v2, and index 0 is the
# v1 link-local GID, index 1 the same GID as RoCE v2
declare -A seen
for ((i = 0; i < 16; i++)); do
	t= g=
	read -r t 2>/dev/null <"$port/gid_attrs/types/$i" || [ -n "$t" ] || continue
	read -r g 2>/dev/null <"$port/gids/$i" || true
	case $t in
	"IB/RoCE v1"|"RoCE v2") seen[$g]+="$t," ;;
	*) sv_fail "GID index $i has type '$t'" ;;
	esac
done
for g in "${!seen[@]}"; do
	[ "${seen[$g]}" = "IB/RoCE v1,RoCE v2," ] ||
		sv_fail "GID $g listed as '${seen[$g]}', not once per RoCE version"
done
read -r t 2>/dev/null <"$port/gid_attrs/types/0" || true
[ "$t" = "IB/RoCE v1" ] || sv_fail "GID index 0: type '$t', not IB/RoCE v1"
read -r t 2>/dev/null <"$port/gid_attrs/types/1" || true
[ "$t" = "RoCE v2" ] || sv_fail "GID index 1: type '$t', not RoCE v2"

# the GID table also answers through the verbs API (rdma-core)
ip addr add 10.12.0.9/24 dev vA
# shellcheck disable=SC2016 # evaluated by sv_wait_for
sv_wait_for 'grep -q "::ffff:10.12.0.9, RoCE v2" <<<"$(ibv_devinfo -v -d sv_g0)"' 10 ||
	sv_fail "ibv_devinfo does not show the IPv4 RoCE v2 GID"
echo "GIDs follow addresses"
