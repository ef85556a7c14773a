#!/bin/bash
# rxe-sanity.sh: check libsoftverbs' uverbs code against a real kernel when no
# softverbs module is at hand, using Soft-RoCE (rdma_rxe) as the device.
#
#   tests/vm/run.sh --kver 6.1.0-56-amd64 -- tests/host/rxe-sanity.sh
#
# Run it as root in a throwaway VM (it loads modules and adds links). Topology:
#
#   veth v0 <-> v1        rxe0 on v0 (no traffic is sent)
#
# libsoftverbs lists only devices with the softverbs_version marker, so the
# script copies the parts of rxe0's sysfs that the library reads into a tmp
# tree, adds the marker there and points SOFTVERBS_SYSFS_ROOT at it. The char
# device is still the real /dev/infiniband/uverbsN. GET_CONTEXT, EX_QUERY_DEVICE
# and QUERY_PORT therefore reach the real ib_uverbs and rdma_rxe. Every line of
# ulib/examples/devinfo must then appear in `ibv_devinfo -v` (rdma-core's librxe),
# once its "key:<tabs>value" is normalised to "key: value".
# Exit: 0 all lines match, 1 mismatch, 4 skip (prerequisite missing).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
devinfo=$root/ulib/examples/devinfo
skip() { echo "SKIP: $*"; exit 4; }

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$devinfo" ] || skip "build ulib first (make -C ulib)"
command -v ibv_devinfo >/dev/null || skip "ibv_devinfo (ibverbs-utils) missing"
command -v rdma >/dev/null || skip "rdma (iproute2) missing"
modprobe ib_uverbs && modprobe rdma_rxe && modprobe veth || skip "modules"

tmp=$(mktemp -d)
trap 'rdma link delete rxe0 2>/dev/null; ip link del v0 2>/dev/null; rm -rf "$tmp"' EXIT

ip link add v0 type veth peer name v1 || skip "veth"
ip link set v0 up && ip link set v1 up
rdma link add rxe0 type rxe netdev v0 || skip "rdma link add rxe0"
sleep 1	# the link-local GID appears once the address is configured

# A sysfs copy holding just what the library reads.
F=$tmp/sys
S=/sys/class/infiniband/rxe0
D=$F/class/infiniband/rxe0
mkdir -p "$F/class/infiniband_verbs" "$D"
cp /sys/class/infiniband_verbs/abi_version "$F/class/infiniband_verbs/"
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev")" = rxe0 ] || continue
	mkdir -p "$F/class/infiniband_verbs/${u##*/}"
	cp "$u/ibdev" "$u/abi_version" "$F/class/infiniband_verbs/${u##*/}/"
done
cp "$S/node_type" "$S/node_guid" "$D/"
echo rxe-sanity > "$D/softverbs_version"
for p in "$S"/ports/*; do
	n=${p##*/}
	mkdir -p "$D/ports/$n/gids" "$D/ports/$n/pkeys" \
		"$D/ports/$n/gid_attrs/types" "$D/ports/$n/gid_attrs/ndevs"
	# Shell builtins only: a thousand forks take minutes under TCG.
	for g in "$p"/gids/*; do
		i=${g##*/}
		read -r v < "$g" && echo "$v" > "$D/ports/$n/gids/$i"
		# unreadable (EINVAL) for empty slots: leave those out
		for a in types ndevs; do
			{ read -r v < "$p/gid_attrs/$a/$i"; } 2>/dev/null &&
				echo "$v" > "$D/ports/$n/gid_attrs/$a/$i"
		done
	done
	cp "$p"/pkeys/* "$D/ports/$n/pkeys/" 2>/dev/null
done

SOFTVERBS_SYSFS_ROOT=$F "$devinfo" -d rxe0 > "$tmp/ours" || { echo "devinfo failed"; exit 1; }
ibv_devinfo -v -d rxe0 | sed -e 's/^[[:space:]]*//' -e 's/:[[:space:]]\+/: /' > "$tmp/theirs"

missing=0
while IFS= read -r line; do
	grep -qxF -- "$line" "$tmp/theirs" && continue
	echo "not in ibv_devinfo -v: $line"
	missing=$((missing + 1))
done < "$tmp/ours"
echo "rxe-sanity: $(wc -l < "$tmp/ours") lines, $missing not matching"
[ "$missing" = 0 ]
