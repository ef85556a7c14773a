// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of received RoCEv2 transport headers, and the AETH credit
 * encoding.  No QP state: tests/kunit/hdr_kunit.c feeds it malformed
 * packets.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>

#include "sv_hdr.h"

/*
 * sv_hdr_parse(), and for @npkts > 1 sv_hdr_parse_local()'s burst: inlined
 * into both, as it is per packet
 */
static __always_inline int sv_hdr_parse_any(const void *buf, size_t len,
					    struct sv_pkt_info *out, u8 npkts)
{
	bool local = npkts > 1;
	const struct sv_opcode_info *info;
	const u8 *hdr = buf;
	size_t rest;
	u32 paylen = 0;
	u8 pad;

	if (len < SV_BTH_BYTES + SV_ICRC_BYTES)
		return -ENODATA;
	if (sv_bth_tver(hdr) != SV_BTH_TVER)
		return -EPROTONOSUPPORT;
	info = sv_opcode_info(sv_bth_opcode(hdr));
	if (!info)
		return -EBADRQC;
	if (len < info->hdr_len + SV_ICRC_BYTES)
		return -EMSGSIZE;
	/*
	 * Headers and ICRC are multiples of 4 bytes and the pad makes the
	 * payload one (IBTA 9.2, "Pad Count"), so the packet is one too.
	 */
	if (len % 4)
		return -EBADMSG;

	rest = len - info->hdr_len - SV_ICRC_BYTES;	/* payload + pad */
	pad = sv_bth_pad(hdr);
	if (!(info->flags & SV_OP_PAYLOAD)) {
		if (rest || pad)
			return -EBADMSG;
	} else {
		if (pad > rest)
			return -EBADMSG;
		if (rest - pad > SV_HDR_MAX_PAYLOAD &&
		    (!local || rest - pad > SV_HDR_MAX_LOCAL_PAYLOAD))
			return -E2BIG;
		paylen = rest - pad;
		/*
		 * First and Middle packets carry exactly the path MTU, a
		 * power of two from 256 to 4096 (IBTA 9.7.7): no pad.  A
		 * local burst carries a multiple of it.
		 */
		if (!(info->flags & SV_OP_LAST) &&
		    (pad || paylen < 256 ||
		     (local ? paylen % 256 : !is_power_of_2(paylen))))
			return -EBADMSG;
		/* IBTA 1.5: an ATOMIC WRITE carries exactly 8 bytes */
		if ((info->flags & SV_OP_ATOMIC_WRITE) && paylen != 8)
			return -EBADMSG;
	}

	out->info = info;
	out->hdr = hdr;
	out->len = len;
	out->paylen = paylen;
	out->qpn = sv_bth_qpn(hdr);
	out->psn = sv_bth_psn(hdr);
	out->pkey = sv_bth_pkey(hdr);
	out->opcode = sv_bth_opcode(hdr);
	out->pad = pad;
	out->npkts = local ? npkts : 1;
	out->bth_flags = (sv_bth_se(hdr) ? SV_BTH_SE : 0) |
			 (sv_bth_mig(hdr) ? SV_BTH_MIG : 0) |
			 (sv_bth_ackreq(hdr) ? SV_BTH_ACKREQ : 0) |
			 (sv_bth_fecn(hdr) ? SV_BTH_FECN : 0) |
			 (sv_bth_becn(hdr) ? SV_BTH_BECN : 0);
	return 0;
}

/**
 * sv_hdr_parse - check a received packet as far as no QP state is needed
 * @buf:	the packet: the UDP payload, starting at the BTH
 * @len:	its length in bytes, through the ICRC
 * @out:	filled in on success
 *
 * Reads only @buf[0..@len) and the BTH only once @len covers BTH + ICRC.
 * Not checked here: the ICRC (sv_icrc.h), and everything that depends on
 * the QP (QPN exists, PSN in window, payload = path MTU, P_Key, Q_Key,
 * the AETH syndrome's meaning).  Reserved fields are ignored (IBTA 9.2).
 *
 * Return: 0, or the class of defect:
 *  -ENODATA		shorter than BTH + ICRC
 *  -EPROTONOSUPPORT	BTH TVer is not 0
 *  -EBADRQC		opcode unknown here (RD, reserved, vendor)
 *  -EMSGSIZE		shorter than the opcode's headers + ICRC
 *  -EBADMSG		length and pad inconsistent: length not a multiple
 *			of 4, pad count larger than what follows the
 *			headers, payload or pad on an opcode without
 *			payload, pad or a payload that is no possible path
 *			MTU on a First/Middle packet, ATOMIC WRITE payload
 *			not 8 bytes
 *  -E2BIG		payload above the largest path MTU (4096)
 */
int sv_hdr_parse(const void *buf, size_t len, struct sv_pkt_info *out)
{
	return sv_hdr_parse_any(buf, len, out, 1);
}

/**
 * sv_hdr_parse_local - sv_hdr_parse() for a packet from a device of this host
 * @buf:	as sv_hdr_parse()
 * @len:	as sv_hdr_parse()
 * @npkts:	the packets it stands for, as its sender said (never from
 *		the packet's bytes): 1, or more for a local burst
 * @out:	as sv_hdr_parse(), @out->npkts = @npkts
 *
 * Only for what softverbs' own loopback queue delivered, never for bytes
 * from a wire.  A local burst's payload may reach SV_HDR_MAX_LOCAL_PAYLOAD
 * and, on a First or Middle packet, be any multiple of 256 bytes: the
 * responder checks it against @npkts and the path MTU.
 *
 * Return: as sv_hdr_parse().
 */
int sv_hdr_parse_local(const void *buf, size_t len, u8 npkts,
		       struct sv_pkt_info *out)
{
	return sv_hdr_parse_any(buf, len, out, npkts ?: 1);
}

/*
 * AETH credit count codes (IBTA 9.7.7.2, end-to-end flow control: the
 * credit count encoding table): code -> number of receive WQEs.  Code 31
 * (SV_AETH_CREDITS_INVALID) carries no count.
 */
static const u16 sv_aeth_credit_table[SV_AETH_CREDITS_INVALID] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768,
};

/*
 * The number of credits @credit_code announces, or U32_MAX for code 31
 * ("invalid": no limit given).  Only the low 5 bits of @credit_code count.
 */
u32 sv_aeth_credits(u8 credit_code)
{
	credit_code &= SV_AETH_VALUE_MASK;
	if (credit_code == SV_AETH_CREDITS_INVALID)
		return U32_MAX;
	return sv_aeth_credit_table[credit_code];
}

/*
 * The code for @credits available receive WQEs: the largest count not
 * above @credits, so a responder never announces more than it has.
 */
u8 sv_aeth_credit_code(u32 credits)
{
	u8 code = 0;

	while (code + 1 < ARRAY_SIZE(sv_aeth_credit_table) &&
	       sv_aeth_credit_table[code + 1] <= credits)
		code++;
	return code;
}

/**
 * sv_hdr_parse_grh - check the GRH of a received RoCE v1 packet
 * @buf:	the GRH
 * @len:	bytes from the GRH through the ICRC (link padding excluded
 *		or not: PayLen says where the packet ends)
 * @out:	its fields, on success
 *
 * A RoCE v1 GRH has IPVer 6 and NxtHdr 0x1B (IBTA 8.3.1, Annex A16.4),
 * and its PayLen covers at least a BTH and an ICRC and fits in @len (an
 * Ethernet frame may be padded behind it).  Any SGID and DGID, multicast
 * included, are the caller's to judge.
 *
 * Return: 0; -ENODATA shorter than a GRH, -EPROTONOSUPPORT another
 * version or next header, -EMSGSIZE a PayLen that does not fit.
 */
int sv_hdr_parse_grh(const void *buf, size_t len, struct sv_grh_info *out)
{
	const u8 *grh = buf;
	u32 vtf;
	u16 paylen;

	if (len < SV_GRH_BYTES)
		return -ENODATA;
	vtf = sv_get_be32(grh);
	if (vtf >> 28 != SV_GRH_IPVER || grh[SV_GRH_NXTHDR] != SV_GRH_NXTHDR_BTH)
		return -EPROTONOSUPPORT;
	paylen = sv_get_be16(grh + SV_GRH_PAYLEN);
	if (paylen < SV_BTH_BYTES + SV_ICRC_BYTES ||
	    paylen > len - SV_GRH_BYTES)
		return -EMSGSIZE;

	memcpy(out->sgid, grh + SV_GRH_SGID, sizeof(out->sgid));
	memcpy(out->dgid, grh + SV_GRH_DGID, sizeof(out->dgid));
	out->flow_label = vtf & 0xfffff;
	out->paylen = paylen;
	out->traffic_class = (vtf >> 20) & 0xff;
	out->hop_limit = grh[SV_GRH_HOPLMT];
	return 0;
}
