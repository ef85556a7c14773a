// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging, the transport's side: resolving page faults of ODP
 * MRs (sv_mr.c) in process context.
 *
 * The transport copies in the receive softirq and under spinlocks, where
 * it cannot fault a page in (hmm_range_fault() sleeps).  An access that
 * finds a page absent (sv_mr_copy() -EAGAIN) leaves its state as before
 * the packet, asks for the fault here and is retried once the pages are
 * in, as an HCA does (Documentation/design.md, "On-demand paging"):
 *   - RC responder, SEND and RDMA WRITE: an RNR NAK (IBTA 9.7.5.2.8); the
 *     requester sends the packet again after min_rnr_timer (9.7.6.1.2);
 *   - RC responder, RDMA READ, atomics, ATOMIC WRITE: the response waits
 *     (resp.odp_wait) and is served by the response work item after the
 *     fault; the requester's ACK timeout covers a fault that takes long;
 *   - requester gather (SEND, WRITE data): nothing is sent until the
 *     fault is resolved (req.odp_wait); completer scatter (READ response,
 *     atomic result): the response is dropped and, after the fault, the
 *     requester asks again from the oldest unacknowledged PSN (9.7.6.1:
 *     a READ or atomic may be repeated; the responder answers a
 *     duplicate atomic from its resource, never twice);
 *   - UC and UD responders: the message is dropped (counted, odp_drops)
 *     and its pages faulted, so that the next one lands: those
 *     transports are unreliable (IBTA 9.8, 9.9) and have no way to ask
 *     the sender again.
 * One fault per role and QP is under way at a time; each holds a QP
 * reference and an MR reference.
 */
#include <linux/workqueue.h>

#include "sv.h"
#include "sv_xport.h"

/* a fault maps at most this much at once; an access beyond misses again */
#define SV_ODP_FAULT_MAX	(4ULL << 20)

/*
 * The module's own queue for faults and asynchronous prefetches, not a
 * system one: these work items run module code after their last QP or MR
 * reference is dropped, and destroying this queue at module exit waits for
 * them.  Not WQ_MEM_RECLAIM: a fault allocates pages.
 */
struct workqueue_struct *sv_odp_wq;

int sv_odp_wq_create(void)
{
	sv_odp_wq = alloc_workqueue("softverbs_odp", WQ_UNBOUND, 0);
	return sv_odp_wq ? 0 : -ENOMEM;
}

void sv_odp_wq_destroy(void)
{
	destroy_workqueue(sv_odp_wq);
}

static void sv_odp_work(struct work_struct *work)
{
	struct sv_odp_fault *f = container_of(work, struct sv_odp_fault, work);
	struct sv_qp *qp = f->qp;
	struct sv_mr *mr;
	u64 iova, len;
	bool write;
	int err;

	spin_lock_bh(&f->lock);
	mr = f->mr;
	iova = f->iova;
	len = f->len;
	write = f->write;
	spin_unlock_bh(&f->lock);

	err = sv_mr_odp_fault(mr, iova, len, write, true);
	if (err)
		/* the retried access reports it */
		sv_mr_odp_fault_failed(mr, iova, len, err);

	spin_lock_bh(&f->lock);
	f->mr = NULL;
	spin_unlock_bh(&f->lock);
	sv_mr_put(mr);

	if (f->role == SV_ODP_REQ)
		sv_req_odp_done(qp);
	else
		sv_resp_odp_done(qp);
	sv_qp_put(qp);
}

void sv_odp_init(struct sv_qp *qp)
{
	int i;

	for (i = 0; i < SV_ODP_ROLES; i++) {
		struct sv_odp_fault *f = &qp->odp[i];

		spin_lock_init(&f->lock);
		INIT_WORK(&f->work, sv_odp_work);
		f->qp = qp;
		f->role = i;
		f->mr = NULL;
	}
}

void sv_odp_fault_async(struct sv_qp *qp, enum sv_odp_role role,
			struct sv_mr *mr, u64 iova, u64 len, bool write)
{
	struct sv_odp_fault *f = &qp->odp[role];
	unsigned long flags;

	spin_lock_irqsave(&f->lock, flags);
	if (f->mr) {
		spin_unlock_irqrestore(&f->lock, flags);
		return;
	}
	/* the caller holds a lookup reference: this one is ours */
	refcount_inc(&mr->mkey.ref);
	f->mr = mr;
	f->iova = iova;
	f->len = min_t(u64, len, SV_ODP_FAULT_MAX);
	f->write = write;
	spin_unlock_irqrestore(&f->lock, flags);

	sv_qp_get(qp);
	/* idle while f->mr was NULL: queue_work() cannot find it queued */
	queue_work(sv_odp_wq, &f->work);
}
