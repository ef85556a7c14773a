// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging, the transport's side: page faults of ODP MRs resolved
 * in process context by a work item per role and QP, which retries what was
 * parked under the fault's lock.
 *
 * Documentation/design.md, "On-demand paging".
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

/*
 * Rounds (a fault and its retry) a run of the work item does before it
 * makes room for other work by queueing itself again.
 */
#define SV_ODP_ROUNDS	16

/*
 * A round faults the range one role asked for and retries, under the
 * fault's lock, what was parked for it (sv_req_odp_fault(),
 * sv_resp_odp_fault()).  A retry that misses somewhere else (another page
 * of a long message, another MR) asks again, and the next round faults
 * that at once: a message needs no network round trip per fault.
 */
static void sv_odp_work(struct work_struct *work)
{
	struct sv_odp_fault *f = container_of(work, struct sv_odp_fault, work);
	struct sv_qp *qp = f->qp;
	unsigned int rounds;

	for (rounds = 0;; rounds++) {
		struct sv_mr *mr;
		u64 iova, len;
		bool write;

		spin_lock_bh(&f->lock);
		mr = f->mr;
		if (!mr) {
			f->busy = false;
			spin_unlock_bh(&f->lock);
			break;
		}
		if (rounds == SV_ODP_ROUNDS) {
			spin_unlock_bh(&f->lock);
			/*
			 * Not pending while it runs: queued again, our QP
			 * reference going with it.
			 */
			queue_work(sv_odp_wq, &f->work);
			return;
		}
		iova = f->iova;
		len = f->len;
		write = f->write;
		f->mr = NULL;
		spin_unlock_bh(&f->lock);

		if (f->role == SV_ODP_REQ)
			sv_req_odp_fault(qp, mr, iova, len, write);
		else
			sv_resp_odp_fault(qp, mr, iova, len, write);
		sv_mr_put(mr);
	}
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
		f->busy = false;
		f->failed = false;
	}
}

/*
 * A fault that failed is reported to the access that asked for it, and to
 * nobody else, as an HCA does (mlx5 resumes the one QP whose fault failed
 * with an error, the WQE completes in error): the mark is this role's, and
 * the first miss of this role in the range uses it up.  That miss is the
 * retry of the access (sv_req_odp_fault(), sv_resp_odp_fault()), or for
 * UC and UD, which retry nothing, the next message there.
 */
void sv_odp_fault_failed(struct sv_qp *qp, enum sv_odp_role role,
			 const struct sv_mr *mr, u64 iova, u64 len, int err)
{
	struct sv_odp_fault *f = &qp->odp[role];
	unsigned long flags;

	/* contention: the retry faults again */
	if (err == -EBUSY || err == -EAGAIN)
		return;
	spin_lock_irqsave(&f->lock, flags);
	f->failed = true;
	f->failed_mr = mr;
	f->failed_key = mr->ibmr.lkey;
	f->failed_start = iova;
	/* an implicit MR's range may end at 2^64 */
	f->failed_end = iova + len < iova ? U64_MAX : iova + len;
	spin_unlock_irqrestore(&f->lock, flags);
}

/* under f->lock: is a miss at [@iova, @iova + @len) the failed access? */
static bool sv_odp_failed_here(const struct sv_odp_fault *f,
			       const struct sv_mr *mr, u64 iova, u64 len)
{
	u64 end = iova + len < iova ? U64_MAX : iova + len;

	lockdep_assert_held(&f->lock);
	return f->failed && f->failed_mr == mr &&
	       f->failed_key == mr->ibmr.lkey &&
	       iova < f->failed_end && f->failed_start < end;
}

int sv_odp_fault_async(struct sv_qp *qp, enum sv_odp_role role,
		       struct sv_mr *mr, u64 iova, u64 len, bool write)
{
	struct sv_odp_fault *f = &qp->odp[role];
	unsigned long flags;
	bool queue;

	spin_lock_irqsave(&f->lock, flags);
	if (sv_odp_failed_here(f, mr, iova, len)) {
		f->failed = false;
		spin_unlock_irqrestore(&f->lock, flags);
		return -EFAULT;
	}
	if (f->mr) {
		/* one waits already: its retry finds this miss again */
		spin_unlock_irqrestore(&f->lock, flags);
		return -EAGAIN;
	}
	/* the caller holds a lookup reference: this one is ours */
	refcount_inc(&mr->mkey.ref);
	f->mr = mr;
	f->iova = iova;
	f->len = min_t(u64, len, SV_ODP_FAULT_MAX);
	f->write = write;
	/* a running work item takes it in its next round */
	queue = !f->busy;
	f->busy = true;
	spin_unlock_irqrestore(&f->lock, flags);

	if (queue) {
		sv_qp_get(qp);
		/* not busy: neither queued nor running */
		queue_work(sv_odp_wq, &f->work);
	}
	return -EAGAIN;
}
