// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the receive-side header checks of kmod/sv_hdr.c,
 * sv_hdr_parse() (RoCEv2: BTH .. ICRC) and sv_hdr_parse_grh() (RoCE v1:
 * the GRH in front of it), with the opcode table of kmod/sv_opcode.c, both
 * compiled unchanged against the fake kernel headers in shim/.
 *
 * Every input is tried as a RoCEv2 packet (what follows the UDP header)
 * and as a RoCE v1 frame (what follows the Ethernet header: GRH, packet,
 * maybe link padding), as sv_recv.c hands them over.  What must hold:
 *
 *  - the verdict, accept or the errno class of the first defect, is the
 *    one of the IBTA model in ibta_model.h (written from the spec, not
 *    from kmod/), on every input;
 *  - an accepted packet: its opcode is one the model knows, with the
 *    model's headers at the model's offsets, all inside the packet and
 *    before the payload; payload + pad + headers + ICRC is the packet's
 *    length, and the pad is the one its payload length calls for; the
 *    BTH fields match the bytes; every extension header accessor reads
 *    what the bytes say; and building the packet again with sv_hdr.h's
 *    builders from what was parsed gives the same bytes, reserved bits
 *    cleared;
 *  - an accepted GRH: its fields match the bytes, PayLen fits, the
 *    builder gives the same 40 bytes, and the packet behind it (in a
 *    buffer of exactly PayLen bytes, as after the kernel trims the link
 *    padding) passes the same checks;
 *  - the AETH credit count encoding matches the spec's table both ways.
 *
 * At start-up the whole opcode table is compared with the model, opcode
 * by opcode.  Out-of-bounds reads, undefined behaviour and kernel WARNs
 * (DEBUG_NET_WARN_ON_ONCE in sv_hdr_ext()) abort through the sanitizers
 * and the shim.
 */
#include <linux/types.h>

#include "sv_hdr.h"

#include "fuzz.h"
#include "ibta_model.h"

static_assert(SV_BTH_BYTES == M_BTH_BYTES && SV_ICRC_BYTES == M_ICRC_BYTES);
static_assert(SV_GRH_BYTES == M_GRH_BYTES);
static_assert(SV_HDR_MAX_PAYLOAD == M_MAX_PAYLOAD);

/* kmod's name for each of the model's extension headers */
static const enum sv_ext ext_of[M_NEXT] = {
	[M_XRCETH] = SV_EXT_XRCETH,
	[M_FETH] = SV_EXT_FETH, [M_DETH] = SV_EXT_DETH,
	[M_RETH] = SV_EXT_RETH, [M_ATMETH] = SV_EXT_ATMETH,
	[M_AETH] = SV_EXT_AETH, [M_ATMACK] = SV_EXT_ATMACK,
	[M_IMMDT] = SV_EXT_IMMDT, [M_IETH] = SV_EXT_IETH,
	[M_CNP] = SV_EXT_CNP,
};

static u8 qp_type_of(char transport)
{
	switch (transport) {
	case 'R': return IB_QPT_RC;
	case 'U': return IB_QPT_UC;
	case 'D': return IB_QPT_UD;
	/* XRC requests go to target QPs, responses to initiators */
	case 'X': return IB_QPT_XRC_TGT;
	case 'Y': return IB_QPT_XRC_INI;
	default: return 0;	/* CNP */
	}
}

/* the opcode table, opcode by opcode, against the model */
static void check_table(void)
{
	static const u32 pos_flags[] = {
		[M_FIRST] = SV_OP_FIRST, [M_MIDDLE] = SV_OP_MIDDLE,
		[M_LAST] = SV_OP_LAST, [M_ONLY] = SV_OP_FIRST | SV_OP_LAST,
	};
	unsigned int op, e, known = 0;

	fuzz_input = NULL;
	fuzz_input_len = 0;
	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		const struct m_op *m = m_op_find(op);

		CHECK(!info == !m, "opcode 0x%02x: kmod %s it, the model %s",
		      op, info ? "knows" : "does not know",
		      m ? "does" : "does not");
		if (!m)
			continue;
		known++;
		CHECK(info->hdr_len == m_hdr_len(m),
		      "%s: header length %u, model %u", m->name,
		      info->hdr_len, m_hdr_len(m));
		for (e = 0; e < M_NEXT; e++) {
			bool has = sv_opcode_has(info, ext_of[e]);
			unsigned int off = info->off[ext_of[e]];

			CHECK(has == (bool)m_has(m, e),
			      "%s: extension header %u %s in kmod's table",
			      m->name, e, has ? "present" : "absent");
			CHECK(off == (has ? m_ext_off(m, e) : 0),
			      "%s: extension header %u at %u, model %u",
			      m->name, e, off, has ? m_ext_off(m, e) : 0);
			CHECK(off + (has ? m_ext_bytes[e] : 0) <= info->hdr_len,
			      "%s: extension header %u ends past the headers",
			      m->name, e);
		}
		CHECK(!(info->flags & SV_OP_PAYLOAD) ==
		      (m->payload == M_PL_NONE), "%s: payload flag", m->name);
		CHECK((info->flags & (SV_OP_FIRST | SV_OP_MIDDLE | SV_OP_LAST)) ==
		      pos_flags[m->pos], "%s: position flags 0x%x", m->name,
		      info->flags);
		CHECK(!(info->flags & SV_OP_ATOMIC_WRITE) ==
		      (m->payload != M_PL_EIGHT), "%s: ATOMIC WRITE flag",
		      m->name);
		CHECK(info->qp_type == qp_type_of(m->transport),
		      "%s: QP type %u", m->name, info->qp_type);
	}
	CHECK(known == M_NUM_OPS, "model rows %zu, matched %u", M_NUM_OPS,
	      known);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	check_table();
	return 0;
}

/* the model's offset of extension header @e of the accepted packet @m */
static const u8 *ext_at(const u8 *p, const struct m_pkt *m, enum m_ext e)
{
	const u8 *kmod = sv_hdr_ext(p, ext_of[e]);

	CHECK(kmod == p + m_ext_off(m->op, e),
	      "%s: sv_hdr_ext(%u) at offset %td, model %u", m->op->name, e,
	      kmod - p, m_ext_off(m->op, e));
	return kmod;
}

/*
 * Every accessor of every header the packet has reads what the bytes at
 * the model's offset say; then the builders, given those values, must
 * give back the packet with its reserved bits cleared.
 */
static void check_fields(const u8 *p, size_t len, const struct m_pkt *m,
			 const struct sv_pkt_info *pi)
{
	const struct m_op *op = m->op;
	u8 *want = fuzz_exact_copy(p, len);
	u8 *built = malloc(len);
	const u8 *x;
	size_t i;

	CHECK(built, "out of memory");
	memset(built, 0x5a, len);
	sv_hdr_build_bth(built, pi->opcode, pi->bth_flags, pi->pkey, pi->qpn,
			 pi->psn, pi->paylen);
	/* BTH reserved bits: resv6 (byte 4, 5:0), resv7 (byte 8, 6:0) */
	want[4] &= 0xc0;
	want[8] &= 0x80;

	if (m_has(op, M_XRCETH)) {
		x = ext_at(p, m, M_XRCETH);
		CHECK(sv_xrceth_srqn(p) == m_be24(x + 1), "%s: XRCETH",
		      op->name);
		sv_hdr_build_xrceth(built, sv_xrceth_srqn(p));
		want[x - p] = 0;	/* reserved byte before the SRQ number */
	}
	if (m_has(op, M_FETH)) {
		u32 w;

		x = ext_at(p, m, M_FETH);
		w = m_be32(x);
		CHECK(sv_feth_plt(p) == (w & 0xf) &&
		      sv_feth_sel(p) == ((w >> 4) & 3), "%s: FETH", op->name);
		sv_hdr_build_feth(built, sv_feth_plt(p), sv_feth_sel(p));
		/* FETH: all but placement type and selectivity is reserved */
		memset(want + (x - p), 0, 3);
		want[x - p + 3] &= 0x3f;
	}
	if (m_has(op, M_DETH)) {
		x = ext_at(p, m, M_DETH);
		CHECK(sv_deth_qkey(p) == m_be32(x) &&
		      sv_deth_sqp(p) == m_be24(x + 5), "%s: DETH", op->name);
		sv_hdr_build_deth(built, sv_deth_qkey(p), sv_deth_sqp(p));
		want[x - p + 4] = 0;	/* reserved byte before the source QP */
	}
	if (m_has(op, M_RETH)) {
		x = ext_at(p, m, M_RETH);
		CHECK(sv_reth_va(p) == m_be64(x) &&
		      sv_reth_rkey(p) == m_be32(x + 8) &&
		      sv_reth_len(p) == m_be32(x + 12), "%s: RETH", op->name);
		sv_hdr_build_reth(built, sv_reth_va(p), sv_reth_rkey(p),
				  sv_reth_len(p));
	}
	if (m_has(op, M_ATMETH)) {
		x = ext_at(p, m, M_ATMETH);
		CHECK(sv_atmeth_va(p) == m_be64(x) &&
		      sv_atmeth_rkey(p) == m_be32(x + 8) &&
		      sv_atmeth_swap_add(p) == m_be64(x + 12) &&
		      sv_atmeth_comp(p) == m_be64(x + 20),
		      "%s: AtomicETH", op->name);
		sv_hdr_build_atmeth(built, sv_atmeth_va(p), sv_atmeth_rkey(p),
				    sv_atmeth_swap_add(p), sv_atmeth_comp(p));
	}
	if (m_has(op, M_AETH)) {
		u8 syn;

		x = ext_at(p, m, M_AETH);
		syn = sv_aeth_syndrome(p);
		CHECK(syn == x[0] && sv_aeth_msn(p) == m_be24(x + 1),
		      "%s: AETH", op->name);
		CHECK(sv_aeth_type(syn) == ((x[0] >> 5) & 3) &&
		      sv_aeth_value(syn) == (x[0] & 0x1f),
		      "%s: AETH syndrome 0x%02x", op->name, syn);
		CHECK(sv_aeth_credits(syn) == m_credits(syn),
		      "AETH credit code %u: %u credits, IBTA %u", syn & 0x1f,
		      sv_aeth_credits(syn), m_credits(syn));
		sv_hdr_build_aeth(built, syn, sv_aeth_msn(p));
	}
	if (m_has(op, M_ATMACK)) {
		x = ext_at(p, m, M_ATMACK);
		CHECK(sv_atmack_orig(p) == m_be64(x), "%s: AtomicAckETH",
		      op->name);
		sv_hdr_build_atmack(built, sv_atmack_orig(p));
	}
	if (m_has(op, M_IMMDT)) {
		__be32 imm;

		x = ext_at(p, m, M_IMMDT);
		imm = sv_immdt_imm(p);
		CHECK(!memcmp(&imm, x, 4), "%s: ImmDt", op->name);
		sv_hdr_build_immdt(built, imm);
	}
	if (m_has(op, M_IETH)) {
		x = ext_at(p, m, M_IETH);
		CHECK(sv_ieth_rkey(p) == m_be32(x), "%s: IETH", op->name);
		sv_hdr_build_ieth(built, sv_ieth_rkey(p));
	}
	if (m_has(op, M_CNP)) {
		x = ext_at(p, m, M_CNP);
		sv_hdr_build_cnp(built);
		memset(want + (x - p), 0, 16);	/* reserved (A17.9.3) */
	}

	/* payload, pad and ICRC are the packet's, whatever they hold */
	memcpy(built + m->hdr_len, p + m->hdr_len, len - m->hdr_len);
	for (i = 0; i < len && built[i] == want[i]; i++)
		;
	CHECK(i == len, "%s: rebuilt, byte %zu is 0x%02x, the packet's 0x%02x (reserved bits 0)",
	      op->name, i, built[i], want[i]);
	free(built);
	free(want);
}

/* @p, @len: a packet from the BTH through the ICRC, nothing after it */
static void check_packet(const u8 *p, size_t len)
{
	struct sv_pkt_info pi;
	struct m_pkt m;
	const u8 *pl;
	int want, got;
	u32 bth_flags;

	memset(&pi, 0xa5, sizeof(pi));
	want = m_parse(p, len, &m);
	got = sv_hdr_parse(p, len, &pi);
	CHECK(got == want, "sv_hdr_parse: %d, the IBTA model: %d (opcode 0x%02x, %zu bytes)",
	      got, want, len ? p[0] : 0, len);
	if (got)
		return;

	/* where everything is */
	CHECK(pi.info == sv_opcode_info(p[0]) && pi.info && pi.info->name,
	      "%s: info", m.op->name);
	CHECK(pi.hdr == p && pi.len == len, "%s: hdr %p len %u, packet %p len %zu",
	      m.op->name, pi.hdr, pi.len, p, len);
	CHECK(pi.info->hdr_len == m.hdr_len && pi.paylen == m.paylen &&
	      pi.pad == m.pad, "%s: headers %u payload %u pad %u, model %u %u %u",
	      m.op->name, pi.info->hdr_len, pi.paylen, pi.pad, m.hdr_len,
	      m.paylen, m.pad);
	CHECK((size_t)pi.info->hdr_len + pi.paylen + pi.pad + SV_ICRC_BYTES ==
	      len, "%s: %u + %u + %u + 4 is not the length %zu", m.op->name,
	      pi.info->hdr_len, pi.paylen, pi.pad, len);
	CHECK(pi.pad == sv_hdr_pad(pi.paylen) &&
	      sv_hdr_pkt_len(pi.info, pi.paylen) == len,
	      "%s: pad %u for %u payload bytes", m.op->name, pi.pad,
	      pi.paylen);
	pl = sv_pkt_payload(&pi);
	CHECK(pl == p + m.hdr_len && sv_pkt_icrc(&pi) == p + len - 4 &&
	      pl + pi.paylen + pi.pad == sv_pkt_icrc(&pi),
	      "%s: payload at %td, ICRC at %td", m.op->name, pl - p,
	      sv_pkt_icrc(&pi) - p);
	/* read them: AddressSanitizer checks they are inside the buffer */
	fuzz_touch(pl, pi.paylen + pi.pad);
	fuzz_touch(sv_pkt_icrc(&pi), SV_ICRC_BYTES);

	/* the BTH fields, from the bytes of IBTA 9.2 */
	bth_flags = (p[1] & 0x80 ? SV_BTH_SE : 0) |
		    (p[1] & 0x40 ? SV_BTH_MIG : 0) |
		    (p[8] & 0x80 ? SV_BTH_ACKREQ : 0) |
		    (p[4] & 0x80 ? SV_BTH_FECN : 0) |
		    (p[4] & 0x40 ? SV_BTH_BECN : 0);
	CHECK(pi.opcode == p[0] && pi.pkey == m_be16(p + 2) &&
	      pi.qpn == m_be24(p + 5) && pi.psn == m_be24(p + 9) &&
	      pi.bth_flags == bth_flags,
	      "%s: BTH opcode 0x%02x pkey 0x%04x qpn 0x%06x psn 0x%06x flags 0x%x",
	      m.op->name, pi.opcode, pi.pkey, pi.qpn, pi.psn, pi.bth_flags);

	check_fields(p, len, &m, &pi);
}

/* @p, @len: a RoCE v1 frame after the Ethernet header */
static void check_grh(const u8 *p, size_t len)
{
	static const u8 zero[16];
	struct sv_grh_info g;
	struct m_grh mg;
	u8 built[SV_GRH_BYTES];
	u8 *inner;
	int want, got;

	memset(&g, 0xa5, sizeof(g));
	want = m_parse_grh(p, len, &mg);
	got = sv_hdr_parse_grh(p, len, &g);
	CHECK(got == want, "sv_hdr_parse_grh: %d, the IBTA model: %d (%zu bytes)",
	      got, want, len);
	if (got)
		return;
	CHECK(g.paylen == mg.paylen && SV_GRH_BYTES + (size_t)g.paylen <= len,
	      "GRH PayLen %u, model %u, frame %zu", g.paylen, mg.paylen, len);
	CHECK(!memcmp(g.sgid, p + 8, 16) && !memcmp(g.dgid, p + 24, 16),
	      "GRH GIDs");
	CHECK(g.flow_label == mg.flow_label && g.traffic_class == mg.tclass &&
	      g.hop_limit == mg.hop_limit,
	      "GRH flow label 0x%x tclass 0x%x hop limit %u, model 0x%x 0x%x %u",
	      g.flow_label, g.traffic_class, g.hop_limit, mg.flow_label,
	      mg.tclass, mg.hop_limit);
	sv_hdr_build_grh(built, g.traffic_class, g.flow_label, g.paylen,
			 g.hop_limit, g.sgid, g.dgid);
	CHECK(!memcmp(built, p, SV_GRH_BYTES), "GRH rebuilt differs");
	/* the builder cuts the flow label to its 20 bits */
	sv_hdr_build_grh(built, 0, 0xfff00000U | g.flow_label, g.paylen, 0,
			 zero, zero);
	CHECK((m_be32(built) & 0xfffff) == g.flow_label &&
	      built[0] >> 4 == 6, "GRH builder: flow label not cut to 20 bits");

	/* as sv_recv.c: trimmed to PayLen, then the BTH onwards */
	inner = fuzz_exact_copy(p + SV_GRH_BYTES, g.paylen);
	check_packet(inner, g.paylen);
	free(inner);
}

/* the credit count codes (IBTA 9.7.5.2.2) both ways, for any number */
static void check_credits(const u8 *p, size_t len)
{
	u32 x;
	u8 code;

	if (len < 4)
		return;
	x = m_be32(p);
	code = sv_aeth_credit_code(x);
	CHECK(code < 31 && m_credits(code) <= x &&
	      (code == 30 || m_credits(code + 1) > x),
	      "sv_aeth_credit_code(%u) = %u: %u credits, next %u", x, code,
	      m_credits(code), code < 30 ? m_credits(code + 1) : 0);
	CHECK(sv_aeth_credits(p[0]) == m_credits(p[0]),
	      "sv_aeth_credits(0x%02x) = %u, IBTA %u", p[0],
	      sv_aeth_credits(p[0]), m_credits(p[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_input = data;
	fuzz_input_len = size;
	check_packet(data, size);
	check_grh(data, size);
	check_credits(data, size);
	return 0;
}
