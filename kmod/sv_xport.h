/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 transport engine: how its roles meet.
 *
 *   sv_net.c   the wire: building and sending skbs (IP/UDP/ICRC), the UDP
 *              encap receive hook
 *   sv_recv.c  receive dispatch: validation (ICRC, sv_hdr_parse), QP lookup
 *              (unicast and multicast), hand-off to responder or completer
 *   sv_req.c   requester: turns send WQEs into request packets; segments,
 *              PSNs, retransmission and RNR timers
 *   sv_comp.c  completer: ACKs, NAKs, read and atomic responses; retires
 *              send WQEs into the send CQ
 *   sv_resp.c  responder: accepts incoming requests (RC, UC, UD, GSI);
 *              receive WQEs, SEND and RDMA WRITE, ACK/NAK generation
 *   sv_resp_res.c  the responder's resources: RDMA READ, atomics, FLUSH,
 *              ATOMIC WRITE, duplicates of them, the read response work item
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
struct sv_recv_wqe;

/**
 * struct sv_rx_pkt - one received, validated RoCEv2 packet
 * @p:		the transport headers as sv_hdr_parse() found them; p.hdr
 *		points into the (linear) skb data, at the BTH
 * @skb:	the packet; its network header is the IPv4/IPv6 header
 * @sv:		the device it arrived on
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @sgid:	source IP address as a GID (IPv4-mapped for IPv4)
 * @dgid:	destination IP address as a GID
 * @traffic_class: IPv4 TOS / IPv6 traffic class
 * @hop_limit:	IPv4 TTL / IPv6 hop limit
 * @flow_label:	IPv6 flow label (0 for IPv4)
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
 * @path: headroom for the link, IP and UDP headers is reserved, @ib_len
 * bytes are put, and skb->data points at the BTH for the caller to fill.
 * Any context (@gfp).  NULL on allocation failure.
 */
struct sk_buff *sv_net_alloc_skb(struct sv_dev *sv, const struct sv_path *path,
				 unsigned int ib_len, gfp_t gfp);

/*
 * Send a packet built in an skb from sv_net_alloc_skb(): push UDP (source
 * port @sport, destination 4791) and IP from @path, compute the ICRC and
 * hand it to the IP stack in the device's namespace.  Always consumes
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
 * The completer's flush with error (the QP is in ERR), from
 * sv_qp_rq_flush_err() before the RQ: the responder completes the receive
 * WQE it holds (taken from the RQ or the SRQ for a message in progress)
 * with IB_WC_WR_FLUSH_ERR, so that every WQE completes exactly once and in
 * order.  Process or softirq context with interrupts on (the completer's
 * retire task), no QP lock held.
 */
void sv_resp_flush_err(struct sv_qp *qp);

/*
 * sv_resp.c, for its own RQ and for sv_srq_pop(): check a private copy of
 * a receive WQE (from an SRQ or a QP's RQ) against @max_sge and rebuild
 * dma.length/resid/cur_sge/sge_offset from its SGEs alone, so nothing but
 * wr_id and the SGEs comes from user space.  -EINVAL if num_sge is too
 * large.  Any context.
 */
int sv_resp_wqe_check(struct sv_recv_wqe *wqe, u32 max_sge);

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
