// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions (user, DMA, fast-register, ODP, dma-buf) and the
 * L_Key/R_Key space they share with memory windows.  Keys, lookup and
 * lifetime rules: struct sv_mkey and struct sv_mr in sv_mkey.h.
 *
 * Documentation/design.md, "Verbs objects" (MRs), "On-demand paging" and
 * "dma-buf MRs".
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>

#include "compat/sv_compat_odp.h"

#include "sv.h"
#include "sv_xport_obj.h"
#include "sv_mr.h"

/* access rights a consumer may ask for, per kind of MR */
#define SV_MR_ACCESS_REMOTE	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)
/*
 * IB_ACCESS_HUGETLB and the IB_ACCESS_OPTIONAL range (relaxed ordering, ...)
 * are hints a device may ignore; softverbs copies with the CPU, so they
 * change nothing and are accepted.  IB_ZERO_BASED is refused for MRs: an
 * MR's addressing is its iova (ibv_reg_mr_iova with 0 is zero based); the
 * flag is meaningful for window binds (sv_mw.c).  IB_ACCESS_ON_DEMAND is
 * taken by sv_mr_reg_user() apart (SV_MR_ODP).  Of the FLUSH rights (IBTA 1.5, where ib_core has them:
 * compat.h) only global visibility is granted: softverbs cannot make a
 * page persistent, so IB_ACCESS_FLUSH_PERSISTENT is -EOPNOTSUPP (ib_core
 * refuses it first: the device does not advertise it).
 */
#define SV_MR_ACCESS_USER	(IB_ACCESS_LOCAL_WRITE | SV_MR_ACCESS_REMOTE | \
				 IB_ACCESS_MW_BIND | IB_ACCESS_HUGETLB | \
				 IB_ACCESS_OPTIONAL | SV_ACCESS_FLUSH_GLOBAL)
#define SV_MR_ACCESS_ODP	(SV_MR_ACCESS_USER | IB_ACCESS_ON_DEMAND)
#define SV_MR_ACCESS_FAST	(IB_ACCESS_LOCAL_WRITE | SV_MR_ACCESS_REMOTE | \
				 IB_ACCESS_MW_BIND | IB_ACCESS_OPTIONAL | \
				 SV_ACCESS_FLUSH_GLOBAL)
/*
 * A DMA MR spans all kernel memory; remote rights on it (ib_alloc_pd with
 * IB_PD_UNSAFE_GLOBAL_RKEY) would let any peer write anywhere in the
 * kernel, and a bad address would oops.  Local access only.
 */
#define SV_MR_ACCESS_DMA	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_OPTIONAL)

/* the rights sv_mr_lookup() callers can ask for */
#define SV_MR_ACCESS_NEEDED	(IB_ACCESS_LOCAL_WRITE | SV_MR_ACCESS_REMOTE | \
				 SV_ACCESS_FLUSH)

static inline struct sv_mr *to_sv_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sv_mr, ibmr);
}

/*
 * With virtual DMA ops (no DMA device) a "DMA address" is the kernel
 * virtual address of the memory (ib_core's ib_dma_virt_map_sg uses
 * sg_virt()); ib_core requires !HIGHMEM for that, so it is always mapped.
 */
static inline void *sv_dma_to_ptr(u64 addr)
{
	return (void *)(uintptr_t)addr;
}

/* ---- checks ---------------------------------------------------------- */

/*
 * Access rights of an MR: remote write and remote atomic need local write
 * (IBTA 10.6.3.1), then only what
 * @supported allows.  -EINVAL for bits ib_core does not know or a
 * forbidden combination, -EOPNOTSUPP for known rights softverbs lacks.
 */
static int sv_mr_check_access(struct sv_dev *sv, int access, int supported)
{
	if (access & ~IB_ACCESS_SUPPORTED) {
		sv_dbg_dev(sv, "unknown access flags %#x\n",
			   access & ~IB_ACCESS_SUPPORTED);
		return -EINVAL;
	}
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE)) {
		sv_dbg_dev(sv, "remote write/atomic without local write\n");
		return -EINVAL;
	}
	if (access & ~supported) {
		sv_dbg_dev(sv, "unsupported access flags %#x\n",
			   access & ~supported);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* no driver-specific MR input or output is defined by the rxe ABI */
static int sv_mr_check_udata(struct ib_udata *udata)
{
	return udata && (udata->inlen || udata->outlen) ? -EINVAL : 0;
}

/*
 * Lock-free check of one access through @mr's key: a seqlock read section,
 * retried if a writer (rereg, fast-reg, invalidate, dereg) ran meanwhile.
 */
static int sv_mr_check(struct sv_mr *mr, u32 key, struct ib_pd *pd,
		       int access, u64 iova, u64 length)
{
	unsigned int seq;
	int err;

	do {
		seq = read_seqbegin(&mr->lock);
		if (READ_ONCE(mr->mkey.key) != key ||
		    mr->state != SV_MR_VALID)
			err = -EINVAL;
		else if (mr->pd != pd || (access & ~mr->access))
			err = -EACCES;
		else if (!sv_mr_range_ok(mr->iova, mr->length, iova, length))
			err = -ERANGE;
		else
			err = 0;
	} while (read_seqretry(&mr->lock, seq));
	return err;
}

/* ---- transport API ----------------------------------------------------- */

struct sv_mr *sv_mr_lookup_rcu(struct sv_dev *sv, u32 key, struct ib_pd *pd,
			       u32 qpn, int access, u64 *iova, u64 length)
{
	struct sv_mkey *mk;
	struct sv_mr *mr;
	int err;

	if (WARN_ON_ONCE(access & ~SV_MR_ACCESS_NEEDED))
		return ERR_PTR(-EINVAL);

	mk = sv_mkey_get_rcu(sv, key);
	if (!mk)
		return ERR_PTR(-EINVAL);

	if (mk->type == SV_MKEY_MW) {
		/* a window's R_Key is never an L_Key (IBTA 10.6.7) */
		if (!(access & SV_MR_ACCESS_REMOTE) ||
		    (access & IB_ACCESS_LOCAL_WRITE))
			mr = ERR_PTR(-EINVAL);
		else
			mr = sv_mw_resolve(container_of(mk, struct sv_mw, mkey),
					   key, pd, qpn, access, iova, length);
		sv_mkey_put(mk);
		return mr;
	}

	mr = container_of(mk, struct sv_mr, mkey);
	err = sv_mr_check(mr, key, pd, access, *iova, length);
	if (err) {
		sv_mkey_put(mk);
		return ERR_PTR(err);
	}
	return mr;
}

struct sv_mr *sv_mr_lookup(struct sv_dev *sv, u32 key, struct ib_pd *pd,
			   u32 qpn, int access, u64 *iova, u64 length)
{
	struct sv_mr *mr;

	rcu_read_lock();
	mr = sv_mr_lookup_rcu(sv, key, pd, qpn, access, iova, length);
	rcu_read_unlock();
	return mr;
}

static int sv_mr_copy_user(struct sv_mr *mr, u64 iova, void *buf, u32 len,
			   enum sv_copy_dir dir)
{
	u64 pos;

	/* the translation of a user MR never changes: no lock needed */
	if (!sv_mr_range_ok(mr->iova, mr->length, iova, len))
		return -ERANGE;

	pos = iova - mr->iova + mr->page_offset;
	while (len) {
		unsigned long idx = pos >> PAGE_SHIFT;
		unsigned int off = pos & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page;
		void *va;

		if (WARN_ON_ONCE(idx >= mr->npages))
			return -ERANGE;
		page = mr->pages[idx];
		va = kmap_local_page(page);
		sv_mr_copy_va(va + off, buf, n, dir);
		kunmap_local(va);
		if (dir == SV_COPY_TO_MR)
			flush_dcache_page(page);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/* the kernel address of @iova in a fast-reg MR's active list, for @len bytes */
static void *sv_mr_fast_va(struct sv_mr *mr, u64 pos, u32 *len)
{
	const struct sv_mr_pages *pl = mr->active;
	u64 page_size = 1ULL << pl->page_shift;
	u64 idx = pos >> pl->page_shift;
	u64 off = pos & (page_size - 1);

	if (idx >= pl->npages)
		return NULL;
	*len = min_t(u64, *len, page_size - off);
	return sv_dma_to_ptr(READ_ONCE(pl->addrs[idx]) + off);
}

static int sv_mr_copy_fast(struct sv_mr *mr, u64 iova, void *buf, u32 len,
			   enum sv_copy_dir dir)
{
	int err = 0;
	u64 pos;

	/*
	 * Exclusive against fast-reg and invalidate: once LOCAL_INV has
	 * completed, no copy touches the pages it unmapped.
	 */
	read_seqlock_excl_bh(&mr->lock);
	if (mr->state != SV_MR_VALID) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (!sv_mr_range_ok(mr->iova, mr->length, iova, len)) {
		err = -ERANGE;
		goto out_unlock;
	}
	pos = iova - mr->iova + mr->active->offset;
	while (len) {
		u32 n = len;
		void *va = sv_mr_fast_va(mr, pos, &n);

		if (WARN_ON_ONCE(!va)) {
			err = -ERANGE;
			break;
		}
		sv_mr_copy_va(va, buf, n, dir);
		buf += n;
		pos += n;
		len -= n;
	}
out_unlock:
	read_sequnlock_excl_bh(&mr->lock);
	return err;
}


int sv_mr_copy(struct sv_mr *mr, u64 iova, void *buf, u32 len,
	       enum sv_copy_dir dir)
{
	switch (mr->kind) {
	case SV_MR_USER:
		return sv_mr_copy_user(mr, iova, buf, len, dir);
	case SV_MR_FAST:
		return sv_mr_copy_fast(mr, iova, buf, len, dir);
	case SV_MR_ODP:
		return sv_mr_copy_odp(mr, iova, buf, len, dir);
	case SV_MR_DMABUF:
		if (!sv_mr_range_ok(mr->iova, mr->length, iova, len))
			return -ERANGE;
		sv_mr_copy_va(mr->dmabuf_va + (iova - mr->iova), buf, len, dir);
		return 0;
	case SV_MR_DMA:
		if (!sv_mr_range_ok(0, U64_MAX, iova, len))
			return -ERANGE;
		sv_mr_copy_va(sv_dma_to_ptr(iova), buf, len, dir);
		return 0;
	}
	return -EINVAL;
}

bool sv_mr_can_ref(const struct sv_mr *mr)
{
	return mr->kind == SV_MR_USER || mr->kind == SV_MR_DMA;
}

/*
 * Copy @len bytes between two user MRs, page by page of both: from @src's
 * page position @spos (page_offset included) into @mr's at @dpos, both
 * checked against the MRs' ranges by the caller.
 */
static int sv_mr_copy_user_user(struct sv_mr *mr, u64 dpos, struct sv_mr *src,
				u64 spos, u32 len)
{
	while (len) {
		unsigned long sidx = spos >> PAGE_SHIFT, didx = dpos >> PAGE_SHIFT;
		unsigned int soff = spos & ~PAGE_MASK, doff = dpos & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - max(soff, doff));
		void *s, *d;

		if (WARN_ON_ONCE(sidx >= src->npages || didx >= mr->npages))
			return -ERANGE;
		s = kmap_local_page(src->pages[sidx]);
		d = kmap_local_page(mr->pages[didx]);
		memcpy(d + doff, s + soff, n);
		kunmap_local(d);
		kunmap_local(s);
		flush_dcache_page(mr->pages[didx]);
		spos += n;
		dpos += n;
		len -= n;
	}
	return 0;
}

/*
 * Copy @len bytes from @src at @siova into @mr at @iova: between two user
 * MRs page by page of both, else @src's pages (or kernel addresses)
 * mapped in turn and handed to sv_mr_copy().
 */
static int sv_mr_copy_mr(struct sv_mr *mr, u64 iova, struct sv_mr *src,
			 u64 siova, u32 len)
{
	u64 pos;

	if (src->kind == SV_MR_DMA) {
		if (!sv_mr_range_ok(0, U64_MAX, siova, len))
			return -ERANGE;
		return sv_mr_copy(mr, iova, sv_dma_to_ptr(siova), len,
				  SV_COPY_TO_MR);
	}
	if (WARN_ON_ONCE(src->kind != SV_MR_USER))
		return -EINVAL;
	if (!sv_mr_range_ok(src->iova, src->length, siova, len))
		return -ERANGE;
	pos = siova - src->iova + src->page_offset;
	if (mr->kind == SV_MR_USER) {
		/* the translation of a user MR never changes: no lock needed */
		if (!sv_mr_range_ok(mr->iova, mr->length, iova, len))
			return -ERANGE;
		return sv_mr_copy_user_user(mr, iova - mr->iova +
					    mr->page_offset, src, pos, len);
	}
	while (len) {
		unsigned long idx = pos >> PAGE_SHIFT;
		unsigned int off = pos & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		void *va;
		int err;

		if (WARN_ON_ONCE(idx >= src->npages))
			return -ERANGE;
		va = kmap_local_page(src->pages[idx]);
		err = sv_mr_copy(mr, iova, va + off, n, SV_COPY_TO_MR);
		kunmap_local(va);
		if (err)
			return err;
		iova += n;
		pos += n;
		len -= n;
	}
	return 0;
}

int sv_mr_copy_in(struct sv_mr *mr, u64 iova, const struct sv_pay *src,
		  u32 off, u32 len)
{
	if (src->buf)
		return sv_mr_copy(mr, iova, (void *)src->buf + off, len,
				  SV_COPY_TO_MR);
	return sv_mr_copy_mr(mr, iova, src->mr, src->iova + off, len);
}

u64 sv_mr_do_atomic(u64 *p, enum sv_atomic_op op, u64 compare_add, u64 swap)
{
	u64 old, prev;

	if (op == SV_ATOMIC_CMP_SWAP)
		return cmpxchg64(p, compare_add, swap);
	/* fetch-and-add, or a write: a compare-and-swap loop either way */
	old = READ_ONCE(*p);
	for (;;) {
		prev = cmpxchg64(p, old, op == SV_ATOMIC_WRITE ? compare_add :
							 old + compare_add);
		if (prev == old)
			return old;
		old = prev;
	}
}

int sv_mr_atomic(struct sv_mr *mr, u64 iova, enum sv_atomic_op op,
		 u64 compare_add, u64 swap, u64 *orig)
{
	int err = 0;
	u32 n = 8;
	void *va;

	/* IBTA 9.4.5: atomics are on naturally aligned 64-bit words */
	if (iova & 7)
		return -EINVAL;

	switch (mr->kind) {
	case SV_MR_USER: {
		u64 pos;

		if (!sv_mr_range_ok(mr->iova, mr->length, iova, 8))
			return -ERANGE;
		pos = iova - mr->iova + mr->page_offset;
		/* aligned iova and page offset: the word is in one page */
		if ((pos & 7) || WARN_ON_ONCE((pos >> PAGE_SHIFT) >= mr->npages))
			return -EINVAL;
		va = kmap_local_page(mr->pages[pos >> PAGE_SHIFT]);
		*orig = sv_mr_do_atomic(va + (pos & ~PAGE_MASK), op,
					compare_add, swap);
		kunmap_local(va);
		flush_dcache_page(mr->pages[pos >> PAGE_SHIFT]);
		return 0;
	}
	case SV_MR_ODP:
		return sv_mr_atomic_odp(mr, iova, op, compare_add, swap, orig);
	case SV_MR_DMABUF:
		if (!sv_mr_range_ok(mr->iova, mr->length, iova, 8))
			return -ERANGE;
		va = mr->dmabuf_va + (iova - mr->iova);
		if ((uintptr_t)va & 7)
			return -EINVAL;
		*orig = sv_mr_do_atomic(va, op, compare_add, swap);
		return 0;
	case SV_MR_FAST:
		read_seqlock_excl_bh(&mr->lock);
		if (mr->state != SV_MR_VALID)
			err = -EINVAL;
		else if (!sv_mr_range_ok(mr->iova, mr->length, iova, 8))
			err = -ERANGE;
		if (!err) {
			va = sv_mr_fast_va(mr, iova - mr->iova +
					   mr->active->offset, &n);
			if (!va || n < 8 || ((uintptr_t)va & 7))
				err = -EINVAL;
			else
				*orig = sv_mr_do_atomic(va, op,
							compare_add, swap);
		}
		read_sequnlock_excl_bh(&mr->lock);
		return err;
	case SV_MR_DMA:
		if (!sv_mr_range_ok(0, U64_MAX, iova, 8))
			return -ERANGE;
		*orig = sv_mr_do_atomic(sv_dma_to_ptr(iova), op,
					compare_add, swap);
		return 0;
	}
	return -EINVAL;
}

int sv_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key, int access)
{
	struct sv_mr *mr = to_sv_mr(ibmr);
	struct sv_mr_pages *pl;
	u64 iova, length, mapped;
	int err;

	if (mr->kind != SV_MR_FAST)
		return -EINVAL;
	err = sv_mr_check_access(mr->sv, access, SV_MR_ACCESS_FAST);
	if (err)
		return err;
	/* the consumer owns only the low byte, the "key" (IBTA 10.6) */
	if ((key ^ READ_ONCE(mr->mkey.key)) & ~SV_MKEY_VARIANT_MASK)
		return -EINVAL;

	/* set by ib_map_mr_sg(), possibly adjusted by the consumer since */
	iova = READ_ONCE(ibmr->iova);
	length = READ_ONCE(ibmr->length);

	write_seqlock_bh(&mr->lock);
	pl = mr->staged;
	mapped = ((u64)pl->npages << pl->page_shift) - pl->offset;
	if (mr->state != SV_MR_FREE) {
		/* a valid MR must be invalidated first */
		err = -EINVAL;
	} else if (mr->pd != pd) {
		err = -EACCES;
	} else if (!pl->npages || length > mapped || length > U64_MAX - iova) {
		err = -EINVAL;
	} else {
		mr->staged = mr->active;
		mr->active = pl;
		mr->iova = iova;
		mr->length = length;
		mr->access = access;
		WRITE_ONCE(mr->mkey.key, key);
		mr->state = SV_MR_VALID;
	}
	write_sequnlock_bh(&mr->lock);
	return err;
}

static int sv_mr_invalidate_mr(struct sv_mr *mr, u32 key, struct ib_pd *pd)
{
	int err = 0;

	write_seqlock_bh(&mr->lock);
	if (mr->mkey.key != key || mr->state == SV_MR_INVALID)
		err = -EINVAL;
	else if (mr->kind != SV_MR_FAST)
		/* only fast-register MRs can be invalidated (IBTA 10.6) */
		err = -EINVAL;
	else if (mr->pd != pd)
		err = -EACCES;
	else if (mr->num_mw)
		/* windows bound to it keep it valid */
		err = -EBUSY;
	else
		mr->state = SV_MR_FREE;
	write_sequnlock_bh(&mr->lock);
	return err;
}

int sv_mr_invalidate(struct sv_dev *sv, u32 key, struct ib_pd *pd, u32 qpn,
		     bool remote)
{
	struct sv_mkey *mk;
	int err;

	mk = sv_mkey_get(sv, key);
	if (!mk)
		return -EINVAL;
	if (mk->type == SV_MKEY_MW)
		err = sv_mw_invalidate(container_of(mk, struct sv_mw, mkey),
				       key, pd, qpn, remote);
	else
		err = sv_mr_invalidate_mr(container_of(mk, struct sv_mr, mkey),
					  key, pd);
	sv_mkey_put(mk);
	return err;
}

/* ---- windows on an MR (for sv_mw.c) ------------------------------------ */

int sv_mr_mw_attach(struct sv_mr *mr, u32 lkey, struct ib_pd *pd, u64 addr,
		    u64 length, int mw_access)
{
	int err = 0;

	/* num_mw is only touched under the lock; the sequence need not move */
	read_seqlock_excl_bh(&mr->lock);
	if (mr->mkey.key != lkey || mr->state != SV_MR_VALID)
		err = -EINVAL;
	else if (mr->pd != pd)
		err = -EACCES;
	else if (!(mr->access & IB_ACCESS_MW_BIND))		/* C10-73 */
		err = -EACCES;
	else if ((mw_access & (IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_ATOMIC)) &&
		 !(mr->access & IB_ACCESS_LOCAL_WRITE))		/* C10-74 */
		err = -EACCES;
	else if (!sv_mr_range_ok(mr->iova, mr->length, addr, length)) /* C10-75 */
		err = -ERANGE;
	else
		mr->num_mw++;
	read_sequnlock_excl_bh(&mr->lock);
	return err;
}

void sv_mr_mw_detach(struct sv_mr *mr)
{
	read_seqlock_excl_bh(&mr->lock);
	WARN_ON(!mr->num_mw);
	mr->num_mw--;
	read_sequnlock_excl_bh(&mr->lock);
	sv_mkey_put(&mr->mkey);
}

/* ---- verbs -------------------------------------------------------------- */

struct sv_mr *sv_mr_alloc(struct sv_dev *sv, struct ib_pd *pd,
			  enum sv_mr_kind kind, int access)
{
	struct sv_mr *mr;

	if (!sv_dev_count_get(&sv->num_mr, SV_MAX_MR)) {
		sv_dbg_dev(sv, "no more than %u MRs\n", SV_MAX_MR);
		return ERR_PTR(-ENOMEM);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		sv_mkey_count_put(sv, &sv->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	sv_mkey_init(&mr->mkey, SV_MKEY_MR);
	seqlock_init(&mr->lock);
	mr->sv = sv;
	mr->kind = kind;
	mr->pd = pd;
	mr->access = access;
	mr->state = SV_MR_INVALID;
	return mr;
}

static void sv_mr_free_resources(struct sv_mr *mr)
{
	if (mr->kind == SV_MR_ODP)
		sv_mr_odp_release(mr);
	if (mr->dmabuf) {
		if (mr->dmabuf_va)
			sv_dma_buf_vunmap(mr->dmabuf, &mr->dmabuf_map);
		dma_buf_put(mr->dmabuf);
	}
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kvfree(mr->lists[0].addrs);
	kvfree(mr->lists[1].addrs);
}

/* undo sv_mr_alloc() and what was set up, for an MR never published */
void sv_mr_free(struct sv_mr *mr)
{
	struct sv_dev *sv = mr->sv;

	sv_mr_free_resources(mr);
	kfree(mr);
	sv_mkey_count_put(sv, &sv->num_mr);
}

/* publish a set-up MR in @state and return it to ib_core */
static struct ib_mr *sv_mr_publish(struct sv_mr *mr, enum sv_mr_state state)
{
	int err;

	/* lookups cannot find the MR before it is published */
	mr->state = state;
	err = sv_mkey_publish(mr->sv, &mr->mkey);
	if (err) {
		sv_mr_free(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = mr->mkey.key;
	mr->ibmr.rkey = mr->mkey.key;
	return &mr->ibmr;
}

/*
 * Tear down a published MR whose state is already SV_MR_INVALID: no new
 * lookups, wait for in-flight ones, free after an RCU grace period (lookups
 * may still be looking at the memory).
 */
static void sv_mr_destroy(struct sv_mr *mr)
{
	struct sv_dev *sv = mr->sv;

	sv_mkey_unpublish(sv, &mr->mkey);
	sv_mkey_put(&mr->mkey);
	if (mr->kind == SV_MR_ODP)
		sv_odp_mr_wait(mr);	/* kills a fault of it that hangs */
	else
		sv_mkey_wait(sv, &mr->mkey);
	sv_mr_free_resources(mr);
	kfree_rcu(mr, mkey.rcu);
	sv_mkey_count_put(sv, &sv->num_mr);
}

struct ib_mr *sv_mr_get_dma(struct ib_pd *ibpd, int access)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct sv_mr *mr;
	int err;

	err = sv_mr_check_access(sv, access, SV_MR_ACCESS_DMA);
	if (err)
		return ERR_PTR(err);
	mr = sv_mr_alloc(sv, ibpd, SV_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	return sv_mr_publish(mr, SV_MR_VALID);
}

/* pin [start, start + length) and build the page table of a user MR */
static struct sv_mr *sv_mr_create_user(struct sv_dev *sv, struct ib_pd *pd,
				       u64 start, u64 length, u64 iova,
				       int access)
{
	struct sg_page_iter piter;
	struct ib_umem *umem;
	unsigned long i = 0;
	struct sv_mr *mr;
	int err;

	mr = sv_mr_alloc_extent(sv, pd, SV_MR_USER, access, length, iova);
	if (IS_ERR(mr))
		return mr;

	/* honours RLIMIT_MEMLOCK (-ENOMEM beyond it without CAP_IPC_LOCK) */
	umem = sv_ib_umem_get(&sv->ibdev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free_mr;
	}
	mr->umem = umem;
	mr->npages = ib_umem_num_pages(umem);
	/* the process's: charged to its memory cgroup with the pinning */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages)) {
			err = -EFAULT;
			goto err_free_mr;
		}
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	if (WARN_ON_ONCE(i != mr->npages)) {
		err = -EFAULT;
		goto err_free_mr;
	}
	mr->page_offset = ib_umem_offset(umem);
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	return mr;

err_free_mr:
	sv_mr_free(mr);	/* releases the umem and page table too */
	return ERR_PTR(err);
}

struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	bool odp = access & IB_ACCESS_ON_DEMAND;
	struct sv_mr *mr;
	int err;

	err = sv_mr_check_udata(udata);
	if (err)
		return ERR_PTR(err);
	err = sv_mr_check_access(sv, access, odp ? SV_MR_ACCESS_ODP :
						   SV_MR_ACCESS_USER);
	if (err)
		return ERR_PTR(err);
	if (odp)
		mr = sv_mr_odp_create(sv, ibpd, start, length, iova, access);
	else
		mr = sv_mr_create_user(sv, ibpd, start, length, iova, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	return sv_mr_publish(mr, SV_MR_VALID);
}

/*
 * A dma-buf MR (ibv_reg_dmabuf_mr, through libsoftverbs: librxe has no
 * reg_dmabuf_mr).  softverbs copies with the CPU and has no DMA device to
 * attach with, so it maps the whole buffer into the kernel (dma_buf_vmap,
 * which keeps the buffer in place until vunmap: the exporter cannot move
 * it under the MR, and no move_notify is needed) and copies through that
 * mapping.  An exporter without vmap, or whose memory is I/O memory,
 * cannot be registered (-EOPNOTSUPP).
 */
struct ib_mr *sv_mr_reg_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
			       u64 iova, int fd, int access,
			       sv_reg_dmabuf_arg_t arg)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct dma_buf *dmabuf;
	struct sv_mr *mr;
	int err;

	err = sv_mr_check_udata(sv_reg_dmabuf_udata(arg));
	if (err)
		return ERR_PTR(err);
	err = sv_mr_check_access(sv, access, SV_MR_ACCESS_USER);
	if (err)
		return ERR_PTR(err);
	err = sv_mr_check_extent(sv, length, iova);
	if (err)
		return ERR_PTR(err);
	if (offset + length < offset)
		return ERR_PTR(-EINVAL);

	mr = sv_mr_alloc(sv, ibpd, SV_MR_DMABUF, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		goto err_free_mr;
	}
	mr->dmabuf = dmabuf;
	if (offset + length > dmabuf->size) {
		err = -EINVAL;
		goto err_free_mr;
	}
	err = sv_dma_buf_vmap(dmabuf, &mr->dmabuf_map);
	if (err) {
		sv_dbg_dev(sv, "dma-buf cannot be mapped: %d\n", err);
		err = -EOPNOTSUPP;
		goto err_free_mr;
	}
	if (mr->dmabuf_map.is_iomem) {
		sv_dma_buf_vunmap(dmabuf, &mr->dmabuf_map);
		err = -EOPNOTSUPP;
		goto err_free_mr;
	}
	mr->dmabuf_va = (u8 *)mr->dmabuf_map.vaddr + offset;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	return sv_mr_publish(mr, SV_MR_VALID);

err_free_mr:
	sv_mr_free(mr);	/* puts the dma-buf too */
	return ERR_PTR(err);
}

/*
 * ib_core accepts two answers from rereg_user_mr: NULL, when the driver
 * changed the MR in place (ib_core then moves mr->pd itself), or a new
 * ib_mr that replaces the old one under the same handle (ib_core then
 * deregisters the old MR).  Both 6.1 and 6.12 behave so.
 *
 * A new translation, write access on pages pinned read-only (or an ODP
 * umem_odp made read-only), or IB_ACCESS_ON_DEMAND set or cleared, needs
 * a new umem: in-flight packets may still copy through the old ones, so
 * they are not swapped under the MR but a new MR is built and the old one
 * dies when ib_core deregisters it (waiting for those packets), and the
 * MR gets a new key: keys handed out before name the old pages and are
 * stale.  PD and access changes are done in place and keep the keys, as
 * on hardware (mlx5), where programs and rdma-core's tests count on it:
 * every access checks the MR's PD and rights as they are then, so a peer
 * holding the key gets what the MR allows now, nothing it allowed before.
 *
 * Refused with -EBUSY while windows are bound: their bind was checked
 * against the MR's PD, rights and range (IBTA 10.6.7.2.1).  If building the
 * new MR fails, the old one stays valid and unchanged.
 */
struct ib_mr *sv_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
			       u64 length, u64 iova, int access,
			       struct ib_pd *pd, struct ib_udata *udata)
{
	struct sv_mr *mr = to_sv_mr(ibmr);
	struct sv_dev *sv = mr->sv;
	enum sv_mr_kind new_kind;
	struct sv_mr *new;
	int new_access;
	int err;

	err = sv_mr_check_udata(udata);
	if (err)
		return ERR_PTR(err);
	if (!flags || (flags & ~IB_MR_REREG_SUPPORTED))
		return ERR_PTR(-EOPNOTSUPP);
	if (mr->kind != SV_MR_USER && mr->kind != SV_MR_ODP)
		return ERR_PTR(-EINVAL);
	/* the translation and access are stable: only rereg changes them */
	new_access = flags & IB_MR_REREG_ACCESS ? access : mr->access;
	new_kind = new_access & IB_ACCESS_ON_DEMAND ? SV_MR_ODP : SV_MR_USER;
	if (flags & IB_MR_REREG_ACCESS) {
		err = sv_mr_check_access(sv, access, new_kind == SV_MR_ODP ?
					 SV_MR_ACCESS_ODP : SV_MR_ACCESS_USER);
		if (err)
			return ERR_PTR(err);
	}
	if (!(flags & IB_MR_REREG_PD))
		pd = mr->pd;

	if (!(flags & IB_MR_REREG_TRANS) && new_kind == mr->kind &&
	    (mr->umem->writable || !ib_access_writable(new_access))) {
		write_seqlock_bh(&mr->lock);
		if (mr->num_mw) {
			write_sequnlock_bh(&mr->lock);
			return ERR_PTR(-EBUSY);
		}
		mr->pd = pd;
		mr->access = new_access;
		write_sequnlock_bh(&mr->lock);
		return NULL;
	}

	if (!(flags & IB_MR_REREG_TRANS)) {
		/*
		 * Same range, pinned again for writing, or turned into an
		 * ODP MR or back; an implicit MR's parent has address 0 and
		 * the MR length U64_MAX, so it stays implicit.
		 */
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}

	/* the old MR stops working now: no new binds, no new accesses */
	write_seqlock_bh(&mr->lock);
	if (mr->num_mw) {
		write_sequnlock_bh(&mr->lock);
		return ERR_PTR(-EBUSY);
	}
	mr->state = SV_MR_INVALID;
	write_sequnlock_bh(&mr->lock);

	if (new_kind == SV_MR_ODP)
		new = sv_mr_odp_create(sv, pd, start, length, iova, new_access);
	else
		new = sv_mr_create_user(sv, pd, start, length, iova,
					new_access);
	if (IS_ERR(new))
		goto err_restore;
	ibmr = sv_mr_publish(new, SV_MR_VALID);
	if (IS_ERR(ibmr)) {
		new = ERR_CAST(ibmr);
		goto err_restore;
	}
	return ibmr;

err_restore:
	write_seqlock_bh(&mr->lock);
	mr->state = SV_MR_VALID;
	write_sequnlock_bh(&mr->lock);
	return ERR_CAST(new);
}

int sv_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sv_mr *mr = to_sv_mr(ibmr);

	/*
	 * IBTA 10.6.7.2.1: an MR with bound windows cannot be deregistered.
	 * Only user space binds windows; ib_core retries at context close
	 * after the windows are gone.
	 */
	write_seqlock_bh(&mr->lock);
	if (mr->num_mw) {
		write_sequnlock_bh(&mr->lock);
		sv_dbg_dev(mr->sv, "MR %#x has %u windows bound\n",
			   mr->mkey.key, mr->num_mw);
		return -EBUSY;
	}
	mr->state = SV_MR_INVALID;
	write_sequnlock_bh(&mr->lock);

	sv_mr_destroy(mr);
	return 0;
}

struct ib_mr *sv_mr_alloc_fast(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct sv_mr *mr;
	int i;

	/* no gapped SG lists, no signature/integrity offload */
	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SV_MAX_FAST_REG_PAGES) {
		sv_dbg_dev(sv, "max_num_sg %u not in [1, %u]\n", max_num_sg,
			   SV_MAX_FAST_REG_PAGES);
		return ERR_PTR(-EINVAL);
	}

	mr = sv_mr_alloc(sv, ibpd, SV_MR_FAST, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->max_pages = max_num_sg;
	for (i = 0; i < ARRAY_SIZE(mr->lists); i++) {
		mr->lists[i].addrs = kvcalloc(max_num_sg, sizeof(u64),
					      GFP_KERNEL);
		if (!mr->lists[i].addrs) {
			sv_mr_free(mr);
			return ERR_PTR(-ENOMEM);
		}
		mr->lists[i].page_shift = PAGE_SHIFT;
	}
	mr->active = &mr->lists[0];
	mr->staged = &mr->lists[1];
	/* IBTA 10.6: an allocated L_Key starts in the Free state */
	return sv_mr_publish(mr, SV_MR_FREE);
}

static int sv_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sv_mr *mr = to_sv_mr(ibmr);
	struct sv_mr_pages *pl = mr->staged;

	if (pl->npages >= mr->max_pages)
		return -ENOMEM;
	WRITE_ONCE(pl->addrs[pl->npages], addr);
	pl->npages++;
	return 0;
}

/*
 * Stage a page list for the next REG_MR.  It goes to the staged list, not
 * the active one: consumers (iSER, for one) map the next registration while
 * the previous one is still valid and post LOCAL_INV + REG_MR together.
 * Runs in the consumer's context, never concurrently with another
 * map_mr_sg() of the same MR or with a REG_MR of it in flight (a consumer
 * bug otherwise; it cannot make us touch memory outside the page arrays).
 */
int sv_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset)
{
	struct sv_mr *mr = to_sv_mr(ibmr);
	struct sv_mr_pages *pl;
	u32 page_size = ibmr->page_size;
	int n;

	if (mr->kind != SV_MR_FAST)
		return -EINVAL;
	if (!is_power_of_2(page_size) || !(page_size & SV_PAGE_SIZE_CAP)) {
		sv_dbg_dev(mr->sv, "page size %u not supported\n", page_size);
		return -EINVAL;
	}

	pl = mr->staged;
	pl->npages = 0;
	pl->page_shift = ilog2(page_size);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sv_mr_set_page);
	/* where the first byte sits in the first page (iova may be moved) */
	pl->offset = ibmr->iova & (page_size - 1);
	return n;
}
