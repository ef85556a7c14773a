// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mpe: RDMA FLUSH and RDMA ATOMIC WRITE (IBTA 1.5) from a softverbs
 * requester through the libsoftverbs extensions (<softverbs.h>), for
 * tests/user/57-mpe.sh.
 *
 *   mpe DEV_A GID_A DEV_B GID_B
 *	both softverbs devices in this process; A->B, then B->A:
 *	ATOMIC WRITE (memory and completion checked), FLUSH of a range and of
 *	a whole MR (global visibility), then on fresh QPs: FLUSH of an MR
 *	without flush access -> IBV_WC_REM_ACCESS_ERR, FLUSH to persistence
 *	-> an error (no softverbs MR may grant it), ATOMIC WRITE to a
 *	misaligned address -> refused at post (EINVAL).
 *   mpe -o DEV_A GID_A DEV_B GID_B
 *	the same with every MR registered IBV_ACCESS_ON_DEMAND (for
 *	tests/user/28-odp.sh): the ATOMIC WRITE and FLUSHes find the
 *	responder's pages unmapped and wait for their faults; exit 4 where
 *	the device does not advertise FLUSH (ib_core before 6.2).
 *   mpe -r DEV GID
 *	requester only, for a responder in another process (57-mpe.py
 *	flush-peer, on Soft-RoCE): prints "QPN GID" of its QP, reads
 *	"QPN GID RKEY ADDR RKEY2 ADDR2" (the responder's QP, an MR with
 *	remote write and flush access, one without flush access; GIDs as
 *	32 hex digits), then the same checks up to the access error; the
 *	peer checks the ATOMIC WRITE landed (AW_VALUE at ADDR + 8).
 *
 * Exit 0 all passed, 1 a check failed, 4 skipped (no such device).
 */
#include <inttypes.h>
#include <unistd.h>

#include "common.h"
#include "../include/softverbs.h"

#define BUF_SIZE	8192
#define AW_VALUE	"\x01\x23\x45\x67\x89\xab\xcd\xef"
#define MR_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)
#define QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 SOFTVERBS_ACCESS_FLUSH_GLOBAL)

static unsigned int odp_access;	/* IBV_ACCESS_ON_DEMAND with -o */

struct side {
	const char *name;
	struct ibv_context *ctx;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *buf, *buf2;
	struct ibv_mr *mr;	/* remote write + flush (global) */
	struct ibv_mr *mr2;	/* remote write, no flush */
};

static void side_open(struct side *s, const char *name, int gid_index)
{
	struct ibv_port_attr pa;

	s->name = name;
	s->ctx = ex_open(name, NULL);
	s->gid_index = gid_index;
	CHECK(!ibv_query_gid(s->ctx, 1, gid_index, &s->gid), "query_gid");
	CHECK(!ibv_query_port(s->ctx, 1, &pa), "query_port");
	s->mtu = pa.active_mtu;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	CHECK(s->pd && s->cq, "pd/cq: %s", strerror(errno));
	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->buf2 = aligned_alloc(4096, BUF_SIZE);
	CHECK(s->buf && s->buf2, "no memory");
	memset(s->buf, 0x5a, BUF_SIZE);
	memset(s->buf2, 0x5a, BUF_SIZE);
	if (odp_access) {
		struct ibv_device_attr_ex da;

		CHECK(!ibv_query_device_ex(s->ctx, NULL, &da),
		      "query_device_ex");
		/* device_cap_flags_ex bit 38: FLUSH_GLOBAL (softverbs.h) */
		if (!(da.device_cap_flags_ex & (1ULL << 38)))
			die(EXIT_SKIP, "%s does not advertise FLUSH", name);
	}
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, MR_ACCESS | odp_access |
			   SOFTVERBS_ACCESS_FLUSH_GLOBAL);
	CHECK(s->mr, "reg_mr with IBV_ACCESS_FLUSH_GLOBAL: %s",
	      strerror(errno));
	s->mr2 = ibv_reg_mr(s->pd, s->buf2, BUF_SIZE, MR_ACCESS | odp_access);
	CHECK(s->mr2, "reg_mr: %s", strerror(errno));
	/* persistence cannot be granted: ib_core or softverbs refuses */
	CHECK(!ibv_reg_mr(s->pd, s->buf2, BUF_SIZE,
			  MR_ACCESS | (SOFTVERBS_ACCESS_FLUSH_GLOBAL << 1)),
	      "%s: reg_mr with IBV_ACCESS_FLUSH_PERSISTENT succeeded", name);
}

static struct ibv_qp *qp_new(struct side *s)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = QP_ACCESS,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	CHECK(qp, "create_qp: %s", strerror(errno));
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	      "modify INIT: %s", strerror(errno));
	return qp;
}

static void qp_connect(struct ibv_qp *qp, struct side *s, uint32_t qpn,
		       const union ibv_gid *gid, enum ibv_mtu mtu)
{
	struct ex_path p = ex_path(gid, s->gid_index, qpn, QP_ACCESS, mtu);
	struct ibv_qp_attr a;

	p.psn = 0x10;
	p.min_rnr_timer = 12;
	p.timeout = 12;
	p.retry_cnt = 3;
	p.rnr_retry = 3;
	p.max_rd_atomic = 2;	/* the 3 requests below wait in turn */
	CHECK(!ibv_modify_qp(qp, &a, ex_rtr_attr(&a, IBV_QPT_RC, &p)),
	      "modify RTR: %s", strerror(errno));
	CHECK(!ibv_modify_qp(qp, &a, ex_rts_attr(&a, IBV_QPT_RC, &p)),
	      "modify RTS: %s", strerror(errno));
}

static struct ibv_wc wait_wc(struct side *s)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(s->cq, 1, &wc)))
		CHECK(now_ms() < deadline, "no completion");
	CHECK(n == 1, "poll_cq: %d", n);
	return wc;
}

static void expect_wc(struct side *s, uint64_t wr_id, int status, int opcode)
{
	struct ibv_wc wc = wait_wc(s);

	CHECK(wc.wr_id == wr_id && (int)wc.status == status &&
	      (status != IBV_WC_SUCCESS || (int)wc.opcode == opcode),
	      "completion wr_id %" PRIu64 " status %d (%s) opcode %d; want "
	      "wr_id %" PRIu64 " status %d opcode %d", wc.wr_id, wc.status,
	      ibv_wc_status_str(wc.status), wc.opcode, wr_id, status, opcode);
}

/* The successful requests, then a FLUSH without flush access (QP -> ERR). */
static void run_ok_cases(struct side *req, struct ibv_qp *qp, uint32_t rkey,
			 uint64_t addr, uint32_t rkey2, uint64_t addr2)
{
	const unsigned int sig = IBV_SEND_SIGNALED;

	step = "atomic write";
	CHECK(!softverbs_post_atomic_write(qp, 1, sig, rkey, addr + 8,
					   AW_VALUE), "post atomic write");
	step = "flush range";
	CHECK(!softverbs_post_flush(qp, 2, sig, rkey, addr, 64,
				    SOFTVERBS_FLUSH_GLOBAL,
				    SOFTVERBS_FLUSH_RANGE), "post flush");
	step = "flush MR";
	CHECK(!softverbs_post_flush(qp, 3, sig | IBV_SEND_FENCE, rkey, addr, 0,
				    SOFTVERBS_FLUSH_GLOBAL, SOFTVERBS_FLUSH_MR),
	      "post flush (MR)");
	expect_wc(req, 1, IBV_WC_SUCCESS, SOFTVERBS_WC_ATOMIC_WRITE);
	expect_wc(req, 2, IBV_WC_SUCCESS, SOFTVERBS_WC_FLUSH);
	expect_wc(req, 3, IBV_WC_SUCCESS, SOFTVERBS_WC_FLUSH);
	step = "flush without access";
	CHECK(!softverbs_post_flush(qp, 4, sig, rkey2, addr2, 8,
				    SOFTVERBS_FLUSH_GLOBAL,
				    SOFTVERBS_FLUSH_RANGE), "post flush");
	expect_wc(req, 4, IBV_WC_REM_ACCESS_ERR, 0);
	step = "misaligned atomic write";
	CHECK(softverbs_post_atomic_write(qp, 5, sig, rkey, addr + 4,
					  AW_VALUE) == EINVAL,
	      "misaligned ATOMIC WRITE was accepted");
	CHECK(softverbs_post_flush(qp, 6, sig, rkey, addr, 8, 0, 0) == EINVAL,
	      "FLUSH with no placement type was accepted");
}

static void one_way(struct side *req, struct side *resp)
{
	enum ibv_mtu mtu = req->mtu < resp->mtu ? req->mtu : resp->mtu;
	struct ibv_qp *qa = qp_new(req), *qb = qp_new(resp);
	uint8_t want[BUF_SIZE];

	qp_connect(qa, req, qb->qp_num, &resp->gid, mtu);
	qp_connect(qb, resp, qa->qp_num, &req->gid, mtu);
	memset(resp->buf, 0x5a, BUF_SIZE);
	run_ok_cases(req, qa, resp->mr->rkey, (uintptr_t)resp->buf,
		     resp->mr2->rkey, (uintptr_t)resp->buf2);
	memset(want, 0x5a, sizeof(want));
	memcpy(want + 8, AW_VALUE, 8);
	step = "responder memory";
	CHECK(!memcmp(resp->buf, want, sizeof(want)),
	      "%s: responder memory is not as the ATOMIC WRITE left it",
	      resp->name);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);

	/* persistence: no softverbs MR grants it, so the responder refuses */
	step = "flush persistent";
	qa = qp_new(req);
	qb = qp_new(resp);
	qp_connect(qa, req, qb->qp_num, &resp->gid, mtu);
	qp_connect(qb, resp, qa->qp_num, &req->gid, mtu);
	CHECK(!softverbs_post_flush(qa, 7, IBV_SEND_SIGNALED, resp->mr->rkey,
				    (uintptr_t)resp->buf, 64,
				    SOFTVERBS_FLUSH_PERSISTENT,
				    SOFTVERBS_FLUSH_RANGE), "post flush");
	expect_wc(req, 7, IBV_WC_REM_ACCESS_ERR, 0);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	printf("ok: FLUSH and ATOMIC WRITE %s -> %s%s\n", req->name,
	       resp->name, odp_access ? " (ODP MRs)" : "");
	fflush(stdout);
}

static void gid_hex(const union ibv_gid *g, char *out)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g->raw[i]);
}

static int remote_peer(struct side *req)
{
	char line[512], hex[33];
	union ibv_gid gid;
	unsigned int qpn, rkey, rkey2;
	uint64_t addr, addr2;
	struct ibv_qp *qp = qp_new(req);
	int i;

	gid_hex(&req->gid, hex);
	printf("%u %s\n", qp->qp_num, hex);
	fflush(stdout);
	step = "peer";
	CHECK(fgets(line, sizeof(line), stdin), "no peer line");
	CHECK(sscanf(line, "%u %32s %u %" SCNu64 " %u %" SCNu64, &qpn, hex,
		     &rkey, &addr, &rkey2, &addr2) == 6, "peer line: %s", line);
	for (i = 0; i < 16; i++)
		CHECK(sscanf(hex + 2 * i, "%2hhx", &gid.raw[i]) == 1, "gid");
	qp_connect(qp, req, qpn, &gid, req->mtu < IBV_MTU_1024 ? req->mtu :
		   IBV_MTU_1024);
	run_ok_cases(req, qp, rkey, addr, rkey2, addr2);
	ibv_destroy_qp(qp);
	printf("ok: FLUSH and ATOMIC WRITE %s -> peer\n", req->name);
	return 0;
}

int main(int argc, char **argv)
{
	struct side a = { 0 }, b = { 0 };

	step = "start";
	if (argc == 6 && !strcmp(argv[1], "-o")) {
		odp_access = IBV_ACCESS_ON_DEMAND;
		argc--;
		argv++;
	}
	if (argc == 4 && !strcmp(argv[1], "-r")) {
		side_open(&a, argv[2], atoi(argv[3]));
		return remote_peer(&a);
	}
	if (argc != 5) {
		fprintf(stderr, "usage: mpe [-o] DEV_A GID_A DEV_B GID_B | "
			"mpe -r DEV GID\n");
		return 2;
	}
	side_open(&a, argv[1], atoi(argv[2]));
	side_open(&b, argv[3], atoi(argv[4]));
	one_way(&a, &b);
	one_way(&b, &a);
	return 0;
}
