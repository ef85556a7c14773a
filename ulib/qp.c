// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation (CREATE_QP + mmap of the SQ and, without an SRQ,
 * the RQ from the rxe driver response), modify/query/destroy, and the data
 * path: ibv_post_send writes WQEs into the mapped SQ and then rings the
 * doorbell, a POST_SEND command with wr_count 0 (the Soft-RoCE ABI: the
 * kernel's post_send of a user QP just schedules the requester, which
 * reads the ring); ibv_post_recv only writes the RQ ring (the responder
 * reads it when a packet arrives).
 *
 * Locking: sq.lock serialises senders (and ssn), rq.lock receivers, so
 * post_send, post_recv and poll_cq may run concurrently from different
 * threads, as the verbs API allows.  An extended QP's wr_start holds
 * sq.lock until wr_complete/wr_abort (qp_ex.c), so ibv_post_send and
 * ibv_wr_* batches from different threads interleave whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"
#include "include/softverbs.h"

/* ------------------------------------------------------------------ */
/* Create and destroy                                                  */

static void destroy_kernel_qp(int fd, uint32_t handle)
{
	struct sv_cmd_destroy_qp cmd = { .core.qp_handle = handle };
	struct ib_uverbs_destroy_qp_resp resp;

	SV_CMD(fd, DESTROY_QP, &cmd, &resp);
}

/* Check the SQ slot holds what the kernel granted; clamp inline to it. */
static int sq_fit(struct sv_qp *qp, uint32_t max_sge, uint32_t max_inline)
{
	const size_t fixed = offsetof(struct sv_send_wqe, dma.sge);
	size_t elem = sv_ring_elem_size(&qp->sq.ring);

	if (elem < fixed + (size_t)max_sge * sizeof(struct sv_sge))
		return EINVAL;
	qp->sq.max_sge = max_sge;
	qp->sq.max_inline = max_inline;
	if (qp->sq.max_inline > elem - fixed)
		qp->sq.max_inline = (uint32_t)(elem - fixed);
	return 0;
}

static int rq_fit(struct sv_qp *qp, uint32_t max_sge)
{
	size_t elem = sv_ring_elem_size(&qp->rq.ring);

	if (elem < offsetof(struct sv_recv_wqe, dma.sge) +
		   (size_t)max_sge * sizeof(struct sv_sge))
		return EINVAL;
	qp->rq.max_sge = max_sge;
	return 0;
}

struct sv_qp *sv_qp_create_common(struct ibv_pd *pd,
				  struct ibv_qp_init_attr *attr)
{
	struct ibv_context *ctx = pd->context;
	struct sv_cmd_create_qp cmd = {};
	struct sv_resp_create_qp resp;
	struct ibv_pd *owner;
	struct sv_qp *qp;
	int err;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		if (!attr->recv_cq) {
			errno = EINVAL;
			return NULL;
		}
		break;
	case IBV_QPT_XRC_SEND:
		/*
		 * An XRC sender (IBTA A14) has a send queue only: the kernel
		 * takes no receive caps, SRQ or receive CQ for it.
		 */
		if (attr->srq) {
			errno = EINVAL;
			return NULL;
		}
		break;
	default:
		/* raw packet QPs have no rxe ring layout */
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->send_cq) {
		errno = EINVAL;
		return NULL;
	}
	qp = sv_obj_alloc(pd, sizeof(*qp), SOFTVERBS_RES_TYPE_QP, &owner);
	if (!qp)
		return NULL;
	qp->alloc_pd = owner;

	cmd.core.user_handle = (uintptr_t)&qp->ibqp;
	cmd.core.pd_handle = pd->handle;
	cmd.core.send_cq_handle = attr->send_cq->handle;
	cmd.core.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle :
						  attr->send_cq->handle;
	cmd.core.srq_handle = attr->srq ? attr->srq->handle : 0;
	cmd.core.max_send_wr = attr->cap.max_send_wr;
	cmd.core.max_recv_wr = attr->cap.max_recv_wr;
	cmd.core.max_send_sge = attr->cap.max_send_sge;
	cmd.core.max_recv_sge = attr->cap.max_recv_sge;
	cmd.core.max_inline_data = attr->cap.max_inline_data;
	cmd.core.sq_sig_all = attr->sq_sig_all ? 1 : 0;
	cmd.core.qp_type = (uint8_t)attr->qp_type;	/* IBV_QPT_ == IB_QPT_ */
	cmd.core.is_srq = attr->srq ? 1 : 0;
	err = SV_CMD(ctx->cmd_fd, CREATE_QP, &cmd, &resp);
	if (err)
		goto err_free;

	err = sv_ring_map(&qp->sq.ring, ctx->cmd_fd, &resp.drv.sq_mi);
	if (err)
		goto err_destroy;
	err = sq_fit(qp, resp.core.max_send_sge, resp.core.max_inline_data);
	if (err)
		goto err_unmap_sq;
	if (!attr->srq && attr->qp_type != IBV_QPT_XRC_SEND) {
		err = sv_ring_map(&qp->rq.ring, ctx->cmd_fd, &resp.drv.rq_mi);
		if (err)
			goto err_unmap_sq;
		err = rq_fit(qp, resp.core.max_recv_sge);
		if (err)
			goto err_unmap_rq;
	}

	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	qp->ibqp.context = ctx;
	qp->ibqp.qp_context = attr->qp_context;
	qp->ibqp.pd = pd;
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->qp_type == IBV_QPT_XRC_SEND ? NULL :
							     attr->recv_cq;
	qp->ibqp.srq = attr->srq;
	qp->ibqp.handle = resp.core.qp_handle;
	qp->ibqp.qp_num = resp.core.qpn;
	qp->ibqp.state = IBV_QPS_RESET;
	qp->ibqp.qp_type = attr->qp_type;

	/* the verbs API reports the granted capabilities back */
	attr->cap.max_send_wr = resp.core.max_send_wr;
	attr->cap.max_recv_wr = resp.core.max_recv_wr;
	attr->cap.max_send_sge = resp.core.max_send_sge;
	attr->cap.max_recv_sge = resp.core.max_recv_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	return qp;

err_unmap_rq:
	sv_ring_unmap(&qp->rq.ring);
err_unmap_sq:
	sv_ring_unmap(&qp->sq.ring);
err_destroy:
	destroy_kernel_qp(ctx->cmd_fd, resp.core.qp_handle);
err_free:
	sv_obj_free(owner, qp, SOFTVERBS_RES_TYPE_QP);
	errno = err;
	return NULL;
}

/*
 * An XRC receive QP (IBTA A14, the kernel's XRC_TGT): CREATE_QP with the
 * domain's handle where the PD's goes; no PD, CQ, queue or ring.  The
 * kernel keeps the QP while any process has it open (ibv_open_qp) and gives
 * each creator or opener its own handle: this one destroys only its own.
 */
static struct sv_qp *qp_xrc_recv_init(struct ibv_context *ctx,
				      uint32_t handle, uint32_t qpn,
				      void *qp_context)
{
	struct sv_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	qp->ibqp.context = ctx;
	qp->ibqp.qp_context = qp_context;
	qp->ibqp.handle = handle;
	qp->ibqp.qp_num = qpn;
	qp->ibqp.state = IBV_QPS_RESET;
	qp->ibqp.qp_type = IBV_QPT_XRC_RECV;
	return qp;
}

struct ibv_qp *sv_qp_create_xrc_recv(struct ibv_context *ctx,
				     struct ibv_qp_init_attr_ex *attr)
{
	struct sv_cmd_create_qp cmd = {};
	struct sv_resp_create_qp resp;
	struct sv_qp *qp;
	int err;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
	    attr->xrcd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	cmd.core.user_handle = 0;	/* set below, once qp exists */
	cmd.core.pd_handle = to_sv_xrcd(attr->xrcd)->handle;
	cmd.core.qp_type = IBV_QPT_XRC_RECV;	/* == IB_UVERBS_QPT_XRC_TGT */
	cmd.core.sq_sig_all = attr->sq_sig_all ? 1 : 0;
	qp = qp_xrc_recv_init(ctx, 0, 0, attr->qp_context);
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.user_handle = (uintptr_t)&qp->ibqp;
	err = SV_CMD(ctx->cmd_fd, CREATE_QP, &cmd, &resp);
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->ibqp.handle = resp.core.qp_handle;
	qp->ibqp.qp_num = resp.core.qpn;
	memset(&attr->cap, 0, sizeof(attr->cap));
	return &qp->ibqp;
}

/*
 * ibv_open_qp: a handle of this process on an XRC receive QP another
 * process (or this one) created in a domain this process has open.
 */
struct ibv_qp *sv_qp_open(struct ibv_context *ctx,
			  struct ibv_qp_open_attr *attr)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct sv_cmd_open_qp cmd = {};
	struct ib_uverbs_create_qp_resp resp;
	struct sv_qp *qp;
	int err;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & need) != need || !attr->xrcd ||
	    attr->xrcd->context != ctx || attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = qp_xrc_recv_init(ctx, 0, attr->qp_num,
			      attr->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT ?
			      attr->qp_context : NULL);
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.user_handle = (uintptr_t)&qp->ibqp;
	cmd.core.pd_handle = to_sv_xrcd(attr->xrcd)->handle;
	cmd.core.qpn = attr->qp_num;
	cmd.core.qp_type = IBV_QPT_XRC_RECV;
	err = SV_CMD(ctx->cmd_fd, OPEN_QP, &cmd, &resp);
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->ibqp.handle = resp.qp_handle;
	qp->ibqp.qp_num = resp.qpn;
	return &qp->ibqp;
}

struct ibv_qp *sv_qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct sv_qp *qp = sv_qp_create_common(pd, attr);

	return qp ? &qp->ibqp : NULL;
}

int sv_qp_destroy(struct ibv_qp *ibqp)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_cmd_destroy_qp cmd = { .core.qp_handle = ibqp->handle };
	struct ib_uverbs_destroy_qp_resp resp;
	int err;

	err = SV_CMD(ibqp->context->cmd_fd, DESTROY_QP, &cmd, &resp);
	if (err)
		return err;

	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != resp.events_reported)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);

	sv_ring_unmap(&qp->rq.ring);
	sv_ring_unmap(&qp->sq.ring);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_mutex_destroy(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	sv_qp_ex_free(qp);
	sv_obj_free(qp->alloc_pd, qp, SOFTVERBS_RES_TYPE_QP);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Modify and query                                                    */

static void dest_from_ah_attr(struct ib_uverbs_qp_dest *d,
			      const struct ibv_ah_attr *a)
{
	memcpy(d->dgid, a->grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = a->grh.flow_label;
	d->dlid = a->dlid;
	d->sgid_index = a->grh.sgid_index;
	d->hop_limit = a->grh.hop_limit;
	d->traffic_class = a->grh.traffic_class;
	d->sl = a->sl;
	d->src_path_bits = a->src_path_bits;
	d->static_rate = a->static_rate;
	d->is_global = a->is_global;
	d->port_num = a->port_num;
}

static void ah_attr_from_dest(struct ibv_ah_attr *a,
			      const struct ib_uverbs_qp_dest *d)
{
	memcpy(a->grh.dgid.raw, d->dgid, sizeof(d->dgid));
	a->grh.flow_label = d->flow_label;
	a->dlid = d->dlid;
	a->grh.sgid_index = d->sgid_index;
	a->grh.hop_limit = d->hop_limit;
	a->grh.traffic_class = d->traffic_class;
	a->sl = d->sl;
	a->src_path_bits = d->src_path_bits;
	a->static_rate = d->static_rate;
	a->is_global = d->is_global;
	a->port_num = d->port_num;
}

int sv_qp_modify(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct sv_cmd_modify_qp cmd = {};
	struct ib_uverbs_modify_qp *c = &cmd.core;
	int err;

	/*
	 * The legacy MODIFY_QP carries attributes up to IBV_QP_DEST_QPN;
	 * IBV_QP_RATE_LIMIT needs the extended command, which rxe lacks.
	 */
	if ((unsigned int)mask & ~((unsigned int)IBV_QP_RATE_LIMIT - 1))
		return EOPNOTSUPP;

	dest_from_ah_attr(&c->dest, &attr->ah_attr);
	dest_from_ah_attr(&c->alt_dest, &attr->alt_ah_attr);
	c->qp_handle = ibqp->handle;
	c->attr_mask = (uint32_t)mask;
	c->qkey = attr->qkey;
	c->rq_psn = attr->rq_psn;
	c->sq_psn = attr->sq_psn;
	c->dest_qp_num = attr->dest_qp_num;
	c->qp_access_flags = (uint32_t)attr->qp_access_flags;
	c->pkey_index = attr->pkey_index;
	c->alt_pkey_index = attr->alt_pkey_index;
	c->qp_state = (uint8_t)attr->qp_state;
	c->cur_qp_state = (uint8_t)attr->cur_qp_state;
	c->path_mtu = (uint8_t)attr->path_mtu;
	c->path_mig_state = (uint8_t)attr->path_mig_state;
	c->en_sqd_async_notify = attr->en_sqd_async_notify;
	c->max_rd_atomic = attr->max_rd_atomic;
	c->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	c->min_rnr_timer = attr->min_rnr_timer;
	c->port_num = attr->port_num;
	c->timeout = attr->timeout;
	c->retry_cnt = attr->retry_cnt;
	c->rnr_retry = attr->rnr_retry;
	c->alt_port_num = attr->alt_port_num;
	c->alt_timeout = attr->alt_timeout;

	err = sv_cmd_write(ibqp->context->cmd_fd, IB_USER_VERBS_CMD_MODIFY_QP,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;
	if (mask & IBV_QP_STATE) {
		ibqp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET) {
			if (ibqp->recv_cq)
				sv_cq_clean(ibqp->recv_cq, ibqp->qp_num);
			if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
				sv_cq_clean(ibqp->send_cq, ibqp->qp_num);
		}
	}
	return 0;
}

int sv_qp_query(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		struct ibv_qp_init_attr *init)
{
	struct sv_cmd_query_qp cmd = {
		.core.qp_handle = ibqp->handle,
		.core.attr_mask = (uint32_t)mask,
	};
	struct ib_uverbs_query_qp_resp r;
	int err;

	err = SV_CMD(ibqp->context->cmd_fd, QUERY_QP, &cmd, &r);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	attr->qkey = r.qkey;
	attr->rq_psn = r.rq_psn;
	attr->sq_psn = r.sq_psn;
	attr->dest_qp_num = r.dest_qp_num;
	attr->qp_access_flags = (int)r.qp_access_flags;
	attr->pkey_index = r.pkey_index;
	attr->alt_pkey_index = r.alt_pkey_index;
	attr->qp_state = (enum ibv_qp_state)r.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)r.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)r.path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)r.path_mig_state;
	attr->sq_draining = r.sq_draining;
	attr->max_rd_atomic = r.max_rd_atomic;
	attr->max_dest_rd_atomic = r.max_dest_rd_atomic;
	attr->min_rnr_timer = r.min_rnr_timer;
	attr->port_num = r.port_num;
	attr->timeout = r.timeout;
	attr->retry_cnt = r.retry_cnt;
	attr->rnr_retry = r.rnr_retry;
	attr->alt_port_num = r.alt_port_num;
	attr->alt_timeout = r.alt_timeout;
	attr->cap.max_send_wr = r.max_send_wr;
	attr->cap.max_recv_wr = r.max_recv_wr;
	attr->cap.max_send_sge = r.max_send_sge;
	attr->cap.max_recv_sge = r.max_recv_sge;
	attr->cap.max_inline_data = r.max_inline_data;
	ah_attr_from_dest(&attr->ah_attr, &r.dest);
	ah_attr_from_dest(&attr->alt_ah_attr, &r.alt_dest);

	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_context = ibqp->qp_context;
		init->send_cq = ibqp->send_cq;
		init->recv_cq = ibqp->recv_cq;
		init->srq = ibqp->srq;
		init->qp_type = ibqp->qp_type;
		init->cap = attr->cap;
		init->sq_sig_all = r.sq_sig_all;
	}
	/* The kernel may have moved the QP (e.g. to ERR) on its own. */
	ibqp->state = attr->qp_state;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Data path                                                           */

/* The doorbell: POST_SEND with no WRs makes the kernel read the SQ ring. */
int sv_qp_ring_doorbell(struct ibv_qp *ibqp)
{
	struct sv_cmd_post_send cmd = {
		.core.qp_handle = ibqp->handle,
		.core.wr_count = 0,
		.core.sge_count = 0,
		/* uverbs rejects a WR size below its own struct, even for 0 WRs */
		.core.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	struct ib_uverbs_post_send_resp resp;

	return SV_CMD(ibqp->context->cmd_fd, POST_SEND, &cmd, &resp);
}

int sv_qp_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_sq_limits lim;
	uint32_t prod, room, posted = 0;
	int err = 0, db_err;

	if (!bad_wr)
		return EINVAL;
	*bad_wr = NULL;
	/* an XRC receive QP has no send queue (IBTA A14) */
	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		*bad_wr = wr;
		return EINVAL;
	}
	/* IBTA 10.3.1: send WRs posted in RESET, INIT or RTR are errors */
	switch (ibqp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	default:
		break;
	}

	pthread_spin_lock(&qp->sq.lock);
	lim.qp_type = ibqp->qp_type;
	lim.max_sge = qp->sq.max_sge;
	lim.max_inline = qp->sq.max_inline;
	lim.slot_size = sv_ring_elem_size(&qp->sq.ring);
	prod = sv_ring_load_prod_own(&qp->sq.ring);
	room = sv_ring_room(&qp->sq.ring, prod);	/* acquire */
	for (; wr; wr = wr->next) {
		if (posted == room) {
			err = ENOMEM;	/* SQ full: as librxe and mlx5 say */
			break;
		}
		err = sv_wqe_encode_send(sv_ring_slot(&qp->sq.ring,
						      prod + posted),
					 &lim, wr, qp->ssn);
		if (err)
			break;
		qp->ssn++;
		posted++;
	}
	if (posted)
		sv_ring_publish_prod(&qp->sq.ring, prod + posted); /* release */
	pthread_spin_unlock(&qp->sq.lock);
	if (err)
		*bad_wr = wr;

	if (!posted)
		return err;
	/*
	 * The WQEs before bad_wr are in the ring whatever the doorbell says:
	 * they will be processed at the next doorbell.  A doorbell failure is
	 * reported (errno of the command) with bad_wr NULL when all were
	 * written.
	 */
	db_err = sv_qp_ring_doorbell(ibqp);
	return err ? err : db_err;
}

/* One FLUSH or ATOMIC WRITE (softverbs.h), posted like ibv_post_send(). */
int sv_qp_post_mpe(struct ibv_qp *ibqp, const struct sv_mpe_wr *wr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_sq_limits lim;
	uint32_t prod;
	int err;

	switch (ibqp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return EINVAL;	/* IBTA 10.3.1, as in sv_qp_post_send() */
	default:
		break;
	}
	pthread_spin_lock(&qp->sq.lock);
	lim.qp_type = ibqp->qp_type;
	lim.max_sge = qp->sq.max_sge;
	lim.max_inline = qp->sq.max_inline;
	lim.slot_size = sv_ring_elem_size(&qp->sq.ring);
	prod = sv_ring_load_prod_own(&qp->sq.ring);
	if (!sv_ring_room(&qp->sq.ring, prod))		/* acquire */
		err = ENOMEM;
	else
		err = sv_wqe_encode_mpe(sv_ring_slot(&qp->sq.ring, prod), &lim,
					wr, qp->ssn);
	if (!err) {
		qp->ssn++;
		sv_ring_publish_prod(&qp->sq.ring, prod + 1);	/* release */
	}
	pthread_spin_unlock(&qp->sq.lock);
	return err ? err : sv_qp_ring_doorbell(ibqp);
}

int sv_wq_post_recv(struct sv_wq *wq, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	uint32_t prod, room, posted = 0;
	size_t slot_size;
	int err = 0;

	if (!bad_wr)
		return EINVAL;
	*bad_wr = NULL;
	pthread_spin_lock(&wq->lock);
	if (!wq->ring.buf) {
		err = EIO;	/* lost in a failed SRQ resize */
		goto out;
	}
	slot_size = sv_ring_elem_size(&wq->ring);
	prod = sv_ring_load_prod_own(&wq->ring);
	room = sv_ring_room(&wq->ring, prod);		/* acquire */
	for (; wr; wr = wr->next) {
		if (posted == room) {
			err = ENOMEM;
			break;
		}
		err = sv_wqe_encode_recv(sv_ring_slot(&wq->ring, prod + posted),
					 slot_size, wq->max_sge, wr);
		if (err)
			break;
		posted++;
	}
	if (posted)
		sv_ring_publish_prod(&wq->ring, prod + posted);	/* release */
out:
	pthread_spin_unlock(&wq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

int sv_qp_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sv_qp *qp = to_sv_qp(ibqp);

	/* IBTA 10.3.1: receive WRs posted in RESET are errors; an SRQ QP
	 * has no RQ of its own
	 */
	if (ibqp->state == IBV_QPS_RESET || ibqp->srq ||
	    ibqp->qp_type == IBV_QPT_XRC_SEND ||
	    ibqp->qp_type == IBV_QPT_XRC_RECV) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	return sv_wq_post_recv(&qp->rq, wr, bad_wr);
}
