// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs.  This version of softverbs does not offer QPs yet: creation
 * fails with -EOPNOTSUPP and query_device reports max_qp = 0, so no QP
 * ever exists for the other operations to act on.
 */
#include "sv.h"

int sv_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		 struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int sv_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int sv_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int sv_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

int sv_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}
