// SPDX-License-Identifier: GPL-2.0
/*
 * Shared rings: allocation, mapping into user space through ib_core's mmap
 * entries, and charging to the process.
 *
 * Documentation/design.md, "Verbs objects" (rings).
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sv.h"
#include "sv_queue.h"

struct sv_queue_mmap_entry {
	struct rdma_user_mmap_entry	rdma_entry;
	void				*buf;
};

static struct sv_queue_mmap_entry *
to_sv_queue_mmap_entry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct sv_queue_mmap_entry, rdma_entry);
}

/*
 * A ring with room for at least @min_elems entries of @elem_size bytes.
 * Slots are a power of two bytes and the slot count a power of two with
 * one slot always free, as the uapi layout requires.
 */
struct sv_queue *sv_queue_create(u32 min_elems, u32 elem_size,
				 enum sv_queue_kind kind)
{
	gfp_t gfp = kind == SV_QUEUE_KERNEL_ONLY ? GFP_KERNEL :
						    GFP_KERNEL_ACCOUNT;
	struct sv_queue *q;
	u32 slots, log2_elem;
	size_t data_size;

	if (!min_elems || !elem_size || min_elems >= SV_QUEUE_MAX_SLOTS)
		return ERR_PTR(-EINVAL);

	slots = roundup_pow_of_two(min_elems + 1);
	log2_elem = order_base_2(elem_size);
	if (check_shl_overflow((size_t)slots, log2_elem, &data_size))
		return ERR_PTR(-EINVAL);

	q = kzalloc(sizeof(*q), gfp);
	if (!q)
		return ERR_PTR(-ENOMEM);

	q->buf_size = PAGE_ALIGN(sizeof(*q->buf) + data_size);
	/*
	 * Not vmalloc_user(): it cannot charge a memory cgroup.  Zeroed:
	 * user space maps every byte.  RETRY_MAYFAIL: a cgroup at its limit
	 * fails the charge with ENOMEM rather than calling its OOM killer
	 * on the caller.
	 */
	if (gfp & __GFP_ACCOUNT)
		gfp |= __GFP_RETRY_MAYFAIL;
	q->buf = __vmalloc(q->buf_size, gfp | __GFP_ZERO | __GFP_NOWARN);
	if (!q->buf) {
		kfree(q);
		return ERR_PTR(-ENOMEM);
	}
	q->kind = kind;
	q->log2_elem_size = log2_elem;
	q->index_mask = slots - 1;
	q->buf->log2_elem_size = log2_elem;
	q->buf->index_mask = slots - 1;
	return q;
}

/*
 * Free the ring.  A mapped buffer is freed by sv_queue_mmap_free() once
 * ib_core drops the last reference to its mmap entry.
 */
void sv_queue_destroy(struct sv_queue *q)
{
	if (!q)
		return;
	if (q->uc)
		sv_ucontext_uncharge(q->uc, q->buf_size);
	if (q->mmap_entry)
		rdma_user_mmap_entry_remove(q->mmap_entry);
	else
		vfree(q->buf);
	kfree(q);
}

/* Make @q mappable by @uc and tell user space where: *mi. */
int sv_queue_map(struct sv_queue *q, struct ib_ucontext *uc,
		 struct sv_mmap_info *mi)
{
	struct sv_queue_mmap_entry *entry;
	int err;

	if (WARN_ON(q->mmap_entry))
		return -EINVAL;

	err = sv_ucontext_charge(to_sv_uc(uc), q->buf_size);
	if (err)
		return err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry) {
		err = -ENOMEM;
		goto err_uncharge;
	}
	entry->buf = q->buf;

	err = rdma_user_mmap_entry_insert(uc, &entry->rdma_entry, q->buf_size);
	if (err)
		goto err_free_entry;
	q->mmap_entry = &entry->rdma_entry;
	q->uc = to_sv_uc(uc);

	mi->offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	mi->size = q->buf_size;
	mi->pad = 0;
	return 0;

err_free_entry:
	kfree(entry);
err_uncharge:
	sv_ucontext_uncharge(to_sv_uc(uc), q->buf_size);
	return err;
}

/* ib_device_ops.mmap */
int sv_queue_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct sv_queue_mmap_entry *entry;
	unsigned long off;
	int err = 0;

	/* checks VM_SHARED and that the length matches the entry */
	rdma_entry = rdma_user_mmap_entry_get(uc, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_sv_queue_mmap_entry(rdma_entry);

	/*
	 * What remap_vmalloc_range() does for vmalloc_user() memory: the
	 * whole buffer (ib_core checked the length), page by page, and the
	 * mapping can neither grow nor go into a core dump.
	 */
	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(entry->buf + off));
		if (err)
			break;
	}
	if (!err)
		sv_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/* ib_device_ops.mmap_free: the last reference to a queue mapping is gone */
void sv_queue_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct sv_queue_mmap_entry *entry = to_sv_queue_mmap_entry(rdma_entry);

	vfree(entry->buf);
	kfree(entry);
}
