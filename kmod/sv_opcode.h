/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTH opcodes as data: what each RoCEv2 packet type carries and means
 * (IBTA vol 1 9.2 and its opcode table, 9.3 for the extension headers,
 * 9.4 for what each operation does; FLUSH and ATOMIC WRITE from the IBTA 1.5 Memory Placement
 * Extensions; CNP from Annex A17.9.3).  No QP state: the transport engine
 * and tests/kunit/opcode_kunit.c use the table directly.
 *
 * Only the transports softverbs implements are in the table: RC, UC, UD,
 * XRC (IBTA Annex A14) and the CNP.  RD (0x40..0x5f) opcodes and the
 * manufacturer-specific range (0xc0..0xff) have zero entries, which is
 * how an invalid opcode looks.
 */
#ifndef SV_OPCODE_H
#define SV_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

/*
 * Opcodes that <rdma/ib_pack.h> of Linux 6.1 does not define yet (6.2
 * added them with the same numbers).
 */
#define SV_OPCODE_FLUSH			0x1c
#define SV_OPCODE_ATOMIC_WRITE		0x1d
#define SV_OPCODE_RC_FLUSH		(IB_OPCODE_RC + SV_OPCODE_FLUSH)
#define SV_OPCODE_RC_ATOMIC_WRITE	(IB_OPCODE_RC + SV_OPCODE_ATOMIC_WRITE)
/*
 * XRC transport prefix (IBTA Annex A14, opcode bits 7:5 = 101): the XRC
 * opcodes are the RC operations with this prefix.  <rdma/ib_pack.h> names
 * none of them.
 */
#define SV_OPCODE_XRC			0xa0

/* the operation of a BTH opcode, without its transport (bits 4:0) */
static inline u8 sv_opcode_op(u8 opcode)
{
	return opcode & 0x1f;
}
/* RoCEv2 Congestion Notification Packet (IBTA Annex A17.9.3) */
#define SV_OPCODE_CNP			(IB_OPCODE_CNP + 0x01)

/*
 * User ABI numbers of the IBTA 1.5 operations (<rdma/ib_user_verbs.h> of
 * Linux 6.2+, rdma-core's IBV_WR_FLUSH/IBV_WR_ATOMIC_WRITE and
 * IBV_WC_FLUSH/IBV_WC_ATOMIC_WRITE).  The kernel's enum ib_wr_opcode and
 * enum ib_wc_opcode use the same numbers where they have these entries;
 * 6.1's have not (and its IB_WC_REG_MR is 8), so these values are only
 * ever used in user-visible WQEs and CQEs there.
 */
#define SV_WR_FLUSH			14
#define SV_WR_ATOMIC_WRITE		15
#define SV_WC_FLUSH			8
#define SV_WC_ATOMIC_WRITE		9

/* FLUSH placement types and selectivity levels (IBTA 1.5 A19.4.1.1/2) */
#define SV_FLUSH_GLOBAL			BIT(0)
#define SV_FLUSH_PERSISTENT		BIT(1)
#define SV_FLUSH_RANGE			0
#define SV_FLUSH_MR			1

/*
 * Extension headers that may follow the BTH, in the order in which they
 * appear on the wire: every opcode's headers are a subset of this list in
 * this order (FETH precedes RETH in a FLUSH; DETH precedes ImmDt in UD;
 * RETH precedes ImmDt in RDMA WRITE Only with Immediate; AETH precedes
 * AtomicAckETH; XRCETH comes right after the BTH, before all others,
 * IBTA Annex A14).  RDETH (RD) is not implemented.
 */
enum sv_ext {
	SV_EXT_XRCETH,	/* XRC request: the target XRC SRQ number, 4 bytes */
	SV_EXT_FETH,	/* FLUSH extended transport header, 4 bytes */
	SV_EXT_DETH,	/* datagram (UD): Q_Key, source QPN, 8 bytes */
	SV_EXT_RETH,	/* RDMA: VA, R_Key, DMA length, 16 bytes */
	SV_EXT_ATMETH,	/* atomic request: VA, R_Key, swap/add, compare, 28 */
	SV_EXT_AETH,	/* ACK: syndrome, MSN, 4 bytes */
	SV_EXT_ATMACK,	/* atomic response: original data, 8 bytes */
	SV_EXT_IMMDT,	/* immediate data, 4 bytes */
	SV_EXT_IETH,	/* R_Key to invalidate, 4 bytes */
	SV_EXT_CNP,	/* the 16 reserved bytes of a CNP */
	SV_EXT_NUM
};

/* Byte sizes of the headers (IBTA 9.3, Annex A17.9.3) */
enum sv_hdr_bytes {
	SV_BTH_BYTES	= 12,
	SV_XRCETH_BYTES	= 4,
	SV_FETH_BYTES	= 4,
	SV_DETH_BYTES	= 8,
	SV_RETH_BYTES	= 16,
	SV_ATMETH_BYTES	= 28,
	SV_AETH_BYTES	= 4,
	SV_ATMACK_BYTES	= 8,
	SV_IMMDT_BYTES	= 4,
	SV_IETH_BYTES	= 4,
	SV_CNP_BYTES	= 16,
	SV_ICRC_BYTES	= 4,
	/* BTH + XRCETH + AtomicETH, the longest header stack in the table */
	SV_MAX_HDR_BYTES = 44,
};

/* Properties of one opcode (struct sv_opcode_info.flags) */
enum sv_opcode_flags {
	SV_OP_REQ	 = BIT(0),	/* requester -> responder */
	SV_OP_RESP	 = BIT(1),	/* responder -> requester (RC only) */
	/* position in its message; an "Only" packet is FIRST | LAST */
	SV_OP_FIRST	 = BIT(2),
	SV_OP_MIDDLE	 = BIT(3),
	SV_OP_LAST	 = BIT(4),
	/*
	 * May carry payload.  First and Middle packets carry exactly the
	 * path MTU (a power of two, IBTA 9.7.7), so their pad count is 0.
	 */
	SV_OP_PAYLOAD	 = BIT(5),
	/* the operation the packet belongs to */
	SV_OP_SEND	 = BIT(6),
	SV_OP_WRITE	 = BIT(7),
	SV_OP_READ	 = BIT(8),	/* RDMA READ request */
	SV_OP_ATOMIC	 = BIT(9),	/* Compare & Swap, Fetch & Add */
	SV_OP_FLUSH	 = BIT(10),
	SV_OP_ATOMIC_WRITE = BIT(11),
	SV_OP_READ_RESP	 = BIT(12),	/* RDMA READ Response First..Only */
	SV_OP_ACK	 = BIT(13),	/* Acknowledge */
	SV_OP_ATOMIC_ACK = BIT(14),	/* Atomic Acknowledge */
	SV_OP_CNP_PKT	 = BIT(15),	/* congestion notification */
	/*
	 * Responder's receive queue: RWQE means the packet starts using a
	 * receive WQE (the first packet of a SEND, or an RDMA WRITE with
	 * Immediate's last packet, IBTA 9.4); RECV_COMP means
	 * the packet completes it, with completion opcode recv_wc.
	 */
	SV_OP_RWQE	 = BIT(16),
	SV_OP_RECV_COMP	 = BIT(17),
	/*
	 * The BTH SE bit has a meaning: only on the last packet of a SEND
	 * or an RDMA WRITE with Immediate (IBTA 9.2, "Solicited Event").
	 */
	SV_OP_SE	 = BIT(18),
	/*
	 * RC requests: ACKED ones are answered by an Acknowledge, which
	 * the responder may coalesce with later ones (IBTA 9.7.5.1);
	 * NEEDS_RESP ones by a response of their own (resp_opcode), which
	 * holds a responder resource and is never coalesced: RDMA READ
	 * (read response), atomics (atomic acknowledge), FLUSH and ATOMIC
	 * WRITE (a zero-length RDMA READ Response Only, IBTA 1.5).
	 */
	SV_OP_ACKED	 = BIT(19),
	SV_OP_NEEDS_RESP = BIT(20),
};

#define SV_OP_ONLY	(SV_OP_FIRST | SV_OP_LAST)

/**
 * struct sv_opcode_info - properties of one BTH opcode
 * @name:	"RC_SEND_FIRST" etc.; NULL for an invalid opcode
 * @flags:	SV_OP_* (enum sv_opcode_flags)
 * @hdrs:	BIT(enum sv_ext) of each extension header present
 * @qp_type:	the type of the QP that receives packets with this opcode
 *		(IB_QPT_RC, _UC, _UD; UD opcodes serve IB_QPT_GSI too; XRC
 *		requests go to IB_QPT_XRC_TGT QPs, XRC responses to
 *		IB_QPT_XRC_INI QPs); 0 for the CNP
 * @hdr_len:	BTH plus extension headers: where the payload starts
 * @off:	offset of each present extension header from the start of
 *		the BTH (0 when absent: the BTH itself is at 0)
 * @recv_wc:	enum ib_wc_opcode of the receive completion, for packets
 *		of operations that consume a receive WQE (every SEND
 *		packet; the Last/Only packet of an RDMA WRITE with
 *		Immediate); the completion is made on SV_OP_RECV_COMP
 * @resp_opcode: with SV_OP_ACKED or SV_OP_NEEDS_RESP: the response's
 *		opcode (for an RDMA READ its "Only" form: a response of
 *		more than one packet uses First, Middle, Last)
 */
struct sv_opcode_info {
	const char	*name;
	u32		flags;
	u16		hdrs;
	u8		qp_type;
	u8		hdr_len;
	u8		off[SV_EXT_NUM];
	u8		recv_wc;
	u8		resp_opcode;
};

extern const struct sv_opcode_info sv_opcode_table[256];

/* The properties of @opcode, or NULL if softverbs does not know it. */
static inline const struct sv_opcode_info *sv_opcode_info(u8 opcode)
{
	const struct sv_opcode_info *info = &sv_opcode_table[opcode];

	return info->name ? info : NULL;
}

static inline bool sv_opcode_has(const struct sv_opcode_info *info,
				 enum sv_ext ext)
{
	return info->hdrs & BIT(ext);
}

/* May a QP of @qp_type receive packets with this opcode? */
static inline bool sv_opcode_qp_ok(const struct sv_opcode_info *info,
				   enum ib_qp_type qp_type)
{
	if (qp_type == IB_QPT_GSI)
		qp_type = IB_QPT_UD;
	return info->qp_type && info->qp_type == qp_type;
}

/* Position of a packet in its message, for sv_opcode_wr_pkt() */
enum sv_pkt_pos {
	SV_PKT_FIRST,
	SV_PKT_MIDDLE,
	SV_PKT_LAST,
	SV_PKT_ONLY,
	SV_PKT_POS_NUM
};

static inline enum sv_pkt_pos sv_pkt_pos(bool first, bool last)
{
	if (first)
		return last ? SV_PKT_ONLY : SV_PKT_FIRST;
	return last ? SV_PKT_LAST : SV_PKT_MIDDLE;
}

/*
 * Work requests as data: one row per send work request opcode (enum
 * ib_wr_opcode, SV_WR_FLUSH and SV_WR_ATOMIC_WRITE included) says which QP
 * types take it and how (IBTA chapter 9: the transport services of each QP
 * type), how its send completion looks, and which packets carry it.
 * Posting (sv_qp.c), the requester (sv_req.c) and the completer
 * (sv_comp.c) read it through the accessors below; nothing else tests
 * work request opcodes for these facts.
 */

/* Properties of one work request opcode (struct sv_wr_info.flags) */
enum sv_wr_flags {
	SV_WR_INLINE	= BIT(0),	/* may carry IB_SEND_INLINE data */
	/* Compare & Swap, Fetch & Add: 8 naturally aligned bytes (9.4.5) */
	SV_WR_ATOMIC	= BIT(1),
	SV_WR_LOCAL	= BIT(2),	/* local operation: no SGEs, no packets */
	SV_WR_KERNEL	= BIT(3),	/* kernel consumers only */
	SV_WR_USER	= BIT(4),	/* user QPs only */
	/* ATOMIC WRITE: its 8 bytes travel in the WQE (dma.atomic_wr) */
	SV_WR_VALUE8	= BIT(5),
	/* FLUSH: no SGEs; dma.length is the length of the remote range */
	SV_WR_RANGE	= BIT(6),
	/*
	 * Answered by a response of its own, which holds a responder
	 * resource until it is sent: counts against max_rd_atomic and waits
	 * behind a fence (IBTA 9.5, 10.8.3.3).  Its packet is NEEDS_RESP.
	 */
	SV_WR_RD_ATOMIC	= BIT(7),
	/*
	 * RDMA READ: the response carries the data into the SGEs, one PSN
	 * per path MTU of it, and a READ cut short resumes with a new
	 * request for the rest (IBTA 9.7.4.1.4).
	 */
	SV_WR_READ	= BIT(8),
	/*
	 * FLUSH, ATOMIC WRITE: a zero-length RDMA READ Response Only ends
	 * them (IBTA 1.5), and so does an ACK covering their PSN (some
	 * Soft-RoCE versions answer an ATOMIC WRITE so).
	 */
	SV_WR_ACK_ENDS	= BIT(9),
	/* its completion's byte_len is 8 (the original value), not the length */
	SV_WR_WC_LEN8	= BIT(10),
};

/* QP types in struct sv_wr_info.qp_types (GSI sends as UD) */
#define SV_WR_QPT_RC	BIT(IB_QPT_RC)
#define SV_WR_QPT_UC	BIT(IB_QPT_UC)
#define SV_WR_QPT_UD	(BIT(IB_QPT_UD) | BIT(IB_QPT_GSI))
#define SV_WR_QPT_XRC	BIT(IB_QPT_XRC_INI)	/* only initiators send */

/* Transports with packets of their own, the index of struct sv_wr_info.pkt */
enum sv_wr_xport {
	SV_XPORT_RC,
	SV_XPORT_UC,
	SV_XPORT_UD,		/* UD and GSI */
	SV_XPORT_XRC,		/* XRC initiators */
	SV_XPORT_NUM
};

/**
 * struct sv_wr_info - properties of one send work request opcode
 * @name:	"SEND", "RDMA_WRITE" etc.; NULL for an opcode softverbs
 *		does not know
 * @flags:	SV_WR_* (enum sv_wr_flags)
 * @qp_types:	SV_WR_QPT_* of the QP types that accept it; 0 where this
 *		kernel lacks it (FLUSH without SV_MPE, compat.h): then the
 *		opcode counts as unknown, though its packets are listed
 * @wc_opcode:	enum ib_wc_opcode of its send completion
 * @pkt:	BTH opcode of each packet per transport and position, as
 *		0x100 | opcode, so that 0 means "no such packet" (opcode 0
 *		is RC SEND First); see sv_opcode_wr_pkt()
 */
struct sv_wr_info {
	const char	*name;
	u16		flags;
	u16		qp_types;
	u8		wc_opcode;
	u16		pkt[SV_XPORT_NUM][SV_PKT_POS_NUM];
};

/* rows: every opcode up to ib_core's kernel-only ones (IB_WR_REG_MR, 0x20) */
#define SV_WR_NUM	(IB_WR_REG_MR + 1)
static_assert(SV_WR_FLUSH < SV_WR_NUM && SV_WR_ATOMIC_WRITE < SV_WR_NUM);
extern const struct sv_wr_info sv_opcode_wr_table[SV_WR_NUM];

/* The row of @wr_opcode, or NULL if no QP type takes it. */
static inline const struct sv_wr_info *sv_opcode_wr_info(u32 wr_opcode)
{
	const struct sv_wr_info *info;

	if (wr_opcode >= SV_WR_NUM)
		return NULL;
	info = &sv_opcode_wr_table[wr_opcode];
	return info->qp_types ? info : NULL;
}

/* May a QP of @qp_type post it? */
static inline bool sv_opcode_wr_qp_ok(const struct sv_wr_info *info,
				      enum ib_qp_type qp_type)
{
	return info && (info->qp_types & BIT(qp_type));
}

/* SV_WR_* flags of a (possibly bogus) opcode: 0 if unknown */
static inline u32 sv_opcode_wr_flags(u32 wr_opcode)
{
	const struct sv_wr_info *info = sv_opcode_wr_info(wr_opcode);

	return info ? info->flags : 0;
}

/* the completion opcode of a (possibly bogus) opcode: IB_WC_SEND if unknown */
static inline enum ib_wc_opcode sv_opcode_wr_wc(u32 wr_opcode)
{
	const struct sv_wr_info *info = sv_opcode_wr_info(wr_opcode);

	return info ? info->wc_opcode : IB_WC_SEND;
}

/*
 * byte_len of the send completion of a WQE of @length bytes: the message
 * length, or for atomics the 8 bytes of the original value they return.
 */
static inline u32 sv_opcode_wr_wc_len(u32 wr_opcode, u32 length)
{
	return sv_opcode_wr_flags(wr_opcode) & SV_WR_WC_LEN8 ? sizeof(u64) :
							      length;
}

/**
 * sv_opcode_wr_pkt - BTH opcode of one packet of a work request
 * @wr_opcode:	enum ib_wr_opcode (SV_WR_FLUSH, SV_WR_ATOMIC_WRITE included)
 * @qp_type:	the sending QP's type (GSI sends as UD)
 * @pos:	the packet's position in the message (sv_pkt_pos())
 *
 * Return: the opcode (0..255), or -EINVAL if no such packet exists: the
 * operation is local, not available on @qp_type, or fits in one packet
 * and @pos is not SV_PKT_ONLY.
 */
static inline int sv_opcode_wr_pkt(u32 wr_opcode, enum ib_qp_type qp_type,
				   enum sv_pkt_pos pos)
{
	enum sv_wr_xport xport;
	u16 pkt;

	switch (qp_type) {
	case IB_QPT_RC:
		xport = SV_XPORT_RC;
		break;
	case IB_QPT_UC:
		xport = SV_XPORT_UC;
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		xport = SV_XPORT_UD;
		break;
	case IB_QPT_XRC_INI:
		xport = SV_XPORT_XRC;
		break;
	default:
		return -EINVAL;
	}
	if (wr_opcode >= SV_WR_NUM || pos >= SV_PKT_POS_NUM)
		return -EINVAL;
	pkt = sv_opcode_wr_table[wr_opcode].pkt[xport][pos];
	return pkt ? (pkt & 0xff) : -EINVAL;
}

#endif /* SV_OPCODE_H */
