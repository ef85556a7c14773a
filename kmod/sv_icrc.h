/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE invariant CRC (IBTA 7.8.1; Annex A16 for RoCE v1, A17.3.3 for
 * RoCEv2): the CRC-32 that ends every RoCE packet, over the fields that
 * no router may change.  The sv_icrc_v1_*() functions take a RoCE v1
 * packet from its GRH instead of an IP header (-EPROTONOSUPPORT there:
 * the GRH's IPVer is not 6 or its NxtHdr not 0x1B).
 *
 * Packets are given from the start of their IP header (IPv4 without or
 * with options, or IPv6 directly followed by UDP) through the 4 ICRC
 * bytes, @len bytes in all.  The ICRC sits on the wire as the CRC's
 * little-endian bytes, like Ethernet's FCS; the u32 values below are the
 * CRC itself (the wire bytes read with get_unaligned_le32()).
 *
 * Errors, for every function returning int:
 *  -EPROTONOSUPPORT  not IPv4/IPv6, or the next header is not UDP
 *  -EBADMSG          IPv4 header length field below 20
 *  -EMSGSIZE         @len too short for IP + UDP + BTH + ICRC
 *  -EFAULT           (skb) the range is not inside the skb
 */
#ifndef SV_ICRC_H
#define SV_ICRC_H

#include <linux/skbuff.h>
#include <linux/types.h>

/*
 * crc32_le(~0, 8 bytes of 0xff): the CRC state after the masked LRH that
 * a RoCEv2 packet stands in for (IBTA Annex A17.3.3).
 */
#define SV_ICRC_SEED	0xdebb20e3U

/*
 * Module load and unload: the CRC implementation (sv_icrc.c).  Process
 * context; sv_icrc_init() always returns 0 (without a faster CRC the
 * library's serves).
 */
int sv_icrc_init(void);
void sv_icrc_exit(void);

int sv_icrc_calc(const void *l3, size_t len, u32 *icrc);
bool sv_icrc_verify(const void *l3, size_t len);
int sv_icrc_set(void *l3, size_t len);

/*
 * The same on an sk_buff, linear or paged (frags, frag_list): the packet
 * starts @l3_off bytes from skb->data.  @l3_off may be negative when the
 * IP and UDP headers were already pulled (UDP encap receive): those bytes
 * must then lie in the linear headroom.
 */
int sv_icrc_calc_skb(struct sk_buff *skb, int l3_off, unsigned int len,
		     u32 *icrc);
/* a FLUSH passes with either form (sv_icrc.c) */
bool sv_icrc_verify_skb(struct sk_buff *skb, int l3_off, unsigned int len);

enum sv_icrc_form {
	SV_ICRC_SPEC,	/* IBTA Annex A17.3.3 */
	SV_ICRC_RXE,	/* a FLUSH as Soft-RoCE computes it (sv_icrc.c) */
};

int sv_icrc_set_skb(struct sk_buff *skb, int l3_off, unsigned int len,
		    enum sv_icrc_form form);

/* RoCE v1: @grh_off, @len as @l3_off, @len above, from the GRH */
int sv_icrc_v1_calc(const void *grh, size_t len, u32 *icrc);
bool sv_icrc_v1_verify_skb(struct sk_buff *skb, int grh_off, unsigned int len);
int sv_icrc_v1_set_skb(struct sk_buff *skb, int grh_off, unsigned int len);

#endif /* SV_ICRC_H */
