// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  The SRQ is a ring of struct sv_recv_wqe we
 * produce into (ibv_post_srq_recv is a memory operation); CREATE_SRQ's rxe
 * driver response says where to mmap it.  MODIFY_SRQ with IBV_SRQ_MAX_WR
 * resizes it: the rxe driver request carries the address where the kernel
 * writes the new ring's struct sv_mmap_info, and we switch mappings while
 * holding the SRQ lock so no poster writes into the old ring meanwhile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"

static bool recv_slot_ok(const struct sv_ring *r, uint32_t max_sge)
{
	return sv_ring_elem_size(r) >= offsetof(struct sv_recv_wqe, dma.sge) +
				       (size_t)max_sge * sizeof(struct sv_sge);
}

/*
 * The part of creating an SRQ after the kernel made it: map the ring the
 * driver response describes and fill in the verbs object.  On failure the
 * kernel object is destroyed; 0 or a positive errno.
 */
static int srq_setup(struct sv_srq *srq, struct ibv_pd *pd,
		     const struct ib_uverbs_create_srq_resp *core,
		     const struct sv_create_srq_resp *drv, void *srq_context)
{
	struct ibv_context *ctx = pd->context;
	int err;

	err = sv_ring_map(&srq->rq.ring, ctx->cmd_fd, &drv->mi);
	if (err)
		goto err_destroy;
	if (!recv_slot_ok(&srq->rq.ring, core->max_sge)) {
		err = EINVAL;
		goto err_unmap;
	}

	pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	srq->rq.max_sge = core->max_sge;
	srq->srq_num = drv->srq_num;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	srq->ibsrq.context = ctx;
	srq->ibsrq.srq_context = srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = core->srq_handle;
	return 0;

err_unmap:
	sv_ring_unmap(&srq->rq.ring);
err_destroy: {
	struct sv_cmd_destroy_srq dcmd = {
		.core.srq_handle = core->srq_handle,
	};
	struct ib_uverbs_destroy_srq_resp dresp;

	SV_CMD(ctx->cmd_fd, DESTROY_SRQ, &dcmd, &dresp);
	}
	return err;
}

struct ibv_srq *sv_srq_create(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_context *ctx = pd->context;
	struct sv_cmd_create_srq cmd = {};
	struct sv_resp_create_srq resp;
	struct sv_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.user_handle = (uintptr_t)&srq->ibsrq;
	cmd.core.pd_handle = pd->handle;
	cmd.core.max_wr = attr->attr.max_wr;
	cmd.core.max_sge = attr->attr.max_sge;
	cmd.core.srq_limit = attr->attr.srq_limit;
	err = SV_CMD(ctx->cmd_fd, CREATE_SRQ, &cmd, &resp);
	if (err)
		goto err_free;
	err = srq_setup(srq, pd, &resp.core, &resp.drv, attr->srq_context);
	if (err)
		goto err_free;
	/* the verbs API reports the granted sizes back */
	attr->attr.max_wr = resp.core.max_wr;
	attr->attr.max_sge = resp.core.max_sge;
	return &srq->ibsrq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * An XRC SRQ (IBTA Annex A14): CREATE_XSRQ names the XRC domain and the CQ
 * its receive completions go to; the ring is a basic SRQ's.  Its number
 * (ibv_get_srq_num) is what XRC initiators put in their work requests.
 */
static struct ibv_srq *srq_create_xrc(struct ibv_context *ctx,
				      struct ibv_srq_init_attr_ex *attr)
{
	struct sv_cmd_create_xsrq cmd = {};
	struct sv_resp_create_srq resp;
	struct sv_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.user_handle = (uintptr_t)&srq->ibsrq;
	cmd.core.srq_type = IB_UVERBS_SRQT_XRC;
	cmd.core.pd_handle = attr->pd->handle;
	cmd.core.max_wr = attr->attr.max_wr;
	cmd.core.max_sge = attr->attr.max_sge;
	cmd.core.srq_limit = attr->attr.srq_limit;
	cmd.core.xrcd_handle = to_sv_xrcd(attr->xrcd)->handle;
	cmd.core.cq_handle = attr->cq->handle;
	err = SV_CMD(ctx->cmd_fd, CREATE_XSRQ, &cmd, &resp);
	if (err)
		goto err_free;
	err = srq_setup(srq, attr->pd, &resp.core, &resp.drv,
			attr->srq_context);
	if (err)
		goto err_free;
	srq->xrcd = attr->xrcd;
	srq->cq = attr->cq;
	attr->attr.max_wr = resp.core.max_wr;
	attr->attr.max_sge = resp.core.max_sge;
	return &srq->ibsrq;

err_free:
	free(srq);
	errno = err;
	return NULL;
}

int sv_srq_modify(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct sv_srq *srq = to_sv_srq(ibsrq);
	struct sv_mmap_info mi = {};
	struct sv_cmd_modify_srq cmd = {
		.core.srq_handle = ibsrq->handle,
		.core.attr_mask = (uint32_t)mask,
		.core.max_wr = attr->max_wr,
		.core.srq_limit = attr->srq_limit,
		.drv.mmap_info_addr = (uintptr_t)&mi,
	};
	bool resize = mask & IBV_SRQ_MAX_WR;
	struct sv_ring ring;
	int err;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	if (resize)
		pthread_spin_lock(&srq->rq.lock);
	err = sv_cmd_write(ibsrq->context->cmd_fd, IB_USER_VERBS_CMD_MODIFY_SRQ,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err || !resize)
		goto out;

	err = sv_ring_map(&ring, ibsrq->context->cmd_fd, &mi);
	if (!err && !recv_slot_ok(&ring, srq->rq.max_sge)) {
		sv_ring_unmap(&ring);
		err = EINVAL;
	}
	/*
	 * On failure the kernel already uses a ring we cannot reach: posts
	 * fail (EIO) from now on.
	 */
	sv_ring_unmap(&srq->rq.ring);
	if (!err)
		srq->rq.ring = ring;
out:
	if (resize)
		pthread_spin_unlock(&srq->rq.lock);
	return err;
}

int sv_srq_query(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct sv_cmd_query_srq cmd = { .core.srq_handle = ibsrq->handle };
	struct ib_uverbs_query_srq_resp resp;
	int err;

	err = SV_CMD(ibsrq->context->cmd_fd, QUERY_SRQ, &cmd, &resp);
	if (err)
		return err;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}

int sv_srq_destroy(struct ibv_srq *ibsrq)
{
	struct sv_srq *srq = to_sv_srq(ibsrq);
	struct sv_cmd_destroy_srq cmd = { .core.srq_handle = ibsrq->handle };
	struct ib_uverbs_destroy_srq_resp resp;
	int err;

	err = SV_CMD(ibsrq->context->cmd_fd, DESTROY_SRQ, &cmd, &resp);
	if (err)
		return err;	/* still attached to a QP (EBUSY) */

	pthread_mutex_lock(&ibsrq->mutex);
	while (ibsrq->events_completed != resp.events_reported)
		pthread_cond_wait(&ibsrq->cond, &ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);

	sv_ring_unmap(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	pthread_mutex_destroy(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	free(srq);
	return 0;
}

int sv_srq_post_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	return sv_wq_post_recv(&to_sv_srq(ibsrq)->rq, wr, bad_wr);
}

/*
 * ibv_create_srq_ex: verbs.h itself routes a basic SRQ with only a PD (and
 * type BASIC) to ibv_create_srq; what reaches us asks for more.  A basic
 * SRQ may also name a CQ or a domain (IBV_SRQ_INIT_ATTR_CQ, _XRCD), which
 * only XRC and tag matching SRQs use: accepted and unused, as the kernel
 * does for a basic SRQ.  An XRC SRQ needs its PD, domain and CQ, all of this context (the
 * kernel checks the handles, but a pointer of another context would hand
 * it a foreign handle that may happen to be valid here).  Tag-matching
 * SRQs are EOPNOTSUPP.
 */
struct ibv_srq *sv_srq_create_ex(struct ibv_context *ctx,
				 struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr ia;
	struct ibv_srq *srq;
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			       IBV_SRQ_INIT_ATTR_TM;
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & ~known) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if ((type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) ||
	    (attr->comp_mask & IBV_SRQ_INIT_ATTR_TM)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	if (type == IBV_SRQT_XRC) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
		    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ||
		    !attr->xrcd || attr->xrcd->context != ctx ||
		    !attr->cq || attr->cq->context != ctx) {
			errno = EINVAL;
			return NULL;
		}
		return srq_create_xrc(ctx, attr);
	}
	ia.srq_context = attr->srq_context;
	ia.attr = attr->attr;
	srq = sv_srq_create(attr->pd, &ia);
	if (srq)
		attr->attr = ia.attr;
	return srq;
}

/*
 * ibv_get_srq_num: the number the kernel gave the SRQ (every softverbs
 * SRQ has one; only an XRC SRQ's is named on the wire).
 */
int sv_srq_get_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_sv_srq(ibsrq)->srq_num;
	return 0;
}
