// SPDX-License-Identifier: GPL-2.0
/*
 * Receive dispatch: every RoCEv2 and RoCE v1 packet of a device is checked
 * here (length, ICRC, headers, P_Key, QP, peer) before it goes to the
 * responder or the completer.
 *
 * Documentation/design.md, "Transport" (receive checks).
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <rdma/ib_addr.h>

#include "sv.h"
#include "sv_icrc.h"
#include "sv_xport.h"

/* how a packet reached sv_recv_skb() */
enum sv_recv_how {
	SV_RECV_ICRC	= BIT(0),	/* check its ICRC: it crossed a wire */
	SV_RECV_V1	= BIT(1),	/* RoCE v1: skb->data at the GRH */
};

/* Fill the addresses of @pkt from the IP header or GRH (@v1) of its skb. */
static void sv_recv_addrs(struct sv_rx_pkt *pkt, bool v1)
{
	struct sv_net_addr *a = &pkt->addr;
	struct sk_buff *skb = pkt->skb;

	if (v1) {
		const u8 *grh = skb_network_header(skb);
		u32 vtf = sv_get_be32(grh);

		/* what ib_core calls a RoCE v1 packet's network header */
		a->network_type = RDMA_NETWORK_ROCE_V1;
		memcpy(a->sgid.raw, grh + SV_GRH_SGID, sizeof(a->sgid.raw));
		memcpy(a->dgid.raw, grh + SV_GRH_DGID, sizeof(a->dgid.raw));
		a->traffic_class = (vtf >> 20) & 0xff;
		a->hop_limit = grh[SV_GRH_HOPLMT];
		a->flow_label = vtf & 0xfffff;
	} else if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		a->network_type = RDMA_NETWORK_IPV4;
		ipv6_addr_set_v4mapped(iph->saddr,
				       (struct in6_addr *)a->sgid.raw);
		ipv6_addr_set_v4mapped(iph->daddr,
				       (struct in6_addr *)a->dgid.raw);
		a->traffic_class = iph->tos;
		a->hop_limit = iph->ttl;
		a->flow_label = 0;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		a->network_type = RDMA_NETWORK_IPV6;
		memcpy(a->sgid.raw, &ip6h->saddr, sizeof(a->sgid.raw));
		memcpy(a->dgid.raw, &ip6h->daddr, sizeof(a->dgid.raw));
		a->traffic_class = ip6_tclass(ip6_flowinfo(ip6h));
		a->hop_limit = ip6h->hop_limit;
		a->flow_label = be32_to_cpu(ip6_flowlabel(ip6h));
	}
	/* an L3 netdev's packets have no link header (a tunnel's may be the outer one) */
	if (!pkt->sv->l3 && skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN)
		ether_addr_copy(pkt->smac, eth_hdr(skb)->h_source);
	else
		eth_zero_addr(pkt->smac);
}

/*
 * A connected QP takes packets from its peer only: the packet's source and
 * destination addresses must be its path's destination and source GIDs
 * (IBTA A17.4.5: RoCEv2 GIDs are the IP addresses).  QPNs are predictable,
 * any local user reads PSNs with "rdma resource show qp", and the ICRC is
 * a CRC, not a signature: without this check anyone reaching UDP 4791
 * could complete a WR with a forged ACK, place data with a forged READ
 * response or break the connection with a forged NAK.  A host on the same
 * L2 that spoofs the peer's address is beyond what an unauthenticated
 * protocol can stop (Documentation/design.md).  Under RCU.
 */
static bool sv_recv_from_peer(struct sv_qp *qp, const struct sv_rx_pkt *pkt)
{
	const struct sv_path *path;

	if (!sv_qp_connected(qp))
		return true;
	path = rcu_dereference(qp->path);
	/* a v1 path's peer sends v1 frames, a v2 path's UDP (Annex A16/17) */
	return path && (path->network_type == RDMA_NETWORK_ROCE_V1) ==
		       (pkt->addr.network_type == RDMA_NETWORK_ROCE_V1) &&
	       !memcmp(pkt->addr.sgid.raw, path->dgid.raw,
			       sizeof(path->dgid.raw)) &&
	       !memcmp(pkt->addr.dgid.raw, path->sgid.raw, sizeof(path->sgid.raw));
}

/* Hand @pkt to @qp's responder or completer, if its transport fits. */
static bool sv_recv_deliver(struct sv_qp *qp, struct sv_rx_pkt *pkt)
{
	const struct sv_opcode_info *info = pkt->p.info;

	if (!sv_opcode_qp_ok(info, qp->ibqp.qp_type))
		return false;
	if (info->flags & SV_OP_REQ)
		sv_resp_rcv(qp, pkt);
	else
		sv_comp_rcv(qp, pkt);
	return true;
}

static bool sv_recv_mcast(struct sv_dev *sv, struct sv_rx_pkt *pkt)
{
	struct sv_qp *qps[SV_MAX_MCAST_QP_ATTACH];
	unsigned int i, n;
	bool any = false;

	/* only UD sends may go to a group (IBTA 10.5.1.1) */
	if (pkt->p.info->qp_type != IB_QPT_UD)
		return false;
	n = sv_mcast_get_qps(sv, &pkt->addr.dgid, qps, ARRAY_SIZE(qps));
	for (i = 0; i < n; i++) {
		any |= sv_recv_deliver(qps[i], pkt);
		sv_qp_put(qps[i]);
	}
	return any;
}

/*
 * RoCE v1, skb->data at the GRH: check it (step 1), cut off what follows
 * the packet (an Ethernet frame is at least 60 bytes) and leave skb->data
 * at the BTH, the network header at the GRH.
 */
static bool sv_recv_v1_grh(struct sk_buff *skb)
{
	struct sv_grh_info grh;

	/* as long as the longest RoCEv2 datagram, a GRH for IP and UDP */
	if (unlikely(skb->len > SV_GRH_BYTES + SV_ROCE_MAX_UDP_LEN -
				SV_UDP_HDR_LEN || skb_linearize(skb)))
		return false;
	if (sv_hdr_parse_grh(skb->data, skb->len, &grh))
		return false;
	if (pskb_trim(skb, SV_GRH_BYTES + grh.paylen))
		return false;
	skb_reset_network_header(skb);
	__skb_pull(skb, SV_GRH_BYTES);
	return true;
}

/* what became of a packet whose headers parsed */
enum sv_recv_fate {
	SV_RECV_DONE,		/* delivered, or a CNP (counted) */
	SV_RECV_INVALID,	/* not for any QP here: counted as invalid */
	SV_RECV_DROPPED,	/* dropped and counted */
};

/*
 * After the headers of @pkt parsed (pkt->p): the partition, the QP (or
 * group), the peer, the hand-off.  pkt->skb, ->sv and the addresses set.
 * Under RCU.
 */
static enum sv_recv_fate sv_recv_pkt(struct sv_dev *sv, struct sv_rx_pkt *pkt)
{
	struct sv_qp *qp;
	bool ok;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "receive without RCU");

	/* full or limited member of the default partition */
	if (unlikely((pkt->p.pkey & 0x7fff) != (SV_DEFAULT_PKEY & 0x7fff)))
		return SV_RECV_INVALID;
	if (unlikely(pkt->p.info->flags & SV_OP_CNP_PKT))
		return SV_RECV_DONE;

	if (pkt->p.qpn == SV_QPN_MULTICAST &&
	    rdma_is_multicast_addr((struct in6_addr *)pkt->addr.dgid.raw)) {
		ok = sv_recv_mcast(sv, pkt);
	} else {
		qp = sv_qp_get_by_qpn_rcu(sv, pkt->p.qpn);
		if (qp && unlikely(!sv_recv_from_peer(qp, pkt))) {
			sv_qp_put(qp);
			sv_stat_inc(sv, SV_STAT_RX_DROP_NOT_PEER);
			return SV_RECV_DROPPED;
		}
		ok = qp && sv_recv_deliver(qp, pkt);
		if (qp)
			sv_qp_put(qp);
	}
	if (!ok) {
		sv_stat_inc(sv, SV_STAT_RX_DROP_NO_QP);
		return SV_RECV_DROPPED;
	}
	/* a local burst counts as the packets it stands for */
	sv_stat_add(sv, SV_STAT_RX_PKTS, pkt->p.npkts);
	if (pkt->addr.network_type == RDMA_NETWORK_ROCE_V1)
		sv_stat_inc(sv, SV_STAT_RX_V1_PKTS);
	sv_stat_add(sv, SV_STAT_RX_BYTES, pkt->p.len);
	return SV_RECV_DONE;
}

static void sv_recv_skb(struct sv_dev *sv, struct sk_buff *skb,
			unsigned int how)
{
	bool v1 = how & SV_RECV_V1;
	enum sv_recv_fate fate;
	struct sv_rx_pkt pkt;
	int l3_off;

	if (v1) {
		if (unlikely(!sv_recv_v1_grh(skb)))
			goto drop_invalid;
	} else {
		/*
		 * Longer than any RoCE packet can be: refused before it is
		 * made linear or CRCed (a fragmented 64 KiB datagram would
		 * cost an order-4 atomic allocation, a copy and a CRC each).
		 */
		if (unlikely(skb->len > SV_ROCE_MAX_UDP_LEN ||
			     skb->len < sizeof(struct udphdr) ||
			     skb_linearize(skb)))
			goto drop_invalid;
		__skb_pull(skb, sizeof(struct udphdr));
	}

	/* from the IP header or GRH, which lies in front of skb->data */
	l3_off = skb_network_offset(skb);
	if ((how & SV_RECV_ICRC) &&
	    unlikely(v1 ? !sv_icrc_v1_verify_skb(skb, l3_off,
						  skb->len - l3_off) :
			  !sv_icrc_verify_skb(skb, l3_off, skb->len - l3_off))) {
		sv_stat_inc(sv, SV_STAT_RX_DROP_ICRC);
		goto drop;
	}
	if (unlikely(sv_hdr_parse(skb->data, skb->len, &pkt.p)))
		goto drop_invalid;

	pkt.skb = skb;
	pkt.sv = sv;
	pkt.pay_mr = NULL;
	sv_recv_addrs(&pkt, v1);
	/* the encap hook and the loopback hold RCU, fault injection may not */
	rcu_read_lock();
	fate = sv_recv_pkt(sv, &pkt);
	rcu_read_unlock();
	switch (fate) {
	case SV_RECV_DONE:
		break;
	case SV_RECV_INVALID:
		goto drop_invalid;
	default:
		goto drop;
	}
	/* into the per-CPU head cache the next packet is built on */
	if (sv_net_napi_ctx())
		napi_consume_skb(skb, 1);
	else
		consume_skb(skb);
	return;

drop_invalid:
	sv_stat_inc(sv, SV_STAT_RX_DROP_INVALID);
drop:
	kfree_skb(skb);
}

/* the packets whose payload may stay in the sender's MR */
static bool sv_recv_by_ref_ok(u32 flags)
{
	if (flags & SV_OP_REQ)
		return flags & (SV_OP_SEND | SV_OP_WRITE);
	return flags & SV_OP_READ_RESP;
}

/*
 * A local frame: made by a requester or responder of this host for a
 * connected QP's path, so nothing in it came from a wire; its headers are
 * checked all the same, a burst against the packets it stands for
 * (sv_hdr_parse_local()).  Never a UD packet: a UD receiver puts the IP
 * header into the GRH area, which a frame does not have.  A payload by
 * reference (f->ref_mr) only on a SEND or RDMA WRITE request or an RDMA
 * READ response: the handlers that place those read it through
 * sv_rx_pay().  Under RCU (the loopback's drain).
 */
void sv_recv_frame(struct sv_dev *sv, struct sv_net_frame *f)
{
	/* every field is set before the handlers run: no zeroing per frame */
	struct sv_rx_pkt pkt __uninitialized;

	if (unlikely(sv_hdr_parse_local(f->data, f->len, f->npkts, &pkt.p) ||
		     pkt.p.info->qp_type == IB_QPT_UD))
		goto drop_invalid;
	if (f->ref_mr && unlikely(!sv_recv_by_ref_ok(pkt.p.info->flags)))
		goto drop_invalid;
	pkt.skb = NULL;
	pkt.sv = sv;
	pkt.pay_mr = f->ref_mr;
	pkt.pay_iova = f->ref_iova;
	pkt.addr = f->addr;
	eth_zero_addr(pkt.smac);
	if (sv_recv_pkt(sv, &pkt) == SV_RECV_INVALID)
		sv_stat_inc(sv, SV_STAT_RX_DROP_INVALID);
	sv_net_frame_free(f);
	return;

drop_invalid:
	sv_stat_inc(sv, SV_STAT_RX_DROP_INVALID);
	sv_net_frame_free(f);
}

struct sk_buff *sv_recv_pkt_copy(const struct sv_rx_pkt *pkt)
{
	const struct sv_pkt_info *p = &pkt->p;
	unsigned int hdr_len = p->info->hdr_len;
	struct sk_buff *skb;

	if (pkt->skb)
		return skb_copy(pkt->skb, GFP_ATOMIC);
	/* a frame: p.hdr is at its BTH, p.len through the ICRC */
	skb = alloc_skb(p->len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (!pkt->pay_mr) {
		skb_put_data(skb, p->hdr, p->len);
		return skb;
	}
	/* by reference: the payload from the sender's MR, zeros after it */
	skb_put_data(skb, p->hdr, hdr_len);
	if (sv_mr_copy(pkt->pay_mr, pkt->pay_iova, skb_put(skb, p->paylen),
		       p->paylen, SV_COPY_FROM_MR)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_put_zero(skb, p->len - hdr_len - p->paylen);
	return skb;
}

void sv_recv(struct sv_dev *sv, struct sk_buff *skb)
{
	/* --- fault injection (sv_fault.c): it may take the packet --- */
	if (sv_fault_active(sv, SV_FAULT_RX) && sv_fault_rx(sv, skb, sv_recv))
		return;
	/* --- end fault injection --- */
	sv_recv_skb(sv, skb, SV_RECV_ICRC);
}

void sv_recv_local(struct sv_dev *sv, struct sk_buff *skb)
{
	sv_recv_skb(sv, skb, 0);
}

void sv_recv_v1(struct sv_dev *sv, struct sk_buff *skb)
{
	/* --- fault injection (sv_fault.c): it may take the packet --- */
	if (sv_fault_active(sv, SV_FAULT_RX) &&
	    sv_fault_rx(sv, skb, sv_recv_v1))
		return;
	/* --- end fault injection --- */
	sv_recv_skb(sv, skb, SV_RECV_ICRC | SV_RECV_V1);
}

void sv_recv_v1_local(struct sv_dev *sv, struct sk_buff *skb)
{
	sv_recv_skb(sv, skb, SV_RECV_V1);
}
