// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compcntr: completion counters (ibv_create_comp_cntr and friends) end to
 * end on one device, between two RC QPs A and B:
 *
 *   capabilities; set, inc, read of both counts; a counter per operation
 *   type on A (SEND, RDMA WRITE, RDMA READ) and on B (RECV, remote WRITE,
 *   remote READ), traffic with most WRs unsignaled and exact counts after
 *   it; the refusals: attach in RTS (EINVAL), an overlapping attach
 *   (EBUSY), destroy while attached (EBUSY), a BYTES counter
 *   (EOPNOTSUPP); errors: a READ with a bad rkey (A's READ error count,
 *   B's remote READ error count, both QPs then flush: the error counts of
 *   what was posted); and a counter that outlives its QPs and is
 *   destroyed after them.
 *
 * Where the kernel has no completion counter object (ib_core before 7.3)
 * capabilities and create are EOPNOTSUPP: a skip (exit 4).
 *
 *   compcntr [-d DEV]
 */
#include <unistd.h>

#include "rs_common.h"
/* rdma-core 65's declarations where the distro verbs.h lacks them */
#include "../verbs65.h"

#define BUF	4096
#define ROUNDS	16

/* counters of A and B, by operation type */
enum { C_SEND, C_WRITE, C_READ, C_RECV, C_RWRITE, C_RREAD, C_N };

static const char *const cname[C_N] = {
	"A send", "A write", "A read", "B recv", "B remote write",
	"B remote read",
};

static uint64_t rd(struct ibv_comp_cntr *c, bool err)
{
	uint64_t v = ~0ULL;

	need_ok(err ? ibv_read_err_comp_cntr(c, &v) : ibv_read_comp_cntr(c, &v),
		"read");
	return v;
}

/* wait until the count reaches @want (the kernel counts asynchronously) */
static void expect(struct ibv_comp_cntr *c, bool err, uint64_t want,
		   const char *what)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	uint64_t v;

	while ((v = rd(c, err)) < want && now_ms() < deadline)
		usleep(1000);
	/* and no more than that, a little later */
	usleep(20000);
	v = rd(c, err);
	CHECK(v == want, "%s: %s count %llu, want %llu", what,
	      err ? "error" : "completion", (unsigned long long)v,
	      (unsigned long long)want);
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *at,
		      uint32_t len, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)at, len, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	need_ok(ibv_post_recv(qp, &w, &bad), "post_recv");
}

static void post_send(struct ibv_qp *qp, enum ibv_wr_opcode op,
		      struct ibv_mr *mr, void *at, uint32_t len,
		      uint64_t raddr, uint32_t rkey, bool signaled, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)at, len, mr->lkey };
	struct ibv_send_wr w = {
		.wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	};
	struct ibv_send_wr *bad;

	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	need_ok(ibv_post_send(qp, &w, &bad), "post_send");
}

/* the next completion must be @status */
static void wc_is(struct ibv_cq *cq, enum ibv_wc_status status,
		  const char *what)
{
	struct ibv_wc wc = ex_poll_one(cq, what);

	CHECK(wc.status == status, "%s: wr_id %llu: %s, want %s", what,
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	      ibv_wc_status_str(status));
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};

	return need(ibv_create_qp(pd, &a), "ibv_create_qp");
}

static void attach(struct ibv_qp *qp, struct ibv_comp_cntr *c, uint32_t ops,
		   int want, const char *what)
{
	struct ibv_qp_attach_comp_cntr_attr a = { .op_mask = ops };
	int err = ibv_qp_attach_comp_cntr(qp, c, &a);

	CHECK(err == want, "attach %s: %s, want %s", what, strerror(err),
	      strerror(want));
}

static void to_init(struct ibv_qp *qp, const struct ex_path *p)
{
	struct ibv_qp_attr a;

	need_ok(ibv_modify_qp(qp, &a, ex_init_attr(&a, p)), "to INIT");
}

static void to_rts(struct ibv_qp *qp, const struct ex_path *p)
{
	struct ibv_qp_attr a;

	need_ok(ibv_modify_qp(qp, &a, ex_rtr_attr(&a, IBV_QPT_RC, p)),
		"to RTR");
	need_ok(ibv_modify_qp(qp, &a, ex_rts_attr(&a, IBV_QPT_RC, p)),
		"to RTS");
}

int main(int argc, char **argv)
{
	struct ibv_comp_cntr_init_attr ia = { .type = IBV_COMP_CNTR_TYPE_WRS };
	struct ibv_comp_cntr *c[C_N], *spare;
	struct ibv_comp_cntr_caps caps;
	struct ibv_context *ctx;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *ma, *mb;
	struct ibv_cq *cqa, *cqb;
	struct ibv_pd *pd;
	union ibv_gid gid;
	struct ex_path pa, pb;
	const char *dev = NULL;
	uint8_t *a, *b;
	int gi, opt, i, err;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(2, "usage: %s [-d DEV]", argv[0]);
		dev = optarg;
	}
	ctx = rs_open(dev);

	step = "caps";
	err = ibv_query_comp_cntr_caps(ctx, &caps);
	if (err == EOPNOTSUPP) {
		/* no counter can be made either */
		CHECK(!ibv_create_comp_cntr(ctx, &ia) && errno == EOPNOTSUPP,
		      "create without caps: %s", strerror(errno));
		die(EXIT_SKIP, "completion counters: EOPNOTSUPP (the kernel has no completion counter object)");
	}
	need_ok(err, "ibv_query_comp_cntr_caps");
	printf("caps: max_counters %u max_value %#llx ops %#x\n",
	       caps.max_counters, (unsigned long long)caps.max_value,
	       caps.supported_qp_attach_ops);
	CHECK(caps.max_counters >= C_N + 1 && caps.max_value == ~0ULL &&
	      caps.supported_qp_attach_ops == 0x3f, "caps");

	step = "create";
	ia.type = IBV_COMP_CNTR_TYPE_BYTES;
	CHECK(!ibv_create_comp_cntr(ctx, &ia) && errno == EOPNOTSUPP,
	      "a BYTES counter: %s", strerror(errno));
	ia.type = IBV_COMP_CNTR_TYPE_WRS;
	for (i = 0; i < C_N; i++)
		c[i] = need(ibv_create_comp_cntr(ctx, &ia),
			    "ibv_create_comp_cntr");
	spare = need(ibv_create_comp_cntr(ctx, &ia), "ibv_create_comp_cntr");

	step = "set/inc";
	CHECK(rd(spare, false) == 0 && rd(spare, true) == 0, "new: not 0");
	need_ok(ibv_set_comp_cntr(spare, 40), "set");
	need_ok(ibv_inc_comp_cntr(spare, 2), "inc");
	need_ok(ibv_set_err_comp_cntr(spare, ~0ULL), "set err");
	need_ok(ibv_inc_err_comp_cntr(spare, 3), "inc err");	/* wraps */
	CHECK(rd(spare, false) == 42 && rd(spare, true) == 2,
	      "set/inc: %llu/%llu, want 42/2",
	      (unsigned long long)rd(spare, false),
	      (unsigned long long)rd(spare, true));
	need_ok(ibv_set_comp_cntr(spare, 0), "set");
	need_ok(ibv_set_err_comp_cntr(spare, 0), "set err");

	step = "setup";
	pd = need(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	cqa = need(ibv_create_cq(ctx, 256, NULL, NULL, 0), "create_cq");
	cqb = need(ibv_create_cq(ctx, 256, NULL, NULL, 0), "create_cq");
	a = calloc(1, BUF);
	b = calloc(1, BUF);
	CHECK(a && b, "calloc");
	ma = need(ibv_reg_mr(pd, a, BUF, access), "reg_mr");
	mb = need(ibv_reg_mr(pd, b, BUF, access), "reg_mr");
	qa = create_qp(pd, cqa);
	qb = create_qp(pd, cqb);
	gi = rs_pick_gid(ctx, &gid);
	pa = ex_path(&gid, gi, qb->qp_num, access, IBV_MTU_1024);
	pb = ex_path(&gid, gi, qa->qp_num, access, IBV_MTU_1024);

	/* A in RESET, B in INIT: both may take counters */
	step = "attach";
	attach(qa, c[C_SEND], IBV_QP_ATTACH_COMP_CNTR_OP_SEND, 0, "A send");
	attach(qa, c[C_WRITE], IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, 0,
	       "A write");
	attach(qa, c[C_READ], IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ, 0,
	       "A read");
	attach(qa, spare, IBV_QP_ATTACH_COMP_CNTR_OP_SEND |
	       IBV_QP_ATTACH_COMP_CNTR_OP_RECV, EBUSY, "A send again");
	attach(qa, spare, 0, EINVAL, "empty mask");
	to_init(qb, &pb);
	attach(qb, c[C_RECV], IBV_QP_ATTACH_COMP_CNTR_OP_RECV, 0, "B recv");
	attach(qb, c[C_RWRITE], IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
	       0, "B remote write");
	attach(qb, c[C_RREAD], IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ, 0,
	       "B remote read");
	to_init(qa, &pa);
	to_rts(qa, &pa);
	to_rts(qb, &pb);
	attach(qa, spare, IBV_QP_ATTACH_COMP_CNTR_OP_RECV, EINVAL,
	       "A in RTS");
	CHECK(ibv_destroy_comp_cntr(c[C_SEND]) == EBUSY,
	      "destroy attached: %s", strerror(errno));

	/*
	 * Traffic: ROUNDS each of SEND, WRITE, READ, only the last of each
	 * signaled; B's receives signal as receives do.
	 */
	step = "traffic";
	for (i = 0; i < ROUNDS; i++)
		post_recv(qb, mb, b + 64 * i, 64, 100 + i);
	for (i = 0; i < ROUNDS; i++) {
		bool last = i == ROUNDS - 1;

		post_send(qa, IBV_WR_SEND, ma, a, 32, 0, 0, last, 1);
		post_send(qa, IBV_WR_RDMA_WRITE, ma, a + 64, 32,
			  (uintptr_t)(b + 2048), mb->rkey, last, 2);
		post_send(qa, IBV_WR_RDMA_READ, ma, a + 128, 32,
			  (uintptr_t)(b + 2048), mb->rkey, last, 3);
	}
	for (i = 0; i < 3; i++)
		wc_is(cqa, IBV_WC_SUCCESS, "A's signaled");
	for (i = 0; i < ROUNDS; i++)
		wc_is(cqb, IBV_WC_SUCCESS, "B's receive");
	expect(c[C_SEND], false, ROUNDS, cname[C_SEND]);
	expect(c[C_WRITE], false, ROUNDS, cname[C_WRITE]);
	expect(c[C_READ], false, ROUNDS, cname[C_READ]);
	expect(c[C_RECV], false, ROUNDS, cname[C_RECV]);
	expect(c[C_RWRITE], false, ROUNDS, cname[C_RWRITE]);
	expect(c[C_RREAD], false, ROUNDS, cname[C_RREAD]);
	for (i = 0; i < C_N; i++)
		expect(c[i], true, 0, cname[i]);
	printf("traffic: %d SEND, WRITE, READ each (%d signaled): counted\n",
	       ROUNDS, 1);

	/* set and inc under the kernel's counting */
	step = "set/inc attached";
	need_ok(ibv_set_comp_cntr(c[C_SEND], 1000), "set");
	need_ok(ibv_inc_comp_cntr(c[C_SEND], 5), "inc");
	post_send(qa, IBV_WR_SEND, ma, a, 32, 0, 0, true, 4);
	post_recv(qb, mb, b, 64, 200);
	wc_is(cqa, IBV_WC_SUCCESS, "A's send");
	wc_is(cqb, IBV_WC_SUCCESS, "B's receive");
	expect(c[C_SEND], false, 1006, cname[C_SEND]);
	expect(c[C_RECV], false, ROUNDS + 1, cname[C_RECV]);

	/*
	 * Errors: a READ with a bad rkey (unsignaled: errors complete
	 * anyway) is a remote access error for A and a failed remote READ
	 * for B, which both go to ERR; then a SEND posted to A flushes, and
	 * so do B's two posted receives.
	 */
	step = "errors";
	post_recv(qb, mb, b, 64, 300);
	post_recv(qb, mb, b + 64, 64, 301);
	post_send(qa, IBV_WR_RDMA_READ, ma, a, 32, (uintptr_t)b,
		  mb->rkey ^ 0x5a5a00, false, 5);
	wc_is(cqa, IBV_WC_REM_ACCESS_ERR, "A's bad READ");
	post_send(qa, IBV_WR_SEND, ma, a, 32, 0, 0, false, 6);
	wc_is(cqa, IBV_WC_WR_FLUSH_ERR, "A's SEND after the error");
	wc_is(cqb, IBV_WC_WR_FLUSH_ERR, "B's receive");
	wc_is(cqb, IBV_WC_WR_FLUSH_ERR, "B's receive");
	expect(c[C_READ], true, 1, cname[C_READ]);
	expect(c[C_RREAD], true, 1, cname[C_RREAD]);
	expect(c[C_SEND], true, 1, cname[C_SEND]);
	expect(c[C_RECV], true, 2, cname[C_RECV]);
	expect(c[C_WRITE], true, 0, cname[C_WRITE]);
	expect(c[C_RWRITE], true, 0, cname[C_RWRITE]);
	expect(c[C_READ], false, ROUNDS, cname[C_READ]);
	expect(c[C_RREAD], false, ROUNDS, cname[C_RREAD]);
	printf("errors: bad rkey READ and the flushes counted\n");

	/* the QPs go first; then the counters may */
	step = "destroy";
	need_ok(ibv_destroy_qp(qa), "destroy_qp");
	need_ok(ibv_destroy_qp(qb), "destroy_qp");
	/* a counter keeps its counts past its QPs */
	expect(c[C_SEND], false, 1006, cname[C_SEND]);
	for (i = 0; i < C_N; i++)
		need_ok(ibv_destroy_comp_cntr(c[i]), "destroy_comp_cntr");
	need_ok(ibv_destroy_comp_cntr(spare), "destroy_comp_cntr");
	need_ok(ibv_dereg_mr(ma), "dereg");
	need_ok(ibv_dereg_mr(mb), "dereg");
	need_ok(ibv_destroy_cq(cqa), "destroy_cq");
	need_ok(ibv_destroy_cq(cqb), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close");
	free(a);
	free(b);
	printf("completion counters: all checks passed\n");
	return 0;
}
