// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_hdr.[ch]: BTH and extension header accessors,
 * the builders, and sv_hdr_parse() on good and malformed packets; the
 * RoCE v1 GRH (sv_hdr_build_grh(), sv_hdr_parse_grh()).
 *
 * Every packet handed to sv_hdr_parse() lives in a kmalloc() buffer of
 * exactly its length, so on the KASAN debug kernel any read past the end
 * fails the case.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "sv_hdr.h"

/*
 * A copy of @len bytes of @src in a buffer of exactly @len bytes; for 0
 * that is ZERO_SIZE_PTR, which faults on any access.
 */
static u8 *exact_copy(struct kunit *test, const void *src, size_t len)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	if (len)
		memcpy(p, src, len);
	return p;
}

/* The BTH from the byte layout of IBTA 9.2, written out by hand. */
static void hdr_bth_wire_layout(struct kunit *test)
{
	static const u8 want[SV_BTH_BYTES] = {
		0x04,			/* RC SEND Only */
		0x80 | 0x40 | 0x30,	/* SE, M, pad 3, TVer 0 */
		0xab, 0xcd,		/* P_Key */
		0xc0, 0x12, 0x34, 0x56,	/* FECN, BECN, QPN 0x123456 */
		0x80, 0xfe, 0xdc, 0xba,	/* AckReq, PSN 0xfedcba */
	};
	u8 bth[SV_BTH_BYTES];

	memset(bth, 0x5a, sizeof(bth));
	sv_hdr_build_bth(bth, 0x04, SV_BTH_SE | SV_BTH_MIG | SV_BTH_ACKREQ |
			 SV_BTH_FECN | SV_BTH_BECN, 0xabcd, 0x123456, 0xfedcba,
			 1 /* payload 1: pad 3 */);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(bth, want, sizeof(want)),
			      "BTH %12phC, want %12phC", bth, want);

	/* no flags: every flag bit and every reserved bit is zero */
	sv_hdr_build_bth(bth, 0x11, 0, 0xffff, 0xffffffff, 0xffffffff, 4);
	KUNIT_EXPECT_EQ_MSG(test, bth[1], 0, "byte 1 (SE M pad TVer) %02x", bth[1]);
	KUNIT_EXPECT_EQ_MSG(test, bth[4], 0, "byte 4 (F B resv6) %02x", bth[4]);
	KUNIT_EXPECT_EQ_MSG(test, bth[8], 0, "byte 8 (A resv7) %02x", bth[8]);
	KUNIT_EXPECT_EQ_MSG(test, sv_bth_qpn(bth), 0xffffff, "QPN masked to 24 bits");
	KUNIT_EXPECT_EQ_MSG(test, sv_bth_psn(bth), 0xffffff, "PSN masked to 24 bits");
}

/* every getter sees what the builder wrote; setters touch one field */
static void hdr_bth_getters_setters(struct kunit *test)
{
	u8 bth[SV_BTH_BYTES], before[SV_BTH_BYTES];
	unsigned int i;

	sv_hdr_build_bth(bth, 0x0a, SV_BTH_ACKREQ | SV_BTH_BECN, 0x8001,
			 0xabcdef, 0x123456, 6);
	KUNIT_EXPECT_EQ(test, sv_bth_opcode(bth), 0x0a);
	KUNIT_EXPECT_FALSE(test, sv_bth_se(bth));
	KUNIT_EXPECT_FALSE(test, sv_bth_mig(bth));
	KUNIT_EXPECT_EQ_MSG(test, sv_bth_pad(bth), 2, "6 bytes of payload: pad 2");
	KUNIT_EXPECT_EQ(test, sv_bth_tver(bth), 0);
	KUNIT_EXPECT_EQ(test, sv_bth_pkey(bth), 0x8001);
	KUNIT_EXPECT_FALSE(test, sv_bth_fecn(bth));
	KUNIT_EXPECT_TRUE(test, sv_bth_becn(bth));
	KUNIT_EXPECT_EQ(test, sv_bth_qpn(bth), 0xabcdef);
	KUNIT_EXPECT_TRUE(test, sv_bth_ackreq(bth));
	KUNIT_EXPECT_EQ(test, sv_bth_psn(bth), 0x123456);

	/* each setter: its field changes, the other bytes do not */
#define CHANGE_ONLY(set, get, val, bytes)				\
	do {								\
		memcpy(before, bth, sizeof(bth));			\
		set(bth, val);						\
		KUNIT_EXPECT_EQ_MSG(test, get(bth), val, #set);		\
		for (i = 0; i < SV_BTH_BYTES; i++)			\
			if (!((bytes) & BIT(i)))			\
				KUNIT_EXPECT_EQ_MSG(test, bth[i], before[i], \
						    #set " changed byte %u", i); \
	} while (0)

	CHANGE_ONLY(sv_bth_set_se, sv_bth_se, true, BIT(1));
	CHANGE_ONLY(sv_bth_set_mig, sv_bth_mig, true, BIT(1));
	CHANGE_ONLY(sv_bth_set_pad, sv_bth_pad, 3, BIT(1));
	CHANGE_ONLY(sv_bth_set_pkey, sv_bth_pkey, 0x7fff, BIT(2) | BIT(3));
	CHANGE_ONLY(sv_bth_set_fecn, sv_bth_fecn, true, BIT(4));
	CHANGE_ONLY(sv_bth_set_becn, sv_bth_becn, false, BIT(4));
	CHANGE_ONLY(sv_bth_set_qpn, sv_bth_qpn, 0x000001, 0xe0);
	CHANGE_ONLY(sv_bth_set_ackreq, sv_bth_ackreq, false, BIT(8));
	CHANGE_ONLY(sv_bth_set_psn, sv_bth_psn, 0xffffff, 0xe00);
#undef CHANGE_ONLY
	/* flags that were not touched by their setters survive */
	KUNIT_EXPECT_TRUE_MSG(test, sv_bth_se(bth) && sv_bth_mig(bth) &&
			      sv_bth_fecn(bth) && !sv_bth_becn(bth),
			      "flag bits interfere");
	KUNIT_EXPECT_EQ_MSG(test, sv_bth_qpn(bth), 1, "QPN after FECN/BECN");
}

/* Distinct field values, so a header read from a wrong offset shows. */
#define T_VA		0x0102030405060708ULL
#define T_RKEY		0x11223344U
#define T_DMALEN	0x00a0b0c0U
#define T_SWAP		0x8877665544332211ULL
#define T_COMP		0xf0e0d0c0b0a09080ULL
#define T_ORIG		0x0f1e2d3c4b5a6978ULL
#define T_QKEY		0x80010000U
#define T_SQP		0x00fedcbaU
#define T_IMM		cpu_to_be32(0xdeadbeef)
#define T_IRKEY		0x55667788U
#define T_MSN		0x00abcdefU
#define T_QPN		0x000a0b0cU
#define T_PSN		0x00fffffeU

/* a full packet of @opcode with @paylen payload bytes, every header set */
static u8 *build_pkt(struct kunit *test, u8 opcode, u32 paylen, size_t *len)
{
	const struct sv_opcode_info *info = sv_opcode_info(opcode);
	u8 *p;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, info);
	*len = sv_hdr_pkt_len(info, paylen);
	p = kunit_kmalloc(test, *len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memset(p, 0xee, *len);

	sv_hdr_build_bth(p, opcode, SV_BTH_SE | SV_BTH_ACKREQ, 0xffff, T_QPN,
			 T_PSN, paylen);
	if (sv_opcode_has(info, SV_EXT_FETH))
		sv_hdr_build_feth(p, 1, 2);
	if (sv_opcode_has(info, SV_EXT_DETH))
		sv_hdr_build_deth(p, T_QKEY, T_SQP);
	if (sv_opcode_has(info, SV_EXT_RETH))
		sv_hdr_build_reth(p, T_VA, T_RKEY, T_DMALEN);
	if (sv_opcode_has(info, SV_EXT_ATMETH))
		sv_hdr_build_atmeth(p, T_VA, T_RKEY, T_SWAP, T_COMP);
	if (sv_opcode_has(info, SV_EXT_AETH))
		sv_hdr_build_aeth(p, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				  T_MSN);
	if (sv_opcode_has(info, SV_EXT_ATMACK))
		sv_hdr_build_atmack(p, T_ORIG);
	if (sv_opcode_has(info, SV_EXT_IMMDT))
		sv_hdr_build_immdt(p, T_IMM);
	if (sv_opcode_has(info, SV_EXT_IETH))
		sv_hdr_build_ieth(p, T_IRKEY);
	if (sv_opcode_has(info, SV_EXT_CNP))
		sv_hdr_build_cnp(p);
	for (i = 0; i < paylen; i++)
		p[info->hdr_len + i] = i;
	/* pad and ICRC stay 0xee: parsing must not care */
	return p;
}

/* a payload length every valid packet of this opcode may have */
static u32 good_paylen(const struct sv_opcode_info *info)
{
	if (!(info->flags & SV_OP_PAYLOAD))
		return 0;
	if (info->flags & SV_OP_ATOMIC_WRITE)
		return 8;
	if (!(info->flags & SV_OP_LAST))
		return 256;		/* smallest path MTU */
	return 13;			/* pad 3 */
}

static void check_parsed(struct kunit *test, const struct sv_opcode_info *info,
			 const u8 *p, size_t len, u32 paylen,
			 const struct sv_pkt_info *pkt)
{
	KUNIT_EXPECT_PTR_EQ_MSG(test, pkt->info, info, "%s: info", info->name);
	KUNIT_EXPECT_PTR_EQ_MSG(test, pkt->hdr, p, "%s: hdr", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->len, len, "%s: len", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->paylen, paylen, "%s: paylen", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->pad, sv_hdr_pad(paylen), "%s: pad",
			    info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->opcode, info - sv_opcode_table,
			    "%s: opcode", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->qpn, T_QPN, "%s: QPN", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->psn, T_PSN, "%s: PSN", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->pkey, 0xffff, "%s: P_Key", info->name);
	KUNIT_EXPECT_EQ_MSG(test, pkt->bth_flags, SV_BTH_SE | SV_BTH_ACKREQ,
			    "%s: BTH flags", info->name);
	KUNIT_EXPECT_PTR_EQ_MSG(test, sv_pkt_payload(pkt), p + info->hdr_len,
				"%s: payload pointer", info->name);
	KUNIT_EXPECT_PTR_EQ_MSG(test, sv_pkt_icrc(pkt), p + len - 4,
				"%s: ICRC pointer", info->name);

	if (sv_opcode_has(info, SV_EXT_FETH)) {
		KUNIT_EXPECT_EQ_MSG(test, sv_feth_plt(p), 1, "%s: FETH PLT", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_feth_sel(p), 2, "%s: FETH SEL", info->name);
	}
	if (sv_opcode_has(info, SV_EXT_DETH)) {
		KUNIT_EXPECT_EQ_MSG(test, sv_deth_qkey(p), T_QKEY, "%s: Q_Key", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_deth_sqp(p), T_SQP, "%s: src QP", info->name);
	}
	if (sv_opcode_has(info, SV_EXT_RETH)) {
		KUNIT_EXPECT_EQ_MSG(test, sv_reth_va(p), T_VA, "%s: RETH VA", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_reth_rkey(p), T_RKEY, "%s: RETH R_Key", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_reth_len(p), T_DMALEN, "%s: RETH length", info->name);
	}
	if (sv_opcode_has(info, SV_EXT_ATMETH)) {
		KUNIT_EXPECT_EQ_MSG(test, sv_atmeth_va(p), T_VA, "%s: VA", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_atmeth_rkey(p), T_RKEY, "%s: R_Key", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_atmeth_swap_add(p), T_SWAP, "%s: swap", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_atmeth_comp(p), T_COMP, "%s: compare", info->name);
	}
	if (sv_opcode_has(info, SV_EXT_AETH)) {
		KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syndrome(p), 0x1f, "%s: syndrome", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_aeth_msn(p), T_MSN, "%s: MSN", info->name);
	}
	if (sv_opcode_has(info, SV_EXT_ATMACK))
		KUNIT_EXPECT_EQ_MSG(test, sv_atmack_orig(p), T_ORIG, "%s: orig", info->name);
	if (sv_opcode_has(info, SV_EXT_IMMDT))
		KUNIT_EXPECT_EQ_MSG(test, sv_immdt_imm(p), T_IMM, "%s: ImmDt", info->name);
	if (sv_opcode_has(info, SV_EXT_IETH))
		KUNIT_EXPECT_EQ_MSG(test, sv_ieth_rkey(p), T_IRKEY, "%s: IETH", info->name);
}

/* build -> parse for every opcode, at several payload lengths */
static void hdr_round_trip_every_opcode(struct kunit *test)
{
	static const u32 last_lens[] = { 0, 1, 2, 3, 4, 5, 255, 4096 };
	static const u32 full_lens[] = { 256, 512, 1024, 2048, 4096 };
	static const u32 atomic_write_len[] = { 8 };
	unsigned int op, i;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		const u32 *lens;
		unsigned int n;

		if (!info)
			continue;
		if (!(info->flags & SV_OP_PAYLOAD)) {
			lens = last_lens;	/* only the 0 */
			n = 1;
		} else if (info->flags & SV_OP_ATOMIC_WRITE) {
			lens = atomic_write_len;
			n = 1;
		} else if (!(info->flags & SV_OP_LAST)) {
			lens = full_lens;
			n = ARRAY_SIZE(full_lens);
		} else {
			lens = last_lens;
			n = ARRAY_SIZE(last_lens);
		}
		for (i = 0; i < n; i++) {
			struct sv_pkt_info pkt = {};
			size_t len;
			u8 *p = build_pkt(test, op, lens[i], &len);
			int err = sv_hdr_parse(p, len, &pkt);

			KUNIT_EXPECT_EQ_MSG(test, err, 0,
					    "%s with %u payload bytes rejected",
					    info->name, lens[i]);
			if (!err)
				check_parsed(test, info, p, len, lens[i], &pkt);
			kunit_kfree(test, p);
		}
	}
}

/*
 * Every prefix of a good packet, in a buffer of exactly that length:
 * shorter than BTH + ICRC is -ENODATA, shorter than the headers + ICRC
 * is -EMSGSIZE, beyond that the length rules decide.  KASAN watches the
 * reads.
 */
static void hdr_truncated_every_length(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		size_t full, len;
		u8 *good;

		if (!info)
			continue;
		good = build_pkt(test, op, good_paylen(info), &full);
		for (len = 0; len < full; len++) {
			struct sv_pkt_info pkt;
			u8 *p = exact_copy(test, good, len);
			int err = sv_hdr_parse(p, len, &pkt);
			int want;

			if (len < SV_BTH_BYTES + SV_ICRC_BYTES)
				want = -ENODATA;
			else if (len < info->hdr_len + SV_ICRC_BYTES)
				want = -EMSGSIZE;
			else if (len % 4)
				want = -EBADMSG;
			else
				want = 1;	/* see below */

			if (want <= 0) {
				KUNIT_EXPECT_EQ_MSG(test, err, want,
						    "%s cut to %zu of %zu bytes",
						    info->name, len, full);
			} else if (!err) {
				/* accepted: then as a shorter packet */
				KUNIT_EXPECT_EQ_MSG(test,
						    info->hdr_len + pkt.paylen +
						    pkt.pad + SV_ICRC_BYTES, len,
						    "%s cut to %zu: lengths do not add up",
						    info->name, len);
			} else {
				KUNIT_EXPECT_EQ_MSG(test, err, -EBADMSG,
						    "%s cut to %zu of %zu bytes",
						    info->name, len, full);
			}
			kunit_kfree(test, p);
		}
		kunit_kfree(test, good);
	}
}

static void hdr_bad_tver(struct kunit *test)
{
	struct sv_pkt_info pkt;
	unsigned int tver;
	size_t len;
	u8 *p = build_pkt(test, IB_OPCODE_RC_SEND_ONLY, 4, &len);

	for (tver = 1; tver < 16; tver++) {
		p[1] = (p[1] & ~SV_BTH_TVER_MASK) | tver;
		KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt),
				    -EPROTONOSUPPORT, "TVer %u accepted", tver);
	}
}

static void hdr_unknown_opcode(struct kunit *test)
{
	struct sv_pkt_info pkt;
	unsigned int op;
	size_t len;
	u8 *p = build_pkt(test, IB_OPCODE_RC_SEND_ONLY, 64, &len);

	for (op = 0; op < 256; op++) {
		if (sv_opcode_info(op))
			continue;
		p[0] = op;
		KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADRQC,
				    "opcode 0x%02x accepted", op);
	}
}

/* parse @opcode with @paylen payload, then with pad count @pad */
static int parse_with_pad(struct kunit *test, u8 opcode, u32 paylen, u8 pad)
{
	struct sv_pkt_info pkt;
	size_t len;
	u8 *p = build_pkt(test, opcode, paylen, &len);

	sv_bth_set_pad(p, pad);
	return sv_hdr_parse(p, len, &pkt);
}

static void hdr_bad_pad(struct kunit *test)
{
	/* no payload at all: even a pad count of 1 is wrong */
	KUNIT_EXPECT_EQ_MSG(test, parse_with_pad(test, IB_OPCODE_RC_ACKNOWLEDGE,
						 0, 1),
			    -EBADMSG, "ACK with pad 1");
	KUNIT_EXPECT_EQ_MSG(test,
			    parse_with_pad(test, IB_OPCODE_RC_RDMA_READ_REQUEST,
					   0, 3),
			    -EBADMSG, "READ request with pad 3");
	/* 0 payload bytes + 0 pad: a pad count of 1 claims a missing byte */
	KUNIT_EXPECT_EQ_MSG(test, parse_with_pad(test, IB_OPCODE_RC_SEND_ONLY,
						 0, 1),
			    -EBADMSG, "SEND Only, no payload, pad 1");
	/* First/Middle carry a full MTU: no pad */
	KUNIT_EXPECT_EQ_MSG(test, parse_with_pad(test, IB_OPCODE_RC_SEND_FIRST,
						 256, 1),
			    -EBADMSG, "SEND First with pad 1");
	KUNIT_EXPECT_EQ_MSG(test,
			    parse_with_pad(test,
					   IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE,
					   512, 2),
			    -EBADMSG, "READ response Middle with pad 2");
	/* 4 bytes after the headers with pad 3: a 1-byte payload, fine */
	KUNIT_EXPECT_EQ_MSG(test, parse_with_pad(test, IB_OPCODE_RC_SEND_ONLY,
						 4, 3),
			    0, "SEND Only, 4 bytes, pad 3: a 1-byte payload");
}

/* lengths that cannot be: each with the errno of its class */
static void hdr_length_mismatch(struct kunit *test)
{
	struct sv_pkt_info pkt;
	size_t len;
	u8 *p, *q;

	/* payload on an opcode without payload */
	p = build_pkt(test, IB_OPCODE_RC_ACKNOWLEDGE, 0, &len);
	q = kunit_kzalloc(test, len + 4, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	memcpy(q, p, len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(q, len + 4, &pkt), -EBADMSG,
			    "ACK with 4 extra bytes");

	/* not a multiple of 4 */
	p = build_pkt(test, IB_OPCODE_UD_SEND_ONLY, 8, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len - 1, &pkt), -EBADMSG,
			    "UD SEND of %zu bytes", len - 1);

	/* First/Middle payloads that are no path MTU */
	p = build_pkt(test, IB_OPCODE_RC_RDMA_WRITE_FIRST, 100, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADMSG,
			    "WRITE First with 100 bytes");
	p = build_pkt(test, IB_OPCODE_UC_SEND_MIDDLE, 768, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADMSG,
			    "UC SEND Middle with 768 bytes");
	p = build_pkt(test, IB_OPCODE_RC_SEND_FIRST, 0, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADMSG,
			    "SEND First without payload");

	/* ATOMIC WRITE: 8 bytes, no more, no less */
	p = build_pkt(test, SV_OPCODE_RC_ATOMIC_WRITE, 16, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADMSG,
			    "ATOMIC WRITE with 16 bytes");
	p = build_pkt(test, SV_OPCODE_RC_ATOMIC_WRITE, 4, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -EBADMSG,
			    "ATOMIC WRITE with 4 bytes");

	/* above the largest path MTU */
	p = build_pkt(test, IB_OPCODE_RC_SEND_LAST, 4100, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -E2BIG,
			    "SEND Last with 4100 bytes");
	p = build_pkt(test, IB_OPCODE_RC_RDMA_WRITE_FIRST, 8192, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -E2BIG,
			    "WRITE First with 8192 bytes");
}

/*
 * sv_hdr_parse_local(): a local burst of npkts > 1 may carry up to
 * SV_HDR_MAX_LOCAL_PAYLOAD bytes (64 KiB: by reference), a First or
 * Middle one any multiple of 256 (the responder checks npkts MTUs);
 * npkts 1 is sv_hdr_parse() exactly
 */
static void hdr_local_burst(struct kunit *test)
{
	struct sv_pkt_info pkt;
	size_t len;
	u8 *p;

	p = build_pkt(test, IB_OPCODE_RC_RDMA_WRITE_FIRST, 15 * 1024, &len);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_local(p, len, 15, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.npkts, 15);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 15 * 1024);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse_local(p, len, 1, &pkt), -E2BIG,
			    "15 KiB WRITE First as one packet");
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), -E2BIG,
			    "15 KiB WRITE First from a wire");

	p = build_pkt(test, IB_OPCODE_RC_SEND_MIDDLE, 3 * 256, &len);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_local(p, len, 3, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.npkts, 3);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse_local(p, len, 1, &pkt),
			    -EBADMSG, "SEND Middle of 768 bytes as one packet");
	p = build_pkt(test, IB_OPCODE_RC_SEND_MIDDLE, 1000, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse_local(p, len, 4, &pkt),
			    -EBADMSG, "burst Middle of 1000 bytes");

	/* a Last or Only burst ends anywhere, up to the limit */
	p = build_pkt(test, IB_OPCODE_UC_RDMA_WRITE_ONLY, 6000, &len);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_local(p, len, 6, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 6000);
	p = build_pkt(test, IB_OPCODE_RC_SEND_LAST, 64 * 1024, &len);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_local(p, len, 64, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.paylen, 64 * 1024);
	p = build_pkt(test, IB_OPCODE_RC_SEND_LAST, 64 * 1024 + 4, &len);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse_local(p, len, 65, &pkt), -E2BIG,
			    "burst over SV_HDR_MAX_LOCAL_PAYLOAD");

	/* npkts 1 (or 0) from the queue: a packet, parsed as from a wire */
	p = build_pkt(test, IB_OPCODE_RC_SEND_ONLY, 64, &len);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_local(p, len, 0, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.npkts, 1);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse(p, len, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.npkts, 1);
}

/* IBTA 9.2: reserved bits are ignored on receipt, not rejected */
static void hdr_reserved_bits_ignored(struct kunit *test)
{
	struct sv_pkt_info pkt;
	size_t len;
	u8 *p = build_pkt(test, IB_OPCODE_UD_SEND_ONLY, 4, &len);

	p[4] |= 0x3f;		/* BTH resv6 */
	p[8] |= 0x7f;		/* BTH resv7 */
	p[12 + 4] = 0xff;	/* DETH reserved byte before the source QP */
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(p, len, &pkt), 0,
			    "reserved bits set: packet rejected");
	KUNIT_EXPECT_EQ(test, pkt.qpn, T_QPN);
	KUNIT_EXPECT_EQ(test, pkt.psn, T_PSN);
	KUNIT_EXPECT_EQ_MSG(test, pkt.bth_flags, SV_BTH_SE | SV_BTH_ACKREQ,
			    "reserved bits leak into the flags");
	KUNIT_EXPECT_EQ(test, sv_deth_sqp(p), T_SQP);
}

/* the CNP is a valid packet with 16 reserved bytes and no payload */
static void hdr_cnp(struct kunit *test)
{
	struct sv_pkt_info pkt;
	size_t len;
	u8 *p = build_pkt(test, SV_OPCODE_CNP, 0, &len);

	KUNIT_EXPECT_EQ_MSG(test, len, 32, "CNP: BTH + 16 + ICRC");
	KUNIT_EXPECT_EQ(test, sv_hdr_parse(p, len, &pkt), 0);
	KUNIT_EXPECT_TRUE(test, pkt.info->flags & SV_OP_CNP_PKT);
}

static void hdr_aeth_syndrome(struct kunit *test)
{
	u8 code;

	for (code = 0; code < 32; code++) {
		u8 ack = sv_aeth_syn_ack(code);
		u8 rnr = sv_aeth_syn_rnr(code);

		KUNIT_EXPECT_EQ_MSG(test, ack, code, "ACK syndrome, credits %u", code);
		KUNIT_EXPECT_EQ_MSG(test, rnr, 0x20 | code, "RNR NAK syndrome, timer %u", code);
		KUNIT_EXPECT_EQ(test, sv_aeth_type(ack), SV_AETH_ACK);
		KUNIT_EXPECT_EQ(test, sv_aeth_type(rnr), SV_AETH_RNR_NAK);
		KUNIT_EXPECT_EQ(test, sv_aeth_value(rnr), code);
	}
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syn_nak(SV_NAK_PSN_SEQ_ERR), 0x60, "NAK PSN seq");
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syn_nak(SV_NAK_INVALID_REQ), 0x61, "NAK inv req");
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syn_nak(SV_NAK_REM_ACCESS_ERR), 0x62, "NAK access");
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syn_nak(SV_NAK_REM_OP_ERR), 0x63, "NAK rem op");
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syn_nak(SV_NAK_INVALID_RD_REQ), 0x64, "NAK RD");
	KUNIT_EXPECT_EQ(test, sv_aeth_type(0x40), SV_AETH_RESERVED);
	KUNIT_EXPECT_EQ(test, sv_aeth_type(0x63), SV_AETH_NAK);
	KUNIT_EXPECT_EQ(test, sv_aeth_value(0x63), SV_NAK_REM_OP_ERR);
}

/* the AETH word on the wire: syndrome in the top byte, MSN below */
static void hdr_aeth_wire(struct kunit *test)
{
	u8 pkt[SV_BTH_BYTES + SV_AETH_BYTES];

	sv_hdr_build_bth(pkt, IB_OPCODE_RC_ACKNOWLEDGE, 0, 0xffff, 1, 2, 0);
	sv_hdr_build_aeth(pkt, sv_aeth_syn_rnr(14), 0x01000005);
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(pkt + 12, "\x2e\x00\x00\x05", 4),
			      "AETH %4phC, want 2e000005 (MSN masked)", pkt + 12);
	KUNIT_EXPECT_EQ(test, sv_aeth_syndrome(pkt), 0x2e);
	KUNIT_EXPECT_EQ(test, sv_aeth_msn(pkt), 5);
}

/* the credit count encoding table, written out from the IBTA */
static void hdr_aeth_credits(struct kunit *test)
{
	static const u32 want[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768,
	};
	u32 n;
	u8 code;

	for (code = 0; code < 31; code++) {
		KUNIT_EXPECT_EQ_MSG(test, sv_aeth_credits(code), want[code],
				    "credit code %u", code);
		KUNIT_EXPECT_EQ_MSG(test, sv_aeth_credit_code(want[code]), code,
				    "%u credits", want[code]);
	}
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_credits(31), U32_MAX,
			    "code 31 carries no count");
	/* rounding down: never announce more than there is */
	for (n = 0; n < 40000; n++) {
		code = sv_aeth_credit_code(n);
		if (sv_aeth_credits(code) > n ||
		    (code < 30 && sv_aeth_credits(code + 1) <= n)) {
			KUNIT_FAIL(test, "%u credits encoded as code %u (%u)",
				   n, code, sv_aeth_credits(code));
			return;
		}
	}
	KUNIT_EXPECT_EQ(test, sv_aeth_credit_code(U32_MAX), 30);
}

static void hdr_feth(struct kunit *test)
{
	u8 pkt[SV_BTH_BYTES + SV_FETH_BYTES + SV_RETH_BYTES];

	sv_hdr_build_bth(pkt, SV_OPCODE_RC_FLUSH, 0, 0xffff, 1, 2, 0);
	sv_hdr_build_feth(pkt, 0xff, 0xff);	/* out-of-range: masked */
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(pkt + 12, "\x00\x00\x00\x3f", 4),
			      "FETH %4phC, want 0000003f", pkt + 12);
	sv_hdr_build_feth(pkt, 2, 1);
	KUNIT_EXPECT_EQ(test, sv_feth_plt(pkt), 2);
	KUNIT_EXPECT_EQ(test, sv_feth_sel(pkt), 1);
	sv_hdr_build_reth(pkt, 1, 2, 3);
	KUNIT_EXPECT_EQ_MSG(test, sv_feth_plt(pkt), 2, "RETH overwrote FETH");
	KUNIT_EXPECT_EQ_MSG(test, sv_get_be64(pkt + 16), 1, "RETH not at 16");
}

static void hdr_pad_and_len(struct kunit *test)
{
	static const u8 want_pad[8] = { 0, 3, 2, 1, 0, 3, 2, 1 };
	const struct sv_opcode_info *info = sv_opcode_info(IB_OPCODE_UD_SEND_ONLY);
	u32 n;

	for (n = 0; n < 8; n++)
		KUNIT_EXPECT_EQ_MSG(test, sv_hdr_pad(n), want_pad[n],
				    "pad after %u bytes", n);
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_pkt_len(info, 0), 24, "UD, 0 bytes");
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_pkt_len(info, 1), 28, "UD, 1 byte");
	KUNIT_EXPECT_EQ_MSG(test, sv_hdr_pkt_len(info, 4096), 4120, "UD, 4096");
}

/* The GRH from the byte layout of IBTA 8.3.1, written out by hand. */
static void hdr_grh_wire_layout(struct kunit *test)
{
	static const u8 sgid[16] = { 0xfe, 0x80, [15] = 0x01 };
	static const u8 dgid[16] = { 0xff, 0x0e, [14] = 0x12, [15] = 0x34 };
	u8 want[SV_GRH_BYTES] = {
		0x6a, 0xb1, 0x23, 0x45,	/* IPVer 6, TClass 0xab, Flow 0x12345 */
		0x01, 0x00,		/* PayLen 256 */
		0x1b, 0x40,		/* NxtHdr BTH, HopLmt 64 */
	};
	struct sv_grh_info g;
	u8 grh[SV_GRH_BYTES + 256];

	memcpy(want + 8, sgid, 16);
	memcpy(want + 24, dgid, 16);
	/* the flow label is cut to its 20 bits */
	sv_hdr_build_grh(grh, 0xab, 0xfff12345, 256, 64, sgid, dgid);
	KUNIT_EXPECT_EQ(test, memcmp(grh, want, sizeof(want)), 0);

	KUNIT_ASSERT_EQ(test, sv_hdr_parse_grh(grh, sizeof(grh), &g), 0);
	KUNIT_EXPECT_EQ(test, g.traffic_class, 0xab);
	KUNIT_EXPECT_EQ(test, g.flow_label, 0x12345);
	KUNIT_EXPECT_EQ(test, g.paylen, 256);
	KUNIT_EXPECT_EQ(test, g.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, memcmp(g.sgid, sgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(g.dgid, dgid, 16), 0);
}

/* What sv_hdr_parse_grh() refuses, in buffers of exactly their length. */
static void hdr_grh_malformed(struct kunit *test)
{
	static const u8 gid[16] = { 0xfe, 0x80, [15] = 0x02 };
	struct sv_grh_info g;
	u8 good[SV_GRH_BYTES + 16];
	unsigned int len;
	u8 *p;

	sv_hdr_build_grh(good, 0, 0, 16, 1, gid, gid);
	memset(good + SV_GRH_BYTES, 0, 16);
	for (len = 0; len < SV_GRH_BYTES; len++)
		KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse_grh(exact_copy(test,
				    good, len), len, &g), -ENODATA, "len %u", len);
	/* PayLen beyond the buffer, or shorter than BTH + ICRC */
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_grh(exact_copy(test, good,
			sizeof(good) - 1), sizeof(good) - 1, &g), -EMSGSIZE);
	p = exact_copy(test, good, sizeof(good));
	sv_put_be16(p + SV_GRH_PAYLEN, 15);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_grh(p, sizeof(good), &g), -EMSGSIZE);
	/* link padding behind the packet is fine: PayLen says where it ends */
	sv_put_be16(p + SV_GRH_PAYLEN, 16);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_grh(p, sizeof(good), &g), 0);
	/* another IP version, or UDP (a RoCEv2 IPv6 header) as next header */
	p[0] = 0x40;
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_grh(p, sizeof(good), &g),
			-EPROTONOSUPPORT);
	p[0] = 0x60;
	p[SV_GRH_NXTHDR] = 17;
	KUNIT_EXPECT_EQ(test, sv_hdr_parse_grh(p, sizeof(good), &g),
			-EPROTONOSUPPORT);
}

static struct kunit_case hdr_cases[] = {
	KUNIT_CASE(hdr_bth_wire_layout),
	KUNIT_CASE(hdr_bth_getters_setters),
	KUNIT_CASE(hdr_round_trip_every_opcode),
	KUNIT_CASE(hdr_truncated_every_length),
	KUNIT_CASE(hdr_bad_tver),
	KUNIT_CASE(hdr_unknown_opcode),
	KUNIT_CASE(hdr_bad_pad),
	KUNIT_CASE(hdr_length_mismatch),
	KUNIT_CASE(hdr_local_burst),
	KUNIT_CASE(hdr_reserved_bits_ignored),
	KUNIT_CASE(hdr_cnp),
	KUNIT_CASE(hdr_aeth_syndrome),
	KUNIT_CASE(hdr_aeth_wire),
	KUNIT_CASE(hdr_aeth_credits),
	KUNIT_CASE(hdr_feth),
	KUNIT_CASE(hdr_pad_and_len),
	KUNIT_CASE(hdr_grh_wire_layout),
	KUNIT_CASE(hdr_grh_malformed),
	{}
};

static struct kunit_suite hdr_suite = {
	.name = "hdr_kunit",
	.test_cases = hdr_cases,
};

kunit_test_suites(&hdr_suite);
