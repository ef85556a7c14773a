// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.  A PD is mostly a tag shared by the objects it
 * groups; the check that a QP, MR, MW or AH belong to the same PD is done
 * where they meet (IBTA 10.2.3).  It also holds the list of its UD QPs
 * that the requester keeps for an AH's destroy (sv_req_ah_linger()).
 */
#include "sv.h"

int sv_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);
	struct sv_pd *pd = to_sv_pd(ibpd);

	if (!sv_dev_count_get(&sv->num_pd, SV_MAX_PD)) {
		sv_dbg_dev(sv, "no more than %u PDs\n", SV_MAX_PD);
		return -ENOMEM;
	}
	mutex_init(&pd->ud_lock);
	INIT_LIST_HEAD(&pd->ud_qps);
	return 0;
}

int sv_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibpd->device);

	/* ib_core destroys a PD only once no QP uses it: ud_qps is empty */
	mutex_destroy(&to_sv_pd(ibpd)->ud_lock);
	sv_dev_count_put(&sv->num_pd);
	return 0;
}
