// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_icrc.c: the RoCEv2 ICRC (IBTA Annex A17.3.3)
 * and the RoCE v1 one (Annex A16, IBTA 7.8.1).
 *
 * The vectors in icrc_vectors.h are real packets Soft-RoCE sent over a veth
 * (captured by tests/tools/icrc-capture.sh, IPv4 and IPv6, requests and
 * responses, some after a router decremented their TTL): their ICRC is
 * Soft-RoCE's computation, so they check ours independently.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>

#include "sv_hdr.h"
#include "sv_icrc.h"

struct icrc_vector {
	const char	*name;
	const u8	*pkt;		/* IP header .. ICRC */
	size_t		len;
	u8		ipver;
	u8		opcode;
	u32		icrc;		/* the wire bytes, little endian */
};

#define VEC(n, v, op, crc)	{ #n, n, sizeof(n), v, op, crc }

#include "icrc_vectors.h"

/*
 * RoCE v1 packets, GRH .. ICRC, whose ICRC tests/user/lib/roce1.py (an
 * implementation from the spec, not from kmod/) computed.
 */
struct icrc_v1_vector {
	const char	*name;
	const u8	*pkt;
	size_t		len;
	u8		opcode;
	u32		icrc;
};

#define V1VEC(n, op, crc)	{ #n, n, sizeof(n), op, crc }

#include "icrc_v1_vectors.h"

static unsigned int l3_len(const struct icrc_vector *v)
{
	return v->ipver == 4 ? (v->pkt[0] & 0x0f) * 4 : sizeof(struct ipv6hdr);
}

/* offset of the BTH */
static unsigned int bth_off(const struct icrc_vector *v)
{
	return l3_len(v) + sizeof(struct udphdr);
}

/* the ICRC's wire bytes as the CRC value (little endian) */
static u32 le32_at(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static u8 *exact_copy(struct kunit *test, const void *src, size_t len)
{
	u8 *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	if (len)
		memcpy(p, src, len);
	return p;
}

/* 8 bytes of 0xff from the all-ones state: the constant we start from */
static void icrc_seed(struct kunit *test)
{
	static const u8 lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	KUNIT_EXPECT_EQ_MSG(test, crc32_le(~0U, lrh, sizeof(lrh)), SV_ICRC_SEED,
			    "crc32_le(~0, 8 x 0xff)");
}

/* there are vectors of both families, requests and responses */
static void icrc_vectors_present(struct kunit *test)
{
	unsigned int i, v4 = 0, v6 = 0, resp = 0;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		const struct sv_opcode_info *info = sv_opcode_info(v->opcode);

		v4 += v->ipver == 4;
		v6 += v->ipver == 6;
		resp += info && (info->flags & SV_OP_RESP);
	}
	KUNIT_EXPECT_GE_MSG(test, v4, 3U, "IPv4 vectors");
	KUNIT_EXPECT_GE_MSG(test, v6, 3U, "IPv6 vectors");
	KUNIT_EXPECT_GE_MSG(test, resp, 2U, "response vectors");
}

/* our ICRC of every captured packet is the one Soft-RoCE sent */
static void icrc_vectors_match(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		u8 *p = exact_copy(test, v->pkt, v->len);
		u32 got = 0;
		int err = sv_icrc_calc(p, v->len, &got);

		KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s: calc failed", v->name);
		KUNIT_EXPECT_EQ_MSG(test, got, v->icrc, "%s: ICRC %08x, Soft-RoCE sent %08x",
				    v->name, got, v->icrc);
		KUNIT_EXPECT_EQ_MSG(test, le32_at(p + v->len - 4), v->icrc,
				    "%s: vector's last 4 bytes are not its ICRC", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_verify(p, v->len),
				      "%s: verify says no", v->name);
		kunit_kfree(test, p);
	}
}

/* and sv_hdr_parse() accepts each as what it is */
static void icrc_vectors_parse(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		size_t len = v->len - bth_off(v);
		u8 *p = exact_copy(test, v->pkt + bth_off(v), len);
		struct sv_pkt_info pkt;
		int err = sv_hdr_parse(p, len, &pkt);

		KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s: sv_hdr_parse", v->name);
		if (!err) {
			KUNIT_EXPECT_EQ_MSG(test, pkt.opcode, v->opcode,
					    "%s: opcode", v->name);
			KUNIT_EXPECT_EQ_MSG(test, pkt.pkey, 0xffff, "%s: P_Key",
					    v->name);
		}
		kunit_kfree(test, p);
	}
}

/* bit masks of the bytes the ICRC ignores, per offset */
static u8 masked_bits(const struct icrc_vector *v, unsigned int off)
{
	unsigned int udp = l3_len(v), bth = bth_off(v);

	if (v->ipver == 4 && (off == 1 || off == 8 || off == 10 || off == 11))
		return 0xff;			/* TOS, TTL, checksum */
	if (v->ipver == 6) {
		if (off == 0)
			return 0x0f;		/* traffic class, high nibble */
		if (off >= 1 && off <= 3)
			return 0xff;		/* traffic class, flow label */
		if (off == 7)
			return 0xff;		/* hop limit */
	}
	if (off == udp + 6 || off == udp + 7)
		return 0xff;			/* UDP checksum */
	if (off == bth + 4)
		return 0xff;			/* FECN, BECN, resv6 */
	return 0;
}

/* CRC-32 catches every single-bit error in what it covers */
static void icrc_invariant_bit_flips(struct kunit *test)
{
	unsigned int i, off, bit;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		u8 *p = exact_copy(test, v->pkt, v->len);

		for (off = 0; off < v->len; off++) {
			for (bit = 0; bit < 8; bit++) {
				if (masked_bits(v, off) & BIT(bit))
					continue;
				p[off] ^= BIT(bit);
				if (sv_icrc_verify(p, v->len)) {
					KUNIT_FAIL(test, "%s: flipping bit %u of byte %u goes unnoticed",
						   v->name, bit, off);
					return;
				}
				p[off] ^= BIT(bit);
			}
		}
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_verify(p, v->len),
				      "%s: not restored", v->name);
		kunit_kfree(test, p);
	}
}

/* what routers may change, the ICRC does not see */
static void icrc_masked_fields_ignored(struct kunit *test)
{
	unsigned int i, off;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		u8 *p = exact_copy(test, v->pkt, v->len);

		for (off = 0; off < v->len; off++)
			p[off] ^= masked_bits(v, off) & (0xa5 + off);
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_verify(p, v->len),
				      "%s: changed TOS/TTL/checksums/flow label/FECN: ICRC differs",
				      v->name);
		for (off = 0; off < v->len; off++)
			p[off] |= masked_bits(v, off);
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_verify(p, v->len),
				      "%s: masked fields all ones: ICRC differs", v->name);
		kunit_kfree(test, p);
	}
}

/* sv_icrc_set() writes what Soft-RoCE wrote */
static void icrc_set_round_trip(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		u8 *p = exact_copy(test, v->pkt, v->len);

		memset(p + v->len - 4, 0, 4);
		KUNIT_EXPECT_EQ_MSG(test, sv_icrc_set(p, v->len), 0, "%s", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(p, v->pkt, v->len),
				      "%s: set wrote %4phC, want %4phC", v->name,
				      p + v->len - 4, v->pkt + v->len - 4);
		kunit_kfree(test, p);
	}
}

/*
 * An skb holding @v: @headroom bytes of headroom, the first @lin bytes
 * linear and the rest in page fragments of at most @frag bytes.
 */
static struct sk_buff *vector_skb(const struct icrc_vector *v,
				  unsigned int headroom, unsigned int lin,
				  unsigned int frag)
{
	struct sk_buff *skb = alloc_skb(headroom + lin, GFP_KERNEL);
	unsigned int at = lin;

	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	skb_put_data(skb, v->pkt, lin);
	while (at < v->len) {
		unsigned int n = min_t(unsigned int, frag, v->len - at);
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page || skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS) {
			if (page)
				__free_page(page);
			kfree_skb(skb);
			return NULL;
		}
		/* not at offset 0: crc walks must honour the frag offset */
		memcpy(page_address(page) + 100, v->pkt + at, n);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 100, n,
				PAGE_SIZE);
		at += n;
	}
	return skb;
}

static void icrc_skb_linear(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		struct sk_buff *skb = vector_skb(v, 0, v->len, 0);
		u32 got = 0;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc_skb(skb, 0, v->len, &got), 0,
				    "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, got, v->icrc, "%s: linear skb", v->name);
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_verify_skb(skb, 0, v->len),
				      "%s: linear skb", v->name);
		kfree_skb(skb);
	}
}

/* linear part of every length, the rest in 1..n fragments */
static void icrc_skb_paged(struct kunit *test)
{
	static const unsigned int frags[] = { 4096, 64, 7 };
	unsigned int i, lin, f;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];

		for (f = 0; f < ARRAY_SIZE(frags); f++) {
			for (lin = 0; lin < v->len; lin += lin < 80 ? 1 : 37) {
				struct sk_buff *skb;
				u32 got = 0;
				int err;

				/* small fragments: keep within MAX_SKB_FRAGS */
				if (DIV_ROUND_UP(v->len - lin, frags[f]) > MAX_SKB_FRAGS)
					continue;
				skb = vector_skb(v, 0, lin, frags[f]);
				KUNIT_ASSERT_NOT_NULL(test, skb);
				err = sv_icrc_calc_skb(skb, 0, v->len, &got);
				if (err || got != v->icrc) {
					KUNIT_FAIL(test, "%s: %u linear, frags of %u: err %d, ICRC %08x, want %08x",
						   v->name, lin, frags[f], err, got, v->icrc);
					kfree_skb(skb);
					return;
				}
				kfree_skb(skb);
			}
		}
	}
}

/*
 * UDP encap receive: IP and UDP already pulled, so l3_off < 0; the rest in
 * fragments or, as from a veth, all linear
 */
static void icrc_skb_pulled(struct kunit *test)
{
	unsigned int i, linear;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		unsigned int hdrs = bth_off(v);

		for (linear = 0; linear < 2; linear++) {
			struct sk_buff *skb = vector_skb(v, 16,
							 linear ? v->len : hdrs + 12,
							 64);
			u32 got = 0;

			KUNIT_ASSERT_NOT_NULL(test, skb);
			skb_pull(skb, hdrs);
			KUNIT_EXPECT_EQ_MSG(test,
					    sv_icrc_calc_skb(skb, -(int)hdrs, v->len, &got),
					    0, "%s", v->name);
			KUNIT_EXPECT_EQ_MSG(test, got, v->icrc, "%s: pulled skb, linear %u",
					    v->name, linear);
			KUNIT_EXPECT_TRUE_MSG(test,
					      sv_icrc_verify_skb(skb, -(int)hdrs, v->len),
					      "%s: pulled skb, linear %u", v->name, linear);
			/* the headroom has 16 bytes more, but not hdrs + 17 */
			KUNIT_EXPECT_EQ_MSG(test,
					    sv_icrc_calc_skb(skb, -(int)hdrs - 17, v->len, &got),
					    -EFAULT, "%s: beyond the headroom", v->name);
			/* nor one byte past the end */
			KUNIT_EXPECT_EQ_MSG(test,
					    sv_icrc_calc_skb(skb, -(int)hdrs, v->len + 1, &got),
					    -EFAULT, "%s: beyond the end", v->name);
			/* a payload bit flipped: the check fails */
			if (linear) {
				skb->data[skb->len - SV_ICRC_BYTES - 1] ^= 0x10;
				KUNIT_EXPECT_FALSE_MSG(test,
						       sv_icrc_verify_skb(skb, -(int)hdrs, v->len),
						       "%s: flipped bit", v->name);
			}
			kfree_skb(skb);
		}
	}
}

/* set on an skb whose ICRC sits in a page fragment */
static void icrc_skb_set(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		struct sk_buff *skb = vector_skb(v, 0, 60, 64);
		u8 wire[4];

		KUNIT_ASSERT_NOT_NULL(test, skb);
		memset(wire, 0, sizeof(wire));
		KUNIT_ASSERT_EQ(test, skb_store_bits(skb, v->len - 4, wire, 4), 0);
		KUNIT_EXPECT_FALSE_MSG(test, sv_icrc_verify_skb(skb, 0, v->len),
				       "%s: zeroed ICRC verifies", v->name);
		KUNIT_EXPECT_EQ_MSG(test,
				    sv_icrc_set_skb(skb, 0, v->len, SV_ICRC_SPEC),
				    0, "%s", v->name);
		KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, v->len - 4, wire, 4), 0);
		KUNIT_EXPECT_EQ_MSG(test, le32_at(wire), v->icrc,
				    "%s: set_skb wrote the wrong ICRC", v->name);
		kfree_skb(skb);
	}
}

/* packets whose ICRC cannot be computed, in exact-size buffers */
static void icrc_malformed(struct kunit *test)
{
	const struct icrc_vector *v4 = NULL, *v6 = NULL;
	struct sk_buff *skb;
	unsigned int i;
	u32 icrc;
	u8 *p;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		if (icrc_vectors[i].ipver == 4 && !v4)
			v4 = &icrc_vectors[i];
		if (icrc_vectors[i].ipver == 6 && !v6)
			v6 = &icrc_vectors[i];
	}
	KUNIT_ASSERT_NOT_NULL(test, v4);
	KUNIT_ASSERT_NOT_NULL(test, v6);

	/* every length below IP + UDP + BTH + ICRC */
	for (i = 0; i < bth_off(v4) + 12 + 4; i++) {
		p = exact_copy(test, v4->pkt, i);
		KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, i, &icrc), -EMSGSIZE,
				    "IPv4 packet of %u bytes", i);
		KUNIT_EXPECT_FALSE(test, sv_icrc_verify(p, i));
		kunit_kfree(test, p);
	}
	for (i = 0; i < bth_off(v6) + 12 + 4; i++) {
		p = exact_copy(test, v6->pkt, i);
		KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, i, &icrc), -EMSGSIZE,
				    "IPv6 packet of %u bytes", i);
		kunit_kfree(test, p);
	}

	p = exact_copy(test, v4->pkt, v4->len);
	p[0] = 0x54;				/* IPv5 */
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, v4->len, &icrc),
			    -EPROTONOSUPPORT, "IP version 5");
	p[0] = 0x44;				/* IHL 4 */
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, v4->len, &icrc), -EBADMSG,
			    "IPv4 header length 16");
	p[0] = 0x45;
	p[9] = IPPROTO_TCP;
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, v4->len, &icrc),
			    -EPROTONOSUPPORT, "IPv4 carrying TCP");
	KUNIT_EXPECT_FALSE(test, sv_icrc_verify(p, v4->len));

	p = exact_copy(test, v6->pkt, v6->len);
	p[6] = 0;				/* hop-by-hop options */
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(p, v6->len, &icrc),
			    -EPROTONOSUPPORT, "IPv6 with a hop-by-hop header");

	/* skb shorter than the length claimed */
	skb = vector_skb(v6, 0, v6->len, 0);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc_skb(skb, 0, v6->len + 4, &icrc),
			    -EFAULT, "length beyond the skb");
	KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc_skb(skb, 8, v6->len, &icrc),
			    -EFAULT, "offset + length beyond the skb");
	KUNIT_EXPECT_FALSE(test, sv_icrc_verify_skb(skb, 0, v6->len + 4));
	kfree_skb(skb);
}

/* an skb holding a copy of @len bytes at @p */
static struct sk_buff *flat_skb(const u8 *p, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);

	if (skb)
		skb_put_data(skb, p, len);
	return skb;
}

/*
 * RDMA FLUSH: the IBTA ICRC, and Soft-RoCE's, which continues over the raw
 * BTH and extension headers once more (sv_icrc.c).  Both verify; other
 * opcodes have only one form.  Built from the first IPv4 vector's IP, UDP
 * and BTH with a FETH and RETH appended.
 */
static void icrc_flush_forms(struct kunit *test)
{
	const unsigned int ext = SV_FETH_BYTES + SV_RETH_BYTES;
	const struct icrc_vector *v = NULL;
	unsigned int i, bth, len;
	u32 spec, rxe, want;
	struct sk_buff *skb;
	u8 *pkt, *twice, wire[4];

	for (i = 0; i < ARRAY_SIZE(icrc_vectors) && !v; i++)
		if (icrc_vectors[i].ipver == 4)
			v = &icrc_vectors[i];
	KUNIT_ASSERT_NOT_NULL(test, v);
	bth = bth_off(v);
	len = bth + SV_BTH_BYTES + ext + SV_ICRC_BYTES;
	pkt = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	memcpy(pkt, v->pkt, bth + SV_BTH_BYTES);
	pkt[bth] = SV_OPCODE_RC_FLUSH;
	for (i = 0; i < ext; i++)
		pkt[bth + SV_BTH_BYTES + i] = 0x30 + i;

	skb = flat_skb(pkt, len);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, sv_icrc_set_skb(skb, 0, len, SV_ICRC_SPEC), 0);
	KUNIT_EXPECT_TRUE(test, sv_icrc_verify_skb(skb, 0, len));
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, len - 4, wire, 4), 0);
	spec = le32_at(wire);
	KUNIT_ASSERT_EQ(test, sv_icrc_set_skb(skb, 0, len, SV_ICRC_RXE), 0);
	KUNIT_EXPECT_TRUE(test, sv_icrc_verify_skb(skb, 0, len));
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, len - 4, wire, 4), 0);
	rxe = le32_at(wire);
	KUNIT_EXPECT_NE(test, spec, rxe);

	/* Soft-RoCE's form: the IBTA CRC of the packet with BTH..RETH twice */
	twice = kunit_kzalloc(test, len + SV_BTH_BYTES + ext, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, twice);
	memcpy(twice, pkt, len - SV_ICRC_BYTES);
	memcpy(twice + len - SV_ICRC_BYTES, pkt + bth, SV_BTH_BYTES + ext);
	KUNIT_ASSERT_EQ(test, sv_icrc_calc(twice, len + SV_BTH_BYTES + ext,
					   &want), 0);
	KUNIT_EXPECT_EQ(test, rxe, want);

	/* either form, corrupted, fails */
	pkt[bth + SV_BTH_BYTES + 5] ^= 1;
	KUNIT_ASSERT_EQ(test, skb_store_bits(skb, bth + SV_BTH_BYTES + 5,
					     pkt + bth + SV_BTH_BYTES + 5, 1), 0);
	KUNIT_EXPECT_FALSE(test, sv_icrc_verify_skb(skb, 0, len));
	kfree_skb(skb);

	/* not a FLUSH: one form only */
	pkt[bth] = IB_OPCODE_RC_SEND_ONLY;
	skb = flat_skb(pkt, len);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, sv_icrc_set_skb(skb, 0, len, SV_ICRC_RXE), 0);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, len - 4, wire, 4), 0);
	KUNIT_ASSERT_EQ(test, sv_icrc_calc(pkt, len, &want), 0);
	KUNIT_EXPECT_EQ(test, le32_at(wire), want);
	kfree_skb(skb);
}


/* --- RoCE v1 ---------------------------------------------------------- */

/* every v1 vector: the flat calc and verify agree with the Python's ICRC */
static void icrc_v1_vectors_match(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_v1_vectors); i++) {
		const struct icrc_v1_vector *v = &icrc_v1_vectors[i];
		struct sv_pkt_info p;
		u32 icrc;

		KUNIT_ASSERT_EQ_MSG(test, sv_icrc_v1_calc(v->pkt, v->len, &icrc),
				    0, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, le32_at(v->pkt + v->len - 4), v->icrc,
				    "%s: wire bytes", v->name);
		/* the transport headers behind the GRH parse */
		KUNIT_EXPECT_EQ_MSG(test, sv_hdr_parse(v->pkt + SV_GRH_BYTES,
						       v->len - SV_GRH_BYTES,
						       &p), 0, "%s", v->name);
		KUNIT_EXPECT_EQ_MSG(test, p.opcode, v->opcode, "%s", v->name);
		/* a v1 packet read as RoCEv2 is no packet */
		KUNIT_EXPECT_EQ_MSG(test, sv_icrc_calc(v->pkt, v->len, &icrc),
				    -EPROTONOSUPPORT, "%s", v->name);
	}
}

/* TClass, FlowLabel, HopLmt and resv8a are masked; every other bit counts */
static void icrc_v1_masks(struct kunit *test)
{
	unsigned int i, off, bit;

	for (i = 0; i < ARRAY_SIZE(icrc_v1_vectors); i++) {
		const struct icrc_v1_vector *v = &icrc_v1_vectors[i];
		u8 *pkt = exact_copy(test, v->pkt, v->len);

		for (off = 0; off < v->len - 4; off++) {
			for (bit = 0; bit < 8; bit++) {
				u8 m = 1 << bit;
				bool masked, proto;
				u32 icrc;
				int err;

				/* byte 0's low nibble and bytes 1-3, 7; BTH byte 4 */
				masked = (off == 0 && bit < 4) ||
					 (off >= 1 && off <= 3) || off == 7 ||
					 off == SV_GRH_BYTES + 4;
				/* IPVer and NxtHdr decide whether it is v1 */
				proto = (off == 0 && bit >= 4) || off == 6;
				pkt[off] ^= m;
				err = sv_icrc_v1_calc(pkt, v->len, &icrc);
				pkt[off] ^= m;
				if (proto) {
					KUNIT_EXPECT_EQ_MSG(test, err,
						-EPROTONOSUPPORT, "%s byte %u bit %u",
						v->name, off, bit);
					continue;
				}
				KUNIT_ASSERT_EQ(test, err, 0);
				if (masked)
					KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc,
						"%s: masked byte %u bit %u counts",
						v->name, off, bit);
				else
					KUNIT_EXPECT_NE_MSG(test, icrc, v->icrc,
						"%s: byte %u bit %u ignored",
						v->name, off, bit);
			}
		}
	}
}

/* the skb functions: linear, paged, GRH pulled, and set */
static void icrc_v1_skb(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_v1_vectors); i++) {
		const struct icrc_v1_vector *v = &icrc_v1_vectors[i];
		struct icrc_vector as = {
			.name = v->name, .pkt = v->pkt, .len = v->len,
		};
		struct sk_buff *skb;
		u8 wire[4];

		skb = vector_skb(&as, 64, 52, 9);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_TRUE_MSG(test, sv_icrc_v1_verify_skb(skb, 0, v->len),
				      "%s paged", v->name);
		kfree_skb(skb);

		skb = vector_skb(&as, 64, v->len, v->len);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		/* as sv_recv.c has it: skb->data at the BTH */
		__skb_pull(skb, SV_GRH_BYTES);
		KUNIT_EXPECT_TRUE_MSG(test,
			sv_icrc_v1_verify_skb(skb, -SV_GRH_BYTES, v->len),
			"%s pulled", v->name);
		__skb_push(skb, SV_GRH_BYTES);
		/* a flipped payload bit fails, then set repairs it */
		skb->data[v->len - 5] ^= 0x10;
		KUNIT_EXPECT_FALSE(test, sv_icrc_v1_verify_skb(skb, 0, v->len));
		skb->data[v->len - 5] ^= 0x10;
		memset(skb->data + v->len - 4, 0, 4);
		KUNIT_ASSERT_EQ(test, sv_icrc_v1_set_skb(skb, 0, v->len), 0);
		KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, v->len - 4, wire, 4), 0);
		KUNIT_EXPECT_EQ_MSG(test, le32_at(wire), v->icrc, "%s set",
				    v->name);
		kfree_skb(skb);
	}
}

/* too short, or no GRH of a v1 packet */
static void icrc_v1_malformed(struct kunit *test)
{
	const struct icrc_v1_vector *v = &icrc_v1_vectors[0];
	u8 *pkt = exact_copy(test, v->pkt, v->len);
	u32 icrc;

	KUNIT_EXPECT_EQ(test, sv_icrc_v1_calc(pkt, 0, &icrc), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sv_icrc_v1_calc(pkt, SV_GRH_BYTES - 1, &icrc),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, sv_icrc_v1_calc(pkt, SV_GRH_BYTES + 15, &icrc),
			-EMSGSIZE);
	pkt[6] = IPPROTO_UDP;		/* a RoCEv2 IPv6 header */
	KUNIT_EXPECT_EQ(test, sv_icrc_v1_calc(pkt, v->len, &icrc),
			-EPROTONOSUPPORT);
}

static struct kunit_case icrc_cases[] = {
	KUNIT_CASE(icrc_seed),
	KUNIT_CASE(icrc_vectors_present),
	KUNIT_CASE(icrc_vectors_match),
	KUNIT_CASE(icrc_vectors_parse),
	KUNIT_CASE(icrc_invariant_bit_flips),
	KUNIT_CASE(icrc_masked_fields_ignored),
	KUNIT_CASE(icrc_set_round_trip),
	KUNIT_CASE(icrc_skb_linear),
	KUNIT_CASE(icrc_skb_paged),
	KUNIT_CASE(icrc_skb_pulled),
	KUNIT_CASE(icrc_skb_set),
	KUNIT_CASE(icrc_malformed),
	KUNIT_CASE(icrc_flush_forms),
	KUNIT_CASE(icrc_v1_vectors_match),
	KUNIT_CASE(icrc_v1_masks),
	KUNIT_CASE(icrc_v1_skb),
	KUNIT_CASE(icrc_v1_malformed),
	{}
};

static struct kunit_suite icrc_suite = {
	.name = "icrc_kunit",
	.test_cases = icrc_cases,
};

kunit_test_suites(&icrc_suite);
