/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCE transport headers as the IBTA specification lays them out,
 * written from the spec and not from kmod/: vol 1 9.2 (the BTH and its
 * opcode table), 9.3 (extension headers), 9.7.7 (path MTU), 9.7.5.2.2 (AETH
 * credit counts), the 1.5 Memory Placement Extensions (FLUSH, ATOMIC WRITE),
 * Annex A14 (XRC), Annex A17.9.3 (CNP) and Annex A16 / 8.3.1 (the RoCE v1
 * GRH).
 *
 * The fuzz targets compare kmod's parser with this model on every input,
 * and gen_seeds.c builds its packets from it, so it must stay independent:
 * plain C, no kernel or kmod header, numbers written out.  Where the spec
 * leaves a choice to the implementation, the model makes softverbs' choice
 * and says so (sv_hdr.c documents it).
 */
#ifndef IBTA_MODEL_H
#define IBTA_MODEL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* extension headers, in the order in which they follow the BTH (9.3) */
enum m_ext {
	M_XRCETH,	/* XRC request: 8 reserved bits, 24-bit SRQ number (A14) */
	M_FETH,		/* FLUSH ETH (IBTA 1.5) */
	M_DETH,		/* datagram: Q_Key, source QP */
	M_RETH,		/* RDMA: VA, R_Key, DMA length */
	M_ATMETH,	/* atomic: VA, R_Key, swap/add, compare */
	M_AETH,		/* ACK: syndrome, MSN */
	M_ATMACK,	/* atomic ACK: original data */
	M_IMMDT,	/* immediate data */
	M_IETH,		/* R_Key to invalidate */
	M_CNP,		/* the 16 reserved bytes of a CNP (A17.9.3) */
	M_NEXT
};

static const uint8_t m_ext_bytes[M_NEXT] = {
	[M_XRCETH] = 4, [M_FETH] = 4, [M_DETH] = 8, [M_RETH] = 16, [M_ATMETH] = 28,
	[M_AETH] = 4, [M_ATMACK] = 8, [M_IMMDT] = 4, [M_IETH] = 4,
	[M_CNP] = 16,
};

#define M_BTH_BYTES	12
#define M_ICRC_BYTES	4
#define M_GRH_BYTES	40
#define M_MAX_PAYLOAD	4096	/* the largest path MTU */

/* what a packet of the opcode carries after its headers */
enum m_payload {
	M_PL_NONE,	/* nothing: no payload, no pad */
	M_PL_MTU,	/* First, Middle: exactly one path MTU (9.7.7) */
	M_PL_ANY,	/* Last, Only: 0 .. 4096 bytes */
	M_PL_EIGHT,	/* ATOMIC WRITE: exactly 8 bytes (IBTA 1.5) */
};

enum m_pos { M_FIRST, M_MIDDLE, M_LAST, M_ONLY };

struct m_op {
	const char	*name;
	uint8_t		opcode;
	uint16_t	exts;		/* 1 << enum m_ext */
	uint8_t		payload;	/* enum m_payload */
	uint8_t		pos;		/* enum m_pos */
	/* 'R' RC, 'U' UC, 'D' UD, 'C' CNP; XRC: 'X' request, 'Y' response */
	char		transport;
};

#define X(e)	(1U << (M_##e))

/* IBTA 9.2 opcode table: the rows of the transports softverbs speaks */
/*
 * IBTA 9.2 opcode table: the rows of the transports softverbs speaks.  @x:
 * the headers every request of the transport carries first (XRC: XRCETH).
 */
#define M_SEND_WRITE(t, base, T, x)					\
	{ t "_SEND_FIRST", base + 0x00, x, M_PL_MTU, M_FIRST, T },	\
	{ t "_SEND_MIDDLE", base + 0x01, x, M_PL_MTU, M_MIDDLE, T },	\
	{ t "_SEND_LAST", base + 0x02, x, M_PL_ANY, M_LAST, T },	\
	{ t "_SEND_LAST_IMM", base + 0x03, (x) | X(IMMDT), M_PL_ANY,	\
	  M_LAST, T },							\
	{ t "_SEND_ONLY", base + 0x04, x, M_PL_ANY, M_ONLY, T },	\
	{ t "_SEND_ONLY_IMM", base + 0x05, (x) | X(IMMDT), M_PL_ANY,	\
	  M_ONLY, T },							\
	{ t "_WRITE_FIRST", base + 0x06, (x) | X(RETH), M_PL_MTU,	\
	  M_FIRST, T },							\
	{ t "_WRITE_MIDDLE", base + 0x07, x, M_PL_MTU, M_MIDDLE, T },	\
	{ t "_WRITE_LAST", base + 0x08, x, M_PL_ANY, M_LAST, T },	\
	{ t "_WRITE_LAST_IMM", base + 0x09, (x) | X(IMMDT), M_PL_ANY,	\
	  M_LAST, T },							\
	{ t "_WRITE_ONLY", base + 0x0a, (x) | X(RETH), M_PL_ANY,	\
	  M_ONLY, T },							\
	{ t "_WRITE_ONLY_IMM", base + 0x0b, (x) | X(RETH) | X(IMMDT),	\
	  M_PL_ANY, M_ONLY, T }

/*
 * RC's other rows, and XRC's (A14): @Q marks requests, @P responses; @x
 * as above (responses never carry it)
 */
#define M_RELIABLE(t, base, Q, P, x)					\
	{ t "_READ_REQUEST", base + 0x0c, (x) | X(RETH), M_PL_NONE,	\
	  M_ONLY, Q },							\
	{ t "_READ_RESPONSE_FIRST", base + 0x0d, X(AETH), M_PL_MTU,	\
	  M_FIRST, P },							\
	/* a Middle read response has no AETH (9.3.5) */		\
	{ t "_READ_RESPONSE_MIDDLE", base + 0x0e, 0, M_PL_MTU,		\
	  M_MIDDLE, P },						\
	{ t "_READ_RESPONSE_LAST", base + 0x0f, X(AETH), M_PL_ANY,	\
	  M_LAST, P },							\
	{ t "_READ_RESPONSE_ONLY", base + 0x10, X(AETH), M_PL_ANY,	\
	  M_ONLY, P },							\
	{ t "_ACKNOWLEDGE", base + 0x11, X(AETH), M_PL_NONE, M_ONLY, P }, \
	{ t "_ATOMIC_ACKNOWLEDGE", base + 0x12, X(AETH) | X(ATMACK),	\
	  M_PL_NONE, M_ONLY, P },					\
	{ t "_COMPARE_SWAP", base + 0x13, (x) | X(ATMETH), M_PL_NONE,	\
	  M_ONLY, Q },							\
	{ t "_FETCH_ADD", base + 0x14, (x) | X(ATMETH), M_PL_NONE,	\
	  M_ONLY, Q },							\
	/* base + 0x15 is reserved */					\
	{ t "_SEND_LAST_INV", base + 0x16, (x) | X(IETH), M_PL_ANY,	\
	  M_LAST, Q },							\
	{ t "_SEND_ONLY_INV", base + 0x17, (x) | X(IETH), M_PL_ANY,	\
	  M_ONLY, Q }

static const struct m_op m_ops[] = {
	M_SEND_WRITE("RC", 0x00, 'R', 0),
	M_RELIABLE("RC", 0x00, 'R', 'R', 0),
	/* IBTA 1.5: FLUSH is FETH then RETH, ATOMIC WRITE a RETH + 8 bytes */
	{ "RC_FLUSH", 0x1c, X(FETH) | X(RETH), M_PL_NONE, M_ONLY, 'R' },
	{ "RC_ATOMIC_WRITE", 0x1d, X(RETH), M_PL_EIGHT, M_ONLY, 'R' },
	M_SEND_WRITE("UC", 0x20, 'U', 0),
	{ "UD_SEND_ONLY", 0x64, X(DETH), M_PL_ANY, M_ONLY, 'D' },
	{ "UD_SEND_ONLY_IMM", 0x65, X(DETH) | X(IMMDT), M_PL_ANY, M_ONLY, 'D' },
	/* XRC (A14): RC's operations, no FLUSH or ATOMIC WRITE */
	M_SEND_WRITE("XRC", 0xa0, 'X', X(XRCETH)),
	M_RELIABLE("XRC", 0xa0, 'X', 'Y', X(XRCETH)),
	/* RoCEv2 CNP: BTH, 16 reserved bytes, ICRC */
	{ "CNP", 0x81, X(CNP), M_PL_NONE, M_ONLY, 'C' },
};

#undef X
#undef M_SEND_WRITE
#undef M_RELIABLE

#define M_NUM_OPS	(sizeof(m_ops) / sizeof(m_ops[0]))

/* the row of @opcode; NULL for RD, reserved, vendor opcodes */
static inline const struct m_op *m_op_find(uint8_t opcode)
{
	size_t i;

	for (i = 0; i < M_NUM_OPS; i++)
		if (m_ops[i].opcode == opcode)
			return &m_ops[i];
	return NULL;
}

static inline int m_has(const struct m_op *op, enum m_ext e)
{
	return (op->exts >> e) & 1;
}

/* offset of extension header @e from the start of the BTH */
static inline unsigned int m_ext_off(const struct m_op *op, enum m_ext e)
{
	unsigned int off = M_BTH_BYTES;
	int i;

	for (i = 0; i < (int)e; i++)
		if (m_has(op, (enum m_ext)i))
			off += m_ext_bytes[i];
	return off;
}

/* BTH and extension headers: where the payload starts */
static inline unsigned int m_hdr_len(const struct m_op *op)
{
	return m_ext_off(op, M_NEXT);
}

static inline uint32_t m_be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t m_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t m_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | m_be24(p + 1);
}

static inline uint64_t m_be64(const uint8_t *p)
{
	return (uint64_t)m_be32(p) << 32 | m_be32(p + 4);
}

/* the pad count: BTH byte 1, bits 5:4 */
static inline unsigned int m_pad(const uint8_t *bth)
{
	return (bth[1] >> 4) & 3;
}

/* the verdict of a packet (BTH .. ICRC, @len bytes) and its payload */
struct m_pkt {
	const struct m_op	*op;
	unsigned int		hdr_len;
	unsigned int		paylen;
	unsigned int		pad;
};

/*
 * 0, or the errno class sv_hdr_parse() documents for the first defect,
 * in its order: too short for BTH + ICRC, TVer not 0, unknown opcode,
 * too short for the opcode's headers, length not a multiple of 4 or pad
 * and payload not as the opcode allows, payload above 4096.
 */
static inline int m_parse(const uint8_t *p, size_t len, struct m_pkt *out)
{
	const struct m_op *op;
	size_t hdr, rest;
	unsigned int pad;

	if (len < M_BTH_BYTES + M_ICRC_BYTES)
		return -ENODATA;
	if (p[1] & 0x0f)			/* TVer */
		return -EPROTONOSUPPORT;
	op = m_op_find(p[0]);
	if (!op)
		return -EBADRQC;
	hdr = m_hdr_len(op);
	if (len < hdr + M_ICRC_BYTES)
		return -EMSGSIZE;
	if (len % 4)
		return -EBADMSG;
	rest = len - hdr - M_ICRC_BYTES;
	pad = m_pad(p);
	out->op = op;
	out->hdr_len = hdr;
	out->pad = pad;
	out->paylen = 0;
	if (op->payload == M_PL_NONE)
		return rest || pad ? -EBADMSG : 0;
	if (pad > rest)
		return -EBADMSG;
	if (rest - pad > M_MAX_PAYLOAD)
		return -E2BIG;
	out->paylen = rest - pad;
	switch (op->payload) {
	case M_PL_MTU:
		/* one of the five path MTUs, and so never a pad */
		switch (out->paylen) {
		case 256: case 512: case 1024: case 2048: case 4096:
			return pad ? -EBADMSG : 0;
		default:
			return -EBADMSG;
		}
	case M_PL_EIGHT:
		return out->paylen == 8 ? 0 : -EBADMSG;
	default:
		return 0;
	}
}

/* a RoCE v1 GRH (8.3.1, A16.4): its fields */
struct m_grh {
	uint32_t	flow_label;
	uint32_t	paylen;
	uint8_t		tclass;
	uint8_t		hop_limit;
};

/*
 * 0, or sv_hdr_parse_grh()'s errno class: shorter than a GRH; IPVer not 6
 * or NxtHdr not 0x1B (an IBA transport header); PayLen shorter than BTH +
 * ICRC or longer than what follows the GRH.
 */
static inline int m_parse_grh(const uint8_t *p, size_t len, struct m_grh *out)
{
	if (len < M_GRH_BYTES)
		return -ENODATA;
	if (p[0] >> 4 != 6 || p[6] != 0x1b)
		return -EPROTONOSUPPORT;
	out->paylen = m_be16(p + 4);
	if (out->paylen < M_BTH_BYTES + M_ICRC_BYTES ||
	    out->paylen > len - M_GRH_BYTES)
		return -EMSGSIZE;
	out->tclass = (p[0] & 0x0f) << 4 | p[1] >> 4;
	out->flow_label = (p[1] & 0x0fU) << 16 | m_be16(p + 2);
	out->hop_limit = p[7];
	return 0;
}

/*
 * AETH credit count encoding (9.7.5.2.2): code 0 is 0 credits, 1 is 1,
 * then alternately 2^k and 3 * 2^(k-1) up to 32768 (code 30); code 31 is
 * "invalid", no count, which softverbs reads as no limit (UINT32_MAX).
 */
static inline uint32_t m_credits(unsigned int code)
{
	code &= 0x1f;
	if (code == 31)
		return UINT32_MAX;
	if (code < 2)
		return code;
	if (code % 2 == 0)
		return 1U << (code / 2);
	return 3U << ((code - 3) / 2);
}

#endif /* IBTA_MODEL_H */
