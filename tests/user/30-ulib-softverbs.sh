#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# libsoftverbs' object test (ulib/examples/loopback) against softverbs.
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#
# The same program 30-ulib-objects.sh runs against Soft-RoCE, plus its
# threaded phase (-t: two threads posting to one SQ while a third polls),
# which Soft-RoCE fails (it loses completions; librxe too): every object,
# RC ping-pong with data checks, UD send and reply through
# ibv_create_ah_from_wc, all through libsoftverbs' mapped rings.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
loopback=$SV_TOOLS/ulib/examples/loopback
[ -x "$loopback" ] || sv_fail "$loopback is not built (make -C ulib)"
sv_ulib_device

rc=0
out=$("$loopback" -v -d sv_u0 -n 200 -t 3 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || sv_fail "loopback against sv_u0 exited $rc"
echo "libsoftverbs drove sv_u0 end to end"
