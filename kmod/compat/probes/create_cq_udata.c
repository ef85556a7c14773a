// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.create_cq takes the udata (before 6.10) */
#include <rdma/ib_verbs.h>

static int probe(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		 struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops sv_probe_ops = { .create_cq = probe };
