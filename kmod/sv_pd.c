// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.  A PD is only a tag shared by the objects it groups;
 * the check that a QP, MR, MW or AH belong to the same PD is done where
 * they meet (IBTA 10.2.3).
 */
#include "sv.h"

int sv_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);

	if (!sv_dev_count_get(&sv->num_pd, SV_MAX_PD)) {
		sv_dbg_dev(sv, "no more than %u PDs\n", SV_MAX_PD);
		return -ENOMEM;
	}
	return 0;
}

int sv_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);

	sv_dev_count_put(&sv->num_pd);
	return 0;
}
