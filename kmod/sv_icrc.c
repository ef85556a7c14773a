// SPDX-License-Identifier: GPL-2.0
/*
 * The invariant CRC of RoCEv2 (IBTA Annex A17.3.3) and RoCE v1 (A16, 7.8.1)
 * packets, computed and checked; Soft-RoCE's second form for FLUSH.
 *
 * Documentation/design.md, "Transport" (ICRC) and "RoCE v1".
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "compat/compat.h"
#include "sv_hdr.h"
#include "sv_icrc.h"
#include "sv_opcode.h"

/* the most that is copied and masked: IPv4 with options, UDP, BTH */
#define SV_ICRC_MAX_HDRS	(60 + sizeof(struct udphdr) + SV_BTH_BYTES)

/* offset of the BTH byte that holds FECN, BECN and resv6 */
#define SV_ICRC_BTH_RESV8A	4

#ifndef SV_HAVE_CRC32_ARCH
/*
 * Where the CRC library has no arch code, crc32_le() is a table CRC at
 * about 3.7 instructions a byte; the crypto API's "crc32" is the same CRC
 * with the CPU's carry-less multiply where there is one (crc32-pclmul), as
 * Soft-RoCE uses it.  Its state is the running CRC as a u32, which is all
 * a descriptor holds (checked at load).  NULL: crc32_le() only.
 */
static struct crypto_shash *sv_icrc_tfm;

/* below this, crc32_le() costs less than entering the crypto API and FPU */
#define SV_ICRC_SHASH_MIN	256

static u32 sv_icrc_crc32(u32 crc, const u8 *p, size_t len)
{
	struct crypto_shash *tfm = sv_icrc_tfm;

	if (tfm && len >= SV_ICRC_SHASH_MIN && len <= UINT_MAX) {
		SHASH_DESC_ON_STACK(desc, tfm);
		u32 *state = shash_desc_ctx(desc);

		desc->tfm = tfm;
		*state = crc;
		if (!crypto_shash_update(desc, p, len))
			return *state;
	}
	return crc32_le(crc, p, len);
}

int sv_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	/* no crc32 in the crypto API: the library's CRC serves */
	if (IS_ERR(tfm))
		return 0;
	if (crypto_shash_descsize(tfm) != sizeof(u32)) {
		crypto_free_shash(tfm);
		return 0;
	}
	sv_icrc_tfm = tfm;
	return 0;
}

void sv_icrc_exit(void)
{
	crypto_free_shash(sv_icrc_tfm);
	sv_icrc_tfm = NULL;
}
#else
/* crc32_le() uses the CPU's CRC instructions itself */
static u32 sv_icrc_crc32(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

int sv_icrc_init(void)
{
	return 0;
}

void sv_icrc_exit(void)
{
}
#endif

/* the ICRC's wire bytes <-> the CRC: little endian, any alignment */
static u32 sv_icrc_get_wire(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static void sv_icrc_put_wire(u8 *p, u32 icrc)
{
	__le32 v = cpu_to_le32(icrc);

	memcpy(p, &v, sizeof(v));
}

/*
 * From the first bytes of the IP header (@avail of them, at least 1),
 * the length of the IP header: 0 with *err set if the packet is not one
 * whose ICRC we can compute.
 */
static unsigned int sv_icrc_l3_len(const u8 *l3, size_t avail, int *err)
{
	switch (l3[0] >> 4) {
	case 4:
		if (avail < sizeof(struct iphdr)) {
			*err = -EMSGSIZE;
			return 0;
		}
		if ((l3[0] & 0x0f) < 5) {
			*err = -EBADMSG;
			return 0;
		}
		if (((const struct iphdr *)l3)->protocol != IPPROTO_UDP) {
			*err = -EPROTONOSUPPORT;
			return 0;
		}
		return (l3[0] & 0x0f) * 4;
	case 6:
		if (avail < sizeof(struct ipv6hdr)) {
			*err = -EMSGSIZE;
			return 0;
		}
		/* extension headers are not invariant: none allowed */
		if (((const struct ipv6hdr *)l3)->nexthdr != IPPROTO_UDP) {
			*err = -EPROTONOSUPPORT;
			return 0;
		}
		return sizeof(struct ipv6hdr);
	default:
		*err = -EPROTONOSUPPORT;
		return 0;
	}
}

/*
 * The length of IP + UDP + BTH in @hdrs, or of GRH + BTH for RoCE v1
 * (@v1), or a negative errno.
 */
static int sv_icrc_hdrs_len(const u8 *hdrs, size_t avail, size_t len,
			    bool v1)
{
	unsigned int l3_len;
	int err = 0;

	if (v1) {
		if (avail < SV_GRH_BYTES)
			return -EMSGSIZE;
		/* IPVer 6, NxtHdr: the BTH (IBTA 8.3.1) */
		if (hdrs[0] >> 4 != SV_GRH_IPVER ||
		    hdrs[SV_GRH_NXTHDR] != SV_GRH_NXTHDR_BTH)
			return -EPROTONOSUPPORT;
		if (len < SV_GRH_BYTES + SV_BTH_BYTES + SV_ICRC_BYTES)
			return -EMSGSIZE;
		return SV_GRH_BYTES + SV_BTH_BYTES;
	}
	l3_len = sv_icrc_l3_len(hdrs, avail, &err);
	if (!l3_len)
		return err;
	if (len < l3_len + sizeof(struct udphdr) + SV_BTH_BYTES +
		  SV_ICRC_BYTES)
		return -EMSGSIZE;
	return l3_len + sizeof(struct udphdr) + SV_BTH_BYTES;
}

/* GRH or IPv6 header: traffic class, flow label, hop limit to ones */
static void sv_icrc_mask_ip6(u8 *hdr)
{
	struct ipv6hdr *ip6 = (struct ipv6hdr *)hdr;

	/* keep the version, set traffic class and flow label */
	ip6->priority = 0xf;
	memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
	ip6->hop_limit = 0xff;
}

/*
 * Set the variant fields of the copied headers (IP, UDP, BTH, or GRH,
 * BTH for @v1; @hdrs_len bytes from sv_icrc_hdrs_len()) to ones and start
 * the CRC over them.
 */
static u32 sv_icrc_crc_hdrs(u8 *hdrs, unsigned int hdrs_len, bool v1)
{
	unsigned int l3_len = hdrs_len - sizeof(struct udphdr) - SV_BTH_BYTES;
	struct udphdr *udp = (struct udphdr *)(hdrs + l3_len);

	if (v1) {
		/* the GRH is laid out as an IPv6 header (sv_hdr.h) */
		sv_icrc_mask_ip6(hdrs);
		hdrs[SV_GRH_BYTES + SV_ICRC_BTH_RESV8A] = 0xff;
		return sv_icrc_crc32(SV_ICRC_SEED, hdrs, hdrs_len);
	}
	if (hdrs[0] >> 4 == 4) {
		struct iphdr *ip4 = (struct iphdr *)hdrs;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = (__force __sum16)0xffff;
	} else {
		sv_icrc_mask_ip6(hdrs);
	}
	udp->check = (__force __sum16)0xffff;
	hdrs[l3_len + sizeof(*udp) + SV_ICRC_BTH_RESV8A] = 0xff;

	return sv_icrc_crc32(SV_ICRC_SEED, hdrs, hdrs_len);
}

/*
 * ICRC of a packet in a flat buffer: @len bytes from the IP header (the
 * GRH for @v1) through the ICRC; @icrc the CRC (the value of the 4 wire
 * bytes read little-endian).  0 or a negative errno (sv_icrc.h).
 */
static int sv_icrc_calc_flat(const void *l3, size_t len, u32 *icrc, bool v1)
{
	u8 hdrs[SV_ICRC_MAX_HDRS];
	int hdrs_len;
	u32 crc;

	if (!len)
		return -EMSGSIZE;
	hdrs_len = sv_icrc_hdrs_len(l3, len, len, v1);
	if (hdrs_len < 0)
		return hdrs_len;
	memcpy(hdrs, l3, hdrs_len);
	crc = sv_icrc_crc_hdrs(hdrs, hdrs_len, v1);
	crc = sv_icrc_crc32(crc, (const u8 *)l3 + hdrs_len,
		       len - hdrs_len - SV_ICRC_BYTES);
	*icrc = ~crc;
	return 0;
}

int sv_icrc_calc(const void *l3, size_t len, u32 *icrc)
{
	return sv_icrc_calc_flat(l3, len, icrc, false);
}

/**
 * sv_icrc_v1_calc - ICRC of a RoCE v1 packet in a flat buffer
 * @grh:	the GRH
 * @len:	bytes from the GRH through the ICRC
 * @icrc:	the CRC (the value of the 4 wire bytes read little-endian)
 *
 * Return: 0 or a negative errno (sv_icrc.h; -EPROTONOSUPPORT: IPVer not
 * 6 or NxtHdr not 0x1B).
 */
int sv_icrc_v1_calc(const void *grh, size_t len, u32 *icrc)
{
	return sv_icrc_calc_flat(grh, len, icrc, true);
}

/* Does the packet carry the right ICRC?  False too if it is malformed. */
bool sv_icrc_verify(const void *l3, size_t len)
{
	u32 icrc;

	if (sv_icrc_calc(l3, len, &icrc))
		return false;
	return sv_icrc_get_wire((const u8 *)l3 + len - SV_ICRC_BYTES) == icrc;
}

/* Write the ICRC into the packet's last 4 bytes. */
int sv_icrc_set(void *l3, size_t len)
{
	u32 icrc;
	int err;

	err = sv_icrc_calc(l3, len, &icrc);
	if (err)
		return err;
	sv_icrc_put_wire((u8 *)l3 + len - SV_ICRC_BYTES, icrc);
	return 0;
}

/*
 * Bytes [@off, @off + @n) of @skb, @off relative to skb->data: a negative
 * part must be in the linear headroom, the rest inside skb->len.
 */
static int sv_icrc_skb_range_ok(const struct sk_buff *skb, int off,
				unsigned int n)
{
	if (off < 0 && (unsigned int)-off > skb_headroom(skb))
		return -EFAULT;
	if ((s64)off + n > skb->len)
		return -EFAULT;
	return 0;
}

/*
 * Bytes [@off, @off + @n) of @skb as one pointer, if sv_icrc_skb_range_ok()
 * and all of them lie in the linear part (headroom included): the common
 * case, which then costs what a flat buffer does.  NULL otherwise.
 */
static const u8 *sv_icrc_skb_flat(const struct sk_buff *skb, int off,
				  unsigned int n)
{
	if (sv_icrc_skb_range_ok(skb, off, n) ||
	    (s64)off + n > skb_headlen(skb))
		return NULL;
	return skb->data + off;
}

static int sv_icrc_skb_copy(const struct sk_buff *skb, int off, u8 *to,
			    unsigned int n)
{
	int err = sv_icrc_skb_range_ok(skb, off, n);

	if (err)
		return err;
	if (off < 0) {
		unsigned int head = min_t(unsigned int, -off, n);

		memcpy(to, skb->data + off, head);
		to += head;
		n -= head;
		off = 0;
	}
	return n ? skb_copy_bits(skb, off, to, n) : 0;
}

/* Continue @crc over bytes [@off, @off + @n) of @skb, linear or not. */
static int sv_icrc_skb_crc(struct sk_buff *skb, int off, unsigned int n,
			   u32 *crc)
{
	struct skb_seq_state st;
	unsigned int done = 0;
	const u8 *data;
	int err;

	err = sv_icrc_skb_range_ok(skb, off, n);
	if (err)
		return err;
	if (off < 0) {
		unsigned int head = min_t(unsigned int, -off, n);

		*crc = sv_icrc_crc32(*crc, skb->data + off, head);
		n -= head;
		off = 0;
	}
	if (!n)
		return 0;

	skb_prepare_seq_read(skb, off, off + n, &st);
	while (done < n) {
		/* a block may run past the range: clip it */
		unsigned int got = skb_seq_read(done, &data, &st);

		if (!got)
			return -EFAULT;	/* skb_seq_read() cleaned up */
		got = min(got, n - done);
		*crc = sv_icrc_crc32(*crc, data, got);
		done += got;
	}
	skb_abort_seq_read(&st);
	return 0;
}

/*
 * sv_icrc_calc() on an skb; see sv_icrc.h for @l3_off.  @rxe_flush: for a
 * FLUSH, Soft-RoCE's form (see the top); no effect on other opcodes.
 */
static int sv_icrc_calc_skb_form(struct sk_buff *skb, int l3_off,
				 unsigned int len, u32 *icrc, bool rxe_flush,
				 bool v1)
{
	u8 hdrs[SV_ICRC_MAX_HDRS];
	unsigned int avail;
	const u8 *flat;
	int hdrs_len;
	u32 crc;
	int err;

	if (!len)
		return -EMSGSIZE;
	/* Soft-RoCE's FLUSH form takes the long way (the BTH twice) */
	flat = rxe_flush ? NULL : sv_icrc_skb_flat(skb, l3_off, len);
	if (flat)
		return sv_icrc_calc_flat(flat, len, icrc, v1);
	err = sv_icrc_skb_range_ok(skb, l3_off, len);
	if (err)
		return err;
	/* enough to see the IP header length, as far as the packet goes */
	avail = min_t(unsigned int, len, sizeof(hdrs));
	err = sv_icrc_skb_copy(skb, l3_off, hdrs,
			       min_t(unsigned int, avail,
				     sizeof(struct ipv6hdr)));
	if (err)
		return err;
	hdrs_len = sv_icrc_hdrs_len(hdrs, min_t(unsigned int, avail,
						sizeof(struct ipv6hdr)), len,
				    v1);
	if (hdrs_len < 0)
		return hdrs_len;
	err = sv_icrc_skb_copy(skb, l3_off, hdrs, hdrs_len);
	if (err)
		return err;
	crc = sv_icrc_crc_hdrs(hdrs, hdrs_len, v1);
	err = sv_icrc_skb_crc(skb, l3_off + hdrs_len,
			      len - hdrs_len - SV_ICRC_BYTES, &crc);
	if (err)
		return err;
	/* the BTH opcode is the first byte of the BTH (the copy is unmasked) */
	if (rxe_flush && hdrs[hdrs_len - SV_BTH_BYTES] == SV_OPCODE_RC_FLUSH) {
		unsigned int bth = hdrs_len - SV_BTH_BYTES;

		err = sv_icrc_skb_crc(skb, l3_off + bth,
				      len - bth - SV_ICRC_BYTES, &crc);
		if (err)
			return err;
	}
	*icrc = ~crc;
	return 0;
}

int sv_icrc_calc_skb(struct sk_buff *skb, int l3_off, unsigned int len,
		     u32 *icrc)
{
	return sv_icrc_calc_skb_form(skb, l3_off, len, icrc, false, false);
}

/* the wire ICRC of the packet [@l3_off, @l3_off + @len) of @skb */
static int sv_icrc_skb_wire(struct sk_buff *skb, int l3_off, unsigned int len,
			    u32 *wire_icrc)
{
	int off = l3_off + len - SV_ICRC_BYTES;
	const u8 *flat = sv_icrc_skb_flat(skb, off, SV_ICRC_BYTES);
	u8 wire[SV_ICRC_BYTES];
	int err;

	if (flat) {
		*wire_icrc = sv_icrc_get_wire(flat);
		return 0;
	}
	err = sv_icrc_skb_copy(skb, off, wire, sizeof(wire));
	if (!err)
		*wire_icrc = sv_icrc_get_wire(wire);
	return err;
}

/* RoCE v1: the packet starts with its GRH, @grh_off from skb->data */
bool sv_icrc_v1_verify_skb(struct sk_buff *skb, int grh_off, unsigned int len)
{
	u32 icrc, wire;

	if (sv_icrc_calc_skb_form(skb, grh_off, len, &icrc, false, true))
		return false;
	if (sv_icrc_skb_wire(skb, grh_off, len, &wire))
		return false;
	return wire == icrc;
}

bool sv_icrc_verify_skb(struct sk_buff *skb, int l3_off, unsigned int len)
{
	u32 icrc, rxe, wire;

	if (sv_icrc_calc_skb(skb, l3_off, len, &icrc))
		return false;
	if (sv_icrc_skb_wire(skb, l3_off, len, &wire))
		return false;
	if (wire == icrc)
		return true;
	/* a FLUSH from Soft-RoCE (see the top); other opcodes: same value */
	if (sv_icrc_calc_skb_form(skb, l3_off, len, &rxe, true, false) ||
	    rxe == icrc)
		return false;
	return wire == rxe;
}

/*
 * Write the ICRC into the packet's last 4 bytes (must be writable);
 * @form SV_ICRC_RXE: Soft-RoCE's for a FLUSH.
 */
static int sv_icrc_set_skb_form(struct sk_buff *skb, int l3_off,
				unsigned int len, enum sv_icrc_form form,
				bool v1)
{
	int off = l3_off + len - SV_ICRC_BYTES;
	u8 wire[SV_ICRC_BYTES];
	u32 icrc;
	int err;

	err = sv_icrc_calc_skb_form(skb, l3_off, len, &icrc,
				    form == SV_ICRC_RXE, v1);
	if (err)
		return err;
	sv_icrc_put_wire(wire, icrc);
	if (off < 0) {
		/* the part in the headroom; sv_icrc_calc_skb() checked it */
		unsigned int head = min_t(unsigned int, -off, sizeof(wire));

		memcpy(skb->data + off, wire, head);
		if (head == sizeof(wire))
			return 0;
		return skb_store_bits(skb, 0, wire + head, sizeof(wire) - head);
	}
	return skb_store_bits(skb, off, wire, sizeof(wire));
}

int sv_icrc_set_skb(struct sk_buff *skb, int l3_off, unsigned int len,
		    enum sv_icrc_form form)
{
	return sv_icrc_set_skb_form(skb, l3_off, len, form, false);
}

/* RoCE v1: the packet starts with its GRH (no Soft-RoCE form: no v1 there) */
int sv_icrc_v1_set_skb(struct sk_buff *skb, int grh_off, unsigned int len)
{
	return sv_icrc_set_skb_form(skb, grh_off, len, SV_ICRC_SPEC, true);
}
