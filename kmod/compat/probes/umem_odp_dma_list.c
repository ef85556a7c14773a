// SPDX-License-Identifier: GPL-2.0
/*
 * struct ib_umem_odp keeps a dma_list with ODP_READ_ALLOWED_BIT and
 * ODP_WRITE_ALLOWED_BIT in the low bits (before the hmm pfn list)
 */
#include <rdma/ib_umem_odp.h>

bool sv_probe(struct ib_umem_odp *odp, size_t idx);
bool sv_probe(struct ib_umem_odp *odp, size_t idx)
{
	return odp->dma_list[idx] & (ODP_READ_ALLOWED_BIT |
				     ODP_WRITE_ALLOWED_BIT) & ~ODP_DMA_ADDR_MASK;
}
