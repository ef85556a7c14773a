#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# ODP faults that never end (Documentation/design.md, "On-demand paging"):
# ulib/examples/odpfuse serves a FUSE file whose READs are never answered,
# a victim process registers an ODP MR over its mapping and has 300 UD
# SENDs fault in it.  Another process's ODP traffic on the same device
# must still complete; the victim's QP destroys and MR dereg must return,
# and a second victim be reaped after SIGKILL, each within 10 s.  Last,
# "rdma link delete" of the device returns.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
odpfuse=$SV_TOOLS/ulib/examples/odpfuse
[ -x "$odpfuse" ] || sv_fail "no $odpfuse: build ulib (make -C ulib)"
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true
[ -c /dev/fuse ] || sv_skip "no /dev/fuse on $SV_KVER"

rc=0
sv_xport_setup 29 softverbs softverbs
echo "=== stuck ODP faults in a FUSE file on $XP_A_DEV"
st=0
timeout -k 5 $((180 * SV_TIME_SCALE)) "$odpfuse" "$XP_A_DEV" "$XP_A_GID4" ||
	st=$?
case $st in
0) ;;
4) sv_skip "odpfuse skipped" ;;
*)
	echo "odpfuse: exit $st"
	dmesg | tail -n 40
	rc=1
	;;
esac
echo "=== rdma link delete $XP_A_DEV"
timeout "$(sv_t 20)" rdma link delete "$XP_A_DEV" 2>/dev/null ||
	timeout "$(sv_t 20)" ip netns exec "$XP_A_NS" rdma link delete "$XP_A_DEV" ||
	{ echo "FAIL: rdma link delete failed or blocked"; rc=1; }
[ $rc -eq 0 ] || sv_fail "stuck ODP faults held other users or teardown"
