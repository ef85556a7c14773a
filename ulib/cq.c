// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion channels and CQs.
 *
 * A CQ is a ring the kernel produces struct ib_uverbs_wc entries into and
 * we consume (queue.h has the ordering rules): ibv_poll_cq is a memory
 * operation, never a system call.  CREATE_CQ's rxe driver response says
 * where to mmap the ring; RESIZE_CQ's says where the new ring is, and the
 * old one is unmapped (the kernel copied the pending entries over).
 *
 * Events: the kernel tags completion and async events with the user_handle
 * we passed at creation, the struct ibv_cq's address.  ibv_destroy_cq waits
 * until every event the kernel reports having delivered for the CQ has
 * been acknowledged, so no event can point at freed memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulib.h"
#include "include/softverbs.h"

/* ------------------------------------------------------------------ */
/* Completion channels                                                 */

struct ibv_comp_channel *sv_comp_channel_create(struct ibv_context *ctx)
{
	struct sv_cmd_create_comp_channel cmd = {};
	struct ib_uverbs_create_comp_channel_resp resp;
	struct ibv_comp_channel *ch;
	int err;

	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	err = SV_CMD(ctx->cmd_fd, CREATE_COMP_CHANNEL, &cmd, &resp);
	if (err) {
		free(ch);
		errno = err;
		return NULL;
	}
	ch->context = ctx;
	ch->fd = (int)resp.fd;
	ch->refcnt = 0;
	return ch;
}

int sv_comp_channel_destroy(struct ibv_comp_channel *ch)
{
	struct ibv_context *ctx = ch->context;

	/* A CQ still delivers its events here (libibverbs says EBUSY too). */
	pthread_mutex_lock(&ctx->mutex);
	if (ch->refcnt) {
		pthread_mutex_unlock(&ctx->mutex);
		return EBUSY;
	}
	pthread_mutex_unlock(&ctx->mutex);
	close(ch->fd);
	free(ch);
	return 0;
}

static void channel_ref(struct ibv_context *ctx, struct ibv_comp_channel *ch,
			int delta)
{
	if (!ch)
		return;
	/* The context mutex guards every channel's refcnt. */
	pthread_mutex_lock(&ctx->mutex);
	ch->refcnt += delta;
	pthread_mutex_unlock(&ctx->mutex);
}

SV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	struct ib_uverbs_comp_event_desc ev;
	ssize_t n;

	n = read(channel->fd, &ev, sizeof(ev));
	if (n < 0)
		return -1;
	if (n != sizeof(ev)) {
		errno = EIO;
		return -1;
	}
	*cq = (struct ibv_cq *)(uintptr_t)ev.cq_handle;
	*cq_context = (*cq)->cq_context;
	return 0;
}

SV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ------------------------------------------------------------------ */
/* Create, resize, destroy                                             */

static struct sv_cq *cq_create(struct ibv_context *ctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector, struct ibv_pd *pdom)
{
	struct sv_cmd_create_cq cmd = {};
	struct sv_resp_create_cq resp;
	struct ibv_pd *owner;
	struct sv_cq *cq;
	int err;

	if (cqe < 1 || comp_vector < 0 ||
	    (channel && channel->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = sv_obj_alloc(pdom, sizeof(*cq), SOFTVERBS_RES_TYPE_CQ, &owner);
	if (!cq)
		return NULL;
	cq->alloc_pd = owner;

	cq->kernel_wc_flags =
		to_sv_device(ctx->device)->kernel_wc_flags;
	cmd.core.user_handle = (uintptr_t)&cq->ibcq;
	cmd.core.cqe = (uint32_t)cqe;
	cmd.core.comp_vector = (uint32_t)comp_vector;
	cmd.core.comp_channel = channel ? channel->fd : -1;
	err = SV_CMD(ctx->cmd_fd, CREATE_CQ, &cmd, &resp);
	if (err)
		goto err_free;

	err = sv_ring_map(&cq->ring, ctx->cmd_fd, &resp.drv.mi);
	if (err)
		goto err_destroy;
	if (sv_ring_elem_size(&cq->ring) < sizeof(struct ib_uverbs_wc)) {
		err = EINVAL;
		goto err_unmap;
	}

	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	cq->ibcq.context = ctx;
	cq->ibcq.channel = channel;
	cq->ibcq.handle = resp.core.cq_handle;
	cq->ibcq.cqe = (int)resp.core.cqe;
	channel_ref(ctx, channel, 1);
	return cq;

err_unmap:
	sv_ring_unmap(&cq->ring);
err_destroy: {
	struct sv_cmd_destroy_cq dcmd = { .core.cq_handle = resp.core.cq_handle };
	struct ib_uverbs_destroy_cq_resp dresp;

	SV_CMD(ctx->cmd_fd, DESTROY_CQ, &dcmd, &dresp);
	}
err_free:
	sv_obj_free(owner, cq, SOFTVERBS_RES_TYPE_CQ);
	errno = err;
	return NULL;
}

struct ibv_cq *sv_cq_create(struct ibv_context *ctx, int cqe,
			    struct ibv_comp_channel *channel, int comp_vector)
{
	struct sv_cq *cq = cq_create(ctx, cqe, channel, comp_vector, NULL);

	return cq ? &cq->ibcq : NULL;
}

int sv_cq_resize(struct ibv_cq *ibcq, int cqe)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct sv_cmd_resize_cq cmd = {
		.core.cq_handle = ibcq->handle,
		.core.cqe = (uint32_t)cqe,
	};
	struct sv_resp_resize_cq resp;
	struct sv_ring ring;
	int err;

	if (cqe < 1)
		return EINVAL;
	/*
	 * No poller may touch the old ring while the kernel moves its
	 * entries to the new one, nor before we have switched over.
	 */
	pthread_spin_lock(&cq->lock);
	err = SV_CMD(ibcq->context->cmd_fd, RESIZE_CQ, &cmd, &resp);
	if (err)
		goto out;
	err = sv_ring_map(&ring, ibcq->context->cmd_fd, &resp.drv.mi);
	if (!err && sv_ring_elem_size(&ring) < sizeof(struct ib_uverbs_wc)) {
		sv_ring_unmap(&ring);
		err = EINVAL;
	}
	if (err) {
		/*
		 * The kernel already switched to the new ring, which we cannot
		 * reach: the CQ is unusable (polls report EIO) until destroyed.
		 */
		sv_ring_unmap(&cq->ring);
		goto out;
	}
	sv_ring_unmap(&cq->ring);
	cq->ring = ring;
	ibcq->cqe = (int)resp.core.cqe;
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

int sv_cq_destroy(struct ibv_cq *ibcq)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct sv_cmd_destroy_cq cmd = { .core.cq_handle = ibcq->handle };
	struct ib_uverbs_destroy_cq_resp resp;
	int err;

	err = SV_CMD(ibcq->context->cmd_fd, DESTROY_CQ, &cmd, &resp);
	if (err)
		return err;	/* still used by a QP (EBUSY): stays valid */

	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != resp.comp_events_reported ||
	       ibcq->async_events_completed != resp.async_events_reported)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);

	channel_ref(ibcq->context, ibcq->channel, -1);
	sv_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	sv_obj_free(cq->alloc_pd, cq, SOFTVERBS_RES_TYPE_CQ);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Poll and notify                                                     */

/*
 * ibv_poll_cq: copy up to n ready CQEs out of the ring and hand their
 * slots back with one release store.  Returns the count, or -1 (errno
 * EIO) for a CQ whose ring was lost in a failed resize.
 */
int sv_cq_poll(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	uint32_t cons, ready;
	int i;

	if (n <= 0)
		return 0;
	pthread_spin_lock(&cq->lock);
	if (!cq->ring.buf) {
		pthread_spin_unlock(&cq->lock);
		errno = EIO;
		return -1;
	}
	cons = sv_ring_load_cons_own(&cq->ring);
	ready = sv_ring_ready(&cq->ring, cons);	/* acquire */
	if ((uint32_t)n > ready)
		n = (int)ready;
	for (i = 0; i < n; i++)
		sv_cqe_decode(&wc[i], sv_ring_slot(&cq->ring, cons + i),
			      cq->kernel_wc_flags);
	if (n)
		sv_ring_publish_cons(&cq->ring, cons + n);	/* release */
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * Drop the completions of QP @qpn that wait in @ibcq: a QP moved to RESET
 * starts afresh, and so must what a poller sees of it (the flushed WRs of
 * its error are gone with it), as libmlx5 does; rdma-core's tests restate
 * a QP from ERR through RESET and poll the same CQ.  The entries of other
 * QPs keep their order: going from the newest to the oldest, each kept
 * entry moves up by the number dropped so far, then the consumer index
 * passes the freed slots.  Only slots between our consumer index and the
 * producer index read now are touched; the kernel writes at or after that
 * producer index and reuses the freed slots only after the release store
 * of the consumer index.  Under the CQ lock, so no poll (an ibv_cq_ex poll
 * holds the lock from start_poll to end_poll) sees a half-moved ring.
 */
void sv_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	size_t size = sv_ring_elem_size(&cq->ring);
	uint32_t cons, ready, dropped = 0;

	pthread_spin_lock(&cq->lock);
	if (!cq->ring.buf)
		goto out;
	cons = sv_ring_load_cons_own(&cq->ring);
	ready = sv_ring_ready(&cq->ring, cons);	/* acquire */
	for (uint32_t i = ready; i-- > 0;) {
		void *slot = sv_ring_slot(&cq->ring, cons + i);
		const struct ib_uverbs_wc *wc = slot;

		if (wc->qp_num == qpn)
			dropped++;
		else if (dropped)
			memcpy(sv_ring_slot(&cq->ring, cons + i + dropped),
			       slot, size);
	}
	if (dropped)
		sv_ring_publish_cons(&cq->ring, cons + dropped); /* release */
out:
	pthread_spin_unlock(&cq->lock);
}

int sv_cq_req_notify(struct ibv_cq *ibcq, int solicited_only)
{
	struct sv_cmd_req_notify_cq cmd = {
		.core.cq_handle = ibcq->handle,
		.core.solicited_only = solicited_only ? 1 : 0,
	};

	return sv_cmd_write(ibcq->context->cmd_fd,
			    IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &cmd, sizeof(cmd),
			    NULL, 0);
}

/* ------------------------------------------------------------------ */
/* ibv_cq_ex: the same ring behind the start/next/end_poll iterator     */

static struct sv_cq *to_sv_cq_ex(struct ibv_cq_ex *cq_ex)
{
	return sv_container_of(cq_ex, struct sv_cq, ibcq_ex);
}

/* Load the entry at cq->cur into the public status/wr_id fields. */
static int cq_ex_load(struct sv_cq *cq)
{
	if (!sv_ring_ready(&cq->ring, cq->cur)) {	/* acquire */
		cq->cqe = NULL;		/* nothing at cur was read */
		return ENOENT;
	}
	cq->cqe = sv_ring_slot(&cq->ring, cq->cur);
	cq->ibcq_ex.status = (enum ibv_wc_status)cq->cqe->status;
	cq->ibcq_ex.wr_id = cq->cqe->wr_id;
	return 0;
}

/* The CQ lock is held from a successful start_poll until end_poll. */
static int cq_ex_start_poll(struct ibv_cq_ex *cq_ex,
			    struct ibv_poll_cq_attr *attr)
{
	struct sv_cq *cq = to_sv_cq_ex(cq_ex);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (!cq->ring.buf) {
		pthread_spin_unlock(&cq->lock);
		return EIO;
	}
	cq->cur = sv_ring_load_cons_own(&cq->ring);
	if (cq_ex_load(cq)) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	return 0;
}

static int cq_ex_next_poll(struct ibv_cq_ex *cq_ex)
{
	struct sv_cq *cq = to_sv_cq_ex(cq_ex);

	cq->cur++;
	/* Hand the consumed slot back now: the producer may be waiting. */
	sv_ring_publish_cons(&cq->ring, cq->cur);
	return cq_ex_load(cq);
}

static void cq_ex_end_poll(struct ibv_cq_ex *cq_ex)
{
	struct sv_cq *cq = to_sv_cq_ex(cq_ex);

	/*
	 * Only reached after start_poll succeeded (libibverbs contract).
	 * cqe is set when the entry at cur was handed to the caller, NULL
	 * when the last next_poll found nothing there.
	 */
	if (cq->cqe)
		cq->cur++;
	sv_ring_publish_cons(&cq->ring, cq->cur);
	cq->cqe = NULL;
	pthread_spin_unlock(&cq->lock);
}

#define CQ_EX_READER(name, type, expr)					\
	static type cq_ex_read_##name(struct ibv_cq_ex *cq_ex)		\
	{								\
		const struct ib_uverbs_wc *e = to_sv_cq_ex(cq_ex)->cqe;	\
		return (type)(expr);					\
	}

CQ_EX_READER(opcode, enum ibv_wc_opcode, e->opcode)
CQ_EX_READER(vendor_err, uint32_t, e->vendor_err)
CQ_EX_READER(wc_flags, unsigned int,
	     sv_wc_flags_decode(e->wc_flags,
					 to_sv_cq_ex(cq_ex)->kernel_wc_flags))
CQ_EX_READER(byte_len, uint32_t, e->byte_len)
CQ_EX_READER(imm_data, __be32, e->ex.imm_data)
CQ_EX_READER(qp_num, uint32_t, e->qp_num)
CQ_EX_READER(src_qp, uint32_t, e->src_qp)
CQ_EX_READER(slid, uint32_t, e->slid)
CQ_EX_READER(sl, uint8_t, e->sl)
CQ_EX_READER(dlid_path_bits, uint8_t, e->dlid_path_bits)

/* What an ib_uverbs_wc can answer; timestamps and the rest are not there. */
#define SV_CQ_EX_WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			   IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			   IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			   IBV_WC_EX_WITH_DLID_PATH_BITS)

/*
 * ibv_create_cq_ex: supported when it asks for nothing the legacy
 * CREATE_CQ cannot express: only the wc_flags above, and of the creation
 * flags only SINGLE_THREADED (a hint; we lock anyway).  Anything else is
 * EOPNOTSUPP.  A parent domain (IBV_CQ_INIT_ATTR_MASK_PD) is accepted: its
 * allocator provides the CQ's own memory (pd.c says why not the ring).
 */
struct ibv_cq_ex *sv_cq_create_ex(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_pd *pdom = NULL;
	struct ibv_cq_ex *ex;
	struct sv_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		pdom = attr->parent_domain;
		/* it must be a parent domain, not a plain PD (libibverbs) */
		if (!pdom || pdom->context != ctx || !to_sv_pd(pdom)->parent) {
			errno = EINVAL;
			return NULL;
		}
	}
	if ((attr->wc_flags & ~(uint64_t)SV_CQ_EX_WC_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}

	cq = cq_create(ctx, (int)attr->cqe, attr->channel,
		       (int)attr->comp_vector, pdom);
	if (!cq)
		return NULL;
	cq->is_ex = true;
	cq->ibcq.cq_context = attr->cq_context;
	ex = &cq->ibcq_ex;
	ex->start_poll = cq_ex_start_poll;
	ex->next_poll = cq_ex_next_poll;
	ex->end_poll = cq_ex_end_poll;
	ex->read_opcode = cq_ex_read_opcode;
	ex->read_vendor_err = cq_ex_read_vendor_err;
	ex->read_wc_flags = cq_ex_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = cq_ex_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = cq_ex_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = cq_ex_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = cq_ex_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = cq_ex_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = cq_ex_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = cq_ex_read_dlid_path_bits;
	return ex;
}
