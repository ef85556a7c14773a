// SPDX-License-Identifier: GPL-2.0
/*
 * The BTH opcode table and the work request table (what each send work
 * request is and which packets carry it).  Pure data: see sv_opcode.h
 * for what the fields mean.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "compat/compat.h"
#include "sv_opcode.h"

/*
 * Offsets are computed from the header list at compile time, so the table
 * states only which headers an opcode carries, in enum sv_ext order (the
 * wire order), never a hand-added offset.
 */
#define EXT_LEN(e)						\
	((e) == SV_EXT_XRCETH ? SV_XRCETH_BYTES :		\
	 (e) == SV_EXT_FETH ? SV_FETH_BYTES :			\
	 (e) == SV_EXT_DETH ? SV_DETH_BYTES :			\
	 (e) == SV_EXT_RETH ? SV_RETH_BYTES :			\
	 (e) == SV_EXT_ATMETH ? SV_ATMETH_BYTES :		\
	 (e) == SV_EXT_AETH ? SV_AETH_BYTES :			\
	 (e) == SV_EXT_ATMACK ? SV_ATMACK_BYTES :		\
	 (e) == SV_EXT_IMMDT ? SV_IMMDT_BYTES :			\
	 (e) == SV_EXT_IETH ? SV_IETH_BYTES :			\
	 (e) == SV_EXT_CNP ? SV_CNP_BYTES : 0)

/* bytes of the headers in @hdrs that precede extension header @lim */
#define EXT_BELOW1(hdrs, e, lim) \
	(((hdrs) & BIT(e)) && (e) < (lim) ? EXT_LEN(e) : 0)
#define EXT_BELOW(hdrs, lim)					\
	(EXT_BELOW1(hdrs, SV_EXT_XRCETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_FETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_DETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_RETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_ATMETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_AETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_ATMACK, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_IMMDT, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_IETH, lim) +			\
	 EXT_BELOW1(hdrs, SV_EXT_CNP, lim))
#define EXT_OFF(hdrs, e) \
	((hdrs) & BIT(e) ? SV_BTH_BYTES + EXT_BELOW(hdrs, e) : 0)

static_assert(SV_EXT_NUM == 10, "EXT_BELOW() must list every extension header");

#define OPCODE(_op, _name, _qpt, _hdrs, _flags, _recv_wc, _resp)	\
	[_op] = {							\
		.name = _name,						\
		.flags = _flags,					\
		.hdrs = _hdrs,						\
		.qp_type = _qpt,					\
		.hdr_len = SV_BTH_BYTES + EXT_BELOW(_hdrs, SV_EXT_NUM),	\
		.off = {						\
			[SV_EXT_XRCETH] = EXT_OFF(_hdrs, SV_EXT_XRCETH), \
			[SV_EXT_FETH] = EXT_OFF(_hdrs, SV_EXT_FETH),	\
			[SV_EXT_DETH] = EXT_OFF(_hdrs, SV_EXT_DETH),	\
			[SV_EXT_RETH] = EXT_OFF(_hdrs, SV_EXT_RETH),	\
			[SV_EXT_ATMETH] = EXT_OFF(_hdrs, SV_EXT_ATMETH), \
			[SV_EXT_AETH] = EXT_OFF(_hdrs, SV_EXT_AETH),	\
			[SV_EXT_ATMACK] = EXT_OFF(_hdrs, SV_EXT_ATMACK), \
			[SV_EXT_IMMDT] = EXT_OFF(_hdrs, SV_EXT_IMMDT),	\
			[SV_EXT_IETH] = EXT_OFF(_hdrs, SV_EXT_IETH),	\
			[SV_EXT_CNP] = EXT_OFF(_hdrs, SV_EXT_CNP),	\
		},							\
		.recv_wc = _recv_wc,					\
		.resp_opcode = _resp,					\
	}

#define H(e)		BIT(SV_EXT_##e)
#define F(f)		SV_OP_##f

/* flag sets shared by many rows */
#define SEND_REQ	(F(REQ) | F(SEND) | F(PAYLOAD))
#define WRITE_REQ	(F(REQ) | F(WRITE) | F(PAYLOAD))
/* the receive completes here: SE is meaningful (IBTA 9.2) */
#define RECV_END	(F(RECV_COMP) | F(SE))
#define READ_RESP	(F(RESP) | F(READ_RESP) | F(PAYLOAD))

/*
 * The rows of the send and RDMA WRITE opcodes are the same for RC, UC and
 * XRC (IBTA 9.2 opcode table, Annex A14), except that only RC and XRC
 * requests are acknowledged and only XRC requests carry an XRCETH: @T is
 * the transport's name, @B its opcode prefix (bits 7:5), @Q the type of
 * the QP that receives the requests, @X the headers every request of the
 * transport carries (0 or H(XRCETH)), @A SV_OP_ACKED or 0.
 */
#define OPC(B, op)	((B) + IB_OPCODE_##op)
#define SEND_WRITE_ROWS(T, B, Q, X, A)					\
	OPCODE(OPC(B, SEND_FIRST), #T "_SEND_FIRST", Q, (X),		\
	       SEND_REQ | F(FIRST) | F(RWQE) | (A), IB_WC_RECV,		\
	       ACK_OP(B, A)),						\
	OPCODE(OPC(B, SEND_MIDDLE), #T "_SEND_MIDDLE", Q, (X),		\
	       SEND_REQ | F(MIDDLE) | (A), IB_WC_RECV, ACK_OP(B, A)),	\
	OPCODE(OPC(B, SEND_LAST), #T "_SEND_LAST", Q, (X),		\
	       SEND_REQ | F(LAST) | RECV_END | (A), IB_WC_RECV,		\
	       ACK_OP(B, A)),						\
	OPCODE(OPC(B, SEND_LAST_WITH_IMMEDIATE),				\
	       #T "_SEND_LAST_WITH_IMMEDIATE", Q, (X) | H(IMMDT),	\
	       SEND_REQ | F(LAST) | RECV_END | (A), IB_WC_RECV,		\
	       ACK_OP(B, A)),						\
	OPCODE(OPC(B, SEND_ONLY), #T "_SEND_ONLY", Q, (X),		\
	       SEND_REQ | SV_OP_ONLY | F(RWQE) | RECV_END | (A),	\
	       IB_WC_RECV, ACK_OP(B, A)),				\
	OPCODE(OPC(B, SEND_ONLY_WITH_IMMEDIATE),				\
	       #T "_SEND_ONLY_WITH_IMMEDIATE", Q, (X) | H(IMMDT),	\
	       SEND_REQ | SV_OP_ONLY | F(RWQE) | RECV_END | (A),	\
	       IB_WC_RECV, ACK_OP(B, A)),				\
	OPCODE(OPC(B, RDMA_WRITE_FIRST), #T "_RDMA_WRITE_FIRST", Q,	\
	       (X) | H(RETH),						\
	       WRITE_REQ | F(FIRST) | (A), 0, ACK_OP(B, A)),		\
	OPCODE(OPC(B, RDMA_WRITE_MIDDLE), #T "_RDMA_WRITE_MIDDLE", Q, (X), \
	       WRITE_REQ | F(MIDDLE) | (A), 0, ACK_OP(B, A)),		\
	OPCODE(OPC(B, RDMA_WRITE_LAST), #T "_RDMA_WRITE_LAST", Q, (X),	\
	       WRITE_REQ | F(LAST) | (A), 0, ACK_OP(B, A)),		\
	OPCODE(OPC(B, RDMA_WRITE_LAST_WITH_IMMEDIATE),			\
	       #T "_RDMA_WRITE_LAST_WITH_IMMEDIATE", Q, (X) | H(IMMDT),	\
	       WRITE_REQ | F(LAST) | F(RWQE) | RECV_END | (A),		\
	       IB_WC_RECV_RDMA_WITH_IMM, ACK_OP(B, A)),			\
	OPCODE(OPC(B, RDMA_WRITE_ONLY), #T "_RDMA_WRITE_ONLY", Q,	\
	       (X) | H(RETH),						\
	       WRITE_REQ | SV_OP_ONLY | (A), 0, ACK_OP(B, A)),		\
	OPCODE(OPC(B, RDMA_WRITE_ONLY_WITH_IMMEDIATE),			\
	       #T "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", Q,			\
	       (X) | H(RETH) | H(IMMDT),				\
	       WRITE_REQ | SV_OP_ONLY | F(RWQE) | RECV_END | (A),	\
	       IB_WC_RECV_RDMA_WITH_IMM, ACK_OP(B, A))

/* RC and XRC sends and writes are answered by an Acknowledge; UC ones not */
#define ACK_OP(B, A)	((A) ? OPC(B, ACKNOWLEDGE) : 0)

/*
 * What only the reliable connected transports have (IBTA 9.2, Annex A14):
 * Send with Invalidate, RDMA READ, the atomics, and the responses.  @Q is
 * the type of the QP that receives the requests, @R of the one that
 * receives the responses (the same QP type for RC; the initiator for XRC);
 * responses never carry an XRCETH.
 */
#define RELIABLE_ROWS(T, B, Q, R, X)					\
	OPCODE(OPC(B, SEND_LAST_WITH_INVALIDATE),			\
	       #T "_SEND_LAST_WITH_INVALIDATE", Q, (X) | H(IETH),	\
	       SEND_REQ | F(LAST) | RECV_END | F(ACKED), IB_WC_RECV,	\
	       OPC(B, ACKNOWLEDGE)),					\
	OPCODE(OPC(B, SEND_ONLY_WITH_INVALIDATE),			\
	       #T "_SEND_ONLY_WITH_INVALIDATE", Q, (X) | H(IETH),	\
	       SEND_REQ | SV_OP_ONLY | F(RWQE) | RECV_END | F(ACKED),	\
	       IB_WC_RECV, OPC(B, ACKNOWLEDGE)),				\
	OPCODE(OPC(B, RDMA_READ_REQUEST), #T "_RDMA_READ_REQUEST", Q,	\
	       (X) | H(RETH),						\
	       F(REQ) | F(READ) | SV_OP_ONLY | F(NEEDS_RESP), 0,	\
	       OPC(B, RDMA_READ_RESPONSE_ONLY)),				\
	OPCODE(OPC(B, COMPARE_SWAP), #T "_COMPARE_SWAP", Q,		\
	       (X) | H(ATMETH),						\
	       F(REQ) | F(ATOMIC) | SV_OP_ONLY | F(NEEDS_RESP), 0,	\
	       OPC(B, ATOMIC_ACKNOWLEDGE)),				\
	OPCODE(OPC(B, FETCH_ADD), #T "_FETCH_ADD", Q,			\
	       (X) | H(ATMETH),						\
	       F(REQ) | F(ATOMIC) | SV_OP_ONLY | F(NEEDS_RESP), 0,	\
	       OPC(B, ATOMIC_ACKNOWLEDGE)),				\
	OPCODE(OPC(B, RDMA_READ_RESPONSE_FIRST),				\
	       #T "_RDMA_READ_RESPONSE_FIRST", R, H(AETH),		\
	       READ_RESP | F(FIRST), 0, 0),				\
	/* middle responses have no AETH: the first one carried it */	\
	OPCODE(OPC(B, RDMA_READ_RESPONSE_MIDDLE),			\
	       #T "_RDMA_READ_RESPONSE_MIDDLE", R, 0,			\
	       READ_RESP | F(MIDDLE), 0, 0),				\
	OPCODE(OPC(B, RDMA_READ_RESPONSE_LAST),				\
	       #T "_RDMA_READ_RESPONSE_LAST", R, H(AETH),		\
	       READ_RESP | F(LAST), 0, 0),				\
	OPCODE(OPC(B, RDMA_READ_RESPONSE_ONLY),				\
	       #T "_RDMA_READ_RESPONSE_ONLY", R, H(AETH),		\
	       READ_RESP | SV_OP_ONLY, 0, 0),				\
	OPCODE(OPC(B, ACKNOWLEDGE), #T "_ACKNOWLEDGE", R, H(AETH),	\
	       F(RESP) | F(ACK) | SV_OP_ONLY, 0, 0),			\
	OPCODE(OPC(B, ATOMIC_ACKNOWLEDGE), #T "_ATOMIC_ACKNOWLEDGE", R,	\
	       H(AETH) | H(ATMACK),					\
	       F(RESP) | F(ATOMIC_ACK) | SV_OP_ONLY, 0, 0)

const struct sv_opcode_info sv_opcode_table[256] = {
	SEND_WRITE_ROWS(RC, IB_OPCODE_RC, IB_QPT_RC, 0, F(ACKED)),
	RELIABLE_ROWS(RC, IB_OPCODE_RC, IB_QPT_RC, IB_QPT_RC, 0),
	/* IBTA 1.5: FETH then RETH, no payload; answered like a read */
	OPCODE(SV_OPCODE_RC_FLUSH, "RC_FLUSH",
	       IB_QPT_RC, H(FETH) | H(RETH),
	       F(REQ) | F(FLUSH) | SV_OP_ONLY | F(NEEDS_RESP), 0,
	       IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY),
	/* IBTA 1.5: RETH and exactly 8 bytes of payload */
	OPCODE(SV_OPCODE_RC_ATOMIC_WRITE, "RC_ATOMIC_WRITE",
	       IB_QPT_RC, H(RETH),
	       F(REQ) | F(ATOMIC_WRITE) | F(PAYLOAD) | SV_OP_ONLY |
	       F(NEEDS_RESP), 0,
	       IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY),

	/* UC: sends and writes only, unacknowledged */
	SEND_WRITE_ROWS(UC, IB_OPCODE_UC, IB_QPT_UC, 0, 0),

	/* UD: single-packet sends with a DETH */
	OPCODE(IB_OPCODE_UD_SEND_ONLY, "UD_SEND_ONLY",
	       IB_QPT_UD, H(DETH),
	       SEND_REQ | SV_OP_ONLY | F(RWQE) | RECV_END, IB_WC_RECV, 0),
	OPCODE(IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
	       "UD_SEND_ONLY_WITH_IMMEDIATE", IB_QPT_UD, H(DETH) | H(IMMDT),
	       SEND_REQ | SV_OP_ONLY | F(RWQE) | RECV_END, IB_WC_RECV, 0),

	/*
	 * XRC (IBTA Annex A14): the RC operations, every request with an
	 * XRCETH, from an initiator to a target QP; FLUSH and ATOMIC WRITE
	 * are not offered on XRC.
	 */
	SEND_WRITE_ROWS(XRC, SV_OPCODE_XRC, IB_QPT_XRC_TGT, H(XRCETH),
			F(ACKED)),
	RELIABLE_ROWS(XRC, SV_OPCODE_XRC, IB_QPT_XRC_TGT, IB_QPT_XRC_INI,
		      H(XRCETH)),

	/* RoCEv2 CNP: no QP type, 16 reserved bytes, no payload */
	OPCODE(SV_OPCODE_CNP, "CNP", 0, H(CNP), F(CNP_PKT) | SV_OP_ONLY, 0, 0),
};

/*
 * The work request table.  Packet sequences: a message of several packets
 * goes First, Middle..., Last; one that fits in one packet goes Only.
 * Operations that fit in one packet by definition (READ request, atomics,
 * FLUSH, ATOMIC WRITE, UD sends) have only an "Only" entry; a READ that
 * resumes after a partial response is a new READ request, hence "Only"
 * too.  Local operations (LOCAL_INV, BIND_MW, REG_MR) put nothing on the
 * wire.
 */
#define PKT(op)		(0x100 | (op))
#define SEQ(B, MSG, LAST, ONLY) {				\
	[SV_PKT_FIRST] = PKT(OPC(B, MSG##_FIRST)),		\
	[SV_PKT_MIDDLE] = PKT(OPC(B, MSG##_MIDDLE)),		\
	[SV_PKT_LAST] = PKT(OPC(B, LAST)),			\
	[SV_PKT_ONLY] = PKT(OPC(B, ONLY)) }
#define ONE(op)		{ [SV_PKT_ONLY] = PKT(op) }

#define WR(_wr, _qpts, _flags, _wc, ...)			\
	[_wr] = {						\
		.name = #_wr + 6,	/* without "IB_WR_", "SV_WR_" */ \
		.flags = _flags,					\
		.qp_types = _qpts,					\
		.wc_opcode = _wc,					\
		.pkt = { __VA_ARGS__ },					\
	}

#define QPT(T)		SV_WR_QPT_##T
#define W(f)		SV_WR_##f
/* READ, atomics, FLUSH, ATOMIC WRITE: a response of their own */
#define RD_ATOMIC	W(RD_ATOMIC)
/* FLUSH, ATOMIC WRITE (IBTA 1.5) */
#define MPE		(W(RD_ATOMIC) | W(ACK_ENDS))

#define RC		IB_OPCODE_RC
#define UC		IB_OPCODE_UC
#define XRC		SV_OPCODE_XRC

const struct sv_wr_info sv_opcode_wr_table[SV_WR_NUM] = {
	WR(IB_WR_RDMA_WRITE, QPT(RC) | QPT(UC) | QPT(XRC), W(INLINE),
	   IB_WC_RDMA_WRITE,
	   [SV_XPORT_RC] = SEQ(RC, RDMA_WRITE, RDMA_WRITE_LAST,
			       RDMA_WRITE_ONLY),
	   [SV_XPORT_UC] = SEQ(UC, RDMA_WRITE, RDMA_WRITE_LAST,
			       RDMA_WRITE_ONLY),
	   [SV_XPORT_XRC] = SEQ(XRC, RDMA_WRITE, RDMA_WRITE_LAST,
				RDMA_WRITE_ONLY)),
	WR(IB_WR_RDMA_WRITE_WITH_IMM, QPT(RC) | QPT(UC) | QPT(XRC), W(INLINE),
	   IB_WC_RDMA_WRITE,
	   [SV_XPORT_RC] = SEQ(RC, RDMA_WRITE, RDMA_WRITE_LAST_WITH_IMMEDIATE,
			       RDMA_WRITE_ONLY_WITH_IMMEDIATE),
	   [SV_XPORT_UC] = SEQ(UC, RDMA_WRITE, RDMA_WRITE_LAST_WITH_IMMEDIATE,
			       RDMA_WRITE_ONLY_WITH_IMMEDIATE),
	   [SV_XPORT_XRC] = SEQ(XRC, RDMA_WRITE,
				RDMA_WRITE_LAST_WITH_IMMEDIATE,
				RDMA_WRITE_ONLY_WITH_IMMEDIATE)),
	WR(IB_WR_SEND, QPT(RC) | QPT(UC) | QPT(UD) | QPT(XRC), W(INLINE),
	   IB_WC_SEND,
	   [SV_XPORT_RC] = SEQ(RC, SEND, SEND_LAST, SEND_ONLY),
	   [SV_XPORT_UC] = SEQ(UC, SEND, SEND_LAST, SEND_ONLY),
	   [SV_XPORT_UD] = ONE(IB_OPCODE_UD_SEND_ONLY),
	   [SV_XPORT_XRC] = SEQ(XRC, SEND, SEND_LAST, SEND_ONLY)),
	WR(IB_WR_SEND_WITH_IMM, QPT(RC) | QPT(UC) | QPT(UD) | QPT(XRC),
	   W(INLINE), IB_WC_SEND,
	   [SV_XPORT_RC] = SEQ(RC, SEND, SEND_LAST_WITH_IMMEDIATE,
			       SEND_ONLY_WITH_IMMEDIATE),
	   [SV_XPORT_UC] = SEQ(UC, SEND, SEND_LAST_WITH_IMMEDIATE,
			       SEND_ONLY_WITH_IMMEDIATE),
	   [SV_XPORT_UD] = ONE(IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE),
	   [SV_XPORT_XRC] = SEQ(XRC, SEND, SEND_LAST_WITH_IMMEDIATE,
				SEND_ONLY_WITH_IMMEDIATE)),
	/* the wire has Send with Invalidate for RC and XRC only */
	WR(IB_WR_SEND_WITH_INV, QPT(RC) | QPT(XRC), W(INLINE), IB_WC_SEND,
	   [SV_XPORT_RC] = SEQ(RC, SEND, SEND_LAST_WITH_INVALIDATE,
			       SEND_ONLY_WITH_INVALIDATE),
	   [SV_XPORT_XRC] = SEQ(XRC, SEND, SEND_LAST_WITH_INVALIDATE,
				SEND_ONLY_WITH_INVALIDATE)),
	WR(IB_WR_RDMA_READ, QPT(RC) | QPT(XRC), RD_ATOMIC | W(READ),
	   IB_WC_RDMA_READ,
	   [SV_XPORT_RC] = ONE(OPC(RC, RDMA_READ_REQUEST)),
	   [SV_XPORT_XRC] = ONE(OPC(XRC, RDMA_READ_REQUEST))),
	WR(IB_WR_ATOMIC_CMP_AND_SWP, QPT(RC) | QPT(XRC),
	   RD_ATOMIC | W(ATOMIC) | W(WC_LEN8), IB_WC_COMP_SWAP,
	   [SV_XPORT_RC] = ONE(OPC(RC, COMPARE_SWAP)),
	   [SV_XPORT_XRC] = ONE(OPC(XRC, COMPARE_SWAP))),
	WR(IB_WR_ATOMIC_FETCH_AND_ADD, QPT(RC) | QPT(XRC),
	   RD_ATOMIC | W(ATOMIC) | W(WC_LEN8), IB_WC_FETCH_ADD,
	   [SV_XPORT_RC] = ONE(OPC(RC, FETCH_ADD)),
	   [SV_XPORT_XRC] = ONE(OPC(XRC, FETCH_ADD))),
	WR(IB_WR_LOCAL_INV, QPT(RC) | QPT(UC) | QPT(XRC), W(LOCAL),
	   IB_WC_LOCAL_INV),
	/*
	 * type 2 memory windows are bound through the SQ by user space; not
	 * on XRC, where the QP a window would be bound to (the target) is
	 * not the one that binds it
	 */
	WR(IB_WR_BIND_MW, QPT(RC) | QPT(UC), W(LOCAL) | W(USER),
	   IB_WC_BIND_MW),
	/*
	 * fast registration: kernel consumers only (no user ABI for it),
	 * who have no XRC initiators (struct ib_send_wr cannot name a
	 * remote SRQ)
	 */
	WR(IB_WR_REG_MR, QPT(RC) | QPT(UC), W(LOCAL) | W(KERNEL),
	   IB_WC_REG_MR),
	/*
	 * IBTA 1.5 Memory Placement Extensions, RC only (not XRC).  ib_core defines no
	 * kernel work request that carries a FLUSH's placement type and
	 * selectivity level, so FLUSH is for user QPs (the rxe WQE layout
	 * has them); a kernel ATOMIC WRITE takes its 8 bytes from the SGEs,
	 * where ib_core has IB_WR_ATOMIC_WRITE.  Where ib_core lacks them
	 * (SV_MPE false, compat.h) no QP takes FLUSH and ATOMIC WRITE is for
	 * user QPs only.
	 */
	WR(SV_WR_ATOMIC_WRITE, QPT(RC),
	   MPE | W(VALUE8) | (SV_MPE ? 0 : W(USER)), SV_WC_ATOMIC_WRITE,
	   [SV_XPORT_RC] = ONE(SV_OPCODE_RC_ATOMIC_WRITE)),
	WR(SV_WR_FLUSH, SV_MPE ? QPT(RC) : 0, MPE | W(RANGE) | W(USER),
	   SV_WC_FLUSH,
	   [SV_XPORT_RC] = ONE(SV_OPCODE_RC_FLUSH)),
};
