// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions.  This version of softverbs does not offer MRs yet:
 * registration fails with -EOPNOTSUPP and query_device reports max_mr = 0.
 */
#include "sv.h"

struct ib_mr *sv_mr_get_dma(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

int sv_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}
