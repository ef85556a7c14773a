/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings shared between a producer and a consumer, in the layout of
 * struct sv_queue_buf (uapi/softverbs-abi.h, which also documents the
 * memory ordering).  The same ring serves user-mapped queues (CQ, SQ, RQ,
 * SRQ of user QPs) and kernel-only ones (kernel consumers' QPs and CQs).
 *
 * The kernel never trusts what user space can write: it keeps private
 * copies of the ring geometry and of the index it owns, reads the index
 * user space owns with an acquire load and bounds-checks it.
 *
 * Locking: none inside.  Callers serialise each side: at most one
 * producer and one consumer at a time (the owning object's locks).
 */
#ifndef SV_QUEUE_H
#define SV_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "softverbs-abi.h"

struct sv_ucontext;

/* Which side(s) the kernel plays. */
enum sv_queue_kind {
	SV_QUEUE_KERNEL_PRODUCES,	/* user CQ: user consumes */
	SV_QUEUE_KERNEL_CONSUMES,	/* user SQ, RQ, SRQ: user produces */
	SV_QUEUE_KERNEL_ONLY,		/* kernel consumer's queue: both */
};

struct sv_queue {
	struct sv_queue_buf	*buf;		/* vmalloc()'ed */
	size_t			buf_size;	/* header + slots, page aligned */
	enum sv_queue_kind	kind;
	u32			log2_elem_size;
	u32			index_mask;	/* slots - 1 */
	/* private copies of the index (or indices) the kernel owns */
	u32			prod;
	u32			cons;
	/* where user space maps it; NULL for kernel-only queues */
	struct rdma_user_mmap_entry *mmap_entry;
	/* the context charged for buf_size bytes (sv_queue_map()), or NULL */
	struct sv_ucontext	*uc;
};

/* Largest number of slots any queue may have. */
#define SV_QUEUE_MAX_SLOTS	(1U << 20)

struct sv_queue *sv_queue_create(u32 min_elems, u32 elem_size,
				 enum sv_queue_kind kind);
void sv_queue_destroy(struct sv_queue *q);
int sv_queue_map(struct sv_queue *q, struct ib_ucontext *uc,
		 struct sv_mmap_info *mi);
int sv_queue_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma);
void sv_queue_mmap_free(struct rdma_user_mmap_entry *entry);

/* Usable slots (one always stays free to tell full from empty). */
static inline u32 sv_queue_capacity(const struct sv_queue *q)
{
	return q->index_mask;
}

static inline void *sv_queue_slot(const struct sv_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/*
 * Indices are kept masked to [0, index_mask] in both the shared header and
 * the private copies, as librxe does.  An index user space owns is read
 * with acquire and masked again, so whatever it wrote names a slot inside
 * the ring.
 */
static inline u32 sv_queue_prod(struct sv_queue *q)
{
	if (q->kind == SV_QUEUE_KERNEL_CONSUMES)
		/* acquire: the slots the producer published before its index */
		return smp_load_acquire(&q->buf->producer_index) &
		       q->index_mask;
	return q->prod;
}

static inline u32 sv_queue_cons(struct sv_queue *q)
{
	if (q->kind == SV_QUEUE_KERNEL_PRODUCES)
		/* acquire: the consumer's reads of the slots it handed back */
		return smp_load_acquire(&q->buf->consumer_index) &
		       q->index_mask;
	/* the producer side checks fullness without the consumer's lock */
	return READ_ONCE(q->cons);
}

/*
 * Entries waiting for the consumer, never more than the capacity.  A user
 * who scribbles on its index can only make its own entries look posted or
 * consumed; the consumer validates every entry it reads anyway.
 */
static inline u32 sv_queue_count(struct sv_queue *q)
{
	return (sv_queue_prod(q) - sv_queue_cons(q)) & q->index_mask;
}

static inline bool sv_queue_empty(struct sv_queue *q)
{
	return sv_queue_count(q) == 0;
}

static inline bool sv_queue_full(struct sv_queue *q)
{
	return sv_queue_count(q) >= sv_queue_capacity(q);
}

/* producer side (kernel must own the producer index) */
static inline void *sv_queue_producer_slot(struct sv_queue *q)
{
	return sv_queue_slot(q, q->prod);
}

static inline void sv_queue_produce(struct sv_queue *q)
{
	q->prod = (q->prod + 1) & q->index_mask;
	/* publish the slot contents before the index (uapi ordering) */
	smp_store_release(&q->buf->producer_index, q->prod);
}

/* consumer side (kernel must own the consumer index) */
static inline void *sv_queue_consumer_slot(struct sv_queue *q)
{
	return sv_queue_slot(q, q->cons);
}

/* hand back @n slots from the consumer index, n <= sv_queue_count() */
static inline void sv_queue_consume_n(struct sv_queue *q, u32 n)
{
	WRITE_ONCE(q->cons, (q->cons + n) & q->index_mask);
	/* the slot reads are done before the slots are handed back */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

static inline void sv_queue_consume(struct sv_queue *q)
{
	sv_queue_consume_n(q, 1);
}

#endif /* SV_QUEUE_H */
