// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended QPs: ibv_create_qp_ex with send_ops_flags, ibv_qp_to_qp_ex, and
 * the ibv_wr_* work request API of ibv_wr_post(3).
 *
 * A batch is a critical section: wr_start takes the SQ lock and notes the
 * producer index, wr_complete publishes every WQE of the batch with one
 * release store and rings the doorbell once, wr_abort drops them.  A
 * builder (wr_send, wr_rdma_write ...) does not write the ring at once: it
 * stages a struct ibv_send_wr (or, for ATOMIC WRITE and FLUSH, a struct
 * sv_mpe_wr), because the setters that follow (wr_set_sge*, wr_set_inline*,
 * wr_set_ud_addr) complete it.  The staged request is encoded by the same
 * encoder ibv_post_send uses (wqe.c) when the next builder starts or at
 * wr_complete, into the slot after the last one; nothing is visible to the
 * kernel until wr_complete publishes the index.  Inline data is copied
 * when the setter runs (the caller may reuse the buffer at once).
 *
 * The builder and setter calls return nothing (by design of the API); the
 * first error of a batch (a malformed request, a full SQ, a setter without
 * a builder) is kept and returned by wr_complete, which then posts none of
 * the batch, as ibv_wr_post(3) says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"
#include "include/softverbs.h"

struct sv_wr_batch {
	uint32_t prod;			/* published producer index at start */
	uint32_t room;			/* free slots after prod (refreshed) */
	uint32_t n;			/* WQEs encoded since wr_start */
	uint32_t ssn0;			/* qp->ssn at wr_start, for abort */
	int err;			/* first error of the batch */
	bool staged;			/* a builder ran; wr/mwr not encoded */
	bool mpe;			/* staged request is mwr, not wr */
	struct ibv_send_wr wr;
	struct sv_mpe_wr mwr;
	struct ibv_sge *sge;		/* max_sge entries (wr.sg_list) */
	struct ibv_sge inline_sge;	/* the one SGE naming inline_buf */
	uint8_t *inline_buf;		/* max_inline bytes */
};

static struct sv_qp *to_sv_qp_ex(struct ibv_qp_ex *qpx)
{
	return sv_container_of(qpx, struct sv_qp, ibqp_ex);
}

static void batch_fail(struct sv_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Encode the staged request into the next slot of the batch. */
static void batch_encode(struct sv_qp *qp)
{
	struct sv_wr_batch *b = qp->batch;
	struct sv_sq_limits lim = {
		.qp_type = qp->ibqp.qp_type,
		.max_sge = qp->sq.max_sge,
		.max_inline = qp->sq.max_inline,
		.slot_size = sv_ring_elem_size(&qp->sq.ring),
	};
	void *slot;
	int err;

	if (!b->staged)
		return;
	b->staged = false;
	if (b->err)
		return;
	if (b->n == b->room) {
		/* the kernel may have consumed more since wr_start */
		b->room = sv_ring_room(&qp->sq.ring, b->prod);	/* acquire */
		if (b->n == b->room) {
			b->err = ENOMEM;	/* SQ full, as ibv_post_send */
			return;
		}
	}
	/* inline data is one SGE of our buffer, whatever max_send_sge is */
	if (b->wr.send_flags & IBV_SEND_INLINE && !lim.max_sge)
		lim.max_sge = 1;
	slot = sv_ring_slot(&qp->sq.ring, b->prod + b->n);
	if (b->mpe)
		err = sv_wqe_encode_mpe(slot, &lim, &b->mwr, qp->ssn);
	else
		err = sv_wqe_encode_send(slot, &lim, &b->wr, qp->ssn);
	if (err) {
		b->err = err;
		return;
	}
	qp->ssn++;
	b->n++;
}

/* ------------------------------------------------------------------ */
/* wr_start, wr_complete, wr_abort                                     */

static void qpx_wr_start(struct ibv_qp_ex *qpx)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct sv_wr_batch *b = qp->batch;

	pthread_spin_lock(&qp->sq.lock);
	b->err = 0;
	b->staged = false;
	b->n = 0;
	b->ssn0 = qp->ssn;
	b->prod = sv_ring_load_prod_own(&qp->sq.ring);
	b->room = sv_ring_room(&qp->sq.ring, b->prod);	/* acquire */
	/* IBTA 10.3.1: send WRs posted in RESET, INIT or RTR are errors */
	switch (qp->ibqp.state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		b->err = EINVAL;
		break;
	default:
		break;
	}
}

static int qpx_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct sv_wr_batch *b = qp->batch;
	uint32_t n;
	int err;

	batch_encode(qp);
	err = b->err;
	n = b->n;
	if (err)
		qp->ssn = b->ssn0;	/* nothing of the batch is posted */
	else if (n)
		sv_ring_publish_prod(&qp->sq.ring, b->prod + n);  /* release */
	pthread_spin_unlock(&qp->sq.lock);
	if (err || !n)
		return err;
	return sv_qp_ring_doorbell(&qp->ibqp);
}

static void qpx_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);

	/* the slots written stay unpublished: the next batch overwrites */
	qp->ssn = qp->batch->ssn0;
	qp->batch->staged = false;
	pthread_spin_unlock(&qp->sq.lock);
}

/* ------------------------------------------------------------------ */
/* Builders                                                            */

/* Start staging a request of opcode with the QP's wr_id and wr_flags. */
static struct ibv_send_wr *stage(struct sv_qp *qp, enum ibv_wr_opcode opcode)
{
	struct sv_wr_batch *b = qp->batch;

	batch_encode(qp);	/* the previous request is complete now */
	memset(&b->wr, 0, sizeof(b->wr));
	b->wr.wr_id = qp->ibqp_ex.wr_id;
	b->wr.opcode = opcode;
	/* inline or not is the data setter's choice, not a flag's */
	b->wr.send_flags = qp->ibqp_ex.wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	b->wr.sg_list = b->sge;
	b->staged = true;
	b->mpe = false;
	return &b->wr;
}

static void qpx_send(struct ibv_qp_ex *qpx)
{
	stage(to_sv_qp_ex(qpx), IBV_WR_SEND);
}

static void qpx_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	stage(to_sv_qp_ex(qpx), IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void qpx_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	stage(to_sv_qp_ex(qpx), IBV_WR_SEND_WITH_INV)->invalidate_rkey =
		invalidate_rkey;
}

static void rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op, uint32_t rkey,
		 uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *wr = stage(to_sv_qp_ex(qpx), op);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void qpx_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			   uint64_t remote_addr)
{
	rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void qpx_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr, __be32 imm_data)
{
	rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr, imm_data);
}

static void qpx_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr)
{
	rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
		   uint32_t rkey, uint64_t remote_addr, uint64_t compare_add,
		   uint64_t swap)
{
	struct ibv_send_wr *wr = stage(to_sv_qp_ex(qpx), op);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void qpx_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr, uint64_t compare,
			       uint64_t swap)
{
	atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void qpx_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr, uint64_t add)
{
	atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void qpx_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	stage(to_sv_qp_ex(qpx), IBV_WR_LOCAL_INV)->invalidate_rkey =
		invalidate_rkey;
}

static void qpx_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = stage(to_sv_qp_ex(qpx), IBV_WR_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	if (bind_info)
		wr->bind_mw.bind_info = *bind_info;
}

/* ATOMIC WRITE and FLUSH: the sv_mpe_wr the softverbs.h calls post. */
static struct sv_mpe_wr *stage_mpe(struct sv_qp *qp, unsigned int opcode,
				   uint32_t rkey, uint64_t remote_addr)
{
	struct sv_wr_batch *b = qp->batch;

	batch_encode(qp);
	memset(&b->mwr, 0, sizeof(b->mwr));
	b->mwr.wr_id = qp->ibqp_ex.wr_id;
	b->mwr.opcode = opcode;
	b->mwr.send_flags = qp->ibqp_ex.wr_flags &
			    ~(unsigned int)IBV_SEND_INLINE;
	b->mwr.rkey = rkey;
	b->mwr.remote_addr = remote_addr;
	b->staged = true;
	b->mpe = true;
	return &b->mwr;
}

static void qpx_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr, const void *atomic_wr)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct sv_mpe_wr *w = stage_mpe(qp, IBV_WR_ATOMIC_WRITE, rkey,
					remote_addr);

	if (!atomic_wr)
		batch_fail(qp->batch, EINVAL);
	else
		memcpy(w->value, atomic_wr, sizeof(w->value));
}

static void qpx_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
		      uint64_t remote_addr, size_t len, uint8_t type,
		      uint8_t level)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct sv_mpe_wr *w = stage_mpe(qp, SV_WR_FLUSH, rkey, remote_addr);

	if (len > UINT32_MAX)
		batch_fail(qp->batch, EINVAL);
	w->length = (uint32_t)len;
	w->type = type;
	w->level = level;
}

/* ------------------------------------------------------------------ */
/* Setters: they complete the request the last builder staged          */

/* The staged ibv_send_wr, or NULL (error kept) when there is none. */
static struct ibv_send_wr *staged_wr(struct sv_qp *qp, bool has_data)
{
	struct sv_wr_batch *b = qp->batch;

	if (!b->staged) {
		batch_fail(b, EINVAL);	/* a setter needs a builder first */
		return NULL;
	}
	if (b->mpe) {
		/* ATOMIC WRITE and FLUSH carry no local data */
		if (has_data)
			batch_fail(b, EINVAL);
		return NULL;
	}
	return &b->wr;
}

static void qpx_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			     const struct ibv_sge *sg_list)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct ibv_send_wr *wr = staged_wr(qp, num_sge != 0);

	if (!wr)
		return;
	if (num_sge > qp->sq.max_sge || (num_sge && !sg_list)) {
		batch_fail(qp->batch, EINVAL);
		return;
	}
	memcpy(qp->batch->sge, sg_list, num_sge * sizeof(*sg_list));
	wr->sg_list = qp->batch->sge;
	wr->num_sge = (int)num_sge;
	wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void qpx_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	qpx_set_sge_list(qpx, 1, &sge);
}

static void qpx_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				     const struct ibv_data_buf *buf_list)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct sv_wr_batch *b = qp->batch;
	struct ibv_send_wr *wr;
	size_t i, total = 0;

	for (i = 0; i < num_buf; i++)
		total += buf_list[i].length;
	wr = staged_wr(qp, total != 0);
	if (!wr)
		return;
	if (total > qp->sq.max_inline) {
		batch_fail(b, EINVAL);
		return;
	}
	/* copied now: the caller may reuse its buffers when we return */
	total = 0;
	for (i = 0; i < num_buf; i++) {
		memcpy(b->inline_buf + total, buf_list[i].addr,
		       buf_list[i].length);
		total += buf_list[i].length;
	}
	b->inline_sge.addr = (uintptr_t)b->inline_buf;
	b->inline_sge.length = (uint32_t)total;
	b->inline_sge.lkey = 0;
	wr->sg_list = &b->inline_sge;
	wr->num_sge = total ? 1 : 0;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void qpx_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	qpx_set_inline_data_list(qpx, 1, &buf);
}

static void qpx_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			    uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct ibv_send_wr *wr = staged_wr(qp, true);

	if (!wr)
		return;
	/* wr.ud shares a union with wr.rdma: only a UD QP uses it */
	if (qp->ibqp.qp_type != IBV_QPT_UD)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

/*
 * The remote XRC SRQ of the staged request (IBTA A14); each request of an
 * XRC sender needs one, the encoder refuses a request without (EINVAL).
 * Like wr_set_ud_addr on a QP of another type, ignored elsewhere.
 */
static void qpx_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct sv_qp *qp = to_sv_qp_ex(qpx);
	struct ibv_send_wr *wr = staged_wr(qp, false);

	if (!wr || qp->ibqp.qp_type != IBV_QPT_XRC_SEND)
		return;
	wr->qp_type.xrc.remote_srqn = remote_srqn;
}

static void qpx_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz,
			 uint16_t mss)
{
	(void)hdr, (void)hdr_sz, (void)mss;
	batch_fail(to_sv_qp_ex(qpx)->batch, EOPNOTSUPP);
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/* Each send_ops_flags bit: the opcode it stands for and its builder. */
static const struct {
	uint64_t flag;
	unsigned int opcode;
} send_ops[] = {
	{ IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE },
	{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ IBV_QP_EX_WITH_SEND, IBV_WR_SEND },
	{ IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM },
	{ IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ },
	{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP },
	{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV },
	{ IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW },
	{ IBV_QP_EX_WITH_SEND_WITH_INV, IBV_WR_SEND_WITH_INV },
	{ SV_QP_EX_WITH_FLUSH, SV_WR_FLUSH },
	{ IBV_QP_EX_WITH_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE },
};

/*
 * ibv_wr_post(3): creation fails when the QP cannot do every requested
 * operation.  The answer is the encoder's opcode table (wqe.c), so the ex
 * API and ibv_post_send accept the same operations per QP type.  TSO
 * (UD/raw packet segmentation offload) is not something softverbs does.
 */
static int check_send_ops(uint64_t flags, enum ibv_qp_type type)
{
	uint64_t known = 0;
	size_t i;

	for (i = 0; i < sizeof(send_ops) / sizeof(send_ops[0]); i++) {
		known |= send_ops[i].flag;
		if ((flags & send_ops[i].flag) &&
		    !sv_wqe_op_allowed(send_ops[i].opcode, type))
			return EOPNOTSUPP;
	}
	return flags & ~known ? EOPNOTSUPP : 0;
}

/* Only the builders the QP was created for are set, as rdma-core does. */
static void set_ops(struct sv_qp *qp, uint64_t flags)
{
	struct ibv_qp_ex *x = &qp->ibqp_ex;

	x->wr_start = qpx_wr_start;
	x->wr_complete = qpx_wr_complete;
	x->wr_abort = qpx_wr_abort;
	x->wr_set_sge = qpx_set_sge;
	x->wr_set_sge_list = qpx_set_sge_list;
	x->wr_set_inline_data = qpx_set_inline_data;
	x->wr_set_inline_data_list = qpx_set_inline_data_list;
	x->wr_set_ud_addr = qpx_set_ud_addr;
	x->wr_set_xrc_srqn = qpx_set_xrc_srqn;
	if (flags & IBV_QP_EX_WITH_SEND)
		x->wr_send = qpx_send;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = qpx_send_imm;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = qpx_send_inv;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = qpx_rdma_write;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = qpx_rdma_write_imm;
	if (flags & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = qpx_rdma_read;
	if (flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = qpx_atomic_cmp_swp;
	if (flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = qpx_atomic_fetch_add;
	if (flags & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = qpx_local_inv;
	if (flags & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = qpx_bind_mw;
	if (flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = qpx_atomic_write;
	if (flags & SV_QP_EX_WITH_FLUSH)
		qp->SV_QP_WR_FLUSH = qpx_flush;
	(void)qpx_send_tso;	/* never requested: check_send_ops refuses TSO */
}

_Static_assert(offsetof(struct sv_qp, SV_QP_WR_FLUSH) ==
	       offsetof(struct ibv_qp_ex, wr_atomic_write) + sizeof(void *),
	       "wr_flush must sit where rdma-core 45's ibv_qp_ex has it");

#define SV_QP_INIT_ATTR_SUPPORTED (IBV_QP_INIT_ATTR_PD | \
				   IBV_QP_INIT_ATTR_CREATE_FLAGS | \
				   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

struct ibv_qp *sv_qp_create_ex(struct ibv_context *ctx,
			       struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr ia;
	struct sv_wr_batch *b;
	struct sv_qp *qp;
	uint64_t ops = 0;
	int err;

	/* an XRC receive QP belongs to a domain, not a PD (IBTA A14) */
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_XRCD |
						  IBV_QP_INIT_ATTR_PD)) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		return sv_qp_create_xrc_recv(ctx, attr);
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	/* TSO headers, RSS: not softverbs' transports */
	if ((attr->comp_mask & ~(uint32_t)SV_QP_INIT_ATTR_SUPPORTED) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = attr->send_ops_flags;
		err = check_send_ops(ops, attr->qp_type);
		if (err) {
			errno = err;
			return NULL;
		}
	}

	/* ibv_qp_init_attr is the prefix of ibv_qp_init_attr_ex */
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = attr->qp_context;
	ia.send_cq = attr->send_cq;
	ia.recv_cq = attr->recv_cq;
	ia.srq = attr->srq;
	ia.cap = attr->cap;
	ia.qp_type = attr->qp_type;
	ia.sq_sig_all = attr->sq_sig_all;
	qp = sv_qp_create_common(attr->pd, &ia);
	if (!qp)
		return NULL;
	attr->cap = ia.cap;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return &qp->ibqp;

	b = calloc(1, sizeof(*b) + qp->sq.max_sge * sizeof(struct ibv_sge) +
		   qp->sq.max_inline);
	if (!b) {
		sv_qp_destroy(&qp->ibqp);
		errno = ENOMEM;
		return NULL;
	}
	b->sge = (struct ibv_sge *)(b + 1);
	b->inline_buf = (uint8_t *)(b->sge + qp->sq.max_sge);
	qp->batch = b;
	set_ops(qp, ops);
	return &qp->ibqp;
}

void sv_qp_ex_free(struct sv_qp *qp)
{
	free(qp->batch);
	qp->batch = NULL;
}

SV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct sv_qp *qp = to_sv_qp(ibqp);

	/* like libibverbs: only a QP created with send_ops_flags has one */
	if (!qp->batch) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &qp->ibqp_ex;
}
