/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCE transport engine: how its roles meet.
 *
 *   sv_net.c   the wire: building and sending skbs (IP/UDP/ICRC for
 *              RoCEv2, Ethernet/GRH/ICRC for RoCE v1), the UDP encap
 *              receive hook and the ethertype 0x8915 packet handler
 *   sv_recv.c  receive dispatch: validation (ICRC, sv_hdr_parse), QP lookup
 *              (unicast and multicast), hand-off to responder or completer
 *   sv_req.c   requester: turns send WQEs into request packets; segments,
 *              PSNs, retransmission and RNR timers
 *   sv_comp.c  completer: ACKs, NAKs, read and atomic responses; retires
 *              send WQEs into the send CQ
 *   sv_resp.c  responder: executes incoming requests (RC, UC, UD, GSI);
 *              receive WQEs, RDMA write/read, atomics, ACK/NAK generation,
 *              duplicate handling from the responder resources
 *
 * Received packets are processed to completion in the receive softirq:
 * the handlers below copy what they need and never keep the skb.
 */
#ifndef SV_XPORT_H
#define SV_XPORT_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "sv_hdr.h"

struct sv_dev;
struct sv_qp;
struct sv_path;

/**
 * struct sv_rx_pkt - one received, validated RoCE packet
 * @p:		the transport headers as sv_hdr_parse() found them; p.hdr
 *		points into the (linear) skb data, at the BTH
 * @skb:	the packet; its network header is the IPv4/IPv6 header, or
 *		for RoCE v1 the GRH (laid out as an IPv6 header)
 * @sv:		the device it arrived on
 * @network_type: RDMA_NETWORK_IPV4, RDMA_NETWORK_IPV6 or (RoCE v1, IBTA
 *		Annex A16) RDMA_NETWORK_ROCE_V1
 * @sgid:	source IP address as a GID (IPv4-mapped for IPv4); v1: SGID
 * @dgid:	destination IP address as a GID; v1: DGID
 * @traffic_class: IPv4 TOS / IPv6 traffic class / GRH TClass
 * @hop_limit:	IPv4 TTL / IPv6 hop limit / GRH HopLmt
 * @flow_label:	IPv6 or GRH flow label (0 for IPv4)
 * @smac:	source MAC, for init_ah_from_wc (zero if unknown)
 *
 * When a handler runs, the dispatcher has checked the ICRC, the headers
 * (sv_hdr_parse), the P_Key (default partition only, IBTA Annex A16.4.3)
 * and that the opcode belongs to the destination QP's transport (RC, UC
 * or UD; a GSI QP is UD).  QP state, PSN, Q_Key and everything else are
 * the handler's to check.
 */
struct sv_rx_pkt {
	struct sv_pkt_info	p;
	struct sk_buff		*skb;
	struct sv_dev		*sv;
	u8			network_type;
	u8			traffic_class;
	u8			hop_limit;
	u32			flow_label;
	union ib_gid		sgid;
	union ib_gid		dgid;
	u8			smac[ETH_ALEN];
};

/* sv_net.c: transmit */

/*
 * Allocate an skb for one packet of @ib_len bytes (BTH through ICRC) on
 * @path: headroom for the link, IP and UDP headers (or the GRH) is reserved, @ib_len
 * bytes are put, and skb->data points at the BTH for the caller to fill.
 * Any context (@gfp).  NULL on allocation failure.
 */
struct sk_buff *sv_net_alloc_skb(struct sv_dev *sv, const struct sv_path *path,
				 unsigned int ib_len, gfp_t gfp);

/*
 * Send a packet built in an skb from sv_net_alloc_skb(): push UDP (source
 * port @sport, destination 4791) and IP from @path, compute the ICRC and
 * hand it to the IP stack in the device's namespace; for a RoCE v1 path
 * (RDMA_NETWORK_ROCE_V1) push the GRH, compute the ICRC, add the Ethernet
 * header and queue it on the source GID's netdev (@sport unused).  Always consumes
 * @skb.  Returns 0, or a negative errno when the packet was dropped (no
 * route, netdev down): for RC the retransmission timer covers that like
 * any loss.  Any context; call under rcu_read_lock() if @path is RCU
 * protected (qp->path, sv_ah_path_rcu()).
 */
int sv_net_xmit(struct sv_dev *sv, const struct sv_path *path, u16 sport,
		struct sk_buff *skb);

/*
 * sv_recv.c: the UDP encap receive hook hands every packet here, and so
 * does sv_net.c's loopback while fault injection is active; softverbs'
 * other local packets come to sv_recv_local(), which neither checks an
 * ICRC nor offers them to fault injection.  Softirq, under RCU, skb->data
 * at the UDP header; both consume @skb.
 */
void sv_recv(struct sv_dev *sv, struct sk_buff *skb);
void sv_recv_local(struct sv_dev *sv, struct sk_buff *skb);
/*
 * The same for RoCE v1 frames (the ethertype 0x8915 handler, the
 * loopback), skb->data at the GRH, the Ethernet header pulled.
 */
void sv_recv_v1(struct sv_dev *sv, struct sk_buff *skb);
void sv_recv_v1_local(struct sv_dev *sv, struct sk_buff *skb);

/*
 * sv_req.c / sv_comp.c / sv_resp.c: per-QP life cycle hooks, called by
 * sv_qp.c.  init: at create (process context, may fail with -ENOMEM).
 * reset: the QP went to RESET (modify_qp; process context, no QP lock
 * held): forget all transport state, stop timers.  cleanup: destroy_qp,
 * after the last reference is gone (process context): free everything,
 * timers and work items are synced.
 */
int sv_req_init(struct sv_qp *qp);
void sv_req_reset(struct sv_qp *qp);
void sv_req_cleanup(struct sv_qp *qp);
int sv_resp_init(struct sv_qp *qp);
void sv_resp_reset(struct sv_qp *qp);
void sv_resp_cleanup(struct sv_qp *qp);

/*
 * sv_qp.c's flush (the QP is in ERR), before it flushes the RQ: the
 * responder completes the receive WQE it holds (taken from the RQ or the
 * SRQ for a message in progress) with IB_WC_WR_FLUSH_ERR, so that every
 * WQE completes exactly once and in order.  Any context, no QP lock held.
 */
void sv_resp_flush(struct sv_qp *qp);

/*
 * Packet handlers, softirq (or process context with bottom halves off),
 * under rcu_read_lock(), with a reference on @qp held by the caller, which
 * frees the skb when the handler returns.
 *
 * sv_resp_rcv: a request packet (RC/UC request opcodes, UD sends) for @qp.
 * sv_comp_rcv: a response packet (RC ACK, RDMA READ response, atomic
 * ACK) for @qp.
 */
void sv_resp_rcv(struct sv_qp *qp, struct sv_rx_pkt *pkt);
void sv_comp_rcv(struct sv_qp *qp, struct sv_rx_pkt *pkt);

#endif /* SV_XPORT_H */
