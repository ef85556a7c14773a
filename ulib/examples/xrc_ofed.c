// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrc_ofed: an XRC program written against OFED 1.5's XRC calls, ported
 * the way Documentation/ulib.md ("The old OFED XRC calls") says, driving
 * libsoftverbs' compatibility functions end to end.
 *
 *   xrc_ofed [-d DEV] FILE
 *
 * The parent opens the XRC domain of FILE (ibv_open_xrc_domain), makes an
 * XRC SRQ (ibv_create_xrc_srq), a receive QP (ibv_create_xrc_rcv_qp) and a
 * sender.  A child process (its own context) opens the domain through
 * FILE, registers with the receive QP by number (ibv_reg_xrc_rcv_qp) and
 * brings it to RTR (ibv_modify_xrc_rcv_qp); the parent unregisters, so the
 * child's registration alone keeps the QP, and SENDs into the SRQ through
 * it (data checked).  When the child unregisters, the QP is gone.  A
 * second receive QP, held by its creator alone and left in RTR, reports
 * COMM_EST with its first packet, acknowledged before unregistering.  Bad
 * input everywhere: unknown numbers, another domain, a number that is not
 * a receive QP, closing a domain in use, OFED's own QP type value.
 *
 * Exit status: 0 passed, 1 failed, 4 skipped.
 */
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rs_common.h"
#include "../include/softverbs.h"

/* OFED's IBV_QPT_XRC (enum ibv_qp_type 5), unused by rdma-core */
#define OFED_IBV_QPT_XRC	5

static const char *dev;

/* the receive QP of the domain to INIT and RTR, by number, through d */
static void rcv_to_rtr(struct ibv_xrc_domain *d, uint32_t qpn,
		       uint32_t ini_qpn, int gidx, const union ibv_gid *gid)
{
	struct ex_path p = ex_path(gid, gidx, ini_qpn, IBV_ACCESS_REMOTE_WRITE,
				   IBV_MTU_1024);
	struct ibv_qp_attr a;

	p.max_dest_rd_atomic = 1;
	need_ok(ibv_modify_xrc_rcv_qp(d, qpn, &a, ex_init_attr(&a, &p)),
		"receive QP to INIT");
	/* OFED: the QP need not reach RTS to receive */
	need_ok(ibv_modify_xrc_rcv_qp(d, qpn, &a,
				      ex_rtr_attr(&a, IBV_QPT_XRC_RECV, &p)),
		"receive QP to RTR");
}

/* the sender (modern IBV_QPT_XRC_SEND) to RTS towards receive QP qpn */
static void ini_to_rts(struct ibv_qp *qp, uint32_t qpn, int gidx,
		       const union ibv_gid *gid)
{
	struct ex_path p = ex_path(gid, gidx, qpn, 0, IBV_MTU_1024);
	const char *to;
	char what[16];
	int err;

	p.max_rd_atomic = 1;
	err = ex_connect(qp, &p, &to);
	snprintf(what, sizeof(what), "sender %s", to);
	need_ok(err, what);
}

/* the receive QP's state as OFED's query answers it, through d */
static enum ibv_qp_state rcv_state(struct ibv_xrc_domain *d, uint32_t qpn)
{
	struct softverbs_xrc_qp_init_attr ia;
	struct ibv_qp_attr a;

	memset(&ia, 0xa5, sizeof(ia));
	need_ok(ibv_query_xrc_rcv_qp(d, qpn, &a, IBV_QP_STATE, &ia),
		"ibv_query_xrc_rcv_qp");
	CHECK(ia.xrc_domain == d && ia.qp_type == IBV_QPT_XRC_RECV &&
	      !ia.send_cq && !ia.recv_cq && !ia.srq && !ia.cap.max_send_wr,
	      "query: init_attr domain %p (%p) type %d", (void *)ia.xrc_domain,
	      (void *)d, ia.qp_type);
	return a.qp_state;
}

static void put(int fd, char c)
{
	CHECK(write(fd, &c, 1) == 1, "pipe write: %s", strerror(errno));
}

static void get(int fd, char want)
{
	char c = 0;

	CHECK(read(fd, &c, 1) == 1 && c == want, "pipe read: got '%c'", c);
}

/*
 * The first packet reached receive QP qpn in RTR: communication
 * established (IBTA 11.6.3.1).  ib_uverbs reports it to the handle that
 * created the QP, and none to the handles of OPEN_QP (registrations):
 * want says which this process holds.  An event must be acknowledged
 * before unregistering, which waits for that as ibv_destroy_qp does.
 */
static void rcv_events(struct ibv_context *ctx, uint32_t qpn, bool want)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	if (!want) {
		CHECK(poll(&p, 1, 500) == 0,
		      "an event on a registration's handle of QP %u", qpn);
		printf("no event on a registration's handle: ok\n");
		return;
	}
	CHECK(poll(&p, 1, TIMEOUT_MS) == 1, "no COMM_EST on QP %u", qpn);
	need_ok(ibv_get_async_event(ctx, &ev) ? errno : 0,
		"ibv_get_async_event");
	CHECK(ev.event_type == IBV_EVENT_COMM_EST &&
	      ev.element.qp->qp_num == qpn, "event %s, not COMM_EST on QP %u",
	      ibv_event_type_str(ev.event_type), qpn);
	ibv_ack_async_event(&ev);
	CHECK(poll(&p, 1, 0) == 0, "a second event on QP %u", qpn);
	printf("COMM_EST on QP %u got and acknowledged: ok\n", qpn);
}

/*
 * The child: its own context, the domain through the file, a registration
 * of the parent's receive QP, which it brings to RTR; it lets go when the
 * parent is done, and being the last holder takes the QP with it.
 */
static int child(const char *path, uint32_t qpn, uint32_t ini_qpn, int rd,
		 int wr)
{
	struct ibv_context *ctx = rs_open(dev);
	struct ibv_xrc_domain *d;
	union ibv_gid gid;
	int fd = open(path, O_RDONLY), gidx;

	CHECK(fd >= 0, "child: open %s: %s", path, strerror(errno));
	/* found through the file, not made */
	d = need(ibv_open_xrc_domain(ctx, fd, 0), "child: ibv_open_xrc_domain");
	CHECK(d->context == ctx, "child: domain of another context");
	need_ok(ibv_reg_xrc_rcv_qp(d, qpn), "child: ibv_reg_xrc_rcv_qp");
	/* a process registers once, however often it asks */
	need_ok(ibv_reg_xrc_rcv_qp(d, qpn), "child: ibv_reg_xrc_rcv_qp again");
	CHECK(ibv_close_xrc_domain(d) == EBUSY,
	      "child: closing a domain with a registration");
	gidx = rs_pick_gid(ctx, &gid);
	rcv_to_rtr(d, qpn, ini_qpn, gidx, &gid);
	CHECK(rcv_state(d, qpn) == IBV_QPS_RTR, "child: receive QP not in RTR");
	printf("child: domain through the file, registered, QP %u to RTR: ok\n",
	       qpn);
	fflush(stdout);
	put(wr, 'R');
	get(rd, 'S');
	/* the QP's first packet came in RTR; the creator had let go */
	rcv_events(ctx, qpn, false);
	need_ok(ibv_unreg_xrc_rcv_qp(d, qpn), "child: ibv_unreg_xrc_rcv_qp");
	CHECK(ibv_unreg_xrc_rcv_qp(d, qpn) == EINVAL,
	      "child: unregistering twice");
	need_ok(ibv_close_xrc_domain(d), "child: ibv_close_xrc_domain");
	close(fd);
	need_ok(ibv_close_device(ctx), "child: close_device");
	fflush(stdout);		/* the caller leaves through _exit() */
	return 0;
}

/* OFED's calls refusing what they must */
static void bad_input(struct ibv_context *ctx, struct ibv_pd *pd,
		      struct ibv_cq *cq, struct ibv_xrc_domain *d, int fd)
{
	struct softverbs_xrc_qp_init_attr ia = {};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	uint32_t n;

	/* no file: O_CREAT and nothing else (OFED) */
	errno = 0;
	CHECK(!ibv_open_xrc_domain(ctx, -1, 0) && errno == EINVAL,
	      "private domain without O_CREAT: errno %d", errno);
	errno = 0;
	CHECK(!ibv_open_xrc_domain(ctx, -1, O_CREAT | O_EXCL) &&
	      errno == EINVAL, "private domain with O_EXCL: errno %d", errno);
	errno = 0;
	CHECK(!ibv_open_xrc_domain(ctx, fd, O_CREAT | O_TRUNC) &&
	      errno == EINVAL, "unknown open flag: errno %d", errno);
	/* the file's domain exists: O_EXCL fails (the kernel: EINVAL) */
	errno = 0;
	CHECK(!ibv_open_xrc_domain(ctx, fd, O_CREAT | O_EXCL) &&
	      errno == EINVAL, "O_EXCL on an existing domain: errno %d",
	      errno);
	/* an XRC SRQ needs its domain and its CQ */
	errno = 0;
	CHECK(!ibv_create_xrc_srq(pd, NULL, cq, &sa) && errno == EINVAL,
	      "XRC SRQ without a domain: errno %d", errno);
	errno = 0;
	CHECK(!ibv_create_xrc_srq(pd, d, NULL, &sa) && errno == EINVAL,
	      "XRC SRQ without a CQ: errno %d", errno);
	/* a receive QP needs its domain */
	CHECK(ibv_create_xrc_rcv_qp(&ia, &n) == EINVAL,
	      "receive QP without a domain");
	CHECK(ibv_create_xrc_rcv_qp(NULL, &n) == EINVAL,
	      "receive QP without attributes");
	/* numbers no QP has: above 24 bits, and (most likely) the top one */
	CHECK(ibv_reg_xrc_rcv_qp(d, 1U << 24) == EINVAL,
	      "registering QP number 2^24");
	CHECK(ibv_reg_xrc_rcv_qp(d, 0xfffffe) == EINVAL,
	      "registering an unknown QP number");
	CHECK(ibv_modify_xrc_rcv_qp(d, 0xfffffe, &a, IBV_QP_STATE) == EINVAL,
	      "modifying an unknown QP number");
	CHECK(ibv_unreg_xrc_rcv_qp(d, 0xfffffe) == EINVAL,
	      "unregistering an unknown QP number");
	CHECK(ibv_reg_xrc_rcv_qp(NULL, 1) == EINVAL &&
	      ibv_modify_xrc_rcv_qp(d, 1, NULL, 0) == EINVAL &&
	      ibv_close_xrc_domain(NULL) == EINVAL,
	      "NULL domain or attributes");
	printf("bad input refused (flags, missing domain/CQ, numbers): ok\n");
}

int main(int argc, char **argv)
{
	static uint8_t src[4096], rbuf[2][4096];
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct softverbs_xrc_qp_init_attr ia = {};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ibv_xrc_domain *d, *priv;
	struct ibv_context *ctx;
	struct ibv_qp_attr attr;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr swr, *sbad;
	struct ibv_cq *rcq, *scq;
	struct ibv_mr *msrc, *mr;
	struct ibv_qp *ini, *ini2;
	struct ibv_srq *srq;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_wc wc;
	uint32_t qpn, q2, srqn, i;
	int opt, fd, gidx, status, p2c[2], c2p[2];
	union ibv_gid gid;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(2, "usage: xrc_ofed [-d DEV] FILE");
		dev = optarg;
	}
	if (optind != argc - 1)
		die(2, "usage: xrc_ofed [-d DEV] FILE");

	ctx = rs_open(dev);
	pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	rcq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0), "receive CQ");
	scq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0), "send CQ");
	fd = open(argv[optind], O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "open %s: %s", argv[optind], strerror(errno));

	/* the domain of the file: none yet, so without O_CREAT EAGAIN */
	errno = 0;
	CHECK(!ibv_open_xrc_domain(ctx, fd, 0) && errno == EAGAIN,
	      "domain found where none was made: errno %d", errno);
	d = need(ibv_open_xrc_domain(ctx, fd, O_CREAT), "ibv_open_xrc_domain");
	CHECK(d->context == ctx, "domain of another context");
	priv = need(ibv_open_xrc_domain(ctx, -1, O_CREAT),
		    "private ibv_open_xrc_domain");
	CHECK(priv->handle != d->handle, "two domains, one handle %u",
	      d->handle);
	printf("domains: of the file and private: ok\n");

	/* the XRC SRQ, its granted size, its number */
	srq = need(ibv_create_xrc_srq(pd, d, rcq, &sa), "ibv_create_xrc_srq");
	CHECK(sa.attr.max_wr >= 16 && sa.attr.max_sge >= 1,
	      "XRC SRQ granted %u x %u", sa.attr.max_wr, sa.attr.max_sge);
	need_ok(ibv_get_srq_num(srq, &srqn), "ibv_get_srq_num");
	CHECK(srqn && srqn < (1U << 24), "SRQ number %u", srqn);
	mr = need(ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE),
		  "reg rbuf");
	for (i = 0; i < 2; i++) {
		sge = (struct ibv_sge){ (uintptr_t)rbuf[i], sizeof(rbuf[i]),
					mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					    .num_sge = 1 };
		need_ok(ibv_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv");
	}
	printf("XRC SRQ %u through ibv_create_xrc_srq: ok\n", srqn);

	/* the receive QP, by number; the creator is registered */
	ia.xrc_domain = d;
	need_ok(ibv_create_xrc_rcv_qp(&ia, &qpn), "ibv_create_xrc_rcv_qp");
	CHECK(qpn && qpn < (1U << 24), "receive QP number %u", qpn);
	CHECK(rcv_state(d, qpn) == IBV_QPS_RESET, "new receive QP not RESET");
	/* the sender: the modern type; OFED's value is refused */
	qa.send_cq = scq;
	ini = need(ibv_create_qp(pd, &qa), "XRC send QP");
	qa.qp_type = (enum ibv_qp_type)OFED_IBV_QPT_XRC;
	errno = 0;
	CHECK(!ibv_create_qp(pd, &qa) && errno == EOPNOTSUPP,
	      "OFED's IBV_QPT_XRC: errno %d", errno);
	/* the sender is a QP, but no receive QP of the domain */
	CHECK(ibv_reg_xrc_rcv_qp(d, ini->qp_num) == EINVAL,
	      "registering a send QP's number");
	printf("receive QP %u, sender %u: ok\n", qpn, ini->qp_num);

	/* another process takes the QP on */
	CHECK(!pipe(p2c) && !pipe(c2p), "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(child(argv[optind], qpn, ini->qp_num, p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	get(c2p[0], 'R');

	/* the creator lets go; the child's registration keeps the QP */
	need_ok(ibv_unreg_xrc_rcv_qp(d, qpn), "ibv_unreg_xrc_rcv_qp");
	CHECK(ibv_unreg_xrc_rcv_qp(d, qpn) == EINVAL,
	      "unregistering a QP not registered here");
	/* queried by number without a registration: RTR, the child's work */
	CHECK(rcv_state(d, qpn) == IBV_QPS_RTR, "receive QP not in RTR");
	/* another domain does not have it */
	CHECK(ibv_reg_xrc_rcv_qp(priv, qpn) == EINVAL,
	      "registering through another domain");
	CHECK(ibv_query_xrc_rcv_qp(priv, qpn, &attr, IBV_QP_STATE, NULL) ==
	      EINVAL, "querying through another domain");
	attr.qp_state = IBV_QPS_ERR;
	CHECK(ibv_modify_xrc_rcv_qp(priv, qpn, &attr, IBV_QP_STATE) == EINVAL,
	      "modifying through another domain");
	CHECK(ibv_unreg_xrc_rcv_qp(priv, qpn) == EINVAL,
	      "unregistering through another domain");
	printf("creator unregistered, QP kept by the other process: ok\n");

	/* SEND into the SRQ through the QP only the child holds */
	gidx = rs_pick_gid(ctx, &gid);
	ini_to_rts(ini, qpn, gidx, &gid);
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 13 + 5);
	msrc = need(ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE),
		    "reg src");
	sge = (struct ibv_sge){ (uintptr_t)src, 200, msrc->lkey };
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.qp_type.xrc.remote_srqn = srqn;	/* OFED: xrc_remote_srq_num */
	need_ok(ibv_post_send(ini, &swr, &sbad), "post SEND");
	wc = ex_poll_one(scq, "SEND");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 1,
	      "SEND: status %s", ibv_wc_status_str(wc.status));
	wc = ex_poll_one(rcq, "receive 1");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100 &&
	      wc.byte_len == 200 && wc.qp_num == qpn &&
	      !memcmp(rbuf[0], src, 200),
	      "receive 1: status %s wr_id %llu len %u qp %u (%u)",
	      ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id,
	      wc.byte_len, wc.qp_num, qpn);
	/* three packets at MTU 1024, with immediate */
	sge.addr = (uintptr_t)src + 7;
	sge.length = 3000;
	swr.wr_id = 2;
	swr.opcode = IBV_WR_SEND_WITH_IMM;
	swr.imm_data = htobe32(0xfeed);
	need_ok(ibv_post_send(ini, &swr, &sbad), "post SEND_WITH_IMM");
	wc = ex_poll_one(scq, "SEND_WITH_IMM");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
	      "SEND_WITH_IMM: status %s", ibv_wc_status_str(wc.status));
	wc = ex_poll_one(rcq, "receive 2");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 101 &&
	      wc.byte_len == 3000 && wc.qp_num == qpn &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.imm_data == htobe32(0xfeed) &&
	      !memcmp(rbuf[1], src + 7, 3000),
	      "receive 2: status %s wr_id %llu len %u",
	      ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id,
	      wc.byte_len);
	printf("SEND (1 and 3 packets, immediate) into SRQ %u through QP %u: ok\n",
	       srqn, qpn);

	/* the child, the last holder, lets go: the QP is gone */
	put(p2c[1], 'S');
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "child failed (status %#x)", status);
	CHECK(ibv_reg_xrc_rcv_qp(d, qpn) == EINVAL,
	      "registering a QP whose last holder unregistered");
	CHECK(ibv_query_xrc_rcv_qp(d, qpn, &attr, IBV_QP_STATE, NULL) ==
	      EINVAL, "querying a QP whose last holder unregistered");
	printf("QP %u gone with its last registration: ok\n", qpn);

	bad_input(ctx, pd, rcq, d, fd);

	/*
	 * A second receive QP, held by its creator only and left in RTR as
	 * OFED allowed: its first packet raises COMM_EST on the creator's
	 * handle, an ordinary QP event to acknowledge before unregistering.
	 */
	need_ok(ibv_create_xrc_rcv_qp(&ia, &q2), "second receive QP");
	need_ok(ibv_reg_xrc_rcv_qp(d, q2), "registering the creator again");
	qa.qp_type = IBV_QPT_XRC_SEND;
	ini2 = need(ibv_create_qp(pd, &qa), "second XRC send QP");
	rcv_to_rtr(d, q2, ini2->qp_num, gidx, &gid);
	ini_to_rts(ini2, q2, gidx, &gid);
	sge = (struct ibv_sge){ (uintptr_t)rbuf[0], 64, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 102, .sg_list = &sge,
				    .num_sge = 1 };
	need_ok(ibv_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv 3");
	sge = (struct ibv_sge){ (uintptr_t)src + 100, 64, msrc->lkey };
	swr.wr_id = 3;
	swr.opcode = IBV_WR_SEND;
	need_ok(ibv_post_send(ini2, &swr, &sbad), "post SEND to QP 2");
	wc = ex_poll_one(scq, "SEND to QP 2");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 3,
	      "SEND to QP 2: status %s", ibv_wc_status_str(wc.status));
	wc = ex_poll_one(rcq, "receive 3");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 102 &&
	      wc.byte_len == 64 && wc.qp_num == q2 &&
	      !memcmp(rbuf[0], src + 100, 64),
	      "receive 3: status %s qp %u (%u)", ibv_wc_status_str(wc.status),
	      wc.qp_num, q2);
	printf("SEND through receive QP %u in RTR: ok\n", q2);
	rcv_events(ctx, q2, true);
	need_ok(ibv_destroy_qp(ini2), "destroy second sender");
	/* a domain with a registration cannot close */
	CHECK(ibv_close_xrc_domain(d) == EBUSY, "closing a domain in use");
	need_ok(ibv_unreg_xrc_rcv_qp(d, q2), "unregistering the second QP");
	CHECK(ibv_reg_xrc_rcv_qp(d, q2) == EINVAL,
	      "second QP still there after its only holder unregistered");
	/* the SRQ keeps the domain busy as well (the kernel says so) */
	CHECK(ibv_close_xrc_domain(d) == EBUSY, "closing a domain with an SRQ");
	printf("domain in use cannot close: ok\n");

	need_ok(ibv_destroy_qp(ini), "destroy sender");
	need_ok(ibv_destroy_srq(srq), "destroy XRC SRQ");
	need_ok(ibv_close_xrc_domain(d), "ibv_close_xrc_domain");
	need_ok(ibv_close_xrc_domain(priv), "close private domain");
	/* closed by everyone: the file has no domain any more */
	d = need(ibv_open_xrc_domain(ctx, fd, O_CREAT | O_EXCL),
		 "a new domain of the file");
	need_ok(ibv_close_xrc_domain(d), "close the new domain");
	need_ok(ibv_dereg_mr(msrc), "dereg src");
	need_ok(ibv_dereg_mr(mr), "dereg rbuf");
	need_ok(ibv_destroy_cq(scq), "destroy send CQ");
	need_ok(ibv_destroy_cq(rcq), "destroy receive CQ");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	close(fd);
	printf("OFED XRC calls: all ok\n");
	return 0;
}
