#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# Queue pairs, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net                                   netns sv-qp
#   sv_qp0 (softverbs) on vA 10.24.0.1/24 ===== veth ===== vB
#
# Connected QPs are connected to themselves through the RoCEv2 GID of
# 10.24.0.1.  24-qp.py does the verbs: RC/UC/UD QPs with various caps (caps
# beyond the limits refused), every legal state transition with query_qp
# returning exactly what was set, illegal transitions and wrong attribute
# masks refused with EINVAL, path migration with EOPNOTSUPP, what the IBTA
# and RoCE NICs take accepted (a 32-bit flow label, as UCX passes: its low
# 20 bits), send WRs posted before RTS refused and never executed, flushing
# on the way to ERR (IBV_WC_WR_FLUSH_ERR, in order), UD and UC messages
# longer than the receive dropped with the receive kept,
# destroy with WRs posted, the SQ_DRAINED and LAST_WQE_REACHED events, and a
# controlled Q_Key refused without CAP_NET_RAW.  Here: ib_mad opens the port
# (its QP1 is in RTS, no "Couldn't create ib_mad" errors), a process killed
# with SIGKILL while holding QPs and a device removed under a process holding
# QPs leave the QP count where it started (ib_mad's QP1 included); the
# module unloads; the kernel log stays clean.
#
# Not driven from here: WQEs executed on the wire (the data tests, 5x), the
# error events (qp_kunit), the SQ draining with WQEs in flight, COMM_EST.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/objects.sh
. "$sv_lib/objects.sh"

sv_need ip rdma

dev=sv_qp0
log_start=$(dmesg | wc -l)
new_log() { dmesg | tail -n +"$((log_start + 1))"; }

sv_load_module
sv_on_exit sv_unload_module
sv_netns_add sv-qp
sv_veth_pair vA vB sv-qp
ip addr add 10.24.0.1/24 dev vA
ip -n sv-qp addr add 10.24.0.2/24 dev vB
rdma link add $dev type softverbs netdev vA
sv_on_exit "rdma link delete $dev 2>/dev/null"

gid=0000:0000:0000:0000:0000:ffff:0a18:0001	# ::ffff:10.24.0.1
sv_wait_for "sv_gid_index $dev $gid" 10 || sv_fail "no RoCE v2 GID for 10.24.0.1"
gid4=$(sv_gid_index $dev $gid)
echo "GID index of 10.24.0.1: RoCE v2 $gid4"

echo "--- ib_mad opened the port"
sv_wait_for "[[ \$(rdma resource show qp link $dev/1) == *'lqpn 1 type GSI state RTS'* ]]" 10 ||
	sv_fail "no QP1 in RTS: $(rdma resource show qp link $dev/1)"
rdma resource show qp link $dev/1
errs=$(new_log | grep -iE "ib_mad|couldn't create" || true)
[ -z "$errs" ] || sv_fail "ib_mad errors: $errs"
sv_objects 24-qp.py QP qp $dev "$gid4"
[ "$SV_OBJ_BASE" = 1 ] || sv_fail "expected ib_mad's QP1 alone, got $SV_OBJ_BASE QPs"
echo "ok: QP1 in RTS, no ib_mad errors"

sv_obj_cases caps states errors early toolong flush events

echo "--- controlled Q_Key without CAP_NET_RAW"
if command -v setpriv >/dev/null; then
	setpriv --inh-caps=-net_raw --bounding-set=-net_raw \
		$sv_py "$SV_OBJ_HELPER" $dev "$gid4" qkey-unpriv 4>&- || sv_fail "24-qp.py qkey-unpriv"
else
	echo "note: setpriv is not installed, the unprivileged Q_Key case is skipped"
fi

sv_assert_eq "$SV_OBJ_BASE" "$(sv_obj_count)" "QP count after the verbs checks"

# (the QP counts include ib_mad's QP1)
sv_obj_check_sigkill 30
sv_obj_check_removal 12

sv_unload_clean "$log_start"
