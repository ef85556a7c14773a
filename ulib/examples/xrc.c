// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrc: the XRC objects of libsoftverbs (IBTA Annex A14): the device's
 * IBV_DEVICE_XRC, XRC domains shared through a file, XRC SRQs in them,
 * their numbers, and the refusals (missing domain or CQ, destroy orders,
 * O_EXCL on a domain that exists, in this process and in another one:
 * EINVAL, as ib_uverbs answers it); then XRC traffic on one device
 * (traffic() below; examples/xrcmp.c has it between processes and
 * devices).
 *
 *   xrc [-d DEV] FILE
 *
 * FILE is created if need be; it names the shared domain.  The child
 * process opens the device on its own (a verbs context does not survive a
 * fork), opens the domain of FILE and makes an SRQ in it; the kernel must
 * find the parent's domain by the file's inode.
 */
#include <endian.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rs_common.h"

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xrc_srq(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(ctx, &a);

	if (srq)
		CHECK(a.attr.max_wr >= 16 && a.attr.max_sge >= 2,
		      "XRC SRQ granted %u x %u", a.attr.max_wr, a.attr.max_sge);
	return srq;
}

static uint32_t srq_num(struct ibv_srq *srq)
{
	uint32_t n = 0;

	need_ok(ibv_get_srq_num(srq, &n), "ibv_get_srq_num");
	/* 24 bits on the wire (XRCETH), 0 never used */
	CHECK(n && n < (1U << 24), "SRQ number %u", n);
	return n;
}

/* port 1's IPv4 RoCE v2 GID (rs_pick_gid) and its index */
static int own_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	return rs_pick_gid(ctx, gid);
}

/* INIT -> RTR -> RTS with the attribute masks ib_core wants per type */
static void connect_qp(struct ibv_qp *qp, int gid_index,
		       const union ibv_gid *gid, uint32_t dest_qpn)
{
	struct ex_path p = ex_path(gid, gid_index, dest_qpn,
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC, IBV_MTU_1024);

	rs_connect(qp, &p);
}

static void post(struct ibv_qp *qp, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	need_ok(ibv_post_send(qp, wr, &bad), what);
}

/*
 * Data over XRC on one device: an initiator (IBV_QPT_XRC_SEND) connected
 * to a target (IBV_QPT_XRC_RECV) of @xrcd; SENDs land in the XRC SRQ
 * @srq names (its CQ @rcq), RDMA and atomics use MRs of the SRQ's PD;
 * naming an SRQ of another domain (@foreign) is an invalid request.
 */
static void traffic(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct ibv_xrcd *xrcd, struct ibv_srq *srq,
		    struct ibv_cq *rcq, struct ibv_srq *foreign)
{
	static uint8_t src[4096], dst[4096], rbuf[4][4096];
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};
	struct ibv_cq *scq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0),
				  "send CQ");
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = scq,
		.cap = { .max_send_wr = 16, .max_send_sge = 2 },
	};
	struct ibv_mr *msrc, *mdst, *mr;
	struct ibv_qp *tgt, *ini, *opened;
	struct ibv_qp_open_attr oa;
	struct ibv_send_wr wr;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	union ibv_gid gid;
	struct ibv_wc wc;
	uint32_t srqn, i;
	uint64_t *word;
	int gidx;

	tgt = need(ibv_create_qp_ex(ctx, &ta), "XRC receive QP");
	ini = need(ibv_create_qp_ex(ctx, &ia), "XRC send QP");
	gidx = own_gid(ctx, &gid);
	connect_qp(tgt, gidx, &gid, ini->qp_num);
	connect_qp(ini, gidx, &gid, tgt->qp_num);
	srqn = srq_num(srq);

	msrc = need(ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE),
		    "reg src");
	mdst = need(ibv_reg_mr(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC), "reg dst");
	mr = need(ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE),
		  "reg rbuf");
	for (i = 0; i < 4; i++) {
		sge = (struct ibv_sge){ (uintptr_t)rbuf[i], sizeof(rbuf[i]),
					mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					    .num_sge = 1 };
		need_ok(ibv_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv");
	}
	/* the receive posted by main() first: a 256-byte buffer */
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);

	/* SEND of 200 bytes into the first WQE, then 3000 (3 packets) */
	sge = (struct ibv_sge){ (uintptr_t)src, 200, msrc->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = srqn;
	post(ini, &wr, "SEND");
	wc = ex_poll_one(scq, "SEND");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
	      "SEND: status %d", wc.status);
	wc = ex_poll_one(rcq, "receive");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 1 &&
	      wc.byte_len == 200 && wc.qp_num == tgt->qp_num,
	      "receive: status %d wr_id %llu len %u qp %u (target %u)",
	      wc.status, (unsigned long long)wc.wr_id, wc.byte_len,
	      wc.qp_num, tgt->qp_num);
	sge.length = 3000;
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x1234);
	post(ini, &wr, "SEND_WITH_IMM");
	wc = ex_poll_one(scq, "SEND_WITH_IMM");
	CHECK(wc.status == IBV_WC_SUCCESS, "SEND_WITH_IMM: %d", wc.status);
	wc = ex_poll_one(rcq, "receive 2");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100 &&
	      wc.byte_len == 3000 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.imm_data == htobe32(0x1234) &&
	      !memcmp(rbuf[0], src, 3000),
	      "receive 2: status %d wr_id %llu len %u", wc.status,
	      (unsigned long long)wc.wr_id, wc.byte_len);
	printf("XRC SEND (1 and 3 packets, immediate) into SRQ %u: ok\n",
	       srqn);

	/* RDMA WRITE and READ against an MR of the SRQ's PD */
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = mdst->rkey;
	sge.length = 2500;
	post(ini, &wr, "WRITE");
	wc = ex_poll_one(scq, "WRITE");
	CHECK(wc.status == IBV_WC_SUCCESS && !memcmp(dst, src, 2500),
	      "WRITE: status %d", wc.status);
	for (i = 0; i < sizeof(dst); i++)
		dst[i] = (uint8_t)(i ^ 0x5a);
	wr.wr_id = 4;
	wr.opcode = IBV_WR_RDMA_READ;
	sge.length = 4000;
	post(ini, &wr, "READ");
	wc = ex_poll_one(scq, "READ");
	CHECK(wc.status == IBV_WC_SUCCESS && !memcmp(src, dst, 4000),
	      "READ: status %d", wc.status);
	/* Fetch & Add: the old value comes back, the new one is there */
	word = (uint64_t *)dst;
	*word = 40;
	wr.wr_id = 5;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)dst;
	wr.wr.atomic.rkey = mdst->rkey;
	wr.wr.atomic.compare_add = 2;
	sge.length = 8;
	post(ini, &wr, "FETCH_ADD");
	wc = ex_poll_one(scq, "FETCH_ADD");
	CHECK(wc.status == IBV_WC_SUCCESS && *(uint64_t *)src == 40 &&
	      *word == 42, "FETCH_ADD: status %d", wc.status);
	printf("XRC RDMA WRITE, READ, FETCH_ADD: ok\n");

	/* the target QP opened again (ibv_open_qp), then closed first */
	memset(&oa, 0, sizeof(oa));
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = tgt->qp_num;
	oa.xrcd = xrcd;
	oa.qp_type = IBV_QPT_XRC_RECV;
	opened = need(ibv_open_qp(ctx, &oa), "ibv_open_qp");
	CHECK(opened->qp_num == tgt->qp_num, "opened QP %u", opened->qp_num);
	need_ok(ibv_destroy_qp(opened), "destroy the opened QP");
	printf("ibv_open_qp of the target: ok\n");

	/* an SRQ of another domain: invalid request, the sender errs */
	wr.wr_id = 6;
	wr.opcode = IBV_WR_SEND;
	sge.length = 16;
	wr.qp_type.xrc.remote_srqn = srq_num(foreign);
	post(ini, &wr, "SEND to a foreign SRQ");
	wc = ex_poll_one(scq, "SEND to a foreign SRQ");
	CHECK(wc.status == IBV_WC_REM_INV_REQ_ERR,
	      "SEND to another domain's SRQ: status %d", wc.status);
	printf("SRQ of another domain refused (REM_INV_REQ_ERR): ok\n");

	need_ok(ibv_destroy_qp(ini), "destroy XRC send QP");
	need_ok(ibv_destroy_qp(tgt), "destroy XRC receive QP");
	need_ok(ibv_dereg_mr(mr), "dereg rbuf");
	need_ok(ibv_dereg_mr(mdst), "dereg dst");
	need_ok(ibv_dereg_mr(msrc), "dereg src");
	need_ok(ibv_destroy_cq(scq), "destroy send CQ");
}

/* the child: another process, its own context, the same domain */
static int child(const char *dev, const char *path, uint32_t parent_num)
{
	struct ibv_context *ctx = rs_open(dev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "child alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0),
				 "child create_cq");
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0, "child: open %s: %s", path, strerror(errno));
	/* the parent's domain exists: O_EXCL must see it */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "child: O_EXCL on the parent's domain: errno %d", errno);
	/* and without O_CREAT it is found, not made */
	xrcd = need(open_xrcd(ctx, fd, 0), "child: open the parent's domain");
	srq = need(xrc_srq(ctx, pd, xrcd, cq), "child: XRC SRQ");
	CHECK(srq_num(srq) != parent_num, "child SRQ has the parent's number");
	need_ok(ibv_destroy_srq(srq), "child destroy_srq");
	need_ok(ibv_close_xrcd(xrcd), "child close_xrcd");
	close(fd);
	need_ok(ibv_destroy_cq(cq), "child destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "child dealloc_pd");
	need_ok(ibv_close_device(ctx), "child close_device");
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_recv_wr rwr, *bad;
	struct ibv_xrcd *xrcd, *again, *priv;
	struct ibv_srq *s1, *s2, *sp;
	struct ibv_context *ctx;
	const char *dev = NULL;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	uint32_t n1, n2;
	char buf[256];
	int opt, fd, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(2, "usage: xrc [-d DEV] FILE");
		dev = optarg;
	}
	if (optind != argc - 1)
		die(2, "usage: xrc [-d DEV] FILE");

	ctx = rs_open(dev);
	{
		struct ibv_device_attr da;

		need_ok(ibv_query_device(ctx, &da), "query_device");
		/* what rdma-core's programs look at (ibv_devinfo -v: XRC) */
		CHECK(da.device_cap_flags & IBV_DEVICE_XRC,
		      "the device does not advertise XRC");
	}
	pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	cq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0), "create_cq");
	fd = open(argv[optind], O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "open %s: %s", argv[optind], strerror(errno));

	/* a file with no domain yet: without O_CREAT, EAGAIN (ib_uverbs) */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, 0) && errno == EAGAIN,
	      "domain found where none was made: errno %d", errno);
	xrcd = need(open_xrcd(ctx, fd, O_CREAT | O_EXCL), "open_xrcd");
	/* the same file again in this process: the same domain, counted */
	again = need(open_xrcd(ctx, fd, O_CREAT), "open_xrcd again");
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "O_EXCL on an existing domain: errno %d", errno);
	/* no file: a private domain */
	priv = need(open_xrcd(ctx, -1, O_CREAT), "private open_xrcd");
	printf("XRC domains: shared (file), reopened, private: ok\n");

	/* XRC SRQs: numbered, distinct, usable rings */
	s1 = need(xrc_srq(ctx, pd, xrcd, cq), "XRC SRQ 1");
	s2 = need(xrc_srq(ctx, pd, again, cq), "XRC SRQ 2");
	sp = need(xrc_srq(ctx, pd, priv, cq), "XRC SRQ in the private domain");
	n1 = srq_num(s1);
	n2 = srq_num(s2);
	CHECK(n1 != n2 && srq_num(sp) != n1 && srq_num(sp) != n2,
	      "SRQ numbers %u %u %u", n1, n2, srq_num(sp));
	mr = need(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE),
		  "reg_mr");
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	need_ok(ibv_post_srq_recv(s1, &rwr, &bad), "post_srq_recv");
	printf("XRC SRQs %u, %u, %u: ok\n", n1, n2, srq_num(sp));

	/*
	 * A destroyed SRQ's number is not handed out again at once: target
	 * QPs and initiators may still name it (issue 40, finding 5).
	 */
	{
		struct ibv_srq *gone, *next;
		uint32_t ngone, nnext;

		gone = need(xrc_srq(ctx, pd, priv, cq), "XRC SRQ to destroy");
		ngone = srq_num(gone);
		need_ok(ibv_destroy_srq(gone), "destroy_srq");
		next = need(xrc_srq(ctx, pd, priv, cq), "XRC SRQ after it");
		nnext = srq_num(next);
		CHECK(nnext != ngone, "SRQ number %u reused at once", ngone);
		need_ok(ibv_destroy_srq(next), "destroy_srq");
		printf("XRC SRQ number %u not reused (next %u): ok\n", ngone,
		       nnext);
	}

	/* bad input: an XRC SRQ needs its domain and its CQ */
	{
		struct ibv_srq_init_attr_ex a = {
			.attr = { .max_wr = 4, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				     IBV_SRQ_INIT_ATTR_PD |
				     IBV_SRQ_INIT_ATTR_XRCD,
			.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd,
		};

		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &a) && errno == EINVAL,
		      "XRC SRQ without a CQ: errno %d", errno);
		a.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
		a.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
		a.cq = cq;
		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &a) && errno == EINVAL,
		      "XRC SRQ without a domain: errno %d", errno);
	}

	/* destroy orders: what is in use cannot go */
	CHECK(ibv_close_xrcd(xrcd) == EBUSY, "close_xrcd with an SRQ in it");
	CHECK(ibv_destroy_cq(cq) == EBUSY, "destroy_cq of an XRC SRQ's CQ");
	CHECK(ibv_dealloc_pd(pd) == EBUSY, "dealloc_pd of an XRC SRQ's PD");
	printf("refusals (missing domain or CQ, objects in use): ok\n");

	/* another process finds the domain through the file */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		_exit(child(dev, argv[optind], n1));
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "child failed (status %#x)", status);
	printf("domain shared with another process through the file: ok\n");

	traffic(ctx, pd, xrcd, s1, cq, sp);

	need_ok(ibv_destroy_srq(s1), "destroy_srq 1");
	/* s2 is in the domain through the second open: still busy */
	CHECK(ibv_close_xrcd(again) == EBUSY, "close_xrcd with SRQ 2 in it");
	need_ok(ibv_destroy_srq(s2), "destroy_srq 2");
	need_ok(ibv_close_xrcd(xrcd), "close_xrcd");
	/* the domain lives on while this process has it open once more */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "domain gone with one open left: errno %d", errno);
	need_ok(ibv_close_xrcd(again), "close_xrcd again");
	/* closed by all: the file has no domain any more */
	xrcd = need(open_xrcd(ctx, fd, O_CREAT | O_EXCL), "open_xrcd anew");
	need_ok(ibv_close_xrcd(xrcd), "close_xrcd anew");
	need_ok(ibv_destroy_srq(sp), "destroy_srq private");
	need_ok(ibv_close_xrcd(priv), "close private xrcd");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	close(fd);
	printf("XRC objects: all ok\n");
	return 0;
}
