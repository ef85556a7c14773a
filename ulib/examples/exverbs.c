// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * exverbs: every operation of the extended verbs API, end to end on one
 * device, between two RC QPs (A, B) made by ibv_create_qp_ex under a
 * parent domain (thread domain + counting allocator), plus a UD pair:
 *
 *   one batch (one doorbell) of SEND (SGE list), SEND_IMM (inline list),
 *   RDMA WRITE (inline), WRITE_IMM, READ, CAS, FAA; a type 2 MW bound with
 *   ibv_wr_bind_mw, written through, invalidated by SEND_INV, bound again
 *   and invalidated by ibv_wr_local_inv; ATOMIC WRITE; FLUSH where the
 *   device advertises it (device_cap_flags_ex bit 38); ibv_wr_abort; a UD
 *   send with ibv_wr_set_ud_addr into an SRQ from ibv_create_srq_ex; and
 *   advise_mr on a pinned MR (EINVAL: prefetch is for ODP MRs, 28-odp);
 *   the ex verbs that must say EOPNOTSUPP (rt_values, ECE, tag matching SRQ,
 *   timestamped CQ).
 *
 *   exverbs [-d DEV] [-v]
 */
#include <endian.h>
#include <unistd.h>

#include "rs_common.h"
#include "../include/softverbs.h"

#define DEV_FLUSH_GLOBAL	(1ULL << 38)	/* IB_UVERBS_DEVICE_FLUSH_GLOBAL */
#define BUF	4096
#define ALL_RC_OPS (rs_send_ops(IBV_QPT_RC) | IBV_QP_EX_WITH_LOCAL_INV | \
		    IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV | \
		    IBV_QP_EX_WITH_ATOMIC_WRITE)

static bool verbose;
static int allocs, frees;

static void *my_alloc(struct ibv_pd *pd, void *pdc, size_t size, size_t align,
		      uint64_t type)
{
	void *p;

	(void)pd, (void)type;
	CHECK(pdc == &allocs, "pd_context not passed through");
	if (posix_memalign(&p, align, size))
		return NULL;
	allocs++;
	return p;
}

static void my_free(struct ibv_pd *pd, void *pdc, void *p, uint64_t type)
{
	(void)pd, (void)pdc, (void)type;
	frees++;
	free(p);
}

/* Wait for n completions on cq; each must succeed. */
static void expect(struct ibv_cq_ex *cq, int n, struct rs_wc *out,
		   const char *what)
{
	int got = 0;

	while (got < n) {
		int i, k = rs_poll(cq, out + got, n - got);

		for (i = 0; i < k; i++) {
			CHECK(out[got + i].status == IBV_WC_SUCCESS,
			      "%s: wr_id %llu: %s", what,
			      (unsigned long long)out[got + i].wr_id,
			      ibv_wc_status_str(out[got + i].status));
			if (verbose)
				printf("  %s: wr_id %llu opcode %d len %u\n",
				       what,
				       (unsigned long long)out[got + i].wr_id,
				       out[got + i].opcode,
				       out[got + i].byte_len);
		}
		got += k;
	}
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *at,
		      uint32_t len, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)at, len, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	need_ok(ibv_post_recv(qp, &w, &bad), "post_recv");
}

int main(int argc, char **argv)
{
	struct ibv_parent_domain_init_attr pda = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = my_alloc, .free = my_free, .pd_context = &allocs,
	};
	struct ibv_td_init_attr tda = { 0 };
	struct ibv_device_attr_ex dx;
	struct ibv_context *ctx;
	struct ibv_cq_ex *cqa, *cqb;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_ex *xa, *xb;
	struct ibv_pd *pd, *pdom;
	struct ibv_td *td;
	struct ibv_mr *ma, *mb;
	struct ibv_mw *mw;
	union ibv_gid gid;
	struct rs_wc wc[16];
	const char *dev = NULL;
	uint8_t *a, *b;
	uint64_t *b64;
	int gi, opt, i;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   IBV_ACCESS_MW_BIND;

	while ((opt = getopt(argc, argv, "d:v")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'v')
			verbose = true;
		else
			die(1, "usage: exverbs [-d DEV] [-v]");
	}
	ctx = rs_open(dev);
	need_ok(ibv_query_device_ex(ctx, NULL, &dx), "query_device_ex");
	pd = need(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	td = need(ibv_alloc_td(ctx, &tda), "ibv_alloc_td");
	pda.pd = pd;
	pda.td = td;
	pdom = need(ibv_alloc_parent_domain(ctx, &pda), "parent domain");
	gi = rs_pick_gid(ctx, &gid);

	{	/* CQs under the parent domain: its allocator is used */
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 64,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
				    IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
				    IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID |
				    IBV_WC_EX_WITH_SL |
				    IBV_WC_EX_WITH_DLID_PATH_BITS,
			.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
			.parent_domain = pdom,
		};

		cqa = need(ibv_create_cq_ex(ctx, &ca), "cq_ex A");
		cqb = need(ibv_create_cq_ex(ctx, &ca), "cq_ex B");
		ca.comp_mask = 0;
		ca.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		errno = 0;
		CHECK(!ibv_create_cq_ex(ctx, &ca) && errno == EOPNOTSUPP,
		      "timestamped CQ: want EOPNOTSUPP, errno %d", errno);
	}
	qa = rs_create_qp(ctx, pdom, cqa, cqa, IBV_QPT_RC, ALL_RC_OPS, 32);
	qb = rs_create_qp(ctx, pdom, cqb, cqb, IBV_QPT_RC, ALL_RC_OPS, 32);
	CHECK(allocs == 4, "allocator used %d times, want 4", allocs);
	xa = need(ibv_qp_to_qp_ex(qa), "qp_ex A");
	xb = need(ibv_qp_to_qp_ex(qb), "qp_ex B");
	rs_handshake(qa, gi, &gid, qb->qp_num, 0);
	rs_handshake(qb, gi, &gid, qa->qp_num, 0);

	a = aligned_alloc(4096, BUF);
	b = aligned_alloc(4096, BUF);
	memset(a, 0, BUF);
	memset(b, 0, BUF);
	b64 = (uint64_t *)(b + 2048);
	ma = need(ibv_reg_mr(pd, a, BUF, access), "reg A");
	mb = need(ibv_reg_mr(pd, b, BUF, access), "reg B");

	/* ---- one batch, one doorbell: the data operations ---- */
	for (i = 0; i < 4; i++)
		post_recv(qb, mb, b + 256 * i, 256, 100 + i);
	memcpy(a, "first-", 6);
	memcpy(a + 64, "second", 6);
	memcpy(a + 512, "written via WRITE_IMM", 21);
	memcpy(b + 1024, "read me back", 12);
	b64[0] = 5;		/* CAS target */
	b64[1] = 40;		/* FAA target */
	{
		struct ibv_sge sl[2] = { { (uintptr_t)a, 6, ma->lkey },
					 { (uintptr_t)(a + 64), 6, ma->lkey } };
		char h[] = "inline-", t[] = "list";
		struct ibv_data_buf il[2] = { { h, 7 }, { t, 4 } };
		char wr_inline[] = "inline write";

		ibv_wr_start(xa);
		xa->wr_flags = IBV_SEND_SIGNALED;
		xa->wr_id = 1;
		ibv_wr_send(xa);
		ibv_wr_set_sge_list(xa, 2, sl);
		xa->wr_id = 2;
		ibv_wr_send_imm(xa, htobe32(0xc0ffee));
		ibv_wr_set_inline_data_list(xa, 2, il);
		memset(h, 'X', sizeof(h) - 1);	/* copied at the setter */
		xa->wr_id = 3;
		ibv_wr_rdma_write(xa, mb->rkey, (uintptr_t)(b + 1536));
		ibv_wr_set_inline_data(xa, wr_inline, 12);
		xa->wr_id = 4;
		ibv_wr_rdma_write_imm(xa, mb->rkey, (uintptr_t)(b + 1600),
				      htobe32(77));
		ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)(a + 512), 21);
		xa->wr_id = 5;
		ibv_wr_rdma_read(xa, mb->rkey, (uintptr_t)(b + 1024));
		ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)(a + 1024), 12);
		xa->wr_id = 6;
		ibv_wr_atomic_cmp_swp(xa, mb->rkey, (uintptr_t)b64, 5, 9);
		ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)(a + 2048), 8);
		xa->wr_id = 7;
		ibv_wr_atomic_fetch_add(xa, mb->rkey, (uintptr_t)(b64 + 1), 2);
		ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)(a + 2056), 8);
		need_ok(ibv_wr_complete(xa), "batch wr_complete");
	}
	expect(cqa, 7, wc, "A batch");
	for (i = 0; i < 7; i++)
		CHECK(wc[i].wr_id == (uint64_t)i + 1, "A order: %llu at %d",
		      (unsigned long long)wc[i].wr_id, i);
	expect(cqb, 3, wc, "B receives");
	CHECK(wc[0].byte_len == 12 && !memcmp(b, "first-second", 12),
	      "SEND with an SGE list");
	CHECK(wc[1].byte_len == 11 && !memcmp(b + 256, "inline-list", 11) &&
	      (wc[1].wc_flags & IBV_WC_WITH_IMM) &&
	      wc[1].imm == htobe32(0xc0ffee), "SEND_IMM with inline list");
	CHECK(wc[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      wc[2].imm == htobe32(77) &&
	      !memcmp(b + 1600, "written via WRITE_IMM", 21), "WRITE_IMM");
	CHECK(!memcmp(b + 1536, "inline write", 12), "inline WRITE");
	CHECK(!memcmp(a + 1024, "read me back", 12), "READ");
	CHECK(*(uint64_t *)(a + 2048) == 5 && b64[0] == 9, "CAS");
	CHECK(*(uint64_t *)(a + 2056) == 40 && b64[1] == 42, "FAA");
	printf("batch of 7 (SEND, SEND_IMM, WRITE, WRITE_IMM, READ, CAS, FAA): ok\n");

	/* ---- abort: nothing of it is executed ---- */
	ibv_wr_start(xa);
	xa->wr_id = 50;
	ibv_wr_rdma_write(xa, mb->rkey, (uintptr_t)(b + 3000));
	ibv_wr_set_inline_data(xa, "aborted", 7);
	ibv_wr_abort(xa);
	ibv_wr_start(xa);
	xa->wr_id = 51;
	ibv_wr_rdma_write(xa, mb->rkey, (uintptr_t)(b + 3100));
	ibv_wr_set_inline_data(xa, "kept", 4);
	need_ok(ibv_wr_complete(xa), "after abort");
	expect(cqa, 1, wc, "after abort");
	CHECK(wc[0].wr_id == 51 && !memcmp(b + 3100, "kept", 4) &&
	      b[3000] == 0, "abort posted something");
	printf("wr_abort: ok\n");

	/* ---- type 2 MW: bind, use, SEND_INV, bind again, LOCAL_INV ---- */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (!mw) {
		printf("MW type 2: %s (not tested)\n", strerror(errno));
	} else {
		struct ibv_mw_bind_info bi = {
			.mr = mb, .addr = (uintptr_t)(b + 3584), .length = 512,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};
		uint32_t rkey = ibv_inc_rkey(mw->rkey);

		ibv_wr_start(xb);
		xb->wr_id = 60;
		xb->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(xb, mw, rkey, &bi);
		need_ok(ibv_wr_complete(xb), "bind_mw");
		expect(cqb, 1, wc, "bind_mw");
		post_recv(qb, mb, b + 768, 256, 104);
		ibv_wr_start(xa);
		xa->wr_id = 61;
		ibv_wr_rdma_write(xa, rkey, (uintptr_t)(b + 3584));
		ibv_wr_set_inline_data(xa, "via MW", 6);
		xa->wr_id = 62;
		ibv_wr_send_inv(xa, rkey);
		ibv_wr_set_inline_data(xa, "inv", 3);
		need_ok(ibv_wr_complete(xa), "write via MW + SEND_INV");
		expect(cqa, 2, wc, "MW write + SEND_INV");
		expect(cqb, 1, wc, "SEND_INV receive");
		CHECK(!memcmp(b + 3584, "via MW", 6), "write through MW");
		CHECK((wc[0].wc_flags & IBV_WC_WITH_INV) && wc[0].imm == rkey,
		      "SEND_INV: flags 0x%x rkey 0x%x (want 0x%x)",
		      wc[0].wc_flags, wc[0].imm, rkey);
		rkey = ibv_inc_rkey(rkey);
		ibv_wr_start(xb);
		xb->wr_id = 63;
		ibv_wr_bind_mw(xb, mw, rkey, &bi);
		xb->wr_id = 64;
		ibv_wr_local_inv(xb, rkey);
		need_ok(ibv_wr_complete(xb), "bind + local_inv");
		expect(cqb, 2, wc, "bind + LOCAL_INV");
		CHECK(wc[1].opcode == IBV_WC_LOCAL_INV, "LOCAL_INV opcode %d",
		      wc[1].opcode);
		need_ok(ibv_dealloc_mw(mw), "dealloc_mw");
		printf("MW type 2: bind, SEND_INV, LOCAL_INV: ok\n");
	}

	/* ---- IBTA 1.5: ATOMIC WRITE; FLUSH where advertised ---- */
	{
		uint64_t v = 0x0123456789abcdefULL;

		ibv_wr_start(xa);
		xa->wr_id = 70;
		ibv_wr_atomic_write(xa, mb->rkey, (uintptr_t)(b64 + 2), &v);
		need_ok(ibv_wr_complete(xa), "atomic_write");
		expect(cqa, 1, wc, "ATOMIC WRITE");
		CHECK(wc[0].opcode == IBV_WC_ATOMIC_WRITE && b64[2] == v,
		      "ATOMIC WRITE: opcode %d value %llx", wc[0].opcode,
		      (unsigned long long)b64[2]);
		printf("ATOMIC WRITE: ok\n");
	}
	if (dx.device_cap_flags_ex & DEV_FLUSH_GLOBAL) {
		struct ibv_qp *qf;
		struct ibv_mr *mf;

		printf("FLUSH: advertised, tested\n");
		qf = rs_create_qp(ctx, pd, cqa, cqa, IBV_QPT_RC,
				  SOFTVERBS_QP_EX_WITH_FLUSH, 4);
		mf = need(ibv_reg_mr(pd, b, BUF, access |
				     SOFTVERBS_ACCESS_FLUSH_GLOBAL),
			  "flush MR");
		rs_handshake(qf, gi, &gid, qf->qp_num,
			     SOFTVERBS_ACCESS_FLUSH_GLOBAL);
		ibv_wr_start(ibv_qp_to_qp_ex(qf));
		ibv_qp_to_qp_ex(qf)->wr_id = 80;
		ibv_qp_to_qp_ex(qf)->wr_flags = IBV_SEND_SIGNALED;
		softverbs_wr_flush(ibv_qp_to_qp_ex(qf), mf->rkey,
				   (uintptr_t)b, 4096, SOFTVERBS_FLUSH_GLOBAL,
				   SOFTVERBS_FLUSH_RANGE);
		need_ok(ibv_wr_complete(ibv_qp_to_qp_ex(qf)), "flush");
		expect(cqa, 1, wc, "FLUSH");
		CHECK(wc[0].opcode == (enum ibv_wc_opcode)SOFTVERBS_WC_FLUSH,
		      "FLUSH opcode %d", wc[0].opcode);
		need_ok(ibv_destroy_qp(qf), "destroy flush QP");
		need_ok(ibv_dereg_mr(mf), "dereg flush MR");
		printf("FLUSH: ok\n");
	} else {
		printf("FLUSH: not advertised by the device (not tested)\n");
	}

	/* ---- UD with wr_set_ud_addr, into a basic SRQ made the ex way ---- */
	{
		struct ibv_srq_init_attr_ex sx = {
			.attr = { .max_wr = 8, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				     IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ,
			.srq_type = IBV_SRQT_BASIC, .pd = pd,
			.cq = ibv_cq_ex_to_cq(cqb),
		};
		struct ibv_qp_init_attr_ex ua = {
			.send_cq = ibv_cq_ex_to_cq(cqa),
			.recv_cq = ibv_cq_ex_to_cq(cqb),
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = 64 },
			.qp_type = IBV_QPT_UD,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_SEND_WITH_IMM,
		};
		struct ibv_ah_attr aa = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = gid, .sgid_index = (uint8_t)gi,
				 .hop_limit = 64 },
		};
		struct ibv_qp_attr qa2 = { .qp_state = IBV_QPS_INIT,
					   .port_num = 1, .qkey = 0x1234 };
		struct ibv_sge s;
		struct ibv_recv_wr w = { .wr_id = 90, .sg_list = &s,
					 .num_sge = 1 }, *bad;
		struct ibv_srq *srq;
		struct ibv_qp *us, *ur;
		struct ibv_qp_ex *ux;
		struct ibv_ah *ah;

		srq = need(ibv_create_srq_ex(ctx, &sx), "create_srq_ex");
		us = need(ibv_create_qp_ex(ctx, &ua), "UD sender");
		ua.srq = srq;
		ur = need(ibv_create_qp_ex(ctx, &ua), "UD receiver");
		ux = need(ibv_qp_to_qp_ex(us), "UD qp_ex");
		for (i = 0; i < 2; i++) {
			struct ibv_qp *q = i ? ur : us;

			qa2.qp_state = IBV_QPS_INIT;
			need_ok(ibv_modify_qp(q, &qa2, IBV_QP_STATE |
					      IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					      IBV_QP_QKEY), "UD INIT");
			qa2.qp_state = IBV_QPS_RTR;
			need_ok(ibv_modify_qp(q, &qa2, IBV_QP_STATE), "UD RTR");
			qa2.qp_state = IBV_QPS_RTS;
			qa2.sq_psn = 0;
			need_ok(ibv_modify_qp(q, &qa2, IBV_QP_STATE |
					      IBV_QP_SQ_PSN), "UD RTS");
		}
		s = (struct ibv_sge){ (uintptr_t)(a + 3072), 512, ma->lkey };
		need_ok(ibv_post_srq_recv(srq, &w, &bad), "post_srq_recv");
		ah = need(ibv_create_ah(pd, &aa), "create_ah");
		ibv_wr_start(ux);
		ux->wr_id = 91;
		ux->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_imm(ux, htobe32(5));
		ibv_wr_set_ud_addr(ux, ah, ur->qp_num, 0x1234);
		ibv_wr_set_inline_data(ux, "datagram", 8);
		need_ok(ibv_wr_complete(ux), "UD wr_complete");
		expect(cqa, 1, wc, "UD send");
		expect(cqb, 1, wc, "UD receive");
		CHECK(wc[0].wr_id == 90 && wc[0].byte_len == 40 + 8 &&
		      !memcmp(a + 3072 + 40, "datagram", 8) &&
		      wc[0].imm == htobe32(5) && wc[0].qp_num == ur->qp_num,
		      "UD receive: len %u", wc[0].byte_len);
		printf("UD with wr_set_ud_addr into an ex SRQ: ok\n");
		need_ok(ibv_destroy_ah(ah), "destroy_ah");
		need_ok(ibv_destroy_qp(us), "destroy UD");
		need_ok(ibv_destroy_qp(ur), "destroy UD");
		need_ok(ibv_destroy_srq(srq), "destroy_srq");
		/* an XRC SRQ needs a domain (xrc.c makes real ones) */
		sx.srq_type = IBV_SRQT_XRC;
		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &sx) && errno == EINVAL,
		      "XRC SRQ without a domain: errno %d", errno);
		sx.srq_type = IBV_SRQT_TM;
		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &sx) && errno == EOPNOTSUPP,
		      "tag matching SRQ: errno %d", errno);
	}

	/* ---- what softverbs does not have, said clearly ---- */
	{
		struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
		struct ibv_sge s = { (uintptr_t)a, 64, ma->lkey };
		struct ibv_ece ece = { 0 };

		/* prefetch is for ODP MRs (28-odp): a pinned one is refused */
		CHECK(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &s,
				    1) == EINVAL, "advise_mr on a pinned MR");
		CHECK(ibv_query_rt_values_ex(ctx, &v) == EOPNOTSUPP,
		      "query_rt_values_ex");
		CHECK(ibv_query_ece(qa, &ece) == EOPNOTSUPP &&
		      ibv_set_ece(qa, &ece) == EOPNOTSUPP, "ECE");
		printf("advise_mr on a pinned MR: EINVAL; query_rt_values_ex, ECE: EOPNOTSUPP\n");
	}

	need_ok(ibv_destroy_qp(qa), "destroy A");
	need_ok(ibv_destroy_qp(qb), "destroy B");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cqa)), "destroy cq A");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cqb)), "destroy cq B");
	CHECK(frees == 4, "allocator's free called %d times, want 4", frees);
	CHECK(ibv_dealloc_td(td) == EBUSY, "TD freed under a parent domain");
	need_ok(ibv_dealloc_pd(pdom), "dealloc parent domain");
	need_ok(ibv_dealloc_td(td), "dealloc_td");
	need_ok(ibv_dereg_mr(ma), "dereg");
	need_ok(ibv_dereg_mr(mb), "dereg");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	ibv_close_device(ctx);
	free(a);
	free(b);
	printf("exverbs: all passed\n");
	return 0;
}
