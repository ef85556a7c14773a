// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_opcode.c: the BTH opcode table and the work
 * request -> packet opcode mapping.
 *
 * The expectations are written out by hand from the IBTA opcode table
 * (vol 1 9.2) and the header formats (9.3), offsets included, so they do
 * not share the table's offset arithmetic.
 */
#include <kunit/test.h>

#include "sv_opcode.h"

/* one expected opcode: its headers with their offsets, and its length */
struct want_ext {
	enum sv_ext	ext;
	u8		off;
};

struct want_op {
	u8		opcode;
	const char	*name;
	u8		qp_type;
	u8		hdr_len;
	struct want_ext	ext[3];		/* in wire order; off 0 ends */
	u32		flags;		/* must all be set */
};

#define X(e, o)	{ SV_EXT_##e, o }

/*
 * IBTA 9.2 opcode table, RC/UC/UD rows, + FLUSH, ATOMIC WRITE, CNP, and
 * the XRC rows of Annex A14 (requests: BTH, XRCETH, then RC's headers;
 * responses as RC's)
 */
static const struct want_op want_ops[] = {
	{ 0x00, "RC_SEND_FIRST", IB_QPT_RC, 12, {}, SV_OP_FIRST },
	{ 0x01, "RC_SEND_MIDDLE", IB_QPT_RC, 12, {}, SV_OP_MIDDLE },
	{ 0x02, "RC_SEND_LAST", IB_QPT_RC, 12, {}, SV_OP_LAST },
	{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", IB_QPT_RC, 16,
	  { X(IMMDT, 12) }, SV_OP_LAST },
	{ 0x04, "RC_SEND_ONLY", IB_QPT_RC, 12, {}, SV_OP_ONLY },
	{ 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", IB_QPT_RC, 16,
	  { X(IMMDT, 12) }, SV_OP_ONLY },
	{ 0x06, "RC_RDMA_WRITE_FIRST", IB_QPT_RC, 28,
	  { X(RETH, 12) }, SV_OP_FIRST },
	{ 0x07, "RC_RDMA_WRITE_MIDDLE", IB_QPT_RC, 12, {}, SV_OP_MIDDLE },
	{ 0x08, "RC_RDMA_WRITE_LAST", IB_QPT_RC, 12, {}, SV_OP_LAST },
	{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", IB_QPT_RC, 16,
	  { X(IMMDT, 12) }, SV_OP_LAST },
	{ 0x0a, "RC_RDMA_WRITE_ONLY", IB_QPT_RC, 28,
	  { X(RETH, 12) }, SV_OP_ONLY },
	{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", IB_QPT_RC, 32,
	  { X(RETH, 12), X(IMMDT, 28) }, SV_OP_ONLY },
	{ 0x0c, "RC_RDMA_READ_REQUEST", IB_QPT_RC, 28,
	  { X(RETH, 12) }, SV_OP_ONLY | SV_OP_READ },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", IB_QPT_RC, 16,
	  { X(AETH, 12) }, SV_OP_FIRST | SV_OP_RESP },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", IB_QPT_RC, 12, {},
	  SV_OP_MIDDLE | SV_OP_RESP },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", IB_QPT_RC, 16,
	  { X(AETH, 12) }, SV_OP_LAST | SV_OP_RESP },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", IB_QPT_RC, 16,
	  { X(AETH, 12) }, SV_OP_ONLY | SV_OP_RESP },
	{ 0x11, "RC_ACKNOWLEDGE", IB_QPT_RC, 16,
	  { X(AETH, 12) }, SV_OP_ONLY | SV_OP_RESP | SV_OP_ACK },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", IB_QPT_RC, 24,
	  { X(AETH, 12), X(ATMACK, 16) },
	  SV_OP_ONLY | SV_OP_RESP | SV_OP_ATOMIC_ACK },
	{ 0x13, "RC_COMPARE_SWAP", IB_QPT_RC, 40,
	  { X(ATMETH, 12) }, SV_OP_ONLY | SV_OP_ATOMIC },
	{ 0x14, "RC_FETCH_ADD", IB_QPT_RC, 40,
	  { X(ATMETH, 12) }, SV_OP_ONLY | SV_OP_ATOMIC },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", IB_QPT_RC, 16,
	  { X(IETH, 12) }, SV_OP_LAST | SV_OP_SEND },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", IB_QPT_RC, 16,
	  { X(IETH, 12) }, SV_OP_ONLY | SV_OP_SEND },
	{ 0x1c, "RC_FLUSH", IB_QPT_RC, 32,
	  { X(FETH, 12), X(RETH, 16) }, SV_OP_ONLY | SV_OP_FLUSH },
	{ 0x1d, "RC_ATOMIC_WRITE", IB_QPT_RC, 28,
	  { X(RETH, 12) }, SV_OP_ONLY | SV_OP_ATOMIC_WRITE | SV_OP_PAYLOAD },

	{ 0x20, "UC_SEND_FIRST", IB_QPT_UC, 12, {}, SV_OP_FIRST },
	{ 0x21, "UC_SEND_MIDDLE", IB_QPT_UC, 12, {}, SV_OP_MIDDLE },
	{ 0x22, "UC_SEND_LAST", IB_QPT_UC, 12, {}, SV_OP_LAST },
	{ 0x23, "UC_SEND_LAST_WITH_IMMEDIATE", IB_QPT_UC, 16,
	  { X(IMMDT, 12) }, SV_OP_LAST },
	{ 0x24, "UC_SEND_ONLY", IB_QPT_UC, 12, {}, SV_OP_ONLY },
	{ 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", IB_QPT_UC, 16,
	  { X(IMMDT, 12) }, SV_OP_ONLY },
	{ 0x26, "UC_RDMA_WRITE_FIRST", IB_QPT_UC, 28,
	  { X(RETH, 12) }, SV_OP_FIRST },
	{ 0x27, "UC_RDMA_WRITE_MIDDLE", IB_QPT_UC, 12, {}, SV_OP_MIDDLE },
	{ 0x28, "UC_RDMA_WRITE_LAST", IB_QPT_UC, 12, {}, SV_OP_LAST },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", IB_QPT_UC, 16,
	  { X(IMMDT, 12) }, SV_OP_LAST },
	{ 0x2a, "UC_RDMA_WRITE_ONLY", IB_QPT_UC, 28,
	  { X(RETH, 12) }, SV_OP_ONLY },
	{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", IB_QPT_UC, 32,
	  { X(RETH, 12), X(IMMDT, 28) }, SV_OP_ONLY },

	{ 0x64, "UD_SEND_ONLY", IB_QPT_UD, 20,
	  { X(DETH, 12) }, SV_OP_ONLY | SV_OP_SEND },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", IB_QPT_UD, 24,
	  { X(DETH, 12), X(IMMDT, 20) }, SV_OP_ONLY | SV_OP_SEND },

	{ 0xa0, "XRC_SEND_FIRST", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_FIRST | SV_OP_REQ },
	{ 0xa1, "XRC_SEND_MIDDLE", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_MIDDLE | SV_OP_REQ },
	{ 0xa2, "XRC_SEND_LAST", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_LAST | SV_OP_REQ },
	{ 0xa3, "XRC_SEND_LAST_WITH_IMMEDIATE", IB_QPT_XRC_TGT, 20,
	  { X(XRCETH, 12), X(IMMDT, 16) }, SV_OP_LAST },
	{ 0xa4, "XRC_SEND_ONLY", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_ONLY },
	{ 0xa5, "XRC_SEND_ONLY_WITH_IMMEDIATE", IB_QPT_XRC_TGT, 20,
	  { X(XRCETH, 12), X(IMMDT, 16) }, SV_OP_ONLY },
	{ 0xa6, "XRC_RDMA_WRITE_FIRST", IB_QPT_XRC_TGT, 32,
	  { X(XRCETH, 12), X(RETH, 16) }, SV_OP_FIRST },
	{ 0xa7, "XRC_RDMA_WRITE_MIDDLE", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_MIDDLE },
	{ 0xa8, "XRC_RDMA_WRITE_LAST", IB_QPT_XRC_TGT, 16,
	  { X(XRCETH, 12) }, SV_OP_LAST },
	{ 0xa9, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE", IB_QPT_XRC_TGT, 20,
	  { X(XRCETH, 12), X(IMMDT, 16) }, SV_OP_LAST },
	{ 0xaa, "XRC_RDMA_WRITE_ONLY", IB_QPT_XRC_TGT, 32,
	  { X(XRCETH, 12), X(RETH, 16) }, SV_OP_ONLY },
	{ 0xab, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", IB_QPT_XRC_TGT, 36,
	  { X(XRCETH, 12), X(RETH, 16), X(IMMDT, 32) }, SV_OP_ONLY },
	{ 0xac, "XRC_RDMA_READ_REQUEST", IB_QPT_XRC_TGT, 32,
	  { X(XRCETH, 12), X(RETH, 16) }, SV_OP_ONLY | SV_OP_READ },
	{ 0xad, "XRC_RDMA_READ_RESPONSE_FIRST", IB_QPT_XRC_INI, 16,
	  { X(AETH, 12) }, SV_OP_FIRST | SV_OP_RESP },
	{ 0xae, "XRC_RDMA_READ_RESPONSE_MIDDLE", IB_QPT_XRC_INI, 12, {},
	  SV_OP_MIDDLE | SV_OP_RESP },
	{ 0xaf, "XRC_RDMA_READ_RESPONSE_LAST", IB_QPT_XRC_INI, 16,
	  { X(AETH, 12) }, SV_OP_LAST | SV_OP_RESP },
	{ 0xb0, "XRC_RDMA_READ_RESPONSE_ONLY", IB_QPT_XRC_INI, 16,
	  { X(AETH, 12) }, SV_OP_ONLY | SV_OP_RESP },
	{ 0xb1, "XRC_ACKNOWLEDGE", IB_QPT_XRC_INI, 16,
	  { X(AETH, 12) }, SV_OP_ONLY | SV_OP_RESP | SV_OP_ACK },
	{ 0xb2, "XRC_ATOMIC_ACKNOWLEDGE", IB_QPT_XRC_INI, 24,
	  { X(AETH, 12), X(ATMACK, 16) },
	  SV_OP_ONLY | SV_OP_RESP | SV_OP_ATOMIC_ACK },
	{ 0xb3, "XRC_COMPARE_SWAP", IB_QPT_XRC_TGT, 44,
	  { X(XRCETH, 12), X(ATMETH, 16) }, SV_OP_ONLY | SV_OP_ATOMIC },
	{ 0xb4, "XRC_FETCH_ADD", IB_QPT_XRC_TGT, 44,
	  { X(XRCETH, 12), X(ATMETH, 16) }, SV_OP_ONLY | SV_OP_ATOMIC },
	{ 0xb6, "XRC_SEND_LAST_WITH_INVALIDATE", IB_QPT_XRC_TGT, 20,
	  { X(XRCETH, 12), X(IETH, 16) }, SV_OP_LAST | SV_OP_SEND },
	{ 0xb7, "XRC_SEND_ONLY_WITH_INVALIDATE", IB_QPT_XRC_TGT, 20,
	  { X(XRCETH, 12), X(IETH, 16) }, SV_OP_ONLY | SV_OP_SEND },

	{ 0x81, "CNP", 0, 28, { X(CNP, 12) }, SV_OP_CNP_PKT },
};

static const struct want_op *find_want(u8 opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want_ops); i++)
		if (want_ops[i].opcode == opcode)
			return &want_ops[i];
	return NULL;
}

static u8 ext_len(enum sv_ext ext)
{
	static const u8 len[SV_EXT_NUM] = {
		[SV_EXT_XRCETH] = 4, [SV_EXT_FETH] = 4, [SV_EXT_DETH] = 8,
		[SV_EXT_RETH] = 16,
		[SV_EXT_ATMETH] = 28, [SV_EXT_AETH] = 4, [SV_EXT_ATMACK] = 8,
		[SV_EXT_IMMDT] = 4, [SV_EXT_IETH] = 4, [SV_EXT_CNP] = 16,
	};

	return len[ext];
}

/* every opcode IBTA lists has exactly its headers at its offsets */
static void opcode_ibta_header_sets(struct kunit *test)
{
	unsigned int i, e;

	for (i = 0; i < ARRAY_SIZE(want_ops); i++) {
		const struct want_op *w = &want_ops[i];
		const struct sv_opcode_info *info = sv_opcode_info(w->opcode);
		u16 want_hdrs = 0;

		if (!info) {
			KUNIT_FAIL(test, "opcode 0x%02x (%s) is missing",
				   w->opcode, w->name);
			continue;
		}
		KUNIT_EXPECT_STREQ_MSG(test, info->name, w->name,
				       "opcode 0x%02x: wrong name", w->opcode);
		KUNIT_EXPECT_EQ_MSG(test, info->qp_type, w->qp_type,
				    "%s: QP type", w->name);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, w->hdr_len,
				    "%s: header length", w->name);
		KUNIT_EXPECT_EQ_MSG(test, info->flags & w->flags, w->flags,
				    "%s: flags 0x%x lack some of 0x%x",
				    w->name, info->flags, w->flags);
		for (e = 0; e < ARRAY_SIZE(w->ext) && w->ext[e].off; e++) {
			want_hdrs |= BIT(w->ext[e].ext);
			KUNIT_EXPECT_EQ_MSG(test, info->off[w->ext[e].ext],
					    w->ext[e].off,
					    "%s: offset of extension header %d",
					    w->name, w->ext[e].ext);
		}
		KUNIT_EXPECT_EQ_MSG(test, info->hdrs, want_hdrs,
				    "%s: extension header set", w->name);
	}
}

/* opcodes IBTA reserves, RD, vendor: zero entries, NULL info */
static void opcode_unknown_are_zero(struct kunit *test)
{
	static const struct sv_opcode_info zero;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		if (find_want(op))
			continue;
		KUNIT_EXPECT_NULL_MSG(test, sv_opcode_info(op),
				      "opcode 0x%02x must be invalid", op);
		KUNIT_EXPECT_TRUE_MSG(test,
				      !memcmp(&sv_opcode_table[op], &zero,
					      sizeof(zero)),
				      "opcode 0x%02x: entry not all zero", op);
	}
}

/* offsets are contiguous from 12 in enum order, lengths add up */
static void opcode_lengths_sum(struct kunit *test)
{
	unsigned int op, e;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		unsigned int at = 12;

		if (!info)
			continue;
		for (e = 0; e < SV_EXT_NUM; e++) {
			if (!sv_opcode_has(info, e)) {
				KUNIT_EXPECT_EQ_MSG(test, info->off[e], 0,
						    "%s: absent header %u has offset",
						    info->name, e);
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, info->off[e], at,
					    "%s: header %u not right after the previous one",
					    info->name, e);
			at += ext_len(e);
		}
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, at,
				    "%s: hdr_len is not BTH + its headers",
				    info->name);
		KUNIT_EXPECT_LE_MSG(test, info->hdr_len, SV_MAX_HDR_BYTES,
				    "%s: longer than SV_MAX_HDR_BYTES",
				    info->name);
	}
}

/*
 * the transport is opcode bits 7:5 (IBTA 9.2): 000 RC, 001 UC, 011 UD,
 * 101 XRC (A14), whose requests a target QP and responses an initiator
 * receive
 */
static void opcode_transport_matches_bits(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		u8 want;

		if (!info)
			continue;
		switch (op >> 5) {
		case 0:
			want = IB_QPT_RC;
			break;
		case 1:
			want = IB_QPT_UC;
			break;
		case 3:
			want = IB_QPT_UD;
			break;
		case 5:
			want = info->flags & SV_OP_REQ ? IB_QPT_XRC_TGT :
							 IB_QPT_XRC_INI;
			break;
		default:
			want = 0;	/* CNP */
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, info->qp_type, want,
				    "%s: QP type vs opcode bits 7:5", info->name);
		KUNIT_EXPECT_EQ_MSG(test, sv_opcode_qp_ok(info, IB_QPT_GSI),
				    want == IB_QPT_UD,
				    "%s: GSI may use exactly the UD opcodes",
				    info->name);
	}
}

/* exactly one position; requests and responses are told apart */
static void opcode_positions_and_direction(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		u32 pos, dir;

		if (!info)
			continue;
		pos = info->flags & (SV_OP_FIRST | SV_OP_MIDDLE | SV_OP_LAST);
		KUNIT_EXPECT_TRUE_MSG(test,
				      pos == SV_OP_FIRST || pos == SV_OP_MIDDLE ||
				      pos == SV_OP_LAST || pos == SV_OP_ONLY,
				      "%s: position flags 0x%x", info->name, pos);
		dir = info->flags & (SV_OP_REQ | SV_OP_RESP);
		if (info->flags & SV_OP_CNP_PKT)
			KUNIT_EXPECT_EQ_MSG(test, dir, 0,
					    "CNP is neither request nor response");
		else
			KUNIT_EXPECT_TRUE_MSG(test, dir == SV_OP_REQ ||
					      dir == SV_OP_RESP,
					      "%s: direction flags 0x%x",
					      info->name, dir);
		if (dir == SV_OP_RESP)
			KUNIT_EXPECT_TRUE_MSG(test, info->qp_type == IB_QPT_RC ||
					      info->qp_type == IB_QPT_XRC_INI,
					      "%s: only RC and XRC have responses",
					      info->name);
	}
}

/* payload: sends, writes, read responses, ATOMIC WRITE; nothing else */
static void opcode_payload(struct kunit *test)
{
	const u32 carry = SV_OP_SEND | SV_OP_WRITE | SV_OP_READ_RESP |
			  SV_OP_ATOMIC_WRITE;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);

		if (!info)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_PAYLOAD),
				    !!(info->flags & carry),
				    "%s: payload flag", info->name);
		/* exactly one operation */
		KUNIT_EXPECT_EQ_MSG(test,
				    hweight32(info->flags &
					      (carry | SV_OP_READ | SV_OP_ATOMIC |
					       SV_OP_FLUSH | SV_OP_ACK |
					       SV_OP_ATOMIC_ACK |
					       SV_OP_CNP_PKT)), 1,
				    "%s: operation flags 0x%x", info->name,
				    info->flags);
	}
}

/*
 * The receive queue: a SEND takes a receive WQE at its first packet and
 * completes it at its last; an RDMA WRITE with immediate takes and
 * completes one at its last.  SE means something exactly where a receive
 * completes.
 */
static void opcode_receive_side(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		bool send, write_imm, rwqe, comp;

		if (!info)
			continue;
		send = info->flags & SV_OP_SEND;
		write_imm = (info->flags & SV_OP_WRITE) &&
			    sv_opcode_has(info, SV_EXT_IMMDT);
		rwqe = (send && (info->flags & SV_OP_FIRST)) || write_imm;
		comp = (send && (info->flags & SV_OP_LAST)) || write_imm;

		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_RWQE), rwqe,
				    "%s: takes a receive WQE?", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_RECV_COMP),
				    comp, "%s: completes a receive?",
				    info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_SE), comp,
				    "%s: SE meaningful?", info->name);
		if (send)
			KUNIT_EXPECT_EQ_MSG(test, info->recv_wc, IB_WC_RECV,
					    "%s: receive completion opcode",
					    info->name);
		if (write_imm)
			KUNIT_EXPECT_EQ_MSG(test, info->recv_wc,
					    IB_WC_RECV_RDMA_WITH_IMM,
					    "%s: receive completion opcode",
					    info->name);
	}
}

/*
 * RC and XRC requests are answered: sends and writes by a (coalescable)
 * ACK, READ / atomics / FLUSH / ATOMIC WRITE by their own response, of the
 * same transport.  UC and UD requests are not answered at all.
 */
static void opcode_responses(struct kunit *test)
{
	const u32 own = SV_OP_READ | SV_OP_ATOMIC | SV_OP_FLUSH |
			SV_OP_ATOMIC_WRITE;
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sv_opcode_info *info = sv_opcode_info(op);
		const struct sv_opcode_info *resp;
		bool rc_req;
		u8 base;

		if (!info)
			continue;
		rc_req = (info->qp_type == IB_QPT_RC ||
			  info->qp_type == IB_QPT_XRC_TGT) &&
			 (info->flags & SV_OP_REQ);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_NEEDS_RESP),
				    rc_req && (info->flags & own),
				    "%s: needs its own response?", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & SV_OP_ACKED),
				    rc_req && !(info->flags & own),
				    "%s: acknowledged?", info->name);
		if (!rc_req)
			continue;
		resp = sv_opcode_info(info->resp_opcode);
		KUNIT_ASSERT_NOT_NULL_MSG(test, resp,
					  "%s: response opcode 0x%02x invalid",
					  info->name, info->resp_opcode);
		KUNIT_EXPECT_TRUE_MSG(test, resp->flags & SV_OP_RESP,
				      "%s: answered by %s, not a response",
				      info->name, resp->name);
		base = op & 0xe0;
		if (info->flags & SV_OP_ATOMIC)
			KUNIT_EXPECT_EQ_MSG(test, info->resp_opcode,
					    base + IB_OPCODE_ATOMIC_ACKNOWLEDGE,
					    "%s: answer", info->name);
		else if (info->flags & own)
			KUNIT_EXPECT_EQ_MSG(test, info->resp_opcode,
					    base + IB_OPCODE_RDMA_READ_RESPONSE_ONLY,
					    "%s: answer", info->name);
		else
			KUNIT_EXPECT_EQ_MSG(test, info->resp_opcode,
					    base + IB_OPCODE_ACKNOWLEDGE,
					    "%s: answer", info->name);
	}
}

/* expected packet opcodes of multi-packet work requests */
struct want_seq {
	u32		wr;
	u8		qp_type;
	u8		op[SV_PKT_POS_NUM];	/* first, middle, last, only */
};

static const struct want_seq want_seqs[] = {
	{ IB_WR_SEND, IB_QPT_RC, { 0x00, 0x01, 0x02, 0x04 } },
	{ IB_WR_SEND_WITH_IMM, IB_QPT_RC, { 0x00, 0x01, 0x03, 0x05 } },
	{ IB_WR_SEND_WITH_INV, IB_QPT_RC, { 0x00, 0x01, 0x16, 0x17 } },
	{ IB_WR_RDMA_WRITE, IB_QPT_RC, { 0x06, 0x07, 0x08, 0x0a } },
	{ IB_WR_RDMA_WRITE_WITH_IMM, IB_QPT_RC, { 0x06, 0x07, 0x09, 0x0b } },
	{ IB_WR_SEND, IB_QPT_UC, { 0x20, 0x21, 0x22, 0x24 } },
	{ IB_WR_SEND_WITH_IMM, IB_QPT_UC, { 0x20, 0x21, 0x23, 0x25 } },
	{ IB_WR_RDMA_WRITE, IB_QPT_UC, { 0x26, 0x27, 0x28, 0x2a } },
	{ IB_WR_RDMA_WRITE_WITH_IMM, IB_QPT_UC, { 0x26, 0x27, 0x29, 0x2b } },
	{ IB_WR_SEND, IB_QPT_XRC_INI, { 0xa0, 0xa1, 0xa2, 0xa4 } },
	{ IB_WR_SEND_WITH_IMM, IB_QPT_XRC_INI, { 0xa0, 0xa1, 0xa3, 0xa5 } },
	{ IB_WR_SEND_WITH_INV, IB_QPT_XRC_INI, { 0xa0, 0xa1, 0xb6, 0xb7 } },
	{ IB_WR_RDMA_WRITE, IB_QPT_XRC_INI, { 0xa6, 0xa7, 0xa8, 0xaa } },
	{ IB_WR_RDMA_WRITE_WITH_IMM, IB_QPT_XRC_INI,
	  { 0xa6, 0xa7, 0xa9, 0xab } },
};

/* single-packet work requests: only the "Only" position exists */
struct want_one {
	u32		wr;
	u8		qp_type;
	u8		op;
};

static const struct want_one want_ones[] = {
	{ IB_WR_RDMA_READ, IB_QPT_RC, 0x0c },
	{ IB_WR_ATOMIC_CMP_AND_SWP, IB_QPT_RC, 0x13 },
	{ IB_WR_ATOMIC_FETCH_AND_ADD, IB_QPT_RC, 0x14 },
	{ SV_WR_FLUSH, IB_QPT_RC, 0x1c },
	{ SV_WR_ATOMIC_WRITE, IB_QPT_RC, 0x1d },
	{ IB_WR_SEND, IB_QPT_UD, 0x64 },
	{ IB_WR_SEND_WITH_IMM, IB_QPT_UD, 0x65 },
	{ IB_WR_SEND, IB_QPT_GSI, 0x64 },
	{ IB_WR_SEND_WITH_IMM, IB_QPT_GSI, 0x65 },
	{ IB_WR_RDMA_READ, IB_QPT_XRC_INI, 0xac },
	{ IB_WR_ATOMIC_CMP_AND_SWP, IB_QPT_XRC_INI, 0xb3 },
	{ IB_WR_ATOMIC_FETCH_AND_ADD, IB_QPT_XRC_INI, 0xb4 },
};

/* the type of the QP that receives what a QP of @qp_type sends */
static enum ib_qp_type peer_type(enum ib_qp_type qp_type)
{
	return qp_type == IB_QPT_XRC_INI ? IB_QPT_XRC_TGT : qp_type;
}

static const char *const pos_name[] = { "first", "middle", "last", "only" };

static void opcode_wr_sequences(struct kunit *test)
{
	static const u32 pos_flags[SV_PKT_POS_NUM] = {
		SV_OP_FIRST, SV_OP_MIDDLE, SV_OP_LAST, SV_OP_ONLY,
	};
	unsigned int i, pos;

	for (i = 0; i < ARRAY_SIZE(want_seqs); i++) {
		const struct want_seq *w = &want_seqs[i];

		for (pos = 0; pos < SV_PKT_POS_NUM; pos++) {
			int got = sv_opcode_wr_pkt(w->wr, w->qp_type, pos);
			const struct sv_opcode_info *info;

			KUNIT_EXPECT_EQ_MSG(test, got, w->op[pos],
					    "WR %u on QP type %u, %s packet",
					    w->wr, w->qp_type, pos_name[pos]);
			info = got >= 0 ? sv_opcode_info(got) : NULL;
			if (!info)
				continue;
			KUNIT_EXPECT_EQ_MSG(test,
					    info->flags & (SV_OP_FIRST |
							   SV_OP_MIDDLE |
							   SV_OP_LAST),
					    pos_flags[pos],
					    "%s used as the %s packet",
					    info->name, pos_name[pos]);
			KUNIT_EXPECT_TRUE_MSG(test,
					      sv_opcode_qp_ok(info,
							      peer_type(w->qp_type)),
					      "%s from QP type %u", info->name,
					      w->qp_type);
		}
	}
}

static void opcode_wr_single_packet(struct kunit *test)
{
	unsigned int i, pos;

	for (i = 0; i < ARRAY_SIZE(want_ones); i++) {
		const struct want_one *w = &want_ones[i];

		KUNIT_EXPECT_EQ_MSG(test,
				    sv_opcode_wr_pkt(w->wr, w->qp_type,
						     SV_PKT_ONLY),
				    w->op, "WR %u on QP type %u",
				    w->wr, w->qp_type);
		for (pos = SV_PKT_FIRST; pos < SV_PKT_ONLY; pos++)
			KUNIT_EXPECT_EQ_MSG(test,
					    sv_opcode_wr_pkt(w->wr, w->qp_type,
							     pos),
					    -EINVAL,
					    "WR %u on QP type %u has no %s packet",
					    w->wr, w->qp_type, pos_name[pos]);
	}
}

/* what has no packet: wrong QP type, local operations, junk */
static void opcode_wr_rejects(struct kunit *test)
{
	static const struct { u32 wr; u8 qp_type; } bad[] = {
		{ IB_WR_RDMA_READ, IB_QPT_UC },
		{ IB_WR_RDMA_READ, IB_QPT_UD },
		{ IB_WR_ATOMIC_CMP_AND_SWP, IB_QPT_UC },
		{ IB_WR_RDMA_WRITE, IB_QPT_UD },
		{ IB_WR_SEND_WITH_INV, IB_QPT_UC },
		{ IB_WR_SEND_WITH_INV, IB_QPT_UD },
		{ SV_WR_FLUSH, IB_QPT_UC },
		{ SV_WR_ATOMIC_WRITE, IB_QPT_UD },
		{ IB_WR_LOCAL_INV, IB_QPT_RC },
		{ IB_WR_BIND_MW, IB_QPT_RC },
		{ IB_WR_REG_MR, IB_QPT_RC },
		{ IB_WR_LSO, IB_QPT_UD },
		{ IB_WR_MASKED_ATOMIC_CMP_AND_SWP, IB_QPT_RC },
		{ IB_WR_SEND, IB_QPT_XRC_TGT },
		{ IB_WR_REG_MR, IB_QPT_XRC_INI },
		{ IB_WR_BIND_MW, IB_QPT_XRC_INI },
		{ SV_WR_FLUSH, IB_QPT_XRC_INI },
		{ SV_WR_ATOMIC_WRITE, IB_QPT_XRC_INI },
		{ IB_WR_SEND, IB_QPT_RAW_PACKET },
		{ 0xffffffff, IB_QPT_RC },
	};
	unsigned int i, pos;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		for (pos = 0; pos < SV_PKT_POS_NUM; pos++)
			KUNIT_EXPECT_EQ_MSG(test,
					    sv_opcode_wr_pkt(bad[i].wr,
							     bad[i].qp_type, pos),
					    -EINVAL,
					    "WR %u on QP type %u, %s: no packet",
					    bad[i].wr, bad[i].qp_type,
					    pos_name[pos]);
	KUNIT_EXPECT_EQ_MSG(test, sv_opcode_wr_pkt(IB_WR_SEND, IB_QPT_RC,
						   SV_PKT_POS_NUM),
			    -EINVAL, "position out of range");
}

/*
 * The work request table against the BTH opcode table: every packet it
 * names is a request of the right transport at the right position; the
 * requests answered by a response of their own (SV_WR_RD_ATOMIC) and only
 * they have NEEDS_RESP packets; local operations have no packets; every
 * transport that takes a remote operation has its packets and no other
 * has any; a message that may span packets has all four positions.
 */
static void opcode_wr_table_consistent(struct kunit *test)
{
	static const u32 pos_flags[SV_PKT_POS_NUM] = {
		SV_OP_FIRST, SV_OP_MIDDLE, SV_OP_LAST, SV_OP_ONLY,
	};
	static const enum ib_qp_type xport_qpt[SV_XPORT_NUM] = {
		IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_XRC_INI,
	};
	static const u16 xport_qpts[SV_XPORT_NUM] = {
		SV_WR_QPT_RC, SV_WR_QPT_UC, SV_WR_QPT_UD, SV_WR_QPT_XRC,
	};
	static const struct { u32 wr; u32 op; } kind[] = {
		{ SV_WR_READ, SV_OP_READ },
		{ SV_WR_ATOMIC, SV_OP_ATOMIC },
		{ SV_WR_VALUE8, SV_OP_ATOMIC_WRITE },
		{ SV_WR_RANGE, SV_OP_FLUSH },
	};
	unsigned int wr, x, pos, k;

	for (wr = 0; wr < SV_WR_NUM; wr++) {
		const struct sv_wr_info *w = &sv_opcode_wr_table[wr];
		unsigned int npkts = 0;

		if (!w->name) {
			KUNIT_EXPECT_EQ_MSG(test, w->qp_types, 0,
					    "WR %u has no name", wr);
			KUNIT_EXPECT_PTR_EQ(test, sv_opcode_wr_info(wr), NULL);
			continue;
		}
		KUNIT_EXPECT_NE_MSG(test, w->flags & SV_WR_KERNEL &&
				    w->flags & SV_WR_USER, true,
				    "%s: kernel-only and user-only", w->name);
		KUNIT_EXPECT_LT_MSG(test, w->wc_opcode, IB_WC_RECV,
				    "%s: a send completion", w->name);
		if (w->flags & SV_WR_WC_LEN8)
			KUNIT_EXPECT_TRUE_MSG(test, w->flags & SV_WR_ATOMIC,
					      "%s: 8-byte completion", w->name);
		if (w->flags & (SV_WR_READ | SV_WR_ACK_ENDS))
			KUNIT_EXPECT_TRUE_MSG(test, w->flags & SV_WR_RD_ATOMIC,
					      "%s: its own response", w->name);

		for (x = 0; x < SV_XPORT_NUM; x++) {
			bool only = w->pkt[x][SV_PKT_ONLY];

			/* FLUSH where ib_core lacks it: listed, taken by none */
			if (w->qp_types && !(w->flags & SV_WR_LOCAL))
				KUNIT_EXPECT_EQ_MSG(test,
						    !!(w->qp_types & xport_qpts[x]),
						    only,
						    "%s: transport %u takes it iff it has packets",
						    w->name, x);
			if (w->pkt[x][SV_PKT_FIRST])
				KUNIT_EXPECT_TRUE_MSG(test,
						      w->pkt[x][SV_PKT_MIDDLE] &&
						      w->pkt[x][SV_PKT_LAST] && only,
						      "%s: a partial sequence", w->name);

			for (pos = 0; pos < SV_PKT_POS_NUM; pos++) {
				u16 pkt = w->pkt[x][pos];
				const struct sv_opcode_info *info;

				if (!pkt)
					continue;
				npkts++;
				KUNIT_EXPECT_EQ_MSG(test, pkt >> 8, 1,
						    "%s: entry %#x", w->name, pkt);
				info = sv_opcode_info(pkt & 0xff);
				KUNIT_ASSERT_NOT_NULL_MSG(test, info,
							  "%s: opcode %#x", w->name,
							  pkt & 0xff);
				KUNIT_EXPECT_EQ_MSG(test,
						    sv_opcode_wr_pkt(wr, xport_qpt[x], pos),
						    pkt & 0xff, "%s", w->name);
				KUNIT_EXPECT_TRUE_MSG(test, info->flags & SV_OP_REQ,
						      "%s: %s is no request",
						      w->name, info->name);
				KUNIT_EXPECT_TRUE_MSG(test,
						      sv_opcode_qp_ok(info,
								      peer_type(xport_qpt[x])),
						      "%s: %s on transport %u",
						      w->name, info->name, x);
				KUNIT_EXPECT_EQ_MSG(test,
						    info->flags & SV_OP_ONLY ?:
						    info->flags & SV_OP_MIDDLE,
						    pos_flags[pos],
						    "%s: %s as the %s packet", w->name,
						    info->name, pos_name[pos]);
				KUNIT_EXPECT_EQ_MSG(test,
						    !!(info->flags & SV_OP_NEEDS_RESP),
						    !!(w->flags & SV_WR_RD_ATOMIC),
						    "%s: %s and its response",
						    w->name, info->name);
				for (k = 0; k < ARRAY_SIZE(kind); k++)
					KUNIT_EXPECT_EQ_MSG(test,
							    !!(w->flags & kind[k].wr),
							    !!(info->flags & kind[k].op),
							    "%s: %s is another operation",
							    w->name, info->name);
				if (w->flags & SV_WR_INLINE)
					KUNIT_EXPECT_TRUE_MSG(test,
							      info->flags & SV_OP_PAYLOAD,
							      "%s: inline data in %s",
							      w->name, info->name);
			}
		}
		if (w->flags & SV_WR_LOCAL)
			KUNIT_EXPECT_EQ_MSG(test, npkts, 0,
					    "%s: a local operation with packets",
					    w->name);
		else
			KUNIT_EXPECT_GT_MSG(test, npkts, 0,
					    "%s: a remote operation without packets",
					    w->name);
	}
	/* what softverbs does not know completes as a send (sv_comp.c) */
	KUNIT_EXPECT_EQ(test, sv_opcode_wr_wc(IB_WR_LSO), IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, sv_opcode_wr_wc(0xffffffff), IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, sv_opcode_wr_flags(0xffffffff), 0);
	KUNIT_EXPECT_EQ(test, sv_opcode_wr_wc_len(IB_WR_ATOMIC_FETCH_AND_ADD, 64),
			8);
	KUNIT_EXPECT_EQ(test, sv_opcode_wr_wc_len(IB_WR_RDMA_READ, 64), 64);
}

static void opcode_pkt_pos(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sv_pkt_pos(true, false), SV_PKT_FIRST);
	KUNIT_EXPECT_EQ(test, sv_pkt_pos(false, false), SV_PKT_MIDDLE);
	KUNIT_EXPECT_EQ(test, sv_pkt_pos(false, true), SV_PKT_LAST);
	KUNIT_EXPECT_EQ(test, sv_pkt_pos(true, true), SV_PKT_ONLY);
}

static struct kunit_case opcode_cases[] = {
	KUNIT_CASE(opcode_ibta_header_sets),
	KUNIT_CASE(opcode_unknown_are_zero),
	KUNIT_CASE(opcode_lengths_sum),
	KUNIT_CASE(opcode_transport_matches_bits),
	KUNIT_CASE(opcode_positions_and_direction),
	KUNIT_CASE(opcode_payload),
	KUNIT_CASE(opcode_receive_side),
	KUNIT_CASE(opcode_responses),
	KUNIT_CASE(opcode_wr_sequences),
	KUNIT_CASE(opcode_wr_single_packet),
	KUNIT_CASE(opcode_wr_rejects),
	KUNIT_CASE(opcode_wr_table_consistent),
	KUNIT_CASE(opcode_pkt_pos),
	{}
};

static struct kunit_suite opcode_suite = {
	.name = "opcode_kunit",
	.test_cases = opcode_cases,
};

kunit_test_suites(&opcode_suite);
