// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQs and QPs through the public API against the fake kernel: the command
 * bytes, the mapped rings (post_send fills the SQ and rings the doorbell,
 * post_recv and poll_cq touch memory only), ring-full and state errors,
 * cq_ex polling, and a CQ resize with entries pending.
 */
#include <errno.h>
#include <stdlib.h>

#include "fake.h"
#include "harness.h"

struct env {
	struct fake_tree t;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static bool setup(struct env *e, enum ibv_qp_type type)
{
	struct ibv_device **list;
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 3, .max_recv_wr = 3,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 32 },
		.qp_type = type,
	};

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
	CHECK(e->pd != NULL);
	e->cq = ibv_create_cq(e->ctx, 3, e, NULL, 0);
	CHECK(e->cq != NULL);
	if (!e->pd || !e->cq)
		return false;
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &ia);
	CHECK(e->qp != NULL);
	if (!e->qp)
		return false;
	/* granted caps come back; inline is what the slot can hold */
	CHECK_INT(ia.cap.max_send_wr, 3);
	CHECK_INT(ia.cap.max_inline_data,
		  512 - offsetof(struct sv_send_wqe, dma.inline_data));
	return true;
}

static void set_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	CHECK_INT(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	CHECK_INT(qp->state, s);
}

static void teardown(struct env *e)
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
	/* every ring mapped was unmapped */
	for (i = 0; i < fk.nrings; i++) {
		CHECK_INT(fk.rings[i].maps, 0);
		free(fk.rings[i].buf);
	}
	fake_tree_destroy(&e->t);
}

static struct sv_send_wqe *sq_slot(uint32_t i)
{
	return (struct sv_send_wqe *)(fk.last_sq->data +
				      ((size_t)(i & fk.last_sq->index_mask) << 9));
}

TEST(qp_create_command_and_rings)
{
	struct env e;
	struct sv_resp_create_qp *r;
	const uint8_t *b;
	struct ib_uverbs_create_qp c;
	unsigned int i;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	/* the CREATE_QP command as the kernel receives it */
	for (i = fk.ncmds; i-- > 0;)
		if (*(const uint32_t *)fk.cmds[i].bytes ==
		    IB_USER_VERBS_CMD_CREATE_QP)
			break;
	b = fk.cmds[i].bytes;
	CHECK_INT(fk.cmds[i].len, 8 + sizeof(c));
	CHECK_INT(((const struct ib_uverbs_cmd_hdr *)b)->out_words,
		  sizeof(*r) / 4);
	memcpy(&c, b + 8, sizeof(c));
	CHECK(c.user_handle == (uintptr_t)e.qp);
	CHECK_INT(c.pd_handle, e.pd->handle);
	CHECK_INT(c.send_cq_handle, e.cq->handle);
	CHECK_INT(c.recv_cq_handle, e.cq->handle);
	CHECK_INT(c.max_send_wr, 3);
	CHECK_INT(c.max_inline_data, 32);
	CHECK_INT(c.qp_type, IBV_QPT_RC);
	CHECK_INT(c.is_srq, 0);
	CHECK_INT(e.qp->qp_num, 0x100 + e.qp->handle);
	CHECK_INT(e.qp->state, IBV_QPS_RESET);
	CHECK(e.qp->send_cq == e.cq && e.qp->pd == e.pd);
	/* SQ and RQ of the QP plus the CQ ring are mapped */
	CHECK_INT(fake_ring_of(fk.last_sq)->maps, 1);
	CHECK_INT(fake_ring_of(fk.last_rq)->maps, 1);
	CHECK_INT(fake_ring_of(fk.last_cq)->maps, 1);
out:
	teardown(&e);
}

TEST(post_send_fills_sq_then_doorbell)
{
	uint8_t payload[20] = "inline bytes here!";
	struct ibv_sge s = { (uintptr_t)payload, sizeof(payload), 0x42 };
	struct ibv_send_wr w2 = {
		.wr_id = 2, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr w1 = {
		.wr_id = 1, .next = &w2, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = 0x7000, .rkey = 9 },
	};
	struct ibv_send_wr *bad = (void *)1;
	unsigned int cmds;
	struct env e;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	/* RESET: refused before anything is written or rung */
	cmds = fk.ncmds;
	CHECK_INT(ibv_post_send(e.qp, &w1, &bad), EINVAL);
	CHECK(bad == &w1);
	CHECK_INT(fk.ncmds, cmds);
	CHECK_INT(fk.last_sq->producer_index, 0);

	set_state(e.qp, IBV_QPS_INIT);
	set_state(e.qp, IBV_QPS_RTR);
	set_state(e.qp, IBV_QPS_RTS);
	CHECK_INT(fk.last_modify_state, IBV_QPS_RTS);
	cmds = fk.ncmds;
	CHECK_INT(ibv_post_send(e.qp, &w1, &bad), 0);
	CHECK(bad == NULL);
	/* both WQEs published with one index store, then one doorbell */
	CHECK_INT(fk.last_sq->producer_index, 2);
	CHECK_INT(fk.ncmds, cmds + 1);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_POST_SEND], 1);
	CHECK_INT(fk.last_post_send.qp_handle, e.qp->handle);
	CHECK_INT(fk.last_post_send.wr_count, 0);
	CHECK_INT(fk.last_post_send.sge_count, 0);
	CHECK_INT(sq_slot(0)->wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK(sq_slot(0)->wr.wr_id == 1 && sq_slot(0)->iova == 0x7000);
	CHECK_INT(sq_slot(0)->dma.sge[0].lkey, 0x42);
	CHECK_INT(sq_slot(0)->ssn, 0);
	CHECK_INT(sq_slot(1)->ssn, 1);
	CHECK_INT(sq_slot(1)->wr.send_flags,
		  IBV_SEND_INLINE | IBV_SEND_SIGNALED);
	CHECK_MEM((uint8_t *)sq_slot(1) +
		  offsetof(struct sv_send_wqe, dma.inline_data),
		  payload, sizeof(payload));

	/* 3 usable slots: the 2nd of the next two is refused, the 1st rung */
	w1.wr_id = 3;
	w2.wr_id = 4;
	cmds = fk.ncmds;
	CHECK_INT(ibv_post_send(e.qp, &w1, &bad), ENOMEM);
	CHECK(bad == &w2);
	CHECK_INT(fk.last_sq->producer_index, 3);
	CHECK_INT(fk.ncmds, cmds + 1);
	/* the kernel consumes two: room again, and the index wraps */
	fk.last_sq->consumer_index = 2;
	CHECK_INT(ibv_post_send(e.qp, &w1, &bad), 0);
	CHECK_INT(fk.last_sq->producer_index, 1);	/* 5 & 3 */
	CHECK(sq_slot(3)->wr.wr_id == 3 && sq_slot(0)->wr.wr_id == 4);
	CHECK_INT(sq_slot(0)->ssn, 4);

	/* a malformed WR stops the list; nothing posted, no doorbell */
	fk.last_sq->consumer_index = 1;
	w1.num_sge = 3;				/* above max_send_sge */
	cmds = fk.ncmds;
	CHECK_INT(ibv_post_send(e.qp, &w1, &bad), EINVAL);
	CHECK(bad == &w1);
	CHECK_INT(fk.ncmds, cmds);
	CHECK_INT(fk.last_sq->producer_index, 1);
out:
	teardown(&e);
}

TEST(post_recv_is_memory_only)
{
	struct ibv_sge s[2] = { { 0x1000, 64, 1 }, { 0x2000, 32, 2 } };
	struct ibv_recv_wr r2 = { .wr_id = 8, .sg_list = s, .num_sge = 1 };
	struct ibv_recv_wr r1 = { .wr_id = 7, .next = &r2, .sg_list = s,
				  .num_sge = 2 };
	struct ibv_recv_wr *bad;
	struct sv_recv_wqe *w;
	unsigned int cmds;
	struct env e;

	if (!setup(&e, IBV_QPT_UD))
		goto out;
	CHECK_INT(ibv_post_recv(e.qp, &r1, &bad), EINVAL);	/* RESET */
	CHECK(bad == &r1);
	set_state(e.qp, IBV_QPS_INIT);
	cmds = fk.ncmds;
	CHECK_INT(ibv_post_recv(e.qp, &r1, &bad), 0);
	CHECK_INT(fk.ncmds, cmds);
	CHECK_INT(fk.last_rq->producer_index, 2);
	w = (struct sv_recv_wqe *)fk.last_rq->data;
	CHECK(w->wr_id == 7);
	CHECK_INT(w->dma.num_sge, 2);
	CHECK_INT(w->dma.length, 96);
	CHECK_INT(w->dma.sge[1].lkey, 2);
	w = (struct sv_recv_wqe *)(fk.last_rq->data + 128);
	CHECK(w->wr_id == 8);
	CHECK_INT(w->dma.length, 64);
	/* one slot left of three */
	CHECK_INT(ibv_post_recv(e.qp, &r1, &bad), ENOMEM);
	CHECK(bad == &r2);
	CHECK_INT(fk.last_rq->producer_index, 3);
out:
	teardown(&e);
}

/* The kernel's side: write a CQE and publish it (release). */
static void produce_cqe(struct sv_queue_buf *q, uint64_t wr_id,
			uint32_t byte_len, uint32_t flags)
{
	uint32_t p = q->producer_index;
	struct ib_uverbs_wc *c = (struct ib_uverbs_wc *)
		(q->data + ((size_t)(p & q->index_mask) << 6));

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->status = IBV_WC_SUCCESS;
	c->opcode = IBV_WC_RECV;
	c->byte_len = byte_len;
	c->wc_flags = flags;
	c->qp_num = 0x55;
	__atomic_store_n(&q->producer_index, (p + 1) & q->index_mask,
			 __ATOMIC_RELEASE);
}

static void produce_cqe_qp(struct sv_queue_buf *q, uint64_t wr_id,
			   uint32_t qpn)
{
	uint32_t p = q->producer_index;

	produce_cqe(q, wr_id, 0, 0);
	((struct ib_uverbs_wc *)(q->data +
		((size_t)(p & q->index_mask) << 6)))->qp_num = qpn;
}

TEST(poll_cq_reads_ring_without_syscalls)
{
	struct ibv_wc wc[4];
	unsigned int cmds, i;
	struct env e;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	cmds = fk.ncmds;
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 0);
	/* 3 entries (a 4-slot ring), polled 2 + 1, over a wrap */
	for (i = 0; i < 6; i++) {
		produce_cqe(fk.last_cq, 100 + i, i,
			    i == 5 ? IBV_WC_WITH_INV : 0);
		if (i == 2 || i == 5) {
			CHECK_INT(ibv_poll_cq(e.cq, 2, wc), 2);
			CHECK(wc[0].wr_id == 100 + i - 2u &&
			      wc[1].wr_id == 100 + i - 1u);
			CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 1);
			CHECK(wc[0].wr_id == 100 + i);
			CHECK_INT(wc[0].byte_len, i);
			CHECK_INT(wc[0].qp_num, 0x55);
		}
	}
	/* softverbs writes verbs.h flag values: they read back unchanged */
	CHECK_INT(wc[0].wc_flags, IBV_WC_WITH_INV);
	CHECK_INT(fk.last_cq->consumer_index, 6 & 3);
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 0);
	CHECK_INT(fk.ncmds, cmds);

	/* notify is a command */
	CHECK_INT(ibv_req_notify_cq(e.cq, 1), 0);
	CHECK_INT(fk.ncmds, cmds + 1);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ], 1);
	{
		struct ib_uverbs_req_notify_cq n;

		memcpy(&n, fk.cmds[cmds].bytes + 8, sizeof(n));
		CHECK_INT(n.cq_handle, e.cq->handle);
		CHECK_INT(n.solicited_only, 1);
	}
out:
	teardown(&e);
}

/*
 * A QP moved to RESET takes its waiting completions with it (as libmlx5
 * does); other QPs' stay, in order, across the ring's wrap.
 */
TEST(reset_drops_the_qps_completions)
{
	struct ibv_wc wc[4];
	struct env e;
	uint32_t mine;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	mine = e.qp->qp_num;
	/* move the consumer index to slot 2 so the entries below wrap */
	produce_cqe(fk.last_cq, 1, 0, 0);
	produce_cqe(fk.last_cq, 2, 0, 0);
	CHECK_INT(ibv_poll_cq(e.cq, 2, wc), 2);
	produce_cqe_qp(fk.last_cq, 10, mine);
	produce_cqe_qp(fk.last_cq, 11, mine + 1);
	produce_cqe_qp(fk.last_cq, 12, mine);
	set_state(e.qp, IBV_QPS_RESET);
	CHECK_INT(fk.last_cq->consumer_index, (2 + 2) & 3);
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 1);
	CHECK(wc[0].wr_id == 11);
	CHECK_INT(wc[0].qp_num, mine + 1);
	/* the other QP's first, then ours: nothing moves, ours goes */
	produce_cqe_qp(fk.last_cq, 20, mine + 1);
	produce_cqe_qp(fk.last_cq, 21, mine + 1);
	produce_cqe_qp(fk.last_cq, 22, mine);
	set_state(e.qp, IBV_QPS_RESET);
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 2);
	CHECK(wc[0].wr_id == 20 && wc[1].wr_id == 21);
	/* other states leave the CQ alone */
	produce_cqe_qp(fk.last_cq, 30, mine);
	set_state(e.qp, IBV_QPS_INIT);
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 1);
	CHECK(wc[0].wr_id == 30);
out:
	teardown(&e);
}

TEST(resize_cq_keeps_pending_entries)
{
	struct sv_queue_buf *old;
	struct ibv_wc wc[4];
	struct env e;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	produce_cqe(fk.last_cq, 1, 0, 0);
	produce_cqe(fk.last_cq, 2, 0, 0);
	CHECK_INT(ibv_poll_cq(e.cq, 1, wc), 1);
	old = fk.last_cq;
	CHECK_INT(ibv_resize_cq(e.cq, 12), 0);
	CHECK(fk.last_cq != old);
	CHECK_INT(fake_ring_of(old)->maps, 0);		/* old one unmapped */
	CHECK_INT(fake_ring_of(fk.last_cq)->maps, 1);
	CHECK_INT(e.cq->cqe, 12);
	CHECK_INT(ibv_poll_cq(e.cq, 4, wc), 1);
	CHECK(wc[0].wr_id == 2);
out:
	teardown(&e);
}

TEST(cq_ex_iterates_the_same_ring)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 3, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
				      IBV_WC_EX_WITH_QP_NUM,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;
	struct env e;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	cq = ibv_create_cq_ex(e.ctx, &a);
	CHECK(cq != NULL);
	if (!cq)
		goto out;
	CHECK(cq->read_byte_len && cq->read_qp_num && !cq->read_imm_data);
	CHECK_INT(ibv_start_poll(cq, &pa), ENOENT);	/* empty: no lock */
	produce_cqe(fk.last_cq, 11, 5, 0);
	produce_cqe(fk.last_cq, 12, 6, 2);
	CHECK_INT(ibv_start_poll(cq, &pa), 0);
	CHECK(cq->wr_id == 11 && cq->status == IBV_WC_SUCCESS);
	CHECK_INT(ibv_wc_read_byte_len(cq), 5);
	CHECK_INT(ibv_wc_read_opcode(cq), IBV_WC_RECV);
	CHECK_INT(ibv_next_poll(cq), 0);
	CHECK(cq->wr_id == 12);
	CHECK_INT(ibv_wc_read_wc_flags(cq), IBV_WC_WITH_IMM);
	CHECK_INT(ibv_wc_read_qp_num(cq), 0x55);
	CHECK_INT(ibv_next_poll(cq), ENOENT);
	ibv_end_poll(cq);
	CHECK_INT(fk.last_cq->consumer_index, 2);
	/* an entry arriving after end_poll is not lost */
	produce_cqe(fk.last_cq, 13, 0, 0);
	CHECK_INT(ibv_start_poll(cq, &pa), 0);
	CHECK(cq->wr_id == 13);
	ibv_end_poll(cq);
	CHECK_INT(fk.last_cq->consumer_index, 3);
	CHECK_INT(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
out:
	teardown(&e);
}

TEST(comp_channel_refcount_and_destroy_order)
{
	struct ibv_comp_channel ch = { .fd = -1, .refcnt = 1 };
	struct env e;

	if (!setup(&e, IBV_QPT_RC))
		goto out;
	/* a CQ still uses the channel: EBUSY, the channel stays */
	ch.context = e.ctx;
	CHECK_INT(ibv_destroy_comp_channel(&ch), EBUSY);
	/* destroying a CQ a QP uses is the kernel's call; ours succeeds */
out:
	teardown(&e);
}
