// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains, memory regions and memory windows: pure uverbs
 * commands, no driver data in either direction (the rxe ABI has none).
 *
 * Every constructor issues the command and fills the object from the
 * response; if anything fails after the kernel object exists, the kernel
 * object is destroyed before the memory is freed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"

static int cmd_fd(struct ibv_context *ctx)
{
	return ctx->cmd_fd;
}

/* ------------------------------------------------------------------ */
/* PD                                                                  */

struct ibv_pd *sv_pd_alloc(struct ibv_context *ctx)
{
	struct sv_cmd_alloc_pd cmd = {};
	struct ib_uverbs_alloc_pd_resp resp;
	struct sv_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	err = SV_CMD(cmd_fd(ctx), ALLOC_PD, &cmd, &resp);
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->ibpd.context = ctx;
	pd->ibpd.handle = resp.pd_handle;
	return &pd->ibpd;
}

int sv_pd_dealloc(struct ibv_pd *ibpd)
{
	struct sv_pd *pd = to_sv_pd(ibpd);
	struct sv_cmd_dealloc_pd cmd = { .core.pd_handle = ibpd->handle };
	int err;

	/* Parent domains are ours alone: the kernel never saw them. */
	if (atomic_load(&pd->users))
		return EBUSY;
	if (pd->parent) {
		atomic_fetch_sub(&pd->parent->users, 1);
		if (pd->td)
			atomic_fetch_sub(&sv_container_of(pd->td, struct sv_td,
							  ibtd)->users, 1);
		free(pd);
		return 0;
	}
	err = sv_cmd_write(cmd_fd(ibpd->context), IB_USER_VERBS_CMD_DEALLOC_PD,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;	/* still in use (EBUSY): the PD stays valid */
	free(pd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Thread domains and parent domains                                   */

/*
 * A thread domain is a promise by the caller that one thread at a time
 * uses the objects created with it, so a provider may drop its locks.  We
 * accept the promise and keep locking anyway (always correct; an
 * uncontended spinlock is cheap): a TD is just a token.
 */
struct ibv_td *sv_td_alloc(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr)
{
	struct sv_td *td;

	if (!attr || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibtd.context = ctx;
	return &td->ibtd;
}

int sv_td_dealloc(struct ibv_td *ibtd)
{
	struct sv_td *td = sv_container_of(ibtd, struct sv_td, ibtd);

	if (atomic_load(&td->users))
		return EBUSY;	/* a parent domain still names it */
	free(td);
	return 0;
}

/*
 * rdma-core 65's IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC: a
 * parent domain whose buffers a confidential-computing guest shares with
 * its device (DMA bounce).  softverbs' "device" is the kernel itself, with
 * no DMA and no such memory: not supported, the answer libibverbs gives
 * for a provider without parent domains (librxe's).
 */
#define SV_PD_INIT_ALLOW_CC_UNPROTECTED (1u << 2)

struct ibv_pd *sv_parent_domain_alloc(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr)
{
	struct sv_pd *pd, *parent;

	if (attr && (attr->comp_mask & SV_PD_INIT_ALLOW_CC_UNPROTECTED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr || !attr->pd || attr->pd->context != ctx ||
	    (attr->td && attr->td->context != ctx) ||
	    (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					   IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))) {
		errno = EINVAL;
		return NULL;
	}
	parent = to_sv_pd(attr->pd);
	if (parent->parent ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;	/* no nesting; allocators come in pairs */
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = ctx;
	pd->ibpd.handle = attr->pd->handle;
	pd->parent = parent;
	pd->td = attr->td;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	atomic_fetch_add(&parent->users, 1);
	if (attr->td)
		atomic_fetch_add(&sv_container_of(attr->td, struct sv_td,
						  ibtd)->users, 1);
	return &pd->ibpd;
}

/*
 * The memory a custom allocator can honestly cover: what the library
 * itself allocates for an object (the QP or CQ struct with its
 * work-request staging state).  The rings of the rxe ABI are allocated by
 * the kernel and mmap()ed, so no allocator of ours can place them.
 */
void *sv_obj_alloc(struct ibv_pd *ibpd, size_t size, uint64_t res_type,
		   struct ibv_pd **owner)
{
	struct sv_pd *pd = ibpd ? to_sv_pd(ibpd) : NULL;
	void *p;

	*owner = NULL;
	if (pd && pd->alloc) {
		p = pd->alloc(ibpd, pd->pd_context, size, 64, res_type);
		if (p != IBV_ALLOCATOR_USE_DEFAULT) {
			if (!p) {
				errno = ENOMEM;
				return NULL;
			}
			memset(p, 0, size);
			*owner = ibpd;
			return p;
		}
	}
	p = calloc(1, size);
	if (!p)
		errno = ENOMEM;
	return p;
}

void sv_obj_free(struct ibv_pd *owner, void *obj, uint64_t res_type)
{
	struct sv_pd *pd;

	if (!owner) {
		free(obj);
		return;
	}
	/* only what the caller's allocator made goes back to its free */
	pd = to_sv_pd(owner);
	pd->free(owner, pd->pd_context, obj, res_type);
}

/* ------------------------------------------------------------------ */
/* MR                                                                  */

struct ibv_mr *sv_mr_reg(struct ibv_pd *pd, void *addr, size_t length,
			 uint64_t iova, unsigned int access)
{
	struct sv_cmd_reg_mr cmd = {
		.core.start = (uintptr_t)addr,
		.core.length = length,
		.core.hca_va = iova,
		.core.pd_handle = pd->handle,
		.core.access_flags = access,
	};
	struct ib_uverbs_reg_mr_resp resp;
	struct sv_umr *umr;
	struct ibv_mr *mr;
	int err;

	umr = calloc(1, sizeof(*umr));
	if (!umr) {
		errno = ENOMEM;
		return NULL;
	}
	mr = &umr->ibv;
	err = SV_CMD(cmd_fd(pd->context), REG_MR, &cmd, &resp);
	if (err) {
		free(umr);
		errno = err;
		return NULL;
	}
	umr->fork_range = !(access & IBV_ACCESS_ON_DEMAND);
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = resp.mr_handle;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	return mr;
}

/*
 * A dma-buf MR: REG_DMABUF_MR exists only as an ioctl method (cmd.c).
 * The MR's addr is the offset into the buffer, as libibverbs sets it.
 */
struct ibv_mr *sv_mr_reg_dmabuf(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access)
{
	uint32_t handle, lkey, rkey;
	struct sv_umr *umr;
	struct ibv_mr *mr;
	int err;

	/* fork_range false: the range is the buffer's, not the process's */
	umr = calloc(1, sizeof(*umr));
	if (!umr) {
		errno = ENOMEM;
		return NULL;
	}
	mr = &umr->ibv;
	err = sv_cmd_reg_dmabuf_mr(cmd_fd(pd->context), pd->handle, offset,
				   length, iova, fd, (uint32_t)access, &handle,
				   &lkey, &rkey);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = (void *)(uintptr_t)offset;
	mr->length = length;
	mr->handle = handle;
	mr->lkey = lkey;
	mr->rkey = rkey;
	return mr;
}

/*
 * Returns 0 or a positive errno; ibv_rereg_mr (verbs.c) turns that into the
 * IBV_REREG_MR_ERR_* convention and updates addr/length/pd on success.
 */
int sv_mr_rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		size_t length, int access)
{
	struct sv_cmd_rereg_mr cmd = {
		.core.mr_handle = mr->handle,
		.core.flags = (uint32_t)flags,
		.core.start = (uintptr_t)addr,
		.core.length = length,
		.core.hca_va = (uintptr_t)addr,
		.core.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ?
				  pd->handle : 0,
		.core.access_flags = (uint32_t)access,
	};
	struct ib_uverbs_rereg_mr_resp resp;
	int err;

	err = SV_CMD(cmd_fd(mr->context), REREG_MR, &cmd, &resp);
	if (err)
		return err;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	return 0;
}

int sv_mr_dereg(struct ibv_mr *mr)
{
	struct sv_cmd_dereg_mr cmd = { .core.mr_handle = mr->handle };
	int err;

	err = sv_cmd_write(cmd_fd(mr->context), IB_USER_VERBS_CMD_DEREG_MR,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;
	free(mr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* MW                                                                  */

struct ibv_mw *sv_mw_alloc(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct sv_cmd_alloc_mw cmd = {
		.core.pd_handle = pd->handle,
		.core.mw_type = (uint8_t)type,
	};
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_mw *mw;
	int err;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = SV_CMD(cmd_fd(pd->context), ALLOC_MW, &cmd, &resp);
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp.rkey;
	mw->handle = resp.mw_handle;
	mw->type = type;
	return mw;
}

int sv_mw_dealloc(struct ibv_mw *mw)
{
	struct sv_cmd_dealloc_mw cmd = { .core.mw_handle = mw->handle };
	int err;

	err = sv_cmd_write(cmd_fd(mw->context), IB_USER_VERBS_CMD_DEALLOC_MW,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err) {
		errno = err;
		return err;
	}
	free(mw);
	return 0;
}

/*
 * The variable part of an rkey is its low byte (IBTA 10.6.7.2.3: the
 * consumer owns the key portion); each bind moves to the next key so a
 * stale rkey of the previous binding no longer matches.
 */
static uint32_t next_rkey(uint32_t rkey)
{
	return (rkey & 0xffffff00u) | ((rkey + 1) & 0xffu);
}

/*
 * ibv_bind_mw (type 1 windows): the verbs.h inline has checked the type
 * and the MR's PD; the bind is an ordinary BIND_MW send WR on the QP,
 * completed like any other WR (IBTA 10.6.7.2).  The window's rkey is
 * updated when the WR is posted; if it completes in error the caller must
 * restore it (as the verbs API documents).
 */
int sv_mw_bind(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int err;

	/* A type 1 window is addressed by VA (IBTA 10.6.7.2.2). */
	if (bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED) {
		errno = EINVAL;
		return EINVAL;
	}
	wr.wr_id = bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = next_rkey(mw->rkey);
	wr.bind_mw.bind_info = bind->bind_info;

	err = qp->context->ops.post_send(qp, &wr, &bad);
	if (err) {
		errno = err;
		return err;
	}
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
