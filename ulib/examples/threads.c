// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * threads: libibverbs' thread-safety promise on one QP and one CQ.
 * Several threads post to the SQ of one RC QP at once, half with
 * ibv_post_send and half with ibv_wr_start..ibv_wr_complete batches (the
 * two APIs interleave whole, never inside each other's critical region),
 * while several threads poll the one send CQ, half with ibv_poll_cq and
 * half with start_poll/next_poll/end_poll.  Every WR is an 8-byte inline
 * RDMA WRITE of its own wr_id into its own slot of the peer's buffer:
 * each wr_id must complete exactly once, successfully, and every slot
 * must hold its wr_id afterwards.
 *
 *   threads [-d DEV] [-p POSTERS] [-c POLLERS] [-n WRS_PER_POSTER]
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rs_common.h"

#define SQ_DEPTH	32
#define BATCH		4

static struct ibv_qp *qp;
static struct ibv_qp_ex *qpx;
static struct ibv_cq_ex *scq;
static struct ibv_mr *dst_mr;
static uint64_t *dst;
static int posters = 4, pollers = 3, per_poster = 300;
static atomic_int completed, in_flight, failures;
static atomic_uchar *seen;

/* Room for n more WRs in the SQ, counted by us (ENOMEM is retried too). */
static void wait_room(int n)
{
	long long deadline = now_ms() + TIMEOUT_MS;

	for (;;) {
		int cur = atomic_load(&in_flight);

		if (cur + n <= SQ_DEPTH &&
		    atomic_compare_exchange_weak(&in_flight, &cur, cur + n))
			return;
		CHECK(now_ms() < deadline, "SQ never drained");
		sched_yield();
	}
}

static void *poster(void *arg)
{
	int id = (int)(intptr_t)arg, i = 0, k;
	uint64_t base = (uint64_t)id * per_poster;
	bool ex = id & 1;

	while (i < per_poster) {
		int n = ex ? BATCH : 1;

		if (n > per_poster - i)
			n = per_poster - i;
		wait_room(n);
		if (ex) {
			ibv_wr_start(qpx);
			for (k = 0; k < n; k++) {
				uint64_t wr_id = base + i + k;

				qpx->wr_id = wr_id;
				qpx->wr_flags = IBV_SEND_SIGNALED;
				ibv_wr_rdma_write(qpx, dst_mr->rkey,
						  (uintptr_t)&dst[wr_id]);
				ibv_wr_set_inline_data(qpx, &wr_id, 8);
			}
			if (ibv_wr_complete(qpx)) {
				atomic_fetch_sub(&in_flight, n);
				sched_yield();
				continue;	/* ENOMEM: retry the batch */
			}
		} else {
			uint64_t wr_id = base + i;
			struct ibv_sge s = { (uintptr_t)&wr_id, 8, 0 };
			struct ibv_send_wr w = {
				.wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED |
					      IBV_SEND_INLINE,
				.wr.rdma = { (uintptr_t)&dst[wr_id],
					     dst_mr->rkey },
			}, *bad;

			if (ibv_post_send(qp, &w, &bad)) {
				atomic_fetch_sub(&in_flight, n);
				sched_yield();
				continue;
			}
		}
		i += n;
	}
	return NULL;
}

static void account(uint64_t wr_id, enum ibv_wc_status st)
{
	if (st != IBV_WC_SUCCESS || wr_id >= (uint64_t)posters * per_poster ||
	    atomic_exchange(&seen[wr_id], 1)) {
		fprintf(stderr, "bad completion: wr_id %llu status %s\n",
			(unsigned long long)wr_id, ibv_wc_status_str(st));
		atomic_fetch_add(&failures, 1);
	}
	atomic_fetch_sub(&in_flight, 1);
	atomic_fetch_add(&completed, 1);
}

static void *poller(void *arg)
{
	bool ex = (intptr_t)arg & 1;
	const int total = posters * per_poster;
	long long deadline = now_ms() + 6 * TIMEOUT_MS;

	while (atomic_load(&completed) < total) {
		CHECK(now_ms() < deadline, "completions missing: %d of %d",
		      atomic_load(&completed), total);
		if (ex) {
			struct ibv_poll_cq_attr pa = { 0 };
			int n = 0;

			if (ibv_start_poll(scq, &pa))
				continue;
			do {
				account(scq->wr_id, scq->status);
			} while (++n < 8 && !ibv_next_poll(scq));
			ibv_end_poll(scq);
		} else {
			struct ibv_wc wc[8];
			int i, n = ibv_poll_cq(ibv_cq_ex_to_cq(scq), 8, wc);

			CHECK(n >= 0, "ibv_poll_cq: %d", n);
			for (i = 0; i < n; i++)
				account(wc[i].wr_id, wc[i].status);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[64];
	struct ibv_context *ctx;
	struct ibv_cq_ex *rcq;
	struct ibv_qp *peer;
	struct ibv_pd *pd;
	union ibv_gid gid;
	const char *dev = NULL;
	long long t0;
	int gi, opt, i, total;

	while ((opt = getopt(argc, argv, "d:p:c:n:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'p': posters = atoi(optarg); break;
		case 'c': pollers = atoi(optarg); break;
		case 'n': per_poster = atoi(optarg); break;
		default:
			die(1, "usage: threads [-d DEV] [-p N] [-c N] [-n N]");
		}
	}
	CHECK(posters > 0 && pollers > 0 && posters + pollers <= 64 &&
	      per_poster > 0, "bad thread counts");
	total = posters * per_poster;
	ctx = rs_open(dev);
	pd = need(ibv_alloc_pd(ctx), "ibv_alloc_pd");
	scq = rs_create_cq(ctx, 2 * SQ_DEPTH);
	rcq = rs_create_cq(ctx, 16);
	gi = rs_pick_gid(ctx, &gid);
	qp = rs_create_qp(ctx, pd, scq, scq, IBV_QPT_RC,
			  rs_send_ops(IBV_QPT_RC), SQ_DEPTH);
	peer = rs_create_qp(ctx, pd, rcq, rcq, IBV_QPT_RC,
			    rs_send_ops(IBV_QPT_RC), 4);
	qpx = need(ibv_qp_to_qp_ex(qp), "ibv_qp_to_qp_ex");
	rs_handshake(qp, gi, &gid, peer->qp_num, 0);
	rs_handshake(peer, gi, &gid, qp->qp_num, 0);
	dst = calloc((size_t)total, sizeof(*dst));
	seen = calloc((size_t)total, 1);
	for (i = 0; i < total; i++)
		dst[i] = ~0ULL;
	dst_mr = need(ibv_reg_mr(pd, dst, (size_t)total * 8,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE), "reg_mr");

	t0 = now_ms();
	for (i = 0; i < pollers; i++)
		pthread_create(&tid[i], NULL, poller, (void *)(intptr_t)i);
	for (i = 0; i < posters; i++)
		pthread_create(&tid[pollers + i], NULL, poster,
			       (void *)(intptr_t)i);
	for (i = 0; i < pollers + posters; i++)
		pthread_join(tid[i], NULL);

	CHECK(!atomic_load(&failures), "%d bad completions",
	      atomic_load(&failures));
	CHECK(atomic_load(&completed) == total, "%d of %d completed",
	      atomic_load(&completed), total);
	for (i = 0; i < total; i++)
		CHECK(dst[i] == (uint64_t)i, "slot %d holds %llx", i,
		      (unsigned long long)dst[i]);
	printf("threads: %d posters (ibv_post_send and ibv_wr_*), %d pollers "
	       "(ibv_poll_cq and start_poll), %d WRITEs on one QP: all "
	       "completed once, data right (%lld ms)\n", posters, pollers,
	       total, now_ms() - t0);
	need_ok(ibv_destroy_qp(qp), "destroy");
	need_ok(ibv_destroy_qp(peer), "destroy");
	need_ok(ibv_dereg_mr(dst_mr), "dereg");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(scq)), "destroy cq");
	need_ok(ibv_destroy_cq(ibv_cq_ex_to_cq(rcq)), "destroy cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	ibv_close_device(ctx);
	free(dst);
	free(seen);
	return 0;
}
