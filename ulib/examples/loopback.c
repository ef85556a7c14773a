// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loopback: an ordinary verbs program (distro <infiniband/verbs.h>, linked
 * with -lsoftverbs only) that exercises every object verb on one device
 * and moves data between QPs of that same device:
 *
 *   1. objects: PD, MR (+rereg), MW type 1 and 2, completion channel, CQ
 *      (+resize, +ibv_create_cq_ex), SRQ (+modify, query), RC/UD QPs
 *      (+modify, query), AH, multicast attach/detach;
 *   2. RC loopback between two QPs connected to each other (A uses its RQ,
 *      B the SRQ): ping-pong of SENDs with data checks over enough
 *      iterations to wrap every ring many times, inline sends, SEND with
 *      immediate, RDMA WRITE/READ, atomics, a type 1 MW bind used as an
 *      rkey, a CQ resize with completions pending, completion events,
 *      (with -t) two threads posting to one SQ while a third polls the CQ;
 *   3. UD: a send through an AH, the reply through ibv_create_ah_from_wc.
 *
 *   loopback [-d DEV] [-g GID_INDEX] [-n ITERS] [-t THREAD_ROUNDS] [-l] [-s] [-v]
 *
 * -t N runs the threaded phase (two threads posting to one SQ, one polling
 * the CQ) N times; it is off by default because Soft-RoCE itself loses
 * completions there (6.1, 6.12: some WRs never complete, with rdma-core's own
 * librxe just as with libsoftverbs).  -l skips the checks of behaviour
 * libibverbs + librxe 44 lack (so the same source built with -libverbs
 * serves as a differential reference).  -s turns "not a single work
 * request ever completed" into a skip: a device whose transport does not
 * move data yet; once anything has completed, a timeout is a failure.
 *
 * Exit status: 0 all passed, 1 a check failed, 4 skipped: the device is
 * missing, or it does not implement an object (EOPNOTSUPP/ENOSYS at
 * creation; the message names the object), or (with -s) it completes no
 * work request at all.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#define TIMEOUT_MS	5000	/* before common.h, which defaults it to 10 s */
#include "common.h"

#define BUF_SIZE	4096
#define QDEPTH		16	/* small rings: the ping-pong wraps them */
#define QKEY		0x11111111u

static bool verbose;
/* -l: skip checks of behaviour libibverbs+librxe 44 lacks (differential runs) */
static bool lenient;
/* -s: a device that completes nothing at all is a skip (not yet moving data) */
static bool skip_if_no_data;
static bool data_moved;

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/*
 * An object constructor returned NULL: a device that does not implement
 * the object (yet) is a skip, anything else a failure.
 */
static void *need(void *obj, const char *what)
{
	if (obj)
		return obj;
	if (errno == EOPNOTSUPP || errno == ENOSYS)
		die(EXIT_SKIP, "%s: not supported by the device (%s)", what,
		    strerror(errno));
	die(1, "%s: %s", what, strerror(errno));
}

static void need_ok(int err, const char *what)
{
	if (!err)
		return;
	if (err == EOPNOTSUPP || err == ENOSYS)
		die(EXIT_SKIP, "%s: not supported by the device (%s)", what,
		    strerror(err));
	die(1, "%s: %s", what, strerror(err));
}

/*
 * Print the asynchronous events already queued on the context, without
 * waiting: when completions stop coming, a CQ overrun (IBV_EVENT_CQ_ERR)
 * or a QP error event tells a consumer bug from a device that stopped.
 */
static void report_async_events(struct ibv_context *ctx)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int n = 0;

	while (poll(&pfd, 1, 0) == 1 && !ibv_get_async_event(ctx, &ev)) {
		fprintf(stderr, "async event: %s\n",
			ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		n++;
	}
	if (!n)
		fprintf(stderr, "no async event pending\n");
}

/* Poll until n completions arrived; every one must succeed. */
static void poll_n(struct ibv_cq *cq, int n, struct ibv_wc *out)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc[8];
	int got = 0, i, k;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got < 8 ? n - got : 8, wc);
		CHECK(k >= 0, "ibv_poll_cq: %d (%s)", k, strerror(errno));
		for (i = 0; i < k; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS,
			      "completion wr_id %llu: %s (opcode %d, vendor_err %u)",
			      (unsigned long long)wc[i].wr_id,
			      ibv_wc_status_str(wc[i].status), wc[i].opcode,
			      wc[i].vendor_err);
			if (out)
				out[got + i] = wc[i];
		}
		got += k;
		if (k) {
			deadline = now_ms() + TIMEOUT_MS;
			data_moved = true;
		} else if (now_ms() > deadline) {
			if (skip_if_no_data && !data_moved)
				die(EXIT_SKIP, "[%s] the device completed no work "
				    "request at all: it does not move data (yet)",
				    step);
			report_async_events(cq->context);
			die(1, "timeout: %d of %d completions", got, n);
		}
	}
}

/* ------------------------------------------------------------------ */

struct ctx {
	struct ibv_context *ctx;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;	/* shared by all QPs */
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;		/* RC pair: a has an RQ, b the SRQ */
	struct ibv_qp *ua, *ub;		/* UD pair */
	uint8_t *abuf, *bbuf;		/* 2 x BUF_SIZE each: send | recv */
	struct ibv_mr *amr, *bmr;
};

static int pick_gid(struct ibv_context *ctx, uint8_t port, int want)
{
	struct ibv_gid_entry e;
	int i, best = -1;
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, port, &pa))
		die(1, "ibv_query_port: %s", strerror(errno));
	if (want >= 0)
		return want;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, port, i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		/* prefer IPv4: it also exercises the IPv4 GRH parsing */
		if (e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff)
			return i;
		if (best < 0)
			best = i;
	}
	if (best < 0)
		die(EXIT_SKIP, "no RoCE v2 GID on port %u", port);
	return best;
}

static struct ibv_qp *make_qp(struct ctx *c, enum ibv_qp_type type,
			      struct ibv_srq *srq, const char *what)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->scq,
		.recv_cq = c->rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = QDEPTH,
			.max_recv_wr = QDEPTH,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = need(ibv_create_qp(c->pd, &ia), what);

	CHECK(ia.cap.max_send_wr >= QDEPTH && ia.cap.max_inline_data >= 64,
	      "%s: caps not reported back (%u wr, %u inline)", what,
	      ia.cap.max_send_wr, ia.cap.max_inline_data);
	CHECK(qp->state == IBV_QPS_RESET, "%s: not in RESET", what);
	return qp;
}

static void rc_connect(struct ctx *c, struct ibv_qp *qp, uint32_t dest_qpn)
{
	/* loopback: our own address */
	struct ex_path p = ex_path(&c->gid, c->gid_index, dest_qpn,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC, c->mtu);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	const char *to;
	char what[16];
	int err;

	p.port = c->port;
	p.psn = 0x123;
	err = ex_connect(qp, &p, &to);
	snprintf(what, sizeof(what), "RC QP %s", to);
	need_ok(err, what);

	memset(&a, 0, sizeof(a));
	CHECK(!ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_DEST_QPN |
			    IBV_QP_PATH_MTU | IBV_QP_AV, &ia),
	      "ibv_query_qp: %s", strerror(errno));
	CHECK(a.qp_state == IBV_QPS_RTS && a.dest_qp_num == dest_qpn &&
	      a.path_mtu == c->mtu && ia.send_cq == c->scq &&
	      ia.qp_type == IBV_QPT_RC,
	      "query_qp: state %d dest %u mtu %d", a.qp_state, a.dest_qp_num,
	      a.path_mtu);
	CHECK(!memcmp(&a.ah_attr.grh.dgid, &c->gid, sizeof(c->gid)),
	      "query_qp: dgid differs");
}

static void ud_ready(struct ctx *c, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = c->port,
		.qkey = QKEY,
	};

	need_ok(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_QKEY), "UD QP to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	need_ok(ibv_modify_qp(qp, &a, IBV_QP_STATE), "UD QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	need_ok(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN),
		"UD QP to RTS");
}

/* ------------------------------------------------------------------ */
/* 1. Objects                                                          */

static void objects(struct ctx *c)
{
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = QDEPTH, .max_sge = 2, .srq_limit = 0 },
	};
	struct ibv_cq_init_attr_ex cqx = {
		.cqe = 8,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
	};
	struct ibv_srq_attr sa;
	struct ibv_cq_ex *cq_ex;
	struct ibv_mw *mw2;
	struct ibv_mr *mr;
	union ibv_gid mgid;
	int err;

	step = "objects";
	c->pd = need(ibv_alloc_pd(c->ctx), "ibv_alloc_pd");
	c->abuf = aligned_alloc(4096, 2 * BUF_SIZE);
	c->bbuf = aligned_alloc(4096, 2 * BUF_SIZE);
	CHECK(c->abuf && c->bbuf, "out of memory");
	memset(c->abuf, 0, 2 * BUF_SIZE);
	memset(c->bbuf, 0, 2 * BUF_SIZE);
	c->amr = need(ibv_reg_mr(c->pd, c->abuf, 2 * BUF_SIZE,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_ATOMIC |
				 IBV_ACCESS_MW_BIND), "ibv_reg_mr");
	c->bmr = need(ibv_reg_mr(c->pd, c->bbuf, 2 * BUF_SIZE,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_ATOMIC |
				 IBV_ACCESS_MW_BIND), "ibv_reg_mr");
	CHECK(c->amr->lkey && c->amr->addr == c->abuf &&
	      c->amr->length == 2 * BUF_SIZE && c->amr->pd == c->pd,
	      "ibv_reg_mr: fields not filled");

	/* A throw-away MR: rereg (rxe lacks it: EOPNOTSUPP is fine) and dereg */
	mr = need(ibv_reg_mr_iova(c->pd, c->abuf, BUF_SIZE, 0x10000,
				  IBV_ACCESS_LOCAL_WRITE), "ibv_reg_mr_iova");
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(!err || (err == IBV_REREG_MR_ERR_CMD &&
		       (errno == EOPNOTSUPP || errno == ENOSYS)),
	      "ibv_rereg_mr: %d (%s)", err, strerror(errno));
	msg("rereg_mr: %s\n", err ? "not supported by the device" : "ok");
	CHECK(ibv_rereg_mr(mr, 0x1000, NULL, NULL, 0, 0) ==
	      IBV_REREG_MR_ERR_INPUT, "ibv_rereg_mr accepted a bad flag");
	need_ok(ibv_dereg_mr(mr), "ibv_dereg_mr");

	mw2 = need(ibv_alloc_mw(c->pd, IBV_MW_TYPE_2), "ibv_alloc_mw type 2");
	CHECK(mw2->type == IBV_MW_TYPE_2 && mw2->pd == c->pd, "MW fields");
	need_ok(ibv_dealloc_mw(mw2), "ibv_dealloc_mw");

	c->ch = need(ibv_create_comp_channel(c->ctx), "ibv_create_comp_channel");
	c->scq = need(ibv_create_cq(c->ctx, QDEPTH * 4, c, NULL, 0),
		      "ibv_create_cq");
	c->rcq = need(ibv_create_cq(c->ctx, 8, c, c->ch, 0),
		      "ibv_create_cq with a channel");
	CHECK(c->rcq->cq_context == c && c->rcq->channel == c->ch,
	      "CQ fields");
	CHECK(ibv_destroy_comp_channel(c->ch) == EBUSY,
	      "a channel in use was destroyed");
	need_ok(ibv_resize_cq(c->rcq, QDEPTH * 4), "ibv_resize_cq");
	CHECK(c->rcq->cqe >= QDEPTH * 4, "resize_cq: cqe %d", c->rcq->cqe);

	cq_ex = need(ibv_create_cq_ex(c->ctx, &cqx), "ibv_create_cq_ex");
	{
		struct ibv_poll_cq_attr pa = {};

		CHECK(ibv_start_poll(cq_ex, &pa) == ENOENT,
		      "empty cq_ex polled something");
	}
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cq_ex)), "destroy cq_ex");

	c->srq = need(ibv_create_srq(c->pd, &sia), "ibv_create_srq");
	CHECK(sia.attr.max_wr >= QDEPTH, "srq max_wr %u", sia.attr.max_wr);
	memset(&sa, 0, sizeof(sa));
	sa.max_wr = QDEPTH * 2;
	need_ok(ibv_modify_srq(c->srq, &sa, IBV_SRQ_MAX_WR),
		"ibv_modify_srq (resize)");
	sa.srq_limit = 2;
	need_ok(ibv_modify_srq(c->srq, &sa, IBV_SRQ_LIMIT),
		"ibv_modify_srq (limit)");
	memset(&sa, 0, sizeof(sa));
	need_ok(ibv_query_srq(c->srq, &sa), "ibv_query_srq");
	CHECK(sa.max_wr >= QDEPTH * 2 && sa.srq_limit == 2,
	      "query_srq: max_wr %u limit %u", sa.max_wr, sa.srq_limit);

	c->a = make_qp(c, IBV_QPT_RC, NULL, "ibv_create_qp RC");
	c->b = make_qp(c, IBV_QPT_RC, c->srq, "ibv_create_qp RC with SRQ");
	c->ua = make_qp(c, IBV_QPT_UD, NULL, "ibv_create_qp UD");
	c->ub = make_qp(c, IBV_QPT_UD, NULL, "ibv_create_qp UD");

	/* A QP in RESET takes no receive WRs (IBTA 10.3.1). */
	if (!lenient) {
		struct ibv_sge s = { (uintptr_t)c->abuf, 8, c->amr->lkey };
		struct ibv_recv_wr r = { .sg_list = &s, .num_sge = 1 }, *bad;

		CHECK(ibv_post_recv(c->a, &r, &bad) == EINVAL && bad == &r,
		      "post_recv in RESET accepted");
	}

	ud_ready(c, c->ua);
	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[0] = 0xff;
	mgid.raw[1] = 0x0e;
	mgid.raw[15] = 0x42;
	err = ibv_attach_mcast(c->ua, &mgid, 0);
	need_ok(err, "ibv_attach_mcast");
	need_ok(ibv_detach_mcast(c->ua, &mgid, 0), "ibv_detach_mcast");
	printf("objects: ok\n");
}

/* ------------------------------------------------------------------ */
/* 2. RC loopback                                                      */

static void post_recv_a(struct ctx *c, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)(c->abuf + BUF_SIZE), BUF_SIZE,
			     c->amr->lkey };
	struct ibv_recv_wr r = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	need_ok(ibv_post_recv(c->a, &r, &bad), "ibv_post_recv");
}

static void post_recv_srq(struct ctx *c, uint64_t id)
{
	/* two SGEs: the payload is split across them */
	struct ibv_sge s[2] = {
		{ (uintptr_t)(c->bbuf + BUF_SIZE), 16, c->bmr->lkey },
		{ (uintptr_t)(c->bbuf + BUF_SIZE + 16), BUF_SIZE - 16,
		  c->bmr->lkey },
	};
	struct ibv_recv_wr r = { .wr_id = id, .sg_list = s, .num_sge = 2 };
	struct ibv_recv_wr *bad;

	need_ok(ibv_post_srq_recv(c->srq, &r, &bad), "ibv_post_srq_recv");
}

static void post_one(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf,
		 uint32_t len, uint64_t id, enum ibv_wr_opcode op,
		 unsigned int flags)
{
	struct ibv_sge s = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_send_wr w = {
		.wr_id = id, .sg_list = &s, .num_sge = len ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED | flags,
	}, *bad;

	if (op == IBV_WR_SEND_WITH_IMM)
		w.imm_data = htobe32((uint32_t)id);
	need_ok(ibv_post_send(qp, &w, &bad), "ibv_post_send");
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7);
}

static void rc_pingpong(struct ctx *c, int iters)
{
	struct ibv_wc wc;
	int i;

	step = "rc ping-pong";
	rc_connect(c, c->a, c->b->qp_num);
	rc_connect(c, c->b, c->a->qp_num);
	post_recv_a(c, 1000);
	post_recv_srq(c, 2000);

	for (i = 0; i < iters; i++) {
		/* sizes from 0 to 4096 bytes, inline for the small ones */
		uint32_t len = (uint32_t)(i * 97) % (BUF_SIZE + 1);
		unsigned int fl = len && len <= 64 && (i & 1) ?
				  IBV_SEND_INLINE : 0;
		enum ibv_wr_opcode op = i % 5 == 4 ? IBV_WR_SEND_WITH_IMM :
					IBV_WR_SEND;

		/* ping: A -> B (lands in the SRQ) */
		fill(c->abuf, len, (uint32_t)i);
		post_one(c->a, c->amr, c->abuf, len, (uint64_t)i, op, fl);
		poll_n(c->scq, 1, &wc);
		CHECK(wc.wr_id == (uint64_t)i && wc.opcode == IBV_WC_SEND &&
		      wc.qp_num == c->a->qp_num, "ping send completion");
		poll_n(c->rcq, 1, &wc);
		CHECK(wc.opcode == IBV_WC_RECV && wc.wr_id == 2000 &&
		      wc.byte_len == len && wc.qp_num == c->b->qp_num,
		      "ping recv: opcode %d wr_id %llu len %u (want %u)",
		      wc.opcode, (unsigned long long)wc.wr_id, wc.byte_len,
		      len);
		if (op == IBV_WR_SEND_WITH_IMM)
			CHECK((wc.wc_flags & IBV_WC_WITH_IMM) &&
			      be32toh(wc.imm_data) == (uint32_t)i,
			      "immediate data lost");
		else
			CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "stray imm");
		CHECK(!memcmp(c->bbuf + BUF_SIZE, c->abuf, len),
		      "ping data differs at iteration %d (len %u)", i, len);
		post_recv_srq(c, 2000);

		/* pong: B -> A, echoing what it got */
		memcpy(c->bbuf, c->bbuf + BUF_SIZE, len);
		post_one(c->b, c->bmr, c->bbuf, len, (uint64_t)i, IBV_WR_SEND, fl);
		poll_n(c->scq, 1, &wc);
		poll_n(c->rcq, 1, &wc);
		CHECK(wc.wr_id == 1000 && wc.byte_len == len &&
		      wc.qp_num == c->a->qp_num, "pong recv");
		CHECK(!memcmp(c->abuf + BUF_SIZE, c->abuf, len),
		      "pong data differs at iteration %d", i);
		post_recv_a(c, 1000);
	}
	printf("rc ping-pong: %d round trips ok\n", iters);
}

static void rc_rdma(struct ctx *c)
{
	struct ibv_sge s;
	struct ibv_send_wr w, *bad;
	struct ibv_wc wc[4];
	uint64_t *remote = (uint64_t *)(c->bbuf + 64);
	uint64_t *local = (uint64_t *)c->abuf;
	int i;

	step = "rdma";
	/* WRITE A -> B */
	fill(c->abuf, 512, 77);
	memset(c->bbuf, 0, 512);
	s = (struct ibv_sge){ (uintptr_t)c->abuf, 512, c->amr->lkey };
	w = (struct ibv_send_wr){ .wr_id = 1, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)c->bbuf, c->bmr->rkey } };
	need_ok(ibv_post_send(c->a, &w, &bad), "post RDMA WRITE");
	poll_n(c->scq, 1, wc);
	CHECK(wc[0].opcode == IBV_WC_RDMA_WRITE, "write opcode %d",
	      wc[0].opcode);
	CHECK(!memcmp(c->bbuf, c->abuf, 512), "RDMA WRITE data differs");

	/* READ B -> A */
	fill(c->bbuf + 1024, 300, 99);
	memset(c->abuf + 1024, 0, 300);
	s = (struct ibv_sge){ (uintptr_t)c->abuf + 1024, 300, c->amr->lkey };
	w.opcode = IBV_WR_RDMA_READ;
	w.wr.rdma.remote_addr = (uintptr_t)c->bbuf + 1024;
	need_ok(ibv_post_send(c->a, &w, &bad), "post RDMA READ");
	poll_n(c->scq, 1, wc);
	CHECK(wc[0].opcode == IBV_WC_RDMA_READ && wc[0].byte_len == 300,
	      "read completion");
	CHECK(!memcmp(c->abuf + 1024, c->bbuf + 1024, 300),
	      "RDMA READ data differs");

	/* atomics on B's memory */
	*remote = 40;
	s = (struct ibv_sge){ (uintptr_t)local, 8, c->amr->lkey };
	w = (struct ibv_send_wr){ .wr_id = 3, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { (uintptr_t)remote, 2, 0, c->bmr->rkey } };
	need_ok(ibv_post_send(c->a, &w, &bad), "post FETCH_ADD");
	poll_n(c->scq, 1, wc);
	CHECK(*local == 40 && *remote == 42, "fetch_add: %llu/%llu",
	      (unsigned long long)*local, (unsigned long long)*remote);
	w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 42;
	w.wr.atomic.swap = 7;
	need_ok(ibv_post_send(c->a, &w, &bad), "post CMP_SWP");
	poll_n(c->scq, 1, wc);
	CHECK(*local == 42 && *remote == 7, "cmp_swp: %llu/%llu",
	      (unsigned long long)*local, (unsigned long long)*remote);
	/* a misaligned atomic is refused before it reaches the ring */
	w.wr.atomic.remote_addr = (uintptr_t)remote + 1;
	CHECK(ibv_post_send(c->a, &w, &bad) == EINVAL && bad == &w,
	      "misaligned atomic accepted");

	/* CQ resize with completions pending: they must survive the move */
	s = (struct ibv_sge){ (uintptr_t)c->abuf, 64, c->amr->lkey };
	w = (struct ibv_send_wr){ .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)c->bbuf, c->bmr->rkey } };
	for (i = 0; i < 3; i++) {
		w.wr_id = 10 + i;
		need_ok(ibv_post_send(c->a, &w, &bad), "post RDMA WRITE");
	}
	usleep(200 * 1000);	/* let the completions land in the old ring */
	need_ok(ibv_resize_cq(c->scq, QDEPTH * 8), "ibv_resize_cq (pending)");
	poll_n(c->scq, 3, wc);
	for (i = 0; i < 3; i++)
		CHECK(wc[i].wr_id == 10u + i, "completion %d after resize: %llu",
		      i, (unsigned long long)wc[i].wr_id);
	printf("rdma write/read, atomics, cq resize: ok\n");
}

/* A type 1 window bound over B's buffer, then used as the write rkey. */
static void rc_mw(struct ctx *c)
{
	struct ibv_mw_bind bind = {
		.wr_id = 50,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = c->bmr,
			.addr = (uintptr_t)c->bbuf + 2048,
			.length = 256,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		},
	};
	struct ibv_mw *mw;
	struct ibv_sge s;
	struct ibv_send_wr w, *bad;
	struct ibv_wc wc;
	uint32_t old;

	step = "memory window";
	mw = need(ibv_alloc_mw(c->pd, IBV_MW_TYPE_1), "ibv_alloc_mw type 1");
	old = mw->rkey;
	need_ok(ibv_bind_mw(c->b, mw, &bind), "ibv_bind_mw");
	poll_n(c->scq, 1, &wc);
	CHECK(wc.wr_id == 50 && wc.opcode == IBV_WC_BIND_MW,
	      "bind completion: opcode %d", wc.opcode);
	CHECK(mw->rkey != old && (mw->rkey >> 8) == (old >> 8),
	      "rkey after bind: %#x (was %#x)", mw->rkey, old);

	fill(c->abuf, 200, 5);
	s = (struct ibv_sge){ (uintptr_t)c->abuf, 200, c->amr->lkey };
	w = (struct ibv_send_wr){ .wr_id = 51, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)c->bbuf + 2048, mw->rkey } };
	need_ok(ibv_post_send(c->a, &w, &bad), "RDMA WRITE through the MW");
	poll_n(c->scq, 1, &wc);
	CHECK(!memcmp(c->bbuf + 2048, c->abuf, 200), "MW write data differs");
	need_ok(ibv_dealloc_mw(mw), "ibv_dealloc_mw");
	printf("memory window bind + write: ok\n");
}

/* One receive through the completion channel. */
static void rc_events(struct ctx *c)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct ibv_wc wc;

	step = "completion events";
	need_ok(ibv_req_notify_cq(c->rcq, 0), "ibv_req_notify_cq");
	fill(c->abuf, 100, 3);
	post_one(c->a, c->amr, c->abuf, 100, 60, IBV_WR_SEND, 0);
	poll_n(c->scq, 1, &wc);
	CHECK(poll(&pfd, 1, TIMEOUT_MS) == 1, "no completion event");
	CHECK(!ibv_get_cq_event(c->ch, &ev_cq, &ev_ctx),
	      "ibv_get_cq_event: %s", strerror(errno));
	CHECK(ev_cq == c->rcq && ev_ctx == c, "event names the wrong CQ");
	ibv_ack_cq_events(ev_cq, 1);
	poll_n(c->rcq, 1, &wc);
	CHECK(wc.byte_len == 100 && !memcmp(c->bbuf + BUF_SIZE, c->abuf, 100),
	      "evented receive");
	post_recv_srq(c, 2000);
	printf("completion channel: ok\n");
}

/*
 * Threads sharing queues: two threads post RDMA WRITEs to the same SQ
 * while a third polls the shared CQ.  Every WR must complete exactly once;
 * a full SQ (ENOMEM) is retried.
 *
 * A free SQ slot is no licence to post: the device retires a WQE (frees
 * its slot) when it writes the completion, not when the poller reads it,
 * so with a slow poller the signaled WRs outstanding could outnumber the
 * CQ's entries.  That is a CQ overrun, which the consumer must prevent:
 * the device reports it as an asynchronous error (IBV_EVENT_CQ_ERR), the
 * CQ is unusable afterwards and the remaining completions never appear.
 * So the posters share credits, one per CQ entry: a WR is posted only
 * after taking one, and the poller gives one back per completion.
 */
#define MT_PER_THREAD	250

struct mt {
	struct ctx *c;
	int id;
	unsigned char seen[2 * MT_PER_THREAD];
	int polled;
	int *credits;		/* free send CQ entries, shared */
};

/* Take one CQ credit, waiting for the poller if there is none. */
static void mt_take_credit(int *credits)
{
	int n = __atomic_load_n(credits, __ATOMIC_RELAXED);

	for (;;) {
		if (n <= 0) {
			sched_yield();
			n = __atomic_load_n(credits, __ATOMIC_RELAXED);
			continue;
		}
		if (__atomic_compare_exchange_n(credits, &n, n - 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
	}
}

static void *mt_sender(void *arg)
{
	struct mt *m = arg;
	struct ctx *c = m->c;
	struct ibv_sge s = { (uintptr_t)c->abuf, 64, c->amr->lkey };
	struct ibv_send_wr w = { .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)c->bbuf, c->bmr->rkey } }, *bad;
	int i, err;

	for (i = 0; i < MT_PER_THREAD; i++) {
		w.wr_id = (uint64_t)(m->id * MT_PER_THREAD + i);
		mt_take_credit(m->credits);
		while ((err = ibv_post_send(c->a, &w, &bad)) == ENOMEM)
			sched_yield();
		if (err)
			die(1, "threaded post_send: %s", strerror(err));
	}
	return NULL;
}

static void *mt_poller(void *arg)
{
	struct mt *m = arg;
	/* a deadline for progress, not for the whole run: TCG is slow */
	long long deadline = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc[8];
	int k, i;

	long long t0 = now_ms();

	while (m->polled < 2 * MT_PER_THREAD) {
		k = ibv_poll_cq(m->c->scq, 8, wc);
		if (k < 0)
			die(1, "threaded poll_cq: %d", k);
		for (i = 0; i < k; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id >= 2 * MT_PER_THREAD ||
			    m->seen[wc[i].wr_id]++)
				die(1, "threaded completion wr_id %llu: %s",
				    (unsigned long long)wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status));
		}
		m->polled += k;
		/* release: the entries read are free for new completions */
		__atomic_fetch_add(m->credits, k, __ATOMIC_RELEASE);
		if (k)
			deadline = now_ms() + TIMEOUT_MS;
		else if (now_ms() > deadline) {
			report_async_events(m->c->ctx);
			die(1, "threaded: %d of %d completions (none for %d ms)",
			    m->polled, 2 * MT_PER_THREAD, TIMEOUT_MS);
		}
	}
	msg("threads: %d completions in %lld ms\n", m->polled, now_ms() - t0);
	return NULL;
}

static void rc_threads(struct ctx *c)
{
	struct mt s0, s1, p;
	pthread_t t0, t1, tp;
	int credits = c->scq->cqe;

	step = "threads";
	memset(&p, 0, sizeof(p));
	p.c = c;
	p.credits = &credits;
	s0 = (struct mt){ .c = c, .id = 0, .credits = &credits };
	s1 = (struct mt){ .c = c, .id = 1, .credits = &credits };
	if (pthread_create(&tp, NULL, mt_poller, &p) ||
	    pthread_create(&t0, NULL, mt_sender, &s0) ||
	    pthread_create(&t1, NULL, mt_sender, &s1))
		die(1, "pthread_create");
	pthread_join(t0, NULL);
	pthread_join(t1, NULL);
	pthread_join(tp, NULL);
	printf("threads: %d WRs from 2 posters, 1 poller: ok\n",
	       2 * MT_PER_THREAD);
}

/* ------------------------------------------------------------------ */
/* 3. UD                                                               */

static void ud(struct ctx *c)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = c->port,
		.grh = { .dgid = c->gid, .sgid_index = (uint8_t)c->gid_index,
			 .hop_limit = 64 },
	};
	struct ibv_sge s;
	struct ibv_recv_wr r, *rbad;
	struct ibv_send_wr w, *bad;
	struct ibv_ah *ah, *reply;
	struct ibv_wc wc;
	const uint32_t len = 256;

	step = "ud";
	ud_ready(c, c->ub);
	ah = need(ibv_create_ah(c->pd, &aa), "ibv_create_ah");

	/* receive buffers start with the 40-byte GRH area */
	s = (struct ibv_sge){ (uintptr_t)c->bbuf + BUF_SIZE, 40 + len,
			      c->bmr->lkey };
	r = (struct ibv_recv_wr){ .wr_id = 70, .sg_list = &s, .num_sge = 1 };
	need_ok(ibv_post_recv(c->ub, &r, &rbad), "UD post_recv");

	fill(c->abuf, len, 11);
	s = (struct ibv_sge){ (uintptr_t)c->abuf, len, c->amr->lkey };
	w = (struct ibv_send_wr){ .wr_id = 71, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { ah, c->ub->qp_num, QKEY } };
	need_ok(ibv_post_send(c->ua, &w, &bad), "UD post_send");
	poll_n(c->scq, 1, &wc);
	poll_n(c->rcq, 1, &wc);
	CHECK(wc.wr_id == 70 && wc.byte_len == 40 + len &&
	      wc.src_qp == c->ua->qp_num && (wc.wc_flags & IBV_WC_GRH),
	      "UD recv: len %u src_qp %u flags %#x", wc.byte_len, wc.src_qp,
	      wc.wc_flags);
	CHECK(!memcmp(c->bbuf + BUF_SIZE + 40, c->abuf, len),
	      "UD data differs");

	/* reply to the sender using the address in the GRH area */
	reply = need(ibv_create_ah_from_wc(c->pd, &wc,
					   (struct ibv_grh *)(c->bbuf + BUF_SIZE),
					   c->port), "ibv_create_ah_from_wc");
	s = (struct ibv_sge){ (uintptr_t)c->abuf + BUF_SIZE, 40 + len,
			      c->amr->lkey };
	r.wr_id = 72;
	need_ok(ibv_post_recv(c->ua, &r, &rbad), "UD post_recv");
	s = (struct ibv_sge){ (uintptr_t)c->bbuf + BUF_SIZE + 40, len,
			      c->bmr->lkey };
	w = (struct ibv_send_wr){ .wr_id = 73, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htobe32(0xabcd),
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { reply, wc.src_qp, QKEY } };
	need_ok(ibv_post_send(c->ub, &w, &bad), "UD reply post_send");
	poll_n(c->scq, 1, &wc);
	poll_n(c->rcq, 1, &wc);
	CHECK(wc.wr_id == 72 && wc.src_qp == c->ub->qp_num &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      be32toh(wc.imm_data) == 0xabcd, "UD reply completion");
	CHECK(!memcmp(c->abuf + BUF_SIZE + 40, c->abuf, len),
	      "UD reply data differs");
	need_ok(ibv_destroy_ah(reply), "ibv_destroy_ah");
	need_ok(ibv_destroy_ah(ah), "ibv_destroy_ah");
	printf("ud send + reply via ibv_create_ah_from_wc: ok\n");
}

/* ------------------------------------------------------------------ */

static void teardown(struct ctx *c)
{
	step = "teardown";
	need_ok(ibv_destroy_qp(c->ua), "ibv_destroy_qp");
	need_ok(ibv_destroy_qp(c->ub), "ibv_destroy_qp");
	need_ok(ibv_destroy_qp(c->a), "ibv_destroy_qp");
	need_ok(ibv_destroy_qp(c->b), "ibv_destroy_qp");
	need_ok(ibv_destroy_srq(c->srq), "ibv_destroy_srq");
	need_ok(ibv_destroy_cq(c->scq), "ibv_destroy_cq");
	need_ok(ibv_destroy_cq(c->rcq), "ibv_destroy_cq");
	need_ok(ibv_destroy_comp_channel(c->ch), "ibv_destroy_comp_channel");
	need_ok(ibv_dereg_mr(c->amr), "ibv_dereg_mr");
	need_ok(ibv_dereg_mr(c->bmr), "ibv_dereg_mr");
	need_ok(ibv_dealloc_pd(c->pd), "ibv_dealloc_pd");
	need_ok(ibv_close_device(c->ctx), "ibv_close_device");
	free(c->abuf);
	free(c->bbuf);
	printf("teardown: ok\n");
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	const char *name = NULL;
	struct ibv_port_attr pa;
	struct ctx c = { .port = 1 };
	int opt, iters = 200, want_gid = -1, i, n, mt_rounds = 0;

	step = "start";
	while ((opt = getopt(argc, argv, "d:g:ln:st:v")) != -1) {
		switch (opt) {
		case 'd': name = optarg; break;
		case 'g': want_gid = atoi(optarg); break;
		case 'l': lenient = true; break;
		case 'n': iters = atoi(optarg); break;
		case 's': skip_if_no_data = true; break;
		case 't': mt_rounds = atoi(optarg); break;
		case 'v': verbose = true; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-g GID_INDEX] "
				"[-n ITERS] [-t THREAD_ROUNDS] [-l] [-s] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	list = ibv_get_device_list(&n);
	if (!list)
		die(EXIT_SKIP, "ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev)
		die(EXIT_SKIP, "device %s not found", name ? name : "(any)");
	c.ctx = ibv_open_device(dev);
	if (!c.ctx)
		die(1, "ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);

	need_ok(ibv_query_port(c.ctx, c.port, &pa), "ibv_query_port");
	if (pa.state != IBV_PORT_ACTIVE)
		die(EXIT_SKIP, "port %u is not active", c.port);
	c.mtu = pa.active_mtu;
	c.gid_index = pick_gid(c.ctx, c.port, want_gid);
	need_ok(ibv_query_gid(c.ctx, c.port, c.gid_index, &c.gid) ? errno : 0,
		"ibv_query_gid");
	msg("device %s port %u gid[%d] mtu %d\n",
	    ibv_get_device_name(c.ctx->device), c.port, c.gid_index,
	    128 << c.mtu);

	objects(&c);
	rc_pingpong(&c, iters);
	rc_rdma(&c);
	rc_mw(&c);
	rc_events(&c);
	for (i = 0; i < mt_rounds; i++)
		rc_threads(&c);
	ud(&c);
	teardown(&c);
	printf("loopback: all ok\n");
	return 0;
}
