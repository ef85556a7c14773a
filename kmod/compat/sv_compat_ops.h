/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_device_ops entries whose prototype changed in a way a typedef cannot
 * hide: a wrapper with the kernel's prototype around the one sv function.
 * Included by sv_dev.c (the ops table) only, after sv.h.
 */
#ifndef SV_COMPAT_OPS_H
#define SV_COMPAT_OPS_H

#include "compat.h"

/*
 * Resizing a CQ: ops.resize_cq(int) until ib_core resized only user CQs
 * through ops.resize_user_cq(unsigned int).  A count above INT_MAX is out
 * of range either way (sv_cq_resize() refuses it as it refuses a negative
 * one).
 */
#ifdef SV_HAVE_RESIZE_USER_CQ
static int sv_compat_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
			       struct ib_udata *udata)
{
	return sv_cq_resize(ibcq, min_t(unsigned int, cqe, INT_MAX), udata);
}

#define SV_OPS_RESIZE_CQ(fn)	.resize_user_cq = sv_compat_resize_cq
#else
#define SV_OPS_RESIZE_CQ(fn)	.resize_cq = (fn)
#endif

/*
 * User MRs may come with a DMA handle (struct ib_dmah: CPU affinity and
 * PCIe TPH hints for the device's DMA).  softverbs has no DMA device and
 * no ops.alloc_dmah, so uverbs never hands it one; refuse one anyway.
 */
#ifdef SV_HAVE_REG_USER_MR_DMAH
static struct ib_mr *sv_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
					   u64 length, u64 iova, int access,
					   struct ib_dmah *dmah,
					   struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return sv_mr_reg_user(ibpd, start, length, iova, access, udata);
}
#else
#define sv_compat_reg_user_mr	sv_mr_reg_user
#endif

#ifdef SV_HAVE_REG_DMABUF_DMAH
static struct ib_mr *sv_compat_reg_dmabuf(struct ib_pd *ibpd, u64 offset,
					  u64 length, u64 iova, int fd,
					  int access, struct ib_dmah *dmah,
					  struct uverbs_attr_bundle *attrs)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return sv_mr_reg_dmabuf(ibpd, offset, length, iova, fd, access, attrs);
}
#else
#define sv_compat_reg_dmabuf	sv_mr_reg_dmabuf
#endif

#endif /* SV_COMPAT_OPS_H */
