// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.reg_user_mr_dmabuf takes the udata (before 6.10) */
#include <rdma/ib_verbs.h>

static struct ib_mr *probe(struct ib_pd *pd, u64 offset, u64 length,
			   u64 virt_addr, int fd, int access,
			   struct ib_udata *udata)
{
	return NULL;
}

const struct ib_device_ops sv_probe_ops = { .reg_user_mr_dmabuf = probe };
