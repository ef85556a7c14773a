/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pages of an ODP umem as ib_core keeps them, asked the same way on
 * every kernel: is page @idx (in units of the umem's page_shift) mapped,
 * with write rights, and at which kernel address.  Included by sv_mr.c.
 *
 * softverbs has no DMA device, so ib_core uses virtual DMA ops and never
 * maps anything for a device: a mapped page is a page of the process that
 * ib_core resolved and holds in the umem until the next invalidation.
 */
#ifndef SV_COMPAT_ODP_H
#define SV_COMPAT_ODP_H

#include <linux/mm.h>
#include <rdma/ib_umem_odp.h>

#include "compat.h"

#ifdef SV_HAVE_UMEM_ODP_HMM
#include <linux/hmm.h>

/*
 * The hmm pfn list (map.pfn_list): an entry with HMM_PFN_VALID is a page
 * of the process, HMM_PFN_WRITE if it may be written.  The access mask of
 * ib_umem_odp_map_dma_and_lock() is in the same bits: write asks for
 * HMM_PFN_WRITE, read is implied.
 */
#define SV_ODP_ACCESS_READ	0
#define SV_ODP_ACCESS_WRITE	HMM_PFN_WRITE

static inline bool sv_odp_page_mapped(struct ib_umem_odp *odp, u64 idx)
{
	return READ_ONCE(odp->map.pfn_list[idx]) & HMM_PFN_VALID;
}

/* the kernel address of page @idx, NULL if absent or not writable */
static inline void *sv_odp_page_va(struct ib_umem_odp *odp, u64 idx,
				   bool write)
{
	unsigned long pfn = READ_ONCE(odp->map.pfn_list[idx]);

	if (!(pfn & HMM_PFN_VALID) || (write && !(pfn & HMM_PFN_WRITE)))
		return NULL;
	/* ib_core requires !HIGHMEM for virtual DMA: always mapped */
	return page_address(hmm_pfn_to_page(pfn));
}

/*
 * Forget the pages of [@start, @end) (user addresses).  ib_core dirties
 * written pages only for the ones it DMA-mapped for a device, which it
 * never does with virtual DMA ops: dirty them here, as older kernels'
 * unmap did, or data written through the MR into a file-backed mapping
 * could be lost.  Under umem_mutex.
 */
static inline void sv_odp_unmap_pages(struct ib_umem_odp *odp, u64 start,
				      u64 end)
{
	u64 addr, idx;

	lockdep_assert_held(&odp->umem_mutex);
	for (addr = start; addr < end; addr += BIT(odp->page_shift)) {
		unsigned long pfn;

		idx = (addr - ib_umem_start(odp)) >> odp->page_shift;
		pfn = odp->map.pfn_list[idx];
		if ((pfn & (HMM_PFN_VALID | HMM_PFN_WRITE)) ==
		    (HMM_PFN_VALID | HMM_PFN_WRITE))
			set_page_dirty(compound_head(hmm_pfn_to_page(pfn)));
	}
	ib_umem_odp_unmap_dma_pages(odp, start, end);
}

/*
 * The access flags for ib_umem_odp_get().  IB_ACCESS_HUGETLB is a hint
 * softverbs may ignore (sv_mr.c), and is ignored here: with it ib_core
 * fills the pfn list per base page but clears it per huge page, so an
 * invalidated page would look present.  Base pages index both alike.
 */
static inline int sv_odp_umem_access(int access)
{
	return access & ~IB_ACCESS_HUGETLB;
}
#else
/*
 * dma_list: a mapped page's "DMA address" (its kernel address, with
 * virtual DMA ops) with ODP_READ_ALLOWED_BIT and ODP_WRITE_ALLOWED_BIT,
 * as asked of ib_umem_odp_map_dma_and_lock(), in the low bits; 0 when
 * absent.  ib_core's unmap dirties written pages itself.
 */
#define SV_ODP_ACCESS_READ	ODP_READ_ALLOWED_BIT
#define SV_ODP_ACCESS_WRITE	ODP_WRITE_ALLOWED_BIT

static inline bool sv_odp_page_mapped(struct ib_umem_odp *odp, u64 idx)
{
	return READ_ONCE(odp->dma_list[idx]);
}

static inline void *sv_odp_page_va(struct ib_umem_odp *odp, u64 idx,
				   bool write)
{
	dma_addr_t dma = READ_ONCE(odp->dma_list[idx]);

	if (!(dma & (write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT)))
		return NULL;
	return (void *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK);
}

static inline void sv_odp_unmap_pages(struct ib_umem_odp *odp, u64 start,
				      u64 end)
{
	ib_umem_odp_unmap_dma_pages(odp, start, end);
}

static inline int sv_odp_umem_access(int access)
{
	return access;
}
#endif

#endif /* SV_COMPAT_ODP_H */
