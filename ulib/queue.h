/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shared rings, user side: the SQ, RQ and SRQ that libsoftverbs
 * produces into and the CQ it consumes from, all mmap'ed from the uverbs
 * file (layout: struct sv_queue_buf in uapi/softverbs-abi.h).
 *
 * Memory ordering (the rules of uapi/softverbs-abi.h, "Shared queues and
 * memory ordering"):
 *
 *   producer (we post):   own index: relaxed load (we are its only writer)
 *                         other index: ACQUIRE load, then check for room
 *                         slot: plain stores
 *                         own index: RELEASE store of the advanced index
 *   consumer (we poll):   producer index: ACQUIRE load
 *                         slot: plain loads
 *                         own index: RELEASE store of the advanced index
 *
 * The release publishing our producer index pairs with the kernel's
 * acquire before it reads the WQE, so the kernel never sees a half-written
 * WQE; our acquire of the kernel's producer index pairs with its release
 * after writing a CQE, so we never read a half-written CQE.  The release
 * of our consumer index keeps our slot reads before the slot is handed back
 * for reuse.  Between threads of one process the per-queue spinlock orders
 * everything (pthread locks are full barriers).
 *
 * Index convention.  Soft-RoCE (kernel rxe and librxe) keeps every index
 * in [0, index_mask]: an index is masked whenever it is advanced, and the
 * kernel compares its private index with ours for equality.  We therefore
 * always STORE masked indices.  What we READ from the other side is only
 * ever used modulo the mask ((a - b) & mask), so a kernel that publishes
 * free-running counters is read correctly too.
 *
 * The geometry (index_mask, log2_elem_size) is read from the header once
 * when the ring is mapped, checked against the mapping's size, and kept
 * privately: a later write to the shared header can never make us touch
 * memory outside the mapping.
 *
 * None of this locks: callers hold the owning queue's lock.
 */
#ifndef SV_ULIB_QUEUE_H
#define SV_ULIB_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../uapi/softverbs-abi.h"

struct sv_ring {
	struct sv_queue_buf *buf;	/* the mapping: header + slots */
	size_t map_size;		/* its length (for munmap) */
	uint32_t mask;			/* slots - 1 (private copy) */
	uint32_t log2_elem;		/* log2 of the slot size (private copy) */
};

/* Validate the header of a freshly mapped ring; 0 or EINVAL. */
int sv_ring_init(struct sv_ring *r, void *buf, size_t map_size);

static inline size_t sv_ring_elem_size(const struct sv_ring *r)
{
	return (size_t)1 << r->log2_elem;
}

/* Usable slots: one always stays free to tell full from empty. */
static inline uint32_t sv_ring_capacity(const struct sv_ring *r)
{
	return r->mask;
}

static inline void *sv_ring_slot(const struct sv_ring *r, uint32_t index)
{
	return r->buf->data + ((size_t)(index & r->mask) << r->log2_elem);
}

/* ---- producer side (SQ, RQ, SRQ) ---- */

static inline uint32_t sv_ring_load_prod_own(const struct sv_ring *r)
{
	return __atomic_load_n(&r->buf->producer_index, __ATOMIC_RELAXED);
}

/*
 * Free slots as seen by the producer: pairs with the consumer's release of
 * consumer_index, so a slot counted free has really been read by it.
 */
static inline uint32_t sv_ring_room(const struct sv_ring *r, uint32_t prod)
{
	uint32_t cons = __atomic_load_n(&r->buf->consumer_index,
					__ATOMIC_ACQUIRE);

	return r->mask - ((prod - cons) & r->mask);
}

/* Publish every slot written up to (excluding) index prod. */
static inline void sv_ring_publish_prod(struct sv_ring *r, uint32_t prod)
{
	__atomic_store_n(&r->buf->producer_index, prod & r->mask,
			 __ATOMIC_RELEASE);
}

/* ---- consumer side (CQ) ---- */

static inline uint32_t sv_ring_load_cons_own(const struct sv_ring *r)
{
	return __atomic_load_n(&r->buf->consumer_index, __ATOMIC_RELAXED);
}

/* Entries ready for the consumer at cons; pairs with the producer's release. */
static inline uint32_t sv_ring_ready(const struct sv_ring *r, uint32_t cons)
{
	uint32_t prod = __atomic_load_n(&r->buf->producer_index,
					__ATOMIC_ACQUIRE);

	return (prod - cons) & r->mask;
}

/* Hand every slot before index cons back to the producer. */
static inline void sv_ring_publish_cons(struct sv_ring *r, uint32_t cons)
{
	__atomic_store_n(&r->buf->consumer_index, cons & r->mask,
			 __ATOMIC_RELEASE);
}

#endif /* SV_ULIB_QUEUE_H */
