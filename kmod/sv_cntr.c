// SPDX-License-Identifier: GPL-2.0
/*
 * Completion counters: ib_core's comp_cntr object where the kernel has it
 * (compat/sv_compat_cntr.h).  A counter is two 64-bit counts, completions
 * and error completions, that the transport adds to as the work requests
 * of the QPs it is attached to complete, per operation type, whether or
 * not a CQE is made for them.  The counts live in two words of the
 * process's memory, named by softverbs' attributes of CREATE: pinned and
 * mapped into the kernel here, so that every change is a release store the
 * process reads with a load (Documentation/ulib.md, "Completion
 * counters"; the lock in Documentation/design.md, "Locking").
 */
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>

#include "sv.h"
#include "sv_xport_obj.h"
#include "compat/sv_compat_cntr.h"

/* --- counting (every kernel; only an attached QP reaches it) ------------- */

/* the new count, where user space reads it: after what it counts */
static void sv_cntr_publish(struct sv_cntr *c, enum sv_cntr_entry e)
{
	lockdep_assert_held(&c->lock);
	/*
	 * release: pairs with the reader's acquire load (ulib/comp_cntr.c),
	 * so that what the count counts (a CQE, placed data) is seen first
	 */
	smp_store_release(c->user[e], c->val[e]);
}

/*
 * Add @n to count @e of @c (wrapping at 2^64, the counter's max_value).
 * Any context.
 */
void sv_cntr_add(struct sv_cntr *c, enum sv_cntr_entry e, u64 n)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->val[e] += n;
	sv_cntr_publish(c, e);
	spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * The counter type of a send WQE's completion: SEND (with immediate and
 * invalidate too), RDMA WRITE (with immediate too) and RDMA READ; the rest
 * (atomics, memory operations, FLUSH, ATOMIC WRITE) have none and are not
 * counted (SV_CNTR_OPS).
 */
enum sv_cntr_op sv_cntr_wc_op(enum ib_wc_opcode opcode)
{
	switch (opcode) {
	case IB_WC_SEND:
		return SV_CNTR_SEND;
	case IB_WC_RDMA_WRITE:
		return SV_CNTR_WRITE;
	case IB_WC_RDMA_READ:
		return SV_CNTR_READ;
	default:
		return SV_CNTR_OPS;
	}
}

/*
 * destroy_qp, once nothing counts for the QP any more: give its counters
 * back their attachments (ib_core drops its own use counts after).
 * Process context.
 */
void sv_cntr_qp_detach(struct sv_qp *qp)
{
	enum sv_cntr_op op;

	for (op = 0; op < SV_CNTR_OPS; op++) {
		if (qp->cntr[op])
			atomic_dec(&qp->cntr[op]->attached);
		qp->cntr[op] = NULL;
	}
}

#if SV_COMP_CNTR
#define UVERBS_MODULE_NAME softverbs
#include <rdma/uverbs_named_ioctl.h>

static_assert((int)SV_ATTR_CREATE_COMP_CNTR_COMP_BUFFER ==
	      (int)UVERBS_ID_DRIVER_NS);

#define SV_CNTR_ALL_OPS		GENMASK(SV_CNTR_OPS - 1, 0)

static void sv_cntr_unmap(struct sv_cntr *c, enum sv_cntr_entry e)
{
	if (c->map[e])
		vunmap(c->map[e]);
	if (c->umem[e])
		ib_umem_release(c->umem[e]);
	c->map[e] = NULL;
	c->umem[e] = NULL;
}

/*
 * Pin and map the word the attribute @attr_id names for count @e: user
 * memory (not a dma-buf, which the CPU may not reach), exactly 8 bytes, 8
 * aligned (so within one page, and stored by one instruction).
 */
static int sv_cntr_map(struct sv_cntr *c, struct ib_device *ibdev,
		       struct uverbs_attr_bundle *attrs, u16 attr_id,
		       enum sv_cntr_entry e)
{
	struct ib_umem *umem;
	struct page *page;
	int err;

	umem = ib_umem_get_attr(ibdev, attrs, attr_id, sizeof(u64),
				IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	c->umem[e] = umem;
	if (umem->is_dmabuf) {
		err = -EOPNOTSUPP;
		goto err_unmap;
	}
	if (umem->length != sizeof(u64) ||
	    !IS_ALIGNED(umem->address, sizeof(u64)) ||
	    !umem->sgt_append.sgt.nents) {
		err = -EINVAL;
		goto err_unmap;
	}
	page = sg_page(umem->sgt_append.sgt.sgl);
	c->map[e] = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (!c->map[e]) {
		err = -ENOMEM;
		goto err_unmap;
	}
	c->user[e] = c->map[e] + offset_in_page(umem->address);
	return 0;

err_unmap:
	sv_cntr_unmap(c, e);
	return err;
}

/**
 * sv_cntr_create() - ib_device_ops.create_comp_cntr
 * @ibcc: the counter ib_core allocated
 * @attrs: CREATE's attributes, ours among them (the memory of the counts)
 *
 * Context: process context.
 * Return: 0, -ENOMEM past SV_MAX_CNTR counters or the context's memory
 * limit, -EINVAL for memory not as uapi/softverbs-abi.h says,
 * -EOPNOTSUPP for a dma-buf.
 */
int sv_cntr_create(struct ib_comp_cntr *ibcc, struct uverbs_attr_bundle *attrs)
{
	struct sv_dev *sv = to_sv_dev(ibcc->device);
	struct sv_cntr *c = &to_sv_comp_cntr(ibcc)->c;
	struct sv_ucontext *uc = to_sv_uc(attrs->context);
	unsigned long flags;
	int err;

	if (!sv_dev_count_get(&sv->num_cntr, SV_MAX_CNTR)) {
		sv_dbg_dev(sv, "no more than %u completion counters\n",
			   SV_MAX_CNTR);
		return -ENOMEM;
	}
	err = sv_ucontext_charge(uc, sizeof(struct sv_comp_cntr));
	if (err)
		goto err_count;
	c->uc = uc;
	spin_lock_init(&c->lock);
	atomic_set(&c->attached, 0);

	err = sv_cntr_map(c, ibcc->device, attrs,
			  SV_ATTR_CREATE_COMP_CNTR_COMP_BUFFER, SV_CNTR_COMP);
	if (err)
		goto err_uncharge;
	err = sv_cntr_map(c, ibcc->device, attrs,
			  SV_ATTR_CREATE_COMP_CNTR_ERR_BUFFER, SV_CNTR_ERR);
	if (err)
		goto err_unmap_comp;

	/* both start at 0, whatever the memory held */
	spin_lock_irqsave(&c->lock, flags);
	sv_cntr_publish(c, SV_CNTR_COMP);
	sv_cntr_publish(c, SV_CNTR_ERR);
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;

err_unmap_comp:
	sv_cntr_unmap(c, SV_CNTR_COMP);
err_uncharge:
	sv_ucontext_uncharge(uc, sizeof(struct sv_comp_cntr));
err_count:
	sv_dev_count_put(&sv->num_cntr);
	return err;
}

/**
 * sv_cntr_destroy() - ib_device_ops.destroy_comp_cntr
 * @ibcc: the counter
 *
 * ib_core refuses it while a QP is attached; so does this, on our own
 * count of attachments, which are what the transport follows.
 *
 * Context: process context.
 * Return: 0, or -EBUSY while attached.
 */
int sv_cntr_destroy(struct ib_comp_cntr *ibcc)
{
	struct sv_dev *sv = to_sv_dev(ibcc->device);
	struct sv_cntr *c = &to_sv_comp_cntr(ibcc)->c;

	if (atomic_read(&c->attached))
		return -EBUSY;
	sv_cntr_unmap(c, SV_CNTR_ERR);
	sv_cntr_unmap(c, SV_CNTR_COMP);
	sv_ucontext_uncharge(c->uc, sizeof(struct sv_comp_cntr));
	sv_dev_count_put(&sv->num_cntr);
	return 0;
}

/**
 * sv_cntr_modify() - ib_device_ops.modify_comp_cntr: set or increment
 * @ibcc: the counter
 * @entry: which count
 * @op: set to @value, or add @value (wrapping)
 * @value: the value
 *
 * Under the lock the transport counts under: no increment is lost.
 *
 * Context: process context.
 * Return: 0, or -EINVAL for an unknown @entry or @op.
 */
int sv_cntr_modify(struct ib_comp_cntr *ibcc, enum ib_comp_cntr_entry entry,
		   enum ib_comp_cntr_modify_op op, u64 value)
{
	struct sv_cntr *c = &to_sv_comp_cntr(ibcc)->c;
	enum sv_cntr_entry e = (enum sv_cntr_entry)entry;
	unsigned long flags;

	if ((unsigned int)e >= SV_CNTR_ENTRIES)
		return -EINVAL;
	switch (op) {
	case IB_COMP_CNTR_MODIFY_OP_SET:
		spin_lock_irqsave(&c->lock, flags);
		c->val[e] = value;
		sv_cntr_publish(c, e);
		spin_unlock_irqrestore(&c->lock, flags);
		return 0;
	case IB_COMP_CNTR_MODIFY_OP_INC:
		sv_cntr_add(c, e, value);
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * sv_cntr_read() - ib_device_ops.read_comp_cntr
 * @ibcc: the counter
 * @entry: which count
 * @value: where the count goes
 *
 * Context: process context.
 * Return: 0, or -EINVAL for an unknown @entry.
 */
int sv_cntr_read(struct ib_comp_cntr *ibcc, enum ib_comp_cntr_entry entry,
		 u64 *value)
{
	struct sv_cntr *c = &to_sv_comp_cntr(ibcc)->c;
	enum sv_cntr_entry e = (enum sv_cntr_entry)entry;
	unsigned long flags;

	if ((unsigned int)e >= SV_CNTR_ENTRIES)
		return -EINVAL;
	spin_lock_irqsave(&c->lock, flags);
	*value = c->val[e];
	spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/**
 * sv_cntr_query_caps() - ib_device_ops.query_comp_cntr_caps
 * @ibdev: the device
 * @caps: filled: SV_MAX_CNTR counters, counts wrapping at 2^64, every
 *	operation type
 * @attrs: unused
 *
 * Context: process context.
 * Return: 0.
 */
int sv_cntr_query_caps(struct ib_device *ibdev, struct ib_comp_cntr_caps *caps,
		       struct uverbs_attr_bundle *attrs)
{
	caps->max_counters = SV_MAX_CNTR;
	caps->max_value = U64_MAX;
	caps->supported_qp_attach_ops = SV_CNTR_ALL_OPS;
	return 0;
}

/**
 * sv_cntr_attach() - ib_device_ops.qp_attach_comp_cntr
 * @ibqp: the QP
 * @ibcc: the counter
 * @attr: the operation types the counter counts for the QP
 *
 * Only in RESET or INIT, before the QP completes anything (the man page's
 * rule, which also makes an attachment never change under the
 * transport); each operation type of a QP has at most one counter.
 *
 * Context: process context.
 * Return: 0, -EINVAL in another state or for an empty mask, -EBUSY when
 * a type already has a counter, -EOPNOTSUPP for unknown types.
 */
int sv_cntr_attach(struct ib_qp *ibqp, struct ib_comp_cntr *ibcc,
		   struct ib_qp_attach_comp_cntr_attr *attr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_cntr *c = &to_sv_comp_cntr(ibcc)->c;
	unsigned long mask = attr->op_mask;
	enum ib_qp_state state;
	unsigned int op;
	int err = 0;

	if (!mask)
		return -EINVAL;
	if (mask & ~SV_CNTR_ALL_OPS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_mutex);
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RESET && state != IB_QPS_INIT) {
		err = -EINVAL;
		goto out;
	}
	for_each_set_bit(op, &mask, SV_CNTR_OPS) {
		if (qp->cntr[op]) {
			err = -EBUSY;
			goto out;
		}
	}
	for_each_set_bit(op, &mask, SV_CNTR_OPS) {
		atomic_inc(&c->attached);
		WRITE_ONCE(qp->cntr[op], c);
	}
out:
	mutex_unlock(&qp->modify_mutex);
	return err;
}

/*
 * Our attributes of ib_core's CREATE: the memory of the two counts
 * (uapi/softverbs-abi.h, enum sv_comp_cntr_create_attrs).
 */
ADD_UVERBS_ATTRIBUTES_SIMPLE(
	sv_cntr_create_attrs,
	UVERBS_OBJECT_COMP_CNTR,
	UVERBS_METHOD_COMP_CNTR_CREATE,
	UVERBS_ATTR_UMEM(SV_ATTR_CREATE_COMP_CNTR_COMP_BUFFER, UA_MANDATORY),
	UVERBS_ATTR_UMEM(SV_ATTR_CREATE_COMP_CNTR_ERR_BUFFER, UA_MANDATORY));

const struct uapi_definition sv_cntr_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_COMP_CNTR,
				&sv_cntr_create_attrs),
	{},
};
#endif /* SV_COMP_CNTR */
