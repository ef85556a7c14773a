// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.  This version of softverbs does not offer CQs yet:
 * creation fails with -EOPNOTSUPP and query_device reports max_cq = 0, so
 * no CQ ever exists for the other operations to act on.
 */
#include "sv.h"

int sv_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 sv_create_cq_arg_t arg)
{
	return -EOPNOTSUPP;
}

int sv_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int sv_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

int sv_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}
