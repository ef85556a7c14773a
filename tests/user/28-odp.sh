#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# On-demand paging MRs (IBV_ACCESS_ON_DEMAND): nothing pinned, pages
# faulted when the transport needs them, invalidated through the MMU
# interval notifier (Documentation/design.md, "On-demand paging").
#
#   netns sv-28a  sv28a (softverbs) on x28a 10.128.0.1 ==== x28b 10.128.0.2 sv28b (softverbs)  netns sv-28b
#
# 28-odp.py: odp_caps as implemented (explicit and implicit); RDMA WRITE
# into untouched pages, SEND/READ/atomics with ODP on both sides, munmap +
# remap between two WRITEs, READ of pages madvised away, fork (COW) with
# ibv_fork_init, invalidations racing 8 WRITE+READ pairs in flight (the
# target's pages) and 8 READs (the requester's pages), a WRITE to an
# unmapped page (remote access error), a process killed while faulting;
# implicit MRs (NULL, SIZE_MAX) from two QPs, with munmap/remap and
# unmapped targets; rereg of ODP MRs; UD and UC receive into ODP (dropped
# and counted, then landing), SRQ receive, ATOMIC WRITE.  Then the ODP hw
# counters of both devices.
# ulib/examples/odp: ibv_advise_mr through libsoftverbs (prefetch for
# writing with FLUSH, no-fault, asynchronous, refusals, an implicit MR);
# librxe has no advise_mr, so only libsoftverbs callers reach the
# kernel's ADVISE_MR.
# ulib/examples/mpe -o: FLUSH and ATOMIC WRITE into ODP MRs (rdma-core 44
# has no FLUSH verb); where ib_core lacks FLUSH (6.1) it says SKIP.
# ulib/examples/dmabuf: a dma-buf MR (ibv_reg_dmabuf_mr, libsoftverbs only
# too) from /dev/udmabuf and from the system DMA heap, with WRITE, READ,
# fetch-and-add and a SEND gathered from it; Debian's 6.1 has neither
# exporter: those parts say SKIP.
# Last, "rdma link delete" of a device under a process whose ODP MR is
# mapped (and maybe still being prefetched); the process then unmaps it.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/28-odp.py
# looked for, not imported: a python start costs seconds under KASAN
compgen -G "/usr/lib/python3/dist-packages/pyverbs/qp.*.so" >/dev/null ||
	sv_skip "python3-pyverbs is not installed"

rc=0
# where the time goes: seconds per phase, in an SV_SUMMARY line at the end
phases=
t_phase=$SECONDS
phase() {
	phases+=" $1=$((SECONDS - t_phase))"
	t_phase=$SECONDS
}
run() {
	echo "=== $1"
	shift
	timeout -k 5 $((120 * SV_TIME_SCALE)) "$@" && return 0
	echo "--- kernel log"
	dmesg | tail -n 30
	rc=1
}

sv_xport_setup 28 softverbs softverbs
phase setup
# one python (importing pyverbs takes 5-20 s under the debug kernel)
run "ODP capabilities of $XP_A_DEV, traffic $XP_A_DEV -> $XP_B_DEV" \
	$py "$helper" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" \
	${SV_ODP_CASES:+"$SV_ODP_CASES"}
phase py
odp=$SV_TOOLS/ulib/examples/odp
[ -x "$odp" ] || sv_fail "no $odp: build ulib (make -C ulib)"
run "prefetch (ibv_advise_mr, libsoftverbs) on $XP_A_DEV" "$odp" "$XP_A_DEV"
phase prefetch
# dma-buf MRs from both exporters there are: a udmabuf (a memfd's pages)
# and the system DMA heap (the heap's own pages, mapped through the dma-buf)
dmabuf_ok=
for src in udmabuf heap; do
	echo "=== dma-buf MR ($src; ibv_reg_dmabuf_mr, libsoftverbs) on $XP_A_DEV"
	st=0
	timeout -k 5 $((60 * SV_TIME_SCALE)) "$SV_TOOLS/ulib/examples/dmabuf" \
		$([ $src = heap ] && echo -H) "$XP_A_DEV" "$XP_A_GID4" || st=$?
	case $st.$src in
	0.*) dmabuf_ok+=" $src" ;;
	4.udmabuf) echo "SV_SUMMARY: dma-buf MR from udmabuf not tested: no /dev/udmabuf on $SV_KVER (CONFIG_UDMABUF)" ;;
	4.heap) echo "SV_SUMMARY: dma-buf MR from a DMA heap not tested: no /dev/dma_heap/system on $SV_KVER (CONFIG_DMABUF_HEAPS_SYSTEM)" ;;
	*)
		dmesg | tail -n 30
		rc=1
		;;
	esac
done
[ -z "$dmabuf_ok" ] || echo "SV_SUMMARY: dma-buf MRs with traffic from:$dmabuf_ok"
echo "=== FLUSH and ATOMIC WRITE into ODP MRs (libsoftverbs) $XP_A_DEV <-> $XP_B_DEV"
st=0
timeout -k 5 $((60 * SV_TIME_SCALE)) "$SV_TOOLS/ulib/examples/mpe" -o \
	"$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" || st=$?
case $st in
0) ;;
4) echo "SV_SUMMARY: FLUSH into ODP MRs not tested: ib_core of $SV_KVER lacks FLUSH" ;;
*)
	dmesg | tail -n 30
	rc=1
	;;
esac
phase dmabuf+mpe
# last: the device goes away under a process holding a mapped ODP MR
echo "=== removal of $XP_B_DEV under an ODP MR"
coproc HOLD { timeout -k 5 $((60 * SV_TIME_SCALE)) "$odp" "$XP_B_DEV" hold; }
# bash forgets HOLD_PID once the coprocess has ended
hold_pid=$HOLD_PID
read -r -t $((30 * SV_TIME_SCALE)) line <&"${HOLD[0]}" || line=
if [ "$line" = holding ]; then
	timeout "$(sv_t 20)" rdma link delete "$XP_B_DEV" 2>/dev/null ||
		timeout "$(sv_t 20)" ip netns exec "$XP_B_NS" rdma link delete "$XP_B_DEV" ||
		{ echo "rdma link delete failed or blocked"; rc=1; }
	echo go >&"${HOLD[1]}"
	cat <&"${HOLD[0]}"
else
	echo "odp hold did not start: '$line'"
	rc=1
fi
wait "$hold_pid" || { echo "odp hold failed"; rc=1; }
phase removal
echo "SV_SUMMARY: seconds per phase:$phases"
[ $rc -eq 0 ] || sv_fail "on-demand paging failures (see FAIL lines above)"
