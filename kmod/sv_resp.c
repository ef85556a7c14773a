// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: accepts requests for RC (IBTA 9.7), UC (9.8) and UD/GSI
 * (9.9, 10.2.5) QPs: packet and PSN checks, receive WQEs, SEND and RDMA WRITE
 * placement, and which ACK or NAK answers.  Requests that take a responder
 * resource are sv_resp_res.c's, the packets sent sv_resp_pkt.c's; sv_resp.h
 * is what the three share.
 *
 * Documentation/design.md, "Transport" (responder).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_mad.h>

#include "sv.h"
#include "sv_psn.h"
#include "sv_resp.h"
#include "sv_rnr.h"
#include "sv_xport.h"

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
	u32 prod;

	/* resp.lock owns the RQ's consumer side (struct sv_wq) */
	lockdep_assert_held(&qp->resp.lock);
	/* acquire: the slot contents before the index (uapi ordering) */
	prod = smp_load_acquire(&q->buf->producer_index) & q->index_mask;
	if (prod == q->cons)
		return -EAGAIN;
	sv_wqe_copy_recv(wqe, sv_queue_consumer_slot(q), wq->max_sge);
	sv_queue_consume(q);

	return sv_wqe_check_recv(wqe, wq->max_sge);
}

/*
 * The PD that keys of the packet being processed are checked against: the
 * QP's, or on an XRC target (which has none) the XRC SRQ's (IBTA A14).
 * NULL on a target without an SRQ for the packet: no key matches it.
 */
struct ib_pd *sv_resp_pd(struct sv_qp *qp)
{
	lockdep_assert_held(&qp->resp.lock);
	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return qp->ibqp.pd;
	return qp->resp.xrc_srq ? qp->resp.xrc_srq->ibsrq.pd : NULL;
}

/*
 * Make sure a receive WQE is held: 0, -EAGAIN (none posted: RNR), or
 * -EINVAL (malformed; it is held anyway, for its error completion).
 */
static int sv_resp_get_wqe(struct sv_qp *qp)
{
	struct sv_srq *xrc = qp->resp.xrc_srq;
	int err;

	lockdep_assert_held(&qp->resp.lock);
	if (qp->resp.wqe_valid)
		return 0;
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		/* sv_resp_rc() refused a packet that names none */
		if (WARN_ON_ONCE(!xrc))
			return -EAGAIN;
		err = sv_srq_pop(xrc, qp->resp.wqe, qp->resp.wqe_size);
		qp->resp.xrc_wqe_srqn = xrc->srq_num;
	} else if (qp->ibqp.srq) {
		err = sv_srq_pop(to_sv_srq(qp->ibqp.srq), qp->resp.wqe,
				 qp->resp.wqe_size);
	} else {
		err = sv_resp_rq_pop(qp);
	}
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

/*
 * Scatter @len bytes of @src over the held WQE's SGEs, from its cursor.
 * On SV_RESP_ODP the cursor is where it was: the packet comes again.
 */
static enum sv_resp_err sv_resp_scatter(struct sv_qp *qp,
					const struct sv_pay *src, u32 len)
{
	struct sv_dma_info *dma = &qp->resp.wqe->dma;
	struct sv_dev *sv = sv_resp_dev(qp);
	u32 cur_sge = dma->cur_sge, sge_offset = dma->sge_offset;
	u32 resid = dma->resid, recv_len = qp->resp.recv_len, off = 0;

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
		mr = sv_mr_lookup_rcu(sv, sge->lkey, sv_resp_pd(qp),
				      qp->ibqp.qp_num, IB_ACCESS_LOCAL_WRITE,
				      &iova, n);
		if (IS_ERR(mr))
			return SV_RESP_LOC_PROT;
		err = sv_mr_copy_in(mr, iova, src, off, n);
		if (err == -EAGAIN)
			err = sv_odp_fault_async(qp, SV_ODP_RESP, mr, iova,
						 sge->length - dma->sge_offset,
						 true);
		sv_mr_put(mr);
		if (err == -EAGAIN) {
			dma->cur_sge = cur_sge;
			dma->sge_offset = sge_offset;
			dma->resid = resid;
			qp->resp.recv_len = recv_len;
			return SV_RESP_ODP;
		}
		if (err)
			return SV_RESP_LOC_PROT;
		off += n;
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
	out->xrc_srqn = qp->resp.xrc_wqe_srqn;
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
	sv_resp_pkt_nak(qp, out, code, psn);
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
	else if (err == SV_RESP_ODP)
		/* dropped, its pages faulted for the next (sv_odp.c) */
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_ODP_DROPS);
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
 * The checks every RDMA WRITE and READ request passes first: the QP's own
 * access flags gate the operation (IBTA 10.2), the length is at most a
 * message's, and the R_Key grants @access over [@va, @va + @len), except
 * for a zero-length transfer, whose R_Key IBTA does not check (9.4.4,
 * 9.4.5).  On success *@mrp holds the MR (a reference, NULL for a
 * zero-length transfer) and *@iova the address @va in it.
 */
enum sv_resp_err sv_resp_rdma_get(struct sv_qp *qp, int access, u64 va,
				  u32 rkey, u32 len, struct sv_mr **mrp,
				  u64 *iova)
{
	struct sv_mr *mr;

	*mrp = NULL;
	*iova = va;
	if (!(READ_ONCE(qp->attr.qp_access_flags) & access))
		return SV_RESP_INV_REQ;
	if (len > SV_PORT_MAX_MSG_SZ)
		return SV_RESP_INV_REQ;
	if (!len)
		return SV_RESP_OK;
	mr = sv_mr_lookup_rcu(sv_resp_dev(qp), rkey, sv_resp_pd(qp),
			      qp->ibqp.qp_num, access, iova, len);
	if (IS_ERR(mr))
		return SV_RESP_REM_ACCESS;
	*mrp = mr;
	return SV_RESP_OK;
}

/* sv_resp_rdma_get() for a request that reaches its memory later */
enum sv_resp_err sv_resp_rdma_check(struct sv_qp *qp, int access, u64 va,
				    u32 rkey, u32 len)
{
	enum sv_resp_err err;
	struct sv_mr *mr;
	u64 iova;

	err = sv_resp_rdma_get(qp, access, va, rkey, len, &mr, &iova);
	if (mr)
		sv_mr_put(mr);
	return err;
}

/*
 * Packet lengths (IBTA 9.7.7; 9.8 for UC): First and Middle packets carry
 * exactly the path MTU, Last packets 1..MTU bytes, Only packets 0..MTU.
 * A local burst stands for p->npkts packets of the MTU (design.md, "Local
 * bursts"): a First or Middle one carries as many MTUs, a Last or Only one
 * more than npkts - 1 and at most npkts.
 */
static bool sv_resp_len_ok(struct sv_qp *qp, const struct sv_pkt_info *p)
{
	u32 mtu = sv_qp_mtu(qp);
	u32 flags = p->info->flags;

	if (p->npkts > 1) {
		if (!(flags & SV_OP_LAST))
			return p->paylen == p->npkts * mtu;
		return p->paylen > (p->npkts - 1) * mtu &&
		       p->paylen <= p->npkts * mtu;
	}
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

/* An opcode that consumes a receive WQE (@flags): hold one, or say why not. */
static enum sv_resp_err sv_resp_take_wqe(struct sv_qp *qp, u32 flags)
{
	int ret;

	if (!(flags & SV_OP_RWQE))
		return SV_RESP_OK;
	ret = sv_resp_get_wqe(qp);
	if (ret == -EAGAIN)
		return SV_RESP_RNR;
	return ret ? SV_RESP_LOC_QP_OP : SV_RESP_OK;
}

/* Not the last packet (@flags): the message of @op goes on. */
static bool sv_resp_msg_goes_on(struct sv_qp *qp, u32 flags, u32 op)
{
	if (flags & SV_OP_LAST)
		return false;
	qp->resp.in_msg = true;
	qp->resp.msg_op = op;
	return true;
}

static enum sv_resp_err sv_resp_send(struct sv_qp *qp,
				     const struct sv_rx_pkt *pkt,
				     struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	enum sv_resp_err err;
	struct sv_pay pay;

	err = sv_resp_take_wqe(qp, flags);
	if (err)
		return err;
	if (WARN_ON_ONCE(!qp->resp.wqe_valid))
		return SV_RESP_LOC_QP_OP;
	pay = sv_rx_pay(pkt);
	err = sv_resp_scatter(qp, &pay, p->paylen);
	if (err)
		return err;
	if (sv_resp_msg_goes_on(qp, flags, SV_OP_SEND))
		return SV_RESP_OK;

	/* Send with Invalidate (IBTA 9.4.1.1, 10.6.6.2): before the CQE */
	if (sv_opcode_has(p->info, SV_EXT_IETH)) {
		u32 rkey = sv_ieth_rkey(p->hdr);

		if (sv_mr_invalidate(sv_resp_dev(qp), rkey, sv_resp_pd(qp),
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

/*
 * Place @len bytes of @src, an RDMA WRITE's, at the message's cursor:
 * through @mr at @iova when the first packet's check has just found them
 * (the reference is consumed), else (@mr NULL) through the R_Key again.
 */
static enum sv_resp_err sv_resp_write_data(struct sv_qp *qp,
					   const struct sv_pay *src, u32 len,
					   struct sv_mr *mr, u64 iova)
{
	int err;

	if (!len || len > qp->resp.wr_resid) {
		if (mr)
			sv_mr_put(mr);
		return len ? SV_RESP_INV_REQ : SV_RESP_OK;
	}
	if (!mr) {
		iova = qp->resp.wr_va;
		mr = sv_mr_lookup_rcu(sv_resp_dev(qp), qp->resp.wr_rkey,
				      sv_resp_pd(qp), qp->ibqp.qp_num,
				      IB_ACCESS_REMOTE_WRITE, &iova, len);
		if (IS_ERR(mr))
			return SV_RESP_REM_ACCESS;
	}
	err = sv_mr_copy_in(mr, iova, src, 0, len);
	if (err == -EAGAIN)
		err = sv_odp_fault_async(qp, SV_ODP_RESP, mr, iova,
					 qp->resp.wr_resid, true);
	sv_mr_put(mr);
	if (err == -EAGAIN)
		return SV_RESP_ODP;
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
	struct sv_mr *mr = NULL;
	enum sv_resp_err err;
	struct sv_pay pay;
	u64 iova = 0;

	if (flags & SV_OP_FIRST) {
		u64 va = sv_reth_va(p->hdr);
		u32 rkey = sv_reth_rkey(p->hdr);
		u32 len = sv_reth_len(p->hdr);

		/* the MR found is the one this packet's data goes into */
		err = sv_resp_rdma_get(qp, IB_ACCESS_REMOTE_WRITE, va, rkey,
				       len, &mr, &iova);
		if (err)
			return err;
		/* a packet cannot carry more than the message announces */
		if (p->paylen > len) {
			err = SV_RESP_INV_REQ;
			goto put_mr;
		}
		qp->resp.wr_va = va;
		qp->resp.wr_rkey = rkey;
		qp->resp.wr_resid = len;
		qp->resp.wr_len = len;
	}
	/* with Immediate: the last packet consumes a receive WQE (9.4.2) */
	err = sv_resp_take_wqe(qp, flags);
	if (err)
		goto put_mr;
	pay = sv_rx_pay(pkt);
	err = sv_resp_write_data(qp, &pay, p->paylen, mr, iova);
	if (err)
		return err;
	if (sv_resp_msg_goes_on(qp, flags, SV_OP_WRITE))
		return SV_RESP_OK;
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
	/* placed: a remote RDMA WRITE, with immediate or not (its WQE: RECV) */
	sv_resp_cntr(out, SV_CNTR_REMOTE_WRITE, true);
	sv_resp_msg_done(qp);
	return SV_RESP_OK;

put_mr:
	if (mr)
		sv_mr_put(mr);
	return err;
}

/* --- RC ---------------------------------------------------------------- */

/*
 * Request packets kept while an ODP fault is resolved (resp.odp_q): the
 * one that missed, and those that follow it in PSN order while the kept
 * ones stand for at most SV_RESP_ODP_PARK packets of the MTU (else
 * dropped: the requester's resend brings them), so that the fault's
 * retry places what is in flight, not one packet per RNR round trip.
 * Bounded per QP: the one that missed (a local burst: up to
 * SV_HDR_MAX_LOCAL_PAYLOAD) and that many MTUs.
 */
#define SV_RESP_ODP_PARK	16

/* a parked copy's cb (ours: a private skb) */
struct sv_resp_odp_cb {
	u32	psn;		/* its PSN */
	u32	next_psn;	/* the PSN after the ones it takes */
	u8	npkts;		/* the packets it stands for (a local burst) */
};

static inline struct sv_resp_odp_cb *sv_resp_odp_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sv_resp_odp_cb) > sizeof(skb->cb));
	return (struct sv_resp_odp_cb *)skb->cb;
}

/*
 * Keep @pkt for sv_resp_odp_retry(): a private copy (the received skb may
 * be charged to a socket).  @first: it missed at the PSN expected, and
 * replaces what was kept (earlier tries, or stale); else it must follow
 * the last one kept.  Returns whether it was kept; without memory
 * nothing is, and the requester's resend comes anyway.
 */
static bool sv_resp_odp_park(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
			     bool first)
{
	struct sk_buff_head *q = &qp->resp.odp_q;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->resp.lock);
	if (first) {
		__skb_queue_purge(q);
	} else if (!skb_queue_len(q) ||
		   pkt->p.psn != sv_resp_odp_cb(skb_peek_tail(q))->next_psn ||
		   sv_psn_dist(sv_resp_odp_cb(skb_peek(q))->psn,
			       sv_psn_add(pkt->p.psn, pkt->p.npkts)) >
			   SV_RESP_ODP_PARK) {
		return false;
	}
	skb = sv_recv_pkt_copy(pkt);
	if (!skb)
		return false;
	sv_resp_odp_cb(skb)->psn = pkt->p.psn;
	sv_resp_odp_cb(skb)->next_psn = sv_psn_add(pkt->p.psn, pkt->p.npkts);
	sv_resp_odp_cb(skb)->npkts = pkt->p.npkts;
	__skb_queue_tail(q, skb);
	return true;
}

/*
 * PSN sequence error (IBTA 9.7.5.2.1): NAK once per gap, then drop until
 * the expected PSN comes.  Behind queued responses the NAK would cut them
 * off: sv_resp_serve() sends it after them.
 */
static void sv_resp_seq_err(struct sv_qp *qp, struct sv_resp_out *out)
{
	sv_stat_inc(sv_resp_dev(qp), SV_STAT_OUT_OF_SEQ);
	if (qp->resp.nak_sent)
		return;
	if (qp->resp.serving) {
		qp->resp.nak_deferred = max_t(u8, qp->resp.nak_deferred,
					      SV_RESP_DEFER_SEQ);
		return;
	}
	sv_resp_pkt_nak(qp, out, SV_NAK_PSN_SEQ_ERR, qp->resp.psn);
	qp->resp.nak_sent = true;
	qp->resp.seq_naks++;
}

static void sv_resp_rc(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	s32 diff = sv_psn_diff(p->psn, qp->resp.psn);
	enum sv_resp_err err;
	u32 last;

	/* not a gap: a packet kept behind one parked on an ODP miss */
	if (diff > 0 && sv_resp_odp_park(qp, pkt, false))
		return;
	/*
	 * A local burst that starts before the expected PSN and reaches
	 * past it (the requester cut its packets otherwise when it sent
	 * them first) is a gap too: its new part starts inside it.
	 */
	if (diff > 0 ||
	    (diff < 0 && diff + (s32)p->npkts > 0)) {
		sv_resp_seq_err(qp, out);
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
	/*
	 * XRC target (IBTA A14): the XRCETH must name an XRC SRQ of the
	 * QP's domain (sv_resp_xrc() looked it up), and a message holding
	 * a receive WQE must go on naming the SRQ it came from.
	 */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT &&
	    (!qp->resp.xrc_srq ||
	     (qp->resp.wqe_valid && (flags & (SV_OP_SEND | SV_OP_RWQE)) &&
	      qp->resp.xrc_srq->srq_num != qp->resp.xrc_wqe_srqn))) {
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

	if (err == SV_RESP_RNR || err == SV_RESP_ODP) {
		/*
		 * Receiver Not Ready (IBTA 9.7.5.2.8): the requester waits
		 * min_rnr_timer and sends this PSN again.  Packets after it
		 * are dropped like any after a NAK (after an ODP miss some
		 * are kept with it, see above).  Behind queued responses
		 * the NAK waits for them (a NAK would cut them off).  An
		 * ODP page fault is answered the same way while sv_odp.c
		 * faults the page in, as HCAs do; the packet, which left no
		 * trace, is kept: sv_resp_odp_fault() places it under the
		 * fault's lock, so that it cannot miss again, and the
		 * requester's resend finds it a duplicate.  Each fault so
		 * moves the message on by a packet at least, however often
		 * the process invalidates its pages.
		 */
		if (err == SV_RESP_ODP)
			sv_resp_odp_park(qp, pkt, true);
		if (out->odp_retry)
			return;		/* NAKed when it missed first */
		if (qp->resp.serving) {
			/* an ODP miss: RNR only if still parked by then */
			qp->resp.nak_deferred = max_t(u8,
				qp->resp.nak_deferred,
				err == SV_RESP_RNR ? SV_RESP_DEFER_RNR :
						     SV_RESP_DEFER_SEQ);
			return;
		}
		sv_resp_pkt_rnr_nak(qp, out, p->psn);
		return;
	}
	if (err)
		goto fail;
	/* accepted: its responses follow (sv_resp_res.c) */
	if (flags & SV_OP_READ)
		sv_resp_cntr(out, SV_CNTR_REMOTE_READ, true);

	/* a deferred NAK stays: what was dropped after this is still lost */
	qp->resp.nak_sent = false;
	if (flags & (SV_OP_SEND | SV_OP_WRITE)) {
		last = sv_psn_add(p->psn, p->npkts - 1);
		sv_resp_set_psn(qp, sv_psn_add(last, 1));
		if (p->bth_flags & SV_BTH_ACKREQ)
			sv_resp_pkt_ack(qp, out, last);
	}
	return;

fail:
	/* a remote RDMA READ or WRITE that failed here is an error to count */
	if (flags & SV_OP_READ)
		sv_resp_cntr(out, SV_CNTR_REMOTE_READ, false);
	else if (flags & SV_OP_WRITE)
		sv_resp_cntr(out, SV_CNTR_REMOTE_WRITE, false);
	sv_resp_rc_fail(qp, out, err, p->psn);
}

/*
 * XRC target (IBTA Annex A14): RC's responder, with the XRC SRQ the
 * packet's XRCETH names, if it is one of the QP's domain, held for this
 * packet only (design.md, "XRC"); sv_resp_rc() refuses a request without.
 */
static void sv_resp_xrc(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
			struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;

	qp->resp.xrc_srq = NULL;
	if (p->info->flags & SV_OP_REQ)
		qp->resp.xrc_srq = sv_srq_get_xrc(sv_resp_dev(qp),
						  sv_xrceth_srqn(p->hdr),
						  qp->xrcd);
	sv_resp_rc(qp, pkt, out);
	if (qp->resp.xrc_srq) {
		sv_srq_put(qp->resp.xrc_srq);
		qp->resp.xrc_srq = NULL;
	}
}

/*
 * The ODP fault the responder asked for, and its retry (sv_odp.c's work
 * item): under the fault's lock (sv_mr_odp_fault_use()) the parked
 * request packets are placed, in PSN order, as long as each is the one
 * expected (the requester's resend may have been placed meanwhile, or the
 * QP reset) and places (one that misses again, on another page or MR, is
 * parked again with those after it); then the parked response is served.
 */
struct sv_resp_odp_retry {
	struct sv_qp		*qp;
	struct sv_resp_out	out;
};

static void sv_resp_odp_retry(void *arg)
{
	struct sv_resp_odp_retry *r = arg;
	struct sv_qp *qp = r->qp;
	struct sv_resp_out *out = &r->out;
	struct sk_buff_head q;
	struct sk_buff *skb;
	bool ok;

	__skb_queue_head_init(&q);
	rcu_read_lock();
	out->path = rcu_dereference(qp->path);
	out->odp_retry = true;
	spin_lock_bh(&qp->resp.lock);
	skb_queue_splice_init(&qp->resp.odp_q, &q);
	ok = sv_resp_state_ok(READ_ONCE(qp->state)) && qp->resp.active;
	while ((skb = __skb_dequeue(&q))) {
		struct sv_rx_pkt pkt = {
			.skb = skb,
			.sv = sv_resp_dev(qp),
		};

		const struct sv_resp_odp_cb *cb = sv_resp_odp_cb(skb);

		/* it parsed when it came, and is still the same bytes */
		if (ok && !qp->resp.dead && cb->psn == qp->resp.psn &&
		    !sv_hdr_parse_local(skb->data, skb->len, cb->npkts,
					&pkt.p)) {
			if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
				sv_resp_xrc(qp, &pkt, out);
			else
				sv_resp_rc(qp, &pkt, out);
		}
		consume_skb(skb);
		if (!skb_queue_empty(&qp->resp.odp_q)) {
			/* parked again: the rest waits behind it */
			skb_queue_splice_tail_init(&q, &qp->resp.odp_q);
			break;
		}
	}
	/*
	 * Then the parked response (earlier in PSN order: a later WRITE may
	 * be placed before an earlier READ reads, see sv_resp_res.c), whose
	 * end sends a NAK held back behind it from the PSN now expected.
	 */
	sv_resp_res_odp_resume(qp, out, ok && !qp->resp.dead);
	/* responses the way out refuses: the work item sends them again */
	if (!sv_resp_pkt_xmit(qp, out, true)) {
		qp->resp.serving = true;
		out->kick = true;
	}
	spin_unlock_bh(&qp->resp.lock);
	rcu_read_unlock();
}

void sv_resp_odp_fault(struct sv_qp *qp, struct sv_mr *mr, u64 iova, u64 len,
		       bool write)
{
	struct sv_resp_odp_retry r = { .qp = qp };
	int err;

	sv_resp_out_init(&r.out);
	err = sv_mr_odp_fault_use(mr, iova, len, write, true,
				  sv_resp_odp_retry, &r);
	if (err) {
		/* the retried access reports it */
		sv_odp_fault_failed(qp, SV_ODP_RESP, mr, iova, len, err);
		sv_resp_odp_retry(&r);
	}
	/* completions, events and the work item with no lock held */
	sv_resp_finish(qp, &r.out);
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
	if (!sv_resp_seq_ok(qp, flags) || !sv_resp_len_ok(qp, p)) {
		sv_resp_set_psn(qp, sv_psn_add(p->psn, 1));
		err = SV_RESP_INV_REQ;
		goto fail;
	}
	sv_resp_set_psn(qp, sv_psn_add(p->psn, p->npkts));
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

	if (pkt->addr.network_type == RDMA_NETWORK_IPV4) {
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
	struct sv_pay pay;
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
	pay = (struct sv_pay){ .buf = grh };
	err = sv_resp_scatter(qp, &pay, SV_GRH_BYTES);
	if (!err) {
		pay = sv_rx_pay(pkt);
		err = sv_resp_scatter(qp, &pay, p->paylen);
	}
	if (err)
		goto fail;

	if (sv_opcode_has(p->info, SV_EXT_IMMDT)) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = sv_immdt_imm(p->hdr);
	}
	/* what ib_init_ah_attr_from_wc() needs to build a reply AH */
	wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE |
			IB_WC_WITH_SMAC;
	wc->network_hdr_type = pkt->addr.network_type;
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
 * An XRC target's receive completion goes to the CQ of the SRQ its WQE
 * came from, looked up by number (a reference keeps the SRQ, and so its
 * CQ, while posting); an SRQ destroyed meanwhile takes its CQ's right to
 * completions with it.
 */
static void sv_resp_post_xrc(struct sv_qp *qp, struct sv_resp_out *out)
{
	struct sv_srq *srq = sv_srq_get_xrc(sv_resp_dev(qp), out->xrc_srqn,
					    qp->xrcd);

	if (!srq)
		return;
	sv_cq_post(to_sv_cq(srq->ibsrq.ext.cq), &out->wc, out->solicited);
	sv_srq_put(srq);
}

/* Carry out the rest of what was decided, with no responder lock held. */
void sv_resp_finish(struct sv_qp *qp, struct sv_resp_out *out)
{
	/* completions and events with no QP lock (design.md, "Locking") */
	lockdep_assert_not_held(&qp->resp.lock);
	if (out->kick) {
		sv_qp_get(qp);		/* the work item's, dropped by it */
		sv_resp_work_queue(qp);
	}
	if (out->comm_est)
		sv_qp_event(qp, IB_EVENT_COMM_EST);
	if (out->post_wc && qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		sv_resp_post_xrc(qp, out);
	else if (out->post_wc)
		sv_cq_post(to_sv_cq(qp->ibqp.recv_cq), &out->wc,
			   out->solicited);
	/* counted after the CQE and before the error's flushes */
	if (out->post_wc)
		sv_cntr_count(qp, SV_CNTR_RECV,
			      out->wc.status == IB_WC_SUCCESS);
	if (out->cntr)
		sv_cntr_count(qp, out->cntr_op, out->cntr_ok);
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
	if (state == IB_QPS_RTR && sv_qp_connected(qp))
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

	/* bottom halves are off (sv_xport.h): resp.lock needs no _bh here */
	lockdep_assert_in_softirq();
	spin_lock(&qp->resp.lock);
	/* re-checked under the lock: reset clears the state after RESET */
	if (!sv_resp_state_ok(READ_ONCE(qp->state)) || qp->resp.dead)
		goto unlock;
	if (!qp->resp.active && !sv_resp_activate(qp, &out))
		goto unlock;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		sv_resp_rc(qp, pkt, &out);
		break;
	case IB_QPT_XRC_TGT:
		sv_resp_xrc(qp, pkt, &out);
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
	sv_resp_pkt_xmit(qp, &out, false);
unlock:
	spin_unlock(&qp->resp.lock);
	sv_resp_finish(qp, &out);
}

/*
 * The QP entered ERR (sv_qp_rq_flush_err(), before the RQ's WQEs): the WQE
 * the responder holds is older than those and completes first, with a
 * flush error, unless its own completion was already decided.  Called by
 * the completer's retire task only, which never runs with interrupts off
 * (sv_task_sched() defers then): resp.lock is _bh here, as everywhere
 * bottom halves may be on.
 */
void sv_resp_flush_err(struct sv_qp *qp)
{
	struct sv_resp_out out;

	sv_resp_out_init(&out);
	spin_lock_bh(&qp->resp.lock);
	if (qp->resp.wqe_valid)
		sv_resp_complete(qp, &out, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0);
	qp->resp.in_msg = false;
	qp->resp.res_serve = qp->resp.res_head;
	spin_unlock_bh(&qp->resp.lock);
	if (out.post_wc && qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		sv_resp_post_xrc(qp, &out);
	else if (out.post_wc)
		sv_cq_post(to_sv_cq(qp->ibqp.recv_cq), &out.wc, false);
	if (out.post_wc)
		sv_cntr_count(qp, SV_CNTR_RECV, false);
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
	qp->resp.odp_wait = false;
	__skb_queue_purge(&qp->resp.odp_q);
	qp->resp.nak_deferred = SV_RESP_DEFER_NONE;
	qp->resp.ack_pending = false;
	qp->resp.wr_resid = 0;
	qp->resp.res_head = 0;
	qp->resp.res_serve = 0;
	if (qp->resp.res)
		memset(qp->resp.res, 0,
		       qp->resp.res_size * sizeof(*qp->resp.res));
	spin_unlock_bh(&qp->resp.lock);
}

int sv_resp_init(struct sv_qp *qp, const struct ib_qp_init_attr *init)
{
	/* a user QP's memory is the process's (see sv_req_alloc()) */
	gfp_t gfp = qp->uc ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	u32 max_sge;

	spin_lock_init(&qp->resp.lock);
	INIT_WORK(&qp->resp.work, sv_resp_work);
	__skb_queue_head_init(&qp->resp.odp_q);
	sv_odp_init(qp);
	/*
	 * The copy of a receive WQE is as large as the WQEs it is taken
	 * from: the RQ's, the SRQ's (whose max_sge never changes), or on an
	 * XRC target, which receives through any XRC SRQ of its domain,
	 * the largest an SRQ may have.
	 */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		max_sge = SV_MAX_SRQ_SGE;
	else if (init->srq)
		max_sge = to_sv_srq(init->srq)->max_sge;
	else
		max_sge = qp->rq.max_sge;
	qp->resp.wqe_size = sv_srq_wqe_size(max_sge);
	qp->resp.wqe = kzalloc(qp->resp.wqe_size, gfp);
	if (!qp->resp.wqe)
		return -ENOMEM;
	/* the responder resources come with max_dest_rd_atomic (RTR) */
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
	__skb_queue_purge(&qp->resp.odp_q);
	kfree(qp->resp.res);
	qp->resp.res = NULL;
	kfree(qp->resp.wqe);
	qp->resp.wqe = NULL;
}
