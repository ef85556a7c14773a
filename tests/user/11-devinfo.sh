#!/bin/bash
# sv-test: kernels=debug,stock,cloud needs=rxe cost=M
# The device as seen by distro rdma-core (librxe) and by libsoftverbs.
#
#   init_net:  sv_i0 (softverbs) on vA 10.11.0.1/24, vA ===== veth ===== vB
#
# ibv_devices/ibv_devinfo (rdma-core's Soft-RoCE provider drives softverbs
# unmodified) and ulib/examples/devinfo (libsoftverbs, no rdma-core) must
# report the same attributes; node GUID is the EUI-64 of vA's MAC; only
# softverbs devices are listed by libsoftverbs.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_devices ibv_devinfo
devinfo=$SV_TOOLS/ulib/examples/devinfo
[ -x "$devinfo" ] || sv_fail "$devinfo is not built"

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.11.0.1/24 dev vA
rdma link add sv_i0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_i0 2>/dev/null'
sv_wait_for '[[ "$(rdma link show sv_i0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "port not ACTIVE"
# the link-local (index 0) and 10.11.0.1's (index 1) RoCEv2 GIDs
sv_wait_for 'g= && read -r g </sys/class/infiniband/sv_i0/ports/1/gids/1 && [ "$g" != 0000:0000:0000:0000:0000:0000:0000:0000 ]' 10 ||
	sv_fail "GIDs did not appear"

# has_word TEXT WORD: WORD is in TEXT as a word (grep -qw without the exec:
# every exec costs 0.2-0.5 s under the debug kernel)
has_word() { [[ $1 =~ (^|[^[:alnum:]_])$2([^[:alnum:]_]|$) ]]; }
# first_line TEXT PREFIX: the first line of TEXT starting with PREFIX
# (grep -m1 "^PREFIX", PREFIX taken literally)
first_line() {
	local l
	while IFS= read -r l; do
		[[ $l != "$2"* ]] || { echo "$l"; return 0; }
	done <<<"$1"
	return 0
}
# lines TEXT PREFIX: every line of TEXT starting with PREFIX, blank runs
# squeezed to one space (grep '^PREFIX' | sed 's/[[:space:]]\+/ /g')
shopt -s extglob
lines() {
	local l
	while IFS= read -r l; do
		[[ $l == "$2"* ]] || continue
		echo "${l//+([[:space:]])/ }"
	done <<<"$1"
}

out=$(ibv_devices)
has_word "$out" sv_i0 || sv_fail "ibv_devices does not list sv_i0"

# EUI-64 from the MAC: flip the U/L bit, ff:fe in the middle
read -r mac </sys/class/net/vA/address
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5")

# rdma-core's report, leading blanks dropped and the first ":<blanks>" of
# each line made ": " (sed 's/^[[:space:]]*//; s/:[[:space:]]\+/: /')
raw=$(ibv_devinfo -v -d sv_i0)
theirs=
while IFS= read -r line; do
	line=${line#"${line%%[![:space:]]*}"}
	if [[ $line =~ :[[:space:]]+ ]]; then
		sep=${BASH_REMATCH[0]}
		line="${line%%"$sep"*}: ${line#*"$sep"}"
	fi
	theirs+=$line$'\n'
done <<<"$raw"
theirs=${theirs%$'\n'}
ours=$("$devinfo" -d sv_i0)
echo "$ours"

# every key both print must agree (the tools print different key sets);
# rdma-core's lines by key (the first line with that key), looked up in the
# shell: a grep per key costs a minute under the debug kernel
declare -A their_line
while IFS= read -r line; do
	[[ $line == *': '* ]] || continue
	key=${line%%: *}
	[ -n "${their_line[$key]+set}" ] || their_line[$key]=$line
done <<<"$theirs"
mismatch=0
while IFS= read -r line; do
	key=${line%%: *}
	case $key in GID*) continue ;; esac
	t=${their_line[$key]:-}
	[ -n "$t" ] || continue
	if [ "$t" != "$line" ]; then
		echo "differs: libsoftverbs '$line' vs rdma-core '$t'"
		mismatch=1
	fi
done <<<"$ours"
[ $mismatch -eq 0 ] || sv_fail "libsoftverbs and rdma-core disagree"

for key in node_guid sys_image_guid; do
	sv_assert_eq "$key: $guid" "$(first_line "$ours" "$key: ")" "$key"
done
[[ $'\n'$ours$'\n' == *$'\nlink_layer: Ethernet\n'* ]] || sv_fail "link layer"
[[ $'\n'$ours$'\n' == *$'\nstate: PORT_ACTIVE (4)\n'* ]] || sv_fail "port state"
[[ $'\n'$ours$'\n' == *$'\nactive_mtu: 1024 (3)\n'* ]] || sv_fail "active MTU for a 1500-byte netdev"

# GIDs: both tools list the same table (diff shows how they differ)
our_gids=$(lines "$ours" GID) their_gids=$(lines "$theirs" GID)
[ "$our_gids" = "$their_gids" ] || {
	diff <(echo "$our_gids") <(echo "$their_gids")
	sv_fail "GID tables differ"
}

# libsoftverbs lists softverbs devices only
if modinfo rdma_rxe >/dev/null 2>&1 && [ ! -d /sys/module/rdma_rxe ]; then
	sv_netns_add sv-devinfo
	sv_veth_pair vC vD sv-devinfo
	# rdma_rxe binds UDP 4791 in init_net: move softverbs out first
	rdma link delete sv_i0
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	rdma link add rxe_i0 type rxe netdev vC
	sv_on_exit 'rdma link delete rxe_i0 2>/dev/null'
	ip -n sv-devinfo link add vE type veth peer name vF
	ip -n sv-devinfo link set vE up
	ip -n sv-devinfo link set vF up
	ip netns exec sv-devinfo rdma link add sv_i1 type softverbs netdev vE
	sv_on_exit 'ip netns exec sv-devinfo rdma link delete sv_i1 2>/dev/null'
	list=$("$devinfo" -l)
	echo "libsoftverbs lists: $list"
	has_word "$list" sv_i1 || sv_fail "libsoftverbs does not list sv_i1"
	! has_word "$list" rxe_i0 || sv_fail "libsoftverbs lists the Soft-RoCE device"
	out=$(ibv_devices)
	has_word "$out" rxe_i0 || sv_fail "rdma-core does not list rxe_i0"
else
	# a cloud kernel has no rdma_rxe
	echo "note: no Soft-RoCE device beside softverbs' on $SV_KVER (rdma_rxe missing or loaded): not checked that libsoftverbs leaves it out"
fi
echo "rdma-core and libsoftverbs agree"
