// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: turns send WQEs into request packets (IBTA 9.4, 9.7),
 * from private copies of the WQEs, and resends them.
 *
 * Documentation/design.md, "Transport" (requester).
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/memcontrol.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "sv.h"
#include "sv_comp.h"
#include "sv_req.h"
#include "sv_xport.h"
#include "sv_psn.h"
#include "sv_rnr.h"

struct workqueue_struct *sv_req_wq;

/* packets one run may send before it yields to the work item */
#define SV_REQ_BUDGET_INLINE	32
#define SV_REQ_BUDGET_WORK	64
/* packets sent with bottom halves off, before the stack may drain them */
#define SV_REQ_BATCH		16
/*
 * RC: new PSNs go out only while fewer than this many are unacknowledged.
 * Every packet in flight sits in some queue of the local stack (veth,
 * backlog) or the peer's; without a limit a long message overflows them,
 * and go-back-N retransmission of the whole message overflows them again.
 */
#define SV_REQ_WINDOW		128

/* a packet the requester built under req.lock, to send after it */
struct sv_req_pkt {
	/* NULL: no buffer; else a local frame or an skb (sv_net_pkt_alloc()) */
	struct sv_net_pkt	*pkt;
	const struct sv_path	*path;
	u16			sport;
	/* it was the last packet the SQ holds for now (sv_req_next_locked()) */
	bool			drained;
	/* packets of the path MTU it stands for: > 1 for a local burst */
	u32			npkts;
	struct sv_path		av_path;	/* UD sends of old librxe */
};

static struct sv_dev *sv_req_dev(struct sv_qp *qp)
{
	return to_sv_dev(qp->ibqp.device);
}

static bool sv_req_is_ud(const struct sv_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/*
 * WQEs posted to the SQ, in flight or not.  The producer index is read
 * with acquire from the shared header for kernel rings too (it is stored
 * there with release after the slot), so no producer lock is needed.
 */
static u32 sv_req_posted(struct sv_qp *qp)
{
	struct sv_queue *q = qp->sq.queue;

	lockdep_assert_held(&qp->req.lock);
	/* acquire: the WQE slots published before the index */
	return (smp_load_acquire(&q->buf->producer_index) - q->cons) &
	       q->index_mask;
}

/*
 * sv_req_sge_copy(), and sv_req_sge_place() with @src (then @buf is NULL
 * and @dir SV_COPY_TO_MR)
 */
static int sv_req_sge_xfer(struct sv_qp *qp, const struct sv_send_wqe *wqe,
			   u32 off, void *buf, const struct sv_pay *src,
			   u32 len, enum sv_copy_dir dir)
{
	int access = dir == SV_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	struct sv_dev *sv = sv_req_dev(qp);
	u32 i, done = 0;
	u8 *p = buf;

	lockdep_assert_held(&qp->req.lock);
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		/* dma.length was checked against the slot's room */
		if (dir != SV_COPY_FROM_MR || off > wqe->dma.length ||
		    len > wqe->dma.length - off)
			return -EINVAL;
		memcpy(p, wqe->dma.inline_data + off, len);
		return 0;
	}

	for (i = 0; i < wqe->dma.num_sge && len; i++) {
		const struct sv_sge *sge = &wqe->dma.sge[i];
		struct sv_mr *mr;
		u64 iova;
		u32 n;
		int err;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min(len, sge->length - off);
		iova = sge->addr + off;
		mr = sv_mr_lookup_rcu(sv, sge->lkey, qp->ibqp.pd,
				      qp->ibqp.qp_num, access, &iova, n);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = src ? sv_mr_copy_in(mr, iova, src, done, n) :
			    sv_mr_copy(mr, iova, p + done, n, dir);
		if (err == -EAGAIN)
			err = sv_odp_fault_async(qp, SV_ODP_REQ, mr, iova,
						 sge->length - off,
						 dir == SV_COPY_TO_MR);
		if (err == -EAGAIN) {
			qp->req.odp_wait = true;
			/* a response was lost: ask again after the fault */
			if (dir == SV_COPY_TO_MR)
				qp->req.odp_resend = true;
		}
		sv_mr_put(mr);
		if (err)
			return err;
		done += n;
		len -= n;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

/*
 * Copy @len bytes between @buf and the SGEs of @wqe, starting @off bytes
 * into them (gather for requests, scatter for atomic responses).  Any
 * context, under req.lock.  Returns 0, or a negative errno: a key refused
 * by sv_mr_lookup() (Local Protection Error), or the SGEs end first;
 * -EAGAIN: a page of an ODP MR is absent, its fault is under way
 * (sv_odp.c) and the requester is stopped until it is resolved.
 */
int sv_req_sge_copy(struct sv_qp *qp, const struct sv_send_wqe *wqe, u32 off,
		    void *buf, u32 len, enum sv_copy_dir dir)
{
	return sv_req_sge_xfer(qp, wqe, off, buf, NULL, len, dir);
}

/* sv_req_sge_copy() into the SGEs from @src (a READ response's payload) */
int sv_req_sge_place(struct sv_qp *qp, const struct sv_send_wqe *wqe, u32 off,
		     const struct sv_pay *src, u32 len)
{
	return sv_req_sge_xfer(qp, wqe, off, NULL, src, len, SV_COPY_TO_MR);
}

/*
 * An ODP fault asked for by sv_req_sge_copy() or sv_req_sge_place() is
 * resolved (or failed: the access then fails when retried): under the
 * fault's lock the parked response is placed (the completer checks it is
 * still the one due), then the requester goes on, from comp.psn if
 * responses were dropped.  It runs inline where sv_req_sched() may (not
 * if it must stay on the CPU it sends from): then a gather finds its
 * pages too.  A response that missed again (another page or MR) is
 * parked again and the requester waits on.
 */
static void sv_req_odp_retry(void *arg)
{
	struct sv_qp *qp = arg;
	struct sk_buff *skb;

	spin_lock_bh(&qp->req.lock);
	skb = qp->comp.odp_skb;
	qp->comp.odp_skb = NULL;
	spin_unlock_bh(&qp->req.lock);
	if (skb) {
		struct sv_rx_pkt pkt = {
			.skb = skb,
			.sv = sv_req_dev(qp),
		};

		/* it parsed when it came, and is still the same bytes */
		rcu_read_lock();
		if (!sv_hdr_parse(skb->data, skb->len, &pkt.p))
			sv_comp_rcv(qp, &pkt);
		rcu_read_unlock();
		consume_skb(skb);
	}

	spin_lock_bh(&qp->req.lock);
	if (!qp->comp.odp_skb) {
		qp->req.odp_wait = false;
		if (qp->req.odp_resend) {
			qp->req.odp_resend = false;
			sv_req_resend_locked(qp, qp->comp.psn);
		}
	}
	spin_unlock_bh(&qp->req.lock);
	sv_req_sched(qp);
}

void sv_req_odp_fault(struct sv_qp *qp, struct sv_mr *mr, u64 iova, u64 len,
		      bool write)
{
	int err;

	err = sv_mr_odp_fault_use(mr, iova, len, write, true,
				  sv_req_odp_retry, qp);
	if (err) {
		/* the retried access reports it */
		sv_odp_fault_failed(qp, SV_ODP_REQ, mr, iova, len, err);
		sv_req_odp_retry(qp);
	}
}

/* --- retransmission timer -------------------------------------------------- */

/*
 * Arm the local ACK timeout (IBTA 9.7.6.1.3) for an RC QP with responses
 * due: @restart pushes it out (progress was made), otherwise an armed
 * timer keeps running so it measures from the oldest unanswered packet.
 * Pushing it out only moves retrans_due: a pending timer that expires no
 * later fires early and moves itself on (sv_comp_retrans_timeout()), so
 * a stream of messages and ACKs touches the timer wheel about once per
 * timeout, not once per message.  Only a timer not pending, or due after
 * the new time (a shorter timeout since), is moved here.
 */
void sv_req_arm_retrans_locked(struct sv_qp *qp, bool restart)
{
	struct timer_list *timer = &qp->req.retrans_timer;
	unsigned long t, due;

	lockdep_assert_held(&qp->req.lock);
	if (!sv_qp_reliable(qp))
		return;
	t = READ_ONCE(qp->req.ack_timeout_j);
	if (!t)
		return;		/* timeout 0: wait forever */
	if (restart || !qp->req.retrans_on) {
		qp->req.retrans_due = jiffies + t;
		qp->req.retrans_on = true;
	}
	/*
	 * Armed and not pushed out: the due time stays.  The timer is
	 * pending no later, or it expired and its callback waits for the
	 * lock: re-armed at the old due time, it times out as it would have.
	 */
	due = qp->req.retrans_due;
	if (!timer_pending(timer) || time_after(READ_ONCE(timer->expires), due))
		mod_timer(timer, due);
}

/*
 * Nothing is unanswered (comp.psn == req.psn), or an RNR wait takes over:
 * the local ACK timer stops.  A pending timer is left to fire, finds
 * retrans_on clear and does nothing; deleting it here would cost the
 * timer wheel work per message that arming lazily saves.
 */
void sv_req_stop_retrans_locked(struct sv_qp *qp)
{
	lockdep_assert_held(&qp->req.lock);
	qp->req.retrans_on = false;
}

/*
 * tail_timer: the requester has been idle for a tick or more with the ACK
 * of its newest packets owed (sv_req_ask_ack() did not ask for it).  No
 * later packet will ask, so the newest one goes again with AckReq: the
 * responder acknowledges a duplicate (IBTA 9.7.4), or takes it if it
 * was lost.  Not a retry: retry_cnt counts the local ACK timeouts, and
 * the timer only runs while that timeout is longer.  The runner only
 * notes when it went idle (req.tail_from) and arms the timer if it is not
 * pending: in a stream the timer fires early and moves itself on, rather
 * than every idle run moving it (a timer wheel update per message).
 */
static void sv_req_tail_timeout(struct timer_list *t)
{
	struct sv_qp *qp = timer_container_of(qp, t, req.tail_timer);
	unsigned long due;
	enum ib_qp_state state;
	bool kick = false;

	spin_lock_bh(&qp->req.lock);
	state = READ_ONCE(qp->state);
	due = READ_ONCE(qp->req.tail_from) + SV_REQ_TAIL_JIFFIES;
	if (qp->req.ack_owed && !qp->req.rnr_wait && !qp->req.odp_wait &&
	    (state == IB_QPS_RTS || state == IB_QPS_SQD) &&
	    qp->comp.psn != qp->req.psn) {
		if (time_before(jiffies, due)) {
			/* idle again since it was armed (RESET: not re-armed) */
			mod_timer(&qp->req.tail_timer, due);
		} else {
			qp->req.ack_owed = false;
			qp->req.tail_ask = true;
			sv_req_resend_locked(qp, sv_psn_sub(qp->req.psn, 1));
			kick = true;
		}
	}
	spin_unlock_bh(&qp->req.lock);
	if (kick)
		sv_req_sched(qp);
}

/*
 * Send again from @psn (NAK, timeout, RNR wait, implied NAK): the WQE
 * holding @psn restarts from that packet (a READ re-requests what is still
 * missing), every later WQE from its first packet.  PSNs do not change.
 */
void sv_req_resend_locked(struct sv_qp *qp, u32 psn)
{
	u32 mask = sv_req_mask(qp);
	u32 head = qp->sq.queue->cons;
	bool found = false;
	u32 i;

	lockdep_assert_held(&qp->req.lock);
	for (i = 0; i < qp->req.in_flight; i++) {
		u32 idx = (head + i) & mask;
		struct sv_swqe *sw = sv_req_swqe(qp, idx);

		if (sw->state == SV_SWQE_DONE)
			continue;
		if (!found) {
			if (sv_psn_before(sw->last_psn, psn))
				continue;
			found = true;
			qp->req.cur = idx;
			if (sw->flags & SV_SWQE_RESP ||
			    sv_psn_before(psn, sw->first_psn))
				sw->next = 0;
			else
				sw->next = sv_psn_dist(sw->first_psn, psn);
			continue;
		}
		sw->next = 0;
	}
	qp->req.noack_pkts = 0;
}

/* --- starting a WQE ------------------------------------------------------- */

/* LOCAL_INV, REG_MR, BIND_MW: executed when the requester reaches them */
static enum ib_wc_status sv_req_local_op(struct sv_qp *qp,
					 const struct sv_send_wqe *wqe)
{
	struct sv_dev *sv = sv_req_dev(qp);
	struct ib_pd *pd = qp->ibqp.pd;
	u32 qpn = qp->ibqp.qp_num;

	switch (wqe->wr.opcode) {
	case IB_WR_LOCAL_INV:
		if (sv_mr_invalidate(sv, wqe->wr.ex.invalidate_rkey, pd, qpn,
				     false))
			return IB_WC_LOC_PROT_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_REG_MR:
		/* kernel rings only: the MR pointer was checked at post */
		if (sv_mr_fast_reg(wqe->wr.wr.reg.mr, pd, wqe->wr.wr.reg.key,
				   wqe->wr.wr.reg.access))
			return IB_WC_LOC_PROT_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_BIND_MW: {
		struct sv_mw_bind_args args = {
			.mw_rkey = wqe->wr.wr.mw.mw_rkey,
			.new_rkey = wqe->wr.wr.mw.rkey,
			.mr_lkey = wqe->wr.wr.mw.mr_lkey,
			.addr = wqe->wr.wr.mw.addr,
			.length = wqe->wr.wr.mw.length,
			.access = wqe->wr.wr.mw.access,
		};

		if (sv_mw_bind(sv, pd, &qp->mw_binds, &args))
			return IB_WC_MW_BIND_ERR;
		return IB_WC_SUCCESS;
	}
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

/*
 * Start the WQE at ring index @idx: copy, check, and either execute it (a
 * local operation, or a WQE that fails before it sends anything: DONE at
 * once) or prepare its packets.  Returns false when it must wait (fence,
 * max_rd_atomic): nothing is started then.
 */
static bool sv_req_start_locked(struct sv_qp *qp, u32 idx, bool *retire)
{
	struct sv_queue *q = qp->sq.queue;
	struct sv_swqe *sw = sv_req_swqe(qp, idx);
	struct sv_send_wqe *wqe = sv_req_wqe(qp, sw);
	enum ib_wc_status status = IB_WC_SUCCESS;
	u32 opcode, wr_flags, len, mtu;

	lockdep_assert_held(&qp->req.lock);

	sv_wqe_copy_send(wqe, sv_queue_slot(q, idx), sv_qp_send_wqe_size(qp));
	if (qp->is_user && sv_wqe_check_send(qp, wqe))
		status = IB_WC_LOC_QP_OP_ERR;
	opcode = wqe->wr.opcode;
	wr_flags = sv_opcode_wr_flags(opcode);

	if (status == IB_WC_SUCCESS && sv_qp_reliable(qp)) {
		u32 max_rd = max_t(u32, READ_ONCE(qp->attr.max_rd_atomic), 1);

		/* IBTA 10.8.3.3: a fenced WR waits for READs and atomics */
		if ((wqe->wr.send_flags & IB_SEND_FENCE) && qp->req.rd_atomic) {
			WRITE_ONCE(qp->req.held, true);
			return false;
		}
		/* IBTA 9.5: at most max_rd_atomic outstanding at the responder */
		if ((wr_flags & SV_WR_RD_ATOMIC) &&
		    qp->req.rd_atomic >= max_rd) {
			WRITE_ONCE(qp->req.held, true);
			return false;
		}
	}

	if (!qp->req.in_flight) {
		/* nothing outstanding: the completer starts here */
		qp->comp.psn = qp->req.psn;
		qp->req.retry_left = READ_ONCE(qp->attr.retry_cnt);
		qp->req.rnr_left = READ_ONCE(qp->attr.rnr_retry);
	}

	sw->wc_opcode = sv_opcode_wr_wc(opcode);
	sw->wr_flags = wr_flags;
	sw->flags = 0;
	if (qp->sq_sig_all || (wqe->wr.send_flags & IB_SEND_SIGNALED))
		sw->flags |= SV_SWQE_SIGNALED;
	sw->state = SV_SWQE_SENDING;
	sw->status = IB_WC_SUCCESS;
	sw->next = 0;
	sw->resp_len = 0;
	sw->first_psn = qp->req.psn;
	mtu = sv_qp_mtu(qp);
	sw->mtu = mtu;
	len = wqe->dma.length;

	if (status == IB_WC_SUCCESS && (wr_flags & SV_WR_LOCAL))
		status = sv_req_local_op(qp, wqe);
	else if (status == IB_WC_SUCCESS && sv_req_is_ud(qp) && len > mtu)
		status = IB_WC_LOC_LEN_ERR;	/* UD: one packet (IBTA 9.8.2) */

	qp->req.in_flight++;
	if (status != IB_WC_SUCCESS || (wr_flags & SV_WR_LOCAL)) {
		sw->npkts = 0;
		sw->last_psn = sw->first_psn;
		sw->state = SV_SWQE_DONE;
		sw->status = status;
		if (status != IB_WC_SUCCESS)
			qp->req.stopped = true;
		*retire = true;
		return true;
	}

	if (wr_flags & SV_WR_RD_ATOMIC) {
		sw->flags |= SV_SWQE_RD_ATOMIC | SV_SWQE_RESP;
		if (wr_flags & SV_WR_ACK_ENDS)
			sw->flags |= SV_SWQE_ACK_ENDS;
		qp->req.rd_atomic++;
		sw->npkts = 1;
		sw->last_psn = wr_flags & SV_WR_READ ?
			sv_psn_add(sw->first_psn, sv_mtu_npkts(len, mtu) - 1) :
			sw->first_psn;
	} else {
		if (sv_qp_reliable(qp))
			sw->flags |= SV_SWQE_ACKED;
		sw->npkts = sv_mtu_npkts(len, mtu);
		sw->last_psn = sv_psn_add(sw->first_psn, sw->npkts - 1);
	}
	return true;
}

/* --- building a packet ------------------------------------------------------ */

/*
 * Does this RC request packet, @psn, ask for an acknowledge (BTH AckReq,
 * IBTA 9.2)?  A responder acknowledges what asks (and may coalesce,
 * 9.7.5.1: Soft-RoCE's and ours answer nothing else), and one ACK covers
 * every PSN before it.  An ACK per message costs each message a second
 * packet, built, sent, received and completed, on both hosts, which is
 * what bounds small-message rates, so the requester asks only when it
 * needs an answer:
 *  - the last packet of a signaled WQE: its completion waits for it;
 *  - every SV_REQ_ACKREQ_EVERY packets: the window, the WQE copies and
 *    the retransmission timer move on;
 *  - when the WQEs in flight fill half of what the SQ holds: the poster
 *    gets slots back before the ring is full;
 *  - a resend reaching the newest packet (after a loss, or tail_timer's);
 *  - SQD: the drain waits for every ACK;
 *  - always, when the local ACK timeout is shorter than tail_timer.
 * An unsignaled message that ends a burst asks through tail_timer
 * (sv_req_tail_timeout()).  READ and atomic requests are answered anyway.
 */
static bool sv_req_ask_ack(struct sv_qp *qp, const struct sv_swqe *sw,
			   u32 psn, u32 npkts, bool last)
{
	unsigned long t;

	lockdep_assert_held(&qp->req.lock);
	/* a local burst: @psn is the last of its @npkts PSNs */
	qp->req.noack_pkts += npkts;
	if (qp->req.noack_pkts >= SV_REQ_ACKREQ_EVERY)
		return true;
	if (psn != qp->req.psn && psn == sv_psn_sub(qp->req.psn, 1))
		return true;
	if (!last)
		return false;
	if ((sw->flags & SV_SWQE_SIGNALED) ||
	    READ_ONCE(qp->req.in_flight) >= max(qp->sq.max_wr / 2, 1U) ||
	    READ_ONCE(qp->state) != IB_QPS_RTS)
		return true;
	t = READ_ONCE(qp->req.ack_timeout_j);
	return t && t <= SV_REQ_TAIL_JIFFIES;
}

/* Find the path and UDP source port of a packet of @wqe; under RCU. */
static int sv_req_path(struct sv_qp *qp, const struct sv_send_wqe *wqe,
		       struct sv_req_pkt *pk, u32 *dqpn)
{
	struct sv_dev *sv = sv_req_dev(qp);
	const struct sv_path *path;

	if (!sv_req_is_ud(qp)) {
		path = rcu_dereference(qp->path);
		if (!path)
			return -EINVAL;
		*dqpn = READ_ONCE(qp->attr.dest_qp_num);
		pk->path = path;
		pk->sport = path->udp_sport;
		return 0;
	}

	*dqpn = wqe->wr.wr.ud.remote_qpn & SV_QPN_MASK;
	if (wqe->wr.wr.ud.ah_num) {
		path = sv_ah_path_rcu(sv, wqe->wr.wr.ud.ah_num, qp->ibqp.pd);
		if (!path)
			return -EINVAL;
	} else {
		/* old librxe: an address vector in the WQE, checked there */
		if (sv_path_from_user_av(sv, &wqe->wr.wr.ud.av, &pk->av_path))
			return -EINVAL;
		path = &pk->av_path;
	}
	pk->path = path;
	pk->sport = sv_path_udp_sport(path, qp->ibqp.qp_num, *dqpn);
	return 0;
}

/*
 * How many packets of the path MTU the next packet of @sw may stand for:
 * more than one (a local burst, design.md "Local bursts") where an RC or
 * UC SEND or WRITE has more than one left and goes as local frames; with
 * its payload by reference (@by_ref) up to SV_HDR_MAX_LOCAL_PAYLOAD bytes
 * and U8_MAX packets, else SV_HDR_MAX_LOCAL_COPY bytes.
 */
static u32 sv_req_burst(const struct sv_swqe *sw, bool frames, bool no_burst,
			bool by_ref)
{
	u32 left = sw->npkts - sw->next;

	if (!frames || no_burst || left < 2)
		return 1;
	if (by_ref)
		return min3(left, (u32)U8_MAX, SV_HDR_MAX_LOCAL_PAYLOAD / sw->mtu);
	return min(left, SV_HDR_MAX_LOCAL_COPY / sw->mtu);
}

/*
 * The MR holding the payload of @wqe's next *@n packets of @mtu from @off,
 * to send it by reference (design.md, "Payload by reference"): it must
 * lie in one SGE, so *@n shrinks to the whole packets of that SGE; the
 * MR must be one sv_mr_can_ref() accepts.  Returns the MR, held, with
 * *@iova where the payload starts; or NULL where the payload goes as
 * bytes (a refused key is then reported by sv_req_sge_copy()).
 */
static struct sv_mr *sv_req_ref_mr(struct sv_qp *qp,
				   const struct sv_send_wqe *wqe, u32 off,
				   u32 mtu, u32 *n, u64 *iova)
{
	u32 len = wqe->dma.length - off, paylen, room, i;
	const struct sv_sge *sge = NULL;
	struct sv_mr *mr;

	lockdep_assert_held(&qp->req.lock);
	for (i = 0; i < wqe->dma.num_sge; i++) {
		if (off < wqe->dma.sge[i].length) {
			sge = &wqe->dma.sge[i];
			break;
		}
		off -= wqe->dma.sge[i].length;
	}
	if (!sge)
		return NULL;
	room = sge->length - off;
	paylen = min(*n * mtu, len);
	if (paylen > room) {
		*n = room / mtu;
		if (!*n)
			return NULL;
		paylen = *n * mtu;
	}
	*iova = sge->addr + off;
	mr = sv_mr_lookup_rcu(sv_req_dev(qp), sge->lkey, qp->ibqp.pd,
			      qp->ibqp.qp_num, 0, iova, paylen);
	if (IS_ERR(mr))
		return NULL;
	if (!sv_mr_can_ref(mr)) {
		sv_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * The buffer of a request packet of @ib_len bytes: a local frame where
 * @frames and the path leads to a device of this host, else an skb.  A
 * message whose packet became an skb is not asked again (SV_SWQE_REMOTE):
 * a look-up per message, not per packet, on the way to a wire.  A burst
 * (@n > 1) is a frame or nothing.  Returns the BTH, or NULL.
 */
static u8 *sv_req_buf(struct sv_qp *qp, struct sv_swqe *sw,
		      struct sv_req_pkt *pk, unsigned int ib_len, bool frames,
		      u32 n)
{
	unsigned int how = !frames ? 0 : n > 1 ? SV_NET_PKT_FRAME_ONLY :
						 SV_NET_PKT_FRAME;

	pk->pkt = sv_net_pkt_alloc(sv_req_dev(qp), pk->path, ib_len, how,
				   &qp->req.dest);
	if (frames && pk->pkt && !pk->pkt->frame)
		sw->flags |= SV_SWQE_REMOTE;
	return pk->pkt ? sv_net_pkt_data(pk->pkt) : NULL;
}

/* Fill the extension headers the opcode of @hdr has. */
static void sv_req_build_ext(struct sv_qp *qp, struct sv_swqe *sw, u8 *hdr,
			     const struct sv_opcode_info *info)
{
	const struct sv_send_wqe *wqe = sv_req_wqe(qp, sw);

	/* XRC: the remote SRQ, checked when the WQE was copied (sv_wqe.c) */
	if (sv_opcode_has(info, SV_EXT_XRCETH))
		sv_hdr_build_xrceth(hdr, wqe->wr.xrc_srqn);
	if (sv_opcode_has(info, SV_EXT_DETH)) {
		u32 qkey = wqe->wr.wr.ud.remote_qkey;

		/* a controlled Q_Key in the WR means the QP's (IBTA 10.2.5) */
		if (qkey & 0x80000000U)
			qkey = READ_ONCE(qp->attr.qkey);
		sv_hdr_build_deth(hdr, qkey, qp->ibqp.qp_num);
	}
	if (sv_opcode_has(info, SV_EXT_FETH)) {
		/* FLUSH: FETH, then a RETH naming the range (IBTA 1.5 A19) */
		sv_feth_set(hdr, wqe->wr.wr.flush.type, wqe->wr.wr.flush.level);
		sv_hdr_build_reth(hdr, wqe->wr.wr.flush.remote_addr,
				  wqe->wr.wr.flush.rkey, wqe->dma.length);
	} else if (sv_opcode_has(info, SV_EXT_RETH)) {
		u32 len = wqe->dma.length;
		u64 va = wqe->wr.wr.rdma.remote_addr;

		if (sw->wr_flags & SV_WR_READ) {
			/* a resumed READ asks for what is still missing */
			va += sw->resp_len;
			len -= sw->resp_len;
		}
		sv_hdr_build_reth(hdr, va, wqe->wr.wr.rdma.rkey, len);
	}
	if (sv_opcode_has(info, SV_EXT_ATMETH)) {
		bool cas = wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP;

		/* Compare & Swap: swap, compare; Fetch & Add: add, unused */
		sv_hdr_build_atmeth(hdr, wqe->wr.wr.atomic.remote_addr,
				    wqe->wr.wr.atomic.rkey,
				    cas ? wqe->wr.wr.atomic.swap :
					  wqe->wr.wr.atomic.compare_add,
				    cas ? wqe->wr.wr.atomic.compare_add : 0);
	}
	if (sv_opcode_has(info, SV_EXT_IMMDT))
		sv_hdr_build_immdt(hdr, wqe->wr.ex.imm_data);
	if (sv_opcode_has(info, SV_EXT_IETH))
		sv_hdr_build_ieth(hdr, wqe->wr.ex.invalidate_rkey);
}

/*
 * Build the next request packet of @sw into @pk (pk->pkt stays NULL
 * without a buffer: a loss the retransmission covers for RC).
 * Returns 0, or an ib_wc_status the WQE fails with.
 */
static int sv_req_build_locked(struct sv_qp *qp, struct sv_swqe *sw,
			       struct sv_req_pkt *pk, bool *retire)
{
	struct sv_dev *sv = sv_req_dev(qp);
	const struct sv_send_wqe *wqe = sv_req_wqe(qp, sw);
	bool rc = sv_qp_reliable(qp);
	u32 wr_flags = sw->wr_flags;
	bool read = wr_flags & SV_WR_READ;
	const struct sv_opcode_info *info;
	bool one_req = read || (sw->flags & SV_SWQE_RESP);
	u32 psn, off, paylen = 0, flags = 0, dqpn, n, end;
	bool first, last, frames, by_ref, no_burst = one_req;
	struct sv_mr *ref_mr = NULL;
	u64 ref_iova = 0;
	int opcode;
	u8 *hdr;

	lockdep_assert_held(&qp->req.lock);

	if (sv_req_path(qp, wqe, pk, &dqpn))
		return IB_WC_LOC_QP_OP_ERR;
	/* UD packets carry their IP header to the GRH area: never frames */
	frames = !sv_req_is_ud(qp) && !(sw->flags & SV_SWQE_REMOTE);
	/* a SEND's or WRITE's payload may stay in its MR (a local frame's) */
	by_ref = frames && !one_req && wqe->dma.length &&
		 !(wqe->wr.send_flags & IB_SEND_INLINE);
again:
	n = sv_req_burst(sw, frames, no_burst, by_ref);
	if (by_ref) {
		ref_mr = sv_req_ref_mr(qp, wqe, sw->next * sw->mtu, sw->mtu,
				       &n, &ref_iova);
		if (!ref_mr) {
			by_ref = false;
			goto again;
		}
	}
	if (one_req) {
		/*
		 * READ, atomics, FLUSH, ATOMIC WRITE: one request; a READ
		 * resumes (IBTA 9.7.4.1.4); an ATOMIC WRITE carries its value.
		 */
		first = last = true;
		off = sw->resp_len;
		psn = sv_psn_add(sw->first_psn, off / sw->mtu);
		if (wr_flags & SV_WR_VALUE8)
			paylen = sizeof(u64);
	} else {
		first = sw->next == 0;
		last = sw->next + n == sw->npkts;
		off = sw->next * sw->mtu;
		psn = sv_psn_add(sw->first_psn, sw->next);
		paylen = min(sw->mtu * n, wqe->dma.length - off);
	}
	opcode = sv_opcode_wr_pkt(wqe->wr.opcode, qp->ibqp.qp_type,
				  sv_pkt_pos(first, last));
	if (opcode < 0)
		return IB_WC_LOC_QP_OP_ERR;
	info = &sv_opcode_table[opcode];

	if (ref_mr) {
		pk->pkt = sv_net_pkt_alloc_ref(sv, pk->path, info->hdr_len,
					       sv_hdr_pkt_len(info, paylen),
					       ref_mr, ref_iova,
					       &qp->req.dest);
		if (!pk->pkt) {
			/* no frame here or now: the payload goes as bytes */
			sv_mr_put(ref_mr);
			ref_mr = NULL;
			by_ref = false;
			goto again;
		}
		hdr = sv_net_pkt_data(pk->pkt);
	} else {
		hdr = sv_req_buf(qp, sw, pk, sv_hdr_pkt_len(info, paylen),
				 frames, n);
	}
	if (!hdr && n > 1) {
		/* no buffer for the burst: one packet (a frame, or an skb) */
		no_burst = true;
		goto again;
	}
	pk->npkts = n;
	if (hdr) {
		if (last && (wqe->wr.send_flags & IB_SEND_SOLICITED) &&
		    (info->flags & SV_OP_SE))
			flags |= SV_BTH_SE;
		if (rc) {
			/* a READ/atomic's response acknowledges what came before */
			bool ask = !(info->flags & SV_OP_ACKED) ||
				   sv_req_ask_ack(qp, sw,
						  sv_psn_add(psn, n - 1), n,
						  last);

			if (ask) {
				flags |= SV_BTH_ACKREQ;
				qp->req.noack_pkts = 0;
			}
			qp->req.ack_owed = !ask;
		}
		sv_hdr_build_bth(hdr, opcode, flags, SV_DEFAULT_PKEY, dqpn, psn,
				 paylen);
		sv_req_build_ext(qp, sw, hdr, info);
		if (paylen && (wr_flags & SV_WR_VALUE8)) {
			/* the value, as bytes, from the WQE (sv_qp.c) */
			memcpy(hdr + info->hdr_len, wqe->dma.atomic_wr, paylen);
		} else if (paylen && !ref_mr) {
			u8 *pay = hdr + info->hdr_len;

			int err = sv_req_sge_copy(qp, wqe, off, pay, paylen,
						  SV_COPY_FROM_MR);

			if (err) {
				sv_net_pkt_drop(pk->pkt);
				pk->pkt = NULL;
				/* ODP: this packet again after the fault */
				return err == -EAGAIN ? err :
					IB_WC_LOC_PROT_ERR;
			}
			memset(pay + paylen, 0, sv_hdr_pad(paylen));
		}
	} else {
		sv_stat_inc(sv, SV_STAT_TX_DROPS);
	}

	end = sv_psn_add(read ? sw->last_psn : sv_psn_add(psn, n - 1), 1);
	if (psn == qp->req.psn) {	/* first time out */
		qp->req.psn = end;
	} else {
		/* a resent burst may reach past what went out before */
		if (sv_psn_diff(end, qp->req.psn) > 0)
			qp->req.psn = end;
		if (qp->req.tail_ask) {
			qp->req.tail_ask = false;
			sv_stat_inc(sv, SV_STAT_TAIL_ACK_REQS);
		} else {
			sv_stat_inc(sv, SV_STAT_RETRANS_PKTS);
		}
	}
	sw->next += n;
	if (sw->next >= sw->npkts) {
		if (rc) {
			if (sw->state == SV_SWQE_SENDING)
				sw->state = SV_SWQE_SENT;
		} else {
			/* UC and UD complete when sent (IBTA 9.8, 9.7) */
			sw->state = SV_SWQE_DONE;
			*retire = true;
		}
	}
	if (rc)
		sv_req_arm_retrans_locked(qp, false);
	return 0;
}

/* the PSN of the next request packet of @sw */
static u32 sv_req_pkt_psn(const struct sv_swqe *sw)
{
	if (sw->flags & SV_SWQE_RESP)
		return sv_psn_add(sw->first_psn, sw->resp_len / sw->mtu);
	return sv_psn_add(sw->first_psn, sw->next);
}

static void sv_req_grow_locked(struct sv_qp *qp);

/*
 * Pick the next packet to send, starting a WQE if needed.  Returns 1 when
 * something happened (a packet in @pk, or a WQE started or finished), 0
 * when there is nothing to do now.
 */
static int sv_req_next_locked(struct sv_qp *qp, struct sv_req_pkt *pk,
			      bool *retire)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sv_queue *q = qp->sq.queue;
	u32 mask = sv_req_mask(qp);
	u32 cons, in_flight, posted, cur, end;
	struct sv_swqe *sw;
	int status;

	lockdep_assert_held(&qp->req.lock);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return 0;
	if (qp->req.rnr_wait || qp->req.odp_wait)
		return 0;

	/* the SQ's consumer side is ours (req.lock): no other lock */
	cons = q->cons;
	in_flight = qp->req.in_flight;
	posted = sv_req_posted(qp);

	end = (cons + in_flight) & mask;
	if (!in_flight) {
		qp->req.cur = cons;
		qp->req.stopped = false;
	}
	for (cur = qp->req.cur; cur != end; cur = (cur + 1) & mask) {
		sw = sv_req_swqe(qp, cur);
		if (sw->state == SV_SWQE_DONE) {
			/* nothing after a failed WQE goes out */
			if (sw->status != IB_WC_SUCCESS) {
				qp->req.cur = cur;
				return 0;
			}
			continue;
		}
		if (sw->next < sw->npkts)
			break;
	}
	qp->req.cur = cur;

	if (cur == end) {
		/* SQD: what started finishes, nothing new starts */
		if (state != IB_QPS_RTS || qp->req.stopped ||
		    posted <= in_flight)
			return 0;
		/* every copy in use: wait for more (sv_req_grow_work()) */
		if (in_flight > qp->req.swqe_mask) {
			sv_req_grow_locked(qp);
			return 0;
		}
		if (!sv_req_start_locked(qp, end, retire))
			return 0;
		sw = sv_req_swqe(qp, end);
		if (sw->state == SV_SWQE_DONE)
			return 1;
	} else {
		sw = sv_req_swqe(qp, cur);
	}

	/* the window: only new PSNs wait, resends are inside it anyway */
	if (sv_qp_reliable(qp) && qp->comp.psn != qp->req.psn &&
	    sv_psn_dist(qp->comp.psn, qp->req.psn) >= SV_REQ_WINDOW &&
	    sv_req_pkt_psn(sw) == qp->req.psn) {
		WRITE_ONCE(qp->req.held, true);
		return 0;
	}

	status = sv_req_build_locked(qp, sw, pk, retire);
	if (status == -EAGAIN)
		return 0;	/* sv_req_odp_fault() runs us again */
	if (status) {
		sv_comp_fail_locked(qp, sw, status);
		*retire = true;
		return 1;
	}
	/*
	 * The newest WQE in flight sent its last packet and nothing more is
	 * posted: the next call would find nothing to do.  What comes later
	 * (a post, a resend) asks for a run of its own.
	 */
	pk->drained = sw->next >= sw->npkts &&
		      sw == sv_req_swqe(qp, (q->cons + qp->req.in_flight - 1) &
					    mask) &&
		      sv_req_posted(qp) <= qp->req.in_flight;
	return 1;
}

/*
 * Send up to *@budget packets (a local burst is one: at most
 * SV_HDR_MAX_LOCAL_PAYLOAD bytes).  Returns true when the requester has
 * nothing more to do now, false when the budget ran out first.
 */
static bool sv_req_send_some(struct sv_qp *qp, int *budget)
{
	struct sv_dev *sv = sv_req_dev(qp);
	bool retire = false, idle = false;
	/* bottom halves were on: this run may deliver its local packets */
	bool own = !in_interrupt() && !irqs_disabled();
	/* every field is set before it is read: no zeroing per call */
	struct sv_req_pkt pk __uninitialized;

	local_bh_disable();
	if (own)
		sv_net_loop_hold();
	while (*budget > 0) {
		int ret;

		/* bottom halves off for a batch: packets queue up, then go */
		if (!(*budget % SV_REQ_BATCH)) {
			if (own)
				sv_net_loop_release();
			local_bh_enable();
			local_bh_disable();
			if (own)
				sv_net_loop_hold();
		}

		pk.pkt = NULL;
		pk.drained = false;
		pk.npkts = 1;
		rcu_read_lock();
		/* req.lock never nests with resp.lock (design.md, "Locking") */
		lockdep_assert_not_held(&qp->resp.lock);
		spin_lock(&qp->req.lock);
		ret = sv_req_next_locked(qp, &pk, &retire);
		spin_unlock(&qp->req.lock);
		if (pk.pkt)
			sv_net_pkt_xmit(sv, pk.path, pk.sport, pk.pkt,
					pk.npkts);
		rcu_read_unlock();
		if (!ret) {
			idle = true;
			break;
		}
		(*budget)--;
		if (pk.drained) {
			idle = true;
			break;
		}
	}
	if (own)
		sv_net_loop_release();
	local_bh_enable();

	/*
	 * Idle with an ACK owed: tail_timer asks unless a packet that asks
	 * goes first, SV_REQ_TAIL_JIFFIES after the latest such idle run
	 * (sv_req_tail_timeout()).  Only the runner sets ack_owed.
	 */
	if (idle && READ_ONCE(qp->req.ack_owed)) {
		WRITE_ONCE(qp->req.tail_from, jiffies);
		if (!timer_pending(&qp->req.tail_timer))
			mod_timer(&qp->req.tail_timer,
				  jiffies + SV_REQ_TAIL_JIFFIES);
	}
	if (retire)
		sv_comp_retire(qp);
	return idle;
}

/*
 * The requester's run (req.task), on the CPU it was started on, which
 * must not change under it: preemption off inline (sv_req_sched()), or a
 * bound worker of sv_req_wq (per CPU: its workers are bound to the CPU the
 * item was queued on, unless that CPU went offline; then any will do).
 * When the budget runs out the work item goes on, on this CPU.
 */
static bool sv_req_task_run(struct sv_task *task, int *budget)
{
	struct sv_qp *qp = container_of(task, struct sv_qp, req.task);
	int before = *budget;
	bool idle;

	idle = sv_req_send_some(qp, budget);
	/*
	 * A run that sent nothing (e.g. the kick of modify_qp to RTS) leaves
	 * nothing on the way from this CPU: the QP is not tied to it.
	 */
	if (*budget != before)
		task->cpu = raw_smp_processor_id();
	return idle;
}

/*
 * May the runner send from @cpu?  Packets of one QP must arrive in the
 * order they were sent: every PSN gap costs an RC QP a sequence NAK and a
 * go-back-N retransmission (IBTA 9.7.5.2.1) and a UC QP a whole message
 * (9.8.3).  A packet handed to the stack on one CPU can overtake one
 * still queued on another: local packets go through sv_net.c's per-CPU
 * loopback queues, veth through per-CPU backlogs (a softirq deferred to
 * ksoftirqd on one CPU lets the other CPU's packets pass), and transmit
 * queues are chosen per CPU.  So the runner moves only when nothing it
 * sent can still be on the way: RC with every PSN acknowledged (an ACK
 * means the responder has the packets up to it).  UC and UD learn nothing
 * about delivery and stay on the CPU they started on: UD promises no
 * order, but a sender reordering its own datagrams on a lossless path
 * surprises every consumer (seen: a swapped pair in 100 datagrams under
 * the debug kernel).  If that CPU goes
 * offline its work runs elsewhere (workqueue semantics): a reordering the
 * retransmission repairs, the one case left.
 */
static bool sv_req_may_run_on(struct sv_qp *qp, int cpu)
{
	int last = qp->req.task.cpu;
	bool idle;

	if (last == WORK_CPU_UNBOUND || last == cpu)
		return true;
	if (!sv_qp_reliable(qp))
		return false;
	spin_lock_bh(&qp->req.lock);
	idle = qp->comp.psn == qp->req.psn;
	spin_unlock_bh(&qp->req.lock);
	return idle;
}

/*
 * Make the requester run: inline if it is idle and the context allows
 * (not with interrupts off: the requester takes bottom-half locks) and
 * the QP may send from this CPU (sv_req_may_run_on()), else in sv_req_wq
 * on the CPU it last sent from.  Any context.
 */
void sv_req_sched(struct sv_qp *qp)
{
	struct sv_task *task = &qp->req.task;
	int cpu;

	if (!sv_task_claim(task))
		return;		/* the runner will run again */
	/* the runner from here on; it stays on this CPU while inline */
	cpu = get_cpu();
	if (irqs_disabled() || in_hardirq() || !sv_req_may_run_on(qp, cpu)) {
		if (task->cpu == WORK_CPU_UNBOUND)
			task->cpu = cpu;
		sv_task_defer(task);
		put_cpu();
		return;
	}
	sv_task_run(task, SV_REQ_BUDGET_INLINE);
	put_cpu();
}

/* --- life cycle ------------------------------------------------------------ */

/*
 * @n WQE copies: the states, then the WQEs (sv_swqe_copy()), each as
 * large as the QP's WQEs (struct sv_send_wqe and the SGE/inline room), not
 * the ring's power-of-two slot.  Above a page, vmalloc: kmalloc (and so
 * kvmalloc) would round 33 KiB up to a 64 KiB block.  A user QP's copies
 * are the process's memory, as its rings are: charged to its context and
 * memory cgroup (ENOMEM at the cgroup's limit, never its OOM killer).
 */
static struct sv_swqe *sv_req_swqe_alloc(struct sv_qp *qp, u32 n,
					 size_t *bytes)
{
	gfp_t gfp = GFP_KERNEL;
	struct sv_swqe *swqe;

	*bytes = sv_req_swqe_bytes(qp, n);
	if (qp->uc) {
		if (sv_ucontext_charge(qp->uc, *bytes))
			return NULL;
		gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL;
	}
	if (*bytes <= PAGE_SIZE)
		swqe = kzalloc(*bytes, gfp);
	else
		swqe = __vmalloc(*bytes, gfp | __GFP_ZERO | __GFP_NOWARN);
	if (!swqe) {
		if (qp->uc)
			sv_ucontext_uncharge(qp->uc, *bytes);
		return NULL;
	}
	return swqe;
}

static void sv_req_swqe_free(struct sv_qp *qp, struct sv_swqe *swqe,
			     size_t bytes)
{
	if (swqe && qp->uc)
		sv_ucontext_uncharge(qp->uc, bytes);
	kvfree(swqe);
}

/* req.swqe was just set or replaced: where its copies start */
static void sv_req_set_copies(struct sv_qp *qp)
{
	lockdep_assert_held(&qp->req.lock);
	qp->req.wqe_size = sv_req_wqe_size(qp);
	qp->req.wqe_copies = (u8 *)sv_swqe_copy(qp->req.swqe,
						qp->req.swqe_mask + 1, 0,
						qp->req.wqe_size);
}

/*
 * The WQE copies, allocated when the QP first moves to RTS (modify_qp,
 * process context): only there does a WQE start (sv_req_next_locked()
 * sends in RTS and SQD, which RTS alone leads to), and a QP that never
 * sends, or waits to be connected, does without them.  Kept until
 * destroy, through RESET.  Flushing WQEs that never started reads the
 * ring, not the copies (sv_comp_retire_sq()).
 *
 * First sv_req_swqe_first() copies: a QP that has a few WQEs in flight
 * at a time, as most do, never needs more, and an idle one pays one small
 * block.  The first time a QP fills them, sv_req_grow_work() gives it one
 * per slot.
 * Not a UD, GSI or UC QP: one per slot from the start.  Their sends
 * outlive the QP (sv_req_linger()), and a destroyed QP cannot grow: with
 * its completer deferred, its WQEs sent but not yet retired fill the
 * first copies and the rest would be dropped (seen: 9 of 20 datagrams).
 */
int sv_req_alloc(struct sv_qp *qp)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	u32 n = qp->sq.queue->index_mask + 1;
	struct sv_swqe *swqe;
	size_t bytes;

	might_sleep();
	if (qp->req.swqe)
		return 0;
	if (type != IB_QPT_UD && type != IB_QPT_GSI && type != IB_QPT_UC)
		n = sv_req_swqe_first(qp);
	swqe = sv_req_swqe_alloc(qp, n, &bytes);
	if (!swqe)
		return -ENOMEM;
	/* a user QP's growth is charged where its rings are: the process's */
	if (qp->uc && current->mm)
		qp->req.memcg = get_mem_cgroup_from_mm(current->mm);
	/*
	 * Published under the lock the requester and the completer read it
	 * under: one that sees the QP in RTS (stored after this) sees it.
	 */
	spin_lock_bh(&qp->req.lock);
	qp->req.swqe_bytes = bytes;
	qp->req.swqe_mask = n - 1;
	qp->req.swqe = swqe;
	sv_req_set_copies(qp);
	spin_unlock_bh(&qp->req.lock);
	return 0;
}

/*
 * The requester has as many WQEs in flight as it has copies and more are
 * posted: give it one copy per SQ slot (process context, holding the QP
 * reference sv_req_grow_locked() took).  The in-flight copies move to
 * the places their ring indices take in the larger array; until then the
 * requester starts nothing new.  If memory is short it goes on with the
 * copies it has, and asks again the next time they are all in flight.
 */
static void sv_req_grow_work(struct work_struct *work)
{
	struct sv_qp *qp = container_of(work, struct sv_qp, req.grow_work);
	struct sv_queue *q = qp->sq.queue;
	u32 slots = q->index_mask + 1;
	size_t wqe_size = sv_req_wqe_size(qp);
	struct sv_swqe *swqe, *old = NULL;
	size_t bytes, old_bytes = 0;
	struct mem_cgroup *memcg;
	u32 i;

	/* a work item's allocations are charged to the QP's memory cgroup */
	memcg = set_active_memcg(qp->req.memcg);
	swqe = sv_req_swqe_alloc(qp, slots, &bytes);
	set_active_memcg(memcg);
	spin_lock_bh(&qp->req.lock);
	if (swqe && qp->req.swqe_mask + 1 < slots) {
		/* cons and in_flight are stable under req.lock */
		for (i = 0; i < qp->req.in_flight; i++) {
			u32 idx = (q->cons + i) & q->index_mask;
			struct sv_swqe *from = sv_req_swqe(qp, idx);

			swqe[idx] = *from;
			memcpy(sv_swqe_copy(swqe, slots, idx, wqe_size),
			       sv_req_wqe(qp, from), wqe_size);
		}
		old = qp->req.swqe;
		old_bytes = qp->req.swqe_bytes;
		qp->req.swqe = swqe;
		qp->req.swqe_bytes = bytes;
		qp->req.swqe_mask = slots - 1;
		sv_req_set_copies(qp);
		swqe = NULL;
	}
	qp->req.growing = false;
	spin_unlock_bh(&qp->req.lock);
	sv_req_swqe_free(qp, swqe, bytes);	/* not needed after all */
	sv_req_swqe_free(qp, old, old_bytes);
	sv_req_sched(qp);
	sv_qp_put(qp);
}

/*
 * Ask sv_req_grow_work() for more copies, once.  The runner holds no QP
 * reference: one being destroyed (none left) grows no more.
 */
static void sv_req_grow_locked(struct sv_qp *qp)
{
	lockdep_assert_held(&qp->req.lock);
	if (qp->req.growing || !sv_qp_handle_get_rcu(qp->handle))
		return;
	qp->req.growing = true;
	if (!queue_work(system_percpu_wq, &qp->req.grow_work)) {
		qp->req.growing = false;
		sv_qp_put(qp);
	}
}

int sv_req_init(struct sv_qp *qp)
{
	spin_lock_init(&qp->req.lock);
	timer_setup(&qp->req.retrans_timer, sv_comp_retrans_timeout, 0);
	timer_setup(&qp->req.rnr_timer, sv_comp_rnr_timeout, 0);
	timer_setup(&qp->req.tail_timer, sv_req_tail_timeout, 0);
	sv_task_init(&qp->req.task, sv_req_wq, sv_req_task_run,
		     SV_REQ_BUDGET_WORK);
	INIT_WORK(&qp->req.grow_work, sv_req_grow_work);
	sv_comp_init(qp);
	return 0;
}

/*
 * Wait until no timer, work item or runner of the requester or the
 * completer is active (each may ask the other for a run).  The QP is in
 * RESET already, where none of them starts anything new or re-arms;
 * runners that saw the old state finish their packet and stop.
 */
static void sv_req_quiesce(struct sv_qp *qp)
{
	for (;;) {
		bool idle;

		timer_delete_sync(&qp->req.retrans_timer);
		timer_delete_sync(&qp->req.rnr_timer);
		timer_delete_sync(&qp->req.tail_timer);
		idle = sv_task_flush(&qp->req.task);
		/* a retirer whose work item requeued itself is not done */
		idle &= sv_task_flush(&qp->comp.task);
		if (idle && sv_task_idle(&qp->req.task))
			break;
		usleep_range(1000, 2000);
	}
	timer_delete_sync(&qp->req.retrans_timer);
	timer_delete_sync(&qp->req.rnr_timer);
	timer_delete_sync(&qp->req.tail_timer);
}

void sv_req_reset(struct sv_qp *qp)
{
	sv_req_quiesce(qp);
	spin_lock_bh(&qp->req.lock);
	qp->req.cur = qp->sq.queue->cons;
	qp->req.rd_atomic = 0;
	WRITE_ONCE(qp->req.held, false);
	qp->req.noack_pkts = 0;
	qp->req.ack_owed = false;
	qp->req.tail_ask = false;
	qp->req.rnr_wait = false;
	qp->req.odp_wait = false;
	qp->req.odp_resend = false;
	qp->req.stopped = false;
	qp->req.retrying = false;
	qp->req.retrans_on = false;	/* quiesced: no timer pending */
	qp->comp.psn = 0;
	consume_skb(qp->comp.odp_skb);
	qp->comp.odp_skb = NULL;
	spin_unlock_bh(&qp->req.lock);
}

/*
 * Destroying a QP ends its outstanding WQEs (IBTA 11.2.4.4), but on a
 * datagram or UC QP a send that was posted and rung in is, for its
 * poster, as good as on the wire: nothing acknowledges it, a NIC has
 * fetched it at the doorbell, and programs post unsignaled sends and
 * destroy (mckey's sender exits right after posting).  softverbs may have
 * deferred the run to the work item on the CPU the QP last sent from
 * (sv_req_sched()), and that CPU may be busy: discarding the run then
 * drops datagrams only under load.  So the destroy takes a queued run
 * back and does it here (UD promises no order; losing what was posted
 * is worse), or waits for a running one, bounded in time: a thread that
 * keeps ringing cannot hold the destroy, and what is not sent by then is
 * discarded as before.  RC needs none of this: its unacknowledged sends
 * never completed, and the connection goes with the QP.  An AH's destroy
 * does the same for its PD's UD QPs (sv_req_ah_linger()).
 */
void sv_req_linger(struct sv_qp *qp, unsigned long deadline)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct sv_task *task = &qp->req.task;

	if (type != IB_QPT_UD && type != IB_QPT_GSI && type != IB_QPT_UC)
		return;
	might_sleep();
	while (!sv_task_idle(task)) {
		enum ib_qp_state state = READ_ONCE(qp->state);

		if (state != IB_QPS_RTS && state != IB_QPS_SQD)
			return;
		if (time_after(jiffies, deadline)) {
			sv_dbg_qp(qp, "destroyed with sends left unsent\n");
			return;
		}
		if (sv_task_take_back(task)) {
			/* the runner now, pinned here as an inline one is */
			get_cpu();
			sv_task_run(task, SV_REQ_BUDGET_WORK);
			put_cpu();
			continue;
		}
		/* an inline runner on another CPU, or a running work item */
		if (!sv_task_flush(task))
			usleep_range(100, 200);
	}
}

/* how long destroy_ah waits, in all, for the PD's UD senders */
#define SV_REQ_AH_LINGER_MS	200

/* A UD or GSI QP joins its PD's list (create_qp, before it is published). */
void sv_req_ud_add(struct sv_qp *qp)
{
	struct sv_pd *pd = to_sv_pd(qp->ibqp.pd);

	mutex_lock(&pd->ud_lock);
	list_add_tail(&qp->req.pd_entry, &pd->ud_qps);
	mutex_unlock(&pd->ud_lock);
}

/* ... and leaves it first thing in destroy_qp (or create's unwind). */
void sv_req_ud_del(struct sv_qp *qp)
{
	struct sv_pd *pd = to_sv_pd(qp->ibqp.pd);

	mutex_lock(&pd->ud_lock);
	list_del(&qp->req.pd_entry);
	mutex_unlock(&pd->ud_lock);
}

/*
 * Before an AH of @ibpd is destroyed: a UD WQE names its AH by number and
 * the requester looks it up when it builds the packet, which may be after
 * the poster's next system calls when the run was deferred to a busy
 * CPU (sv_req_sched()).  A NIC fetched the address vector at the
 * doorbell, and programs destroy the AH right after posting unsignaled
 * sends (mckey's sender), so each of the PD's UD QPs first gets its
 * deferred run done (sv_req_linger()), within one time bound for all:
 * the QPs are the caller's own, and one that keeps ringing cannot hold
 * the destroy.  Process context.
 */
void sv_req_ah_linger(struct ib_pd *ibpd)
{
	struct sv_pd *pd = to_sv_pd(ibpd);
	unsigned long deadline;
	struct sv_qp *qp;

	deadline = jiffies + msecs_to_jiffies(SV_REQ_AH_LINGER_MS);
	mutex_lock(&pd->ud_lock);
	list_for_each_entry(qp, &pd->ud_qps, req.pd_entry)
		sv_req_linger(qp, deadline);
	mutex_unlock(&pd->ud_lock);
}

void sv_req_cleanup(struct sv_qp *qp)
{
	sv_req_quiesce(qp);
	consume_skb(qp->comp.odp_skb);
	qp->comp.odp_skb = NULL;
	/* no reference is left, so no grow work is queued */
	sv_req_swqe_free(qp, qp->req.swqe, qp->req.swqe_bytes);
	qp->req.swqe = NULL;
	qp->req.wqe_copies = NULL;
	mem_cgroup_put(qp->req.memcg);
	qp->req.memcg = NULL;
}

int sv_req_wq_create(void)
{
	/*
	 * High priority: requester work is the transmit path.  Memory
	 * reclaim may depend on it (NVMe-oF, NFS over softverbs).
	 */
	sv_req_wq = alloc_workqueue("softverbs_req", WQ_PERCPU | WQ_HIGHPRI |
				    WQ_MEM_RECLAIM, 0);
	return sv_req_wq ? 0 : -ENOMEM;
}

void sv_req_wq_destroy(void)
{
	destroy_workqueue(sv_req_wq);
}
