// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rs_loopback: a C port of rust-ibverbs' examples/loopback.rs with the
 * verbs its types use: an ibv_cq_ex, an RC QP made by ibv_create_qp_ex
 * (send_ops_flags) connected to itself, a receive (ibv_post_recv) and a
 * send through the ibv_wr_* API (QueuePair::post_send), both completions
 * polled with start_poll/next_poll/end_poll.  Byte 9 of a 16-byte region
 * is sent from its second half and must land in byte 1.
 *
 *   rs_loopback [-d DEV]
 */
#include <unistd.h>

#include "rs_common.h"

int main(int argc, char **argv)
{
	struct ibv_recv_wr rwr, *bad;
	struct ibv_context *ctx;
	struct ibv_qp_ex *qpx;
	struct ibv_cq_ex *cq;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	union ibv_gid gid;
	bool sent = false, received = false;
	const char *dev = NULL;
	uint8_t *buf;
	int gid_index, opt;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(1, "usage: rs_loopback [-d DEV]");
		dev = optarg;
	}
	ctx = rs_open(dev);
	cq = rs_create_cq(ctx, 16);
	pd = need(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	gid_index = rs_pick_gid(ctx, &gid);
	qp = rs_create_qp(ctx, pd, cq, cq, IBV_QPT_RC,
			  rs_send_ops(IBV_QPT_RC), 16);
	qpx = need(ibv_qp_to_qp_ex(qp), "ibv_qp_to_qp_ex");
	rs_handshake(qp, gid_index, &gid, qp->qp_num, 0);

	buf = calloc(1, 16);
	mr = need(ibv_reg_mr(pd, buf, 16, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
		  "ibv_reg_mr");
	buf[9] = 0x42;

	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	need_ok(ibv_post_recv(qp, &rwr, &bad), "post_receive");

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)(buf + 8), 8);
	need_ok(ibv_wr_complete(qpx), "post_send (wr_complete)");

	while (!sent || !received) {
		struct rs_wc wc[4];
		int i, n = rs_poll(cq, wc, 4);

		for (i = 0; i < n; i++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS,
			      "work request %llu failed: %s",
			      (unsigned long long)wc[i].wr_id,
			      ibv_wc_status_str(wc[i].status));
			if (wc[i].wr_id == 1) {
				CHECK(!sent, "send completed twice");
				sent = true;
				printf("sent\n");
			} else if (wc[i].wr_id == 2) {
				CHECK(!received, "receive completed twice");
				received = true;
				CHECK(buf[1] == 0x42, "byte 1 is 0x%x", buf[1]);
				CHECK(wc[i].byte_len == 8 &&
				      wc[i].qp_num == qp->qp_num,
				      "receive: byte_len %u qp_num %u",
				      wc[i].byte_len, wc[i].qp_num);
				printf("received\n");
			} else {
				die(1, "unexpected wr_id %llu",
				    (unsigned long long)wc[i].wr_id);
			}
		}
	}
	need_ok(ibv_destroy_qp(qp), "ibv_destroy_qp");
	need_ok(ibv_dereg_mr(mr), "ibv_dereg_mr");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), "ibv_destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	ibv_close_device(ctx);
	free(buf);
	return 0;
}
