// SPDX-License-Identifier: GPL-2.0
/*
 * xrcvictim DEV GID_INDEX PEER_GID: the XRC target that tests/user/68-fuzz.py
 * aims forged packets at (pyverbs over librxe has no XRC).  On DEV: an XRC
 * domain (no inode), an XRC SRQ with 32 receives posted into an MR, and an
 * XRC receive QP of the domain connected (RTS, PSN 0xfffff0, as the other
 * victims) to PEER_GID (an IPv6 GID, the fuzzer's source) through the GID
 * at GID_INDEX.  Prints "QPN SRQN" and waits until stdin closes; then
 * checks that the QP can still be queried, counts the receive completions
 * the forged packets made (any status), destroys everything and prints
 * "ok COMPLETIONS STATE".  Linked with -lsoftverbs only.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include "rs_common.h"

#define NRECV 32

int main(int argc, char **argv)
{
	static uint8_t buf[NRECV * 4096];
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 2 * NRECV, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_qp_init_attr qi;
	struct ibv_context *ctx;
	struct ibv_qp_attr qa;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *tgt;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ex_path p;
	union ibv_gid dgid;
	uint32_t srqn = 0, i;
	int n, done = 0;
	char c;

	if (argc != 4 || inet_pton(AF_INET6, argv[3], dgid.raw) != 1)
		die(2, "usage: xrcvictim DEV GID_INDEX PEER_GID (IPv6)");
	ctx = rs_open(argv[1]);
	pd = need(ibv_alloc_pd(ctx), "PD");
	cq = need(ibv_create_cq(ctx, 4 * NRECV, NULL, NULL, 0), "CQ");
	mr = need(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_ATOMIC), "MR");
	xrcd = need(ibv_open_xrcd(ctx, &xa), "XRC domain");
	sa.pd = pd;
	sa.xrcd = xrcd;
	sa.cq = cq;
	srq = need(ibv_create_srq_ex(ctx, &sa), "XRC SRQ");
	need_ok(ibv_get_srq_num(srq, &srqn), "ibv_get_srq_num");
	for (i = 0; i < NRECV; i++) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)buf + i * 4096,
					.length = 4096, .lkey = mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge,
					    .num_sge = 1 };
		need_ok(ibv_post_srq_recv(srq, &rwr, &rbad), "post receive");
	}
	ta.xrcd = xrcd;
	tgt = need(ibv_create_qp_ex(ctx, &ta), "XRC receive QP");
	p = ex_path(&dgid, atoi(argv[2]), 0x68, IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		    IBV_MTU_1024);
	p.psn = 0xfffff0;
	rs_connect(tgt, &p);
	printf("%u %u\n", tgt->qp_num, srqn);
	fflush(stdout);

	while (read(0, &c, 1) > 0)
		;
	need_ok(ibv_query_qp(tgt, &qa, IBV_QP_STATE, &qi), "query the QP");
	while ((n = ibv_poll_cq(cq, 1, &wc)) > 0)
		done += n;
	need_ok(n, "poll");
	need_ok(ibv_destroy_qp(tgt), "destroy the QP");
	need_ok(ibv_destroy_srq(srq), "destroy the SRQ");
	need_ok(ibv_close_xrcd(xrcd), "close the domain");
	need_ok(ibv_dereg_mr(mr), "deregister the MR");
	need_ok(ibv_destroy_cq(cq), "destroy the CQ");
	need_ok(ibv_dealloc_pd(pd), "free the PD");
	need_ok(ibv_close_device(ctx), "close the device");
	printf("ok %d %d\n", done, qa.qp_state);
	return 0;
}
