// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues, basic and XRC (IBTA Annex A14): the ring, posting,
 * the responders' pop (sv_srq_pop()), modify, the limit event, and the
 * per-packet references of XRC SRQs.
 *
 * Documentation/design.md, "Verbs objects" and "XRC".
 */
#include <linux/overflow.h>
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "sv.h"
#include "sv_xport_obj.h"

#define sv_dbg_srq(srq, fmt, ...) \
	ibdev_dbg((srq)->ibsrq.device, "srq#%u %s: " fmt, (srq)->srq_num, \
		  __func__, ##__VA_ARGS__)

#define SV_SRQ_NUM_LIMIT	XA_LIMIT(1, SV_SRQ_NUM_MAX)

static_assert(SV_MAX_SRQ_WR < SV_QUEUE_MAX_SLOTS);
static_assert(SV_MAX_SRQ < SV_SRQ_NUM_MAX);

static struct sv_queue *sv_srq_queue_create(struct sv_srq *srq, u32 max_wr)
{
	return sv_queue_create(max_wr, sv_srq_wqe_size(srq->max_sge),
			       srq->is_user ? SV_QUEUE_KERNEL_CONSUMES :
					      SV_QUEUE_KERNEL_ONLY);
}

static bool sv_srq_max_wr_valid(u32 max_wr)
{
	return max_wr >= 1 && max_wr <= SV_MAX_SRQ_WR;
}

/* the user context a udata belongs to */
static struct ib_ucontext *sv_srq_ucontext(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sv_ucontext,
					  ibuc)->ibuc;
}

/* an affiliated asynchronous event of the SRQ, outside srq->lock */
static void sv_srq_event(struct sv_srq *srq, enum ib_event_type type)
{
	struct ib_event event = {
		.device = srq->ibsrq.device,
		.event = type,
		.element.srq = &srq->ibsrq,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
}

int sv_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		  struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibsrq->device);
	struct sv_srq *srq = to_sv_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct sv_create_srq_resp resp = {};
	struct sv_queue *q;
	u32 srq_num;
	int err;

	switch (init->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		/* ib_core has set ibsrq->ext from these and holds them */
		if (!init->ext.cq || !init->ext.xrc.xrcd) {
			sv_dbg_dev(sv, "XRC SRQ without a CQ or a domain\n");
			return -EINVAL;
		}
		break;
	default:
		sv_dbg_dev(sv, "SRQ type %d not supported\n", init->srq_type);
		return -EOPNOTSUPP;
	}
	if (!sv_srq_max_wr_valid(attr->max_wr)) {
		sv_dbg_dev(sv, "max_wr %u not in 1..%u\n", attr->max_wr,
			   SV_MAX_SRQ_WR);
		return -EINVAL;
	}
	if (attr->max_sge > SV_MAX_SRQ_SGE) {
		sv_dbg_dev(sv, "max_sge %u above %u\n", attr->max_sge,
			   SV_MAX_SRQ_SGE);
		return -EINVAL;
	}
	/* an armed limit must be reachable: at most the SRQ's size */
	if (attr->srq_limit > attr->max_wr) {
		sv_dbg_dev(sv, "srq_limit %u above max_wr %u\n",
			   attr->srq_limit, attr->max_wr);
		return -EINVAL;
	}
	err = sv_dev_check_udata(udata, sizeof(resp));
	if (err)
		return err;

	if (!sv_dev_count_get(&sv->num_srq, SV_MAX_SRQ)) {
		sv_dbg_dev(sv, "no more than %u SRQs\n", SV_MAX_SRQ);
		return -ENOMEM;
	}

	srq->is_user = !!udata;
	/* a WQE with no SGE is legal, but a slot for one costs nothing */
	srq->max_sge = max(attr->max_sge, 1U);
	srq->limit = attr->srq_limit;
	spin_lock_init(&srq->lock);
	mutex_init(&srq->modify_mutex);
	refcount_set(&srq->refs, 1);
	init_completion(&srq->released);

	q = sv_srq_queue_create(srq, attr->max_wr);
	if (IS_ERR(q)) {
		err = PTR_ERR(q);
		goto err_put_count;
	}
	srq->queue = q;
	if (udata) {
		err = sv_queue_map(q, sv_srq_ucontext(udata), &resp.mi);
		if (err)
			goto err_destroy_queue;
	}

	/*
	 * Last: from here on the SRQ can be found by number.  Cyclic, not
	 * the lowest free: a target QP may still hold a WQE of a destroyed
	 * XRC SRQ and check a later packet's XRCETH against its number
	 * (sv_resp.c), and initiators go on naming it; a number handed out
	 * again at once would let those name the new SRQ (1: wrapped, fine).
	 */
	err = xa_alloc_cyclic_bh(&sv->srq_xa, &srq_num, srq, SV_SRQ_NUM_LIMIT,
				 &sv->srq_num_next, GFP_KERNEL);
	if (err < 0)
		goto err_destroy_queue;
	srq->srq_num = srq_num;
	/* what ib_uverbs reports to user space for an XRC SRQ */
	ibsrq->ext.xrc.srq_num = srq_num;

	if (udata) {
		resp.srq_num = srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase_num;
	}

	/* what the SRQ really holds, at least what was asked for */
	attr->max_wr = sv_queue_capacity(q);
	attr->max_sge = srq->max_sge;
	return 0;

err_erase_num:
	xa_erase_bh(&sv->srq_xa, srq_num);
err_destroy_queue:
	sv_queue_destroy(q);
err_put_count:
	mutex_destroy(&srq->modify_mutex);
	sv_dev_count_put(&sv->num_srq);
	return err;
}

/*
 * For the responder of an XRC target QP: the XRC SRQ numbered @srq_num
 * (an XRCETH's), with a reference, if it exists, is an XRC SRQ and
 * belongs to @xrcd (the target QP's domain, IBTA A14: else the request is
 * invalid); NULL otherwise.  Any context.  The lookup and the reference
 * are one step under the xarray's lock, which sv_srq_destroy()'s erase
 * takes too: an SRQ found here is not yet past its erase, and its destroy
 * waits for sv_srq_put().
 */
struct sv_srq *sv_srq_get_xrc(struct sv_dev *sv, u32 srq_num,
			      const struct ib_xrcd *xrcd)
{
	struct sv_srq *srq;

	xa_lock_bh(&sv->srq_xa);
	srq = xa_load(&sv->srq_xa, srq_num);
	if (srq && (srq->ibsrq.srq_type != IB_SRQT_XRC ||
		    srq->ibsrq.ext.xrc.xrcd != xrcd ||
		    !refcount_inc_not_zero(&srq->refs)))
		srq = NULL;
	xa_unlock_bh(&sv->srq_xa);
	return srq;
}

void sv_srq_put(struct sv_srq *srq)
{
	if (refcount_dec_and_test(&srq->refs))
		complete(&srq->released);
}

/*
 * ib_core calls this only when no QP is attached to the SRQ any more
 * (ibsrq.usecnt, -EBUSY otherwise); an XRC SRQ's users are the packets in
 * flight through target QPs, which hold references (sv_srq_get_xrc()):
 * once the number is erased no new one is taken, and the ones taken are
 * waited for.  Never fails.
 */
int sv_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibsrq->device);
	struct sv_srq *srq = to_sv_srq(ibsrq);

	xa_erase_bh(&sv->srq_xa, srq->srq_num);
	sv_srq_put(srq);
	wait_for_completion(&srq->released);
	/* an XRC SRQ's receive completions go to its own CQ (sv_qp_destroy) */
	if (ibsrq->srq_type == IB_SRQT_XRC && ibsrq->ext.cq)
		sv_cq_sync_notify(to_sv_cq(ibsrq->ext.cq));
	sv_queue_destroy(srq->queue);
	mutex_destroy(&srq->modify_mutex);
	sv_dev_count_put(&sv->num_srq);
	return 0;
}

/*
 * Move the WQEs waiting in the SRQ's ring to the empty @new, oldest first,
 * and make @new the SRQ's ring.  Fails with -EINVAL, changing nothing, if
 * there are more than the @max_wr asked for (even if the rounded up ring
 * could take them).
 */
static int sv_srq_swap_queue(struct sv_srq *srq, struct sv_queue *new,
			     u32 max_wr)
{
	struct sv_queue *old = srq->queue;
	size_t wqe_size = sv_srq_wqe_size(srq->max_sge);
	u32 count, cons, i;

	lockdep_assert_held(&srq->lock);

	count = sv_queue_count(old);
	cons = sv_queue_cons(old);
	if (count > max_wr) {
		sv_dbg_srq(srq, "%u WQEs posted, cannot shrink to %u\n",
			   count, max_wr);
		return -EINVAL;
	}

	if (srq->is_user) {
		/*
		 * User space owns the producer index.  The new ring is not
		 * visible to anyone yet; count < its slots is a valid index.
		 */
		for (i = 0; i < count; i++)
			memcpy(sv_queue_slot(new, i),
			       sv_queue_slot(old, cons + i), wqe_size);
		/* the copied WQEs before the index that covers them */
		smp_store_release(&new->buf->producer_index, count);
	} else {
		for (i = 0; i < count; i++) {
			memcpy(sv_queue_producer_slot(new),
			       sv_queue_slot(old, cons + i), wqe_size);
			sv_queue_produce(new);
		}
	}
	srq->queue = new;
	return 0;
}

/*
 * IB_SRQ_MAX_WR: a new ring of at least @max_wr WQEs.  A user SRQ learns
 * where it is through the struct sv_mmap_info that the kernel writes to
 * the user address in struct sv_modify_srq_cmd (librxe's protocol: the
 * modify_srq response has no driver part), before anything is committed.
 */
static int sv_srq_resize(struct sv_srq *srq, u32 max_wr,
			 struct ib_udata *udata)
{
	struct sv_queue *new, *old;
	unsigned long flags;
	int err;

	lockdep_assert_held(&srq->modify_mutex);

	new = sv_srq_queue_create(srq, max_wr);
	if (IS_ERR(new))
		return PTR_ERR(new);

	if (srq->is_user) {
		struct sv_modify_srq_cmd cmd;
		struct sv_mmap_info mi;

		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			goto err_destroy_new;
		err = sv_queue_map(new, sv_srq_ucontext(udata), &mi);
		if (err)
			goto err_destroy_new;
		if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			err = -EFAULT;
			goto err_destroy_new;
		}
	}

	/* only modify writes srq->queue, and modify_mutex is held */
	old = srq->queue;
	spin_lock_irqsave(&srq->lock, flags);
	err = sv_srq_swap_queue(srq, new, max_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto err_destroy_new;

	sv_queue_destroy(old);
	return 0;

err_destroy_new:
	sv_queue_destroy(new);
	return err;
}

/*
 * IB_SRQ_MAX_WR resizes, IB_SRQ_LIMIT arms the SRQ limit (0 disarms it).
 * Both are checked before either is applied.  The limit may not exceed
 * the SRQ's size: it could never be crossed.
 */
int sv_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		  enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sv_srq *srq = to_sv_srq(ibsrq);
	unsigned long flags;
	u32 size, limit;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		if (!sv_srq_max_wr_valid(attr->max_wr)) {
			sv_dbg_srq(srq, "max_wr %u not in 1..%u\n",
				   attr->max_wr, SV_MAX_SRQ_WR);
			return -EINVAL;
		}
		if (srq->is_user &&
		    (!udata || udata->inlen < sizeof(struct sv_modify_srq_cmd)))
			return -EINVAL;
	}

	mutex_lock(&srq->modify_mutex);
	if (mask & IB_SRQ_MAX_WR)
		size = attr->max_wr;
	else
		size = sv_queue_capacity(srq->queue);
	spin_lock_irqsave(&srq->lock, flags);
	limit = (mask & IB_SRQ_LIMIT) ? attr->srq_limit : srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	if (limit > size) {
		sv_dbg_srq(srq, "srq_limit %u above the SRQ's %u WQEs\n",
			   limit, size);
		err = -EINVAL;
		goto out_unlock;
	}

	if (mask & IB_SRQ_MAX_WR) {
		err = sv_srq_resize(srq, attr->max_wr, udata);
		if (err)
			goto out_unlock;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
out_unlock:
	mutex_unlock(&srq->modify_mutex);
	return err;
}

int sv_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sv_srq *srq = to_sv_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = sv_queue_capacity(srq->queue);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	attr->max_sge = srq->max_sge;
	return 0;
}

/*
 * Kernel SRQs only: user space posts into the mapped ring itself, and the
 * legacy uverbs POST_SRQ_RECV command is not offered for it.
 */
int sv_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct sv_srq *srq = to_sv_srq(ibsrq);
	struct sv_recv_wqe *wqe;
	struct sv_queue *q;
	unsigned long flags;
	u32 length;
	int err = 0;
	int i;

	if (srq->is_user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&srq->lock, flags);
	q = srq->queue;
	for (; wr; wr = wr->next) {
		if (unlikely(wr->num_sge < 0 || wr->num_sge > srq->max_sge)) {
			err = -EINVAL;
			break;
		}
		if (unlikely(sv_queue_full(q))) {
			err = -ENOMEM;
			break;
		}

		wqe = sv_queue_producer_slot(q);
		wqe->wr_id = wr->wr_id;
		wqe->reserved = 0;
		wqe->padding = 0;
		length = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			/* sv_srq_pop() recomputes it; saturate, never wrap */
			if (check_add_overflow(length, wr->sg_list[i].length,
					       &length))
				length = U32_MAX;
		}
		wqe->dma.length = length;
		wqe->dma.resid = length;
		wqe->dma.cur_sge = 0;
		wqe->dma.num_sge = wr->num_sge;
		wqe->dma.sge_offset = 0;
		wqe->dma.reserved = 0;
		sv_queue_produce(q);
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

int sv_srq_pop(struct sv_srq *srq, struct sv_recv_wqe *out, size_t out_size)
{
	size_t wqe_size = sv_srq_wqe_size(srq->max_sge);
	bool limit_reached = false;
	struct sv_queue *q;
	unsigned long flags;
	u32 count;
	int err;

	if (WARN_ON_ONCE(out_size < wqe_size))
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	q = srq->queue;
	count = sv_queue_count(q);
	if (!count) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -EAGAIN;
	}
	sv_wqe_copy_recv(out, sv_queue_consumer_slot(q), srq->max_sge);
	sv_queue_consume(q);
	count--;
	/* fewer WQEs left than the armed limit: report once, disarm */
	if (srq->limit && count < srq->limit) {
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	err = sv_wqe_check_recv(out, srq->max_sge);
	if (err)
		sv_dbg_srq(srq, "WQE with %u SGEs, max_sge %u\n",
			   out->dma.num_sge, srq->max_sge);
	if (limit_reached)
		sv_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}
