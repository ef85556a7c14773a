#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# libsoftverbs' thread safety as libibverbs documents it, against softverbs
# (ulib/examples/threads): several threads post to one RC QP at once, half
# with ibv_post_send and half with ibv_wr_start..ibv_wr_complete batches,
# while several threads poll its one send CQ, half with ibv_poll_cq and
# half with start_poll/next_poll/end_poll.  Every RDMA WRITE must complete
# exactly once, successfully, and land.  Two runs: 4 posters/3 pollers and
# 8 posters/2 pollers.
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
threads=$SV_TOOLS/ulib/examples/threads
[ -x "$threads" ] || sv_fail "$threads is not built (make -C ulib)"
sv_ulib_device

for args in "-p 4 -c 3 -n 250" "-p 8 -c 2 -n 100"; do
	echo "=== threads $args"
	rc=0
	# shellcheck disable=SC2086 # word splitting of args is intended
	out=$("$threads" -d sv_u0 $args 2>&1) || rc=$?
	echo "$out"
	[ $rc -eq 0 ] || sv_fail "threads $args exited $rc"
	echo "SV_SUMMARY: $(echo "$out" | tail -n 1)"
done
echo "one QP, many posting and polling threads: every WR completed once"
