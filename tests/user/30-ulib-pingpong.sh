#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=S
# Distro verbs programs, unchanged, on libsoftverbs instead of libibverbs.
#
#   init_net                                  netns sv-ulpp
#   +------------------------------------+    +---------------------+
#   | rxe_p0 (rdma_rxe) on vA 10.32.0.1  |====|= vB 10.32.0.2       |
#   |  server <-- TCP :port --> client   |    |  (carrier only)     |
#   |  (both processes on rxe_p0)        |    +---------------------+
#   +------------------------------------+
#
# ibverbs-utils' ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
# ibv_srq_pingpong are linked against libibverbs.so.1.  libsoftverbs exports
# every symbol they use under the same symbol versions, so a directory with
# libibverbs.so.1 -> libsoftverbs.so.1 on LD_LIBRARY_PATH runs them on our
# library with no rdma-core code in the process (ldd proves which library
# is loaded; without SOFTVERBS_ALLOW_RXE the Soft-RoCE device is then
# invisible, which proves rdma-core's provider is not in use).  Server and
# client run on the same device and exchange messages over RC, UC, UD and
# an SRQ.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ldd ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
lib=$SV_TOOLS/ulib/libsoftverbs.so.1
[ -f "$lib" ] || sv_fail "$lib is not built (make -C ulib)"
modinfo rdma_rxe >/dev/null 2>&1 || sv_skip "no rdma_rxe module for $SV_KVER"
[ ! -d /sys/module/rdma_rxe ] || sv_skip "rdma_rxe is already loaded"

shim=$(mktemp -d)
sv_on_exit "rm -rf '$shim'"
ln -s "$lib" "$shim/libibverbs.so.1"
loaded=$(LD_LIBRARY_PATH=$shim ldd "$(command -v ibv_rc_pingpong)")
echo "$loaded"
[[ $loaded == *"libibverbs.so.1 => $shim/libibverbs.so.1"* ]] ||
	sv_fail "the shim does not replace libibverbs"

modprobe -a ib_core ib_uverbs rdma_rxe
sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
ulimit -l unlimited

sv_netns_add sv-ulpp
sv_veth_pair vA vB sv-ulpp
ip addr add 10.32.0.1/24 dev vA
ip -n sv-ulpp addr add 10.32.0.2/24 dev vB
sv_wait_for 'c= && read -r c </sys/class/net/vA/carrier && [ "$c" = 1 ]' 10 || sv_fail "vA has no carrier"
rdma link add rxe_p0 type rxe netdev vA
sv_on_exit 'rdma link delete rxe_p0 2>/dev/null'
# the port state "rdma link show" prints, read from sysfs without an exec
sv_wait_for 'st= && read -r st </sys/class/infiniband/rxe_p0/ports/1/state && [[ $st == *ACTIVE ]]' 10 ||
	sv_fail "rxe_p0 port not ACTIVE"

# the RoCE v2 GID of 10.32.0.1 (lib.sh reads the table with builtins)
gid_index() { sv_gid_index rxe_p0 0000:0000:0000:0000:0000:ffff:0a20:0001 'RoCE v2'; }
sv_wait_for gid_index 10 || sv_fail "no IPv4 RoCE v2 GID on rxe_p0"
_sv_gid_find rxe_p0 0000:0000:0000:0000:0000:ffff:0a20:0001 'RoCE v2'
gid=$_sv_gid

# Without the override the device does not exist for libsoftverbs.
rc=0
out=$(LD_LIBRARY_PATH=$shim timeout 20 ibv_rc_pingpong -d rxe_p0 -g "$gid" 2>&1) || rc=$?
echo "$out"
[ $rc -ne 0 ] && [[ $out == *'rxe_p0 not found'* ]] ||
	sv_fail "rxe_p0 visible without SOFTVERBS_ALLOW_RXE (rc $rc)"

export LD_LIBRARY_PATH=$shim SOFTVERBS_ALLOW_RXE=1
port=18515
run_pair() {
	local prog=$1 srv cli rc_s=0 rc_c=0
	shift
	port=$((port + 1))
	# the output files next to the shim, overwritten per run (no mktemp,
	# cat or rm: each exec costs 0.2-0.5 s under the debug kernel)
	srv=$shim/$port.srv cli=$shim/$port.cli
	timeout 60 "$prog" -d rxe_p0 -g "$gid" -p $port "$@" >"$srv" 2>&1 &
	local pid=$!
	sv_wait_for "sv_tcp_listening $port" 30 ||
		sv_fail "$prog server did not listen: $(<"$srv")"
	timeout 60 "$prog" -d rxe_p0 -g "$gid" -p $port "$@" localhost >"$cli" 2>&1 || rc_c=$?
	wait $pid || rc_s=$?
	echo "--- $prog $* (server rc $rc_s, client rc $rc_c)"
	printf '%s\n' "$(<"$srv")" "$(<"$cli")"
	[ $rc_s -eq 0 ] && [ $rc_c -eq 0 ] || sv_fail "$prog $* failed"
}
run_pair ibv_rc_pingpong -n 200 -s 4096 -c	# -c: check the data
run_pair ibv_rc_pingpong -n 100 -s 1 -e	# completion events
run_pair ibv_uc_pingpong -n 100 -s 1024
run_pair ibv_ud_pingpong -n 100 -s 512
run_pair ibv_srq_pingpong -n 100 -s 1024 -q 4
echo "distro pingpong programs ran on libsoftverbs"
