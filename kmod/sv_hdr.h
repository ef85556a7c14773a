/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 transport headers on the wire: accessors, builders and the one
 * validation function for received packets.
 *
 * A packet here is what follows the UDP header: the BTH, the extension
 * headers its opcode calls for (sv_opcode.h), the payload, 0-3 pad bytes
 * and the 4-byte ICRC (IBTA 9.2, 9.3; Annex A17.4).  All fields are big
 * endian and need not be aligned.
 *
 * Every accessor takes @hdr, the start of the BTH, and finds extension
 * headers at the offsets the opcode table gives for the packet's opcode
 * (hdr[0]).  So:
 *  - a received packet may be read only after sv_hdr_parse() accepted it,
 *    and only through the extension headers its opcode has;
 *  - a packet being built gets its BTH first (sv_hdr_build_bth()), then
 *    the extension headers its opcode has.
 * Asking for an extension header the opcode lacks is a caller bug: it
 * warns once with CONFIG_DEBUG_NET.
 */
#ifndef SV_HDR_H
#define SV_HDR_H

#include <linux/string.h>
#include <linux/types.h>
#include <net/net_debug.h>

#include "sv_opcode.h"

/* Unaligned big-endian loads and stores (memcpy: one insn on x86). */
static inline u16 sv_get_be16(const void *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static inline u32 sv_get_be32(const void *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 sv_get_be64(const void *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

static inline void sv_put_be16(void *p, u16 val)
{
	__be16 v = cpu_to_be16(val);

	memcpy(p, &v, sizeof(v));
}

static inline void sv_put_be32(void *p, u32 val)
{
	__be32 v = cpu_to_be32(val);

	memcpy(p, &v, sizeof(v));
}

static inline void sv_put_be64(void *p, u64 val)
{
	__be64 v = cpu_to_be64(val);

	memcpy(p, &v, sizeof(v));
}

/*
 * Base Transport Header (IBTA 9.2), 12 bytes:
 *
 *   0  OpCode
 *   1  SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *   2  P_Key (16)
 *   4  FECN(7) BECN(6) resv6(5:0)     <- "resv8a" before RoCEv2 ECN
 *   5  DestQP (24)
 *   8  AckReq(7) resv7(6:0)
 *   9  PSN (24)
 *
 * Reserved bits are sent as zero and ignored on receipt (IBTA 9.2): the
 * builders zero them, sv_hdr_parse() does not reject them.
 */
enum sv_bth_offsets {
	SV_BTH_OPCODE	= 0,
	SV_BTH_FLAGS	= 1,
	SV_BTH_PKEY	= 2,
	SV_BTH_QPN	= 4,	/* 32-bit word: FECN, BECN, resv6, DestQP */
	SV_BTH_PSN	= 8,	/* 32-bit word: AckReq, resv7, PSN */
};

#define SV_BTH_SE_BIT		0x80	/* byte 1 */
#define SV_BTH_MIG_BIT		0x40
#define SV_BTH_PAD_MASK		0x30
#define SV_BTH_PAD_SHIFT	4
#define SV_BTH_TVER_MASK	0x0f
#define SV_BTH_FECN_BIT		0x80000000U	/* word at SV_BTH_QPN */
#define SV_BTH_BECN_BIT		0x40000000U
#define SV_BTH_ACKREQ_BIT	0x80000000U	/* word at SV_BTH_PSN */
#define SV_QPN_MASK		0x00ffffffU
#define SV_BTH_PSN_MASK		0x00ffffffU

/* Transport header version this implementation speaks (IBTA 9.2) */
#define SV_BTH_TVER		0

/* Flags for sv_hdr_build_bth() and struct sv_pkt_info.bth_flags */
enum sv_bth_flags {
	SV_BTH_SE	= BIT(0),	/* solicited event */
	SV_BTH_MIG	= BIT(1),	/* MigReq: path migration state */
	SV_BTH_ACKREQ	= BIT(2),	/* ask for an acknowledge */
	SV_BTH_FECN	= BIT(3),	/* forward congestion (RoCEv2: ECN) */
	SV_BTH_BECN	= BIT(4),	/* backward congestion */
};

static inline u8 sv_bth_opcode(const void *hdr)
{
	return ((const u8 *)hdr)[SV_BTH_OPCODE];
}

static inline bool sv_bth_se(const void *hdr)
{
	return ((const u8 *)hdr)[SV_BTH_FLAGS] & SV_BTH_SE_BIT;
}

static inline bool sv_bth_mig(const void *hdr)
{
	return ((const u8 *)hdr)[SV_BTH_FLAGS] & SV_BTH_MIG_BIT;
}

static inline u8 sv_bth_pad(const void *hdr)
{
	return (((const u8 *)hdr)[SV_BTH_FLAGS] & SV_BTH_PAD_MASK) >>
		SV_BTH_PAD_SHIFT;
}

static inline u8 sv_bth_tver(const void *hdr)
{
	return ((const u8 *)hdr)[SV_BTH_FLAGS] & SV_BTH_TVER_MASK;
}

static inline u16 sv_bth_pkey(const void *hdr)
{
	return sv_get_be16((const u8 *)hdr + SV_BTH_PKEY);
}

static inline bool sv_bth_fecn(const void *hdr)
{
	return sv_get_be32((const u8 *)hdr + SV_BTH_QPN) & SV_BTH_FECN_BIT;
}

static inline bool sv_bth_becn(const void *hdr)
{
	return sv_get_be32((const u8 *)hdr + SV_BTH_QPN) & SV_BTH_BECN_BIT;
}

static inline u32 sv_bth_qpn(const void *hdr)
{
	return sv_get_be32((const u8 *)hdr + SV_BTH_QPN) & SV_QPN_MASK;
}

static inline bool sv_bth_ackreq(const void *hdr)
{
	return sv_get_be32((const u8 *)hdr + SV_BTH_PSN) & SV_BTH_ACKREQ_BIT;
}

static inline u32 sv_bth_psn(const void *hdr)
{
	return sv_get_be32((const u8 *)hdr + SV_BTH_PSN) & SV_BTH_PSN_MASK;
}

static inline void sv_bth_set_flag8(void *hdr, u8 bit, bool on)
{
	u8 *b = (u8 *)hdr + SV_BTH_FLAGS;

	*b = on ? *b | bit : *b & ~bit;
}

static inline void sv_bth_set_se(void *hdr, bool se)
{
	sv_bth_set_flag8(hdr, SV_BTH_SE_BIT, se);
}

static inline void sv_bth_set_mig(void *hdr, bool mig)
{
	sv_bth_set_flag8(hdr, SV_BTH_MIG_BIT, mig);
}

static inline void sv_bth_set_pad(void *hdr, u8 pad)
{
	u8 *b = (u8 *)hdr + SV_BTH_FLAGS;

	*b = (*b & ~SV_BTH_PAD_MASK) | ((pad << SV_BTH_PAD_SHIFT) &
					SV_BTH_PAD_MASK);
}

static inline void sv_bth_set_pkey(void *hdr, u16 pkey)
{
	sv_put_be16((u8 *)hdr + SV_BTH_PKEY, pkey);
}

/* replace the bits @mask of the 32-bit word at @off with @val */
static inline void sv_bth_set_word(void *hdr, unsigned int off, u32 mask,
				   u32 val)
{
	u8 *p = (u8 *)hdr + off;

	sv_put_be32(p, (sv_get_be32(p) & ~mask) | (val & mask));
}

static inline void sv_bth_set_fecn(void *hdr, bool on)
{
	sv_bth_set_word(hdr, SV_BTH_QPN, SV_BTH_FECN_BIT,
			on ? SV_BTH_FECN_BIT : 0);
}

static inline void sv_bth_set_becn(void *hdr, bool on)
{
	sv_bth_set_word(hdr, SV_BTH_QPN, SV_BTH_BECN_BIT,
			on ? SV_BTH_BECN_BIT : 0);
}

static inline void sv_bth_set_qpn(void *hdr, u32 qpn)
{
	sv_bth_set_word(hdr, SV_BTH_QPN, SV_QPN_MASK, qpn);
}

static inline void sv_bth_set_ackreq(void *hdr, bool on)
{
	sv_bth_set_word(hdr, SV_BTH_PSN, SV_BTH_ACKREQ_BIT,
			on ? SV_BTH_ACKREQ_BIT : 0);
}

static inline void sv_bth_set_psn(void *hdr, u32 psn)
{
	sv_bth_set_word(hdr, SV_BTH_PSN, SV_BTH_PSN_MASK, psn);
}

/*
 * Where extension header @ext of the packet at @hdr starts, from the
 * opcode table.  The opcode must have @ext.
 */
static inline const u8 *sv_hdr_ext(const void *hdr, enum sv_ext ext)
{
	u8 off = sv_opcode_table[sv_bth_opcode(hdr)].off[ext];

	DEBUG_NET_WARN_ON_ONCE(!off);
	return (const u8 *)hdr + off;
}

static inline u8 *sv_hdr_ext_mut(void *hdr, enum sv_ext ext)
{
	return (u8 *)sv_hdr_ext(hdr, ext);
}

/* RDMA Extended Transport Header (IBTA 9.3.3): VA, R_Key, DMA Length */
static inline u64 sv_reth_va(const void *hdr)
{
	return sv_get_be64(sv_hdr_ext(hdr, SV_EXT_RETH));
}

static inline u32 sv_reth_rkey(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_RETH) + 8);
}

static inline u32 sv_reth_len(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_RETH) + 12);
}

static inline void sv_reth_set_va(void *hdr, u64 va)
{
	sv_put_be64(sv_hdr_ext_mut(hdr, SV_EXT_RETH), va);
}

static inline void sv_reth_set_rkey(void *hdr, u32 rkey)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_RETH) + 8, rkey);
}

static inline void sv_reth_set_len(void *hdr, u32 len)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_RETH) + 12, len);
}

/*
 * ACK Extended Transport Header (IBTA 9.3.5): Syndrome (8) | MSN (24).
 * The syndrome (IBTA 9.3.5, its syndrome encoding table):
 *
 *   bit 7     reserved (0)
 *   bits 6:5  00 ACK, 01 RNR NAK, 10 reserved, 11 NAK
 *   bits 4:0  ACK: credit count code;  RNR NAK: RNR timer code (sv_rnr.h);
 *             NAK: NAK code (enum sv_aeth_nak)
 */
#define SV_AETH_MSN_MASK	0x00ffffffU
#define SV_AETH_TYPE_SHIFT	5
#define SV_AETH_TYPE_MASK	0x60
#define SV_AETH_VALUE_MASK	0x1f

enum sv_aeth_type {
	SV_AETH_ACK		= 0,
	SV_AETH_RNR_NAK		= 1,
	SV_AETH_RESERVED	= 2,
	SV_AETH_NAK		= 3,
};

enum sv_aeth_nak {
	SV_NAK_PSN_SEQ_ERR	= 0,	/* PSN sequence error */
	SV_NAK_INVALID_REQ	= 1,	/* invalid request */
	SV_NAK_REM_ACCESS_ERR	= 2,	/* remote access error */
	SV_NAK_REM_OP_ERR	= 3,	/* remote operational error */
	SV_NAK_INVALID_RD_REQ	= 4,	/* invalid RD request */
	/* 5..31 reserved */
};

/*
 * Credit code 31 means "no credit count": the responder does not limit
 * the requester by receive credits (what a responder without end-to-end
 * flow control, like this one, always sends).
 */
#define SV_AETH_CREDITS_INVALID	0x1f

static inline u8 sv_aeth_syndrome(const void *hdr)
{
	return *sv_hdr_ext(hdr, SV_EXT_AETH);
}

static inline u32 sv_aeth_msn(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_AETH)) & SV_AETH_MSN_MASK;
}

static inline void sv_aeth_set(void *hdr, u8 syndrome, u32 msn)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_AETH),
		    (u32)syndrome << 24 | (msn & SV_AETH_MSN_MASK));
}

static inline enum sv_aeth_type sv_aeth_type(u8 syndrome)
{
	return (syndrome & SV_AETH_TYPE_MASK) >> SV_AETH_TYPE_SHIFT;
}

/* credit code, RNR timer code or NAK code, by type */
static inline u8 sv_aeth_value(u8 syndrome)
{
	return syndrome & SV_AETH_VALUE_MASK;
}

static inline u8 sv_aeth_syn(enum sv_aeth_type type, u8 value)
{
	return (type << SV_AETH_TYPE_SHIFT) | (value & SV_AETH_VALUE_MASK);
}

static inline u8 sv_aeth_syn_ack(u8 credit_code)
{
	return sv_aeth_syn(SV_AETH_ACK, credit_code);
}

static inline u8 sv_aeth_syn_rnr(u8 rnr_timer)
{
	return sv_aeth_syn(SV_AETH_RNR_NAK, rnr_timer);
}

static inline u8 sv_aeth_syn_nak(enum sv_aeth_nak code)
{
	return sv_aeth_syn(SV_AETH_NAK, code);
}

u32 sv_aeth_credits(u8 credit_code);
u8 sv_aeth_credit_code(u32 credits);

/*
 * Atomic Extended Transport Header (IBTA 9.3.4): VA, R_Key, Swap (or Add)
 * Data, Compare Data.
 */
static inline u64 sv_atmeth_va(const void *hdr)
{
	return sv_get_be64(sv_hdr_ext(hdr, SV_EXT_ATMETH));
}

static inline u32 sv_atmeth_rkey(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_ATMETH) + 8);
}

static inline u64 sv_atmeth_swap_add(const void *hdr)
{
	return sv_get_be64(sv_hdr_ext(hdr, SV_EXT_ATMETH) + 12);
}

static inline u64 sv_atmeth_comp(const void *hdr)
{
	return sv_get_be64(sv_hdr_ext(hdr, SV_EXT_ATMETH) + 20);
}

static inline void sv_atmeth_set(void *hdr, u64 va, u32 rkey, u64 swap_add,
				 u64 comp)
{
	u8 *p = sv_hdr_ext_mut(hdr, SV_EXT_ATMETH);

	sv_put_be64(p, va);
	sv_put_be32(p + 8, rkey);
	sv_put_be64(p + 12, swap_add);
	sv_put_be64(p + 20, comp);
}

/* Atomic Acknowledge Extended Transport Header (IBTA 9.3.6) */
static inline u64 sv_atmack_orig(const void *hdr)
{
	return sv_get_be64(sv_hdr_ext(hdr, SV_EXT_ATMACK));
}

static inline void sv_atmack_set(void *hdr, u64 orig)
{
	sv_put_be64(sv_hdr_ext_mut(hdr, SV_EXT_ATMACK), orig);
}

/*
 * Datagram Extended Transport Header (IBTA 9.3.2): Q_Key, then a reserved
 * byte and the 24-bit source QPN.
 */
static inline u32 sv_deth_qkey(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_DETH));
}

static inline u32 sv_deth_sqp(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_DETH) + 4) & SV_QPN_MASK;
}

static inline void sv_deth_set(void *hdr, u32 qkey, u32 sqp)
{
	u8 *p = sv_hdr_ext_mut(hdr, SV_EXT_DETH);

	sv_put_be32(p, qkey);
	sv_put_be32(p + 4, sqp & SV_QPN_MASK);
}

/*
 * Immediate data (IBTA 9.3.7): opaque 4 bytes, kept in wire order as the
 * verbs carry it (ib_send_wr.ex.imm_data, ib_wc.ex.imm_data are __be32).
 */
static inline __be32 sv_immdt_imm(const void *hdr)
{
	__be32 imm;

	memcpy(&imm, sv_hdr_ext(hdr, SV_EXT_IMMDT), sizeof(imm));
	return imm;
}

static inline void sv_immdt_set(void *hdr, __be32 imm)
{
	memcpy(sv_hdr_ext_mut(hdr, SV_EXT_IMMDT), &imm, sizeof(imm));
}

/* Invalidate Extended Transport Header (IBTA 9.3.8): the R_Key */
static inline u32 sv_ieth_rkey(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_IETH));
}

static inline void sv_ieth_set(void *hdr, u32 rkey)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_IETH), rkey);
}

/*
 * XRC Extended Transport Header (IBTA Annex A14): 8 reserved bits, then
 * the 24-bit number of the XRC SRQ the request is for.  The reserved bits
 * are ignored on receive (IBTA 9.2) and sent as zero.
 */
#define SV_XRCETH_SRQN_MASK	0x00ffffffU

static inline u32 sv_xrceth_srqn(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_XRCETH)) &
	       SV_XRCETH_SRQN_MASK;
}

static inline void sv_xrceth_set(void *hdr, u32 srqn)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_XRCETH),
		    srqn & SV_XRCETH_SRQN_MASK);
}

/*
 * FLUSH Extended Transport Header (IBTA 1.5 Memory Placement Extensions):
 * a 32-bit word, bits 3:0 placement type, bits 5:4 selectivity level, the
 * rest reserved.
 */
#define SV_FETH_PLT_MASK	0x0000000fU
#define SV_FETH_SEL_MASK	0x00000030U
#define SV_FETH_SEL_SHIFT	4

static inline u8 sv_feth_plt(const void *hdr)
{
	return sv_get_be32(sv_hdr_ext(hdr, SV_EXT_FETH)) & SV_FETH_PLT_MASK;
}

static inline u8 sv_feth_sel(const void *hdr)
{
	return (sv_get_be32(sv_hdr_ext(hdr, SV_EXT_FETH)) & SV_FETH_SEL_MASK) >>
		SV_FETH_SEL_SHIFT;
}

static inline void sv_feth_set(void *hdr, u8 plt, u8 sel)
{
	sv_put_be32(sv_hdr_ext_mut(hdr, SV_EXT_FETH),
		    (plt & SV_FETH_PLT_MASK) |
		    (((u32)sel << SV_FETH_SEL_SHIFT) & SV_FETH_SEL_MASK));
}

/* Pad bytes after @paylen bytes of payload (IBTA 9.2: to 4 bytes) */
static inline u8 sv_hdr_pad(u32 paylen)
{
	return -paylen & 3;
}

/* Bytes from BTH through ICRC of a packet with @paylen bytes of payload */
static inline u32 sv_hdr_pkt_len(const struct sv_opcode_info *info,
				 u32 paylen)
{
	return info->hdr_len + paylen + sv_hdr_pad(paylen) + SV_ICRC_BYTES;
}

/*
 * Build a BTH at @hdr: TVer 0, reserved bits 0, @flags SV_BTH_*; the pad
 * count from @paylen (sv_hdr_pad()).  Extension headers come after this.
 */
static inline void sv_hdr_build_bth(void *hdr, u8 opcode, u32 flags,
				    u16 pkey, u32 qpn, u32 psn, u32 paylen)
{
	u8 *p = hdr;

	p[SV_BTH_OPCODE] = opcode;
	p[SV_BTH_FLAGS] = (flags & SV_BTH_SE ? SV_BTH_SE_BIT : 0) |
			  (flags & SV_BTH_MIG ? SV_BTH_MIG_BIT : 0) |
			  sv_hdr_pad(paylen) << SV_BTH_PAD_SHIFT |
			  SV_BTH_TVER;
	sv_put_be16(p + SV_BTH_PKEY, pkey);
	sv_put_be32(p + SV_BTH_QPN,
		    (flags & SV_BTH_FECN ? SV_BTH_FECN_BIT : 0) |
		    (flags & SV_BTH_BECN ? SV_BTH_BECN_BIT : 0) |
		    (qpn & SV_QPN_MASK));
	sv_put_be32(p + SV_BTH_PSN,
		    (flags & SV_BTH_ACKREQ ? SV_BTH_ACKREQ_BIT : 0) |
		    (psn & SV_BTH_PSN_MASK));
}

/* Extension header builders: the BTH (hence the opcode) must be there. */
static inline void sv_hdr_build_reth(void *hdr, u64 va, u32 rkey, u32 len)
{
	sv_reth_set_va(hdr, va);
	sv_reth_set_rkey(hdr, rkey);
	sv_reth_set_len(hdr, len);
}

static inline void sv_hdr_build_aeth(void *hdr, u8 syndrome, u32 msn)
{
	sv_aeth_set(hdr, syndrome, msn);
}

static inline void sv_hdr_build_atmeth(void *hdr, u64 va, u32 rkey,
				       u64 swap_add, u64 comp)
{
	sv_atmeth_set(hdr, va, rkey, swap_add, comp);
}

static inline void sv_hdr_build_atmack(void *hdr, u64 orig)
{
	sv_atmack_set(hdr, orig);
}

static inline void sv_hdr_build_deth(void *hdr, u32 qkey, u32 sqp)
{
	sv_deth_set(hdr, qkey, sqp);
}

static inline void sv_hdr_build_immdt(void *hdr, __be32 imm)
{
	sv_immdt_set(hdr, imm);
}

static inline void sv_hdr_build_ieth(void *hdr, u32 rkey)
{
	sv_ieth_set(hdr, rkey);
}

static inline void sv_hdr_build_xrceth(void *hdr, u32 srqn)
{
	sv_xrceth_set(hdr, srqn);
}

static inline void sv_hdr_build_feth(void *hdr, u8 plt, u8 sel)
{
	sv_feth_set(hdr, plt, sel);
}

/* A CNP's 16 reserved bytes are zero (IBTA Annex A17.9.3) */
static inline void sv_hdr_build_cnp(void *hdr)
{
	memset(sv_hdr_ext_mut(hdr, SV_EXT_CNP), 0, SV_CNP_BYTES);
}

/*
 * Global Route Header (IBTA 8.3.1), 40 bytes; RoCE v1 (IBTA Annex A16)
 * puts it directly after the Ethernet header (ethertype 0x8915):
 *
 *   0  IPVer(31:28) TClass(27:20) FlowLabel(19:0)
 *   4  PayLen (16): bytes after the GRH, BTH through ICRC
 *   6  NxtHdr (8): 0x1B, an IBA transport header follows
 *   7  HopLmt (8)
 *   8  SGID (128)
 *  24  DGID (128)
 *
 * The layout of an IPv6 header (RFC 8200) with another next header.
 */
#define SV_GRH_BYTES		40
#define SV_GRH_IPVER		6
#define SV_GRH_NXTHDR_BTH	0x1b
#define SV_GRH_PAYLEN		4
#define SV_GRH_NXTHDR		6
#define SV_GRH_HOPLMT		7
#define SV_GRH_SGID		8
#define SV_GRH_DGID		24

/**
 * struct sv_grh_info - a GRH, as sv_hdr_parse_grh() found it
 * @sgid:	source GID
 * @dgid:	destination GID
 * @flow_label:	20-bit flow label
 * @paylen:	PayLen: bytes after the GRH
 * @traffic_class: TClass
 * @hop_limit:	HopLmt
 */
struct sv_grh_info {
	u8	sgid[16];
	u8	dgid[16];
	u32	flow_label;
	u16	paylen;
	u8	traffic_class;
	u8	hop_limit;
};

/*
 * Build a GRH at @grh for @paylen bytes of BTH through ICRC; the flow
 * label is cut to its 20 bits.
 */
static inline void sv_hdr_build_grh(void *grh, u8 tclass, u32 flow_label,
				    u16 paylen, u8 hop_limit,
				    const u8 *sgid, const u8 *dgid)
{
	u8 *p = grh;

	sv_put_be32(p, (u32)SV_GRH_IPVER << 28 | (u32)tclass << 20 |
		       (flow_label & 0xfffff));
	sv_put_be16(p + SV_GRH_PAYLEN, paylen);
	p[SV_GRH_NXTHDR] = SV_GRH_NXTHDR_BTH;
	p[SV_GRH_HOPLMT] = hop_limit;
	memcpy(p + SV_GRH_SGID, sgid, 16);
	memcpy(p + SV_GRH_DGID, dgid, 16);
}

int sv_hdr_parse_grh(const void *buf, size_t len, struct sv_grh_info *out);

/* Largest payload of one packet: the largest IB path MTU (IBTA 9.7.7) */
#define SV_HDR_MAX_PAYLOAD	4096
/*
 * Largest payload of a local burst: a packet between two devices of this
 * host that stands for several packets of the path MTU (design.md,
 * "Local bursts").  A burst whose payload is in the frame carries at most
 * SV_HDR_MAX_LOCAL_COPY (with its headers it fits a 16 KiB buffer); one
 * by reference, whose payload stays in the sender's MR, up to this.
 */
#define SV_HDR_MAX_LOCAL_PAYLOAD	(64 * 1024)
#define SV_HDR_MAX_LOCAL_COPY		(15 * 1024)

/**
 * struct sv_pkt_info - a received packet, as sv_hdr_parse() found it
 * @info:	the opcode's properties (never NULL after a successful parse)
 * @hdr:	the BTH (the buffer given to sv_hdr_parse())
 * @len:	bytes from BTH through ICRC
 * @paylen:	payload bytes, pad excluded; the payload is at
 *		hdr + info->hdr_len
 * @qpn:	destination QP (24 bits)
 * @psn:	PSN (24 bits)
 * @pkey:	P_Key
 * @opcode:	BTH opcode
 * @pad:	pad count
 * @bth_flags:	SV_BTH_* flags found in the BTH
 * @npkts:	the packets it stands for: 1, or a local burst's
 *		(sv_hdr_parse_local())
 */
struct sv_pkt_info {
	const struct sv_opcode_info	*info;
	const u8			*hdr;
	u32				len;
	u32				paylen;
	u32				qpn;
	u32				psn;
	u16				pkey;
	u8				opcode;
	u8				pad;
	u8				bth_flags;
	u8				npkts;
};

static inline const u8 *sv_pkt_payload(const struct sv_pkt_info *pkt)
{
	return pkt->hdr + pkt->info->hdr_len;
}

/* the ICRC, as its 4 bytes sit on the wire */
static inline const u8 *sv_pkt_icrc(const struct sv_pkt_info *pkt)
{
	return pkt->hdr + pkt->len - SV_ICRC_BYTES;
}

int sv_hdr_parse(const void *buf, size_t len, struct sv_pkt_info *out);
int sv_hdr_parse_local(const void *buf, size_t len, u8 npkts,
		       struct sv_pkt_info *out);

#endif /* SV_HDR_H */
