/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions (sv_mr.c), memory windows (sv_mw.c) and the key space
 * they share.  Included through sv.h.  What the transport calls (lookups,
 * copies, atomics, fast registration, invalidation, binds) is declared in
 * sv_xport_obj.h; the verbs entry points in sv_loc.h.
 */
#ifndef SV_MKEY_H
#define SV_MKEY_H

#include <linux/completion.h>
#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct sv_dev;

/* sv_mr.c: the key space */

/*
 * L_Keys and R_Keys.  Every MR and MW owns one index in sv_dev.mr_xa
 * (1..SV_MKEY_INDEX_MAX); its keys are index << 8 | variant, and an MR's
 * L_Key and R_Key are equal.  The variant is the low byte IBTA 10.6 leaves
 * to the consumer: it changes when a fast-reg consumer says so
 * (ib_update_fast_reg_key, then REG_MR), on every window bind (the new
 * R_Key comes with the bind), on every in-place rereg, and on every reuse
 * of an index (a freed index keeps a tombstone remembering its last
 * variant; indices are handed out cyclically).  A key matches only with
 * its exact variant, so keys of a freed or re-keyed object are stale.
 *
 * Lifetime: struct sv_mkey heads every object in mr_xa.  Lookups run in any
 * context (the receive path is softirq): under RCU they find the object
 * and take a reference with refcount_inc_not_zero().  Destruction removes
 * the object from mr_xa (sv_mkey_unpublish), drops the owner's reference,
 * waits until every lookup reference is gone (sv_mkey_wait) and frees the
 * memory after an RCU grace period.  So a transport holding a reference
 * can always touch the object, and deregistration returns only after the
 * last in-flight access through the key finished, as IBTA requires.
 */
enum sv_mkey_type {
	SV_MKEY_MR,
	SV_MKEY_MW,
};

#define SV_MKEY_VARIANT_MASK	0xffU

struct sv_mkey {
	u32			key;	/* written under the owner's lock */
	enum sv_mkey_type	type;	/* immutable */
	refcount_t		ref;	/* owner + lookups */
	struct completion	released;	/* ref reached zero */
	struct rcu_head		rcu;
};
/* key space, for sv_mr.c and sv_mw.c */
void sv_mkey_init(struct sv_mkey *mk, enum sv_mkey_type type);
int sv_mkey_publish(struct sv_dev *sv, struct sv_mkey *mk);
void sv_mkey_unpublish(struct sv_dev *sv, struct sv_mkey *mk);
struct sv_mkey *sv_mkey_get_rcu(struct sv_dev *sv, u32 key);
struct sv_mkey *sv_mkey_get(struct sv_dev *sv, u32 key);
void sv_mkey_put(struct sv_mkey *mk);
void sv_mkey_wait(struct sv_dev *sv, struct sv_mkey *mk);
void sv_mkey_count_put(struct sv_dev *sv, atomic_t *count);

/* sv_mr.c: memory regions */

/* IBTA 10.6 memory region states */
enum sv_mr_state {
	SV_MR_INVALID,		/* being deregistered or re-registered */
	SV_MR_FREE,		/* fast-reg L_Key allocated, no translation */
	SV_MR_VALID,		/* usable through its key */
};

enum sv_mr_kind {
	SV_MR_DMA,		/* a kernel PD's DMA MR: kernel addresses */
	SV_MR_USER,		/* reg_user_mr: pinned user pages */
	SV_MR_FAST,		/* alloc_mr MEM_REG: page list by REG_MR */
	SV_MR_ODP,		/* reg_user_mr ON_DEMAND: umem_odp, nothing pinned */
	SV_MR_DMABUF,		/* reg_user_mr_dmabuf: a vmapped dma-buf */
};

/* a fast-register page list: page_size blocks of kernel addresses */
struct sv_mr_pages {
	u64			*addrs;		/* max_pages entries */
	u32			npages;
	u32			page_shift;
	u32			offset;		/* of the first byte in addrs[0] */
};

struct sv_mr {
	struct ib_mr		ibmr;
	struct sv_mkey		mkey;

	/* Immutable after creation. */
	struct sv_dev		*sv;
	enum sv_mr_kind		kind;

	/*
	 * lock (a seqlock; writers take it _bh since the transport changes
	 * state from softirq) protects state, pd, access, iova, length, the
	 * key variant, active/staged and num_mw.  Lookups read it locklessly
	 * and retry; copies into fast-reg MRs take it exclusively
	 * (read_seqlock_excl_bh) so an invalidate or fast-reg waits for
	 * them; num_mw is changed under the exclusive lock only.  Taken
	 * after a window's lock (Documentation/design.md, "Locking").
	 */
	seqlock_t		lock;
	enum sv_mr_state	state;
	struct ib_pd		*pd;	/* ours: ib_core moves ibmr.pd itself */
	int			access;	/* IB_ACCESS_* */
	u64			iova;	/* the valid translation: its start... */
	u64			length;	/* ...and length */
	unsigned int		num_mw;	/* windows bound (IBTA 10.6.7.2.1) */

	/* SV_MR_USER: immutable after creation (a new translation is a new MR) */
	struct ib_umem		*umem;
	struct page		**pages;	/* npages pinned pages */
	unsigned long		npages;
	unsigned int		page_offset;	/* of iova in pages[0] */

	/*
	 * SV_MR_ODP: umem_odp is immutable after creation.  Which pages are
	 * present is umem_odp->dma_list (with virtual DMA ops an entry is the
	 * kernel address of the page | ODP_*_ALLOWED_BIT), written by ib_core
	 * under umem_mutex.  Copies read it and copy under the exclusive side
	 * of lock (read_seqlock_excl_bh); the invalidate callback marks the
	 * range it is about to unmap in odp_inval_start/end under that same
	 * lock, so once it dropped the lock no copy touches those pages, and
	 * clears the mark after ib_core unmapped them.  Invalidations are
	 * serialised by umem_mutex, so one mark is enough.  A fault that
	 * failed is remembered by the QP that asked for it, not here
	 * (struct sv_odp_fault).
	 */
	struct ib_umem_odp	*umem_odp;
	u64			odp_inval_start;
	u64			odp_inval_end;

	/*
	 * Implicit ODP (odp_implicit: the whole address space, iova 0,
	 * length U64_MAX): umem_odp is ib_core's implicit parent, which has
	 * no pages; the pages are in child umem_odps of SV_ODP_CHUNK_SIZE
	 * each (struct sv_odp_chunk), created by the first fault in their
	 * range and kept until the MR dies.  odp_chunks maps an address >>
	 * SV_ODP_CHUNK_SHIFT to its chunk: stored under odp_chunk_mutex
	 * (process context), read locklessly (xa_load) by copies; a stored
	 * chunk is never removed before the MR is destroyed.  odp_mm: our
	 * reference (mmgrab) on the process's mm, which ib_core's parent
	 * does not hold and a child needs at creation.
	 */
	bool			odp_implicit;
	struct xarray		odp_chunks;
	struct mutex		odp_chunk_mutex;
	u32			odp_num_chunks;	/* under odp_chunk_mutex */
	struct mm_struct	*odp_mm;
	/*
	 * ODP: the context charged (sv_ucontext_charge()) for ib_core's page
	 * tables of the range, and of each chunk of an implicit MR (then
	 * under odp_chunk_mutex), and how many bytes; given back when the MR
	 * is freed.  NULL for a kernel MR.
	 */
	struct sv_ucontext	*odp_uc;
	/*
	 * deregistration waits for it: a fault of it on the context's ODP
	 * thread is killed (sv_odp.c); under that thread's lock
	 */
	bool			odp_dying;
	size_t			odp_charged;

	/*
	 * SV_MR_DMABUF: immutable after creation.  The buffer (a reference)
	 * and its kernel mapping; the MR's first byte is dmabuf_va.  The
	 * dma-buf contract keeps a vmapped buffer in place until vunmap, so
	 * no move_notify is needed.
	 */
	struct dma_buf		*dmabuf;
	struct iosys_map	dmabuf_map;
	u8			*dmabuf_va;

	/*
	 * SV_MR_FAST: map_mr_sg fills *staged, REG_MR swaps it with *active
	 * (under lock), so a registration can be staged while the previous
	 * one is still valid.
	 */
	struct sv_mr_pages	*active;
	struct sv_mr_pages	*staged;
	struct sv_mr_pages	lists[2];
	u32			max_pages;
};

/*
 * One chunk of an implicit ODP MR: a child umem_odp (its private points
 * here) and the range its invalidate callback is unmapping (inval_start/
 * end, under mr->lock exclusive, as odp_inval_start/end of an explicit
 * MR); invalidations of one chunk are serialised by its umem_mutex.
 */
struct sv_odp_chunk {
	struct ib_umem_odp	*odp;
	struct sv_mr		*mr;
	u64			inval_start;
	u64			inval_end;
};

/* [iova, iova + len) inside [base, base + size), without overflow */
static inline bool sv_mr_range_ok(u64 base, u64 size, u64 iova, u64 len)
{
	return iova >= base && len <= size && iova - base <= size - len;
}

/*
 * The end of the piece of [@addr, @end) (@addr < @end) that lies in one
 * SV_ODP_CHUNK_SIZE-aligned chunk: @end, or the next chunk boundary.
 * Never wraps, even in the last chunk of the address space.
 */
static inline u64 sv_mr_odp_chunk_next(u64 addr, u64 end)
{
	u64 room = SV_ODP_CHUNK_SIZE - (addr & (SV_ODP_CHUNK_SIZE - 1));

	return end - addr <= room ? end : addr + room;
}

static inline void sv_mr_put(struct sv_mr *mr)
{
	sv_mkey_put(&mr->mkey);
}

/* one more reference to an MR already held (by the caller, or a binding) */
static inline void sv_mr_hold(struct sv_mr *mr)
{
	refcount_inc(&mr->mkey.ref);
}

/* binding windows (for sv_mw.c): take/give back one of mr->num_mw */
int sv_mr_mw_attach(struct sv_mr *mr, u32 lkey, struct ib_pd *pd, u64 addr,
		    u64 length, int mw_access);
void sv_mr_mw_detach(struct sv_mr *mr);

/* sv_mw.c: memory windows */

/*
 * The type 2 windows bound to one QP (IBTA 10.6.7.2.2: a type 2 window
 * answers to the QP that bound it), so that the QP's destroy releases them
 * without walking every key of the device.  Embedded in the QP; qpn is set
 * with the QP's number.  lock (BH off) protects list; a leaf, taken inside
 * a window's lock (Documentation/design.md, "Locking").  A window is on
 * the list exactly while its binds pointer names it, both changed under
 * the window's lock and this one.
 */
struct sv_mw_binds {
	u32			qpn;
	spinlock_t		lock;
	struct list_head	list;
};

static inline void sv_mw_binds_init(struct sv_mw_binds *binds, u32 qpn)
{
	binds->qpn = qpn;
	spin_lock_init(&binds->lock);
	INIT_LIST_HEAD(&binds->list);
}

/* IBTA 10.6.7.1 window states */
enum sv_mw_state {
	SV_MW_INVALID,		/* being deallocated */
	SV_MW_FREE,		/* allocated, not bound */
	SV_MW_VALID,		/* bound: usable through its R_Key */
};

/*
 * A window's state.  Lookups find it under RCU, but ib_core allocates the
 * ib_mw (struct sv_mw_obj) and kfree()s it right after dealloc_mw, with no
 * grace period; so the window lives in its own allocation, freed like an
 * MR (see struct sv_mkey), and sv_mw_obj only points to it.
 */
struct sv_mw {
	struct sv_mkey		mkey;

	/* Immutable after allocation. */
	struct sv_dev		*sv;
	enum ib_mw_type		type;
	struct ib_pd		*pd;

	/*
	 * lock (_bh: binds and invalidates come from the transport) protects
	 * state, the key variant and the binding below.  Lock order: a
	 * window's lock, then its MR's (Documentation/design.md, "Locking").
	 */
	spinlock_t		lock;
	enum sv_mw_state	state;
	struct sv_mr		*mr;	/* bound MR: a reference and a num_mw */
	u64			addr;	/* in the MR's address space */
	u64			length;
	int			access;	/* remote rights | IB_ZERO_BASED */
	u32			qpn;	/* type 2: the QP it is bound to */
	/* type 2, bound: that QP's list, and our place on it */
	struct sv_mw_binds	*binds;
	struct list_head	bind_entry;
};

struct sv_mw_obj {
	struct ib_mw		ibmw;
	struct sv_mw		*mw;
};

static inline struct sv_mw *to_sv_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sv_mw_obj, ibmw)->mw;
}
/* sv_mw.c, for sv_mr.c: window keys in lookups and invalidations */
int sv_mw_invalidate(struct sv_mw *mw, u32 rkey, struct ib_pd *pd, u32 qpn,
		     bool remote);
struct sv_mr *sv_mw_resolve(struct sv_mw *mw, u32 rkey, struct ib_pd *pd,
			    u32 qpn, int access, u64 *iova, u64 length);

#endif /* SV_MKEY_H */
