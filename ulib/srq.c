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

	err = sv_ring_map(&srq->rq.ring, ctx->cmd_fd, &resp.drv.mi);
	if (err)
		goto err_destroy;
	if (!recv_slot_ok(&srq->rq.ring, resp.core.max_sge)) {
		err = EINVAL;
		goto err_unmap;
	}

	pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	srq->rq.max_sge = resp.core.max_sge;
	srq->srq_num = resp.drv.srq_num;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	srq->ibsrq.context = ctx;
	srq->ibsrq.srq_context = attr->srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = resp.core.srq_handle;
	/* the verbs API reports the granted sizes back */
	attr->attr.max_wr = resp.core.max_wr;
	attr->attr.max_sge = resp.core.max_sge;
	return &srq->ibsrq;

err_unmap:
	sv_ring_unmap(&srq->rq.ring);
err_destroy: {
	struct sv_cmd_destroy_srq dcmd = {
		.core.srq_handle = resp.core.srq_handle,
	};
	struct ib_uverbs_destroy_srq_resp dresp;

	SV_CMD(ctx->cmd_fd, DESTROY_SRQ, &dcmd, &dresp);
	}
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
 * SRQ may also name a CQ (IBV_SRQ_INIT_ATTR_CQ), which only XRC and tag
 * matching SRQs use: accepted and unused, as the kernel does for a basic
 * SRQ.  XRC and tag-matching SRQs are EOPNOTSUPP (no XRC in softverbs yet).
 */
struct ibv_srq *sv_srq_create_ex(struct ibv_context *ctx,
				 struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr ia;
	struct ibv_srq *srq;
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			       IBV_SRQ_INIT_ATTR_TM;

	if (attr->comp_mask & ~known) {
		errno = EINVAL;
		return NULL;
	}
	if (((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC) ||
	    (attr->comp_mask & (IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_TM))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	ia.srq_context = attr->srq_context;
	ia.attr = attr->attr;
	srq = sv_srq_create(attr->pd, &ia);
	if (srq)
		attr->attr = ia.attr;
	return srq;
}
