# shellcheck shell=bash disable=SC2154 # sourced: run.sh's variables
# mutants.sh: proof that the fuzz targets can fail.  Each mutant is a copy
# of kmod/ with one bug planted, of the kind the targets exist to catch (a
# bound off by a little, a field read from the wrong place, a table row
# wrong); the target built from it must fail within a few seconds, from
# its seeds.  A mutant that survives means a check lost its teeth.
#
# Sourced by run.sh, which runs it after the fuzzing with -m, instead of
# it with -M (it uses run.sh's tap(), $b, $here, $root, $clang, $max_len
# and $targets: the mutants of the targets selected).  A mutant whose code
# is no longer in kmod/ (the line was rewritten) fails: a skip would let a
# rewrite drop the check it guards unnoticed (XRC's table rows did, once);
# update it here.

# FILE@CODE@MUTATED CODE@TARGET@the planted bug (@: a character no C
# code here uses)
mutant_list=(
	"sv_hdr.c@if (pad > rest)@if (pad > rest + 4)@hdr@pad longer than the payload accepted"
	"sv_hdr.c@if (len % 4)@if (len % 2)@hdr@length not a multiple of 4 accepted"
	"sv_hdr.c@rest - pad > SV_HDR_MAX_PAYLOAD@rest - pad > SV_HDR_MAX_PAYLOAD + 4@hdr@payload above 4096 accepted"
	"sv_hdr.c@len < info->hdr_len + SV_ICRC_BYTES@len < info->hdr_len@hdr@packet without room for the ICRC accepted"
	"sv_hdr.c@paylen < 256@paylen < 128@hdr@First packet of 128 bytes accepted"
	"sv_hdr.c@out->psn = sv_bth_psn(hdr);@out->psn = sv_bth_qpn(hdr);@hdr@PSN from the QPN field"
	"sv_hdr.c@paylen > len - SV_GRH_BYTES@paylen > len@hdr@GRH PayLen past the frame accepted"
	"sv_hdr.c@12288, 16384@12289, 16384@hdr@AETH credit table entry wrong"
	"sv_hdr.h@SV_EXT_RETH) + 8);@SV_EXT_RETH) + 4);@hdr@RETH R_Key read at the wrong offset"
	"sv_opcode.c@H(AETH) | H(ATMACK),@H(ATMACK),@hdr@Atomic ACK row without its AETH"
	"sv_wqe.c@if (wqe->dma.num_sge > qp->sq.max_sge)@if (wqe->dma.num_sge > qp->sq.max_sge + 1)@wqe@one SGE more than the QP has"
	"sv_wqe.c@if (num_sge > max_sge)@if (num_sge > max_sge + 1)@wqe@receive WQE with an SGE past its slot"
	"sv_wqe.c@wqe->dma.length > qp->sq.max_inline)@wqe->dma.length > qp->sq.max_inline * 2)@wqe@inline data longer than the slot holds"
	"sv_wqe.c@min_t(u64, length, U32_MAX)@(u32)length@wqe@receive length wraps instead of saturating"
	"sv_wqe.c@IS_ALIGNED(wqe->wr.wr.atomic.remote_addr, 8)@IS_ALIGNED(wqe->iova, 8)@wqe@atomic alignment checked on iova, not the AtomicETH address"
	"sv_opcode.c@WR(IB_WR_RDMA_READ, QPT(RC) | QPT(XRC),@WR(IB_WR_RDMA_READ, QPT(RC) | QPT(XRC) | QPT(UD),@wqe@RDMA READ allowed on UD"
	"sv_wqe.c@(IB_SEND_FENCE | IB_SEND_SIGNALED@(IB_SEND_IP_CSUM | IB_SEND_FENCE | IB_SEND_SIGNALED@wqe@IP_CSUM send flag accepted"
)

# the most a mutant may take to be caught, seconds of fuzzing
mutant_secs=${SV_FUZZ_MUTANT_SECS:-20}

mutant_run() {	# FILE CODE MUTATED TARGET WHY
	local file=$1 from=$2 to=$3 t=$4 why=$5
	local m=$b/mutant src text mutated rc t0 how
	src=$root/kmod/$file
	text=$(<"$src")
	mutated=${text/"$from"/"$to"}
	if [ "$mutated" = "$text" ]; then
		tap "not ok" "mutant: $why: '$from' is no longer in kmod/$file (update tests/fuzz/mutants.sh)"
		return
	fi
	m_tried=$((m_tried + 1))
	rm -rf "$m"
	mkdir -p "$m/kmod/compat"
	cp "$root"/kmod/*.[ch] "$m/kmod/"
	cp "$root/kmod/compat/compat.h" "$m/kmod/compat/"
	printf '%s\n' "$mutated" >"$m/kmod/$file"
	if ! make -s -C "$here" CLANG="$clang" KMOD="$m/kmod" B="$m" \
		"$m/fuzz_$t" >"$m.log" 2>&1; then
		sed 's/^/# /' "$m.log" | tail -n 20
		tap "not ok" "mutant: $why: does not build"
		return
	fi
	mkdir -p "$m/corpus"
	t0=$SECONDS
	# in a subshell that waits for it: its "Aborted" goes to the log too
	("$m/fuzz_$t" -max_total_time="$mutant_secs" -max_len="${max_len[$t]}" \
		-use_value_profile=1 -timeout=10 -artifact_prefix="$m/" \
		"$m/corpus" "$b/seeds/$t"; exit $?) >"$m.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		tap "not ok" "mutant: $why: survived ${mutant_secs} s of fuzz_$t"
		return
	fi
	how=$(grep -o -m 1 -E 'FUZZ CHECK FAILED|AddressSanitizer|runtime error|WARN_ON|BUG_ON' "$m.log")
	m_caught=$((m_caught + 1))
	tap ok "mutant: $why: caught by fuzz_$t in $((SECONDS - t0)) s (${how:-exit $rc})"
}

m_tried=0 m_caught=0
for mutant in "${mutant_list[@]}"; do
	IFS=@ read -r m_file m_from m_to m_target m_why <<<"$mutant"
	[[ " ${targets[*]} " == *" $m_target "* ]] || continue
	mutant_run "$m_file" "$m_from" "$m_to" "$m_target" "$m_why"
done
rm -rf "$b/mutant" "$b/mutant.log"
