// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rs_doorbell: a C port of rust-ibverbs' examples/doorbell_batching.rs.
 * One ibv_wr_start..ibv_wr_complete batch (one doorbell) RDMA-WRITEs the
 * space-separated pieces of a string, unsignaled, into a destination
 * region of the same self-connected RC QP, and ends with a signaled SEND
 * carrying the number of writes.  Exactly two completions come: the SEND
 * and the receive; the destination then holds the whole string.
 *
 *   rs_doorbell [-d DEV]
 */
#include <unistd.h>

#include "rs_common.h"

#define RECV_WR_ID	100
#define CQ_CAPACITY	16
#define MAX_SEND_WR	16

int main(int argc, char **argv)
{
	static const char text[] = "Hello from chained RDMA writes!";
	const size_t len = sizeof(text) - 1;
	struct ibv_mr *src_mr, *dest_mr, *notify_mr, *recv_mr;
	uint8_t *src, *dest;
	uint32_t *notify, *recvd;
	struct ibv_recv_wr rwr, *bad;
	struct ibv_context *ctx;
	struct ibv_qp_ex *qpx;
	struct ibv_cq_ex *cq;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_qp *qp;
	union ibv_gid gid;
	bool chain_done = false, recv_done = false;
	const char *dev = NULL;
	size_t off = 0, end;
	uint32_t nwrites = 0;
	uint64_t send_wr_id;
	int gid_index, opt;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(1, "usage: rs_doorbell [-d DEV]");
		dev = optarg;
	}
	ctx = rs_open(dev);
	cq = rs_create_cq(ctx, CQ_CAPACITY);
	pd = need(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	gid_index = rs_pick_gid(ctx, &gid);
	qp = rs_create_qp(ctx, pd, cq, cq, IBV_QPT_RC,
			  rs_send_ops(IBV_QPT_RC), MAX_SEND_WR);
	qpx = need(ibv_qp_to_qp_ex(qp), "ibv_qp_to_qp_ex");
	rs_handshake(qp, gid_index, &gid, qp->qp_num, 0);

	src = calloc(1, len);
	dest = calloc(1, len);
	notify = calloc(1, sizeof(*notify));
	recvd = calloc(1, sizeof(*recvd));
	memcpy(src, text, len);
	src_mr = need(ibv_reg_mr(pd, src, len, access), "reg src");
	dest_mr = need(ibv_reg_mr(pd, dest, len, access), "reg dest");
	notify_mr = need(ibv_reg_mr(pd, notify, 4, access), "reg notify");
	recv_mr = need(ibv_reg_mr(pd, recvd, 4, access), "reg recv");

	sge = (struct ibv_sge){ (uintptr_t)recvd, 4, recv_mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = RECV_WR_ID, .sg_list = &sge,
				    .num_sge = 1 };
	need_ok(ibv_post_recv(qp, &rwr, &bad), "post_receive");

	/* one batch: a WRITE per word (split after each space), then SEND */
	ibv_wr_start(qpx);
	while (off < len) {
		for (end = off; end < len && text[end] != ' '; end++)
			;
		if (end < len)
			end++;		/* split_inclusive keeps the space */
		qpx->wr_id = ++nwrites;
		qpx->wr_flags = 0;
		ibv_wr_rdma_write(qpx, dest_mr->rkey, (uintptr_t)(dest + off));
		ibv_wr_set_sge(qpx, src_mr->lkey, (uintptr_t)(src + off),
			       (uint32_t)(end - off));
		off = end;
	}
	*notify = nwrites;
	send_wr_id = nwrites + 1;
	qpx->wr_id = send_wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, notify_mr->lkey, (uintptr_t)notify, 4);
	need_ok(ibv_wr_complete(qpx), "submit (wr_complete)");

	while (!chain_done || !recv_done) {
		struct rs_wc wc[4];
		int i, n = rs_poll(cq, wc, 4);

		for (i = 0; i < n; i++) {
			printf("Polled WC: wr_id=%llu, status=%s, opcode=%d\n",
			       (unsigned long long)wc[i].wr_id,
			       ibv_wc_status_str(wc[i].status), wc[i].opcode);
			CHECK(wc[i].status == IBV_WC_SUCCESS,
			      "work completion failed");
			if (wc[i].wr_id == send_wr_id) {
				CHECK(!chain_done, "chain completed twice");
				CHECK(wc[i].opcode == IBV_WC_SEND, "opcode");
				chain_done = true;
			} else if (wc[i].wr_id == RECV_WR_ID) {
				CHECK(!recv_done, "receive completed twice");
				recv_done = true;
				CHECK(*recvd == nwrites,
				      "received count %u, sent %u", *recvd,
				      nwrites);
			} else {
				die(1, "unexpected completion %llu (the "
				    "writes are unsignaled)",
				    (unsigned long long)wc[i].wr_id);
			}
		}
	}
	printf("Written data in destination buffer: \"%.*s\" (%u writes)\n",
	       (int)len, (const char *)dest, nwrites);
	CHECK(!memcmp(dest, text, len), "destination differs");

	need_ok(ibv_destroy_qp(qp), "ibv_destroy_qp");
	need_ok(ibv_dereg_mr(src_mr), "dereg");
	need_ok(ibv_dereg_mr(dest_mr), "dereg");
	need_ok(ibv_dereg_mr(notify_mr), "dereg");
	need_ok(ibv_dereg_mr(recv_mr), "dereg");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), "ibv_destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	ibv_close_device(ctx);
	free(src);
	free(dest);
	free(notify);
	free(recvd);
	return 0;
}
