#!/bin/bash
# The guest half of "make demo" (runs inside the VM, as root).
#
#   init_net                               netns demo
#   +--------------------------+           +---------------------------+
#   | rxe0 (Soft-RoCE)         |           | sv0 (softverbs)           |
#   |   on vA 10.77.0.1/24 ========= veth ======= vB 10.77.0.2/24     |
#   +--------------------------+           +---------------------------+
#
# With Soft-RoCE available it moves data between the two: ibv_rc_pingpong with
# data checks, ib_write_bw, ib_read_bw and ib_send_lat (softverbs serves,
# Soft-RoCE is the client) and prints bandwidth and latency.
set -euo pipefail
. tests/user/lib.sh

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

# gids DEV: the device's non-empty GIDs with their type and netdev (one grep
# over the table: it has hundreds of entries, and every exec costs under TCG)
gids() {
	local p=/sys/class/infiniband/$1/ports/1 i g
	printf '  %-5s %-40s %-11s %s\n' index GID type netdev
	grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$p"/gids/* 2>/dev/null |
		sed 's|.*/gids/\([0-9]*\):|\1 |' | sort -n |
		while read -r i g; do
			printf '  %-5s %-40s %-11s %s\n' "$i" "$g" \
				"$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" "$(cat "$p/gid_attrs/ndevs/$i" 2>/dev/null)"
		done
}

# pair PROG ARGS...: PROG's server on sv0 (netns demo), its client on rxe0
# (init_net), over the RoCE v2 GIDs of 10.77.0.2 / 10.77.0.1; prints the
# client's result lines; returns non-zero if either side failed
port=18600
pair() {
	local prog=$1 g sv_g rxe_g so co rs=0 rc=0 pid
	shift
	port=$((port + 1))
	case $prog in ib_*) g=-x ;; *) g=-g ;; esac
	sv_g=$(_sv_xport_gid sv0 0000:0000:0000:0000:0000:ffff:0a4d:0002) || true
	rxe_g=$(_sv_xport_gid rxe0 0000:0000:0000:0000:0000:ffff:0a4d:0001) || true
	so=$(mktemp) co=$(mktemp)
	printf '$ ip netns exec demo %s -d sv0 %s %s %s &    # server: softverbs\n' "$prog" "$g" "$sv_g" "$*"
	printf '$ %s -d rxe0 %s %s %s 10.77.0.2          # client: Soft-RoCE\n' "$prog" "$g" "$rxe_g" "$*"
	ip netns exec demo timeout 60 "$prog" -d sv0 $g "$sv_g" -p $port "$@" >"$so" 2>&1 &
	pid=$!
	sv_wait_for "[ -n \"\$(ip netns exec demo ss -Hltn sport = :$port)\" ]" 30 || true
	timeout 60 "$prog" -d rxe0 $g "$rxe_g" -p $port "$@" 10.77.0.2 >"$co" 2>&1 || rc=$?
	[ $rc -eq 0 ] || kill $pid 2>/dev/null
	wait $pid || rs=$?
	if [ $rs -ne 0 ] || [ $rc -ne 0 ]; then
		echo "  FAILED (server rc $rs, client rc $rc):"
		tail -n 4 "$so" | sed 's/^/  server| /'
		tail -n 4 "$co" | sed 's/^/  client| /'
		rm -f "$so" "$co"
		return 1
	fi
	case $prog in
	ib_*_bw)
		awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ {
			printf "  %s: %s bytes x %s: %s MB/s average (peak %s), %s Mpps\n", p, $1, $2, $4, $3, $5; exit }' \
			p="$prog" "$co" ;;
	ib_*_lat)
		awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ {
			printf "  %s: %s bytes x %s: typical %s us, min %s, max %s, avg %s\n", p, $1, $2, $5, $3, $4, $6; exit }' \
			p="$prog" "$co" ;;
	*) grep -E 'bytes in|iters in' "$co" | sed 's/^/  /' ;;
	esac
	rm -f "$so" "$co"
}

step "load softverbs"
sv_load_module
run modinfo -F version "$SV_MODULE"

step "a veth pair: vA in init_net, vB in namespace 'demo'"
sv_netns_add demo
sv_veth_pair vA vB demo
ip addr add 10.77.0.1/24 dev vA
ip -n demo addr add 10.77.0.2/24 dev vB

step "create a softverbs device inside the namespace"
run ip netns exec demo rdma link add sv0 type softverbs netdev vB
sv_on_exit 'ip netns exec demo rdma link delete sv0 2>/dev/null'
sv_wait_for '[[ "$(ip netns exec demo rdma link show sv0/1)" == *ACTIVE* ]]' 10
run ip netns exec demo rdma link show
if modinfo rdma_rxe >/dev/null 2>&1; then
	step "and a Soft-RoCE device in init_net, its future peer"
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	run rdma link add rxe0 type rxe netdev vA
	sv_on_exit 'rdma link delete rxe0 2>/dev/null'
fi

step "distro rdma-core sees both (its Soft-RoCE provider drives softverbs)"
run ibv_devices
run ibv_devinfo -d sv0

transfer=skipped
if [ -e /sys/class/infiniband/rxe0 ]; then
	sv_wait_for '_sv_xport_gid sv0 0000:0000:0000:0000:0000:ffff:0a4d:0002' 20 || true
	sv_wait_for '_sv_xport_gid rxe0 0000:0000:0000:0000:0000:ffff:0a4d:0001' 20 || true
	step "their RoCE GID tables (RoCE v2 = UDP 4791 over IP)"
	echo "sv0 (softverbs, netns demo):"
	gids sv0
	echo "rxe0 (Soft-RoCE, init_net):"
	gids rxe0
	ulimit -l unlimited
	step "a real transfer: softverbs (server) <-> Soft-RoCE (client)"
	transfer=ok
	if pair ibv_rc_pingpong -n 500 -s 4096 -c; then
		echo "  (-c: each side checked every received byte)"
		pair ib_write_bw -F -n 500 -s 65536 || transfer=failed
		pair ib_read_bw -F -n 500 -s 65536 || transfer=failed
		pair ib_send_lat -F -n 200 -s 64 || transfer=failed
	else
		transfer=failed
	fi
fi

step "libsoftverbs (no rdma-core) sees only softverbs devices"
run ulib/examples/devinfo -l
run ulib/examples/devinfo -d sv0 | grep -E '^(hca_id|node_guid|fw_ver|state|active_mtu|link_layer|GID)'

step "the port follows the link: take vA down and up, watch the async events"
ulib/examples/asyncwatch sv0 4 &
sleep 1
run ip link set vA down
sleep 1
run ip link set vA up
wait
run ibv_devinfo -d sv0 | grep -E 'state'

step "the RoCE GID table follows the addresses"
run ip -n demo addr add 10.77.0.9/24 dev vB
sleep 1
run ip netns exec demo bash -c 'ibv_devinfo -v -d sv0 | grep GID'

step "remove everything"
run ip netns exec demo rdma link delete sv0
sv_unload_module
echo
echo "demo done: softverbs devices created, seen by rdma-core and libsoftverbs, removed."
case $transfer in
ok) echo "data moved between softverbs and Soft-RoCE: see the transfer results above." ;;
failed)
	echo "the transfer between softverbs and Soft-RoCE FAILED (see above)."
	exit 1
	;;
*) echo "(no Soft-RoCE module here: no transfer shown)" ;;
esac
