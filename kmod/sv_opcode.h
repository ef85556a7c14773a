/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTH opcodes as data: what each RoCEv2 packet type carries and means
 * (IBTA vol 1 9.2 and its opcode table, 9.3 for the extension headers,
 * 9.4 for what each operation does; FLUSH and ATOMIC WRITE from the IBTA 1.5 Memory Placement
 * Extensions; CNP from Annex A17.9.3).  No QP state: the transport engine
 * and tests/kunit/opcode_kunit.c use the table directly.
 *
 * Only the transports softverbs implements are in the table: RC, UC, UD,
 * and the CNP.  RD (0x40..0x5f) and XRC (0xa0..0xbf) opcodes, and the
 * manufacturer-specific range (0xc0..0xff), have zero entries, which is
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
 * AtomicAckETH).  RDETH (RD) and XRCETH (XRC) are not implemented.
 */
enum sv_ext {
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
	/* BTH + AtomicETH, the longest header stack in the table */
	SV_MAX_HDR_BYTES = 40,
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
 * @qp_type:	the QP type whose packets use this opcode (IB_QPT_RC, _UC,
 *		_UD; UD opcodes serve IB_QPT_GSI too); 0 for the CNP
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

/* May a QP of @qp_type send or receive packets with this opcode? */
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

int sv_opcode_wr_pkt(u32 wr_opcode, enum ib_qp_type qp_type,
		     enum sv_pkt_pos pos);

#endif /* SV_OPCODE_H */
