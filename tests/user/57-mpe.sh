#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=M
# IBTA 1.5 Memory Placement Extensions: RDMA ATOMIC WRITE and RDMA FLUSH,
# softverbs <-> softverbs and softverbs <-> Soft-RoCE, both directions.
#
#   netns sv-57a  sv57a (softverbs) on x57a 10.157.0.1 ==== x57b 10.157.0.2 sv57b (softverbs)  netns sv-57b
#   netns sv-5790a sv5790a (softverbs) on x5790a 10.190.0.1 ==== x5790b 10.190.0.2 rxe5790b (rdma_rxe)  init_net
#
# Capabilities: softverbs advertises ATOMIC WRITE on every kernel (from user
# QPs it needs nothing of ib_core) and FLUSH (global visibility, never
# persistent) exactly when the kernel's ib_core has it, which is when
# Soft-RoCE advertises ATOMIC WRITE (Linux 6.2+).  Without it (6.1): the
# capability check, an ATOMIC WRITE to that Soft-RoCE (which lacks it) ends
# in an error completion with nothing written, and 57-mpe.py run between
# the two softverbs devices; FLUSH is not tested there.
# With it:
#  - 57-mpe.py: ATOMIC WRITE through librxe's extended QP (data, wc opcode,
#    32 in a row, no remote write access -> IBV_WC_REM_ACCESS_ERR,
#    misaligned address -> error), both directions of both pairs;
#  - ulib/examples/mpe (libsoftverbs): FLUSH and ATOMIC WRITE from a
#    softverbs requester (softverbs_post_flush / _atomic_write), to
#    softverbs and to Soft-RoCE: success and completion opcodes, FLUSH of
#    a range and of an MR, FLUSH without flush access ->
#    IBV_WC_REM_ACCESS_ERR, persistent FLUSH -> IBV_WC_REM_ACCESS_ERR
#    (softverbs pair: nothing here can make memory persistent), misaligned
#    ATOMIC WRITE -> EINVAL.  Soft-RoCE takes a FLUSH only with its own
#    ICRC form: the module parameter rxe_flush_icrc=1 for that pair; the
#    softverbs pair runs with both forms.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/57-mpe.py
mpe=$SV_TOOLS/ulib/examples/mpe
# located, not imported: importing pyverbs takes 5-20 s under the debug kernel
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"

rc=0
run() {
	echo "=== $1"
	shift
	timeout -k 5 300 "$@" && return 0
	echo "--- kernel log"
	dmesg | tail -n 30
	rc=1
}

sv_xport_setup 5790 softverbs rxe
# Soft-RoCE's own capabilities say whether this ib_core has the extensions;
# "probe" checks softverbs' against them and, without them, the refused
# ATOMIC WRITE, in one python process
echo "=== capabilities of $XP_A_DEV (and ATOMIC WRITE where unsupported)"
st=0
timeout -k 5 300 $py "$helper" probe "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" || st=$?
case $st in
0 | 1) have=1 ;;
2 | 3) have=0 ;;
*)
	echo "probe exited $st"
	have=0 st=1
	;;
esac
if [ $((st & 1)) -ne 0 ]; then
	echo "--- kernel log"
	dmesg | tail -n 30
	rc=1
fi
if [ $have = 0 ]; then
	[ $rc -eq 0 ] || sv_fail "capabilities or ATOMIC WRITE to Soft-RoCE wrong (see above)"
	sv_xport_setup 57 softverbs softverbs
	run "capabilities of $XP_A_DEV (no FLUSH on $SV_KVER)" $py "$helper" caps "$XP_A_DEV" 0
	run "ATOMIC WRITE softverbs - softverbs" $py "$helper" run \
		"$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
	[ $rc -eq 0 ] || sv_fail "ATOMIC WRITE failures (see FAIL lines above)"
	echo "note: FLUSH not tested: ib_core of $SV_KVER lacks it (not advertised)"
	exit 0
fi
run "ATOMIC WRITE softverbs - Soft-RoCE" $py "$helper" run \
	"$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
[ -x "$mpe" ] || sv_fail "no $mpe: build ulib (make -C ulib)"
# Soft-RoCE accepts only its own FLUSH ICRC (kmod/sv_icrc.c)
param=/sys/module/softverbs/parameters/rxe_flush_icrc
echo 1 > $param
run "FLUSH/ATOMIC WRITE libsoftverbs -> Soft-RoCE (rxe_flush_icrc=1)" \
	$py "$helper" flush-peer "$mpe" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
echo 0 > $param

sv_xport_setup 57 softverbs softverbs
run "capabilities of $XP_A_DEV" $py "$helper" caps "$XP_A_DEV" 1
run "ATOMIC WRITE softverbs - softverbs" $py "$helper" run \
	"$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
# both ICRC forms of a FLUSH are accepted
for form in 0 1; do
	echo $form > $param
	run "FLUSH/ATOMIC WRITE libsoftverbs softverbs -> softverbs (rxe_flush_icrc=$form)" \
		"$mpe" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4"
done
echo 0 > $param
[ $rc -eq 0 ] || sv_fail "memory placement extension failures (see FAIL lines above)"
