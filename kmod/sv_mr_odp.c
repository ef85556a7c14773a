// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging, the memory side: an ODP MR's pages mapped when an
 * access needs them and unmapped when the process's mm changes them,
 * implicit MRs grown in chunks, the copies and atomics that use the
 * mapped pages, and prefetch (advise_mr).  The transport's side of a
 * fault is sv_odp.c.
 *
 * Documentation/design.md, "On-demand paging".
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>

#include "compat/sv_compat_odp.h"

#include "sv.h"
#include "sv_xport_obj.h"
#include "sv_mr.h"


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

int sv_mr_copy_odp(struct sv_mr *mr, u64 iova, void *buf, u32 len,
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

int sv_mr_atomic_odp(struct sv_mr *mr, u64 iova, enum sv_atomic_op op,
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

/*
 * The invalidation of an ODP umem: of an MR (its private is the MR) or,
 * with @chunk, of a chunk of an implicit MR (its private is the chunk).
 */
static bool sv_mr_odp_invalidate_umem(struct mmu_interval_notifier *mni,
				      const struct mmu_notifier_range *range,
				      unsigned long cur_seq, bool chunk)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct sv_odp_chunk *c;
	struct sv_mr *mr;

	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	if (chunk) {
		c = odp->private;
		if (c)
			sv_mr_odp_unmap(c->mr, odp, &c->inval_start,
					&c->inval_end, range);
	} else {
		mr = odp->private;
		/* NULL: not yet published, nothing was ever mapped */
		if (mr)
			sv_mr_odp_unmap(mr, odp, &mr->odp_inval_start,
					&mr->odp_inval_end, range);
	}
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static bool sv_mr_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	return sv_mr_odp_invalidate_umem(mni, range, cur_seq, false);
}

static bool sv_mr_odp_chunk_invalidate(struct mmu_interval_notifier *mni,
				       const struct mmu_notifier_range *range,
				       unsigned long cur_seq)
{
	return sv_mr_odp_invalidate_umem(mni, range, cur_seq, true);
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

/* ---- ODP MRs ------------------------------------------------------------ */

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
struct sv_mr *sv_mr_odp_create(struct sv_dev *sv, struct ib_pd *pd, u64 start,
			       u64 length, u64 iova, int access)
{
	struct ib_umem_odp *odp;
	struct sv_mr *mr;
	int err;

	if (!start && length == U64_MAX)
		return sv_mr_create_odp_implicit(sv, pd, iova, access);
	mr = sv_mr_alloc_extent(sv, pd, SV_MR_ODP, access, length, iova);
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

/* an ODP MR's own resources, before its umem goes (sv_mr_free()) */
void sv_mr_odp_release(struct sv_mr *mr)
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
