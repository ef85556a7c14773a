// SPDX-License-Identifier: GPL-2.0
/*
 * The completer (IBTA 9.7.5, 9.7.6): ACKs, NAKs, read and atomic responses,
 * the retransmission and RNR timers, and the retiring of send WQEs into the
 * send CQ, which only it does (also flushing with error, IBTA 10.8.3).
 *
 * Documentation/design.md, "Transport" (completer).
 */
#include "sv.h"
#include "sv_comp.h"
#include "sv_req.h"
#include "sv_xport.h"
#include "sv_psn.h"
#include "sv_rnr.h"

static struct sv_dev *sv_comp_dev(struct sv_qp *qp)
{
	return to_sv_dev(qp->ibqp.device);
}

/* the PSN of the next response packet @sw still waits for */
static u32 sv_comp_need_psn(const struct sv_swqe *sw)
{
	return sv_psn_add(sw->first_psn, sw->resp_len / sw->mtu);
}

/*
 * @sw failed: it completes with @status, nothing after it is sent.  The
 * QP goes to ERR (RC) or SQE (UC, UD) when the WQE is retired.
 */
void sv_comp_fail_locked(struct sv_qp *qp, struct sv_swqe *sw,
			 enum ib_wc_status status)
{
	lockdep_assert_held(&qp->req.lock);
	sw->state = SV_SWQE_DONE;
	sw->status = status;
	qp->req.stopped = true;
}

/* the oldest in-flight WQE not yet done, or NULL */
static struct sv_swqe *sv_comp_first_open(struct sv_qp *qp)
{
	u32 head = qp->sq.queue->cons;
	u32 i;

	for (i = 0; i < qp->req.in_flight; i++) {
		struct sv_swqe *sw = sv_req_swqe(qp, head + i);

		if (sw->state != SV_SWQE_DONE)
			return sw;
	}
	return NULL;
}

/*
 * Acknowledge everything up to and including @psn: SEND and WRITE WQEs
 * whose last packet it covers are done.  Stops at the first WQE it does
 * not finish, which it returns (NULL: none open).  comp.psn moves to the
 * oldest PSN still unacknowledged; *@progress says whether it moved.
 */
static struct sv_swqe *sv_comp_ack_locked(struct sv_qp *qp, u32 psn,
					  bool *retire, bool *progress)
{
	u32 head = qp->sq.queue->cons;
	u32 upto = sv_psn_add(psn, 1);
	struct sv_swqe *open = NULL;
	u32 i;

	for (i = 0; i < qp->req.in_flight; i++) {
		struct sv_swqe *sw = sv_req_swqe(qp, head + i);

		if (sw->state == SV_SWQE_DONE) {
			if (sw->status != IB_WC_SUCCESS)
				break;
			continue;
		}
		open = sw;
		if ((sw->flags & SV_SWQE_ACK_ENDS) && sw->state == SV_SWQE_SENT &&
		    !sv_psn_before(psn, sw->first_psn)) {
			sw->state = SV_SWQE_DONE;
			*retire = true;
			open = NULL;
			continue;
		}
		if (sw->flags & SV_SWQE_RESP) {
			/* only its response finishes it */
			u32 need = sv_comp_need_psn(sw);

			if (sv_psn_before(need, upto))
				upto = need;
			break;
		}
		if (sw->state != SV_SWQE_SENT ||
		    sv_psn_before(psn, sw->last_psn))
			break;
		sw->state = SV_SWQE_DONE;
		*retire = true;
		open = NULL;
	}
	if (sv_psn_after(upto, qp->comp.psn)) {
		qp->comp.psn = upto;
		qp->req.retrying = false;
		*progress = true;
	}
	return open;
}

/*
 * A response could not be placed: an ODP page of the WQE's SGEs is being
 * faulted (sv_req_sge_place()).  Keep a copy (the received skb may be
 * charged to a socket) for sv_req_odp_fault(), which places it under the
 * fault's lock, where it cannot miss again: each fault moves the WQE on
 * by a packet at least, however often the process invalidates its pages.
 * No memory: nothing kept, the resend after the fault asks for it again.
 */
static void sv_comp_odp_park(struct sv_qp *qp, const struct sv_pkt_info *p)
{
	const struct sv_rx_pkt *pkt = container_of(p, struct sv_rx_pkt, p);

	lockdep_assert_held(&qp->req.lock);
	consume_skb(qp->comp.odp_skb);
	qp->comp.odp_skb = sv_recv_pkt_copy(pkt);
}

/* Place one RDMA READ response packet; returns true if it was used. */
static bool sv_comp_read_resp_locked(struct sv_qp *qp, struct sv_swqe *sw,
				     const struct sv_pkt_info *p, bool *retire,
				     bool *progress)
{
	struct sv_send_wqe *wqe = sv_req_wqe(qp, sw);
	u32 rest = wqe->dma.length - sw->resp_len;
	bool last = p->info->flags & SV_OP_LAST;
	int err;

	/*
	 * Every packet but the last carries exactly the MTU (IBTA 9.7.7),
	 * and the last one ends the requested length; anything else is not
	 * a response to this READ.
	 */
	if (last ? p->paylen != rest : (p->paylen != sw->mtu || rest <= sw->mtu))
		return false;

	if (p->paylen) {
		const struct sv_rx_pkt *pkt = container_of(p, struct sv_rx_pkt,
							   p);
		struct sv_pay pay = sv_rx_pay(pkt);

		err = sv_req_sge_place(qp, wqe, sw->resp_len, &pay, p->paylen);
	} else {
		err = 0;
	}
	if (err == -EAGAIN) {
		sv_comp_odp_park(qp, p);
		return true;
	}
	if (err) {
		sv_comp_fail_locked(qp, sw, IB_WC_LOC_PROT_ERR);
		*retire = true;
		return true;
	}
	sw->resp_len += p->paylen;
	qp->comp.psn = sv_psn_add(p->psn, 1);
	qp->req.retrying = false;
	*progress = true;
	if (last) {
		sw->state = SV_SWQE_DONE;
		*retire = true;
	}
	return true;
}

static void sv_comp_atomic_ack_locked(struct sv_qp *qp, struct sv_swqe *sw,
				      const struct sv_pkt_info *p,
				      bool *retire, bool *progress)
{
	/* the original value, in host order, into the local buffer */
	u64 orig = sv_atmack_orig(p->hdr);
	int err;

	err = sv_req_sge_copy(qp, sv_req_wqe(qp, sw), 0, &orig, sizeof(orig),
			      SV_COPY_TO_MR);
	if (err == -EAGAIN) {
		sv_comp_odp_park(qp, p);
		return;
	}
	if (err)
		sv_comp_fail_locked(qp, sw, IB_WC_LOC_PROT_ERR);
	else
		sw->state = SV_SWQE_DONE;
	qp->comp.psn = sv_psn_add(p->psn, 1);
	qp->req.retrying = false;
	*progress = true;
	*retire = true;
}

/* FLUSH or ATOMIC WRITE: its zero-length read response ends it */
static void sv_comp_mpe_resp_locked(struct sv_qp *qp, struct sv_swqe *sw,
				    const struct sv_pkt_info *p, bool *retire,
				    bool *progress)
{
	u32 need = SV_OP_FIRST | SV_OP_LAST;

	if ((p->info->flags & need) != need || p->paylen)
		return;		/* not a response to it: ignore */
	sw->state = SV_SWQE_DONE;
	qp->comp.psn = sv_psn_add(p->psn, 1);
	qp->req.retrying = false;
	*progress = true;
	*retire = true;
}

/*
 * Packets were lost (a sequence NAK, a gap in READ responses, an ACK past
 * an unanswered READ or atomic): go back to comp.psn, once.  Every later
 * packet of the same burst shows the same gap; going back for each would
 * resend the window again and again.  Progress (or a timeout) allows the
 * next go-back (IBTA 9.7.5.2.1 leaves the requester one retry per NAK).
 */
static void sv_comp_go_back_locked(struct sv_qp *qp, bool *kick)
{
	if (qp->req.retrying)
		return;
	qp->req.retrying = true;
	sv_req_resend_locked(qp, qp->comp.psn);
	*kick = true;
}

static enum ib_wc_status sv_comp_nak_status(struct sv_dev *sv, u8 code)
{
	switch (code) {
	case SV_NAK_INVALID_REQ:
		sv_stat_inc(sv, SV_STAT_RX_NAK_INV_REQ);
		return IB_WC_REM_INV_REQ_ERR;
	case SV_NAK_REM_ACCESS_ERR:
		sv_stat_inc(sv, SV_STAT_RX_NAK_REM_ACC);
		return IB_WC_REM_ACCESS_ERR;
	case SV_NAK_REM_OP_ERR:
		sv_stat_inc(sv, SV_STAT_RX_NAK_REM_OP);
		return IB_WC_REM_OP_ERR;
	case SV_NAK_INVALID_RD_REQ:
		sv_stat_inc(sv, SV_STAT_RX_NAK_INV_REQ);
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		/* reserved codes: treat as invalid request (IBTA 9.7.5.2) */
		sv_stat_inc(sv, SV_STAT_RX_NAK_INV_REQ);
		return IB_WC_REM_INV_REQ_ERR;
	}
}

/*
 * A WQE failed or the SQ flushes (SQE, ERR): no timer of the requester
 * runs again until a reset.  Not the hot path, so the timers go off the
 * wheel now; under req.lock because a callback may be running (the QP
 * is not quiesced), and retrans_on must not outlive its timer.
 */
static void sv_comp_stop_timers(struct sv_qp *qp)
{
	lockdep_assert_held(&qp->req.lock);
	sv_req_stop_retrans_locked(qp);
	timer_delete(&qp->req.retrans_timer);
	timer_delete(&qp->req.rnr_timer);
}

/* unsignaled WQEs retired under one hold of req.lock */
#define SV_COMP_QUIET_BATCH	32U

/*
 * Retire the in-flight WQE @sw at the SQ's head, ring index @idx, whose
 * completion is decided (the caller posts it, if any, and hands the slot
 * back).  Under req.lock.  *@kick: the requester waited for a READ or
 * atomic to retire.
 */
static void sv_comp_retire_locked(struct sv_qp *qp, struct sv_swqe *sw,
				  u32 idx, bool *kick)
{
	lockdep_assert_held(&qp->req.lock);
	if (sw->flags & SV_SWQE_RD_ATOMIC) {
		qp->req.rd_atomic--;
		if (qp->req.held) {
			WRITE_ONCE(qp->req.held, false);
			*kick = true;
		}
	}
	sw->state = SV_SWQE_DONE;
	qp->req.in_flight--;
	if (qp->req.cur == idx)
		qp->req.cur = (idx + 1) & qp->sq.queue->index_mask;
}

/*
 * Retire here, under req.lock, up to SV_COMP_QUIET_BATCH WQEs at the SQ's
 * head that are done, succeeded, unsignaled and counted by no completion
 * counter (a counter counts after earlier CQEs): they post nothing, so
 * they need no run of the retiring task.  RTS and SQD only: SQE and ERR
 * flush, which is the task's.  *@retired: some were.  Returns whether the
 * task must still run: the head is done but has more to do than that.
 */
static bool sv_comp_retire_quiet_locked(struct sv_qp *qp, bool *kick,
					bool *retired)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sv_queue *q = qp->sq.queue;
	u32 idx = q->cons, n = 0;
	bool more = false;

	lockdep_assert_held(&qp->req.lock);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return true;
	while (qp->req.in_flight) {
		struct sv_swqe *sw = sv_req_swqe(qp, idx);

		if (sw->state != SV_SWQE_DONE)
			break;
		if (n == SV_COMP_QUIET_BATCH ||
		    (sw->flags & SV_SWQE_SIGNALED) ||
		    sw->status != IB_WC_SUCCESS ||
		    sv_cntr_attached(qp, sv_cntr_wc_op(sw->wc_opcode))) {
			more = true;
			break;
		}
		sv_comp_retire_locked(qp, sw, idx, kick);
		idx = (idx + 1) & q->index_mask;
		n++;
	}
	if (n) {
		sv_queue_consume_n(q, n);
		*retired = true;
	}
	return more;
}

/*
 * Retire what completed (@retire) as far as that can be done here, drop
 * the requester lock, then have the rest retired and run the requester
 * again (@kick): both take locks of their own.
 */
static void sv_comp_unlock(struct sv_qp *qp, bool retire, bool kick)
	__releases(&qp->req.lock)
{
	bool retired = false;

	if (retire)
		retire = sv_comp_retire_quiet_locked(qp, &kick, &retired);
	spin_unlock_bh(&qp->req.lock);
	if (retired)
		sv_qp_sq_drain_check(qp);
	if (retire)
		sv_comp_retire(qp);
	if (kick)
		sv_req_sched(qp);
}

/* An RNR NAK for the open WQE @sw (IBTA 9.7.5.2.8). */
static void sv_comp_rnr_locked(struct sv_qp *qp, struct sv_swqe *sw,
			       u8 timer_code, bool *retire)
{
	struct sv_dev *sv = sv_comp_dev(qp);
	bool infinite = READ_ONCE(qp->attr.rnr_retry) == 7;

	if (!infinite && !qp->req.rnr_left) {
		sv_stat_inc(sv, SV_STAT_RNR_RETRY_EXCEEDED);
		sv_comp_fail_locked(qp, sw, IB_WC_RNR_RETRY_EXC_ERR);
		sv_comp_stop_timers(qp);
		*retire = true;
		return;
	}
	if (!infinite)
		qp->req.rnr_left--;
	sv_stat_inc(sv, SV_STAT_RNR_RETRIES);
	qp->req.rnr_wait = true;
	sv_req_stop_retrans_locked(qp);
	mod_timer(&qp->req.rnr_timer,
		  jiffies + max(sv_rnr_timer_to_jiffies(timer_code), 1UL));
}

void sv_comp_rcv(struct sv_qp *qp, struct sv_rx_pkt *pkt)
{
	const struct sv_pkt_info *p = &pkt->p;
	struct sv_dev *sv = pkt->sv;
	bool retire = false, progress = false, kick = false;
	u32 flags = p->info->flags;
	enum ib_qp_state state;
	struct sv_swqe *sw;
	u8 syn = 0;

	/* req.lock never nests with resp.lock (design.md, "Locking") */
	lockdep_assert_not_held(&qp->resp.lock);
	spin_lock_bh(&qp->req.lock);
	state = READ_ONCE(qp->state);
	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    !sv_qp_reliable(qp) || !qp->req.in_flight)
		goto out_unlock;
	/* duplicates and ghosts: nothing outstanding has this PSN */
	if (!sv_psn_in_window(p->psn, qp->comp.psn, qp->req.psn))
		goto out_unlock;
	if (sv_opcode_has(p->info, SV_EXT_AETH))
		syn = sv_aeth_syndrome(p->hdr);

	if (flags & SV_OP_ACK) {
		switch (sv_aeth_type(syn)) {
		case SV_AETH_ACK:
			sv_stat_inc(sv, SV_STAT_RX_ACKS);
			sw = sv_comp_ack_locked(qp, p->psn, &retire, &progress);
			/* an ACK past an unanswered READ/atomic: lost response */
			if (sw && (sw->flags & SV_SWQE_RESP) &&
			    !sv_psn_before(p->psn, sv_comp_need_psn(sw)))
				sv_comp_go_back_locked(qp, &kick);
			break;
		case SV_AETH_RNR_NAK:
			sv_stat_inc(sv, SV_STAT_RX_NAK_RNR);
			sw = sv_comp_ack_locked(qp, sv_psn_sub(p->psn, 1),
						&retire, &progress);
			if (progress)
				qp->req.rnr_left = READ_ONCE(qp->attr.rnr_retry);
			if (sw)
				sv_comp_rnr_locked(qp, sw, sv_aeth_value(syn),
						   &retire);
			progress = false;	/* the RNR timer rules now */
			break;
		case SV_AETH_NAK:
			sw = sv_comp_ack_locked(qp, sv_psn_sub(p->psn, 1),
						&retire, &progress);
			if (sv_aeth_value(syn) == SV_NAK_PSN_SEQ_ERR) {
				sv_stat_inc(sv, SV_STAT_RX_NAK_SEQ);
				if (sw)
					sv_comp_go_back_locked(qp, &kick);
				break;
			}
			if (sw) {
				sv_comp_fail_locked(qp, sw,
					sv_comp_nak_status(sv, sv_aeth_value(syn)));
				sv_comp_stop_timers(qp);
				retire = true;
				progress = false;
			}
			break;
		default:
			break;	/* reserved syndrome: ignore the packet */
		}
	} else if (flags & (SV_OP_READ_RESP | SV_OP_ATOMIC_ACK)) {
		/* every response also acknowledges what came before it */
		sw = sv_comp_ack_locked(qp, sv_psn_sub(p->psn, 1), &retire,
					&progress);
		if (!sw || !(sw->flags & SV_SWQE_RESP))
			goto out_timer;
		if (sv_comp_need_psn(sw) != p->psn) {
			/* responses of an earlier request were lost */
			if (sv_psn_after(p->psn, sv_comp_need_psn(sw)))
				sv_comp_go_back_locked(qp, &kick);
			goto out_timer;
		}
		if (flags & SV_OP_READ_RESP) {
			if (sw->wr_flags & SV_WR_READ)
				sv_comp_read_resp_locked(qp, sw, p, &retire,
							 &progress);
			else if (sw->flags & SV_SWQE_ACK_ENDS)
				sv_comp_mpe_resp_locked(qp, sw, p, &retire,
							&progress);
		} else if (sw->flags & SV_SWQE_ACK_ENDS) {
			/* an Atomic ACK is no answer to FLUSH/ATOMIC WRITE */
		} else if (!(sw->wr_flags & SV_WR_READ)) {
			sv_comp_atomic_ack_locked(qp, sw, p, &retire,
						  &progress);
		}
	}

out_timer:
	if (progress) {
		qp->req.retry_left = READ_ONCE(qp->attr.retry_cnt);
		if (qp->comp.psn == qp->req.psn)
			sv_req_stop_retrans_locked(qp);
		else if (!qp->req.rnr_wait)
			sv_req_arm_retrans_locked(qp, true);
		/* the window may be open now, a READ done: run it if it waits */
		if (qp->req.held) {
			WRITE_ONCE(qp->req.held, false);
			kick = true;
		}
	}
out_unlock:
	sv_comp_unlock(qp, retire, kick);
}

/*
 * The local ACK timeout expired (IBTA 9.7.6.1.3): resend or give up.  The
 * timer moves lazily (sv_req_arm_retrans_locked()): stopped since it was
 * armed, it does nothing; pushed out, it moves itself to retrans_due.
 * Otherwise it is off until a resend arms it again.
 */
void sv_comp_retrans_timeout(struct timer_list *t)
{
	struct sv_qp *qp = timer_container_of(qp, t, req.retrans_timer);
	struct sv_dev *sv = sv_comp_dev(qp);
	bool retire = false, kick = false;
	enum ib_qp_state state;
	struct sv_swqe *sw;

	spin_lock_bh(&qp->req.lock);
	if (!qp->req.retrans_on)
		goto out_unlock;
	state = READ_ONCE(qp->state);
	/* not in RESET either, where sv_req_quiesce() wants no re-arming */
	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    qp->req.rnr_wait || qp->comp.psn == qp->req.psn) {
		sv_req_stop_retrans_locked(qp);
		goto out_unlock;
	}
	if (time_before(jiffies, qp->req.retrans_due)) {
		mod_timer(&qp->req.retrans_timer, qp->req.retrans_due);
		goto out_unlock;
	}
	sv_req_stop_retrans_locked(qp);	/* a resend arms it again */
	sw = sv_comp_first_open(qp);
	if (!sw)
		goto out_unlock;
	sv_stat_inc(sv, SV_STAT_RETRY_TIMEOUTS);
	if (!qp->req.retry_left) {
		sv_stat_inc(sv, SV_STAT_RETRY_EXCEEDED);
		sv_comp_fail_locked(qp, sw, IB_WC_RETRY_EXC_ERR);
		timer_delete(&qp->req.rnr_timer);
		retire = true;
		goto out_unlock;
	}
	qp->req.retry_left--;
	qp->req.retrying = false;
	sv_req_resend_locked(qp, qp->comp.psn);
	sv_req_arm_retrans_locked(qp, true);
	kick = true;
out_unlock:
	sv_comp_unlock(qp, retire, kick);
}

/* The wait an RNR NAK asked for is over: resend what it refused. */
void sv_comp_rnr_timeout(struct timer_list *t)
{
	struct sv_qp *qp = timer_container_of(qp, t, req.rnr_timer);
	enum ib_qp_state state;
	bool kick = false;

	spin_lock_bh(&qp->req.lock);
	state = READ_ONCE(qp->state);
	if (qp->req.rnr_wait && (state == IB_QPS_RTS || state == IB_QPS_SQD)) {
		qp->req.rnr_wait = false;
		sv_req_resend_locked(qp, qp->comp.psn);
		sv_req_arm_retrans_locked(qp, true);
		kick = true;
	}
	sv_comp_unlock(qp, false, kick);
}

/* --- retiring -------------------------------------------------------------- */

/*
 * Post the completions of finished WQEs at the head of the SQ, in ring
 * order, and give their slots back; with @flush_err (SQE, ERR) every WQE,
 * finished or not, in flight or not, completes: a finished one with its
 * own status (so an error completion comes before the flushes), the
 * others with IB_WC_WR_FLUSH_ERR.  An error completion moves the QP to
 * ERR (RC) or SQE (UC, UD) and ends this pass; that transition asks for
 * another run (sv_comp_retire()), which passes again in the new state.
 *
 * Unsignaled successes, which post nothing, retire up to
 * SV_COMP_QUIET_BATCH under one hold of req.lock.
 *
 * Only from the task's run, one runner at a time, with interrupts enabled
 * (req.lock is a bottom-half lock).
 */
static void sv_comp_retire_sq(struct sv_qp *qp, bool flush_err)
{
	struct sv_queue *q = qp->sq.queue;
	struct sv_cq *cq = to_sv_cq(qp->ibqp.send_cq);
	bool retired = false, kick = false, more = true;
	/*
	 * At most what the ring holds now: a user ring's producer index is
	 * the user's, and a thread advancing it must not keep this loop
	 * going (a later run takes later WQEs).
	 */
	u32 budget = sv_queue_count(q);

	while (more && budget) {
		struct ib_wc wc = { .qp = &qp->ibqp };
		bool post = false;
		u32 avail, n, idx, quiet = 0;

		/* req.lock owns the SQ's consumer side (struct sv_wq) */
		spin_lock_bh(&qp->req.lock);
		idx = q->cons;
		/* acquire: the WQE slots published before the index */
		avail = (smp_load_acquire(&q->buf->producer_index) - idx) &
			q->index_mask;
		n = min3(avail, budget, SV_COMP_QUIET_BATCH);
		for (; quiet < n; quiet++, idx = (idx + 1) & q->index_mask) {
			if (qp->req.in_flight) {
				struct sv_swqe *sw = sv_req_swqe(qp, idx);
				const struct sv_send_wqe *wqe;

				if (sw->state == SV_SWQE_DONE) {
					wc.status = sw->status;
				} else if (flush_err) {
					wc.status = IB_WC_WR_FLUSH_ERR;
				} else {
					more = false;
					break;
				}
				wc.opcode = sw->wc_opcode;
				post = (sw->flags & SV_SWQE_SIGNALED) ||
				       wc.status != IB_WC_SUCCESS;
				if (post) {
					wqe = sv_req_wqe(qp, sw);
					wc.wr_id = wqe->wr.wr_id;
					wc.byte_len = sv_opcode_wr_wc_len(
						wqe->wr.opcode,
						wqe->dma.length);
				}
				sv_comp_retire_locked(qp, sw, idx, &kick);
			} else {
				/* never started: the ring slot is all there is */
				const struct sv_send_wqe *slot =
					sv_queue_slot(q, idx);

				if (!flush_err) {
					more = false;
					break;
				}
				wc.status = IB_WC_WR_FLUSH_ERR;
				wc.wr_id = READ_ONCE(slot->wr.wr_id);
				wc.opcode = sv_opcode_wr_wc(
					READ_ONCE(slot->wr.opcode));
				post = true;
			}
			if (post) {
				quiet++;	/* this one is retired too */
				break;
			}
			/* unsignaled and done: no CQE to count after */
			sv_cntr_count(qp, sv_cntr_wc_op(wc.opcode), true);
		}
		if (quiet) {
			sv_queue_consume_n(q, quiet);
			budget -= quiet;
			retired = true;
		}
		/*
		 * Every WQE posted is retired, or (no flush) the next is
		 * not done: no need to look again.  One that gets done
		 * meanwhile asks for a run, which makes this one pass
		 * again (sv_comp_retire()).
		 */
		if (quiet == avail ||
		    (!flush_err && (!qp->req.in_flight ||
				    sv_req_swqe(qp, q->cons)->state !=
				    SV_SWQE_DONE)))
			more = false;
		spin_unlock_bh(&qp->req.lock);
		if (!post)
			continue;

		/* errors complete signaled or not (IBTA 10.8.3) */
		lockdep_assert_not_held(&qp->req.lock);
		sv_cq_post(cq, &wc, false);
		/* counted after its CQE */
		sv_cntr_count(qp, sv_cntr_wc_op(wc.opcode),
			      wc.status == IB_WC_SUCCESS);
		if (wc.status != IB_WC_SUCCESS &&
		    wc.status != IB_WC_WR_FLUSH_ERR) {
			sv_stat_inc(sv_comp_dev(qp), SV_STAT_SEND_CQE_ERR);
			if (sv_qp_reliable(qp))
				sv_qp_error(qp, 0);
			else
				sv_qp_sq_error(qp);
			break;
		}
	}

	if (flush_err) {
		spin_lock_bh(&qp->req.lock);
		sv_comp_stop_timers(qp);
		spin_unlock_bh(&qp->req.lock);
	}
	if (retired)
		sv_qp_sq_drain_check(qp);
	/* a fence or max_rd_atomic held the requester back */
	if (kick && !flush_err)
		sv_req_sched(qp);
}

/*
 * Passes one call may run: a pass takes what the queues hold when it
 * starts, and more passes than this mean posters keep adding (see
 * sv_comp_retire()).
 */
#define SV_COMP_RETIRE_PASSES	4

/* One pass over what the state says may go; the task's run. */
static bool sv_comp_retire_run(struct sv_task *task, int *passes)
{
	struct sv_qp *qp = container_of(task, struct sv_qp, comp.task);
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (!*passes)
		return false;	/* posters keep asking: the work item goes on */
	(*passes)--;
	/*
	 * The SQ: finished WQEs are retired in order, and in SQE and ERR the
	 * rest flush with error, in-flight ones included.
	 */
	sv_comp_retire_sq(qp, state == IB_QPS_SQE || state == IB_QPS_ERR);
	if (state == IB_QPS_ERR)
		sv_qp_rq_flush_err(qp);
	return true;
}

/*
 * Retire what the state says may go (sv_xport.h): finished send WQEs in SQ
 * order; in SQE and ERR flush the SQ with error, and in ERR the RQ too
 * (IBTA 10.8.3: every outstanding and every newly posted WR completes with
 * IB_WC_WR_FLUSH_ERR, in order).  Any context.  The requester and the
 * completer call it when WQEs are done, sv_qp.c after a state change or
 * new WQEs in SQE and ERR.
 *
 * One runner at a time per QP (comp.task, struct sv_task), without a lock
 * held across sv_cq_post(): a caller that finds a run in progress only
 * counts a request, and the runner passes over the queues once more.
 * This keeps the completions in WQE order and lets a completion handler
 * post to the QP (which asks again) without recursing or deadlocking.
 *
 * Bounded work per call: a pass takes what the queues hold when it starts
 * (a user ring's producer index is the user's, and a thread advancing it
 * must not keep a pass going), and a call runs at most
 * SV_COMP_RETIRE_PASSES passes.  If posters keep asking for more, the
 * runner's role moves to the task's work item, which requeues itself the
 * same way: a process flushing its own QP without end burns its own system
 * calls and a work item that yields, never a softirq, a timer or another
 * task's system call.  With interrupts off (req.lock is a bottom-half
 * lock) the role moves at once.
 *
 * Ordering with posters: a poster produces its WQE, then executes a full
 * barrier and reads qp->state (sv_qp_kick()); a transition stores the new
 * state and then calls here, where the task's claim is the full barrier
 * before the queues are read.  So either the transition's run sees the
 * WQE or the poster sees the error state and asks for a run itself.
 */
void sv_comp_retire(struct sv_qp *qp)
{
	sv_task_sched(&qp->comp.task, SV_COMP_RETIRE_PASSES);
}

void sv_comp_init(struct sv_qp *qp)
{
	sv_task_init(&qp->comp.task, sv_req_wq, sv_comp_retire_run,
		     SV_COMP_RETIRE_PASSES);
}
