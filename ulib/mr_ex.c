// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_reg_mr_ex (libibverbs 1.15): one registration call whose attribute
 * mask picks what ibv_reg_mr_iova2 and ibv_reg_dmabuf_mr each take, and the
 * DMA handles it may name.
 */
#include <errno.h>

#include "ulib.h"

#define KNOWN_MASK (IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR |	\
		    IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |	\
		    IBV_REG_MR_MASK_DMAH | IBV_REG_MR_MASK_BUF)

static void *fail(int err)
{
	errno = err;
	return NULL;
}

/*
 * A buffer of ibv_alloc_buf names memory of the process: the range must
 * lie inside it and be given by address, and the PD must be the one it
 * was allocated for.
 */
static int check_buf(struct ibv_pd *pd, const struct ibv_mr_init_attr *a)
{
	const struct ibv_buf *buf = a->buf;
	uintptr_t base, addr = (uintptr_t)a->addr;

	if (!buf || buf->pd != pd || !(a->comp_mask & IBV_REG_MR_MASK_ADDR) ||
	    (a->comp_mask & (IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET)))
		return EINVAL;
	base = (uintptr_t)buf->addr;
	if (addr < base || addr - base > buf->size ||
	    a->length > buf->size - (addr - base))
		return EINVAL;
	return 0;
}

/*
 * Fields are read only where comp_mask says they are valid: a program
 * built against rdma-core 59..63 passes a struct without buf.  Unknown
 * bits are EOPNOTSUPP (ibv_reg_mr_ex(3)); a DMA handle too, since none can
 * exist here (ibv_alloc_dmah below).  Address-based: ADDR, optionally
 * IOVA (else the address), never FD_OFFSET.  dma-buf: FD, FD_OFFSET and
 * IOVA, never ADDR.  The caller's struct is not written.
 */
SV_EXPORT struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
				       struct ibv_mr_init_attr *attr)
{
	uint64_t mask;
	int err;

	if (!pd || !attr)
		return fail(EINVAL);
	mask = attr->comp_mask;
	if ((mask & ~(uint64_t)KNOWN_MASK) || (mask & IBV_REG_MR_MASK_DMAH))
		return fail(EOPNOTSUPP);
	if (mask & IBV_REG_MR_MASK_BUF) {
		err = check_buf(pd, attr);
		if (err)
			return fail(err);
	}
	if (mask & IBV_REG_MR_MASK_FD) {
		if ((mask & IBV_REG_MR_MASK_ADDR) ||
		    !(mask & IBV_REG_MR_MASK_FD_OFFSET) ||
		    !(mask & IBV_REG_MR_MASK_IOVA))
			return fail(EINVAL);
		return ibv_reg_dmabuf_mr(pd, attr->fd_offset, attr->length,
					 attr->iova, attr->fd, attr->access);
	}
	if (!(mask & IBV_REG_MR_MASK_ADDR) || (mask & IBV_REG_MR_MASK_FD_OFFSET))
		return fail(EINVAL);
	return ibv_reg_mr_iova2(pd, attr->addr, attr->length,
				(mask & IBV_REG_MR_MASK_IOVA) ?
				attr->iova : (uintptr_t)attr->addr,
				(unsigned int)attr->access);
}

/*
 * DMA handles (TPH steering hints for an MR's DMA) are a kernel object of
 * ib_core 6.17+ (UVERBS_OBJECT_DMAH, methods DMAH_ALLOC/FREE) that a
 * driver opts into with an alloc_dmah op.  The kernels softverbs builds
 * for (6.1 to 6.12) have no such object, and softverbs does no DMA
 * steering, so there is nothing to allocate: EOPNOTSUPP, which is also
 * what libibverbs answers for a provider without alloc_dmah (librxe).
 */
SV_EXPORT struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
					  struct ibv_dmah_init_attr *attr)
{
	if (!context || !attr)
		return fail(EINVAL);
	return fail(EOPNOTSUPP);
}

/* No handle can come from ibv_alloc_dmah, so none is ours to free. */
SV_EXPORT int ibv_dealloc_dmah(struct ibv_dmah *dmah)
{
	errno = dmah ? EOPNOTSUPP : EINVAL;
	return errno;
}
