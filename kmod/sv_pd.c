// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.  A PD is mostly a tag shared by the objects it
 * groups; the check that a QP, MR, MW or AH belong to the same PD is done
 * where they meet (IBTA 10.2.3).  It also lists its UD QPs, so that an
 * AH's destroy can let the sends already rung in through them go out
 * first (sv_pd_ud_linger()).
 */
#include "sv.h"
#include "sv_xport.h"

/* how long destroy_ah waits, in all, for the PD's UD senders */
#define SV_PD_LINGER_MS		200

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

/* A UD or GSI QP joins its PD's list (create_qp, before it is published). */
void sv_pd_ud_add(struct sv_qp *qp)
{
	struct sv_pd *pd = to_sv_pd(qp->ibqp.pd);

	mutex_lock(&pd->ud_lock);
	list_add_tail(&qp->pd_entry, &pd->ud_qps);
	mutex_unlock(&pd->ud_lock);
}

/* ... and leaves it first thing in destroy_qp (or create's unwind). */
void sv_pd_ud_del(struct sv_qp *qp)
{
	struct sv_pd *pd = to_sv_pd(qp->ibqp.pd);

	mutex_lock(&pd->ud_lock);
	list_del(&qp->pd_entry);
	mutex_unlock(&pd->ud_lock);
}

/*
 * Before an AH of @ibpd is destroyed: a UD WQE names its AH by number and
 * the requester looks it up when it builds the packet, which may be after
 * the poster's next system calls when the run was deferred to a busy
 * CPU (sv_req_sched()).  A NIC fetched the address vector at the
 * doorbell, and programs destroy the AH right after posting unsignaled
 * sends (mckey's sender), so each of the PD's UD QPs first gets its
 * deferred run done (sv_req_linger()), within one time bound for all:
 * the QPs are the caller's own, and one that keeps ringing cannot hold
 * the destroy.  Process context.
 */
void sv_pd_ud_linger(struct ib_pd *ibpd)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(SV_PD_LINGER_MS);
	struct sv_pd *pd = to_sv_pd(ibpd);
	struct sv_qp *qp;

	mutex_lock(&pd->ud_lock);
	list_for_each_entry(qp, &pd->ud_qps, pd_entry)
		sv_req_linger(qp, deadline);
	mutex_unlock(&pd->ud_lock);
}
