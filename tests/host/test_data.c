// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The data path without a kernel: ring index maths (full, empty, wrap,
 * either index convention on the other side), WQE encoding of every
 * opcode into a fake ring slot, inline-data limits, receive WQEs, CQE
 * decoding, and GRH parsing for ibv_init_ah_from_wc (IPv4 and IPv6).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>

#include "fake.h"
#include "../../ulib/include/softverbs.h"
#include "harness.h"

/* A ring of 2^log2_slots slots of 2^log2_elem bytes in plain memory. */
static struct sv_queue_buf *fake_ring(unsigned int log2_slots,
				      unsigned int log2_elem, size_t *size)
{
	struct sv_queue_buf *q;

	*size = sizeof(*q) + ((size_t)1 << (log2_slots + log2_elem));
	q = calloc(1, *size);
	if (!q)
		abort();
	q->index_mask = (1u << log2_slots) - 1;
	q->log2_elem_size = log2_elem;
	return q;
}

/* ------------------------------------------------------------------ */
/* Ring maths                                                          */

TEST(ring_init_validates_geometry)
{
	struct sv_queue_buf *q;
	struct sv_ring r;
	size_t size;

	q = fake_ring(4, 6, &size);
	CHECK_INT(sv_ring_init(&r, q, size), 0);
	CHECK_INT(r.mask, 15);
	CHECK_INT(sv_ring_elem_size(&r), 64);
	CHECK_INT(sv_ring_capacity(&r), 15);
	CHECK(sv_ring_slot(&r, 17) == q->data + 64);	/* wraps */
	CHECK_INT(sv_ring_init(&r, q, size - 1), EINVAL);	/* truncated */
	q->index_mask = 14;				/* not 2^n - 1 */
	CHECK_INT(sv_ring_init(&r, q, size), EINVAL);
	q->index_mask = 0;				/* one slot: useless */
	CHECK_INT(sv_ring_init(&r, q, size), EINVAL);
	q->index_mask = 0xffffffff;
	CHECK_INT(sv_ring_init(&r, q, size), EINVAL);
	q->index_mask = 15;
	q->log2_elem_size = 40;				/* would overflow */
	CHECK_INT(sv_ring_init(&r, q, size), EINVAL);
	CHECK_INT(sv_ring_init(&r, q, 16), EINVAL);	/* header only */
	free(q);
}

TEST(ring_producer_full_empty_and_wrap)
{
	struct sv_queue_buf *q;
	struct sv_ring r;
	uint32_t prod, i;
	size_t size;

	q = fake_ring(3, 4, &size);	/* 8 slots, 7 usable */
	CHECK_INT(sv_ring_init(&r, q, size), 0);
	prod = sv_ring_load_prod_own(&r);
	CHECK_INT(sv_ring_room(&r, prod), 7);
	for (i = 0; i < 7; i++)
		sv_ring_publish_prod(&r, ++prod);
	CHECK_INT(sv_ring_room(&r, prod), 0);			/* full */
	/* the consumer takes 5: room for 5, indices wrap past the mask */
	q->consumer_index = 5;
	CHECK_INT(sv_ring_room(&r, prod), 5);
	for (i = 0; i < 5; i++)
		sv_ring_publish_prod(&r, ++prod);
	/* stored masked, like librxe: the kernel compares for equality */
	CHECK_INT(q->producer_index, 12 & 7);
	CHECK_INT(sv_ring_room(&r, sv_ring_load_prod_own(&r)), 0);
	/* a consumer publishing free-running counters reads the same */
	q->consumer_index = 5 + 8 * 1000;
	CHECK_INT(sv_ring_room(&r, sv_ring_load_prod_own(&r)), 0);
	q->consumer_index = 12 + 8 * 1000;	/* caught up: empty */
	CHECK_INT(sv_ring_room(&r, sv_ring_load_prod_own(&r)), 7);
	free(q);
}

TEST(ring_consumer_ready_and_wrap)
{
	struct sv_queue_buf *q;
	struct sv_ring r;
	uint32_t cons;
	size_t size;

	q = fake_ring(2, 6, &size);	/* 4 slots */
	CHECK_INT(sv_ring_init(&r, q, size), 0);
	cons = sv_ring_load_cons_own(&r);
	CHECK_INT(sv_ring_ready(&r, cons), 0);			/* empty */
	q->producer_index = 3;
	CHECK_INT(sv_ring_ready(&r, cons), 3);
	sv_ring_publish_cons(&r, cons + 3);
	CHECK_INT(q->consumer_index, 3);
	cons = sv_ring_load_cons_own(&r);
	q->producer_index = 1;		/* masked producer wrapped: 2 ready */
	CHECK_INT(sv_ring_ready(&r, cons), 2);
	q->producer_index = 5 + 4 * 77;	/* free-running producer: same */
	CHECK_INT(sv_ring_ready(&r, cons), 2);
	sv_ring_publish_cons(&r, cons + 2);
	CHECK_INT(q->consumer_index, 1);			/* masked */
	CHECK_INT(sv_ring_ready(&r, sv_ring_load_cons_own(&r)), 0);
	free(q);
}

/* ------------------------------------------------------------------ */
/* Send WQEs                                                           */

#define SLOT_SIZE 512

static struct sv_sq_limits limits(enum ibv_qp_type type)
{
	struct sv_sq_limits l = {
		.qp_type = type,
		.max_sge = 4,
		.max_inline = 64,
		.slot_size = SLOT_SIZE,
	};

	return l;
}

static uint8_t slot[SLOT_SIZE] __attribute__((aligned(8)));

static struct sv_send_wqe *encode(enum ibv_qp_type type,
				  const struct ibv_send_wr *wr, int *err)
{
	struct sv_sq_limits l = limits(type);

	memset(slot, 0xa5, sizeof(slot));	/* stale contents */
	*err = sv_wqe_encode_send(slot, &l, wr, 42);
	return (struct sv_send_wqe *)slot;
}

/* The part every send WQE shares, and the kernel-owned fields zeroed. */
static void check_common(const struct sv_send_wqe *w,
			 const struct ibv_send_wr *wr, uint32_t length)
{
	CHECK(w->wr.wr_id == wr->wr_id);
	CHECK_INT(w->wr.opcode, wr->opcode);
	CHECK_INT(w->wr.send_flags, wr->send_flags);
	CHECK_INT(w->status, 0);
	CHECK_INT(w->state, 0);
	CHECK_INT(w->mask, 0);
	CHECK_INT(w->first_psn, 0);
	CHECK_INT(w->ack_length, 0);
	CHECK_INT(w->has_rd_atomic, 0);
	CHECK_INT(w->ssn, 42);
	CHECK_INT(w->dma.length, length);
	CHECK_INT(w->dma.resid, length);
	CHECK_INT(w->dma.cur_sge, 0);
	CHECK_INT(w->dma.sge_offset, 0);
	CHECK_INT(w->dma.num_sge, wr->num_sge);
}

static struct ibv_sge sges[4] = {
	{ 0x1000, 100, 0x11 }, { 0x2000, 28, 0x22 },
	{ 0x3000, 0, 0x33 }, { 0x4000, 8, 0x44 },
};

TEST(wqe_send_and_imm_and_inv)
{
	struct ibv_send_wr wr = {
		.wr_id = 0x1122334455667788ULL, .sg_list = sges, .num_sge = 2,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			      IBV_SEND_FENCE,
		.imm_data = htobe32(0xdeadbeef),
	};
	struct sv_send_wqe *w;
	int err;

	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 128);
	CHECK_INT(w->wr.ex.imm_data, 0);	/* plain SEND carries none */
	CHECK_INT(w->iova, 0);
	CHECK(w->dma.sge[0].addr == 0x1000 && w->dma.sge[0].length == 100 &&
	      w->dma.sge[0].lkey == 0x11);
	CHECK(w->dma.sge[1].addr == 0x2000 && w->dma.sge[1].lkey == 0x22);

	wr.opcode = IBV_WR_SEND_WITH_IMM;
	w = encode(IBV_QPT_UC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK(w->wr.ex.imm_data == htobe32(0xdeadbeef));	/* as is */

	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x1234;
	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.ex.invalidate_rkey, 0x1234);
	/* IBTA: no invalidate opcodes on UC or UD */
	encode(IBV_QPT_UC, &wr, &err);
	CHECK_INT(err, EINVAL);
}

TEST(wqe_rdma_write_read)
{
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = sges, .num_sge = 4,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htobe32(5),
		.wr.rdma = { .remote_addr = 0xabcdef000ULL, .rkey = 0x77 },
	};
	struct sv_send_wqe *w;
	int err;

	w = encode(IBV_QPT_UC, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 136);
	CHECK(w->wr.wr.rdma.remote_addr == 0xabcdef000ULL);
	CHECK_INT(w->wr.wr.rdma.rkey, 0x77);
	CHECK(w->iova == 0xabcdef000ULL);
	CHECK(w->wr.ex.imm_data == htobe32(5));
	CHECK(w->dma.sge[3].addr == 0x4000 && w->dma.sge[3].length == 8);

	wr.opcode = IBV_WR_RDMA_READ;
	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.ex.imm_data, 0);
	encode(IBV_QPT_UC, &wr, &err);		/* READ is RC only */
	CHECK_INT(err, EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE;
	encode(IBV_QPT_UD, &wr, &err);		/* UD has only SEND */
	CHECK_INT(err, EINVAL);
}

TEST(wqe_atomics)
{
	struct ibv_sge s = { 0x5000, 8, 0x55 };
	struct ibv_send_wr wr = {
		.wr_id = 9, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.wr.atomic = { .remote_addr = 0x8000, .compare_add = 1,
			       .swap = 2, .rkey = 0x99 },
	};
	struct sv_send_wqe *w;
	int err;

	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 8);
	CHECK(w->wr.wr.atomic.remote_addr == 0x8000);
	CHECK(w->wr.wr.atomic.compare_add == 1 && w->wr.wr.atomic.swap == 2);
	CHECK_INT(w->wr.wr.atomic.rkey, 0x99);
	CHECK(w->iova == 0x8000);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK(w->wr.wr.atomic.compare_add == 1);

	wr.wr.atomic.remote_addr = 0x8004;	/* not 8-byte aligned */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.wr.atomic.remote_addr = 0x8000;
	s.length = 4;				/* no room for the result */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	s.length = 8;
	encode(IBV_QPT_UC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.send_flags = IBV_SEND_INLINE;	/* atomics cannot be inline */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
}

TEST(wqe_ud_send_carries_ah_num)
{
	struct sv_ah ah = { .ah_num = 17 };
	struct ibv_send_wr wr = {
		.wr_id = 3, .sg_list = sges, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.wr.ud = { .ah = &ah.ibah, .remote_qpn = 0x123456,
			   .remote_qkey = 0x11111111 },
	};
	struct sv_send_wqe *w;
	int err;

	w = encode(IBV_QPT_UD, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 100);
	CHECK_INT(w->wr.wr.ud.ah_num, 17);
	CHECK_INT(w->wr.wr.ud.remote_qpn, 0x123456);
	CHECK_INT(w->wr.wr.ud.remote_qkey, 0x11111111);
	CHECK_INT(w->iova, 0);
	CHECK_INT(w->wr.wr.ud.av.network_type, 0);	/* no AV with ah_num */

	wr.wr.ud.ah = NULL;
	encode(IBV_QPT_UD, &wr, &err);
	CHECK_INT(err, EINVAL);
}

TEST(wqe_local_inv_and_bind_mw)
{
	struct ibv_mr mr = { .lkey = 0x1100 };
	struct ibv_mw mw = { .rkey = 0x2200, .type = IBV_MW_TYPE_2 };
	struct ibv_send_wr wr = {
		.wr_id = 4, .opcode = IBV_WR_LOCAL_INV,
		.invalidate_rkey = 0x3300,
	};
	struct sv_send_wqe *w;
	int err;

	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 0);
	CHECK_INT(w->wr.ex.invalidate_rkey, 0x3300);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x2201;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x9000;
	wr.bind_mw.bind_info.length = 0x100;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	w = encode(IBV_QPT_UC, &wr, &err);
	CHECK_INT(err, 0);
	check_common(w, &wr, 0);
	CHECK(w->wr.wr.mw.addr == 0x9000 && w->wr.wr.mw.length == 0x100);
	CHECK_INT(w->wr.wr.mw.mr_lkey, 0x1100);
	CHECK_INT(w->wr.wr.mw.mw_rkey, 0x2200);
	CHECK_INT(w->wr.wr.mw.rkey, 0x2201);
	CHECK_INT(w->wr.wr.mw.access, IBV_ACCESS_REMOTE_WRITE);

	encode(IBV_QPT_UD, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.bind_mw.bind_info.mr = NULL;		/* range without an MR */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.bind_mw.bind_info.addr = 0;		/* unbind: no MR needed */
	wr.bind_mw.bind_info.length = 0;
	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.wr.mw.mr_lkey, 0);
}

TEST(wqe_rejects_bad_requests)
{
	struct ibv_send_wr wr = {
		.sg_list = sges, .num_sge = 1, .opcode = IBV_WR_SEND,
	};
	int err;

	wr.num_sge = 5;				/* above max_sge (4) */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.num_sge = -1;
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.sg_list = sges;
	wr.send_flags = 1u << 20;		/* unknown flag */
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.send_flags = 0;
	wr.opcode = IBV_WR_TSO;
	encode(IBV_QPT_UD, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.opcode = (enum ibv_wr_opcode)200;
	encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.opcode = IBV_WR_SEND;
	encode(IBV_QPT_XRC_SEND, &wr, &err);	/* no remote SRQ named */
	CHECK_INT(err, EINVAL);
	encode(IBV_QPT_XRC_RECV, &wr, &err);	/* a target cannot send */
	CHECK_INT(err, EINVAL);
}

/*
 * An XRC sender (IBTA A14) names the remote XRC SRQ in every remote
 * operation: 24 bits, not 0, in the word rxe reserves (sv_send_wr.xrc_srqn).
 */
TEST(wqe_xrc_names_the_remote_srq)
{
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = sges, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	struct sv_send_wqe *w;
	int err;

	wr.qp_type.xrc.remote_srqn = 1U << 24;
	encode(IBV_QPT_XRC_SEND, &wr, &err);
	CHECK_INT(err, EINVAL);
	wr.qp_type.xrc.remote_srqn = 0xffffff;
	w = encode(IBV_QPT_XRC_SEND, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.xrc_srqn, 0xffffff);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0x1000;
	wr.wr.rdma.rkey = 9;
	wr.qp_type.xrc.remote_srqn = 5;
	w = encode(IBV_QPT_XRC_SEND, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.xrc_srqn, 5);
	CHECK_INT(w->wr.wr.rdma.rkey, 9);
	/* a local operation names no SRQ; window binds are not XRC's */
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.num_sge = 0;
	wr.qp_type.xrc.remote_srqn = 0;
	encode(IBV_QPT_XRC_SEND, &wr, &err);
	CHECK_INT(err, 0);
	wr.opcode = IBV_WR_BIND_MW;
	encode(IBV_QPT_XRC_SEND, &wr, &err);
	CHECK_INT(err, EINVAL);
	/* other QPs leave rxe's reserved word 0, whatever the union holds */
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = 5;
	w = encode(IBV_QPT_RC, &wr, &err);
	CHECK_INT(err, 0);
	CHECK_INT(w->wr.xrc_srqn, 0);
}

TEST(wqe_sges_must_fit_the_slot)
{
	struct ibv_sge many[16];
	struct ibv_send_wr wr = {
		.sg_list = many, .num_sge = 16, .opcode = IBV_WR_SEND,
	};
	struct sv_sq_limits l = limits(IBV_QPT_RC);
	size_t fixed = offsetof(struct sv_send_wqe, dma.sge);
	static uint8_t big[1024];

	memset(many, 0, sizeof(many));
	/* the kernel "granted" 16 SGEs but the slot holds fewer */
	l.max_sge = 16;
	l.slot_size = fixed + 15 * sizeof(struct sv_sge);
	CHECK_INT(sv_wqe_encode_send(big, &l, &wr, 0), EINVAL);
	l.slot_size = fixed + 16 * sizeof(struct sv_sge);
	CHECK_INT(sv_wqe_encode_send(big, &l, &wr, 0), 0);
}

TEST(wqe_inline_data_and_limits)
{
	uint8_t a[40], b[24];
	struct ibv_sge s[2] = {
		{ (uintptr_t)a, sizeof(a), 0 }, { (uintptr_t)b, sizeof(b), 0 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = s, .num_sge = 2, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	struct sv_sq_limits l = limits(IBV_QPT_RC);
	struct sv_send_wqe *w = (struct sv_send_wqe *)slot;
	size_t fixed = offsetof(struct sv_send_wqe, dma.inline_data);
	unsigned int i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(100 + i);
	memset(slot, 0, sizeof(slot));
	/* exactly max_inline (64): copied back to back, the buffers reusable */
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), 0);
	CHECK_MEM(slot + fixed, a, sizeof(a));
	CHECK_MEM(slot + fixed + sizeof(a), b, sizeof(b));
	CHECK_INT(w->dma.length, 64);
	CHECK_INT(w->dma.resid, 64);
	CHECK_INT(w->dma.num_sge, 2);
	CHECK_INT(w->wr.send_flags, IBV_SEND_INLINE);

	/* one byte over max_inline */
	s[1].length = sizeof(b) + 1;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), EINVAL);
	/* within max_inline but beyond the slot: refused, slot untouched past */
	s[1].length = sizeof(b);
	l.max_inline = 1000;
	l.slot_size = fixed + 63;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), EINVAL);
	l.slot_size = fixed + 64;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), 0);
	/* zero-length inline is a plain empty send */
	wr.num_sge = 0;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), 0);
	CHECK_INT(w->dma.length, 0);
	/* RDMA READ cannot be inline: the data flows the other way */
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), EINVAL);
	/* inline RDMA WRITE is fine */
	wr.opcode = IBV_WR_RDMA_WRITE;
	CHECK_INT(sv_wqe_encode_send(slot, &l, &wr, 0), 0);
	CHECK_MEM(slot + fixed, a, sizeof(a));
}

/* ------------------------------------------------------------------ */
/* Receive WQEs                                                        */

/* IBTA 1.5 extensions (softverbs.h): the librxe WQE layout, checked */
TEST(wqe_mpe_atomic_write_and_flush)
{
	struct sv_mpe_wr aw = {
		.wr_id = 77, .opcode = IBV_WR_ATOMIC_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .rkey = 0x1234,
		.remote_addr = 0x10008,
		.value = { 1, 2, 3, 4, 5, 6, 7, 8 },
	};
	struct sv_mpe_wr fl = {
		.wr_id = 78, .opcode = SV_WR_FLUSH,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE, .rkey = 0x5678,
		.remote_addr = 0x20003, .length = 4097,
		.type = SOFTVERBS_FLUSH_GLOBAL, .level = SOFTVERBS_FLUSH_MR,
	};
	struct sv_sq_limits l = limits(IBV_QPT_RC);
	struct sv_send_wqe *w = (struct sv_send_wqe *)slot;

	memset(slot, 0xa5, sizeof(slot));
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 42), 0);
	CHECK(w->wr.wr_id == 77);
	CHECK_INT(w->wr.opcode, 15);
	CHECK_INT(w->wr.send_flags, IBV_SEND_SIGNALED);
	CHECK(w->wr.wr.rdma.remote_addr == 0x10008);
	CHECK_INT(w->wr.wr.rdma.rkey, 0x1234);
	CHECK(w->iova == 0x10008);
	CHECK_MEM(w->dma.atomic_wr, aw.value, 8);
	CHECK_INT(w->dma.length, 8);
	CHECK_INT(w->dma.resid, 8);
	CHECK_INT(w->dma.num_sge, 0);
	CHECK_INT(w->status, 0);
	CHECK_INT(w->state, 0);
	CHECK_INT(w->ssn, 42);

	memset(slot, 0xa5, sizeof(slot));
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 43), 0);
	CHECK_INT(w->wr.opcode, 14);
	CHECK_INT(w->wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	CHECK(w->wr.wr.flush.remote_addr == 0x20003);
	CHECK_INT(w->wr.wr.flush.rkey, 0x5678);
	CHECK_INT(w->wr.wr.flush.length, 4097);
	CHECK_INT(w->wr.wr.flush.type, SOFTVERBS_FLUSH_GLOBAL);
	CHECK_INT(w->wr.wr.flush.level, SOFTVERBS_FLUSH_MR);
	CHECK_INT(w->dma.length, 4097);
	CHECK_INT(w->dma.num_sge, 0);
	CHECK_INT(w->ssn, 43);
	/* the same bytes librxe (rdma-core 45 wr_flush) would write */
	CHECK_INT(offsetof(struct sv_send_wqe, wr.wr.flush.type),
		  offsetof(struct sv_send_wqe, wr.wr.flush.rkey) + 4);

	/* refused: RC only, known flags, alignment, type and level */
	l.qp_type = IBV_QPT_UC;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 0), EINVAL);
	l.qp_type = IBV_QPT_RC;
	aw.send_flags = IBV_SEND_INLINE;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 0), EINVAL);
	aw.send_flags = 0;
	aw.remote_addr = 0x10004;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 0), EINVAL);
	fl.type = 0;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 0), EINVAL);
	fl.type = 4;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 0), EINVAL);
	fl.type = SOFTVERBS_FLUSH_GLOBAL | SOFTVERBS_FLUSH_PERSISTENT;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 0), 0);
	fl.level = 2;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 0), EINVAL);
	fl.level = 0;
	fl.opcode = IBV_WR_RDMA_WRITE;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &fl, 0), EINVAL);
	/* the value must fit in the slot */
	aw.remote_addr = 0x10000;
	l.slot_size = offsetof(struct sv_send_wqe, dma.atomic_wr) + 7;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 0), EINVAL);
	l.slot_size += 1;
	CHECK_INT(sv_wqe_encode_mpe(slot, &l, &aw, 0), 0);
}

TEST(wqe_recv_encoding)
{
	struct ibv_recv_wr wr = {
		.wr_id = 0xfeed, .sg_list = sges, .num_sge = 3,
	};
	struct sv_recv_wqe *w = (struct sv_recv_wqe *)slot;
	size_t fixed = offsetof(struct sv_recv_wqe, dma.sge);

	memset(slot, 0xa5, sizeof(slot));
	CHECK_INT(sv_wqe_encode_recv(slot, SLOT_SIZE, 4, &wr), 0);
	CHECK(w->wr_id == 0xfeed);
	CHECK_INT(w->dma.length, 128);
	CHECK_INT(w->dma.resid, 128);
	CHECK_INT(w->dma.num_sge, 3);
	CHECK_INT(w->dma.cur_sge, 0);
	CHECK_INT(w->dma.sge_offset, 0);
	CHECK(w->dma.sge[2].addr == 0x3000 && w->dma.sge[2].lkey == 0x33);
	CHECK_INT(w->reserved, 0);

	CHECK_INT(sv_wqe_encode_recv(slot, SLOT_SIZE, 2, &wr), EINVAL);
	CHECK_INT(sv_wqe_encode_recv(slot, fixed + 2 * sizeof(struct sv_sge),
				     4, &wr), EINVAL);
	wr.num_sge = 0;
	CHECK_INT(sv_wqe_encode_recv(slot, fixed, 4, &wr), 0);
	CHECK_INT(w->dma.length, 0);
}

/* ------------------------------------------------------------------ */
/* CQEs                                                                */

TEST(cqe_decode_all_fields)
{
	struct ib_uverbs_wc c = {
		.wr_id = 0x0102030405060708ULL,
		.status = IBV_WC_REM_ACCESS_ERR,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM,
		.vendor_err = 0x55,
		.byte_len = 4096,
		.qp_num = 0x11,
		.src_qp = 0x22,
		.wc_flags = IBV_WC_GRH | IBV_WC_WITH_IMM,	/* softverbs */
		.pkey_index = 3,
		.slid = 0x44,
		.sl = 5,
		.dlid_path_bits = 6,
		.port_num = 1,
	};
	struct ibv_wc wc;

	c.ex.imm_data = htobe32(0xcafe);
	memset(&wc, 0xa5, sizeof(wc));
	sv_cqe_decode(&wc, &c, false);
	CHECK(wc.wr_id == 0x0102030405060708ULL);
	CHECK_INT(wc.status, IBV_WC_REM_ACCESS_ERR);
	CHECK_INT(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK_INT(wc.vendor_err, 0x55);
	CHECK_INT(wc.byte_len, 4096);
	CHECK_INT(wc.qp_num, 0x11);
	CHECK_INT(wc.src_qp, 0x22);
	CHECK_INT(wc.wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);
	CHECK(wc.imm_data == htobe32(0xcafe));
	CHECK_INT(wc.pkey_index, 3);
	CHECK_INT(wc.slid, 0x44);
	CHECK_INT(wc.sl, 5);
	CHECK_INT(wc.dlid_path_bits, 6);
}

TEST(cqe_wc_flags_softverbs_values_pass_through)
{
	/* softverbs writes verbs.h's values (uapi/softverbs-abi.h) */
	CHECK_INT(sv_wc_flags_decode(IBV_WC_WITH_INV, false), IBV_WC_WITH_INV);
	CHECK_INT(sv_wc_flags_decode(IBV_WC_IP_CSUM_OK, false),
		  IBV_WC_IP_CSUM_OK);
	CHECK_INT(sv_wc_flags_decode(0xf, false), IBV_WC_GRH | IBV_WC_WITH_IMM |
		  IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK);
	/* nothing above the four verbs.h flags leaks through */
	CHECK_INT(sv_wc_flags_decode(0x70, false), 0);
}

TEST(cqe_wc_flags_translated_from_rxe_kernel_bits)
{
	/* Soft-RoCE: WITH_INVALIDATE 1<<2, IP_CSUM_OK 1<<3; verbs.h swaps them */
	CHECK_INT(sv_wc_flags_decode(1 << 2, true), IBV_WC_WITH_INV);
	CHECK_INT(sv_wc_flags_decode(1 << 3, true), IBV_WC_IP_CSUM_OK);
	CHECK_INT(sv_wc_flags_decode(1 << 0, true), IBV_WC_GRH);
	CHECK_INT(sv_wc_flags_decode(1 << 1, true), IBV_WC_WITH_IMM);
	CHECK_INT(sv_wc_flags_decode(0xf, true), IBV_WC_GRH | IBV_WC_WITH_IMM |
		  IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK);
	/* SMAC/VLAN/network header type have no verbs.h meaning */
	CHECK_INT(sv_wc_flags_decode(0x70, true), 0);
}

/* ------------------------------------------------------------------ */
/* GRH parsing                                                         */

/* A RoCEv2/IPv4 GRH area: 20 zero bytes, then the IPv4 header. */
static void make_ipv4_grh(struct ibv_grh *g, const char *src, const char *dst,
			  uint8_t tos, uint8_t ttl)
{
	uint8_t *h = (uint8_t *)g + 20;
	uint32_t sum = 0;
	in_addr_t a;
	int i;

	memset(g, 0, sizeof(*g));
	h[0] = 0x45;
	h[1] = tos;
	h[3] = 48;		/* total length, any */
	h[8] = ttl;
	h[9] = IPPROTO_UDP;
	a = inet_addr(src);
	memcpy(h + 12, &a, 4);
	a = inet_addr(dst);
	memcpy(h + 16, &a, 4);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	h[10] = (uint8_t)(~sum >> 8);
	h[11] = (uint8_t)~sum;
}

static void make_ipv6_grh(struct ibv_grh *g, uint8_t next_hdr,
			  const char *src, const char *dst)
{
	memset(g, 0, sizeof(*g));
	/* version 6, traffic class 0x12, flow label 0xabcde */
	g->version_tclass_flow = htobe32(6u << 28 | 0x12u << 20 | 0xabcde);
	g->next_hdr = next_hdr;
	g->hop_limit = 33;
	inet_pton(AF_INET6, src, g->sgid.raw);
	inet_pton(AF_INET6, dst, g->dgid.raw);
}

static bool gid_is(const union ibv_gid *gid, const char *text)
{
	union ibv_gid want;

	inet_pton(AF_INET6, text, want.raw);
	return !memcmp(gid, &want, sizeof(want));
}

TEST(grh_parse_ipv4)
{
	struct sv_grh_info info;
	struct ibv_grh g;
	uint8_t *h = (uint8_t *)&g + 20;

	make_ipv4_grh(&g, "192.168.10.2", "192.168.10.1", 0x28, 63);
	CHECK_INT(sv_grh_parse(&g, &info), 0);
	CHECK_INT(info.ip_version, 4);
	CHECK(gid_is(&info.sgid, "::ffff:192.168.10.2"));
	CHECK(gid_is(&info.dgid, "::ffff:192.168.10.1"));
	CHECK_INT(info.traffic_class, 0x28);
	CHECK_INT(info.hop_limit, 63);
	CHECK_INT(info.flow_label, 0);
	CHECK_INT(info.gid_type, IBV_GID_TYPE_ROCE_V2);

	/* a first byte of 6 in the unused area does not fool it */
	((uint8_t *)&g)[0] = 0x60;
	CHECK_INT(sv_grh_parse(&g, &info), 0);
	CHECK_INT(info.ip_version, 4);

	/* multicast destination: nothing to look up */
	make_ipv4_grh(&g, "192.168.10.2", "239.1.2.3", 0, 1);
	CHECK_INT(sv_grh_parse(&g, &info), EINVAL);
	/* options (IHL 6): not something RoCEv2 sends */
	make_ipv4_grh(&g, "192.168.10.2", "192.168.10.1", 0, 1);
	h[0] = 0x46;
	CHECK_INT(sv_grh_parse(&g, &info), EPROTONOSUPPORT);
	/* neither IPv6 nor IPv4 */
	memset(&g, 0, sizeof(g));
	CHECK_INT(sv_grh_parse(&g, &info), EPROTONOSUPPORT);
}

TEST(grh_parse_ipv6)
{
	struct sv_grh_info info;
	struct ibv_grh g;

	make_ipv6_grh(&g, IPPROTO_UDP, "fe80::1", "fe80::202:c9ff:fe00:1");
	CHECK_INT(sv_grh_parse(&g, &info), 0);
	CHECK_INT(info.ip_version, 6);
	CHECK_INT(info.gid_type, IBV_GID_TYPE_ROCE_V2);
	CHECK(gid_is(&info.sgid, "fe80::1"));
	CHECK(gid_is(&info.dgid, "fe80::202:c9ff:fe00:1"));
	CHECK_INT(info.traffic_class, 0x12);
	CHECK_INT(info.flow_label, 0xabcde);
	CHECK_INT(info.hop_limit, 33);

	make_ipv6_grh(&g, 0x1b, "fe80::1", "fe80::202:c9ff:fe00:1");
	CHECK_INT(sv_grh_parse(&g, &info), 0);
	CHECK_INT(info.gid_type, IBV_GID_TYPE_IB);

	make_ipv6_grh(&g, IPPROTO_TCP, "fe80::1", "fe80::2");
	CHECK_INT(sv_grh_parse(&g, &info), EPROTONOSUPPORT);
	make_ipv6_grh(&g, IPPROTO_UDP, "fe80::1", "ff02::1");
	CHECK_INT(sv_grh_parse(&g, &info), EINVAL);
}

/* Through the exported call: the GID lookup uses the fake port's table. */
TEST(init_ah_from_wc_finds_our_gid)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_ah_attr ah;
	struct fake_tree t;
	struct ibv_grh g;
	struct ibv_wc wc = {
		.wc_flags = IBV_WC_GRH, .slid = 7, .sl = 2,
		.dlid_path_bits = 1,
	};

	fake_standard_setup(&t);
	list = ibv_get_device_list(NULL);
	if (list && list[0])
		ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	CHECK(ctx != NULL);
	if (!ctx)
		goto out;

	/* slot 3: ::ffff:192.168.10.1, RoCE v2 */
	make_ipv4_grh(&g, "192.168.10.2", "192.168.10.1", 0x10, 64);
	CHECK_INT(ibv_init_ah_from_wc(ctx, 1, &wc, &g, &ah), 0);
	CHECK_INT(ah.is_global, 1);
	CHECK_INT(ah.grh.sgid_index, 3);
	CHECK(gid_is(&ah.grh.dgid, "::ffff:192.168.10.2"));
	CHECK_INT(ah.grh.hop_limit, 64);
	CHECK_INT(ah.grh.traffic_class, 0x10);
	CHECK_INT(ah.dlid, 7);
	CHECK_INT(ah.sl, 2);
	CHECK_INT(ah.src_path_bits, 1);
	CHECK_INT(ah.port_num, 1);

	/* slot 1 is the RoCE v2 twin of the v1 link-local GID in slot 0 */
	make_ipv6_grh(&g, IPPROTO_UDP, "fe80::9", "fe80::202:c9ff:fe00:1");
	CHECK_INT(ibv_init_ah_from_wc(ctx, 1, &wc, &g, &ah), 0);
	CHECK_INT(ah.grh.sgid_index, 1);
	CHECK(gid_is(&ah.grh.dgid, "fe80::9"));
	CHECK_INT(ah.grh.flow_label, 0xabcde);
	make_ipv6_grh(&g, 0x1b, "fe80::9", "fe80::202:c9ff:fe00:1");
	CHECK_INT(ibv_init_ah_from_wc(ctx, 1, &wc, &g, &ah), 0);
	CHECK_INT(ah.grh.sgid_index, 0);

	/* not one of ours */
	make_ipv4_grh(&g, "192.168.10.2", "192.168.10.99", 0, 64);
	errno = 0;
	CHECK_INT(ibv_init_ah_from_wc(ctx, 1, &wc, &g, &ah), -1);
	CHECK_INT(errno, ENOENT);

	/* no GRH: a local (LID-routed) address, g is not read */
	wc.wc_flags = 0;
	CHECK_INT(ibv_init_ah_from_wc(ctx, 1, &wc, NULL, &ah), 0);
	CHECK_INT(ah.is_global, 0);
	CHECK_INT(ah.dlid, 7);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}
