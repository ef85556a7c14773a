// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: executes incoming requests for RC (IBTA 9.7), UC (9.8)
 * and UD/GSI QPs (9.9, 10.2.5): receive WQEs, RDMA WRITE, RDMA READ
 * responses, atomics, ACK/NAK generation and duplicate handling.
 *
 * Packets are handled to completion in the receive softirq under the
 * per-QP responder lock (struct sv_qp, resp.lock).  Everything the lock
 * holder decides is collected in a struct sv_resp_out: packets to send,
 * a completion to post, events.  The packets are sent before the lock is
 * dropped (sv_resp_xmit()): packets of one QP may be handled on several
 * CPUs, and an ACK overtaking the read responses before it would make
 * the requester retry the read (IBTA 9.7.5.1.1).  Sending never calls
 * back into the receive path synchronously (bottom halves are off).
 * sv_resp_finish() then posts the completion and reports events with no
 * lock held.
 *
 * No MR reference survives a packet: every payload is placed through a
 * fresh sv_mr_lookup(), so deregistration never waits for a stalled peer.
 *
 * FLUSH and ATOMIC WRITE (IBTA 1.5 Memory Placement Extensions; FLUSH
 * where ib_core has it, compat.h SV_MPE) are answered like them (below).
 *
 * RDMA READ, atomic, FLUSH and ATOMIC WRITE requests take a responder
 * resource (struct sv_resp_res).  Their responses go out in request order: the softirq
 * sends up to SV_RESP_INLINE_PKTS packets itself and hands longer reads to
 * a work item, which sends in batches of SV_RESP_BATCH_PKTS.  While the
 * work item owns the sending (resp.serving), later SENDs and WRITEs are
 * executed at once but their ACK is deferred behind the responses
 * (resp.ack_pending): an ACK would otherwise tell the requester that the
 * read before it got no response (IBTA 9.7.5.1.1, implied NAK).  A later
 * RDMA WRITE may therefore be placed before an earlier RDMA READ's data is
 * read: a requester that needs the read's data first uses the fence.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_mad.h>

#include "sv.h"
#include "sv_psn.h"
#include "sv_rnr.h"
#include "sv_xport.h"

/* packets of read responses the softirq sends before it hands over */
#define SV_RESP_INLINE_PKTS	16
/* packets the work item builds per lock hold */
#define SV_RESP_BATCH_PKTS	16

enum sv_res_type {
	SV_RES_READ,
	SV_RES_ATOMIC,
	SV_RES_FLUSH,
	SV_RES_ATOMIC_WRITE,
};

/* One responder resource: an RDMA READ or atomic request (IBTA 9.7.5.1.4). */
struct sv_resp_res {
	u8		type;		/* enum sv_res_type */
	bool		pending;	/* response (still) to be sent */
	bool		executed;	/* atomic: done, orig is valid */
	bool		cmp_swap;	/* atomic: compare & swap (else add) */
	u32		first_psn;	/* request PSN */
	u32		last_psn;	/* last response PSN */
	u32		msn;		/* MSN of its responses */
	u32		rkey;
	u64		va;
	u32		length;		/* read: DMA length */
	u32		mtu;		/* read: segment size it started with */
	/* read: where sending continues; start_psn: its First packet */
	u32		start_psn;
	u32		cur_psn;
	u32		cur_off;
	u64		swap_add;
	u64		compare;
	u64		orig;		/* atomic: original value returned */
	u64		value;		/* atomic write: the 8 bytes, as sent */
};

/* What a lock holder decided; done by sv_resp_finish() after unlock. */
struct sv_resp_out {
	const struct sv_path	*path;	/* RCU: for the packets in txq */
	struct sk_buff_head	txq;
	struct ib_wc		wc;
	bool			post_wc;
	bool			solicited;
	bool			comm_est;
	bool			kick;	/* queue the work item */
	bool			qp_error;
	enum ib_event_type	event;	/* with qp_error; 0 = none */
};

/*
 * In skb->cb of a response built from a resource, until it is handed to
 * sv_net_xmit(): where the resource's cursor stood before the packet, so
 * that the work item can send it again when the way out was full.
 */
struct sv_resp_cb {
	u32		seq;		/* resource sequence number */
	u32		cur_psn;
	u32		cur_off;
	bool		from_res;
};

static struct sv_resp_cb *sv_resp_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sv_resp_cb) > sizeof(skb->cb));
	return (struct sv_resp_cb *)skb->cb;
}

/* Outcomes of executing a request, and what each means on the wire. */
enum sv_resp_err {
	SV_RESP_OK,
	SV_RESP_RNR,		/* no receive WQE */
	SV_RESP_INV_REQ,	/* invalid request (sequence, length, op) */
	SV_RESP_REM_ACCESS,	/* R_Key/range/rights violation */
	SV_RESP_LOC_LEN,	/* receive WQE too small */
	SV_RESP_LOC_PROT,	/* receive SGE lkey violation */
	SV_RESP_LOC_QP_OP,	/* malformed receive WQE */
};

static struct sv_dev *sv_resp_dev(struct sv_qp *qp)
{
	return to_sv_dev(qp->ibqp.device);
}

/* Requests are accepted from RTR on, and not in ERR (IBTA 10.3.1). */
static bool sv_resp_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

static size_t sv_resp_wqe_size(void)
{
	return sv_srq_wqe_size(max_t(u32, SV_MAX_QP_SGE, SV_MAX_SRQ_SGE));
}

/* the next PSN expected; query_qp reads it without the responder lock */
static void sv_resp_set_psn(struct sv_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->resp.lock);
	WRITE_ONCE(qp->resp.psn, psn);
}

static void sv_resp_out_init(struct sv_resp_out *out)
{
	memset(out, 0, sizeof(*out));
	__skb_queue_head_init(&out->txq);
}

/* --- packets ----------------------------------------------------------- */

/*
 * An skb for a response of @opcode with @paylen payload bytes, BTH built,
 * pad zeroed; NULL if there is no path or no memory (the packet is lost,
 * which the requester's retry covers).
 */
static u8 *sv_resp_new_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			   u8 opcode, u32 psn, u32 paylen,
			   struct sk_buff **skbp)
{
	const struct sv_opcode_info *info = &sv_opcode_table[opcode];
	struct sk_buff *skb;
	u8 *hdr;

	if (!out->path)
		return NULL;
	skb = sv_net_alloc_skb(sv_resp_dev(qp), out->path,
			       sv_hdr_pkt_len(info, paylen), GFP_ATOMIC);
	if (!skb)
		return NULL;
	hdr = skb->data;
	sv_hdr_build_bth(hdr, opcode, 0, SV_DEFAULT_PKEY,
			 READ_ONCE(qp->attr.dest_qp_num), psn, paylen);
	memset(hdr + info->hdr_len + paylen, 0, sv_hdr_pad(paylen));
	*skbp = skb;
	return hdr;
}

/* ACK or NAK (IBTA 9.7.5.1, 9.7.5.2) with @syndrome for @psn, sent now */
static void sv_resp_send_aeth(struct sv_qp *qp, struct sv_resp_out *out,
			      u8 syndrome, u32 psn)
{
	struct sk_buff *skb;
	u8 *hdr;

	lockdep_assert_held(&qp->resp.lock);
	hdr = sv_resp_new_pkt(qp, out, IB_OPCODE_RC_ACKNOWLEDGE, psn, 0, &skb);
	if (!hdr)
		return;
	sv_hdr_build_aeth(hdr, syndrome, qp->resp.msn);
	sv_resp_cb(skb)->from_res = false;
	__skb_queue_tail(&out->txq, skb);
}

/*
 * Positive ACK of everything up to @psn.  The credit field carries the
 * "invalid credit count" code: no end-to-end flow control (IBTA
 * 9.7.5.1.1).  Behind queued responses the ACK waits (see the top).
 */
static void sv_resp_ack(struct sv_qp *qp, struct sv_resp_out *out, u32 psn)
{
	lockdep_assert_held(&qp->resp.lock);
	if (qp->resp.serving) {
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = psn;
		return;
	}
	sv_resp_send_aeth(qp, out, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
			  psn);
	sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_ACKS);
}

static void sv_resp_nak(struct sv_qp *qp, struct sv_resp_out *out,
			enum sv_aeth_nak code, u32 psn)
{
	static const u8 stat[] = {
		[SV_NAK_PSN_SEQ_ERR] = SV_STAT_TX_NAK_SEQ,
		[SV_NAK_INVALID_REQ] = SV_STAT_TX_NAK_INV_REQ,
		[SV_NAK_REM_ACCESS_ERR] = SV_STAT_TX_NAK_REM_ACC,
		[SV_NAK_REM_OP_ERR] = SV_STAT_TX_NAK_REM_OP,
	};

	sv_resp_send_aeth(qp, out, sv_aeth_syn_nak(code), psn);
	if (code < ARRAY_SIZE(stat))
		sv_stat_inc(sv_resp_dev(qp), stat[code]);
}

/* --- receive WQEs ------------------------------------------------------ */

/*
 * Take the oldest WQE of the QP's own RQ into the private copy and check
 * it as sv_srq_pop() does for an SRQ: user space may rewrite the slot at
 * any time, so only the copy is used, and the lengths are recomputed.
 */
static int sv_resp_rq_pop(struct sv_qp *qp)
{
	struct sv_wq *wq = &qp->rq;
	struct sv_queue *q = wq->queue;
	struct sv_recv_wqe *wqe = qp->resp.wqe;
	unsigned long flags;
	u32 prod;

	spin_lock_irqsave(&wq->consumer_lock, flags);
	/* acquire: the slot contents before the index (uapi ordering) */
	prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;
	if (prod == q->cons) {
		spin_unlock_irqrestore(&wq->consumer_lock, flags);
		return -EAGAIN;
	}
	memcpy(wqe, sv_queue_consumer_slot(q), sv_srq_wqe_size(wq->max_sge));
	sv_queue_consume(q);
	spin_unlock_irqrestore(&wq->consumer_lock, flags);

	return sv_recv_wqe_check(wqe, wq->max_sge);
}

/*
 * Make sure a receive WQE is held: 0, -EAGAIN (none posted: RNR), or
 * -EINVAL (malformed; it is held anyway, for its error completion).
 */
static int sv_resp_get_wqe(struct sv_qp *qp)
{
	int err;

	lockdep_assert_held(&qp->resp.lock);
	if (qp->resp.wqe_valid)
		return 0;
	if (qp->ibqp.srq)
		err = sv_srq_pop(to_sv_srq(qp->ibqp.srq), qp->resp.wqe,
				 sv_resp_wqe_size());
	else
		err = sv_resp_rq_pop(qp);
	if (err == -EAGAIN)
		return err;
	qp->resp.wqe_valid = true;
	qp->resp.recv_len = 0;
	return err;
}

/* Start the held WQE over (UC: a dropped message leaves it unused). */
static void sv_resp_wqe_rewind(struct sv_qp *qp)
{
	struct sv_dma_info *dma = &qp->resp.wqe->dma;

	dma->resid = dma->length;
	dma->cur_sge = 0;
	dma->sge_offset = 0;
	qp->resp.recv_len = 0;
}

/* Scatter @len bytes at @data over the held WQE's SGEs, from its cursor. */
static enum sv_resp_err sv_resp_scatter(struct sv_qp *qp, const void *data,
					u32 len)
{
	struct sv_dma_info *dma = &qp->resp.wqe->dma;
	struct sv_dev *sv = sv_resp_dev(qp);

	lockdep_assert_held(&qp->resp.lock);
	if (len > dma->resid)
		return SV_RESP_LOC_LEN;
	while (len) {
		struct sv_sge *sge;
		struct sv_mr *mr;
		u64 iova;
		u32 n;
		int err;

		if (dma->cur_sge >= dma->num_sge)
			return SV_RESP_LOC_LEN;
		sge = &dma->sge[dma->cur_sge];
		if (dma->sge_offset >= sge->length) {
			dma->cur_sge++;
			dma->sge_offset = 0;
			continue;
		}
		n = min(len, sge->length - dma->sge_offset);
		iova = sge->addr + dma->sge_offset;
		mr = sv_mr_lookup(sv, sge->lkey, qp->ibqp.pd, qp->ibqp.qp_num,
				  IB_ACCESS_LOCAL_WRITE, &iova, n);
		if (IS_ERR(mr))
			return SV_RESP_LOC_PROT;
		err = sv_mr_copy(mr, iova, (void *)data, n, SV_COPY_TO_MR);
		sv_mr_put(mr);
		if (err)
			return SV_RESP_LOC_PROT;
		data += n;
		len -= n;
		dma->sge_offset += n;
		dma->resid -= n;
		qp->resp.recv_len += n;
	}
	return SV_RESP_OK;
}

/* Fill the completion of the held WQE and give it up: it completes once. */
static void sv_resp_complete(struct sv_qp *qp, struct sv_resp_out *out,
			     enum ib_wc_status status, enum ib_wc_opcode op,
			     u32 byte_len)
{
	struct ib_wc *wc = &out->wc;

	lockdep_assert_held(&qp->resp.lock);
	wc->wr_id = qp->resp.wqe->wr_id;
	wc->status = status;
	wc->opcode = op;
	wc->byte_len = byte_len;
	wc->qp = &qp->ibqp;
	wc->src_qp = READ_ONCE(qp->attr.dest_qp_num);
	wc->port_num = SV_PORT_NUM;
	out->post_wc = true;
	qp->resp.wqe_valid = false;
	if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_RECV_CQE_ERR);
}

/* --- errors -------------------------------------------------------------- */

static enum ib_wc_status sv_resp_err_status(enum sv_resp_err err)
{
	switch (err) {
	case SV_RESP_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SV_RESP_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SV_RESP_LOC_LEN:
		return IB_WC_LOC_LEN_ERR;
	case SV_RESP_LOC_PROT:
		return IB_WC_LOC_PROT_ERR;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

/* Forget the message in progress (its WQE stays held for reuse). */
static void sv_resp_abandon_msg(struct sv_qp *qp)
{
	qp->resp.in_msg = false;
	qp->resp.wr_resid = 0;
	if (qp->resp.wqe_valid)
		sv_resp_wqe_rewind(qp);
}

/*
 * An RC request failed: complete the held WQE with the error, NAK the
 * request and move the QP to ERR (IBTA 9.9.3.1.2: responder errors of
 * classes C and D are fatal to the connection; 10.8.3).
 */
static void sv_resp_rc_fail(struct sv_qp *qp, struct sv_resp_out *out,
			    enum sv_resp_err err, u32 psn)
{
	enum sv_aeth_nak code;

	lockdep_assert_held(&qp->resp.lock);
	switch (err) {
	case SV_RESP_REM_ACCESS:
		code = SV_NAK_REM_ACCESS_ERR;
		out->event = IB_EVENT_QP_ACCESS_ERR;
		break;
	case SV_RESP_INV_REQ:
	case SV_RESP_LOC_LEN:	/* a SEND longer than the receive buffer */
		code = SV_NAK_INVALID_REQ;
		out->event = IB_EVENT_QP_REQ_ERR;
		break;
	default:		/* the responder's own WQE is at fault */
		code = SV_NAK_REM_OP_ERR;
		out->event = IB_EVENT_QP_FATAL;
		break;
	}
	if (qp->resp.wqe_valid)
		sv_resp_complete(qp, out, sv_resp_err_status(err), IB_WC_RECV,
				 qp->resp.recv_len);
	sv_resp_nak(qp, out, code, psn);
	qp->resp.dead = true;
	out->qp_error = true;
}

/*
 * A UC or UD request failed.  The QP stays up (IBTA 9.8.3 and 9.9 have no
 * way to tell the sender, and the receive side carries on with the next
 * message).  A message longer than the receive WQE is dropped and the WQE
 * kept for the next one (a class D error, silently dropped, as Soft-RoCE
 * does): the sender, not the receiver, chose the length, and completing
 * the WQE in error would let anyone who reaches the port use up a QP's
 * receives, the MAD layer's on QP1 included, which it does not repost.
 * The other local errors (the WQE itself is bad) complete it with the
 * error; remote errors silently drop the message.
 */
static void sv_resp_dgram_fail(struct sv_qp *qp, struct sv_resp_out *out,
			       enum sv_resp_err err)
{
	lockdep_assert_held(&qp->resp.lock);
	if (err == SV_RESP_LOC_LEN)
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_LEN_DROPS);
	else if (qp->resp.wqe_valid &&
		 (err == SV_RESP_LOC_PROT || err == SV_RESP_LOC_QP_OP))
		sv_resp_complete(qp, out, sv_resp_err_status(err), IB_WC_RECV,
				 qp->resp.recv_len);
	sv_resp_abandon_msg(qp);
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		qp->resp.drop_msg = true;
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_UC_DROPS);
	}
}

/* --- SEND and RDMA WRITE (RC and UC) ------------------------------------ */

/*
 * Packet lengths (IBTA 9.7.7; 9.8 for UC): First and Middle packets carry
 * exactly the path MTU, Last packets 1..MTU bytes, Only packets 0..MTU.
 */
static bool sv_resp_len_ok(struct sv_qp *qp, const struct sv_pkt_info *p)
{
	u32 mtu = sv_qp_mtu(qp);
	u32 flags = p->info->flags;

	if (!(flags & SV_OP_LAST))
		return p->paylen == mtu;
	if (!(flags & SV_OP_FIRST) && !p->paylen)
		return false;
	return p->paylen <= mtu;
}

/*
 * Opcode sequence (IBTA 9.7.4.1.5 / 9.8.4): inside a message only Middle
 * and Last packets of the same operation; outside only First and Only.
 */
static bool sv_resp_seq_ok(struct sv_qp *qp, u32 flags)
{
	if (qp->resp.in_msg)
		return !(flags & SV_OP_FIRST) &&
		       (flags & qp->resp.msg_op);
	return flags & SV_OP_FIRST;
}

static void sv_resp_msg_done(struct sv_qp *qp)
{
	qp->resp.in_msg = false;
	qp->resp.msn = (qp->resp.msn + 1) & SV_AETH_MSN_MASK;
}

static enum sv_resp_err sv_resp_send(struct sv_qp *qp,
				     const struct sv_rx_pkt *pkt,
				     struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	enum sv_resp_err err;
	int ret;

	if (flags & SV_OP_RWQE) {
		ret = sv_resp_get_wqe(qp);
		if (ret == -EAGAIN)
			return SV_RESP_RNR;
		if (ret)
			return SV_RESP_LOC_QP_OP;
	}
	if (WARN_ON_ONCE(!qp->resp.wqe_valid))
		return SV_RESP_LOC_QP_OP;
	err = sv_resp_scatter(qp, sv_pkt_payload(p), p->paylen);
	if (err)
		return err;

	if (!(flags & SV_OP_LAST)) {
		qp->resp.in_msg = true;
		qp->resp.msg_op = SV_OP_SEND;
		return SV_RESP_OK;
	}

	/* Send with Invalidate (IBTA 9.4.1.1, 10.6.6.2): before the CQE */
	if (sv_opcode_has(p->info, SV_EXT_IETH)) {
		u32 rkey = sv_ieth_rkey(p->hdr);

		if (sv_mr_invalidate(sv_resp_dev(qp), rkey, qp->ibqp.pd,
				     qp->ibqp.qp_num, true))
			return SV_RESP_INV_REQ;
		out->wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		out->wc.ex.invalidate_rkey = rkey;
	}
	if (sv_opcode_has(p->info, SV_EXT_IMMDT)) {
		out->wc.wc_flags |= IB_WC_WITH_IMM;
		out->wc.ex.imm_data = sv_immdt_imm(p->hdr);
	}
	out->solicited = p->bth_flags & SV_BTH_SE;
	sv_resp_complete(qp, out, IB_WC_SUCCESS, IB_WC_RECV,
			 qp->resp.recv_len);
	sv_resp_msg_done(qp);
	return SV_RESP_OK;
}

/* Place @len bytes of an RDMA WRITE at the message's cursor. */
static enum sv_resp_err sv_resp_write_data(struct sv_qp *qp, const void *data,
					   u32 len)
{
	struct sv_mr *mr;
	u64 iova;
	int err;

	if (!len)
		return SV_RESP_OK;
	if (len > qp->resp.wr_resid)
		return SV_RESP_INV_REQ;
	iova = qp->resp.wr_va;
	mr = sv_mr_lookup(sv_resp_dev(qp), qp->resp.wr_rkey, qp->ibqp.pd,
			  qp->ibqp.qp_num, IB_ACCESS_REMOTE_WRITE, &iova, len);
	if (IS_ERR(mr))
		return SV_RESP_REM_ACCESS;
	err = sv_mr_copy(mr, iova, (void *)data, len, SV_COPY_TO_MR);
	sv_mr_put(mr);
	if (err)
		return SV_RESP_REM_ACCESS;
	qp->resp.wr_va += len;
	qp->resp.wr_resid -= len;
	return SV_RESP_OK;
}

static enum sv_resp_err sv_resp_write(struct sv_qp *qp,
				      const struct sv_rx_pkt *pkt,
				      struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	enum sv_resp_err err;
	int ret;

	if (flags & SV_OP_FIRST) {
		u64 va = sv_reth_va(p->hdr);
		u32 rkey = sv_reth_rkey(p->hdr);
		u32 len = sv_reth_len(p->hdr);

		/* the QP's own access flags gate the operation (IBTA 10.2) */
		if (!(READ_ONCE(qp->attr.qp_access_flags) &
		      IB_ACCESS_REMOTE_WRITE))
			return SV_RESP_INV_REQ;
		if (len > SV_PORT_MAX_MSG_SZ)
			return SV_RESP_INV_REQ;
		/* IBTA 9.4.4: a zero-length write checks no R_Key */
		if (len) {
			struct sv_mr *mr;
			u64 iova = va;

			mr = sv_mr_lookup(sv_resp_dev(qp), rkey, qp->ibqp.pd,
					  qp->ibqp.qp_num,
					  IB_ACCESS_REMOTE_WRITE, &iova, len);
			if (IS_ERR(mr))
				return SV_RESP_REM_ACCESS;
			sv_mr_put(mr);
		}
		/* a packet cannot carry more than the message announces */
		if (p->paylen > len)
			return SV_RESP_INV_REQ;
		qp->resp.wr_va = va;
		qp->resp.wr_rkey = rkey;
		qp->resp.wr_resid = len;
		qp->resp.wr_len = len;
	}
	/* with Immediate: the last packet consumes a receive WQE (9.4.2) */
	if (flags & SV_OP_RWQE) {
		ret = sv_resp_get_wqe(qp);
		if (ret == -EAGAIN)
			return SV_RESP_RNR;
		if (ret)
			return SV_RESP_LOC_QP_OP;
	}
	err = sv_resp_write_data(qp, sv_pkt_payload(p), p->paylen);
	if (err)
		return err;

	if (!(flags & SV_OP_LAST)) {
		qp->resp.in_msg = true;
		qp->resp.msg_op = SV_OP_WRITE;
		return SV_RESP_OK;
	}
	/* the message must end exactly where the RETH said: else Invalid Request */
	if (qp->resp.wr_resid)
		return SV_RESP_INV_REQ;
	if (flags & SV_OP_RECV_COMP) {
		out->wc.wc_flags |= IB_WC_WITH_IMM;
		out->wc.ex.imm_data = sv_immdt_imm(p->hdr);
		out->solicited = p->bth_flags & SV_BTH_SE;
		sv_resp_complete(qp, out, IB_WC_SUCCESS,
				 IB_WC_RECV_RDMA_WITH_IMM, qp->resp.wr_len);
	}
	sv_resp_msg_done(qp);
	return SV_RESP_OK;
}

/* --- responder resources: RDMA READ and atomics (RC) ------------------- */

static struct sv_resp_res *sv_resp_res_at(struct sv_qp *qp, u32 seq)
{
	return &qp->resp.res[seq % SV_MAX_QP_RD_ATOM];
}

/*
 * Take a new resource; NULL when max_dest_rd_atomic are busy: more
 * outstanding RDMA READ/atomic requests than negotiated are an Invalid
 * Request (IBTA 9.7.5.2).
 */
static struct sv_resp_res *sv_resp_res_new(struct sv_qp *qp)
{
	u32 max = READ_ONCE(qp->attr.max_dest_rd_atomic);
	u32 busy = qp->resp.res_head - qp->resp.res_serve;
	struct sv_resp_res *res;
	u32 seq;

	/* after a duplicate moved res_serve back, count what is pending */
	if (busy >= max) {
		busy = 0;
		for (seq = qp->resp.res_serve; seq != qp->resp.res_head; seq++)
			busy += sv_resp_res_at(qp, seq)->pending;
	}
	if (busy >= max)
		return NULL;
	/*
	 * The slot taken over must not be pending.  Not a WARN: the peer
	 * decides how far back a duplicate moves res_serve, and a duplicate
	 * of the oldest of SV_MAX_QP_RD_ATOM outstanding requests gets here.
	 * That is the peer's invalid request (NAKed), not our bug, and a
	 * remote WARN is a remote crash where panic_on_warn is set.
	 */
	if (sv_resp_res_at(qp, qp->resp.res_head)->pending &&
	    qp->resp.res_head - qp->resp.res_serve >= SV_MAX_QP_RD_ATOM)
		return NULL;
	res = sv_resp_res_at(qp, qp->resp.res_head++);
	memset(res, 0, sizeof(*res));
	res->pending = true;
	return res;
}

/* One read response packet of @res; false when no packet could be made. */
static bool sv_resp_read_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			     struct sv_resp_res *res)
{
	u32 left = res->length - res->cur_off;
	u32 n = min(left, res->mtu);
	bool first = res->cur_psn == res->start_psn;
	bool last = n == left;
	struct sk_buff *skb;
	u8 opcode;
	u8 *hdr;

	if (first)
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	else
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;

	hdr = sv_resp_new_pkt(qp, out, opcode, res->cur_psn, n, &skb);
	if (hdr) {
		const struct sv_opcode_info *info = &sv_opcode_table[opcode];
		u8 syn = sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID);

		if (sv_opcode_has(info, SV_EXT_AETH))
			sv_hdr_build_aeth(hdr, syn, res->msn);
		if (n) {
			u64 iova = res->va + res->cur_off;
			struct sv_mr *mr;
			int err = -EINVAL;

			mr = sv_mr_lookup(sv_resp_dev(qp), res->rkey,
					  qp->ibqp.pd, qp->ibqp.qp_num,
					  IB_ACCESS_REMOTE_READ, &iova, n);
			if (!IS_ERR(mr)) {
				err = sv_mr_copy(mr, iova,
						 hdr + info->hdr_len, n,
						 SV_COPY_FROM_MR);
				sv_mr_put(mr);
			}
			if (err) {
				/* invalidated or deregistered meanwhile */
				kfree_skb(skb);
				return false;
			}
		}
		*sv_resp_cb(skb) = (struct sv_resp_cb) {
			.seq = qp->resp.res_serve,
			.cur_psn = res->cur_psn,
			.cur_off = res->cur_off,
			.from_res = true,
		};
		__skb_queue_tail(&out->txq, skb);
	}
	/* a packet we could not allocate is lost: the requester retries */
	res->cur_off += n;
	res->cur_psn = sv_psn_add(res->cur_psn, 1);
	if (last)
		res->pending = false;
	return true;
}

/* Execute an atomic once (IBTA 9.4.5) and queue its Atomic ACK. */
static bool sv_resp_atomic_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			       struct sv_resp_res *res)
{
	struct sk_buff *skb;
	u8 *hdr;

	if (!res->executed) {
		u64 iova = res->va;
		struct sv_mr *mr;
		int err;

		mr = sv_mr_lookup(sv_resp_dev(qp), res->rkey, qp->ibqp.pd,
				  qp->ibqp.qp_num, IB_ACCESS_REMOTE_ATOMIC,
				  &iova, sizeof(u64));
		if (IS_ERR(mr))
			return false;
		err = sv_mr_atomic(mr, iova, res->cmp_swap ? SV_ATOMIC_CMP_SWAP :
							     SV_ATOMIC_FETCH_ADD,
				   res->cmp_swap ? res->compare : res->swap_add,
				   res->swap_add, &res->orig);
		sv_mr_put(mr);
		if (err)
			return false;
		res->executed = true;
	}
	hdr = sv_resp_new_pkt(qp, out, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE,
			      res->first_psn, 0, &skb);
	if (hdr) {
		sv_hdr_build_aeth(hdr, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				  res->msn);
		sv_hdr_build_atmack(hdr, res->orig);
		*sv_resp_cb(skb) = (struct sv_resp_cb) {
			.seq = qp->resp.res_serve,
			.from_res = true,
		};
		__skb_queue_tail(&out->txq, skb);
	}
	res->pending = false;
	return true;
}

/*
 * FLUSH or ATOMIC WRITE, executed once when its turn comes (so after every
 * earlier request of the QP, IBTA 1.5 A19), answered by a zero-length RDMA
 * READ Response Only with an AETH, as Soft-RoCE does.
 *
 * FLUSH makes what earlier requests placed globally visible.  softverbs
 * places data with CPU stores, already coherent; the full barrier orders
 * all of them before the response (and anything after it).  Persistence
 * is never promised: no MR gets IB_ACCESS_FLUSH_PERSISTENT (the device
 * does not advertise IB_DEVICE_FLUSH_PERSISTENT), so a FLUSH asking for
 * it failed its R_Key check when it arrived.
 *
 * ATOMIC WRITE stores its 8 bytes in one atomic access, never torn, and
 * never a second time for a duplicate.
 */
static bool sv_resp_mpe_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			    struct sv_resp_res *res)
{
	struct sk_buff *skb;
	u8 *hdr;

	if (res->type == SV_RES_FLUSH) {
		/*
		 * Global visibility: every store of the writes this FLUSH
		 * follows is visible to all CPUs before the response that
		 * reports it leaves; pairs with whatever the reader of the
		 * target memory uses after seeing the FLUSH complete.
		 */
		smp_mb();
	} else if (!res->executed) {
		u64 iova = res->va;
		struct sv_mr *mr;
		int err;

		mr = sv_mr_lookup(sv_resp_dev(qp), res->rkey, qp->ibqp.pd,
				  qp->ibqp.qp_num, IB_ACCESS_REMOTE_WRITE,
				  &iova, sizeof(u64));
		if (IS_ERR(mr))
			return false;
		err = sv_mr_atomic(mr, iova, SV_ATOMIC_WRITE, res->value, 0,
				   &res->orig);
		sv_mr_put(mr);
		if (err)
			return false;
		res->executed = true;
	}
	hdr = sv_resp_new_pkt(qp, out, IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY,
			      res->first_psn, 0, &skb);
	if (hdr) {
		sv_hdr_build_aeth(hdr, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				  res->msn);
		*sv_resp_cb(skb) = (struct sv_resp_cb) {
			.seq = qp->resp.res_serve,
			.cur_psn = res->first_psn,
			.from_res = true,
		};
		__skb_queue_tail(&out->txq, skb);
	}
	res->pending = false;
	return true;
}

/*
 * Send up to @budget packets of the queued responses, in request order.
 * Returns true when nothing is left to send (then the deferred ACK, if
 * any, is queued too).  A resource whose memory went away meanwhile ends
 * the connection with a Remote Access Error.
 */
static bool sv_resp_serve(struct sv_qp *qp, struct sv_resp_out *out,
			  unsigned int budget)
{
	lockdep_assert_held(&qp->resp.lock);
	while (qp->resp.res_serve != qp->resp.res_head) {
		struct sv_resp_res *res = sv_resp_res_at(qp,
							 qp->resp.res_serve);
		bool ok;

		if (!res->pending) {
			qp->resp.res_serve++;
			continue;
		}
		if (!budget)
			return false;
		budget--;
		if (res->type == SV_RES_READ)
			ok = sv_resp_read_pkt(qp, out, res);
		else if (res->type == SV_RES_ATOMIC)
			ok = sv_resp_atomic_pkt(qp, out, res);
		else
			ok = sv_resp_mpe_pkt(qp, out, res);
		if (!ok) {
			sv_resp_nak(qp, out, SV_NAK_REM_ACCESS_ERR,
				    res->type == SV_RES_READ ? res->cur_psn :
							       res->first_psn);
			qp->resp.res_serve = qp->resp.res_head;
			qp->resp.dead = true;
			out->qp_error = true;
			out->event = IB_EVENT_QP_ACCESS_ERR;
			return true;
		}
	}
	if (qp->resp.ack_pending) {
		qp->resp.ack_pending = false;
		sv_resp_send_aeth(qp, out,
				  sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				  qp->resp.ack_psn);
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_ACKS);
	}
	return true;
}

/* Packets still to send for the queued responses, counted up to @limit. */
static u32 sv_resp_pending_pkts(struct sv_qp *qp, u32 limit)
{
	u32 seq, n = 0;

	for (seq = qp->resp.res_serve; seq != qp->resp.res_head && n <= limit;
	     seq++) {
		struct sv_resp_res *res = sv_resp_res_at(qp, seq);

		if (!res->pending)
			continue;
		if (res->type == SV_RES_READ)
			n += sv_mtu_npkts(res->length - res->cur_off, res->mtu);
		else
			n++;
	}
	return n;
}

/*
 * New responses were queued: send them now if they are few, else leave
 * them all to the work item, queued on this CPU.  Each CPU has its own
 * backlog on the way to a local peer (veth, loopback) and may have its
 * own transmit queue on a NIC, so packets sent from two CPUs can swap
 * places: a read's responses must all leave from one CPU, and the
 * responses after them from that CPU too, while the work item sends.
 */
static void sv_resp_start_serving(struct sv_qp *qp, struct sv_resp_out *out)
{
	lockdep_assert_held(&qp->resp.lock);
	if (qp->resp.serving)
		return;		/* the work item will get to them */
	if (sv_resp_pending_pkts(qp, SV_RESP_INLINE_PKTS) <=
	    SV_RESP_INLINE_PKTS &&
	    sv_resp_serve(qp, out, SV_RESP_INLINE_PKTS))
		return;
	qp->resp.serving = true;
	out->kick = true;
}

/*
 * A request that holds responder resource @res was accepted: the next PSN
 * expected is @next_psn, the message is done, and @res is answered (and
 * re-served for duplicates) under the MSN it completed.
 */
static enum sv_resp_err sv_resp_res_accept(struct sv_qp *qp,
					   struct sv_resp_out *out,
					   struct sv_resp_res *res,
					   u32 next_psn)
{
	sv_resp_set_psn(qp, next_psn);
	sv_resp_msg_done(qp);
	res->msn = qp->resp.msn;
	sv_resp_start_serving(qp, out);
	return SV_RESP_OK;
}

static enum sv_resp_err sv_resp_read(struct sv_qp *qp,
				     const struct sv_rx_pkt *pkt,
				     struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_reth_va(p->hdr);
	u32 rkey = sv_reth_rkey(p->hdr);
	u32 len = sv_reth_len(p->hdr);
	struct sv_resp_res *res;
	u32 mtu = sv_qp_mtu(qp);
	u32 npkts;

	if (!(READ_ONCE(qp->attr.qp_access_flags) & IB_ACCESS_REMOTE_READ))
		return SV_RESP_INV_REQ;
	if (len > SV_PORT_MAX_MSG_SZ)
		return SV_RESP_INV_REQ;
	/* IBTA 9.4.5: a zero-length read checks no R_Key */
	if (len) {
		struct sv_mr *mr;
		u64 iova = va;

		mr = sv_mr_lookup(sv_resp_dev(qp), rkey, qp->ibqp.pd,
				  qp->ibqp.qp_num, IB_ACCESS_REMOTE_READ,
				  &iova, len);
		if (IS_ERR(mr))
			return SV_RESP_REM_ACCESS;
		sv_mr_put(mr);
	}
	res = sv_resp_res_new(qp);
	if (!res)
		return SV_RESP_INV_REQ;
	npkts = sv_mtu_npkts(len, mtu);
	res->type = SV_RES_READ;
	res->first_psn = p->psn;
	res->last_psn = sv_psn_add(p->psn, npkts - 1);
	res->start_psn = p->psn;
	res->cur_psn = p->psn;
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	res->mtu = mtu;
	/* a read request takes as many PSNs as it has responses (9.7.1) */
	return sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, npkts));
}

static enum sv_resp_err sv_resp_atomic(struct sv_qp *qp,
				       const struct sv_rx_pkt *pkt,
				       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_atmeth_va(p->hdr);
	u32 rkey = sv_atmeth_rkey(p->hdr);
	struct sv_resp_res *res;
	struct sv_mr *mr;
	u64 iova = va;

	if (!(READ_ONCE(qp->attr.qp_access_flags) & IB_ACCESS_REMOTE_ATOMIC))
		return SV_RESP_INV_REQ;
	/* IBTA 9.4.5: naturally aligned 64-bit words only */
	if (va & 7)
		return SV_RESP_INV_REQ;
	mr = sv_mr_lookup(sv_resp_dev(qp), rkey, qp->ibqp.pd, qp->ibqp.qp_num,
			  IB_ACCESS_REMOTE_ATOMIC, &iova, sizeof(u64));
	if (IS_ERR(mr))
		return SV_RESP_REM_ACCESS;
	sv_mr_put(mr);
	res = sv_resp_res_new(qp);
	if (!res)
		return SV_RESP_INV_REQ;
	res->type = SV_RES_ATOMIC;
	res->cmp_swap = p->opcode == IB_OPCODE_RC_COMPARE_SWAP;
	res->first_psn = p->psn;
	res->last_psn = p->psn;
	res->va = va;
	res->rkey = rkey;
	res->swap_add = sv_atmeth_swap_add(p->hdr);
	res->compare = sv_atmeth_comp(p->hdr);
	return sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, 1));
}

/*
 * FLUSH (IBTA 1.5 A19.4): FETH placement type and selectivity level, RETH
 * range.  The QP must allow flushes and the MR grant the placement type
 * asked for: IB_ACCESS_FLUSH_GLOBAL, or IB_ACCESS_FLUSH_PERSISTENT, which
 * no softverbs MR has.  Selectivity "memory region" flushes the whole MR
 * of the R_Key: the range then need not lie in it.
 */
static enum sv_resp_err sv_resp_flush_req(struct sv_qp *qp,
					  const struct sv_rx_pkt *pkt,
					  struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u8 plt = sv_feth_plt(p->hdr);
	u8 sel = sv_feth_sel(p->hdr);
	u64 va = sv_reth_va(p->hdr);
	u32 rkey = sv_reth_rkey(p->hdr);
	u32 len = sv_reth_len(p->hdr);
	struct sv_resp_res *res;
	struct sv_mr *mr;
	u64 iova = va;
	int access = 0;

	if (!SV_MPE ||
	    !(READ_ONCE(qp->attr.qp_access_flags) & SV_ACCESS_FLUSH))
		return SV_RESP_INV_REQ;
	if (!plt || (plt & ~(SV_FLUSH_GLOBAL | SV_FLUSH_PERSISTENT)) ||
	    sel > SV_FLUSH_MR)
		return SV_RESP_INV_REQ;
	if (plt & SV_FLUSH_GLOBAL)
		access |= SV_ACCESS_FLUSH_GLOBAL;
	if (plt & SV_FLUSH_PERSISTENT)
		access |= SV_ACCESS_FLUSH_PERSISTENT;
	mr = sv_mr_lookup(sv_resp_dev(qp), rkey, qp->ibqp.pd, qp->ibqp.qp_num,
			  access, &iova, sel == SV_FLUSH_MR ? 0 : len);
	if (IS_ERR(mr)) {
		if (sel != SV_FLUSH_MR || PTR_ERR(mr) != -ERANGE)
			return SV_RESP_REM_ACCESS;
	} else {
		sv_mr_put(mr);
	}
	res = sv_resp_res_new(qp);
	if (!res)
		return SV_RESP_INV_REQ;
	res->type = SV_RES_FLUSH;
	res->first_psn = p->psn;
	res->last_psn = p->psn;
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	return sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, 1));
}

/*
 * ATOMIC WRITE (IBTA 1.5 A19.5): RETH and 8 bytes of payload (sv_hdr.c
 * checked the length), to a naturally aligned address of an MR with
 * remote write access, on a QP that allows remote writes.
 */
static enum sv_resp_err sv_resp_atomic_write(struct sv_qp *qp,
					     const struct sv_rx_pkt *pkt,
					     struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_reth_va(p->hdr);
	u32 rkey = sv_reth_rkey(p->hdr);
	struct sv_resp_res *res;
	struct sv_mr *mr;
	u64 iova = va;

	/* every kernel: it needs nothing of ib_core (compat.h) */
	if (!(READ_ONCE(qp->attr.qp_access_flags) & IB_ACCESS_REMOTE_WRITE))
		return SV_RESP_INV_REQ;
	if ((va & 7) || sv_reth_len(p->hdr) != sizeof(u64) ||
	    p->paylen != sizeof(u64))
		return SV_RESP_INV_REQ;
	mr = sv_mr_lookup(sv_resp_dev(qp), rkey, qp->ibqp.pd, qp->ibqp.qp_num,
			  IB_ACCESS_REMOTE_WRITE, &iova, sizeof(u64));
	if (IS_ERR(mr))
		return SV_RESP_REM_ACCESS;
	sv_mr_put(mr);
	res = sv_resp_res_new(qp);
	if (!res)
		return SV_RESP_INV_REQ;
	res->type = SV_RES_ATOMIC_WRITE;
	res->first_psn = p->psn;
	res->last_psn = p->psn;
	res->va = va;
	res->rkey = rkey;
	res->length = sizeof(u64);
	memcpy(&res->value, sv_pkt_payload(p), sizeof(u64));
	return sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, 1));
}

/* the resource type a request with these opcode flags takes, or -1 */
static int sv_resp_res_type(u32 flags)
{
	if (flags & SV_OP_READ)
		return SV_RES_READ;
	if (flags & SV_OP_ATOMIC)
		return SV_RES_ATOMIC;
	if (flags & SV_OP_FLUSH)
		return SV_RES_FLUSH;
	if (flags & SV_OP_ATOMIC_WRITE)
		return SV_RES_ATOMIC_WRITE;
	return -1;
}

/*
 * A duplicate RC request (IBTA 9.7.4, the responder's rules for
 * duplicates): SENDs and WRITEs are not executed again, only
 * acknowledged; an RDMA READ is served again from the PSN asked for, with
 * its original parameters; an atomic returns its saved original value and
 * is never executed twice, nor is an ATOMIC WRITE; a FLUSH is answered
 * again (its barrier repeated).  Responses after it are forgotten: the
 * requester retries them, and their duplicates put them back in order.
 */
static void sv_resp_duplicate(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
			      struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	u32 seq, n;

	sv_stat_inc(sv_resp_dev(qp), SV_STAT_DUP_REQS);
	qp->resp.dup_reqs++;

	if (sv_resp_res_type(flags) < 0) {
		if (p->bth_flags & SV_BTH_ACKREQ)
			sv_resp_ack(qp, out, sv_psn_sub(qp->resp.psn, 1));
		return;
	}

	n = min_t(u32, qp->resp.res_head, SV_MAX_QP_RD_ATOM);
	for (seq = qp->resp.res_head; n; n--) {
		struct sv_resp_res *res = sv_resp_res_at(qp, --seq);
		u32 s;

		if (!sv_psn_in_window(p->psn, res->first_psn,
				      sv_psn_add(res->last_psn, 1)))
			continue;
		if (res->type != sv_resp_res_type(flags))
			return;		/* not what that PSN was: ignore */
		if (res->type == SV_RES_READ) {
			res->cur_psn = p->psn;
			res->start_psn = p->psn;
			res->cur_off = sv_psn_dist(res->first_psn, p->psn) *
				       res->mtu;
		}
		res->pending = true;
		for (s = seq + 1; s != qp->resp.res_head; s++)
			sv_resp_res_at(qp, s)->pending = false;
		/*
		 * Only ever back: the requester resends its requests in
		 * order, and an older one being served again must not be
		 * skipped by the duplicates that follow it.
		 */
		if ((s32)(seq - qp->resp.res_serve) < 0)
			qp->resp.res_serve = seq;
		sv_resp_start_serving(qp, out);
		return;
	}
	/* too old to be in the resources: nothing to re-serve, drop */
}

/* --- RC ---------------------------------------------------------------- */

static void sv_resp_rc(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	s32 diff = sv_psn_diff(p->psn, qp->resp.psn);
	enum sv_resp_err err;

	if (diff > 0) {
		/*
		 * PSN sequence error (IBTA 9.7.5.2.1): NAK once per gap,
		 * then drop until the expected PSN comes.  Not behind queued
		 * responses: the NAK would cut them off; the requester's
		 * timer covers that case.
		 */
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_OUT_OF_SEQ);
		if (!qp->resp.nak_sent && !qp->resp.serving) {
			sv_resp_nak(qp, out, SV_NAK_PSN_SEQ_ERR,
				    qp->resp.psn);
			qp->resp.nak_sent = true;
			qp->resp.seq_naks++;
		}
		return;
	}
	if (diff < 0) {
		sv_resp_duplicate(qp, pkt, out);
		return;
	}

	if (!sv_resp_seq_ok(qp, flags) || !(flags & SV_OP_REQ)) {
		err = SV_RESP_INV_REQ;
		goto fail;
	}
	if ((flags & (SV_OP_SEND | SV_OP_WRITE)) && !sv_resp_len_ok(qp, p)) {
		err = SV_RESP_INV_REQ;
		goto fail;
	}

	if (flags & SV_OP_SEND)
		err = sv_resp_send(qp, pkt, out);
	else if (flags & SV_OP_WRITE)
		err = sv_resp_write(qp, pkt, out);
	else if (flags & SV_OP_READ)
		err = sv_resp_read(qp, pkt, out);
	else if (flags & SV_OP_ATOMIC)
		err = sv_resp_atomic(qp, pkt, out);
	else if (flags & SV_OP_FLUSH)
		err = sv_resp_flush_req(qp, pkt, out);
	else if (flags & SV_OP_ATOMIC_WRITE)
		err = sv_resp_atomic_write(qp, pkt, out);
	else
		err = SV_RESP_INV_REQ;

	if (err == SV_RESP_RNR) {
		/*
		 * Receiver Not Ready (IBTA 9.7.5.2.8): the requester waits
		 * min_rnr_timer and sends this PSN again.  Packets after it
		 * are dropped like any after a NAK.  Behind queued responses
		 * the packet is dropped instead; the requester retries.
		 */
		if (!qp->resp.serving) {
			u8 timer = READ_ONCE(qp->attr.min_rnr_timer);

			sv_resp_send_aeth(qp, out, sv_aeth_syn_rnr(timer),
					  p->psn);
			sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_NAK_RNR);
			qp->resp.rnr_naks++;
			qp->resp.nak_sent = true;
		}
		return;
	}
	if (err)
		goto fail;

	qp->resp.nak_sent = false;
	if (flags & (SV_OP_SEND | SV_OP_WRITE)) {
		sv_resp_set_psn(qp, sv_psn_add(p->psn, 1));
		if (p->bth_flags & SV_BTH_ACKREQ)
			sv_resp_ack(qp, out, p->psn);
	}
	return;

fail:
	sv_resp_rc_fail(qp, out, err, p->psn);
}

/* --- UC ---------------------------------------------------------------- */

static void sv_resp_uc(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	enum sv_resp_err err;

	/*
	 * IBTA 9.8.3: a PSN gap drops the message in progress and all
	 * packets up to the next First or Only, which resynchronises.
	 */
	if (p->psn != qp->resp.psn && !qp->resp.drop_msg &&
	    qp->resp.in_msg) {
		sv_resp_abandon_msg(qp);
		qp->resp.drop_msg = true;
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_UC_DROPS);
	}
	if (p->psn != qp->resp.psn || qp->resp.drop_msg) {
		if (!(flags & SV_OP_FIRST)) {
			qp->resp.drop_msg = true;
			return;
		}
		qp->resp.drop_msg = false;
	}
	/* a First while a message is open: the old one lost its end */
	if (qp->resp.in_msg && (flags & SV_OP_FIRST)) {
		sv_resp_abandon_msg(qp);
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_UC_DROPS);
	}
	sv_resp_set_psn(qp, sv_psn_add(p->psn, 1));

	if (!sv_resp_seq_ok(qp, flags) || !sv_resp_len_ok(qp, p)) {
		err = SV_RESP_INV_REQ;
		goto fail;
	}
	if (flags & SV_OP_SEND)
		err = sv_resp_send(qp, pkt, out);
	else if (flags & SV_OP_WRITE)
		err = sv_resp_write(qp, pkt, out);
	else
		err = SV_RESP_INV_REQ;
	if (!err)
		return;
fail:
	sv_resp_dgram_fail(qp, out, err);
}

/* --- UD and GSI ------------------------------------------------------ */

/*
 * The GRH area (IBTA 11.4.1.2): what a RoCEv2 receiver puts there is the
 * packet's IP header, an IPv4 one after 20 zero bytes (so that
 * ib_get_gids_from_rdma_hdr() finds it where RoCEv2 peers put it).
 */
static void sv_resp_build_grh(const struct sv_rx_pkt *pkt, u8 *grh)
{
	const u8 *nh = skb_network_header(pkt->skb);

	if (pkt->network_type == RDMA_NETWORK_IPV4) {
		memset(grh, 0, SV_GRH_BYTES - sizeof(struct iphdr));
		memcpy(grh + SV_GRH_BYTES - sizeof(struct iphdr), nh,
		       sizeof(struct iphdr));
	} else {
		memcpy(grh, nh, sizeof(struct ipv6hdr));
	}
}

static void sv_resp_ud(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	struct ib_wc *wc = &out->wc;
	u8 grh[SV_GRH_BYTES];
	enum sv_resp_err err;
	u32 qkey;
	int ret;

	/* Q_Key (IBTA 10.2.5): QP1 always uses the well-known one */
	qkey = qp->ibqp.qp_type == IB_QPT_GSI ? IB_QP1_QKEY :
						READ_ONCE(qp->attr.qkey);
	if (sv_deth_qkey(p->hdr) != qkey) {
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_QKEY_DROPS);
		return;
	}
	if (!(p->info->flags & SV_OP_SEND) || p->paylen > sv_qp_mtu(qp))
		return;

	ret = sv_resp_get_wqe(qp);
	if (ret == -EAGAIN)
		return;		/* UD has no RNR: the datagram is dropped */
	if (ret) {
		err = SV_RESP_LOC_QP_OP;
		goto fail;
	}
	if (qp->resp.wqe->dma.resid < SV_GRH_BYTES + p->paylen) {
		err = SV_RESP_LOC_LEN;
		goto fail;
	}
	sv_resp_build_grh(pkt, grh);
	err = sv_resp_scatter(qp, grh, SV_GRH_BYTES);
	if (!err)
		err = sv_resp_scatter(qp, sv_pkt_payload(p), p->paylen);
	if (err)
		goto fail;

	if (sv_opcode_has(p->info, SV_EXT_IMMDT)) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = sv_immdt_imm(p->hdr);
	}
	/* what ib_init_ah_attr_from_wc() needs to build a reply AH */
	wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE |
			IB_WC_WITH_SMAC;
	wc->network_hdr_type = pkt->network_type;
	memcpy(wc->smac, pkt->smac, ETH_ALEN);
	wc->pkey_index = 0;
	out->solicited = p->bth_flags & SV_BTH_SE;
	sv_resp_complete(qp, out, IB_WC_SUCCESS, IB_WC_RECV,
			 qp->resp.recv_len);
	wc->src_qp = sv_deth_sqp(p->hdr);
	return;
fail:
	sv_resp_dgram_fail(qp, out, err);
	if (out->post_wc)
		wc->src_qp = sv_deth_sqp(p->hdr);
}

/* --- entry points -------------------------------------------------------- */

/*
 * A response from a resource could not be sent (the device or the way to
 * the peer is full): put the cursors of @skb's resource and of every
 * later one in the queue back to their first unsent packet, which the
 * work item sends again.  The rest of the queue is freed.
 */
static void sv_resp_rewind(struct sv_qp *qp, struct sv_resp_out *out,
			   const struct sv_resp_cb *failed)
{
	const struct sv_resp_cb *cb = failed;
	struct sk_buff *skb = NULL;
	bool first = true;

	do {
		struct sv_resp_res *res;

		if (skb)
			cb = sv_resp_cb(skb);
		if (cb->from_res) {
			res = sv_resp_res_at(qp, cb->seq);
			if (first)
				qp->resp.res_serve = cb->seq;
			first = false;
			if (!res->pending ||
			    (res->type == SV_RES_READ &&
			     sv_psn_before(cb->cur_psn, res->cur_psn))) {
				res->cur_psn = cb->cur_psn;
				res->cur_off = cb->cur_off;
				res->pending = true;
			}
		}
		kfree_skb(skb);
	} while ((skb = __skb_dequeue(&out->txq)));
}

/*
 * Send the packets decided, in order, still under the lock (see the top).
 * With @retry (the work item), a packet the way out refused is kept for
 * another try; false tells the caller to back off first.
 */
static bool sv_resp_xmit(struct sv_qp *qp, struct sv_resp_out *out,
			 bool retry)
{
	struct sv_dev *sv = sv_resp_dev(qp);
	struct sk_buff *skb;
	u16 sport;

	lockdep_assert_held(&qp->resp.lock);
	if (skb_queue_empty(&out->txq))
		return true;
	sport = sv_path_udp_sport(out->path, qp->ibqp.qp_num,
				  READ_ONCE(qp->attr.dest_qp_num));
	while ((skb = __skb_dequeue(&out->txq))) {
		/* sv_net_xmit() consumes the skb: keep the cursor */
		struct sv_resp_cb cb = *sv_resp_cb(skb);

		if (!sv_net_xmit(sv, out->path, sport, skb) || !retry ||
		    !cb.from_res)
			continue;
		sv_resp_rewind(qp, out, &cb);
		return false;
	}
	return true;
}

/* Carry out the rest of what was decided, with no responder lock held. */
static void sv_resp_finish(struct sv_qp *qp, struct sv_resp_out *out)
{
	if (out->kick) {
		sv_qp_get(qp);		/* the work item's, dropped by it */
		if (!queue_work_on(raw_smp_processor_id(), system_highpri_wq,
				   &qp->resp.work))
			sv_qp_put(qp);
	}
	if (out->comm_est)
		sv_qp_event(qp, IB_EVENT_COMM_EST);
	if (out->post_wc)
		sv_cq_post(to_sv_cq(qp->ibqp.recv_cq), &out->wc,
			   out->solicited);
	if (out->qp_error)
		sv_qp_error(qp, out->event);
}

/*
 * The first packet after modify_qp made the QP receive: take over the
 * expected PSN modify_qp set (under state_lock, so that it is the one
 * stored with the state we saw).  Returns false if the QP does not
 * receive after all.
 */
static bool sv_resp_activate(struct sv_qp *qp, struct sv_resp_out *out)
{
	enum ib_qp_state state;
	unsigned long flags;

	lockdep_assert_held(&qp->resp.lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	qp->resp.psn &= SV_PSN_MASK;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!sv_resp_state_ok(state))
		return false;
	qp->resp.active = true;
	/*
	 * Communication established (IBTA 11.6.3.1): a connected QP
	 * received its first packet in RTR.
	 */
	if (state == IB_QPS_RTR && (qp->ibqp.qp_type == IB_QPT_RC ||
				    qp->ibqp.qp_type == IB_QPT_UC))
		out->comm_est = true;
	return true;
}

void sv_resp_rcv(struct sv_qp *qp, struct sv_rx_pkt *pkt)
{
	struct sv_resp_out out;

	if (!sv_resp_state_ok(READ_ONCE(qp->state)))
		return;
	sv_resp_out_init(&out);
	out.path = rcu_dereference(qp->path);

	spin_lock_bh(&qp->resp.lock);
	/* re-checked under the lock: reset clears the state after RESET */
	if (!sv_resp_state_ok(READ_ONCE(qp->state)) || qp->resp.dead)
		goto unlock;
	if (!qp->resp.active && !sv_resp_activate(qp, &out))
		goto unlock;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		sv_resp_rc(qp, pkt, &out);
		break;
	case IB_QPT_UC:
		sv_resp_uc(qp, pkt, &out);
		break;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		sv_resp_ud(qp, pkt, &out);
		break;
	default:
		break;
	}
	sv_resp_xmit(qp, &out, false);
unlock:
	spin_unlock_bh(&qp->resp.lock);
	sv_resp_finish(qp, &out);
}

/* batches the work item sends before it makes room for other work */
#define SV_RESP_WORK_BATCHES	64
/* refused sends in a row before the work item lets packets go lost */
#define SV_RESP_XMIT_TRIES	1000

/*
 * The work item: sends queued responses in batches (see the top), on the
 * CPU it was queued on; it requeues itself there after a while rather
 * than occupy the CPU's worker pool with a long read.
 */
static void sv_resp_work(struct work_struct *work)
{
	struct sv_qp *qp = container_of(work, struct sv_qp, resp.work);
	unsigned int batches = SV_RESP_WORK_BATCHES;
	unsigned int refused = 0;
	bool done = false;

	while (!done) {
		struct sv_resp_out out;
		bool sent = true;

		if (!batches--) {
			/*
			 * Our reference goes with the requeued work, unless
			 * it cannot be queued: queued already (that instance
			 * holds its queuer's reference) or being cancelled
			 * by sv_resp_reset(), which only puts the reference
			 * of a pending instance.  Then it is dropped here,
			 * or destroy_qp would wait for it for ever.
			 */
			if (!queue_work_on(raw_smp_processor_id(),
					   system_highpri_wq, &qp->resp.work))
				sv_qp_put(qp);
			return;
		}
		sv_resp_out_init(&out);
		rcu_read_lock();
		out.path = rcu_dereference(qp->path);
		spin_lock_bh(&qp->resp.lock);
		if (!sv_resp_state_ok(READ_ONCE(qp->state)) ||
		    qp->resp.dead || !qp->resp.serving) {
			done = true;
		} else {
			done = sv_resp_serve(qp, &out, SV_RESP_BATCH_PKTS);
			/*
			 * Pace to the way out: a long read easily outruns a
			 * peer's backlog (e.g. veth's netdev_max_backlog);
			 * what it refuses is sent again after a pause,
			 * instead of being lost and read again by the
			 * requester after its timeout.
			 */
			sent = sv_resp_xmit(qp, &out,
					    refused < SV_RESP_XMIT_TRIES);
			if (!sent)
				done = false;
		}
		if (done)
			qp->resp.serving = false;
		spin_unlock_bh(&qp->resp.lock);
		sv_resp_finish(qp, &out);
		rcu_read_unlock();
		if (sent) {
			refused = 0;
			cond_resched();
		} else {
			refused++;
			usleep_range(50, 100);
		}
	}
	sv_qp_put(qp);
}

/*
 * The QP entered ERR (sv_qp_flush(), before the RQ's WQEs): the WQE the
 * responder holds is older than those and completes first, with a flush
 * error, unless its own completion was already decided.
 */
void sv_resp_flush(struct sv_qp *qp)
{
	struct sv_resp_out out;
	unsigned long flags;

	sv_resp_out_init(&out);
	/*
	 * irqsave, not _bh: sv_qp_flush() runs in any context, e.g. from a
	 * kernel consumer's post_send with interrupts disabled.
	 */
	spin_lock_irqsave(&qp->resp.lock, flags);
	if (qp->resp.wqe_valid)
		sv_resp_complete(qp, &out, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0);
	qp->resp.in_msg = false;
	qp->resp.res_serve = qp->resp.res_head;
	spin_unlock_irqrestore(&qp->resp.lock, flags);
	if (out.post_wc)
		sv_cq_post(to_sv_cq(qp->ibqp.recv_cq), &out.wc, false);
}

/* Forget everything (RESET): no completion for a held WQE (IBTA 10.3.1). */
static void sv_resp_clear(struct sv_qp *qp)
{
	spin_lock_bh(&qp->resp.lock);
	qp->resp.msn = 0;
	qp->resp.active = false;
	qp->resp.dead = false;
	qp->resp.nak_sent = false;
	qp->resp.drop_msg = false;
	qp->resp.in_msg = false;
	qp->resp.wqe_valid = false;
	qp->resp.serving = false;
	qp->resp.ack_pending = false;
	qp->resp.wr_resid = 0;
	qp->resp.res_head = 0;
	qp->resp.res_serve = 0;
	if (qp->resp.res)
		memset(qp->resp.res, 0,
		       SV_MAX_QP_RD_ATOM * sizeof(*qp->resp.res));
	spin_unlock_bh(&qp->resp.lock);
}

int sv_resp_init(struct sv_qp *qp)
{
	spin_lock_init(&qp->resp.lock);
	INIT_WORK(&qp->resp.work, sv_resp_work);
	qp->resp.wqe = kzalloc(sv_resp_wqe_size(), GFP_KERNEL);
	if (!qp->resp.wqe)
		return -ENOMEM;
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		qp->resp.res = kcalloc(SV_MAX_QP_RD_ATOM,
				       sizeof(*qp->resp.res), GFP_KERNEL);
		if (!qp->resp.res) {
			kfree(qp->resp.wqe);
			qp->resp.wqe = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void sv_resp_reset(struct sv_qp *qp)
{
	/* the work item holds a QP reference while it is queued */
	if (cancel_work_sync(&qp->resp.work))
		sv_qp_put(qp);
	sv_resp_clear(qp);
}

void sv_resp_cleanup(struct sv_qp *qp)
{
	/* create failed before or in sv_resp_init(): nothing to undo */
	if (!qp->resp.wqe)
		return;
	/* no reference is left, so no work item is queued; be sure anyway */
	cancel_work_sync(&qp->resp.work);
	kfree(qp->resp.res);
	qp->resp.res = NULL;
	kfree(qp->resp.wqe);
	qp->resp.wqe = NULL;
}
