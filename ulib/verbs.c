// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The softverbs ops table, the context's libibverbs-visible slots, and the
 * exported entry points of object verbs that dispatch through the table.
 *
 * verbs.h reaches a context three ways, and each needs a different answer:
 *  - exported functions (ibv_alloc_pd, ibv_create_cq ...): defined here,
 *    dispatching to ctx->ops; a NULL op fails with EOPNOTSUPP;
 *  - inline wrappers calling context->ops.<fn> directly (ibv_poll_cq,
 *    ibv_post_send, ibv_req_notify_cq, ibv_alloc_mw ...): filled from the
 *    same table; they must never be NULL except alloc_mw, which the
 *    header checks;
 *  - inline wrappers using verbs_get_ctx_op(ctx, fn) (ibv_query_port,
 *    ibv_query_device_ex, ibv_create_cq_ex ...): they check the slot and
 *    context->abi_compat/vctx->sz themselves, so a NULL slot is already a
 *    clean EOPNOTSUPP (or the documented legacy fallback).
 */
#include <errno.h>
#include <pthread.h>

#include <string.h>

#include "ulib.h"
#include "include/softverbs.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

const struct sv_ops sv_softverbs_ops = {
	.query_device_ex = sv_query_device_ex,
	.query_port = sv_query_port,
	.alloc_pd = sv_pd_alloc,
	.dealloc_pd = sv_pd_dealloc,
	.reg_mr = sv_mr_reg,
	.reg_dmabuf_mr = sv_mr_reg_dmabuf,
	.rereg_mr = sv_mr_rereg,
	.dereg_mr = sv_mr_dereg,
	.alloc_mw = sv_mw_alloc,
	.dealloc_mw = sv_mw_dealloc,
	.bind_mw = sv_mw_bind,
	.create_comp_channel = sv_comp_channel_create,
	.destroy_comp_channel = sv_comp_channel_destroy,
	.create_cq = sv_cq_create,
	.create_cq_ex = sv_cq_create_ex,
	.alloc_td = sv_td_alloc,
	.dealloc_td = sv_td_dealloc,
	.alloc_parent_domain = sv_parent_domain_alloc,
	.resize_cq = sv_cq_resize,
	.destroy_cq = sv_cq_destroy,
	.poll_cq = sv_cq_poll,
	.req_notify_cq = sv_cq_req_notify,
	.create_srq = sv_srq_create,
	.modify_srq = sv_srq_modify,
	.query_srq = sv_srq_query,
	.destroy_srq = sv_srq_destroy,
	.post_srq_recv = sv_srq_post_recv,
	.create_srq_ex = sv_srq_create_ex,
	.get_srq_num = sv_srq_get_num,
	.open_xrcd = sv_xrcd_open,
	.close_xrcd = sv_xrcd_close,
	.open_qp = sv_qp_open,
	.create_qp = sv_qp_create,
	.create_qp_ex = sv_qp_create_ex,
	.query_qp = sv_qp_query,
	.modify_qp = sv_qp_modify,
	.destroy_qp = sv_qp_destroy,
	.post_send = sv_qp_post_send,
	.post_recv = sv_qp_post_recv,
	.post_mpe = sv_qp_post_mpe,
	.create_ah = sv_ah_create,
	.destroy_ah = sv_ah_destroy,
	.attach_mcast = sv_mcast_attach,
	.detach_mcast = sv_mcast_detach,
};

static const struct sv_ops *ops_of(struct ibv_context *context)
{
	return to_sv_context(context)->ops;
}

static void *fail_null(int err)
{
	errno = err;
	return NULL;
}

static int fail_int(int err)
{
	errno = err;
	return err;
}

/* ------------------------------------------------------------------ */
/* ibv_context_ops slots the inline data-path wrappers call directly    */

static int unsupported_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq, (void)n, (void)wc;
	errno = EOPNOTSUPP;
	return -1;	/* ibv_poll_cq reports failure as a negative count */
}

static int unsupported_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq, (void)solicited_only;
	return EOPNOTSUPP;
}

static int unsupported_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int unsupported_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int unsupported_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int unsupported_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			struct ibv_mw_bind *bind)
{
	(void)qp, (void)mw, (void)bind;
	return EOPNOTSUPP;
}

static int unsupported_dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	return EOPNOTSUPP;
}

/*
 * ibv_advise_mr (a verbs.h inline calling this): prefetch ranges of ODP
 * MRs; the kernel checks the advice, the flags and every SGE.  Returns
 * the errno itself, as ibv_advise_mr(3) says.
 */
static int sv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			uint32_t flags, struct ibv_sge *sg_list,
			uint32_t num_sge)
{
	return sv_cmd_advise_mr(pd->context->cmd_fd, pd->handle, advice, flags,
				sg_list, num_sge);
}

/* An ops table may leave a data-path verb NULL; the slot must not be. */
#define SLOT(ops_fn, unsupported) ((ops_fn) ? (ops_fn) : (unsupported))

void sv_context_init_ops(struct sv_context *ctx)
{
	struct ibv_context_ops *cops = &ctx->vctx.context.ops;
	struct verbs_context *vctx = &ctx->vctx;

	/* Binaries built against very old headers call these two directly. */
	cops->_compat_query_device = ibv_query_device;
	cops->_compat_query_port = ibv_query_port;

	cops->poll_cq = SLOT(ctx->ops->poll_cq, unsupported_poll_cq);
	cops->req_notify_cq = SLOT(ctx->ops->req_notify_cq, unsupported_req_notify_cq);
	cops->post_send = SLOT(ctx->ops->post_send, unsupported_post_send);
	cops->post_recv = SLOT(ctx->ops->post_recv, unsupported_post_recv);
	cops->post_srq_recv = SLOT(ctx->ops->post_srq_recv, unsupported_post_srq_recv);
	cops->bind_mw = SLOT(ctx->ops->bind_mw, unsupported_bind_mw);
	cops->dealloc_mw = SLOT(ctx->ops->dealloc_mw, unsupported_dealloc_mw);
	cops->alloc_mw = ctx->ops->alloc_mw;	/* ibv_alloc_mw checks NULL */

	vctx->query_port = ctx->ops->query_port;
	vctx->query_device_ex = ctx->ops->query_device_ex;
	vctx->create_cq_ex = ctx->ops->create_cq_ex;
	vctx->create_qp_ex = ctx->ops->create_qp_ex;
	vctx->create_srq_ex = ctx->ops->create_srq_ex;
	vctx->get_srq_num = ctx->ops->get_srq_num;
	vctx->open_xrcd = ctx->ops->open_xrcd;
	vctx->close_xrcd = ctx->ops->close_xrcd;
	vctx->open_qp = ctx->ops->open_qp;
	vctx->alloc_td = ctx->ops->alloc_td;
	vctx->dealloc_td = ctx->ops->dealloc_td;
	vctx->alloc_parent_domain = ctx->ops->alloc_parent_domain;
	vctx->advise_mr = sv_advise_mr;
	/*
	 * Left NULL on purpose, so verbs.h's inline answers EOPNOTSUPP:
	 * query_rt_values (no
	 * device clock: hca_core_clock is 0 and CQEs carry no timestamps),
	 * flows, WQs, counters, DM.
	 */
}

/* ------------------------------------------------------------------ */
/* Protection domains and memory regions                               */


SV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd;

	if (!ops_of(context)->alloc_pd)
		return fail_null(EOPNOTSUPP);
	pd = ops_of(context)->alloc_pd(context);
	if (pd)
		pd->context = context;
	return pd;
}

SV_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (!ops_of(pd->context)->dealloc_pd)
		return fail_int(EOPNOTSUPP);
	return ops_of(pd->context)->dealloc_pd(pd);
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	bool odp = access & IBV_ACCESS_ON_DEMAND;
	struct ibv_mr *mr;

	if (!ops_of(pd->context)->reg_mr)
		return fail_null(EOPNOTSUPP);
	/*
	 * fork.c: a no-op unless ibv_fork_init() turned tracking on.  An ODP
	 * MR pins nothing (the kernel follows fork's COW through MMU
	 * notifiers), and an implicit one (NULL, SIZE_MAX) is no range
	 * madvise() could take: not protected, as libibverbs does.
	 */
	if (!odp && ibv_dontfork_range(addr, length))
		return NULL;
	/* pd.c records it in the MR's fork_range */
	mr = ops_of(pd->context)->reg_mr(pd, addr, length, iova, access);
	if (!mr) {
		int err = errno;

		if (!odp)
			ibv_dofork_range(addr, length);
		errno = err;
	} else {
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = addr;
		mr->length = length;
	}
	return mr;
}

SV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
				(unsigned int)access);
}

SV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

SV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova, int fd,
					   int access)
{
	struct ibv_mr *mr;

	if (!ops_of(pd->context)->reg_dmabuf_mr)
		return fail_null(EOPNOTSUPP);
	mr = ops_of(pd->context)->reg_dmabuf_mr(pd, offset, length, iova, fd,
						access);
	if (mr) {
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = (void *)(uintptr_t)offset;
		mr->length = length;
	}
	return mr;
}

/*
 * The rereg_mr conventions of libibverbs: IBV_REREG_MR_ERR_INPUT (errno
 * EINVAL) for an inconsistent request, IBV_REREG_MR_ERR_CMD (errno from
 * the kernel) when the kernel refused, and the old MR stays valid in both
 * cases.  With fork tracking on (fork.c), a new translation's range is
 * protected before the command and the old one released after it:
 * IBV_REREG_MR_ERR_DONT_FORK_NEW / _DO_FORK_OLD when madvise fails.
 */
SV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	bool trans, old_fr, new_fr, protect, release;
	size_t new_length, old_length;
	void *new_addr, *old_addr;
	int err;

	if ((flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS)) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (!ops_of(mr->context)->rereg_mr) {
		errno = EOPNOTSUPP;
		return IBV_REREG_MR_ERR_CMD;
	}
	/*
	 * Which range fork.c protects changes with a new translation, and
	 * with IBV_ACCESS_ON_DEMAND set (nothing pinned: none) or cleared.
	 */
	trans = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	old_fr = to_sv_umr(mr)->fork_range;
	new_fr = flags & IBV_REREG_MR_CHANGE_ACCESS ?
		 !(access & IBV_ACCESS_ON_DEMAND) : old_fr;
	new_addr = trans ? addr : mr->addr;
	new_length = trans ? length : mr->length;
	protect = new_fr && (trans || !old_fr);
	release = old_fr && (trans || !new_fr);
	if (protect && ibv_dontfork_range(new_addr, new_length))
		return IBV_REREG_MR_ERR_DONT_FORK_NEW;
	err = ops_of(mr->context)->rereg_mr(mr, flags, pd, addr, length,
					    access);
	if (err) {
		if (protect)
			ibv_dofork_range(new_addr, new_length);
		errno = err;
		return IBV_REREG_MR_ERR_CMD;
	}
	to_sv_umr(mr)->fork_range = new_fr;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	old_addr = mr->addr;
	old_length = mr->length;
	mr->addr = new_addr;
	mr->length = new_length;
	if (release && ibv_dofork_range(old_addr, old_length))
		return IBV_REREG_MR_ERR_DO_FORK_OLD;
	return 0;
}

SV_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	bool fork_range = to_sv_umr(mr)->fork_range;
	void *addr = mr->addr;
	size_t length = mr->length;
	int err;

	if (!ops_of(mr->context)->dereg_mr)
		return fail_int(EOPNOTSUPP);
	err = ops_of(mr->context)->dereg_mr(mr);
	if (!err && fork_range)
		ibv_dofork_range(addr, length);
	return err;
}

/* ------------------------------------------------------------------ */
/* Completion channels and CQs                                         */

SV_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	if (!ops_of(context)->create_comp_channel)
		return fail_null(EOPNOTSUPP);
	return ops_of(context)->create_comp_channel(context);
}

SV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	if (!ops_of(channel->context)->destroy_comp_channel)
		return fail_int(EOPNOTSUPP);
	return ops_of(channel->context)->destroy_comp_channel(channel);
}

SV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct ibv_cq *cq;

	if (!ops_of(context)->create_cq)
		return fail_null(EOPNOTSUPP);
	cq = ops_of(context)->create_cq(context, cqe, channel, comp_vector);
	if (cq)
		cq->cq_context = cq_context;
	return cq;
}

SV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (!ops_of(cq->context)->resize_cq)
		return fail_int(EOPNOTSUPP);
	return ops_of(cq->context)->resize_cq(cq, cqe);
}

SV_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	if (!ops_of(cq->context)->destroy_cq)
		return fail_int(EOPNOTSUPP);
	return ops_of(cq->context)->destroy_cq(cq);
}

/* ------------------------------------------------------------------ */
/* SRQs, QPs, AHs, multicast                                           */

SV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					 struct ibv_srq_init_attr *attr)
{
	if (!ops_of(pd->context)->create_srq)
		return fail_null(EOPNOTSUPP);
	return ops_of(pd->context)->create_srq(pd, attr);
}

SV_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			     int mask)
{
	if (!ops_of(srq->context)->modify_srq)
		return fail_int(EOPNOTSUPP);
	return ops_of(srq->context)->modify_srq(srq, attr, mask);
}

SV_EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	if (!ops_of(srq->context)->query_srq)
		return fail_int(EOPNOTSUPP);
	return ops_of(srq->context)->query_srq(srq, attr);
}

SV_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	if (!ops_of(srq->context)->destroy_srq)
		return fail_int(EOPNOTSUPP);
	return ops_of(srq->context)->destroy_srq(srq);
}

SV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr)
{
	if (!ops_of(pd->context)->create_qp)
		return fail_null(EOPNOTSUPP);
	return ops_of(pd->context)->create_qp(pd, attr);
}

SV_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int mask, struct ibv_qp_init_attr *init_attr)
{
	if (!ops_of(qp->context)->query_qp)
		return fail_int(EOPNOTSUPP);
	return ops_of(qp->context)->query_qp(qp, attr, mask, init_attr);
}

SV_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int mask)
{
	if (!ops_of(qp->context)->modify_qp)
		return fail_int(EOPNOTSUPP);
	return ops_of(qp->context)->modify_qp(qp, attr, mask);
}

SV_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (!ops_of(qp->context)->destroy_qp)
		return fail_int(EOPNOTSUPP);
	return ops_of(qp->context)->destroy_qp(qp);
}

/* ------------------------------------------------------------------ */
/* libsoftverbs extensions (include/softverbs.h)                        */

static int post_mpe(struct ibv_qp *qp, const struct sv_mpe_wr *wr)
{
	if (!qp || !ops_of(qp->context)->post_mpe)
		return EOPNOTSUPP;
	return ops_of(qp->context)->post_mpe(qp, wr);
}

SV_EXPORT int softverbs_post_atomic_write(struct ibv_qp *qp, uint64_t wr_id,
					  unsigned int send_flags,
					  uint32_t rkey, uint64_t remote_addr,
					  const void *value)
{
	struct sv_mpe_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_ATOMIC_WRITE,
		.send_flags = send_flags,
		.rkey = rkey,
		.remote_addr = remote_addr,
	};

	if (!value)
		return EINVAL;
	memcpy(wr.value, value, sizeof(wr.value));
	return post_mpe(qp, &wr);
}

SV_EXPORT int softverbs_post_flush(struct ibv_qp *qp, uint64_t wr_id,
				   unsigned int send_flags, uint32_t rkey,
				   uint64_t remote_addr, uint32_t length,
				   uint8_t type, uint8_t level)
{
	struct sv_mpe_wr wr = {
		.wr_id = wr_id,
		.opcode = SV_WR_FLUSH,
		.send_flags = send_flags,
		.rkey = rkey,
		.remote_addr = remote_addr,
		.length = length,
		.type = type,
		.level = level,
	};

	return post_mpe(qp, &wr);
}

SV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					 enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp, (void)op, (void)flags;
	return 0;	/* "not guaranteed" is always a correct answer */
}

SV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return fail_int(EOPNOTSUPP);
}

SV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return fail_int(EOPNOTSUPP);
}

SV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
				       struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;

	if (!ops_of(pd->context)->create_ah)
		return fail_null(EOPNOTSUPP);
	ah = ops_of(pd->context)->create_ah(pd, attr);
	if (ah) {
		ah->context = pd->context;
		ah->pd = pd;
	}
	return ah;
}

SV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (!ops_of(ah->context)->destroy_ah)
		return fail_int(EOPNOTSUPP);
	return ops_of(ah->context)->destroy_ah(ah);
}

SV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					  struct ibv_ah_attr *attr,
					  uint8_t eth_mac[6], uint16_t *vid)
{
	(void)context, (void)attr, (void)eth_mac, (void)vid;
	return fail_int(EOPNOTSUPP);
}

SV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (!ops_of(qp->context)->attach_mcast)
		return fail_int(EOPNOTSUPP);
	return ops_of(qp->context)->attach_mcast(qp, gid, lid);
}

SV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	if (!ops_of(qp->context)->detach_mcast)
		return fail_int(EOPNOTSUPP);
	return ops_of(qp->context)->detach_mcast(qp, gid, lid);
}

/* ------------------------------------------------------------------ */
/* Import/export of objects between processes: not supported           */

SV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return fail_null(EOPNOTSUPP);
}

SV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
				       uint32_t pd_handle)
{
	(void)context, (void)pd_handle;
	return fail_null(EOPNOTSUPP);
}

SV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

SV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd, (void)mr_handle;
	return fail_null(EOPNOTSUPP);
}

SV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

SV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
				       uint32_t dm_handle)
{
	(void)context, (void)dm_handle;
	return fail_null(EOPNOTSUPP);
}

SV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* No device memory: ibv_alloc_dm is EOPNOTSUPP (NULL slot), so no ibv_dm is ours. */
SV_EXPORT int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	errno = dm ? EOPNOTSUPP : EINVAL;
	return -1;
}
