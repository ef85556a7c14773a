// SPDX-License-Identifier: GPL-2.0
/*
 * struct ib_umem_odp keeps its pages as hmm pfns (map.pfn_list, with
 * HMM_PFN_VALID and HMM_PFN_WRITE) and the DMA IOVA state in a struct
 * hmm_dma_map, instead of dma_list with ODP_*_ALLOWED_BIT in the low bits
 */
#include <linux/hmm.h>
#include <rdma/ib_umem_odp.h>

bool sv_probe(struct ib_umem_odp *odp, size_t idx);
bool sv_probe(struct ib_umem_odp *odp, size_t idx)
{
	return odp->map.pfn_list[idx] & (HMM_PFN_VALID | HMM_PFN_WRITE);
}
