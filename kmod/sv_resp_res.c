// SPDX-License-Identifier: GPL-2.0
/*
 * The responder's resources (IBTA 9.7.5.1.4): RDMA READ, atomics, FLUSH and
 * ATOMIC WRITE, the ring of max_dest_rd_atomic entries that answers their
 * duplicates (9.7.4), and the work item that sends long read responses.
 * sv_resp.c accepts the request and calls in here; sv_resp_pkt.c builds
 * the packets; sv_resp.h is shared.
 *
 * Documentation/design.md, "Transport" (responder).
 */
#include "sv.h"
#include "sv_psn.h"
#include "sv_resp.h"
#include "sv_xport.h"

/* packets of read responses the softirq sends before it hands over */
#define SV_RESP_INLINE_PKTS	16
/* packets the work item builds per lock hold */
#define SV_RESP_BATCH_PKTS	16

/* --- responder resources: RDMA READ and atomics (RC) ------------------- */

static struct sv_resp_res *sv_resp_res_at(struct sv_qp *qp, u32 seq)
{
	return &qp->resp.res[seq & (qp->resp.res_size - 1)];
}

/*
 * Room for @max_dest_rd_atomic resources, from modify_qp before the value
 * takes effect (process context, under modify_mutex, the only writer of
 * res and res_size).  Not at create: a QP that is never connected, or
 * accepts no RDMA READ or atomic, needs none, and the ring is sized to
 * what was negotiated (Soft-RoCE does the same), not the device maximum.
 * It only grows (SQD to SQD may raise the value while requests are
 * outstanding): the resources keep their sequence numbers, so the
 * requests being served and the history duplicates are matched against
 * move over as they are.  Slots that never held a request are
 * SV_RES_NONE.
 */
int sv_resp_res_reserve(struct sv_qp *qp, u32 max_dest_rd_atomic)
{
	/* a user QP's memory is the process's (see sv_req_alloc()) */
	gfp_t gfp = qp->uc ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	u32 size = roundup_pow_of_two(max(max_dest_rd_atomic, 1U));
	struct sv_resp_res *res, *old;
	u32 seq, n;

	static_assert(sizeof(*res) == 64);
	might_sleep();
	/* an XRC initiator never responds: only RC and XRC targets need them */
	if (qp->ibqp.qp_type != IB_QPT_RC &&
	    qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return 0;
	if (size <= qp->resp.res_size)
		return 0;
	res = kcalloc(size, sizeof(*res), gfp);
	if (!res)
		return -ENOMEM;
	spin_lock_bh(&qp->resp.lock);
	old = qp->resp.res;
	n = min(qp->resp.res_head, qp->resp.res_size);
	for (seq = qp->resp.res_head - n; seq != qp->resp.res_head; seq++)
		res[seq & (size - 1)] = *sv_resp_res_at(qp, seq);
	qp->resp.res = res;
	qp->resp.res_size = size;
	spin_unlock_bh(&qp->resp.lock);
	kfree(old);
	return 0;
}

/*
 * Take a new resource of @type for the request at @psn on [@va, ...)
 * through @rkey, answered by one response at @psn unless the caller says
 * otherwise; NULL when max_dest_rd_atomic are busy: more outstanding
 * RDMA READ/atomic requests than negotiated are an Invalid Request
 * (IBTA 9.7.5.2).
 */
static struct sv_resp_res *sv_resp_res_new(struct sv_qp *qp,
					   enum sv_res_type type, u32 psn,
					   u64 va, u32 rkey)
{
	u32 max = READ_ONCE(qp->attr.max_dest_rd_atomic);
	u32 busy = qp->resp.res_head - qp->resp.res_serve;
	struct sv_resp_res *res;
	u32 seq;

	lockdep_assert_held(&qp->resp.lock);
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
	 * of the oldest of res_size outstanding requests gets here.  That
	 * is the peer's invalid request (NAKed), not our bug, and a remote
	 * WARN is a remote crash where panic_on_warn is set.
	 */
	if (sv_resp_res_at(qp, qp->resp.res_head)->pending &&
	    qp->resp.res_head - qp->resp.res_serve >= qp->resp.res_size)
		return NULL;
	res = sv_resp_res_at(qp, qp->resp.res_head++);
	memset(res, 0, sizeof(*res));
	res->type = type;
	res->pending = true;
	res->first_psn = psn;
	res->last_psn = psn;
	res->va = va;
	res->rkey = rkey;
	/* XRC target: the SRQ whose PD its keys are checked against */
	if (qp->resp.xrc_srq)
		res->xrc_srqn = qp->resp.xrc_srq->srq_num;
	return res;
}

/*
 * One read response packet of @res: 0, -EACCES when its memory went away,
 * -EAGAIN when an ODP page of it is being faulted (sv_odp.c): nothing
 * was sent, the same packet is made again after the fault.  A local
 * frame's payload stays in the MR where it can (design.md, "Payload by
 * reference"): the completer copies it from there.
 */
static int sv_resp_read_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			     struct sv_resp_res *res)
{
	u32 left = res->end_off - res->cur_off;
	u32 n = min(left, res->mtu);
	bool first = res->cur_psn == res->start_psn;
	bool last = n == left;
	struct sv_net_pkt *pkt;
	struct sv_mr *mr = NULL;
	u8 *hdr = NULL;
	u64 iova = 0;
	u8 opcode;

	if (first)
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	else
		opcode = last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
				IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;

	if (n) {
		/* the first packet of the READ just checked: its MR, held */
		if (out->read_res == res && !res->cur_off) {
			mr = out->read_mr;
			iova = out->read_iova;
			sv_mr_hold(mr);
		} else {
			iova = res->va + res->cur_off;
			mr = sv_mr_lookup_rcu(sv_resp_dev(qp), res->rkey,
					      sv_resp_pd(qp), qp->ibqp.qp_num,
					      IB_ACCESS_REMOTE_READ, &iova, n);
			/* invalidated or deregistered meanwhile */
			if (IS_ERR(mr))
				return -EACCES;
		}
		if (sv_mr_can_ref(mr)) {
			hdr = sv_resp_pkt_new(qp, out, opcode, res->cur_psn, n,
					      mr, iova, &pkt);
			if (hdr)
				mr = NULL;	/* the frame's now */
		}
	}
	if (!hdr)
		hdr = sv_resp_pkt_new(qp, out, opcode, res->cur_psn, n, NULL,
				      0, &pkt);
	if (hdr) {
		const struct sv_opcode_info *info = &sv_opcode_table[opcode];
		u8 syn = sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID);

		if (sv_opcode_has(info, SV_EXT_AETH))
			sv_hdr_build_aeth(hdr, syn, res->msn);
		if (mr) {
			int err = sv_mr_copy(mr, iova, hdr + info->hdr_len, n,
					     SV_COPY_FROM_MR);

			if (err == -EAGAIN)
				err = sv_odp_fault_async(qp, SV_ODP_RESP, mr,
							 iova, left, false);
			if (err) {
				sv_net_pkt_drop(pkt);
				sv_mr_put(mr);
				/* else invalidated or deregistered meanwhile */
				return err == -EAGAIN ? err : -EACCES;
			}
		}
		*sv_resp_cb(pkt) = (struct sv_resp_cb) {
			.seq = qp->resp.res_serve,
			.cur_psn = res->cur_psn,
			.cur_off = res->cur_off,
			.from_res = true,
		};
		sv_net_pktq_add(&out->txq, pkt);
	}
	if (mr)
		sv_mr_put(mr);
	/* a packet we could not allocate is lost: the requester retries */
	res->cur_off += n;
	res->cur_psn = sv_psn_add(res->cur_psn, 1);
	if (last)
		res->pending = false;
	return 0;
}

/*
 * Execute @res's 8-byte operation @op once (a duplicate finds it executed)
 * through its R_Key with @access.  Return: 0; -EAGAIN, an ODP fault is
 * queued and the resource is served again when it completes; -EACCES.
 */
static int sv_resp_res_execute(struct sv_qp *qp, struct sv_resp_res *res,
			       int access, enum sv_atomic_op op,
			       u64 compare_add, u64 swap)
{
	u64 iova = res->va;
	struct sv_mr *mr;
	int err;

	if (res->executed)
		return 0;
	mr = sv_mr_lookup(sv_resp_dev(qp), res->rkey, sv_resp_pd(qp),
			  qp->ibqp.qp_num, access, &iova, sizeof(u64));
	if (IS_ERR(mr))
		return -EACCES;
	err = sv_mr_atomic(mr, iova, op, compare_add, swap, &res->orig);
	if (err == -EAGAIN)
		err = sv_odp_fault_async(qp, SV_ODP_RESP, mr, iova,
					 sizeof(u64), true);
	sv_mr_put(mr);
	if (err == -EAGAIN)
		return err;
	if (err)
		return -EACCES;
	res->executed = true;
	return 0;
}

/*
 * Queue the one response packet of an executed @res: @opcode with an
 * AETH, and for an Atomic ACK the AtomicAckETH with the original value.
 * A packet we could not allocate is lost: the requester retries.
 */
static void sv_resp_res_reply(struct sv_qp *qp, struct sv_resp_out *out,
			      struct sv_resp_res *res, u8 opcode)
{
	struct sv_net_pkt *pkt;
	u8 *hdr;

	hdr = sv_resp_pkt_new(qp, out, opcode, res->first_psn, 0, NULL, 0,
			      &pkt);
	if (hdr) {
		sv_hdr_build_aeth(hdr, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				  res->msn);
		if (opcode == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE)
			sv_hdr_build_atmack(hdr, res->orig);
		*sv_resp_cb(pkt) = (struct sv_resp_cb) {
			.seq = qp->resp.res_serve,
			.cur_psn = res->first_psn,
			.from_res = true,
		};
		sv_net_pktq_add(&out->txq, pkt);
	}
	res->pending = false;
}

/*
 * The one response of an atomic, FLUSH or ATOMIC WRITE, executed once
 * when its turn comes (so after every earlier request of the QP, which
 * IBTA 1.5 A19 asks of the last two).  An atomic (IBTA 9.4.5) gets an
 * Atomic ACK with the original value; FLUSH and ATOMIC WRITE get a
 * zero-length RDMA READ Response Only with an AETH, as Soft-RoCE does.
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
static int sv_resp_once_pkt(struct sv_qp *qp, struct sv_resp_out *out,
			     struct sv_resp_res *res)
{
	u8 opcode = IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY;
	int err = 0;

	if (res->type == SV_RES_ATOMIC) {
		err = sv_resp_res_execute(qp, res, IB_ACCESS_REMOTE_ATOMIC,
					  res->cmp_swap ? SV_ATOMIC_CMP_SWAP :
							  SV_ATOMIC_FETCH_ADD,
					  res->cmp_swap ? res->compare :
							  res->swap_add,
					  res->swap_add);
		opcode = IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE;
	} else if (res->type == SV_RES_FLUSH) {
		/*
		 * Global visibility: every store of the writes this FLUSH
		 * follows is visible to all CPUs before the response that
		 * reports it leaves; pairs with whatever the reader of the
		 * target memory uses after seeing the FLUSH complete.
		 */
		smp_mb();
	} else {
		err = sv_resp_res_execute(qp, res, IB_ACCESS_REMOTE_WRITE,
					  SV_ATOMIC_WRITE, res->value, 0);
	}
	if (err)
		return err;
	sv_resp_res_reply(qp, out, res, opcode);
	return 0;
}

/*
 * One packet of @res.  On an XRC target the resource's SRQ, looked up again
 * by number for the packet (a reference, design.md "XRC"), gives the PD:
 * an SRQ destroyed meanwhile leaves none, and the keys fail to match.
 */
static int sv_resp_serve_one(struct sv_qp *qp, struct sv_resp_out *out,
			     struct sv_resp_res *res)
{
	struct sv_srq *pkt_srq = qp->resp.xrc_srq;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		qp->resp.xrc_srq = sv_srq_get_xrc(sv_resp_dev(qp),
						  res->xrc_srqn,
						  qp->xrcd);
	if (res->type == SV_RES_READ)
		err = sv_resp_read_pkt(qp, out, res);
	else
		err = sv_resp_once_pkt(qp, out, res);
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		if (qp->resp.xrc_srq)
			sv_srq_put(qp->resp.xrc_srq);
		qp->resp.xrc_srq = pkt_srq;
	}
	return err;
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
		int err;

		if (!res->pending) {
			qp->resp.res_serve++;
			continue;
		}
		/* sv_resp_odp_fault() serves again */
		if (!budget || qp->resp.odp_wait)
			return false;
		budget--;
		err = sv_resp_serve_one(qp, out, res);
		if (err == -EAGAIN) {
			qp->resp.odp_wait = true;
			return false;
		}
		if (err) {
			sv_resp_pkt_nak(qp, out, SV_NAK_REM_ACCESS_ERR,
					res->type == SV_RES_READ ?
					res->cur_psn : res->first_psn);
			qp->resp.res_serve = qp->resp.res_head;
			qp->resp.dead = true;
			out->qp_error = true;
			out->event = IB_EVENT_QP_ACCESS_ERR;
			return true;
		}
	}
	if (qp->resp.ack_pending) {
		qp->resp.ack_pending = false;
		sv_resp_pkt_aeth(qp, out,
				 sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
				 qp->resp.ack_psn);
		sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_ACKS);
	}
	/*
	 * What was dropped behind the responses is asked for now, from the
	 * next PSN expected: after an RNR wait if no receive WQE was there
	 * or the ODP packet parked there is still not placed, else at once.
	 */
	if (qp->resp.nak_deferred == SV_RESP_DEFER_RNR ||
	    (qp->resp.nak_deferred && !skb_queue_empty(&qp->resp.odp_q))) {
		sv_resp_pkt_rnr_nak(qp, out, qp->resp.psn);
	} else if (qp->resp.nak_deferred == SV_RESP_DEFER_SEQ) {
		sv_resp_pkt_nak(qp, out, SV_NAK_PSN_SEQ_ERR, qp->resp.psn);
		qp->resp.nak_sent = true;
		qp->resp.seq_naks++;
	}
	qp->resp.nak_deferred = SV_RESP_DEFER_NONE;
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
			n += sv_mtu_npkts(res->end_off - res->cur_off, res->mtu);
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

enum sv_resp_err sv_resp_read(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
			      struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_reth_va(p->hdr);
	u32 rkey = sv_reth_rkey(p->hdr);
	u32 len = sv_reth_len(p->hdr);
	struct sv_resp_res *res;
	u32 mtu = sv_qp_mtu(qp);
	enum sv_resp_err err;
	struct sv_mr *mr;
	u32 npkts;
	u64 iova;

	err = sv_resp_rdma_get(qp, IB_ACCESS_REMOTE_READ, va, rkey, len, &mr,
			       &iova);
	if (err)
		return err;
	res = sv_resp_res_new(qp, SV_RES_READ, p->psn, va, rkey);
	if (!res) {
		err = SV_RESP_INV_REQ;
		goto put_mr;
	}
	npkts = sv_mtu_npkts(len, mtu);
	res->last_psn = sv_psn_add(p->psn, npkts - 1);
	res->start_psn = p->psn;
	res->cur_psn = p->psn;
	res->length = len;
	res->end_off = len;
	res->mtu = mtu;
	/*
	 * Its first response, if sent now (sv_resp_start_serving()), reads
	 * through the MR just checked; the reference goes before we return.
	 */
	if (mr) {
		out->read_mr = mr;
		out->read_res = res;
		out->read_iova = iova;
	}
	/* a read request takes as many PSNs as it has responses (9.7.1) */
	err = sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, npkts));
	out->read_mr = NULL;
	out->read_res = NULL;
put_mr:
	if (mr)
		sv_mr_put(mr);
	return err;
}

enum sv_resp_err sv_resp_atomic(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
				struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_atmeth_va(p->hdr);
	u32 rkey = sv_atmeth_rkey(p->hdr);
	struct sv_resp_res *res;
	enum sv_resp_err err;

	/* IBTA 9.4.5: naturally aligned 64-bit words only */
	if (va & 7)
		return SV_RESP_INV_REQ;
	err = sv_resp_rdma_check(qp, IB_ACCESS_REMOTE_ATOMIC, va, rkey,
				 sizeof(u64));
	if (err)
		return err;
	res = sv_resp_res_new(qp, SV_RES_ATOMIC, p->psn, va, rkey);
	if (!res)
		return SV_RESP_INV_REQ;
	res->cmp_swap = sv_opcode_op(p->opcode) == IB_OPCODE_COMPARE_SWAP;
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
enum sv_resp_err sv_resp_flush_req(struct sv_qp *qp,
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
	mr = sv_mr_lookup(sv_resp_dev(qp), rkey, sv_resp_pd(qp),
			  qp->ibqp.qp_num, access, &iova, sel == SV_FLUSH_MR ? 0 : len);
	if (IS_ERR(mr)) {
		if (sel != SV_FLUSH_MR || PTR_ERR(mr) != -ERANGE)
			return SV_RESP_REM_ACCESS;
	} else {
		sv_mr_put(mr);
	}
	res = sv_resp_res_new(qp, SV_RES_FLUSH, p->psn, va, rkey);
	if (!res)
		return SV_RESP_INV_REQ;
	res->length = len;
	return sv_resp_res_accept(qp, out, res, sv_psn_add(p->psn, 1));
}

/*
 * ATOMIC WRITE (IBTA 1.5 A19.5): RETH and 8 bytes of payload (sv_hdr.c
 * checked the length), to a naturally aligned address of an MR with
 * remote write access, on a QP that allows remote writes.
 */
enum sv_resp_err sv_resp_atomic_write(struct sv_qp *qp,
				      const struct sv_rx_pkt *pkt,
				      struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u64 va = sv_reth_va(p->hdr);
	u32 rkey = sv_reth_rkey(p->hdr);
	struct sv_resp_res *res;
	enum sv_resp_err err;

	if ((va & 7) || sv_reth_len(p->hdr) != sizeof(u64) ||
	    p->paylen != sizeof(u64))
		return SV_RESP_INV_REQ;
	/* every kernel: it needs nothing of ib_core (compat.h) */
	err = sv_resp_rdma_check(qp, IB_ACCESS_REMOTE_WRITE, va, rkey,
				 sizeof(u64));
	if (err)
		return err;
	res = sv_resp_res_new(qp, SV_RES_ATOMIC_WRITE, p->psn, va, rkey);
	if (!res)
		return SV_RESP_INV_REQ;
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
 * its original parameters, but only as far as the duplicate's DMA length
 * reaches: a requester resuming a READ asks for the rest of it (9.7.4.1.4),
 * and a duplicate, forged or not, gets no more than it asks for.  An
 * atomic returns its saved original value and is never executed twice,
 * nor is an ATOMIC WRITE; a FLUSH is answered again (its barrier
 * repeated).  Responses after it are forgotten: the requester retries
 * them, and their duplicates put them back in order.
 */
void sv_resp_duplicate(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out)
{
	const struct sv_pkt_info *p = &pkt->p;
	u32 flags = p->info->flags;
	u32 seq, n;

	lockdep_assert_held(&qp->resp.lock);
	sv_stat_inc(sv_resp_dev(qp), SV_STAT_DUP_REQS);
	qp->resp.dup_reqs++;

	if (sv_resp_res_type(flags) < 0) {
		if (p->bth_flags & SV_BTH_ACKREQ)
			sv_resp_pkt_ack(qp, out, sv_psn_sub(qp->resp.psn, 1));
		return;
	}

	n = min(qp->resp.res_head, qp->resp.res_size);
	for (seq = qp->resp.res_head; n; n--) {
		struct sv_resp_res *res = sv_resp_res_at(qp, --seq);
		u32 s;

		/* older than any request the ring held (it grew since) */
		if (res->type == SV_RES_NONE)
			break;
		if (!sv_psn_in_window(p->psn, res->first_psn,
				      sv_psn_add(res->last_psn, 1)))
			continue;
		if (res->type != sv_resp_res_type(flags))
			return;		/* not what that PSN was: ignore */
		if (res->type == SV_RES_READ) {
			u32 off = sv_psn_dist(res->first_psn, p->psn) *
				  res->mtu;

			res->cur_psn = p->psn;
			res->start_psn = p->psn;
			res->cur_off = off;
			res->end_off = off + min(sv_reth_len(p->hdr),
						 res->length - off);
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

/* --- sending responses: rewind and the work item --------------------- */

/*
 * A response from a resource could not be sent (the device or the way to
 * the peer is full): put the cursors of @failed's resource and of every
 * later one in the queue back to their first unsent packet, which the
 * work item sends again.  The rest of the queue is freed.
 */
void sv_resp_rewind(struct sv_qp *qp, struct sv_resp_out *out,
		    const struct sv_resp_cb *failed)
{
	const struct sv_resp_cb *cb = failed;
	struct sv_net_pkt *pkt = NULL;
	bool first = true;

	lockdep_assert_held(&qp->resp.lock);
	do {
		struct sv_resp_res *res;

		if (pkt)
			cb = sv_resp_cb(pkt);
		if (cb->from_res) {
			res = sv_resp_res_at(qp, cb->seq);
			if (first)
				qp->resp.res_serve = cb->seq;
			first = false;
			/* only a READ has cursors (an atomic's share them) */
			if (res->type == SV_RES_READ &&
			    (!res->pending ||
			     sv_psn_before(cb->cur_psn, res->cur_psn))) {
				res->cur_psn = cb->cur_psn;
				res->cur_off = cb->cur_off;
			}
			res->pending = true;
		}
		if (pkt)
			sv_net_pkt_drop(pkt);
	} while ((pkt = sv_net_pktq_pop(&out->txq)));
}

/* batches the work item sends before it makes room for other work */
#define SV_RESP_WORK_BATCHES	64
/* refused sends in a row before the work item lets packets go lost */
#define SV_RESP_XMIT_TRIES	1000

/*
 * After the ODP fault a response waited for (sv_resp_odp_fault(), under the
 * fault's lock, or after a failed fault): serve a batch at once, so that
 * the packet that missed is built while its pages cannot go away again;
 * the work item sends the rest.  @ok: the QP still responds.
 */
void sv_resp_res_odp_resume(struct sv_qp *qp, struct sv_resp_out *out,
			    bool ok)
{
	lockdep_assert_held(&qp->resp.lock);
	if (!qp->resp.odp_wait)
		return;
	qp->resp.odp_wait = false;
	if (!qp->resp.serving)
		return;
	if (ok && sv_resp_serve(qp, out, SV_RESP_BATCH_PKTS))
		qp->resp.serving = false;
	else
		out->kick = true;	/* the rest, or parked again */
}

/*
 * Queue the work item, handing it a QP reference the caller holds for it.
 * If it cannot be queued, the reference is dropped here: the work is
 * queued already (that instance holds its own queuer's reference), or it
 * is running and being cancelled by sv_resp_reset(), which puts only the
 * reference of an instance it took off the queue, so destroy_qp would
 * wait for this one for ever.
 */
void sv_resp_work_queue(struct sv_qp *qp)
{
	if (!queue_work_on(raw_smp_processor_id(), system_highpri_wq,
			   &qp->resp.work))
		sv_qp_put(qp);
}

/*
 * The work item: sends queued responses in batches (see the top), on the
 * CPU it was queued on; it requeues itself there after a while rather
 * than occupy the CPU's worker pool with a long read.
 */
void sv_resp_work(struct work_struct *work)
{
	struct sv_qp *qp = container_of(work, struct sv_qp, resp.work);
	unsigned int batches = SV_RESP_WORK_BATCHES;
	unsigned int refused = 0;
	bool done = false, parked = false;

	while (!done && !parked) {
		struct sv_resp_out out;
		bool sent = true;

		if (!batches--) {
			/* our reference goes with the requeued work */
			sv_resp_work_queue(qp);
			return;
		}
		sv_resp_out_init(&out);
		rcu_read_lock();
		out.path = rcu_dereference(qp->path);
		spin_lock_bh(&qp->resp.lock);
		if (!sv_resp_state_ok(READ_ONCE(qp->state)) ||
		    qp->resp.dead || !qp->resp.serving) {
			done = true;
		} else if (qp->resp.odp_wait) {
			/* parked: sv_resp_odp_fault() serves again */
			parked = true;
		} else {
			done = sv_resp_serve(qp, &out, SV_RESP_BATCH_PKTS);
			/*
			 * Pace to the way out: a long read easily outruns a
			 * peer's backlog (e.g. veth's netdev_max_backlog);
			 * what it refuses is sent again after a pause,
			 * instead of being lost and read again by the
			 * requester after its timeout.
			 */
			sent = sv_resp_pkt_xmit(qp, &out,
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
