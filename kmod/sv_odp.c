// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging, the transport's side: page faults of ODP MRs resolved
 * in process context, on the ODP thread of the MR's user context, by a work
 * item per role and QP, which retries what was parked under the fault's
 * lock.
 *
 * Documentation/design.md, "On-demand paging".
 */
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "sv.h"
#include "sv_xport.h"

/* a fault maps at most this much at once; an access beyond misses again */
#define SV_ODP_FAULT_MAX	(4ULL << 20)

/*
 * The ODP thread of one user context.  A fault maps the memory of the
 * process that registered the MR, and may wait for as long as that memory
 * takes to read: a FUSE daemon that never answers holds it for ever.  So
 * each context has a thread of its own (not a shared workqueue, whose
 * workers cannot be signalled either), and a stuck fault holds only its
 * own context.  The thread takes SIGKILL (allow_signal()): a teardown that
 * must wait for the item it runs sends it one, and the fault's killable
 * waits (sv_mr.c faults with FAULT_FLAG_KILLABLE) end.
 *
 * lock (irqsave: items are queued from the transport, any context; taken
 * inside a QP's sv_odp_fault.lock; takes the thread's siglock, as
 * send_sig() and flush_signals() do) protects queue, cur and cur_mr.  An
 * item is queued (on queue), current (cur) or neither, and moves from one
 * to the next under it, so a teardown finds it in one place: a queued
 * item is cancelled, the current one killed.  The thread drops a kill at
 * the end of the item or MR it was sent for, under the same lock, so it
 * never reaches the next one.
 */
struct sv_odp_ctx {
	spinlock_t		lock;
	struct list_head	queue;
	struct sv_odp_item	*cur;
	const struct sv_mr	*cur_mr;
	struct task_struct	*task;
	wait_queue_head_t	wq;
};

static struct sv_odp_ctx *sv_odp_mr_ctx(const struct sv_mr *mr)
{
	return mr->odp_uc ? READ_ONCE(mr->odp_uc->odp) : NULL;
}

static bool sv_odp_has_work(struct sv_odp_ctx *ctx)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&ctx->lock, flags);
	ret = !list_empty(&ctx->queue);
	spin_unlock_irqrestore(&ctx->lock, flags);
	return ret;
}

static int sv_odp_thread(void *arg)
{
	struct sv_odp_ctx *ctx = arg;

	allow_signal(SIGKILL);
	for (;;) {
		struct sv_odp_item *item;

		/* idle: not interruptible, a stray signal would spin us */
		wait_event_idle(ctx->wq, sv_odp_has_work(ctx) ||
				kthread_should_stop());
		spin_lock_irq(&ctx->lock);
		/* a SIGKILL from user space to the thread is no teardown's */
		flush_signals(current);
		item = list_first_entry_or_null(&ctx->queue,
						struct sv_odp_item, entry);
		if (!item) {
			spin_unlock_irq(&ctx->lock);
			if (kthread_should_stop())
				break;
			continue;
		}
		list_del_init(&item->entry);
		ctx->cur = item;
		spin_unlock_irq(&ctx->lock);

		/* may free the item: compared by address only from here */
		item->fn(item);

		spin_lock_irq(&ctx->lock);
		ctx->cur = NULL;
		ctx->cur_mr = NULL;
		flush_signals(current);
		spin_unlock_irq(&ctx->lock);
		cond_resched();
	}
	return 0;
}

int sv_odp_ctx_get(struct sv_ucontext *uc)
{
	struct sv_odp_ctx *ctx;
	int err = 0;

	/* only user PDs register ODP MRs (reg_user_mr) */
	if (WARN_ON_ONCE(!uc))
		return -EINVAL;
	mutex_lock(&uc->odp_mutex);
	if (uc->odp)
		goto out_unlock;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx) {
		err = -ENOMEM;
		goto out_unlock;
	}
	spin_lock_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->queue);
	init_waitqueue_head(&ctx->wq);
	ctx->task = kthread_run(sv_odp_thread, ctx, "sv_odp/%d",
				task_tgid_nr(current));
	if (IS_ERR(ctx->task)) {
		err = PTR_ERR(ctx->task);
		kfree(ctx);
		goto out_unlock;
	}
	/* published: lookups of an MR made after this see it */
	WRITE_ONCE(uc->odp, ctx);
out_unlock:
	mutex_unlock(&uc->odp_mutex);
	return err;
}

void sv_odp_ctx_put(struct sv_ucontext *uc)
{
	struct sv_odp_ctx *ctx = uc->odp;

	if (!ctx)
		return;
	/* every QP and MR is gone: their items were cancelled or ran */
	WARN_ON_ONCE(sv_odp_has_work(ctx));
	kthread_stop(ctx->task);
	kfree(ctx);
	uc->odp = NULL;
}

void sv_odp_item_init(struct sv_odp_item *item,
		      void (*fn)(struct sv_odp_item *item))
{
	INIT_LIST_HEAD(&item->entry);
	item->fn = fn;
}

static void sv_odp_enqueue(struct sv_odp_ctx *ctx, struct sv_odp_item *item)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->lock, flags);
	list_add_tail(&item->entry, &ctx->queue);
	spin_unlock_irqrestore(&ctx->lock, flags);
	wake_up(&ctx->wq);
}

void sv_odp_queue(struct sv_mr *mr, struct sv_odp_item *item)
{
	sv_odp_enqueue(sv_odp_mr_ctx(mr), item);
}

void sv_odp_using(const struct sv_mr *mr, bool on)
{
	struct sv_odp_ctx *ctx = sv_odp_mr_ctx(mr);

	spin_lock_irq(&ctx->lock);
	if (on) {
		ctx->cur_mr = mr;
		/* its dereg waits: no new fault of it may hang there */
		if (mr->odp_dying)
			send_sig(SIGKILL, current, 1);
	} else {
		ctx->cur_mr = NULL;
		flush_signals(current);
	}
	spin_unlock_irq(&ctx->lock);
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
 * that at once: a message needs no network round trip per fault.  A round
 * for an MR of another context goes to that context's thread.
 */
static void sv_odp_work(struct sv_odp_item *item)
{
	struct sv_odp_fault *f = container_of(item, struct sv_odp_fault, item);
	struct sv_qp *qp = f->qp;
	unsigned int rounds;

	for (rounds = 0;; rounds++) {
		struct sv_odp_ctx *ctx;
		unsigned long flags;
		struct sv_mr *mr;
		u64 iova, len;
		bool write;

		spin_lock_irqsave(&f->lock, flags);
		mr = f->mr;
		if (!mr) {
			f->busy = false;
			spin_unlock_irqrestore(&f->lock, flags);
			break;
		}
		ctx = sv_odp_mr_ctx(mr);
		if (rounds == SV_ODP_ROUNDS || ctx != f->ctx) {
			/*
			 * Queued again, our QP reference going with it; under
			 * f->lock, so that sv_odp_qp_stop() finds it queued.
			 */
			f->ctx = ctx;
			sv_odp_enqueue(ctx, &f->item);
			spin_unlock_irqrestore(&f->lock, flags);
			return;
		}
		iova = f->iova;
		len = f->len;
		write = f->write;
		f->mr = NULL;
		spin_unlock_irqrestore(&f->lock, flags);

		sv_odp_using(mr, true);
		if (f->role == SV_ODP_REQ)
			sv_req_odp_fault(qp, mr, iova, len, write);
		else
			sv_resp_odp_fault(qp, mr, iova, len, write);
		sv_odp_using(mr, false);
		sv_mr_put(mr);
	}
	sv_qp_put(qp);
}

void sv_odp_qp_stop(struct sv_qp *qp)
{
	int i;

	for (i = 0; i < SV_ODP_ROLES; i++) {
		struct sv_odp_fault *f = &qp->odp[i];
		bool cancelled = false;
		unsigned long flags;
		struct sv_mr *mr;

		spin_lock_irqsave(&f->lock, flags);
		f->dead = true;
		/* the running item finds nothing more to do */
		mr = f->mr;
		f->mr = NULL;
		if (f->busy) {
			struct sv_odp_ctx *ctx = f->ctx;

			spin_lock(&ctx->lock);
			if (!list_empty(&f->item.entry)) {
				list_del_init(&f->item.entry);
				f->busy = false;
				cancelled = true;
			} else if (ctx->cur == &f->item) {
				/* bounds a fault stuck in a killable wait */
				send_sig(SIGKILL, ctx->task, 1);
			}
			spin_unlock(&ctx->lock);
		}
		spin_unlock_irqrestore(&f->lock, flags);
		if (mr)
			sv_mr_put(mr);
		/* the reference the queued item held */
		if (cancelled)
			sv_qp_put(qp);
	}
}

void sv_odp_mr_wait(struct sv_mr *mr)
{
	struct sv_odp_ctx *ctx = sv_odp_mr_ctx(mr);
	unsigned int ticks;

	/*
	 * A fault of it that ends by itself is let end; after 100 ms the one
	 * running is killed, and so is each that starts after it (queued
	 * items hold references too).
	 */
	for (ticks = 1;
	     !wait_for_completion_timeout(&mr->mkey.released, HZ / 10);
	     ticks++) {
		unsigned long flags;

		if (ctx) {
			spin_lock_irqsave(&ctx->lock, flags);
			mr->odp_dying = true;
			if (ctx->cur_mr == mr)
				send_sig(SIGKILL, ctx->task, 1);
			spin_unlock_irqrestore(&ctx->lock, flags);
		}
		if (!(ticks % 100))
			sv_err_dev(mr->sv, "key %#x still referenced after %u s\n",
				   READ_ONCE(mr->mkey.key), ticks / 10);
	}
}

void sv_odp_init(struct sv_qp *qp)
{
	int i;

	for (i = 0; i < SV_ODP_ROLES; i++) {
		struct sv_odp_fault *f = &qp->odp[i];

		spin_lock_init(&f->lock);
		sv_odp_item_init(&f->item, sv_odp_work);
		f->ctx = NULL;
		f->qp = qp;
		f->role = i;
		f->mr = NULL;
		f->busy = false;
		f->dead = false;
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
	struct sv_odp_ctx *ctx = sv_odp_mr_ctx(mr);
	struct sv_odp_fault *f = &qp->odp[role];
	unsigned long flags;

	/* every ODP MR is a user context's, which has its thread */
	if (WARN_ON_ONCE(!ctx))
		return -EFAULT;
	spin_lock_irqsave(&f->lock, flags);
	if (sv_odp_failed_here(f, mr, iova, len)) {
		f->failed = false;
		spin_unlock_irqrestore(&f->lock, flags);
		return -EFAULT;
	}
	if (f->mr || f->dead) {
		/*
		 * One waits already: its retry finds this miss again.  Or the
		 * QP is being destroyed: nothing is retried.
		 */
		spin_unlock_irqrestore(&f->lock, flags);
		return -EAGAIN;
	}
	/* the caller holds a lookup reference: this one is ours */
	sv_mr_hold(mr);
	f->mr = mr;
	f->iova = iova;
	f->len = min_t(u64, len, SV_ODP_FAULT_MAX);
	f->write = write;
	/* a running work item takes it in its next round */
	if (!f->busy) {
		f->busy = true;
		sv_qp_get(qp);
		f->ctx = ctx;
		sv_odp_enqueue(ctx, &f->item);
	}
	spin_unlock_irqrestore(&f->lock, flags);
	return -EAGAIN;
}
