// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibv_alloc_buf and friends (libibverbs 1.17/1.18): memory the provider
 * chooses for a PD, to be registered with ibv_reg_buf_mr.  A provider
 * that needs special memory (a confidential-computing guest's DMA bounce
 * pages, device memory exported as a dma-buf) allocates it here; softverbs
 * needs none, so a buffer is page-aligned memory of the process, as
 * libibverbs' default gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "ulib.h"

SV_EXPORT void *ibv_alloc_buf(struct ibv_pd *pd, size_t size,
			      struct ibv_buf **buf)
{
	struct ibv_buf *b;
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int err;

	if (!pd || !size || !buf) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	err = posix_memalign(&p, page > 0 ? (size_t)page : 4096, size);
	if (err) {
		free(b);
		errno = err;
		return NULL;
	}
	b->addr = p;
	b->size = size;
	b->pd = pd;
	b->dmabuf_fd = -1;
	*buf = b;
	return p;
}

SV_EXPORT void ibv_free_buf(struct ibv_buf *buf)
{
	if (!buf)
		return;
	free(buf->addr);
	free(buf);
}

/* [addr, addr + length) of the buffer; ibv_reg_mr_ex checks the range. */
SV_EXPORT struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
					void *addr, size_t length, int access)
{
	struct ibv_mr_init_attr attr = {
		.length = length,
		.access = access,
		.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_BUF,
		.addr = addr,
		.buf = buf,
	};

	return ibv_reg_mr_ex(pd, &attr);
}

/*
 * A new descriptor of the dma-buf behind the buffer, or -1 with ENODATA
 * when there is none, as libibverbs answers; with softverbs there never
 * is (struct ibv_buf in ulib.h).
 */
SV_EXPORT int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf)
{
	if (!buf) {
		errno = EINVAL;
		return -1;
	}
	if (buf->dmabuf_fd < 0) {
		errno = ENODATA;
		return -1;
	}
	return fcntl(buf->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
}
