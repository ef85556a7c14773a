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
#include "sv_xport.h"

/* mr_xa mark of a tombstone: a free index that remembers its last variant */
#define SV_MKEY_TOMBSTONE	XA_MARK_1

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

/* ---- key space ------------------------------------------------------- */

void sv_mkey_init(struct sv_mkey *mk, enum sv_mkey_type type)
{
	mk->key = 0;	/* no valid key has index 0 */
	mk->type = type;
	refcount_set(&mk->ref, 1);
	init_completion(&mk->released);
}

/*
 * Give @mk an index and a key, and make it visible to lookups.  The index
 * is picked cyclically from SV_MKEY_INDEX_MAX slots, so a freed index is
 * reused as late as possible; a reused index gets the next variant after
 * the one its tombstone remembers, so every key a freed object had is
 * stale for the next one at that index.  A never-used index gets a random
 * variant.  Process context.
 */
int sv_mkey_publish(struct sv_dev *sv, struct sv_mkey *mk)
{
	struct xarray *xa = &sv->mr_xa;
	unsigned long tomb_idx;
	void *tomb, *curr;
	u32 start, idx, variant;
	int pass, err;

	xa_lock_bh(xa);
retry:
	start = sv->mkey_next ?: 1;
	err = -ENOSPC;
	for (pass = 0; pass < 2; pass++) {
		u32 lo = pass ? 1 : start;

		tomb_idx = lo;
		tomb = xa_find(xa, &tomb_idx, SV_MKEY_INDEX_MAX,
			       SV_MKEY_TOMBSTONE);
		/* a never-used index below the first tombstone comes first */
		if (!tomb || tomb_idx > lo) {
			u32 hi = tomb ? tomb_idx - 1 : SV_MKEY_INDEX_MAX;

			err = __xa_alloc(xa, &idx, mk, XA_LIMIT(lo, hi),
					 GFP_KERNEL);
			if (!err) {
				variant = get_random_u32() & SV_MKEY_VARIANT_MASK;
				goto found;
			}
			if (err != -EBUSY)
				goto out_unlock;
		}
		if (tomb) {
			/*
			 * __xa_alloc() may have dropped the lock to allocate
			 * memory; the tombstone is ours only if it is still
			 * there with the same variant.
			 */
			curr = __xa_cmpxchg(xa, tomb_idx, tomb, mk, GFP_KERNEL);
			if (xa_is_err(curr)) {
				err = xa_err(curr);
				goto out_unlock;
			}
			if (curr != tomb)
				goto retry;
			__xa_clear_mark(xa, tomb_idx, SV_MKEY_TOMBSTONE);
			idx = tomb_idx;
			variant = (xa_to_value(tomb) + 1) & SV_MKEY_VARIANT_MASK;
			goto found;
		}
		if (start == 1)
			break;
	}
	/* unreachable while SV_MAX_MR + SV_MAX_MW < SV_MKEY_INDEX_MAX */
	goto out_unlock;

found:
	/* lookups that find @mk before this see key 0, which never matches */
	WRITE_ONCE(mk->key, idx << 8 | variant);
	sv->mkey_next = idx < SV_MKEY_INDEX_MAX ? idx + 1 : 1;
	err = 0;
out_unlock:
	xa_unlock_bh(xa);
	return err;
}

/*
 * Remove @mk from lookups, leaving a tombstone with its last variant.  New
 * lookups fail from now on; references taken before stay valid.
 */
void sv_mkey_unpublish(struct sv_dev *sv, struct sv_mkey *mk)
{
	struct xarray *xa = &sv->mr_xa;
	u32 key = READ_ONCE(mk->key);
	u32 idx = key >> 8;
	void *old;

	xa_lock_bh(xa);
	/* replacing a present entry allocates nothing */
	old = __xa_store(xa, idx, xa_mk_value(key & SV_MKEY_VARIANT_MASK),
			 GFP_ATOMIC);
	if (WARN_ON(old != mk)) {
		if (!xa_is_err(old))
			__xa_store(xa, idx, old, GFP_ATOMIC);
	} else {
		__xa_set_mark(xa, idx, SV_MKEY_TOMBSTONE);
	}
	xa_unlock_bh(xa);
}

/* drop every tombstone: the device holds no MR or MW any more */
static void sv_mkey_purge(struct sv_dev *sv)
{
	struct xarray *xa = &sv->mr_xa;
	unsigned long idx;
	unsigned int n;
	void *entry;

	do {
		n = 0;
		xa_lock_bh(xa);
		xa_for_each_marked(xa, idx, entry, SV_MKEY_TOMBSTONE) {
			__xa_erase(xa, idx);
			if (++n == 64)
				break;
		}
		xa_unlock_bh(xa);
		cond_resched();
	} while (n == 64);
}

/*
 * Give back a count taken with sv_dev_count_get() for an MR or MW.  When no
 * MR and no MW is left, the tombstones go: device removal finds mr_xa
 * empty.  Losing the remembered variants then is harmless, no key of this
 * device can be in use.  Both counts are read after a full barrier that
 * follows our own decrement, so of two racing last puts at least one sees
 * both counts at zero.
 */
void sv_mkey_count_put(struct sv_dev *sv, atomic_t *count)
{
	sv_dev_count_put(count);
	/* order our decrement before reading both counts (see above) */
	smp_mb__after_atomic();
	if (!atomic_read(&sv->num_mr) && !atomic_read(&sv->num_mw))
		sv_mkey_purge(sv);
}

/*
 * A reference on the object at @key's index, whatever its variant, or
 * NULL.  Any context.  The caller checks the full key under the object's
 * lock.
 */
struct sv_mkey *sv_mkey_get(struct sv_dev *sv, u32 key)
{
	struct sv_mkey *mk;

	rcu_read_lock();
	mk = xa_load(&sv->mr_xa, key >> 8);
	if (!mk || xa_is_value(mk) || !refcount_inc_not_zero(&mk->ref))
		mk = NULL;
	rcu_read_unlock();
	return mk;
}

void sv_mkey_put(struct sv_mkey *mk)
{
	if (refcount_dec_and_test(&mk->ref))
		complete(&mk->released);
}

/*
 * After sv_mkey_unpublish() and dropping the owner's reference: wait until
 * no lookup holds @mk any more.  In-flight packets hold references only
 * for the time of one copy, so a long wait means a leaked reference.
 */
void sv_mkey_wait(struct sv_dev *sv, struct sv_mkey *mk)
{
	while (!wait_for_completion_timeout(&mk->released, 10 * HZ))
		sv_err_dev(sv, "key %#x still referenced after 10 s\n",
			   READ_ONCE(mk->key));
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

struct sv_mr *sv_mr_lookup(struct sv_dev *sv, u32 key, struct ib_pd *pd,
			   u32 qpn, int access, u64 *iova, u64 length)
{
	struct sv_mkey *mk;
	struct sv_mr *mr;
	int err;

	if (WARN_ON_ONCE(access & ~SV_MR_ACCESS_NEEDED))
		return ERR_PTR(-EINVAL);

	mk = sv_mkey_get(sv, key);
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

/* copy between @buf and the kernel address @va */
static void sv_mr_copy_va(void *va, void *buf, u32 len, enum sv_copy_dir dir)
{
	if (dir == SV_COPY_TO_MR)
		memcpy(va, buf, len);
	else
		memcpy(buf, va, len);
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


/* ---- on-demand paging ---------------------------------------------------- */

/*
 * An ODP MR (IB_ACCESS_ON_DEMAND) holds no page: ib_core's umem_odp tracks
 * the range with an mmu_interval_notifier, sv_mr_odp_fault() maps pages
 * with hmm_range_fault() when an access needs them, and the core mm calls
 * sv_mr_odp_invalidate() before any page of the range goes away or changes
 * (munmap, fork's COW protection, madvise(DONTNEED), migration, reclaim).
 * Copies run in any context and cannot fault: a page that is not mapped
 * with the rights the access needs makes it fail with -EAGAIN, and the
 * transport has the range faulted in process context (sv_odp.c).
 */

static inline bool sv_mr_odp_overlap(u64 a_start, u64 a_end, u64 b_start,
				      u64 b_end)
{
	return a_start < b_end && b_start < a_end;
}

/* the user address of @iova (checked against the MR by the caller) */
static inline u64 sv_mr_odp_addr(struct sv_mr *mr, u64 iova)
{
	return mr->umem_odp->umem.address + (iova - mr->iova);
}

/*
 * The kernel address of the byte at user address @addr for an access
 * that writes (@write) or reads, and in *@len how many bytes of the
 * access fit in its page; NULL if the page is absent, lacks the right or
 * is being invalidated.  Under the exclusive side of mr->lock.
 */
static void *sv_mr_odp_va(struct sv_mr *mr, u64 addr, u32 *len, bool write)
{
	struct ib_umem_odp *odp = mr->umem_odp;
	u64 inval_start = mr->odp_inval_start;
	u64 inval_end = mr->odp_inval_end;
	unsigned int shift;
	u64 page_size, off, idx;
	void *va;

	if (mr->odp_implicit) {
		/* a page never crosses a chunk: chunks are aligned */
		struct sv_odp_chunk *c = xa_load(&mr->odp_chunks,
						 addr >> SV_ODP_CHUNK_SHIFT);

		if (!c)
			return NULL;
		odp = c->odp;
		inval_start = c->inval_start;
		inval_end = c->inval_end;
	}
	shift = odp->page_shift;
	page_size = 1ULL << shift;
	off = addr & (page_size - 1);
	if (addr >= inval_start && addr < inval_end)
		return NULL;
	if (WARN_ON_ONCE(addr < ib_umem_start(odp) || addr >= ib_umem_end(odp)))
		return NULL;
	idx = (addr - ib_umem_start(odp)) >> shift;
	/* written by ib_core under umem_mutex; invalidation is excluded */
	va = sv_odp_page_va(odp, idx, write);
	if (!va)
		return NULL;
	*len = min_t(u64, *len, page_size - off);
	return va + off;
}

/*
 * -EAGAIN for an absent page: the transport has it faulted, or fails the
 * access if that access's own fault failed before (sv_odp.c).
 */
static int sv_mr_odp_miss(struct sv_mr *mr)
{
	sv_stat_inc(mr->sv, SV_STAT_ODP_MISSES);
	return -EAGAIN;
}

static int sv_mr_copy_odp(struct sv_mr *mr, u64 iova, void *buf, u32 len,
			  enum sv_copy_dir dir)
{
	bool write = dir == SV_COPY_TO_MR;
	int err = 0;
	u64 addr;

	/* like a user MR, the translation never changes */
	if (!sv_mr_range_ok(mr->iova, mr->length, iova, len))
		return -ERANGE;
	addr = sv_mr_odp_addr(mr, iova);

	read_seqlock_excl_bh(&mr->lock);
	while (len) {
		u32 n = len;
		void *va = sv_mr_odp_va(mr, addr, &n, write);

		if (!va) {
			err = sv_mr_odp_miss(mr);
			break;
		}
		sv_mr_copy_va(va, buf, n, dir);
		buf += n;
		addr += n;
		len -= n;
	}
	read_sequnlock_excl_bh(&mr->lock);
	return err;
}

static u64 sv_mr_do_atomic(u64 *p, enum sv_atomic_op op, u64 compare_add,
			   u64 swap);

static int sv_mr_atomic_odp(struct sv_mr *mr, u64 iova, enum sv_atomic_op op,
			    u64 compare_add, u64 swap, u64 *orig)
{
	int err = 0;
	u32 n = 8;
	u64 addr;
	void *va;

	if (!sv_mr_range_ok(mr->iova, mr->length, iova, 8))
		return -ERANGE;
	addr = sv_mr_odp_addr(mr, iova);
	/* IBTA 9.4.5: naturally aligned, so inside one page */
	if (addr & 7)
		return -EINVAL;
	read_seqlock_excl_bh(&mr->lock);
	va = sv_mr_odp_va(mr, addr, &n, true);
	if (!va)
		err = sv_mr_odp_miss(mr);
	else if (WARN_ON_ONCE(n < 8))
		err = -EINVAL;
	else
		*orig = sv_mr_do_atomic(va, op, compare_add, swap);
	read_sequnlock_excl_bh(&mr->lock);
	return err;
}

/*
 * mmu_interval_notifier callback: the pages of [range->start, range->end)
 * are about to change.  After it returns no copy may touch them, and the
 * next access faults them again.  ib_core's unmap (which dirties written
 * pages) is not called under our spinlock: set_page_dirty() is the
 * filesystem's; the range is marked instead, so copies, which take
 * mr->lock, see those pages as absent from the moment the mark is set.
 */
static void sv_mr_odp_unmap(struct sv_mr *mr, struct ib_umem_odp *odp,
			    u64 *inval_start, u64 *inval_end,
			    const struct mmu_notifier_range *range)
{
	u64 start = max_t(u64, ib_umem_start(odp), range->start);
	u64 end = min_t(u64, ib_umem_end(odp), range->end);

	lockdep_assert_held(&odp->umem_mutex);
	if (start >= end)
		return;
	read_seqlock_excl_bh(&mr->lock);
	*inval_start = start;
	*inval_end = end;
	read_sequnlock_excl_bh(&mr->lock);

	sv_odp_unmap_pages(odp, start, end);

	read_seqlock_excl_bh(&mr->lock);
	*inval_start = 0;
	*inval_end = 0;
	read_sequnlock_excl_bh(&mr->lock);
	sv_stat_inc(mr->sv, SV_STAT_ODP_INVALIDATIONS);
}

static bool sv_mr_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct sv_mr *mr;

	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	mr = odp->private;
	/* NULL: not yet published, nothing was ever mapped */
	if (mr)
		sv_mr_odp_unmap(mr, odp, &mr->odp_inval_start,
				&mr->odp_inval_end, range);
	mutex_unlock(&odp->umem_mutex);
	return true;
}

/* the same for a chunk of an implicit MR: its private is the chunk */
static bool sv_mr_odp_chunk_invalidate(struct mmu_interval_notifier *mni,
				       const struct mmu_notifier_range *range,
				       unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct sv_odp_chunk *c;

	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	c = odp->private;
	if (c)
		sv_mr_odp_unmap(c->mr, odp, &c->inval_start, &c->inval_end,
				range);
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sv_mr_odp_ops = {
	.invalidate = sv_mr_odp_invalidate,
};

static const struct mmu_interval_notifier_ops sv_mr_odp_chunk_ops = {
	.invalidate = sv_mr_odp_chunk_invalidate,
};

/*
 * hmm_range_fault() faults without FAULT_FLAG_KILLABLE: a page of a file
 * whose read never ends (a FUSE daemon that does not answer) holds it,
 * and the ODP thread with it, in an uninterruptible wait that a kill does
 * not end.  So the file pages of the range are faulted first the way
 * get_user_pages() does, with fixup_user_fault(): its waits for the page
 * are killable, and a teardown's kill (sv_odp.c) ends them with -EINTR.
 * Anonymous memory needs nothing of the kind (hmm faults it), and a page
 * present already costs a walk.  A filesystem's own waits for a request
 * it sent are its own (FUSE waits out a synchronous read the daemon took:
 * only aborting the connection ends it).  Other errors are left to
 * hmm_range_fault() to report.
 */
static int sv_mr_odp_prefault(struct ib_umem_odp *odp, u64 addr, u64 len,
			      bool write)
{
	struct mm_struct *mm = odp->umem.owning_mm;
	unsigned int flags = FAULT_FLAG_REMOTE;
	u64 end = addr + len;
	int err = 0;

	if (write)
		flags |= FAULT_FLAG_WRITE;
	if (!mmget_not_zero(mm))
		return 0;
	if (mmap_read_lock_killable(mm)) {
		mmput(mm);
		return -EINTR;
	}
	while (addr < end) {
		struct vm_area_struct *vma = vma_lookup(mm, addr);
		bool unlocked = false;

		if (!vma)
			break;
		if (!vma->vm_file || (vma->vm_flags & (VM_IO | VM_PFNMAP))) {
			addr = vma->vm_end;
			continue;
		}
		/* the lock may have been dropped: the vma is looked up again */
		if (fixup_user_fault(mm, addr, flags, &unlocked) == -EINTR ||
		    fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		addr = (addr & PAGE_MASK) + PAGE_SIZE;
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return err;
}

/*
 * Map [@addr, @addr + @len) of @odp (user addresses, inside it); returns
 * how many of its pages are mapped now, or a negative errno.  @use, if
 * set, runs while they are still mapped: under umem_mutex, which every
 * invalidation of @odp takes first, so an access it makes to the range
 * cannot miss (see sv_mr_odp_fault_use()).
 */
static int sv_mr_odp_map(struct ib_umem_odp *odp, u64 addr, u64 len,
			 u64 mask, bool fault, void (*use)(void *arg),
			 void *arg)
{
	u64 start, idx;
	int npages, mapped = 0;

	if (fault) {
		npages = sv_mr_odp_prefault(odp, addr, len,
					    mask & SV_ODP_ACCESS_WRITE);
		if (npages)
			return npages;
	}
	/* returns with umem_mutex held on success */
	npages = ib_umem_odp_map_dma_and_lock(odp, addr, len, mask, fault);
	if (npages < 0)
		return npages;
	/*
	 * ib_core returns the pages of the range, mapped or not (NO_FAULT
	 * skips absent ones): count what is mapped now, under umem_mutex.
	 */
	start = (addr - ib_umem_start(odp)) >> odp->page_shift;
	for (idx = start; idx < start + npages; idx++)
		if (sv_odp_page_mapped(odp, idx))
			mapped++;
	if (use)
		use(arg);
	mutex_unlock(&odp->umem_mutex);
	return mapped;
}

/*
 * ib_core keeps two words per page of an ODP range (its pfn and DMA
 * lists) in memory it charges to nobody, however little of the range is
 * mapped: they count against the owning context's limit (ctx_mem_max_mb)
 * like its queues.  -ENOMEM, and nothing charged, past it.
 */
#define SV_ODP_TABLE_BYTES(npages)	((size_t)(npages) * 2 * sizeof(u64))

static int sv_mr_odp_charge(struct sv_mr *mr, size_t bytes)
{
	int err;

	if (!mr->odp_uc)
		return 0;
	err = sv_ucontext_charge(mr->odp_uc, bytes);
	if (!err)
		mr->odp_charged += bytes;
	return err;
}

static void sv_mr_odp_uncharge(struct sv_mr *mr, size_t bytes)
{
	if (!mr->odp_uc)
		return;
	sv_ucontext_uncharge(mr->odp_uc, bytes);
	mr->odp_charged -= bytes;
}

/* the context a user PD belongs to, which pays for the MR's tables */
static struct sv_ucontext *sv_mr_odp_payer(struct ib_pd *pd)
{
	return pd->uobject ? to_sv_uc(pd->uobject->context) : NULL;
}

/*
 * Is [@addr, @addr + 1) inside a mapping of the MR's process?  A chunk is
 * created only there, so neither the process nor a peer holding the
 * R_Key can make an implicit MR allocate tables for address space the
 * process never mapped.
 */
static bool sv_mr_odp_addr_mapped(struct sv_mr *mr, u64 addr)
{
	struct mm_struct *mm = mr->odp_mm;
	struct vm_area_struct *vma;
	bool mapped;

	if (!mmget_not_zero(mm))
		return false;
	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	mapped = vma && vma->vm_start <= addr;
	mmap_read_unlock(mm);
	mmput(mm);
	return mapped;
}

/*
 * The chunk of an implicit MR that holds @addr, created if the address is
 * mapped in the process (-EFAULT if not, -ENOSPC past SV_ODP_MAX_CHUNKS).
 * Process context.
 */
static struct sv_odp_chunk *sv_mr_odp_chunk_get(struct sv_mr *mr, u64 addr)
{
	unsigned long idx = addr >> SV_ODP_CHUNK_SHIFT;
	struct sv_odp_chunk *c;
	struct ib_umem_odp *odp;
	int err;

	c = xa_load(&mr->odp_chunks, idx);
	if (c)
		return c;

	mutex_lock(&mr->odp_chunk_mutex);
	c = xa_load(&mr->odp_chunks, idx);
	if (c)
		goto out_unlock;
	if (mr->odp_num_chunks >= SV_ODP_MAX_CHUNKS) {
		sv_dbg_dev(mr->sv, "implicit MR %#x has %u chunks\n",
			   mr->mkey.key, mr->odp_num_chunks);
		c = ERR_PTR(-ENOSPC);
		goto out_unlock;
	}
	if (!sv_mr_odp_addr_mapped(mr, addr)) {
		c = ERR_PTR(-EFAULT);
		goto out_unlock;
	}
	err = sv_mr_odp_charge(mr, SV_ODP_TABLE_BYTES(SV_ODP_CHUNK_SIZE >>
						      PAGE_SHIFT));
	if (err) {
		c = ERR_PTR(err);
		goto out_unlock;
	}
	/* the process's: charged to its memory cgroup (ib_core's are not) */
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c) {
		err = -ENOMEM;
		goto err_uncharge;
	}
	odp = ib_umem_odp_alloc_child(mr->umem_odp,
				      (u64)idx << SV_ODP_CHUNK_SHIFT,
				      SV_ODP_CHUNK_SIZE, &sv_mr_odp_chunk_ops);
	if (IS_ERR(odp)) {
		err = PTR_ERR(odp);
		goto err_free_chunk;
	}
	c->odp = odp;
	c->mr = mr;
	/* the callback finds the chunk under umem_mutex (NULL before) */
	mutex_lock(&odp->umem_mutex);
	odp->private = c;
	mutex_unlock(&odp->umem_mutex);
	/* copies see the chunk from here on, fully set up */
	err = xa_err(xa_store(&mr->odp_chunks, idx, c, GFP_KERNEL_ACCOUNT));
	if (err)
		goto err_release_odp;
	mr->odp_num_chunks++;
	goto out_unlock;

err_release_odp:
	ib_umem_odp_release(odp);
err_free_chunk:
	kfree(c);
err_uncharge:
	sv_mr_odp_uncharge(mr, SV_ODP_TABLE_BYTES(SV_ODP_CHUNK_SIZE >>
						  PAGE_SHIFT));
	c = ERR_PTR(err);
out_unlock:
	mutex_unlock(&mr->odp_chunk_mutex);
	return c;
}

/*
 * Between the pieces of a long fault or prefetch: -EINTR when the caller
 * has a fatal signal, -ENOENT when the MR is being deregistered (its
 * dereg waits for our reference), so neither a kill nor a dereg waits for
 * the rest of the range.  Process context.
 */
static int sv_mr_odp_stop(struct sv_mr *mr)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (READ_ONCE(mr->state) != SV_MR_VALID)
		return -ENOENT;
	cond_resched();
	return 0;
}

/* [@addr, @end) inside one chunk of an implicit MR: sv_mr_odp_map() */
static int sv_mr_odp_map_chunk(struct sv_mr *mr, u64 addr, u64 end, u64 mask,
			       bool fault, void (*use)(void *arg), void *arg)
{
	struct sv_odp_chunk *c;

	/* a prefetch that may not fault does not create chunks */
	c = fault ? sv_mr_odp_chunk_get(mr, addr) :
		    xa_load(&mr->odp_chunks, addr >> SV_ODP_CHUNK_SHIFT);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (c)
		return sv_mr_odp_map(c->odp, addr, end - addr, mask, fault,
				     use, arg);
	if (use)
		use(arg);	/* nothing mapped, nothing to hold */
	return 0;
}

/*
 * The chunks of an implicit MR over [@addr, @end): the pages mapped, or a
 * negative errno.  With @use, it runs under the lock of the chunk of
 * @addr, which is mapped last (one chunk's umem_mutex at a time: they are
 * one lock class); the chunks after it are mapped as far as they can be,
 * a hole there being the fault of a later access, which starts at it.
 */
static int sv_mr_odp_map_implicit(struct sv_mr *mr, u64 addr, u64 end,
				  u64 mask, bool fault, void (*use)(void *arg),
				  void *arg)
{
	u64 first_end = sv_mr_odp_chunk_next(addr, end);
	int ret, mapped = 0;
	u64 a, next;

	for (a = use ? first_end : addr; a < end; a = next) {
		ret = a == addr ? 0 : sv_mr_odp_stop(mr);
		next = sv_mr_odp_chunk_next(a, end);
		if (!ret)
			ret = sv_mr_odp_map_chunk(mr, a, next, mask, fault,
						  NULL, NULL);
		if (ret < 0 && !use)
			return ret;
		if (ret < 0)
			break;
		mapped += ret;
	}
	if (!use)
		return mapped;
	ret = sv_mr_odp_map_chunk(mr, addr, first_end, mask, fault, use, arg);
	return ret < 0 ? ret : mapped + ret;
}

/*
 * [@addr, @end) of an explicit ODP MR: with @use in one piece (a
 * transport fault, at most SV_ODP_FAULT_MAX), else chunk by chunk, so a
 * prefetch of gigabytes can be stopped between them.
 */
static int sv_mr_odp_map_explicit(struct sv_mr *mr, u64 addr, u64 end,
				  u64 mask, bool fault, void (*use)(void *arg),
				  void *arg)
{
	int ret, mapped = 0;
	u64 a, next;

	if (use)
		return sv_mr_odp_map(mr->umem_odp, addr, end - addr, mask,
				     fault, use, arg);
	for (a = addr; a < end; a = next) {
		ret = a == addr ? 0 : sv_mr_odp_stop(mr);
		if (ret)
			return ret;
		next = sv_mr_odp_chunk_next(a, end);
		ret = sv_mr_odp_map(mr->umem_odp, a, next - a, mask, fault,
				    NULL, NULL);
		if (ret < 0)
			return ret;
		mapped += ret;
	}
	return mapped;
}

int sv_mr_odp_fault_use(struct sv_mr *mr, u64 iova, u64 len, bool write,
			bool fault, void (*use)(void *arg), void *arg)
{
	struct ib_umem_odp *odp;
	u64 mask = SV_ODP_ACCESS_READ;
	u64 addr;
	int ret;

	might_sleep();
	if (mr->kind != SV_MR_ODP || !len) {
		/* nothing to map: nothing can miss */
		if (use)
			use(arg);
		return 0;
	}
	odp = mr->umem_odp;
	if (!sv_mr_range_ok(mr->iova, mr->length, iova, len))
		return -ERANGE;
	if (write) {
		/* an implicit MR's children inherit this from the parent */
		if (!odp->umem.writable)
			return -EACCES;
		mask |= SV_ODP_ACCESS_WRITE;
	}
	addr = sv_mr_odp_addr(mr, iova);
	/* no overflow: the range check bounds addr + len by U64_MAX */
	if (mr->odp_implicit)
		ret = sv_mr_odp_map_implicit(mr, addr, addr + len, mask, fault,
					     use, arg);
	else
		ret = sv_mr_odp_map_explicit(mr, addr, addr + len, mask, fault,
					     use, arg);
	if (ret < 0) {
		sv_stat_inc(mr->sv, SV_STAT_ODP_FAULT_ERRS);
		return ret;
	}
	sv_stat_inc(mr->sv, SV_STAT_ODP_FAULTS);
	sv_stat_add(mr->sv, SV_STAT_ODP_FAULT_PAGES, ret);
	return 0;
}

int sv_mr_odp_fault(struct sv_mr *mr, u64 iova, u64 len, bool write,
		    bool fault)
{
	return sv_mr_odp_fault_use(mr, iova, len, write, fault, NULL, NULL);
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

static u64 sv_mr_do_atomic(u64 *p, enum sv_atomic_op op, u64 compare_add,
			   u64 swap)
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

static struct sv_mr *sv_mr_alloc(struct sv_dev *sv, struct ib_pd *pd,
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
	if (mr->odp_charged)
		sv_mr_odp_uncharge(mr, mr->odp_charged);
	if (mr->odp_implicit) {
		struct sv_odp_chunk *c;
		unsigned long idx;

		/* no copy or fault runs any more: the MR is unreachable */
		xa_for_each(&mr->odp_chunks, idx, c) {
			ib_umem_odp_release(c->odp);
			kfree(c);
		}
		xa_destroy(&mr->odp_chunks);
		mmdrop(mr->odp_mm);
	}
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
static void sv_mr_free(struct sv_mr *mr)
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

	if (!length || length > SV_MAX_MR_SIZE) {
		sv_dbg_dev(sv, "MR length %llu not in [1, %llu]\n", length,
			   SV_MAX_MR_SIZE);
		return ERR_PTR(-EINVAL);
	}
	/* the region's iova range must not wrap either */
	if (iova + length - 1 < iova)
		return ERR_PTR(-EINVAL);

	mr = sv_mr_alloc(sv, pd, SV_MR_USER, access);
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

/*
 * An implicit ODP MR (start 0, length U64_MAX, IBTA's "whole address
 * space"; iova must be 0 as for mlx5): ib_core's implicit parent umem_odp
 * holds the process (tgid, mm) and the rights; chunks are created by the
 * faults (sv_mr_odp_chunk_get()).  HUGETLB is refused by ib_core.
 */
static struct sv_mr *sv_mr_create_odp_implicit(struct sv_dev *sv,
					       struct ib_pd *pd, u64 iova,
					       int access)
{
	struct ib_umem_odp *odp;
	struct sv_mr *mr;
	int err;

	if (iova)
		return ERR_PTR(-EINVAL);
	mr = sv_mr_alloc(sv, pd, SV_MR_ODP, access);
	if (IS_ERR(mr))
		return mr;
	err = sv_odp_ctx_get(sv_mr_odp_payer(pd));
	if (err) {
		sv_mr_free(mr);
		return ERR_PTR(err);
	}
	odp = ib_umem_odp_alloc_implicit(&sv->ibdev, access);
	if (IS_ERR(odp)) {
		sv_mr_free(mr);
		return ERR_CAST(odp);
	}
	mr->umem = &odp->umem;
	mr->umem_odp = odp;
	mr->odp_implicit = true;
	xa_init(&mr->odp_chunks);
	mutex_init(&mr->odp_chunk_mutex);
	mr->odp_mm = odp->umem.owning_mm;
	mmgrab(mr->odp_mm);
	/* its chunks' tables are charged as they are made */
	mr->odp_uc = sv_mr_odp_payer(pd);
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	mr->ibmr.page_size = PAGE_SIZE;
	return mr;
}

/*
 * An ODP MR: ib_umem_odp_get() checks the range against the process's
 * address space and inserts the interval notifier; nothing is pinned or
 * mapped, so RLIMIT_MEMLOCK does not apply; ib_core's page tables for
 * the range are charged to the context (-ENOMEM past ctx_mem_max_mb).
 * The whole address space (start 0, length U64_MAX) is an implicit MR.
 */
static struct sv_mr *sv_mr_create_odp(struct sv_dev *sv, struct ib_pd *pd,
				      u64 start, u64 length, u64 iova,
				      int access)
{
	struct ib_umem_odp *odp;
	struct sv_mr *mr;
	int err;

	if (!start && length == U64_MAX)
		return sv_mr_create_odp_implicit(sv, pd, iova, access);
	if (!length || length > SV_MAX_MR_SIZE) {
		sv_dbg_dev(sv, "MR length %llu not in [1, %llu]\n", length,
			   SV_MAX_MR_SIZE);
		return ERR_PTR(-EINVAL);
	}
	if (iova + length - 1 < iova)
		return ERR_PTR(-EINVAL);

	mr = sv_mr_alloc(sv, pd, SV_MR_ODP, access);
	if (IS_ERR(mr))
		return mr;
	/* the pages of [start, start + length), two more for the ends */
	mr->odp_uc = sv_mr_odp_payer(pd);
	/* its faults run on the context's ODP thread (sv_odp.c) */
	err = sv_odp_ctx_get(mr->odp_uc);
	if (err)
		goto err_free_mr;
	err = sv_mr_odp_charge(mr, SV_ODP_TABLE_BYTES((length >> PAGE_SHIFT) +
						      2));
	if (err)
		goto err_free_mr;
	odp = ib_umem_odp_get(&sv->ibdev, start, length,
			      sv_odp_umem_access(access), &sv_mr_odp_ops);
	if (IS_ERR(odp)) {
		err = PTR_ERR(odp);
		goto err_free_mr;
	}
	/* freed with the MR: ib_umem_release() knows an ODP umem */
	mr->umem = &odp->umem;
	mr->umem_odp = odp;
	/* the callback finds the MR under umem_mutex (NULL before) */
	mutex_lock(&odp->umem_mutex);
	odp->private = mr;
	mutex_unlock(&odp->umem_mutex);
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = 1U << odp->page_shift;
	return mr;

err_free_mr:
	sv_mr_free(mr);	/* gives the charge back */
	return ERR_PTR(err);
}

struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct sv_mr *mr;
	int err;

	err = sv_mr_check_udata(udata);
	if (err)
		return ERR_PTR(err);
	if (access & IB_ACCESS_ON_DEMAND) {
		err = sv_mr_check_access(sv, access, SV_MR_ACCESS_ODP);
		if (err)
			return ERR_PTR(err);
		mr = sv_mr_create_odp(sv, ibpd, start, length, iova, access);
		if (IS_ERR(mr))
			return ERR_CAST(mr);
		return sv_mr_publish(mr, SV_MR_VALID);
	}
	err = sv_mr_check_access(sv, access, SV_MR_ACCESS_USER);
	if (err)
		return ERR_PTR(err);
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
	if (!length || length > SV_MAX_MR_SIZE || offset + length < offset ||
	    iova + length - 1 < iova)
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
		new = sv_mr_create_odp(sv, pd, start, length, iova, new_access);
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

/* ---- prefetch (advise_mr) ------------------------------------------------ */

/* an asynchronous prefetch: its ranges, each with an MR reference */
struct sv_mr_prefetch {
	struct sv_odp_item	item;
	struct sv_dev		*sv;	/* counted in sv->num_prefetch */
	bool			write;
	bool			fault;
	u32			num;
	struct {
		struct sv_mr	*mr;
		u64		iova;
		u32		len;
	} r[];
};

/*
 * On the ODP thread of the MRs' context (one: the PD's).  An MR being
 * deregistered is not faulted: its dereg waits for our reference, and
 * kills the fault it finds us in (sv_odp_mr_wait()).
 */
static void sv_mr_prefetch_work(struct sv_odp_item *item)
{
	struct sv_mr_prefetch *pf = container_of(item, struct sv_mr_prefetch,
						 item);
	u32 i;

	for (i = 0; i < pf->num; i++) {
		struct sv_mr *mr = pf->r[i].mr;

		/* a hint: a range that cannot be mapped is left as it is */
		if (READ_ONCE(mr->state) == SV_MR_VALID) {
			sv_odp_using(mr, true);
			sv_mr_odp_fault(mr, pf->r[i].iova, pf->r[i].len,
					pf->write, pf->fault);
			sv_odp_using(mr, false);
		}
		sv_mr_put(mr);
		cond_resched();
	}
	sv_dev_count_put(&pf->sv->num_prefetch);
	kfree(pf);
}

/*
 * ibv_advise_mr(): map the pages of ODP MR ranges ahead of use.  PREFETCH
 * faults them for reading, PREFETCH_WRITE for writing, PREFETCH_NO_FAULT
 * maps only what is present in the process already.  Every SGE must name
 * an ODP MR of @ibpd by its L_Key (with local write for PREFETCH_WRITE)
 * and lie inside it: checked before anything is done, -EINVAL/-EACCES/
 * -ERANGE otherwise.  With IB_UVERBS_ADVISE_MR_FLAG_FLUSH the pages are
 * mapped when this returns (the first failure is returned); without it a
 * work item on the context's ODP thread (sv_odp.c) maps them, holding a
 * reference on each MR, or the
 * caller does when SV_MAX_ASYNC_PREFETCH are queued (a hint still: no error).
 */
int sv_mr_advise(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		 u32 flags, struct ib_sge *sg_list, u32 num_sge,
		 struct uverbs_attr_bundle *attrs)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct sv_mr_prefetch *pf;
	bool write, fault;
	int err = 0;
	u32 i;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
		write = false;
		fault = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		write = true;
		fault = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		write = false;
		fault = false;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;

	pf = kzalloc(struct_size(pf, r, num_sge), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	pf->sv = sv;
	pf->write = write;
	pf->fault = fault;
	for (i = 0; i < num_sge; i++) {
		u64 iova = sg_list[i].addr;
		struct sv_mr *mr;

		mr = sv_mr_lookup(sv, sg_list[i].lkey, ibpd, 0,
				  write ? IB_ACCESS_LOCAL_WRITE : 0, &iova,
				  sg_list[i].length);
		if (IS_ERR(mr)) {
			err = PTR_ERR(mr);
			goto err_put;
		}
		pf->r[pf->num].mr = mr;
		pf->r[pf->num].iova = iova;
		pf->r[pf->num].len = sg_list[i].length;
		pf->num++;
		if (mr->kind != SV_MR_ODP) {
			err = -EINVAL;
			goto err_put;
		}
	}

	/*
	 * Asynchronous unless asked to flush, or unless the device has its
	 * SV_MAX_ASYNC_PREFETCH queued already: then the caller does the
	 * work, and an asynchronous prefetch stays a hint (no error).
	 */
	if (!(flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) && pf->num &&
	    sv_dev_count_get(&sv->num_prefetch, SV_MAX_ASYNC_PREFETCH)) {
		sv_odp_item_init(&pf->item, sv_mr_prefetch_work);
		/* the MRs are the PD's: one context, one thread */
		sv_odp_queue(pf->r[0].mr, &pf->item);
		return 0;
	}
	for (i = 0; i < pf->num; i++) {
		int ret;

		/* a killed caller returns now, whatever is left */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		ret = sv_mr_odp_fault(pf->r[i].mr, pf->r[i].iova, pf->r[i].len,
				      write, fault);
		if (ret && !err)
			err = ret;
		cond_resched();
	}
	if (!(flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH))
		err = 0;
	/* done: the references go */

err_put:
	for (i = 0; i < pf->num; i++)
		sv_mr_put(pf->r[i].mr);
	kfree(pf);
	return err;
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
