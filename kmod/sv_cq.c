// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the ring, posting completions (sv_cq_post()), polling,
 * resize, arming, and calling a kernel CQ's handler on its vector's CPU.
 *
 * Documentation/design.md, "Verbs objects" and "Transport" (completion
 * handlers).
 */
#include <linux/overflow.h>
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "sv.h"
#include "sv_xport_obj.h"

#define sv_dbg_cq(cq, fmt, ...) \
	ibdev_dbg((cq)->ibcq.device, "cq#%u %s: " fmt, (cq)->ibcq.res.id, \
		  __func__, ##__VA_ARGS__)
#define sv_err_cq(cq, fmt, ...) \
	ibdev_err_ratelimited((cq)->ibcq.device, "cq#%u %s: " fmt, \
			      (cq)->ibcq.res.id, __func__, ##__VA_ARGS__)

/*
 * wc_flags as libibverbs defines them (enum ibv_wc_flags): user space reads
 * these from the ring.  They are not the kernel's IB_WC_* values, which
 * put WITH_INVALIDATE and IP_CSUM_OK the other way round; the kernel-only
 * flags (SMAC, VLAN, network header type) have no place in ib_uverbs_wc.
 */
enum {
	SV_UWC_GRH		= 1 << 0,
	SV_UWC_WITH_IMM		= 1 << 1,
	SV_UWC_IP_CSUM_OK	= 1 << 2,
	SV_UWC_WITH_INV		= 1 << 3,
};

static u32 sv_cq_uwc_flags(int flags)
{
	u32 uflags = 0;

	if (flags & IB_WC_GRH)
		uflags |= SV_UWC_GRH;
	if (flags & IB_WC_WITH_IMM)
		uflags |= SV_UWC_WITH_IMM;
	if (flags & IB_WC_IP_CSUM_OK)
		uflags |= SV_UWC_IP_CSUM_OK;
	if (flags & IB_WC_WITH_INVALIDATE)
		uflags |= SV_UWC_WITH_INV;
	return uflags;
}

/* the user form of @wc, as ib_uverbs would report it, every byte written */
static void sv_cq_to_uwc(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;	/* ib_wc_opcode == ib_uverbs_wc_opcode */
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;	/* or invalidate_rkey: same bits */
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = sv_cq_uwc_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = ib_lid_cpu16(wc->slid);
	uwc->sl = wc->sl;
	/* a RoCE datagram: its packet type in sl (uapi/softverbs-abi.h) */
	if ((wc->wc_flags & (IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE)) ==
	    (IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE))
		uwc->sl = wc->network_hdr_type == RDMA_NETWORK_ROCE_V1 ?
			  SV_UWC_SL_GRH : SV_UWC_SL_ROCE_UDP |
			  (wc->network_hdr_type == RDMA_NETWORK_IPV4 ?
			   SV_UWC_SL_IPV4 : SV_UWC_SL_IPV6);
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
	uwc->reserved = 0;
}

static u32 sv_cq_elem_size(bool is_user)
{
	return is_user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

/*
 * Map @q for the process behind @udata and tell it where (@resp is
 * struct sv_create_cq_resp or struct sv_resize_cq_resp, same layout).
 * Done before the caller commits anything, so a fault leaves the CQ as it
 * was.
 */
static int sv_cq_queue_respond(struct sv_queue *q, struct ib_udata *udata)
{
	struct sv_ucontext *uc = rdma_udata_to_drv_context(udata,
							   struct sv_ucontext,
							   ibuc);
	struct sv_create_cq_resp resp = {};
	int err;

	static_assert(sizeof(struct sv_create_cq_resp) ==
		      sizeof(struct sv_resize_cq_resp));

	err = sv_queue_map(q, &uc->ibuc, &resp.mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/* A ring of at least @cqe entries; with @udata, mapped and described. */
static struct sv_queue *sv_cq_queue_create(bool is_user, u32 cqe,
					   struct ib_udata *udata)
{
	struct sv_queue *q;
	int err;

	q = sv_queue_create(cqe, sv_cq_elem_size(is_user),
			    is_user ? SV_QUEUE_KERNEL_PRODUCES :
				      SV_QUEUE_KERNEL_ONLY);
	if (IS_ERR(q) || !udata)
		return q;
	err = sv_cq_queue_respond(q, udata);
	if (err) {
		sv_queue_destroy(q);
		return ERR_PTR(err);
	}
	return q;
}

static_assert(SV_MAX_CQE < SV_QUEUE_MAX_SLOTS);

/* cqe as uverbs and kernel consumers pass it: 1..SV_MAX_CQE */
/*
 * The IPI on cq->notify_cpu.  notify_queued is cleared before the handler
 * runs: a completion posted from then on (after the consumer re-armed)
 * needs a call of its own, and sv_cq_notify() sends one.
 */
static void sv_cq_notify_ipi(void *arg)
{
	struct sv_cq *cq = arg;

	atomic_set(&cq->notify_queued, 0);
	smp_mb__after_atomic();	/* queued cleared before the handler polls */
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	atomic_dec_return_release(&cq->notify_inflight);
}

/*
 * Call the handler on cq->notify_cpu: here if this is that CPU (or it
 * went offline, or the CQ is a user CQ), else by IPI.  A call sent and
 * not started yet covers this completion too: it runs after it was
 * posted, and the consumer polls everything there is.  Preemption is off
 * between the online check and the sending, so the CPU cannot finish
 * going offline in between (it runs the calls queued to it as it goes).
 */
static void sv_cq_notify(struct sv_cq *cq)
{
	int cpu = cq->notify_cpu;

	if (cpu >= 0) {
		if (cpu != get_cpu() && cpu_online(cpu)) {
			if (atomic_cmpxchg(&cq->notify_queued, 0, 1)) {
				put_cpu();
				return;
			}
			atomic_inc(&cq->notify_inflight);
			if (!smp_call_function_single_async(cpu,
							    &cq->notify_csd)) {
				put_cpu();
				return;
			}
			/* not sent: the handler runs here after all */
			atomic_dec(&cq->notify_inflight);
			atomic_set(&cq->notify_queued, 0);
		}
		put_cpu();
	}
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

void sv_cq_sync_notify(struct sv_cq *cq)
{
	might_sleep();
	while (atomic_read_acquire(&cq->notify_inflight))
		cond_resched();
}

static bool sv_cq_cqe_valid(u32 cqe)
{
	return cqe >= 1 && cqe <= SV_MAX_CQE;
}

int sv_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 sv_create_cq_arg_t arg)
{
	struct ib_udata *udata = sv_create_cq_udata(arg);
	struct sv_dev *sv = to_sv_dev(ibcq->device);
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct sv_queue *q;
	int err;

	/* timestamps and ignore-overrun are not implemented */
	if (attr->flags) {
		sv_dbg_dev(sv, "unsupported CQ flags %#x\n", attr->flags);
		return -EOPNOTSUPP;
	}
	if (!sv_cq_cqe_valid(attr->cqe)) {
		sv_dbg_dev(sv, "cqe %u not in 1..%u\n", attr->cqe, SV_MAX_CQE);
		return -EINVAL;
	}
	if (attr->comp_vector >= ibcq->device->num_comp_vectors) {
		sv_dbg_dev(sv, "comp_vector %u out of range\n",
			   attr->comp_vector);
		return -EINVAL;
	}
	err = sv_dev_check_udata(udata, sizeof(struct sv_create_cq_resp));
	if (err)
		return err;

	if (!sv_dev_count_get(&sv->num_cq, SV_MAX_CQ)) {
		sv_dbg_dev(sv, "no more than %u CQs\n", SV_MAX_CQ);
		return -ENOMEM;
	}

	cq->is_user = !!udata;
	cq->notify_cpu = udata ? -1 :
		cpumask_local_spread(attr->comp_vector, NUMA_NO_NODE);
	INIT_CSD(&cq->notify_csd, sv_cq_notify_ipi, cq);
	atomic_set(&cq->notify_queued, 0);
	atomic_set(&cq->notify_inflight, 0);
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);

	q = sv_cq_queue_create(cq->is_user, attr->cqe, udata);
	if (IS_ERR(q)) {
		err = PTR_ERR(q);
		goto err_put_count;
	}

	cq->queue = q;
	/* the real capacity, which may exceed what was asked for */
	ibcq->cqe = sv_queue_capacity(q);
	return 0;

err_put_count:
	mutex_destroy(&cq->resize_mutex);
	sv_dev_count_put(&sv->num_cq);
	return err;
}

/*
 * ib_core calls this only when no QP or SRQ uses the CQ any more
 * (ibcq.usecnt is zero, -EBUSY otherwise), so no sv_cq_post() can be
 * running: producers post only through such users, and their destroy
 * waited for any handler call still on its way.  It never fails:
 * ib_core must be able to destroy every object of a dying process.
 */
int sv_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sv_cq *cq = to_sv_cq(ibcq);

	sv_cq_sync_notify(cq);
	sv_queue_destroy(cq->queue);
	mutex_destroy(&cq->resize_mutex);
	sv_dev_count_put(&to_sv_dev(ibcq->device)->num_cq);
	return 0;
}

/*
 * Move the entries waiting in the CQ's ring to the empty @new, oldest
 * first, and make @new the CQ's ring.  Fails with -EINVAL, changing
 * nothing, if there are more than the @cqe asked for (even if the rounded
 * up ring could take them: the consumer asked for a CQ that small).
 */
static int sv_cq_swap_queue(struct sv_cq *cq, struct sv_queue *new, u32 cqe)
{
	struct sv_queue *old = cq->queue;
	size_t elem_size = sv_cq_elem_size(cq->is_user);
	u32 count, cons, i;

	lockdep_assert_held(&cq->lock);

	count = sv_queue_count(old);
	cons = sv_queue_cons(old);
	if (count > cqe) {
		sv_dbg_cq(cq, "%u entries waiting, cannot shrink to %u\n",
			  count, cqe);
		return -EINVAL;
	}

	for (i = 0; i < count; i++) {
		memcpy(sv_queue_producer_slot(new),
		       sv_queue_slot(old, cons + i), elem_size);
		sv_queue_produce(new);
	}
	cq->queue = new;
	return 0;
}

/*
 * Give the CQ a new ring of at least @cqe entries, keeping the entries not
 * yet polled.  librxe unmaps the old ring and maps the one the response
 * describes; it holds its CQ lock across the call, so it does not poll
 * meanwhile.  Pages of the old ring stay valid while mapped (sv_queue.c).
 */
int sv_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct sv_queue *new, *old;
	unsigned long flags;
	int err;

	if (cqe < 1 || !sv_cq_cqe_valid(cqe)) {	/* int: negative too */
		sv_dbg_cq(cq, "cqe %d not in 1..%u\n", cqe, SV_MAX_CQE);
		return -EINVAL;
	}
	err = sv_dev_check_udata(udata, sizeof(struct sv_resize_cq_resp));
	if (err)
		return err;

	mutex_lock(&cq->resize_mutex);
	new = sv_cq_queue_create(cq->is_user, cqe, udata);
	if (IS_ERR(new)) {
		err = PTR_ERR(new);
		goto out_unlock;
	}

	/* only resize writes cq->queue, and resize_mutex is held */
	old = cq->queue;
	spin_lock_irqsave(&cq->lock, flags);
	err = sv_cq_swap_queue(cq, new, cqe);
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err)
		goto err_destroy_new;

	ibcq->cqe = sv_queue_capacity(new);
	sv_queue_destroy(old);
	mutex_unlock(&cq->resize_mutex);
	return 0;

err_destroy_new:
	sv_queue_destroy(new);
out_unlock:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

/*
 * IB_EVENT_CQ_ERR: an affiliated asynchronous error; the CQ is unusable
 * from now on (its consumer must destroy it).
 */
static void sv_cq_report_overrun(struct sv_cq *cq)
{
	struct ib_event event = {
		.device = cq->ibcq.device,
		.event = IB_EVENT_CQ_ERR,
		.element.cq = &cq->ibcq,
	};

	sv_err_cq(cq, "completion queue overrun\n");
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
}

int sv_cq_post(struct sv_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct sv_queue *q;
	unsigned long flags;
	bool first_overrun;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	q = cq->queue;
	if (unlikely(cq->overrun || sv_queue_full(q))) {
		first_overrun = !cq->overrun;
		cq->overrun = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first_overrun)
			sv_cq_report_overrun(cq);
		return -EOVERFLOW;
	}

	if (cq->is_user)
		sv_cq_to_uwc(sv_queue_producer_slot(q), wc);
	else
		memcpy(sv_queue_producer_slot(q), wc, sizeof(*wc));
	sv_queue_produce(q);

	/*
	 * An unsuccessful completion is solicited too, as ibv_req_notify_cq(3)
	 * documents for solicited-only arming.
	 */
	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED &&
		  (solicited || wc->status != IB_WC_SUCCESS));
	if (notify)
		cq->notify = 0;	/* one handler call per arming */
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		sv_cq_notify(cq);
	return 0;
}

/*
 * Kernel CQs only: librxe polls the mapped ring of a user CQ itself, and
 * the legacy uverbs POLL_CQ command is not offered for them.
 */
int sv_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct sv_queue *q;
	unsigned long flags;
	int n;

	if (cq->is_user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	q = cq->queue;
	for (n = 0; n < num_entries && !sv_queue_empty(q); n++) {
		memcpy(&wc[n], sv_queue_consumer_slot(q), sizeof(*wc));
		sv_queue_consume(q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Arm the CQ for one completion handler call: for the next completion, or
 * for the next solicited one.  Arming for any completion overrides an
 * armed solicited-only request (the stronger request wins until it fires).
 * With IB_CQ_REPORT_MISSED_EVENTS, returns 1 if completions are already
 * waiting, so the consumer polls again instead of waiting for a handler
 * call that only a new completion would cause.
 */
int sv_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	switch (flags & IB_CQ_SOLICITED_MASK) {
	case IB_CQ_NEXT_COMP:
		cq->notify = IB_CQ_NEXT_COMP;
		break;
	case IB_CQ_SOLICITED:
		if (cq->notify != IB_CQ_NEXT_COMP)
			cq->notify = IB_CQ_SOLICITED;
		break;
	default:
		ret = -EINVAL;
		goto out_unlock;
	}
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !sv_queue_empty(cq->queue))
		ret = 1;
out_unlock:
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
