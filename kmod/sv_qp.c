// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, the IBTA state machine (modify_qp, query_qp),
 * destruction, kernel consumers' work requests, flush with error and the QP's
 * affiliated events; the transport plugs in through sv_xport.h.
 *
 * Documentation/design.md, "Verbs objects" (QPs) and "Locking".
 */
#include <linux/capability.h>
#include <linux/overflow.h>
#include <rdma/uverbs_ioctl.h>

#include "sv.h"
#include "sv_rnr.h"
#include "sv_xport.h"

/*
 * QP access rights.  LOCAL_WRITE and ON_DEMAND mean nothing for a QP and
 * are ignored, as HCAs do: programs (rdma-core's ODP tests among them)
 * pass their MR's rights as the QP's.
 */
#define SV_QP_ACCESS_FLAGS \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | SV_ACCESS_FLUSH | \
	 IB_ACCESS_ON_DEMAND)

/* Q_Keys with the high bit set are controlled Q_Keys (IBTA) */
#define SV_QKEY_CONTROLLED	0x80000000U

/* UD and GSI QPs: their sends name an AH (sv_req_ah_linger()) */
static bool sv_qp_is_ud(const struct sv_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* --- references ---------------------------------------------------------- */

struct sv_qp *sv_qp_get_by_qpn_rcu(struct sv_dev *sv, u32 qpn)
{
	struct sv_qp_handle *h;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "QP look-up without RCU");
	/* handles are freed after a grace period (kfree_rcu) */
	h = rcu_dereference(sv->qp_hot[qpn % SV_QP_HOT]);
	if (!h || READ_ONCE(h->qpn) != qpn)
		h = xa_load(&sv->qp_xa, qpn);
	return h ? sv_qp_handle_get_rcu(h) : NULL;
}

/* --- events ---------------------------------------------------------------- */

void sv_qp_event(struct sv_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	/* no QP lock across a call out of the QP (design.md, "Locking") */
	lockdep_assert_not_held(&qp->state_lock);
	lockdep_assert_not_held(&qp->req.lock);
	lockdep_assert_not_held(&qp->resp.lock);
	sv_dbg_qp(qp, "event %s\n", ib_event_msg(type));
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
}

/* --- flush with error (IBTA 10.8.3) ------------------------------------ */

/*
 * WQEs waiting in @wq.  For a user ring this believes the user's producer
 * index, masked (sv_queue.h): a process that scribbles on it only makes
 * its own stale WQEs look posted, and each is checked before use.
 */
static u32 sv_wq_pending(struct sv_qp *qp, struct sv_wq *wq)
{
	return sv_queue_count(wq->queue);
}

/* the role lock that owns @wq's consumer side (struct sv_wq) */
static spinlock_t *sv_wq_consumer_lock(struct sv_qp *qp, struct sv_wq *wq)
{
	return wq == &qp->sq ? &qp->req.lock : &qp->resp.lock;
}

/*
 * Lock @wq for consuming outside the transport (flush with error,
 * discarding): its consumer side's role lock, then the producer side, so
 * that a kernel QP's producer index, which the kernel owns, is read under
 * its own lock.  (A user QP's producer_lock guards nothing else; taking
 * it costs nothing on these rare paths.)  Process context or the
 * completer's task, never with interrupts off: the role locks are _bh.
 */
static void sv_wq_lock(struct sv_qp *qp, struct sv_wq *wq,
		       unsigned long *flags)
	__acquires(sv_wq_consumer_lock(qp, wq)) __acquires(&wq->producer_lock)
{
	spin_lock_bh(sv_wq_consumer_lock(qp, wq));
	spin_lock_irqsave(&wq->producer_lock, *flags);
}

static void sv_wq_unlock(struct sv_qp *qp, struct sv_wq *wq,
			 unsigned long flags)
	__releases(&wq->producer_lock) __releases(sv_wq_consumer_lock(qp, wq))
{
	spin_unlock_irqrestore(&wq->producer_lock, flags);
	spin_unlock_bh(sv_wq_consumer_lock(qp, wq));
}

static bool sv_qp_rq_flush_err_one(struct sv_qp *qp)
{
	struct sv_wq *wq = &qp->rq;
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};
	struct sv_recv_wqe *wqe;
	unsigned long flags;

	sv_wq_lock(qp, wq, &flags);
	if (!sv_wq_pending(qp, wq)) {
		sv_wq_unlock(qp, wq, flags);
		return false;
	}
	wqe = sv_queue_consumer_slot(wq->queue);
	wc.wr_id = READ_ONCE(wqe->wr_id);
	sv_queue_consume(wq->queue);
	sv_wq_unlock(qp, wq, flags);

	sv_cq_post(to_sv_cq(qp->ibqp.recv_cq), &wc, false);
	sv_cntr_count(qp, SV_CNTR_RECV, false);
	return true;
}

void sv_qp_rq_flush_err(struct sv_qp *qp)
{
	u32 n;

	/* the responder's WQE in progress is older than the RQ's */
	sv_resp_flush_err(qp);
	if (!qp->rq.queue)
		return;
	/* what the RQ holds now; later posts ask for another run */
	for (n = sv_wq_pending(qp, &qp->rq); n; n--)
		if (!sv_qp_rq_flush_err_one(qp))
			break;
}

/*
 * Discard every WQE of @wq without completions (the transition to RESET,
 * IBTA 10.3.1).  For a user ring the user's producer index stays where it
 * is: the consumer index moves up to it, so the ring is empty and the next
 * WQE user space writes is the next one the kernel reads.
 */
static void sv_wq_discard(struct sv_qp *qp, struct sv_wq *wq)
{
	unsigned long flags;
	u32 count;

	if (!wq->queue)
		return;
	sv_wq_lock(qp, wq, &flags);
	for (count = sv_wq_pending(qp, wq); count; count--)
		sv_queue_consume(wq->queue);
	if (wq == &qp->sq)
		qp->req.in_flight = 0;
	sv_wq_unlock(qp, wq, flags);
}

/* --- state changes by the transport ---------------------------------------- */

/* the QP just entered ERR: flush with error, and tell an SRQ user it is done */
static void sv_qp_entered_error(struct sv_qp *qp)
{
	sv_comp_retire(qp);
	/*
	 * A QP with an SRQ gets no flush completions for the SRQ's WQEs;
	 * this event tells the consumer that no further WQE of the SRQ will
	 * be consumed by this QP (IBTA 10.3.1, 11.5.2.6).
	 */
	if (qp->ibqp.srq)
		sv_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

void sv_qp_error(struct sv_qp *qp, enum ib_event_type event)
{
	unsigned long flags;
	bool entered = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != IB_QPS_RESET && qp->state != IB_QPS_ERR) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		entered = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!entered)
		return;

	sv_dbg_qp(qp, "error\n");
	sv_qp_entered_error(qp);
	if (event)
		sv_qp_event(qp, event);
}

void sv_qp_sq_error(struct sv_qp *qp)
{
	unsigned long flags;
	bool entered = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	/* RC has no SQE: its send errors break the connection (IBTA 10.3.1) */
	if (qp->state == IB_QPS_RTS && !sv_qp_reliable(qp)) {
		WRITE_ONCE(qp->state, IB_QPS_SQE);
		entered = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (entered)
		sv_comp_retire(qp);
}

void sv_qp_sq_drain_check(struct sv_qp *qp)
{
	unsigned long flags;
	bool idle, notify = false;

	/*
	 * Only SQD drains.  The completer calls after every retire pass, so
	 * outside SQD it returns before taking req.lock.  A racing move to
	 * SQD is not missed: modify_qp writes the state, then checks under
	 * req.lock; if the completer's in_flight update comes after that
	 * check, its lock acquisition orders its state read after the write.
	 */
	if (READ_ONCE(qp->state) != IB_QPS_SQD)
		return;
	spin_lock_bh(&qp->req.lock);
	idle = !qp->req.in_flight;
	spin_unlock_bh(&qp->req.lock);
	if (!idle)
		return;	/* the completer calls again when that changes */

	/* nothing new starts in SQD, so idle stays true */
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IB_QPS_SQD && qp->attr.sq_draining) {
		qp->attr.sq_draining = 0;
		notify = qp->attr.en_sqd_async_notify;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (notify)
		sv_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

void sv_qp_kick(struct sv_qp *qp)
{
	enum ib_qp_state state;

	/*
	 * Order the WQEs just produced before the reads of the state
	 * (sv_comp_retire()) and of req.held: the completer clears that
	 * before it asks for a run (sv_task_claim(), a full barrier), so
	 * either it sees these WQEs or this sees the flag clear.
	 */
	smp_mb();
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_SQE || state == IB_QPS_ERR)
		sv_comp_retire(qp);
	/*
	 * RTS: the requester takes them, unless it waits for the completer
	 * (the window, or a WQE before them for READs and atomics to
	 * retire), which runs it then.  SQD: they wait for RTS.
	 */
	else if (state == IB_QPS_RTS && !READ_ONCE(qp->req.held))
		sv_req_sched(qp);
}

/* --- create ---------------------------------------------------------------- */

static int sv_qp_check_init(struct sv_dev *sv, struct ib_qp_init_attr *init,
			    struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* QP1, which ib_mad creates for the port: kernel only */
		if (udata || init->port_num != SV_PORT_NUM)
			return -EINVAL;
		break;
	case IB_QPT_XRC_INI:
		/*
		 * A kernel consumer could not name the remote SRQ: struct
		 * ib_send_wr has no field for it (Documentation/design.md).
		 */
		if (!udata)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_TGT:
		/* ib_core creates it (no udata, no PD, no CQ) in a domain */
		if (!init->xrcd || udata)
			return -EINVAL;
		break;
	default:
		sv_dbg_dev(sv, "QP type %d not supported\n", init->qp_type);
		return -EOPNOTSUPP;
	}

	/* no create flags (block loopback, scatter FCS, ...) implemented */
	if (init->create_flags) {
		sv_dbg_dev(sv, "unsupported create flags %#x\n",
			   init->create_flags);
		return -EOPNOTSUPP;
	}
	if (init->rwq_ind_tbl ||
	    (init->xrcd && init->qp_type != IB_QPT_XRC_TGT))
		return -EOPNOTSUPP;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	/*
	 * An XRC target has no queues of its own (IBTA A14): its caps
	 * mean nothing, and sv_qp_create_queues() gives it the one-slot SQ
	 * every QP has, which nothing can post to.  An initiator has no
	 * receive side: ib_uverbs zeroes its receive caps and may or may
	 * not pass a receive CQ, which is never used.
	 */
	if (init->qp_type == IB_QPT_XRC_TGT) {
		memset(cap, 0, sizeof(*cap));
		return 0;
	}
	if (init->qp_type == IB_QPT_XRC_INI) {
		if (!init->send_cq || init->srq || cap->max_recv_wr ||
		    cap->max_recv_sge)
			return -EINVAL;
	} else if (!init->send_cq || !init->recv_cq) {
		return -EINVAL;
	}

	if (cap->max_send_wr > SV_MAX_QP_WR ||
	    cap->max_send_sge > SV_MAX_QP_SGE ||
	    cap->max_inline_data > SV_MAX_INLINE_DATA) {
		sv_dbg_dev(sv, "send caps %u/%u/%u beyond %u/%u/%u\n",
			   cap->max_send_wr, cap->max_send_sge,
			   cap->max_inline_data, SV_MAX_QP_WR, SV_MAX_QP_SGE,
			   SV_MAX_INLINE_DATA);
		return -EINVAL;
	}
	/* with an SRQ the receive caps are ignored (IBTA 11.2.4.1) */
	if (!init->srq &&
	    (cap->max_recv_wr > SV_MAX_QP_WR ||
	     cap->max_recv_sge > SV_MAX_QP_SGE)) {
		sv_dbg_dev(sv, "receive caps %u/%u beyond %u/%u\n",
			   cap->max_recv_wr, cap->max_recv_sge, SV_MAX_QP_WR,
			   SV_MAX_QP_SGE);
		return -EINVAL;
	}
	return 0;
}

/*
 * Create the rings, map them for a user QP (filling @resp) and write the
 * real capacities back into @init->cap, as IBTA 11.2.4.1 asks: at least
 * what was requested.  A send slot holds the SGE array or the inline data
 * (they share dma.sge[]), so each cap grows to what the slot holds.
 */
static int sv_qp_create_queues(struct sv_qp *qp, struct ib_qp_init_attr *init,
			       struct ib_udata *udata,
			       struct sv_create_qp_resp *resp)
{
	enum sv_queue_kind kind = udata ? SV_QUEUE_KERNEL_CONSUMES :
					  SV_QUEUE_KERNEL_ONLY;
	struct ib_qp_cap *cap = &init->cap;
	struct ib_ucontext *uc = NULL;
	struct sv_queue *q;
	u32 space;
	int err;

	static_assert(SV_MAX_QP_WR < SV_QUEUE_MAX_SLOTS);
	static_assert(SV_MAX_INLINE_DATA <=
		      SV_MAX_QP_SGE * sizeof(struct sv_sge));

	if (udata)
		uc = &rdma_udata_to_drv_context(udata, struct sv_ucontext,
						ibuc)->ibuc;

	space = max_t(u32, cap->max_send_sge * sizeof(struct sv_sge),
		      cap->max_inline_data);
	/* a QP that never sends still gets a one-WQE SQ */
	q = sv_queue_create(max(cap->max_send_wr, 1U),
			    sizeof(struct sv_send_wqe) + space, kind);
	if (IS_ERR(q))
		return PTR_ERR(q);
	qp->sq.queue = q;
	qp->sq.max_wr = sv_queue_capacity(q);
	qp->sq.max_sge = space / sizeof(struct sv_sge);
	qp->sq.max_inline = space;
	if (udata) {
		err = sv_queue_map(q, uc, &resp->sq_mi);
		if (err)
			goto err_destroy_sq;
	}

	/* an SRQ's QP, and both XRC halves, have no RQ of their own */
	if (!init->srq && init->qp_type != IB_QPT_XRC_INI &&
	    init->qp_type != IB_QPT_XRC_TGT) {
		q = sv_queue_create(max(cap->max_recv_wr, 1U),
				    sizeof(struct sv_recv_wqe) +
				    cap->max_recv_sge * sizeof(struct sv_sge),
				    kind);
		if (IS_ERR(q)) {
			err = PTR_ERR(q);
			goto err_destroy_sq;
		}
		qp->rq.queue = q;
		qp->rq.max_wr = sv_queue_capacity(q);
		qp->rq.max_sge = cap->max_recv_sge;
		if (udata) {
			/* with an SRQ, librxe maps no RQ: rq_mi stays 0 */
			err = sv_queue_map(q, uc, &resp->rq_mi);
			if (err)
				goto err_destroy_rq;
		}
	}

	cap->max_send_wr = qp->sq.max_wr;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	cap->max_recv_wr = qp->rq.max_wr;
	cap->max_recv_sge = qp->rq.max_sge;
	/* an XRC target's SQ is no queue anyone may use */
	if (init->qp_type == IB_QPT_XRC_TGT)
		memset(cap, 0, sizeof(*cap));
	qp->attr.cap = *cap;
	return 0;

err_destroy_rq:
	sv_queue_destroy(qp->rq.queue);
	qp->rq.queue = NULL;
err_destroy_sq:
	sv_queue_destroy(qp->sq.queue);
	qp->sq.queue = NULL;
	return err;
}

static void sv_qp_destroy_queues(struct sv_qp *qp)
{
	sv_queue_destroy(qp->rq.queue);
	sv_queue_destroy(qp->sq.queue);
}

static void sv_wq_init(struct sv_wq *wq)
{
	spin_lock_init(&wq->producer_lock);
}

/* Publish @qp under a QPN: from now on the receive path can find it. */
static int sv_qp_publish(struct sv_dev *sv, struct sv_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		qpn = SV_QPN_GSI;
		err = xa_insert_bh(&sv->qp_xa, qpn, qp->handle, GFP_KERNEL);
		if (err == -EBUSY) {
			sv_dbg_dev(sv, "the port already has its GSI QP\n");
			err = -EEXIST;
		}
	} else {
		err = xa_alloc_cyclic_bh(&sv->qp_xa, &qpn, qp->handle,
					 XA_LIMIT(SV_QPN_MIN, SV_QPN_ALLOC_MAX),
					 &sv->qpn_next, GFP_KERNEL);
		if (err == -EBUSY)
			err = -ENOMEM;	/* every QPN in use */
	}
	if (err < 0)
		return err;
	qp->ibqp.qp_num = qpn;
	sv_mw_binds_init(&qp->mw_binds, qpn);
	/* found through qp_xa until here, then through qp_hot as well */
	qp->handle->qpn = qpn;
	xa_lock_bh(&sv->qp_xa);
	rcu_assign_pointer(sv->qp_hot[qpn % SV_QP_HOT], qp->handle);
	xa_unlock_bh(&sv->qp_xa);
	return 0;
}

int sv_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		 struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibqp->device);
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_create_qp_resp resp = {};
	int err;

	err = sv_qp_check_init(sv, init, udata);
	if (!err)
		err = sv_dev_check_udata(udata, sizeof(resp));
	if (err)
		return err;

	if (!sv_dev_count_get(&sv->num_qp, SV_MAX_QP)) {
		sv_dbg_dev(sv, "no more than %u QPs\n", SV_MAX_QP);
		return -ENOMEM;
	}
	sv_stats_qp_created(sv);	/* management plane: the QP peak */

	qp->is_user = !!udata;
	if (udata)
		qp->uc = rdma_udata_to_drv_context(udata, struct sv_ucontext,
						   ibuc);
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->xrcd = init->xrcd;
	sv_wq_init(&qp->sq);
	sv_wq_init(&qp->rq);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	qp->attr.path_mig_state = IB_MIG_MIGRATED;
	if (init->qp_type == IB_QPT_GSI)
		qp->attr.port_num = init->port_num;
	INIT_LIST_HEAD(&qp->mcast_list);
	init_completion(&qp->released);

	qp->handle = kzalloc(sizeof(*qp->handle), GFP_KERNEL);
	if (!qp->handle) {
		err = -ENOMEM;
		goto err_put_count;
	}
	refcount_set(&qp->handle->ref, 1);	/* the QP's own reference */
	qp->handle->qp = qp;

	err = sv_qp_create_queues(qp, init, udata, &resp);
	if (err)
		goto err_free_handle;

	err = sv_req_init(qp);
	if (err)
		goto err_destroy_queues;

	err = sv_resp_init(qp, init);
	if (err)
		goto err_destroy_queues;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_destroy_queues;
	}

	/* last: nothing can fail once the receive path may find the QP */
	err = sv_qp_publish(sv, qp);
	if (err)
		goto err_destroy_queues;
	if (sv_qp_is_ud(qp))
		sv_req_ud_add(qp);

	sv_dbg_qp(qp, "created type %d QP, %s, SQ %u x %u SGE/%u inline, RQ %u x %u SGE%s\n",
		  init->qp_type, udata ? "user" : "kernel",
		  qp->sq.max_wr, qp->sq.max_sge, qp->sq.max_inline,
		  qp->rq.max_wr, qp->rq.max_sge, init->srq ? " (SRQ)" : "");
	return 0;

err_destroy_queues:
	sv_resp_cleanup(qp);
	sv_req_cleanup(qp);
	sv_qp_destroy_queues(qp);
err_free_handle:
	kfree(qp->handle);
err_put_count:
	mutex_destroy(&qp->modify_mutex);
	sv_dev_count_put(&sv->num_qp);
	return err;
}

/* --- modify ---------------------------------------------------------------- */

/*
 * Refuse attribute @name of a modify_qp with @err, and say so (rate-
 * limited): the consumer only sees the errno.
 */
static int sv_qp_refuse(struct sv_qp *qp, const char *name, u64 value,
			int err)
{
	sv_info_qp(qp, "modify_qp refused (%d): %s %llu\n", err, name, value);
	return err;
}

/*
 * Value checks of the attributes in @mask (the mask itself is checked).
 * What the IBTA defines as an n-bit field is refused above its range,
 * except the flow label (sv_av.c).  Values ib_core and RoCE NICs take
 * are taken: a path MTU above the active MTU (below), any hop limit,
 * traffic class and static rate.
 */
static int sv_qp_check_attr(struct sv_qp *qp, const struct ib_qp_attr *attr,
			    int mask)
{
	/* APM would need an alternate path; RoCE has none (ib_core agrees) */
	if (mask & IB_QP_ALT_PATH)
		return sv_qp_refuse(qp, "alternate path (APM)", 1, -EOPNOTSUPP);
	if (mask & IB_QP_RATE_LIMIT)
		return sv_qp_refuse(qp, "rate_limit", attr->rate_limit,
				    -EOPNOTSUPP);
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return sv_qp_refuse(qp, "path_mig_state", attr->path_mig_state,
				    -EOPNOTSUPP);

	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SV_PORT_PKEY_TBL_LEN)
		return sv_qp_refuse(qp, "pkey_index", attr->pkey_index,
				    -EINVAL);
	if ((mask & IB_QP_PORT) && attr->port_num != SV_PORT_NUM)
		return sv_qp_refuse(qp, "port_num", attr->port_num, -EINVAL);
	/* only privileged consumers may use a controlled Q_Key */
	if ((mask & IB_QP_QKEY) && (attr->qkey & SV_QKEY_CONTROLLED) &&
	    qp->is_user && !capable(CAP_NET_RAW))
		return sv_qp_refuse(qp, "controlled qkey without CAP_NET_RAW",
				    attr->qkey, -EPERM);
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SV_QP_ACCESS_FLAGS))
		return sv_qp_refuse(qp, "qp_access_flags",
				    attr->qp_access_flags, -EINVAL);
	/*
	 * IBTA bounds the path MTU by the port's MTU capability (4096 for
	 * us).  The active MTU follows the netdev and can change under a
	 * live QP, so it is not checked here: the transport uses the
	 * smaller of both for every packet (sv_qp_mtu()), and query_qp
	 * returns the value as set.
	 */
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return sv_qp_refuse(qp, "path_mtu", attr->path_mtu, -EINVAL);
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SV_QPN_MAX)
		return sv_qp_refuse(qp, "dest_qp_num", attr->dest_qp_num,
				    -EINVAL);
	/* ib_core masks the PSNs to 24 bits (with a warning) before us */
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > SV_PSN_MAX)
		return sv_qp_refuse(qp, "sq_psn", attr->sq_psn, -EINVAL);
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > SV_PSN_MAX)
		return sv_qp_refuse(qp, "rq_psn", attr->rq_psn, -EINVAL);
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SV_MAX_QP_INIT_RD_ATOM)
		return sv_qp_refuse(qp, "max_rd_atomic", attr->max_rd_atomic,
				    -EINVAL);
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SV_MAX_QP_RD_ATOM)
		return sv_qp_refuse(qp, "max_dest_rd_atomic",
				    attr->max_dest_rd_atomic, -EINVAL);
	/* 3-bit retry counts (7 = infinite RNR retry), 5-bit timer codes */
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return sv_qp_refuse(qp, "retry_cnt", attr->retry_cnt, -EINVAL);
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return sv_qp_refuse(qp, "rnr_retry", attr->rnr_retry, -EINVAL);
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return sv_qp_refuse(qp, "timeout", attr->timeout, -EINVAL);
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return sv_qp_refuse(qp, "min_rnr_timer", attr->min_rnr_timer,
				    -EINVAL);
	/* the AV's own values: sv_path_create() */
	return 0;
}

/* Store the attributes of @mask; under state_lock. */
static void sv_qp_store_attr(struct sv_qp *qp, const struct ib_qp_attr *attr,
			     int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->state_lock);

	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* ib_core's reference is not ours to keep */
		a->ah_attr.grh.sgid_attr = NULL;
		/* the 20 bits that are used (sv_path_init()) */
		a->ah_attr.grh.flow_label &= IB_GRH_FLOWLABEL_MASK;
	}
	if (mask & IB_QP_PATH_MTU)
		WRITE_ONCE(a->path_mtu, attr->path_mtu);
	if (mask & IB_QP_TIMEOUT) {
		a->timeout = attr->timeout;
		WRITE_ONCE(qp->req.ack_timeout_j,
			   sv_ack_timeout_jiffies(attr->timeout));
	}
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		qp->resp.psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		qp->req.psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
}

/* RESET forgets everything modify_qp set (IBTA 10.3.1); under state_lock */
static struct sv_path *sv_qp_reset_attr(struct sv_qp *qp)
{
	struct ib_qp_cap cap = qp->attr.cap;
	u32 port_num = qp->attr.port_num;

	lockdep_assert_held(&qp->state_lock);

	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->attr.cap = cap;
	qp->attr.path_mig_state = IB_MIG_MIGRATED;
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		qp->attr.port_num = port_num;
	qp->req.psn = 0;
	qp->resp.psn = 0;
	/* kept from attr.timeout (sv_qp_store_attr()): 0 again, never */
	WRITE_ONCE(qp->req.ack_timeout_j, 0);
	return rcu_replace_pointer(qp->path, NULL,
				   lockdep_is_held(&qp->state_lock));
}

/*
 * What the QP needs from this modify on and an idle QP does without,
 * allocated before the modify takes effect (a failure leaves the QP as it
 * was; what was allocated stays for a later try): the requester's WQE
 * copies when it first goes to RTS, and the responder resources of a new
 * max_dest_rd_atomic.  An unconnected QP costs its rings and little more.
 */
static int sv_qp_alloc_for(struct sv_qp *qp, const struct ib_qp_attr *attr,
			   int mask, enum ib_qp_state next)
{
	int err;

	lockdep_assert_held(&qp->modify_mutex);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		err = sv_resp_res_reserve(qp, attr->max_dest_rd_atomic);
		if (err)
			return err;
	}
	if (next == IB_QPS_RTS)
		return sv_req_alloc(qp);
	return 0;
}

static enum ib_qp_state sv_qp_read_state(struct sv_qp *qp)
{
	unsigned long flags;
	enum ib_qp_state state;

	spin_lock_irqsave(&qp->state_lock, flags);
	state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return state;
}

int sv_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibqp->device);
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_path *path = NULL, *old_path = NULL;
	enum ib_qp_state cur, next;
	unsigned long flags;
	int err;

	err = sv_dev_check_udata(udata, 0);
	if (err)
		return err;

	mutex_lock(&qp->modify_mutex);
again:
	cur = sv_qp_read_state(qp);
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	/* the consumer's idea of the current state must be right */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		sv_info_qp(qp, "modify_qp refused: current state is %d, not %d\n",
			   cur, attr->cur_qp_state);
		err = -EINVAL;
		goto out_unlock;
	}
	/* the transition and its required/optional attributes (11.2.4.2) */
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		sv_info_qp(qp, "modify_qp refused: transition %d -> %d with attribute mask %#x (IBTA 11.2.4.2)\n",
			   cur, next, mask);
		err = -EINVAL;
		goto out_unlock;
	}
	/* attributes may change in SQD only once the SQ is drained */
	if (cur == IB_QPS_SQD && next == IB_QPS_SQD &&
	    (mask & ~IB_QP_STATE) && READ_ONCE(qp->attr.sq_draining)) {
		sv_info_qp(qp, "modify_qp refused: attributes change in SQD only once the SQ is drained\n");
		err = -EBUSY;
		goto out_unlock;
	}
	err = sv_qp_check_attr(qp, attr, mask);
	if (err) {
		sv_dbg_qp(qp, "invalid attributes (mask %#x): %d\n", mask,
			  err);
		goto out_unlock;
	}

	if (mask & IB_QP_AV) {
		u32 dqpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num :
						   qp->attr.dest_qp_num;

		path = sv_path_create(sv, &attr->ah_attr,
				      SV_PATH_UNICAST | SV_PATH_ROUTE |
				      SV_PATH_CACHE,
				      GFP_KERNEL);
		if (IS_ERR(path)) {
			err = PTR_ERR(path);
			path = NULL;
			sv_dbg_qp(qp, "address vector refused: %d\n", err);
			goto out_unlock;
		}
		path->udp_sport = rdma_get_udp_sport(path->flow_label,
						     ibqp->qp_num, dqpn);
	}

	err = sv_qp_alloc_for(qp, attr, mask, next);
	if (err) {
		sv_path_free(path);
		goto out_unlock;
	}

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != cur) {
		/* the transport moved the QP meanwhile: check again */
		spin_unlock_irqrestore(&qp->state_lock, flags);
		sv_path_free(path);
		path = NULL;
		goto again;
	}
	if (next == IB_QPS_RESET) {
		old_path = sv_qp_reset_attr(qp);
	} else {
		sv_qp_store_attr(qp, attr, mask);
		if (path)
			old_path = rcu_replace_pointer(qp->path, path,
					lockdep_is_held(&qp->state_lock));
		if (next == IB_QPS_SQD && cur != IB_QPS_SQD) {
			qp->attr.sq_draining = 1;
			/*
			 * The consumer asks for SQ_DRAINED with this
			 * transition, not once for all (IBTA 11.2.4.2).
			 */
			if (!(mask & IB_QP_EN_SQD_ASYNC_NOTIFY))
				qp->attr.en_sqd_async_notify = 0;
		} else if (next != IB_QPS_SQD)
			qp->attr.sq_draining = 0;
	}
	WRITE_ONCE(qp->state, next);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (old_path)
		sv_path_free_rcu(old_path);

	if (next != cur)
		sv_dbg_qp(qp, "state %d -> %d\n", cur, next);
	switch (next) {
	case IB_QPS_RESET:
		if (cur != IB_QPS_RESET) {
			sv_req_reset(qp);
			sv_resp_reset(qp);
			sv_wq_discard(qp, &qp->sq);
			sv_wq_discard(qp, &qp->rq);
		}
		break;
	case IB_QPS_ERR:
		if (cur != IB_QPS_ERR)
			sv_qp_entered_error(qp);
		break;
	case IB_QPS_SQD:
		if (cur != IB_QPS_SQD)
			sv_qp_sq_drain_check(qp);
		break;
	case IB_QPS_RTS:
		/* from SQD (or SQE): WQEs posted meanwhile may go now */
		if (cur != IB_QPS_RTS)
			sv_qp_kick(qp);
		break;
	default:
		break;
	}
	err = 0;
out_unlock:
	mutex_unlock(&qp->modify_mutex);
	return err;
}

/* --- query ----------------------------------------------------------------- */

int sv_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	unsigned long flags;

	/* everything, whatever @mask asks for: it is only a hint */
	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_psn = qp->req.psn;
	attr->rq_psn = qp->resp.psn;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = attr->port_num;
	return 0;
}

/* --- destroy --------------------------------------------------------------- */

/* how long a destroy waits for the UD/UC sends rung in before it */
#define SV_QP_LINGER_MS		200

/*
 * Outstanding WQEs are discarded, not flushed: the CQs may outlive the QP,
 * and a completion must not name a QP that no longer exists (IBTA
 * 11.2.4.4: destroying a QP ends its outstanding work requests; consumers
 * drain first if they want completions, e.g. ib_drain_qp()).  UD and UC
 * sends already rung in are first let go out (sv_req_linger()).
 */
int sv_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibqp->device);
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_path *path;
	unsigned long flags;

	if (sv_qp_is_ud(qp))
		sv_req_ud_del(qp);
	sv_req_linger(qp, jiffies + msecs_to_jiffies(SV_QP_LINGER_MS));
	mutex_lock(&qp->modify_mutex);
	/* RESET: the transport stops processing, posting fails */
	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	path = rcu_replace_pointer(qp->path, NULL,
				   lockdep_is_held(&qp->state_lock));
	spin_unlock_irqrestore(&qp->state_lock, flags);
	mutex_unlock(&qp->modify_mutex);

	/*
	 * Unpublish, then wait for every reference the lookups took.  Storing
	 * NULL in the allocating qp_xa hides the QP but keeps its QPN
	 * reserved, so no new QP takes the number before the QP's type 2
	 * memory windows are released below.
	 */
	sv_mcast_detach_all(qp);
	xa_lock_bh(&sv->qp_xa);
	if (rcu_access_pointer(sv->qp_hot[ibqp->qp_num % SV_QP_HOT]) ==
	    qp->handle)
		RCU_INIT_POINTER(sv->qp_hot[ibqp->qp_num % SV_QP_HOT], NULL);
	xa_unlock_bh(&sv->qp_xa);
	xa_store_bh(&sv->qp_xa, ibqp->qp_num, NULL, GFP_KERNEL);
	/* a fault of ours stuck in user memory must not hold us (sv_odp.c) */
	sv_odp_qp_stop(qp);
	sv_qp_put(qp);
	wait_for_completion(&qp->released);

	/*
	 * The requester stops first, so that no BIND_MW of this QP can run
	 * after its windows are released.  Windows bound to this QP can serve
	 * no one else: back to Free.
	 */
	sv_req_cleanup(qp);
	if (sv_qp_connected(qp))
		sv_mw_invalidate_qp(&qp->mw_binds);
	xa_erase_bh(&sv->qp_xa, ibqp->qp_num);

	sv_resp_cleanup(qp);
	/* nor counts */
	sv_cntr_qp_detach(qp);
	/*
	 * Nothing posts to the CQs for this QP any more.  A handler call
	 * still on its way must land before ib_free_cq() can stop the CQ's
	 * polling and free it (it destroys the QPs first).
	 */
	if (ibqp->send_cq)
		sv_cq_sync_notify(to_sv_cq(ibqp->send_cq));
	if (ibqp->recv_cq)
		sv_cq_sync_notify(to_sv_cq(ibqp->recv_cq));
	sv_qp_destroy_queues(qp);
	if (path)
		sv_path_free_rcu(path);
	kfree_rcu(qp->handle, rcu);
	mutex_destroy(&qp->modify_mutex);
	sv_dev_count_put(&sv->num_qp);
	sv_dbg_dev(sv, "destroyed qp#%u\n", ibqp->qp_num);
	return 0;
}

/* --- posting (kernel QPs) -------------------------------------------------- */

/*
 * Posting to the SQ is allowed from RTS on (IBTA 10.3.1: in RESET, INIT
 * and RTR a send WR is an immediate error); in SQD WQEs wait, in SQE and
 * ERR they are flushed at once (10.8.3).
 */
static bool sv_qp_sq_open(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

/*
 * The doorbell of a user QP: librxe writes WQEs into the mapped SQ itself
 * and then rings it with a post_send that carries no work request.
 *
 * In RESET, INIT and RTR posting a send is an immediate error and nothing
 * executes (IBTA 10.3.1).  The WQEs are in the ring already, so they are
 * discarded without completions, and the poster gets -EINVAL, as a kernel
 * poster does.  Otherwise they would run on the next doorbell after RTS,
 * long after the poster was told they failed.  The discard holds
 * modify_mutex: only modify_qp opens the SQ (RTR -> RTS), so no WQE can
 * start between the state read and the discard.
 */
static int sv_qp_doorbell(struct sv_qp *qp)
{
	if (likely(sv_qp_sq_open(READ_ONCE(qp->state)))) {
		sv_qp_kick(qp);
		return 0;
	}

	mutex_lock(&qp->modify_mutex);
	if (sv_qp_sq_open(READ_ONCE(qp->state))) {
		/* modify_qp opened the SQ meanwhile: an ordinary doorbell */
		mutex_unlock(&qp->modify_mutex);
		sv_qp_kick(qp);
		return 0;
	}
	sv_wq_discard(qp, &qp->sq);
	mutex_unlock(&qp->modify_mutex);
	sv_dbg_qp(qp, "doorbell in state %d: send WQEs discarded\n",
		  READ_ONCE(qp->state));
	return -EINVAL;
}

int sv_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->is_user) {
		/* work requests through the system call are no librxe ABI */
		if (wr) {
			*bad_wr = wr;
			return -EOPNOTSUPP;
		}
		return sv_qp_doorbell(qp);
	}
	/* an XRC target sends nothing: no send queue, no send CQ (A14) */
	if (ibqp->qp_type == IB_QPT_XRC_TGT) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->sq.producer_lock, flags);
	for (; wr; wr = wr->next) {
		enum ib_qp_state state = READ_ONCE(qp->state);
		u64 length;

		if (!sv_qp_sq_open(state)) {
			err = -EINVAL;
			break;
		}
		err = sv_wqe_check_send_wr(qp, wr, state == IB_QPS_SQE ||
					   state == IB_QPS_ERR, &length);
		if (err)
			break;
		if (sv_queue_full(qp->sq.queue)) {
			err = -ENOMEM;
			break;
		}
		sv_wqe_write_send(qp, wr, length);
	}
	spin_unlock_irqrestore(&qp->sq.producer_lock, flags);

	if (err) {
		*bad_wr = wr;
		sv_dbg_qp(qp, "send WR %llu (opcode %d) refused: %d\n",
			  wr->wr_id, wr->opcode, err);
	}
	/* whatever made it into the SQ goes (or flushes) now */
	sv_qp_kick(qp);
	return err;
}

int sv_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	unsigned long flags;
	int err = 0;

	/*
	 * User QPs post into the mapped RQ; a QP with an SRQ has no RQ,
	 * nor does either XRC half.
	 */
	if (qp->is_user || !qp->rq.queue) {
		*bad_wr = wr;
		return qp->is_user ? -EOPNOTSUPP : -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.producer_lock, flags);
	for (; wr; wr = wr->next) {
		/* receives may be posted from INIT on (IBTA C10-97.2.1) */
		if (READ_ONCE(qp->state) == IB_QPS_RESET) {
			err = -EINVAL;
			break;
		}
		err = sv_wqe_write_recv(qp, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&qp->rq.producer_lock, flags);

	if (err) {
		*bad_wr = wr;
		sv_dbg_qp(qp, "receive WR %llu refused: %d\n", wr->wr_id,
			  err);
	}
	/* in ERR the new WQEs complete with a flush error right away */
	smp_mb();	/* see sv_comp_retire() */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sv_comp_retire(qp);
	return err;
}
