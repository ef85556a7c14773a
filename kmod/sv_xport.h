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
 *   sv_resp.c  responder: accepts incoming requests (RC, UC, UD, GSI);
 *              receive WQEs, SEND and RDMA WRITE, ACK/NAK generation
 *   sv_resp_res.c  the responder's resources: RDMA READ, atomics, FLUSH,
 *              ATOMIC WRITE, duplicates of them, the read response work item
 *
 * This header is the contract between the roles and the wire: received
 * packets, sending, the roles' life cycle hooks (for sv_qp.c) and their
 * calls into each other.  What the roles call of the objects is in
 * sv_xport_obj.h, which this header includes; an object file that only
 * serves the transport includes that one and sees no wire header.
 *
 * Received packets are processed to completion in the receive softirq:
 * the handlers below copy what they need and never keep the skb.
 */
#ifndef SV_XPORT_H
#define SV_XPORT_H

#include <linux/llist.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "sv.h"
#include "sv_hdr.h"
#include "sv_xport_obj.h"

/**
 * struct sv_net_addr - what a RoCE packet's IP header or GRH says
 * @network_type: RDMA_NETWORK_IPV4, RDMA_NETWORK_IPV6 or (RoCE v1, IBTA
 *		Annex A16) RDMA_NETWORK_ROCE_V1
 * @traffic_class: IPv4 TOS / IPv6 traffic class / GRH TClass
 * @hop_limit:	IPv4 TTL / IPv6 hop limit / GRH HopLmt
 * @flow_label:	IPv6 or GRH flow label (0 for IPv4)
 * @sgid:	source IP address as a GID (IPv4-mapped for IPv4); v1: SGID
 * @dgid:	destination IP address as a GID; v1: DGID
 */
struct sv_net_addr {
	u8			network_type;
	u8			traffic_class;
	u8			hop_limit;
	u32			flow_label;
	union ib_gid		sgid;
	union ib_gid		dgid;
};

/**
 * struct sv_rx_pkt - one received, validated RoCE packet
 * @p:		the transport headers as sv_hdr_parse() found them; p.hdr
 *		points into the (linear) skb data, at the BTH
 * @skb:	the packet; its network header is the IPv4/IPv6 header, or
 *		for RoCE v1 the GRH (laid out as an IPv6 header).  NULL for
 *		a local frame (RC, UC and XRC opcodes only, never UD's)
 * @sv:		the device it arrived on
 * @addr:	what its IP header or GRH says (struct sv_net_addr)
 * @smac:	source MAC, for init_ah_from_wc (zero if unknown)
 * @pay_mr:	NULL, or (a local frame's SEND, RDMA WRITE or READ response
 *		whose payload stayed in its sender's MR, struct
 *		sv_net_frame) that MR,
 *		held by the frame: the payload is there from @pay_iova, not
 *		after the headers.  Read it through sv_rx_pay() only.
 * @pay_iova:	where the payload starts in @pay_mr
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
	struct sv_net_addr	addr;
	u8			smac[ETH_ALEN];
	struct sv_mr		*pay_mr;
	u64			pay_iova;
};

/* where @pkt's payload is, for sv_mr_copy_in() */
static inline struct sv_pay sv_rx_pay(const struct sv_rx_pkt *pkt)
{
	if (pkt->pay_mr)
		return (struct sv_pay){ .mr = pkt->pay_mr,
					.iova = pkt->pay_iova };
	return (struct sv_pay){ .buf = sv_pkt_payload(&pkt->p) };
}

/*
 * A private copy of @pkt's IB part (BTH through ICRC at skb->data; a
 * payload by reference copied in) to keep beyond the handler (an ODP
 * fault's retry), or NULL without memory.  Any context.
 */
struct sk_buff *sv_recv_pkt_copy(const struct sv_rx_pkt *pkt);

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
 * True where skb heads may come from and go back to the stack's per-CPU
 * NAPI cache (napi_build_skb(), napi_consume_skb()): bottom halves off,
 * as the requester's and responder's runs have them, and not a hard
 * interrupt.  In loopback a packet is built and freed on the same CPU, so
 * its head goes round that cache instead of through the slab allocator,
 * which zeroes every object it hands out when init_on_alloc is on
 * (Debian's default).  Inline: asked twice per packet.
 */
static inline bool sv_net_napi_ctx(void)
{
	return in_softirq() && !in_hardirq();
}

/* sv_pktbuf.c: packet buffers on per-CPU rings of reused pages */

/*
 * Each ring's size, per CPU: with 4 KiB pages 64 single pages (128 MTU-1024
 * packets or about 600 small ones in flight), 32 double ones (32 MTU-4096
 * packets) or 16 of four pages (16 local bursts)
 */
#define SV_PKTBUF_RING_BYTES	(256 * 1024)
#define SV_PKTBUF_PAGES		(SV_PKTBUF_RING_BYTES / PAGE_SIZE)

/* pages in the ring of pages of @order */
static inline unsigned int sv_pktbuf_ring_pages(unsigned int order)
{
	return SV_PKTBUF_RING_BYTES >> (PAGE_SHIFT + order);
}

/*
 * A buffer of @size bytes (a cache-line multiple, skb_shared_info
 * included) for build_skb(), on a page of this CPU's ring for its size, or
 * NULL: larger than two pages, the ring's pages all in flight, no memory, or a
 * context (hard IRQ, interrupts off) the ring cannot be used from.  Free
 * the packet as any skb; skb_free_frag() if build_skb() failed.
 */
void *sv_pktbuf_alloc(unsigned int size);
/* the same where bottom halves are off already */
void *sv_pktbuf_alloc_bh(unsigned int size);
/* module exit, after the last packet was built: release the rings' pages */
void sv_pktbuf_exit(void);

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
/**
 * struct sv_net_pkt - a packet softverbs built, until it is delivered
 * @next:	its place in a responder's txq (struct sv_net_pktq)
 * @lnode:	or its place in the loopback queue (sv_net.c)
 * @frame:	a local frame (struct sv_net_frame), else an skb, in whose
 *		skb->cb this struct lives
 * @owner:	the builder's until the packet is sent (struct sv_resp_cb)
 */
struct sv_net_pkt {
	union {
		struct sv_net_pkt	*next;
		struct llist_node	lnode;
	};
	bool			frame;
	u8			owner[16] __aligned(4);
};

/**
 * struct sv_net_frame - a local frame (design.md, "Local frames")
 * @pkt:	what every packet has
 * @ndev:	the destination's netdev, held until delivered
 * @len:	the packet's bytes, BTH through ICRC (whose place holds zeros
 *		at @data), as though the payload were at @data
 * @npkts:	the packets it stands for: > 1 for a local burst
 * @addr:	what its IP header would have said
 * @ref_mr:	NULL: the payload is at @data.  Else a SEND, RDMA WRITE or
 *		READ response by reference: its payload stayed in this MR of
 *		the sender
 *		(a reference the frame owns) from @ref_iova, and @data holds
 *		only the headers
 * @ref_iova:	where that payload starts in @ref_mr
 * @data:	the IB headers and payload
 *
 * A RoCEv2 packet of a connected QP to a device of this host, with no
 * fault injection on either end, never leaves softverbs: it goes through
 * the loopback queue without an skb, UDP or IP header, on a buffer of the
 * packet rings (sv_pktbuf.c) or a page fragment.
 */
struct sv_net_frame {
	struct sv_net_pkt	pkt;
	struct net_device	*ndev;
	u32			len;
	u8			npkts;
	struct sv_net_addr	addr;
	struct sv_mr		*ref_mr;
	u64			ref_iova;
	u8			data[] __aligned(8);
};

/* how sv_net_pkt_alloc() may build a packet */
enum sv_net_pkt_how {
	/* a local frame where the path allows one (RC, UC, XRC; never UD) */
	SV_NET_PKT_FRAME	= BIT(0),
	/* a local frame or nothing: a local burst */
	SV_NET_PKT_FRAME_ONLY	= BIT(1),
};

/*
 * A packet of @ib_len bytes (BTH through ICRC) for @path: a local frame
 * as @how allows and the path leads to a device of this host with no
 * fault injection on either end, else an skb from sv_net_alloc_skb().
 * NULL without memory (or, with SV_NET_PKT_FRAME_ONLY, where a frame
 * cannot be).  @kept: the caller's last local destination (struct
 * sv_net_dest, under the caller's lock), used and updated; or NULL.  The
 * caller fills sv_net_pkt_data() and hands the packet to
 * sv_net_pkt_xmit() with the same @path, or to sv_net_pkt_drop().  Bottom
 * halves off, under RCU as for sv_net_xmit().
 */
struct sv_net_pkt *sv_net_pkt_alloc(struct sv_dev *sv,
				    const struct sv_path *path,
				    unsigned int ib_len, unsigned int how,
				    struct sv_net_dest *kept);
/*
 * A local frame of @ib_len bytes (BTH through ICRC) whose payload stays in
 * @mr from @iova (a SEND, RDMA WRITE or READ response by reference; @mr
 * of a kind sv_mr_can_ref() accepts): only @hdr_len bytes of headers are
 * at sv_net_pkt_data().  On success the frame owns the caller's reference
 * to @mr.  NULL where no frame can be (as SV_NET_PKT_FRAME_ONLY): the
 * caller keeps its reference.  Context as sv_net_pkt_alloc().
 */
struct sv_net_pkt *sv_net_pkt_alloc_ref(struct sv_dev *sv,
					const struct sv_path *path,
					unsigned int hdr_len,
					unsigned int ib_len, struct sv_mr *mr,
					u64 iova, struct sv_net_dest *kept);
u8 *sv_net_pkt_data(struct sv_net_pkt *pkt);
unsigned int sv_net_pkt_len(struct sv_net_pkt *pkt);
void sv_net_pkt_drop(struct sv_net_pkt *pkt);
/*
 * Send @pkt standing for @npkts packets (> 1: a local burst, only a
 * frame) as sv_net_xmit() sends an skb; a frame is queued for its device
 * and counted as sent, a burst also in tx_local_bursts, a payload by
 * reference in tx_local_by_ref.  Consumes @pkt.
 * Returns 0 or a negative errno (dropped: a loss).
 */
int sv_net_pkt_xmit(struct sv_dev *sv, const struct sv_path *path,
		    u16 sport, struct sv_net_pkt *pkt, u8 npkts);
/* free a delivered frame (its netdev reference is the queue's business) */
void sv_net_frame_free(struct sv_net_frame *f);

/* a list of packets, oldest first; the owner's lock protects it */
struct sv_net_pktq {
	struct sv_net_pkt	*head;
	struct sv_net_pkt	**tail;
	unsigned int		len;
};

static inline void sv_net_pktq_init(struct sv_net_pktq *q)
{
	q->head = NULL;
	q->tail = &q->head;
	q->len = 0;
}

static inline bool sv_net_pktq_empty(const struct sv_net_pktq *q)
{
	return !q->head;
}

static inline void sv_net_pktq_add(struct sv_net_pktq *q,
				   struct sv_net_pkt *pkt)
{
	pkt->next = NULL;
	*q->tail = pkt;
	q->tail = &pkt->next;
	q->len++;
}

static inline struct sv_net_pkt *sv_net_pktq_pop(struct sv_net_pktq *q)
{
	struct sv_net_pkt *pkt = q->head;

	if (pkt) {
		q->head = pkt->next;
		if (!q->head)
			q->tail = &q->head;
		q->len--;
	}
	return pkt;
}

static inline void sv_net_pktq_purge(struct sv_net_pktq *q)
{
	struct sv_net_pkt *pkt;

	while ((pkt = sv_net_pktq_pop(q)))
		sv_net_pkt_drop(pkt);
}

/*
 * A requester's batch of packets (sv_req.c), in process context with bottom
 * halves off since the batch began: hold queues this CPU's local packets
 * without scheduling the loopback tasklet, release delivers them here and
 * now, as that tasklet would have when the batch turned bottom halves on
 * again, without the softirq round.  Call release before bottom halves
 * go on; not from a context that had them off already (a caller holding
 * a _bh lock expects no delivery before it lets go).
 */
void sv_net_loop_hold(void);
void sv_net_loop_release(void);

/*
 * sv_recv.c: the UDP encap receive hook hands every packet here, and so
 * does sv_net.c's loopback while fault injection is active; softverbs'
 * other local packets come to sv_recv_local(), which neither checks an
 * ICRC nor offers them to fault injection.  Softirq, under RCU, skb->data
 * at the UDP header; both consume @skb.  Local frames come to
 * sv_recv_frame(), which frees @f (not its netdev reference).
 */
void sv_recv(struct sv_dev *sv, struct sk_buff *skb);
void sv_recv_local(struct sv_dev *sv, struct sk_buff *skb);
void sv_recv_frame(struct sv_dev *sv, struct sv_net_frame *f);
/*
 * The same for RoCE v1 frames (the ethertype 0x8915 handler, the
 * loopback), skb->data at the GRH, the Ethernet header pulled.
 */
void sv_recv_v1(struct sv_dev *sv, struct sk_buff *skb);
void sv_recv_v1_local(struct sv_dev *sv, struct sk_buff *skb);

/*
 * sv_req.c / sv_comp.c / sv_resp.c: per-QP life cycle hooks, called by
 * sv_qp.c.  init: at create (process context, may fail with -ENOMEM).
 * alloc / res_reserve: what a state needs that an idle QP does without,
 * by modify_qp before it enters the state (process context, under
 * modify_mutex; -ENOMEM fails the modify): the requester's WQE copies
 * before the first RTS, the responder resources for max_dest_rd_atomic.
 * reset: the QP went to RESET (modify_qp; process context, no QP lock
 * held): forget all transport state, stop timers.  cleanup: destroy_qp,
 * after the last reference is gone (process context): free everything,
 * timers and work items are synced.
 */
int sv_req_init(struct sv_qp *qp);
int sv_req_alloc(struct sv_qp *qp);
void sv_req_reset(struct sv_qp *qp);
void sv_req_cleanup(struct sv_qp *qp);
/*
 * destroy_qp before RESET, destroy_ah: let the UD/UC sends already rung
 * in go out, until @deadline (jiffies) at most
 */
void sv_req_linger(struct sv_qp *qp, unsigned long deadline);
/*
 * A PD's UD and GSI QPs, which the requester lists for destroy_ah
 * (process context): sv_req_ud_add() at create_qp before the QP is
 * published, sv_req_ud_del() first thing in destroy_qp (or create's
 * unwind); sv_req_ah_linger(), before an AH of @ibpd goes, lets the sends
 * rung in on them go out (sv_req_linger()), within one time bound.
 */
void sv_req_ud_add(struct sv_qp *qp);
void sv_req_ud_del(struct sv_qp *qp);
void sv_req_ah_linger(struct ib_pd *ibpd);
int sv_resp_init(struct sv_qp *qp, const struct ib_qp_init_attr *init);
int sv_resp_res_reserve(struct sv_qp *qp, u32 max_dest_rd_atomic);
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

/* sv_req.c: the requester's work queue (the completer's task uses it too) */
int sv_req_wq_create(void);
void sv_req_wq_destroy(void);
/* make the requester run (inline when it can, else in work); any context */
void sv_req_sched(struct sv_qp *qp);

/*
 * sv_comp.c: the one owner of retiring.  Retire what the QP's state says
 * may go: finished send WQEs into the send CQ in ring order; in SQE and
 * ERR every send WQE, finished or not (flush with error, IBTA 10.8.3); in
 * ERR the receive side too (sv_qp_rq_flush_err()).  Any context, bounded
 * work per call; call it after changing the state or producing WQEs.
 */
void sv_comp_retire(struct sv_qp *qp);

/*
 * The fault of [@iova, @iova + @len) of @mr that the role asked for, and
 * its retry: under the fault's lock (sv_mr_odp_fault_use()) when the fault
 * worked, so that the access that missed cannot miss there again; after a
 * failed one the retried access reports the error.  sv_odp.c's work item.
 */
void sv_req_odp_fault(struct sv_qp *qp, struct sv_mr *mr, u64 iova, u64 len,
		      bool write);
void sv_resp_odp_fault(struct sv_qp *qp, struct sv_mr *mr, u64 iova, u64 len,
		       bool write);

#endif /* SV_XPORT_H */
