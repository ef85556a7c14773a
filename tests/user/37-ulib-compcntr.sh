#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# Completion counters through libsoftverbs (ulib/examples/compcntr), on
# one softverbs device:
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#
# Where ib_core has the completion counter object (7.3+): capabilities,
# set/inc/read, counters per operation type on an RC pair (SEND, RDMA
# WRITE, RDMA READ on the requester; RECV, remote WRITE, remote READ on
# the responder) with unsignaled work requests, exact counts; a bad rkey
# READ and the flushes after it in the error counts; attach in RTS
# (EINVAL), overlapping attach (EBUSY), destroy while attached (EBUSY).
# Elsewhere (6.1, 6.12: no such object in ib_core) every call is
# EOPNOTSUPP and the program says so: a skip.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
prog=$SV_TOOLS/ulib/examples/compcntr
[ -x "$prog" ] || sv_fail "$prog is not built (make -C ulib)"
grep -q 'libibverbs' <<<"$(readelf -d "$prog")" && sv_fail "compcntr links libibverbs"
sv_ulib_device

rc=0
out=$(timeout -k 5 120 "$prog" -d sv_u0 2>&1) || rc=$?
echo "$out"
case $rc in
0) echo "SV_SUMMARY: completion counters on $SV_KVER: counted" ;;
4) sv_skip "completion counters on $SV_KVER: EOPNOTSUPP (no completion counter object in this kernel's ib_core)" ;;
*)
	dmesg | tail -n 30
	sv_fail "compcntr against sv_u0 exited $rc"
	;;
esac
