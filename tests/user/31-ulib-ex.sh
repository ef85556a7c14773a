#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# libsoftverbs' extended verbs against softverbs, end to end:
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#
#  - ulib/examples/rs_devinfo, rs_loopback, rs_doorbell: C ports of
#    rust-ibverbs 0.9's examples (devinfo, loopback, doorbell batching),
#    making the calls its types make (ibv_create_cq_ex, ibv_create_qp_ex,
#    ibv_wr_*, start_poll/next_poll/end_poll, ibv_query_gid_table,
#    ibv_query_device_ex, ibv_query_rt_values_ex);
#  - ulib/examples/exverbs: every ibv_wr_* operation softverbs executes in
#    one doorbell batch and beyond (MW type 2 bind/SEND_INV/LOCAL_INV,
#    ATOMIC WRITE, FLUSH where advertised, wr_abort, UD with
#    wr_set_ud_addr into an ibv_create_srq_ex SRQ), under a parent domain
#    with a thread domain and a custom allocator, and the ex verbs that
#    must answer EOPNOTSUPP.
# Each program is linked with -lsoftverbs only (checked with readelf).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
ex=$SV_TOOLS/ulib/examples
for p in rs_devinfo rs_loopback rs_doorbell exverbs; do
	[ -x "$ex/$p" ] || sv_fail "$ex/$p is not built (make -C ulib)"
	grep -q 'libibverbs' <<<"$(readelf -d "$ex/$p")" &&
		sv_fail "$p links libibverbs"
done
sv_ulib_device

for p in rs_devinfo rs_loopback rs_doorbell exverbs; do
	echo "=== $p"
	rc=0
	out=$("$ex/$p" -d sv_u0 2>&1) || rc=$?
	echo "$out"
	[ $rc -eq 0 ] || sv_fail "$p against sv_u0 exited $rc"
	if [ $p = rs_devinfo ]; then
		# ibv_get_device_index: the kernel's index, as RDMA netlink says
		want=$(rdma -j dev show sv_u0 | sed -n 's/.*"ifindex":\([0-9]*\).*/\1/p')
		[[ "$out" == *"name: sv_u0,"*"index: $want }"* ]] ||
			sv_fail "ibv_get_device_index of sv_u0 is not $want (rdma dev show)"
	fi
done
# what this kernel let exverbs test (FLUSH needs ib_core 6.2+)
echo "SV_SUMMARY: exverbs on $SV_KVER: $(echo "$out" | grep -E '^(FLUSH|MW type 2):' | paste -sd ';')"
echo "the extended verbs and rust-ibverbs' examples ran on sv_u0"
