// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended verbs against the fake kernel: ibv_create_qp_ex with
 * send_ops_flags, the ibv_wr_* batch (WQEs in the SQ only at wr_complete,
 * one doorbell, nothing after wr_abort or an error), thread and parent
 * domains with a custom allocator, and the ex verbs that answer
 * EOPNOTSUPP (advise_mr, query_rt_values_ex, ECE, XRC SRQs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "fake.h"
#include "harness.h"
#include "../../ulib/include/softverbs.h"

struct xenv {
	struct fake_tree t;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
};

#define RC_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV | \
		IBV_QP_EX_WITH_ATOMIC_WRITE | SOFTVERBS_QP_EX_WITH_FLUSH)

static struct ibv_qp *create_ex(struct xenv *e, struct ibv_pd *pd,
				enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = e->cq, .recv_cq = e->cq,
		.cap = { .max_send_wr = 7, .max_recv_wr = 3,
			 .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.qp_type = type,
		/* no send_ops_flags at all: an ordinary QP */
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     (ops ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0),
		.pd = pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(e->ctx, &a);
}

static bool xsetup(struct xenv *e, enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_device **list;

	memset(e, 0, sizeof(*e));
	fake_standard_setup(&e->t);
	fk.objects = true;
	list = ibv_get_device_list(NULL);
	if (list && list[0])
		e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	CHECK(e->ctx != NULL);
	if (!e->ctx)
		return false;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 7, NULL, NULL, 0);
	CHECK(e->pd && e->cq);
	if (!e->pd || !e->cq)
		return false;
	if (!ops)
		return true;
	e->qp = create_ex(e, e->pd, type, ops);
	CHECK(e->qp != NULL);
	if (!e->qp)
		return false;
	e->qpx = ibv_qp_to_qp_ex(e->qp);
	CHECK(e->qpx != NULL);
	CHECK((void *)e->qpx == (void *)e->qp);	/* qp_base comes first */
	return e->qpx != NULL;
}

static void xteardown(struct xenv *e)
{
	unsigned int i;

	if (e->qp)
		CHECK_INT(ibv_destroy_qp(e->qp), 0);
	if (e->cq)
		CHECK_INT(ibv_destroy_cq(e->cq), 0);
	if (e->pd)
		CHECK_INT(ibv_dealloc_pd(e->pd), 0);
	if (e->ctx)
		ibv_close_device(e->ctx);
	for (i = 0; i < fk.nrings; i++) {
		CHECK_INT(fk.rings[i].maps, 0);
		free(fk.rings[i].buf);
	}
	fake_tree_destroy(&e->t);
}

static void to_rts(struct ibv_qp *qp)
{
	static const enum ibv_qp_state s[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct ibv_qp_attr a = { .qp_state = s[i] };

		CHECK_INT(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	}
}

static struct sv_send_wqe *slot(uint32_t i)
{
	return (struct sv_send_wqe *)(fk.last_sq->data +
				      ((size_t)(i & fk.last_sq->index_mask) << 9));
}

TEST(qp_ex_send_ops_per_qp_type)
{
	struct ibv_qp *qp;
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_RC, RC_OPS))
		goto out;
	/* every builder requested is there; FLUSH after wr_atomic_write */
	CHECK(e.qpx->wr_send && e.qpx->wr_send_imm && e.qpx->wr_send_inv &&
	      e.qpx->wr_rdma_write && e.qpx->wr_rdma_write_imm &&
	      e.qpx->wr_rdma_read && e.qpx->wr_atomic_cmp_swp &&
	      e.qpx->wr_atomic_fetch_add && e.qpx->wr_local_inv &&
	      e.qpx->wr_bind_mw && e.qpx->wr_atomic_write);
	CHECK(e.qpx->wr_start && e.qpx->wr_complete && e.qpx->wr_abort &&
	      e.qpx->wr_set_sge && e.qpx->wr_set_sge_list &&
	      e.qpx->wr_set_inline_data && e.qpx->wr_set_inline_data_list &&
	      e.qpx->wr_set_ud_addr);
	CHECK(e.qpx->wr_send_tso == NULL);

	/* what a QP type cannot do fails creation (ibv_wr_post(3)) */
	errno = 0;
	CHECK(create_ex(&e, e.pd, IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(create_ex(&e, e.pd, IBV_QPT_UC, IBV_QP_EX_WITH_RDMA_READ) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(create_ex(&e, e.pd, IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_WRITE) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(create_ex(&e, e.pd, IBV_QPT_UD, IBV_QP_EX_WITH_TSO) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);

	/* only the requested builders are set */
	qp = create_ex(&e, e.pd, IBV_QPT_UD, IBV_QP_EX_WITH_SEND);
	CHECK(qp != NULL);
	if (qp) {
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

		CHECK(x && x->wr_send && !x->wr_send_imm && !x->wr_rdma_write);
		CHECK_INT(ibv_destroy_qp(qp), 0);
	}
	/* a QP without send_ops_flags has no ibv_qp_ex */
	qp = create_ex(&e, e.pd, IBV_QPT_RC, 0);
	CHECK(qp != NULL);
	if (qp) {
		errno = 0;
		CHECK(ibv_qp_to_qp_ex(qp) == NULL);
		CHECK_INT(errno, EOPNOTSUPP);
		CHECK_INT(ibv_destroy_qp(qp), 0);
	}
out:
	xteardown(&e);
}

TEST(qp_ex_batch_one_doorbell_same_wqes)
{
	uint8_t text[24] = "inline, copied at once";
	uint64_t value = 0x1122334455667788ull;
	struct ibv_data_buf bufs[2] = { { text, 8 }, { text + 8, 14 } };
	struct ibv_sge sg[2] = { { 0x1000, 16, 5 }, { 0x2000, 8, 6 } };
	unsigned int posts;
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_RC, RC_OPS))
		goto out;
	/* RESET: the whole batch fails at wr_complete, nothing written */
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	CHECK_INT(fk.last_sq->producer_index, 0);
	to_rts(e.qp);

	posts = fk.count[IB_USER_VERBS_CMD_POST_SEND];
	ibv_wr_start(e.qpx);
	e.qpx->wr_id = 1;
	e.qpx->wr_flags = 0;
	ibv_wr_rdma_write(e.qpx, 0x77, 0x9000);
	ibv_wr_set_sge_list(e.qpx, 2, sg);
	e.qpx->wr_id = 2;
	e.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(e.qpx, htobe32(0xabcd));
	ibv_wr_set_inline_data_list(e.qpx, 2, bufs);
	memset(text, 0, sizeof(text));		/* copied by the setter */
	e.qpx->wr_id = 3;
	ibv_wr_atomic_cmp_swp(e.qpx, 0x78, 0xa000, 5, 6);
	ibv_wr_set_sge(e.qpx, 7, 0x3000, 8);
	e.qpx->wr_id = 4;
	ibv_wr_atomic_write(e.qpx, 0x79, 0xb000, &value);
	e.qpx->wr_id = 5;
	softverbs_wr_flush(e.qpx, 0x7a, 0xc000, 4096, SOFTVERBS_FLUSH_GLOBAL,
			   SOFTVERBS_FLUSH_RANGE);
	/* nothing is visible before wr_complete */
	CHECK_INT(fk.last_sq->producer_index, 0);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], posts);
	CHECK_INT(ibv_wr_complete(e.qpx), 0);
	CHECK_INT(fk.last_sq->producer_index, 5);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], posts + 1);

	/* the same WQEs ibv_post_send writes (one encoder) */
	CHECK_INT(slot(0)->wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK(slot(0)->iova == 0x9000 && slot(0)->wr.wr.rdma.rkey == 0x77);
	CHECK_INT(slot(0)->dma.num_sge, 2);
	CHECK_INT(slot(0)->dma.length, 24);
	CHECK_INT(slot(0)->dma.sge[1].lkey, 6);
	CHECK_INT(slot(1)->wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_INT(slot(1)->wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	CHECK_INT(slot(1)->wr.ex.imm_data, htobe32(0xabcd));
	CHECK_INT(slot(1)->dma.length, 22);
	CHECK_MEM(slot(1)->dma.inline_data, "inline, copied at once", 22);
	CHECK_INT(slot(2)->wr.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	CHECK(slot(2)->wr.wr.atomic.compare_add == 5 &&
	      slot(2)->wr.wr.atomic.swap == 6 && slot(2)->iova == 0xa000);
	CHECK_INT(slot(3)->wr.opcode, IBV_WR_ATOMIC_WRITE);
	CHECK_MEM(slot(3)->dma.atomic_wr, &value, 8);
	CHECK_INT(slot(4)->wr.opcode, 14);		/* IBV_WR_FLUSH */
	CHECK_INT(slot(4)->wr.wr.flush.length, 4096);
	CHECK_INT(slot(4)->wr.wr.flush.type, SOFTVERBS_FLUSH_GLOBAL);
	CHECK(slot(0)->wr.wr_id == 1 && slot(4)->wr.wr_id == 5);
	CHECK(slot(0)->ssn == 0 && slot(4)->ssn == 4);

	/* classic post_send interleaves: next ssn, next slot */
	fk.last_sq->consumer_index = 5;
	{
		struct ibv_send_wr w = { .wr_id = 6, .opcode = IBV_WR_SEND };
		struct ibv_send_wr *bad;

		CHECK_INT(ibv_post_send(e.qp, &w, &bad), 0);
		CHECK_INT(slot(5)->ssn, 5);
	}
out:
	xteardown(&e);
}

TEST(qp_ex_abort_and_errors_post_nothing)
{
	struct ibv_sge sg[3] = { { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 } };
	uint8_t big[1024] = { 0 };	/* above any slot's inline room */
	unsigned int posts, i;
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_RC, RC_OPS))
		goto out;
	to_rts(e.qp);
	posts = fk.count[IB_USER_VERBS_CMD_POST_SEND];

	/* abort: discarded, ssn not consumed */
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	ibv_wr_set_sge(e.qpx, 1, 0x1000, 4);
	ibv_wr_send(e.qpx);
	ibv_wr_abort(e.qpx);
	CHECK_INT(fk.last_sq->producer_index, 0);

	/* too many SGEs: the good first WR is not posted either */
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	ibv_wr_rdma_write(e.qpx, 1, 0);
	ibv_wr_set_sge_list(e.qpx, 3, sg);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	/* inline above max_inline_data */
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	ibv_wr_set_inline_data(e.qpx, big, sizeof(big));
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	/* a setter with no builder before it */
	ibv_wr_start(e.qpx);
	ibv_wr_set_sge(e.qpx, 1, 0x1000, 4);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	/* READ cannot be inline (the shared encoder says so) */
	ibv_wr_start(e.qpx);
	ibv_wr_rdma_read(e.qpx, 1, 0);
	ibv_wr_set_inline_data(e.qpx, big, 8);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	/* a misaligned ATOMIC WRITE */
	ibv_wr_start(e.qpx);
	ibv_wr_atomic_write(e.qpx, 1, 0x1004, big);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	CHECK_INT(fk.last_sq->producer_index, 0);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], posts);

	/* an empty batch completes without a doorbell */
	ibv_wr_start(e.qpx);
	CHECK_INT(ibv_wr_complete(e.qpx), 0);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], posts);

	/* 7 usable slots: an 8th WR makes the whole batch ENOMEM */
	ibv_wr_start(e.qpx);
	for (i = 0; i < 8; i++) {
		e.qpx->wr_id = i;
		ibv_wr_send(e.qpx);
	}
	CHECK_INT(ibv_wr_complete(e.qpx), ENOMEM);
	CHECK_INT(fk.last_sq->producer_index, 0);
	/* 7 fit, numbered from ssn 0: aborted batches consumed none */
	ibv_wr_start(e.qpx);
	for (i = 0; i < 7; i++) {
		e.qpx->wr_id = i;
		ibv_wr_send(e.qpx);
	}
	CHECK_INT(ibv_wr_complete(e.qpx), 0);
	CHECK_INT(fk.last_sq->producer_index, 7);
	CHECK_INT(slot(0)->ssn, 0);
	CHECK_INT(slot(6)->ssn, 6);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], posts + 1);
out:
	xteardown(&e);
}

TEST(qp_ex_ud_address)
{
	struct sv_ah ah = { .ah_num = 9 };
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
					IBV_QP_EX_WITH_SEND_WITH_IMM))
		goto out;
	to_rts(e.qp);
	ibv_wr_start(e.qpx);
	ibv_wr_send(e.qpx);
	ibv_wr_set_ud_addr(e.qpx, &ah.ibah, 0x123, 0x11111111);
	ibv_wr_set_sge(e.qpx, 1, 0x1000, 4);
	/* a UD send without an address is malformed */
	ibv_wr_send(e.qpx);
	ibv_wr_set_sge(e.qpx, 1, 0x1000, 4);
	CHECK_INT(ibv_wr_complete(e.qpx), EINVAL);
	ibv_wr_start(e.qpx);
	ibv_wr_send_imm(e.qpx, 7);
	ibv_wr_set_sge(e.qpx, 1, 0x1000, 4);
	ibv_wr_set_ud_addr(e.qpx, &ah.ibah, 0x123, 0x11111111);
	CHECK_INT(ibv_wr_complete(e.qpx), 0);
	CHECK_INT(slot(0)->wr.wr.ud.ah_num, 9);
	CHECK_INT(slot(0)->wr.wr.ud.remote_qpn, 0x123);
	CHECK_INT(slot(0)->wr.wr.ud.remote_qkey, 0x11111111);
out:
	xteardown(&e);
}

/* A custom allocator that counts and tags what it hands out. */
static struct {
	int allocs, frees, defaults;
	uint64_t last_type;
	void *ctx_seen;
	bool use_default;
} alc;

static void *count_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			 size_t alignment, uint64_t type)
{
	void *p;

	(void)pd;
	alc.ctx_seen = pd_context;
	alc.last_type = type;
	if (alc.use_default) {
		alc.defaults++;
		return IBV_ALLOCATOR_USE_DEFAULT;
	}
	if (posix_memalign(&p, alignment, size))
		return NULL;
	memset(p, 0xa5, size);		/* the library must zero it */
	alc.allocs++;
	return p;
}

static void count_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		       uint64_t type)
{
	(void)pd, (void)pd_context, (void)type;
	alc.frees++;
	free(ptr);
}

TEST(parent_domain_allocator_and_td)
{
	struct ibv_td_init_attr tda = {};
	struct ibv_parent_domain_init_attr pda = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = count_alloc, .free = count_free,
		.pd_context = &alc,
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 3, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_cq_ex *cq;
	struct ibv_td *td, *bad_td;
	struct ibv_pd *pdom;
	struct ibv_qp *qp;
	struct xenv e;

	memset(&alc, 0, sizeof(alc));
	if (!xsetup(&e, IBV_QPT_RC, 0))
		goto out;
	tda.comp_mask = 1;
	errno = 0;
	bad_td = ibv_alloc_td(e.ctx, &tda);
	CHECK(bad_td == NULL);
	CHECK_INT(errno, EINVAL);
	tda.comp_mask = 0;
	td = ibv_alloc_td(e.ctx, &tda);
	CHECK(td != NULL);
	pda.pd = e.pd;
	pda.td = td;
	/* rdma-core 65's CC unprotected buffers (1 << 2): not supported, so
	 * its suite skips the tests of them */
	pda.comp_mask |= 1u << 2;
	errno = 0;
	pdom = ibv_alloc_parent_domain(e.ctx, &pda);
	CHECK(pdom == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	pda.comp_mask &= ~(1u << 2);
	pdom = ibv_alloc_parent_domain(e.ctx, &pda);
	CHECK(pdom != NULL);
	if (!td || !pdom)
		goto out;
	CHECK_INT(pdom->handle, e.pd->handle);
	/* neither may go while the parent domain names them */
	CHECK_INT(ibv_dealloc_td(td), EBUSY);
	CHECK_INT(ibv_dealloc_pd(e.pd), EBUSY);
	/* a plain PD is not a parent domain for a CQ */
	ca.parent_domain = e.pd;
	errno = 0;
	CHECK(ibv_create_cq_ex(e.ctx, &ca) == NULL);
	CHECK_INT(errno, EINVAL);

	ca.parent_domain = pdom;
	cq = ibv_create_cq_ex(e.ctx, &ca);
	CHECK(cq != NULL);
	CHECK_INT(alc.allocs, 1);
	CHECK_INT(alc.last_type, SOFTVERBS_RES_TYPE_CQ);
	CHECK(alc.ctx_seen == &alc);
	qp = create_ex(&e, pdom, IBV_QPT_RC, IBV_QP_EX_WITH_SEND);
	CHECK(qp != NULL);
	CHECK_INT(alc.allocs, 2);
	CHECK_INT(alc.last_type, SOFTVERBS_RES_TYPE_QP);
	if (qp) {
		CHECK(qp->pd == pdom);
		CHECK_INT(ibv_destroy_qp(qp), 0);
	}
	if (cq)
		CHECK_INT(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	CHECK_INT(alc.frees, 2);
	/* USE_DEFAULT: our own memory, and free() not asked to take it */
	alc.use_default = true;
	qp = create_ex(&e, pdom, IBV_QPT_RC, IBV_QP_EX_WITH_SEND);
	CHECK(qp != NULL);
	if (qp)
		CHECK_INT(ibv_destroy_qp(qp), 0);
	CHECK_INT(alc.defaults, 1);
	CHECK_INT(alc.frees, 2);

	CHECK_INT(ibv_dealloc_pd(pdom), 0);
	CHECK_INT(ibv_dealloc_td(td), 0);
out:
	xteardown(&e);
}

TEST(ex_verbs_without_support_say_eopnotsupp)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_TM,
	};
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_sge sge = { 0x1000, 8, 1 };
	struct ibv_ece ece = {};
	struct ibv_port_attr pa;
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_RC, IBV_QP_EX_WITH_SEND))
		goto out;
	sa.pd = e.pd;
	errno = 0;
	CHECK(ibv_create_srq_ex(e.ctx, &sa) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	/* an XRC SRQ without its domain and CQ is the caller's mistake */
	sa.srq_type = IBV_SRQT_XRC;
	errno = 0;
	CHECK(ibv_create_srq_ex(e.ctx, &sa) == NULL);
	CHECK_INT(errno, EINVAL);
	/* ADVISE_MR and REG_DMABUF_MR go out as ioctl methods */
	CHECK_INT(ibv_advise_mr(e.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1), 0);
	CHECK_INT(fk.advise_count, 1);
	CHECK_INT(fk.last_advise_pd, e.pd->handle);
	CHECK_INT(fk.last_advice, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	CHECK_INT(fk.last_advise_flags, IBV_ADVISE_MR_FLAG_FLUSH);
	CHECK_INT(fk.last_advise_nsge, 1);
	CHECK(fk.last_advise_sge.addr == 0x1000 &&
	      fk.last_advise_sge.length == 8 && fk.last_advise_sge.lkey == 1);
	CHECK_INT(ibv_advise_mr(e.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				&sge, 0), EINVAL);
	{
		struct ibv_mr *mr = ibv_reg_dmabuf_mr(e.pd, 4096, 8192, 0x5000,
						      9, IBV_ACCESS_LOCAL_WRITE);

		CHECK(mr != NULL);
		CHECK_INT(fk.dmabuf_count, 1);
		CHECK(fk.last_dmabuf_offset == 4096 &&
		      fk.last_dmabuf_length == 8192 &&
		      fk.last_dmabuf_iova == 0x5000);
		CHECK_INT(fk.last_dmabuf_fd, 9);
		CHECK_INT(fk.last_dmabuf_access, IBV_ACCESS_LOCAL_WRITE);
		if (mr) {
			CHECK_INT(mr->handle, 77);
			CHECK_INT(mr->lkey, 0x4242);
			CHECK_INT(mr->rkey, 0x4242);
			CHECK(mr->addr == (void *)4096 && mr->length == 8192);
			free(mr);	/* the fake kernel keeps no MR */
		}
	}
	CHECK_INT(ibv_query_rt_values_ex(e.ctx, &v), EOPNOTSUPP);
	CHECK_INT(ibv_query_ece(e.qp, &ece), EOPNOTSUPP);
	CHECK_INT(ibv_set_ece(e.qp, &ece), EOPNOTSUPP);
	/* the ex port field the write path cannot carry reads 0 */
	memset(&pa, 0xff, sizeof(pa));
	CHECK_INT(ibv_query_port(e.ctx, 1, &pa), 0);
	CHECK_INT(pa.port_cap_flags2, 0);
out:
	xteardown(&e);
}

/*
 * XRC (IBTA A14) through the commands: a domain, an XRC SRQ naming its
 * domain and CQ, a sender QP without a receive queue, a receive QP made in
 * the domain (no PD, no ring), and a second handle on it (OPEN_QP).
 */
TEST(xrc_objects_and_qps)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad = NULL;
	struct ibv_send_wr swr = { .wr_id = 2, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *sbad = NULL;
	struct ibv_qp *ini, *tgt, *opened;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	uint32_t xh, n = 0;
	struct xenv e;

	if (!xsetup(&e, IBV_QPT_RC, 0))
		goto out;
	xrcd = ibv_open_xrcd(e.ctx, &xa);
	CHECK(xrcd != NULL);
	if (!xrcd)
		goto out;
	xh = to_sv_xrcd(xrcd)->handle;

	sa.pd = e.pd;
	sa.xrcd = xrcd;
	sa.cq = e.cq;
	srq = ibv_create_srq_ex(e.ctx, &sa);
	CHECK(srq != NULL);
	if (!srq)
		goto close;
	CHECK_INT(fk.last_xsrq.srq_type, IB_UVERBS_SRQT_XRC);
	CHECK_INT(fk.last_xsrq.xrcd_handle, xh);
	CHECK_INT(fk.last_xsrq.cq_handle, e.cq->handle);
	CHECK_INT(fk.last_xsrq.pd_handle, e.pd->handle);
	CHECK_INT(ibv_get_srq_num(srq, &n), 0);
	CHECK_INT(n, 0x500 + srq->handle);

	/* the sender: a send queue only, the send CQ as the receive one */
	ia.pd = e.pd;
	ia.send_cq = e.cq;
	ini = ibv_create_qp_ex(e.ctx, &ia);
	CHECK(ini != NULL);
	if (ini) {
		CHECK_INT(fk.last_create_qp.qp_type, IB_UVERBS_QPT_XRC_INI);
		CHECK_INT(fk.last_create_qp.recv_cq_handle, e.cq->handle);
		CHECK(fk.last_rq == NULL);
		CHECK(ibv_post_recv(ini, &rwr, &rbad) == EINVAL && rbad == &rwr);
		CHECK_INT(ibv_destroy_qp(ini), 0);
	}
	/* the ibv_wr_* builders: every request names its SRQ, or fails */
	ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ;
	ini = ibv_create_qp_ex(e.ctx, &ia);
	CHECK(ini != NULL);
	if (ini) {
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(ini);
		struct sv_send_wqe *w = (void *)fk.last_sq->data;

		to_rts(ini);
		ibv_wr_start(x);
		x->wr_id = 11;
		ibv_wr_send(x);
		ibv_wr_set_xrc_srqn(x, 0x123456);
		ibv_wr_set_sge(x, 1, 0x1000, 8);
		CHECK_INT(ibv_wr_complete(x), 0);
		CHECK_INT(w->wr.xrc_srqn, 0x123456);
		CHECK(w->wr.wr_id == 11);
		/* a request without its SRQ fails the batch, posts nothing */
		ibv_wr_start(x);
		ibv_wr_send(x);
		ibv_wr_set_sge(x, 1, 0x1000, 8);
		CHECK_INT(ibv_wr_complete(x), EINVAL);
		CHECK_INT(ibv_destroy_qp(ini), 0);
	}

	/* the receiver: in the domain, no PD, nothing to post to */
	errno = 0;
	CHECK(ibv_create_qp_ex(e.ctx, &ta) == NULL && errno == EINVAL);
	ta.xrcd = xrcd;
	tgt = ibv_create_qp_ex(e.ctx, &ta);
	CHECK(tgt != NULL);
	if (!tgt)
		goto srq;
	CHECK_INT(fk.last_create_qp.qp_type, IB_UVERBS_QPT_XRC_TGT);
	CHECK_INT(fk.last_create_qp.pd_handle, xh);
	CHECK(tgt->pd == NULL && tgt->qp_type == IBV_QPT_XRC_RECV);
	CHECK(ibv_post_send(tgt, &swr, &sbad) == EINVAL && sbad == &swr);
	rbad = NULL;
	CHECK(ibv_post_recv(tgt, &rwr, &rbad) == EINVAL && rbad == &rwr);

	/* a second handle on it, through the domain */
	oa.qp_num = tgt->qp_num;
	oa.xrcd = xrcd;
	opened = ibv_open_qp(e.ctx, &oa);
	CHECK(opened != NULL);
	if (opened) {
		CHECK_INT(fk.last_open_qp.pd_handle, xh);
		CHECK_INT(fk.last_open_qp.qpn, tgt->qp_num);
		CHECK_INT(fk.last_open_qp.qp_type, IB_UVERBS_QPT_XRC_TGT);
		CHECK_INT(opened->qp_num, tgt->qp_num);
		CHECK_INT(ibv_destroy_qp(opened), 0);
	}
	oa.comp_mask &= ~IBV_QP_OPEN_ATTR_TYPE;
	errno = 0;
	CHECK(ibv_open_qp(e.ctx, &oa) == NULL && errno == EINVAL);
	CHECK_INT(ibv_destroy_qp(tgt), 0);
srq:
	CHECK_INT(ibv_destroy_srq(srq), 0);
close:
	CHECK_INT(ibv_close_xrcd(xrcd), 0);
out:
	xteardown(&e);
}
