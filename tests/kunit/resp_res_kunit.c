// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_resp_res.c: how the responder resources replay
 * duplicate RC requests (IBTA 9.7.4: an RDMA READ again from the PSN asked
 * for, an atomic never executed twice, other requests only acknowledged)
 * and how a response the way out refused puts the resource cursors back
 * for the work item (sv_resp_rewind()).  Peers reach both, and a mistake
 * shows only as a stalled or corrupted connection under loss, which
 * tests/user meets by chance at best.
 *
 * Each case works on an RC QP made by hand: a zeroed struct sv_qp with its
 * resource ring and a device with counters, no ib_core registration.  The
 * QP's responses are "being served" by the work item (resp.serving), so
 * sv_resp_duplicate() only marks what is to be sent again and sends
 * nothing: no path, no MR is needed.
 */
#include <kunit/test.h>
#include <linux/workqueue.h>

#include "sv_resp.h"

struct res_env {
	struct sv_dev	*sv;
	struct sv_qp	*qp;
};

/*
 * The ring after three requests, all answered: a 4-packet READ at PSNs
 * 100-103, a compare & swap at 104 (executed, original value 7) and a
 * one-packet READ at 105; the next PSN expected is 106.
 */
#define RES_MTU		1024
#define RES_NEXT_PSN	106

static int res_env_init(struct kunit *test)
{
	struct res_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	struct sv_resp_res *res;
	struct sv_qp *qp;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	env->sv->stats = alloc_percpu(struct sv_stats);
	/* NULL on failure; a per-CPU pointer is no plain pointer (7.x) */
	KUNIT_ASSERT_TRUE(test, env->sv->stats);
	test->priv = env;

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	qp->ibqp.device = &env->sv->ibdev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->attr.max_dest_rd_atomic = 16;
	spin_lock_init(&qp->resp.lock);
	qp->resp.res_size = SV_MAX_QP_RD_ATOM;
	qp->resp.res = kunit_kcalloc(test, SV_MAX_QP_RD_ATOM, sizeof(*res),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp->resp.res);
	env->qp = qp;

	res = &qp->resp.res[0];
	res->type = SV_RES_READ;
	res->first_psn = 100;
	res->last_psn = 103;
	res->start_psn = 100;
	res->cur_psn = 104;
	res->length = 4000;
	res->cur_off = 4000;
	res->end_off = 4000;
	res->mtu = RES_MTU;
	res->msn = 1;

	res = &qp->resp.res[1];
	res->type = SV_RES_ATOMIC;
	res->cmp_swap = true;
	res->first_psn = 104;
	res->last_psn = 104;
	res->executed = true;
	res->orig = 7;
	res->msn = 2;

	res = &qp->resp.res[2];
	res->type = SV_RES_READ;
	res->first_psn = 105;
	res->last_psn = 105;
	res->start_psn = 105;
	res->cur_psn = 106;
	res->length = 10;
	res->cur_off = 10;
	res->end_off = 10;
	res->mtu = RES_MTU;
	res->msn = 3;

	qp->resp.res_head = 3;
	qp->resp.res_serve = 3;
	qp->resp.psn = RES_NEXT_PSN;
	qp->resp.msn = 3;
	qp->resp.active = true;
	qp->resp.serving = true;
	return 0;
}

static void res_env_exit(struct kunit *test)
{
	struct res_env *env = test->priv;

	free_percpu(env->sv->stats);
}

/*
 * A duplicate of @opcode at @psn, as sv_resp_rcv() would pass it on; a
 * READ's RETH asks for @len bytes.
 */
static void dup_len(struct res_env *env, struct sv_resp_out *out, u8 opcode,
		    u32 psn, u8 bth_flags, u32 len)
{
	u8 hdr[64] = {};
	struct sv_rx_pkt pkt = {
		.p = {
			.info = &sv_opcode_table[opcode],
			.hdr = hdr,
			.opcode = opcode,
			.psn = psn,
			.bth_flags = bth_flags,
		},
	};

	sv_hdr_build_bth(hdr, opcode, 0, 0, 0, psn, 0);
	if (sv_opcode_has(pkt.p.info, SV_EXT_RETH))
		sv_hdr_build_reth(hdr, 0, 0, len);

	sv_resp_out_init(out);
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_duplicate(env->qp, &pkt, out);
	spin_unlock_bh(&env->qp->resp.lock);
}

/* a duplicate READ asks for the rest of the original, as a requester does */
static void dup(struct res_env *env, struct sv_resp_out *out, u8 opcode,
		u32 psn, u8 bth_flags)
{
	u32 off = psn >= 100 && psn <= 103 ? (psn - 100) * RES_MTU : 0;

	dup_len(env, out, opcode, psn, bth_flags, 4000 - off);
}

static bool pending(struct res_env *env, u32 seq)
{
	return env->qp->resp.res[seq].pending;
}

/* A duplicate READ is served again from the PSN asked for (IBTA 9.7.4). */
static void resp_res_dup_read_from_psn(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_res *res = &env->qp->resp.res[0];
	struct sv_resp_out out;

	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 102, 0);
	KUNIT_EXPECT_TRUE(test, pending(env, 0));
	KUNIT_EXPECT_EQ(test, res->start_psn, 102U);
	KUNIT_EXPECT_EQ(test, res->cur_psn, 102U);
	KUNIT_EXPECT_EQ(test, res->cur_off, 2U * RES_MTU);
	KUNIT_EXPECT_EQ(test, res->end_off, 4000U);
	/* its original parameters, and the MSN it completed under */
	KUNIT_EXPECT_EQ(test, res->length, 4000U);
	KUNIT_EXPECT_EQ(test, res->msn, 1U);
	/* responses after it are forgotten: the requester retries them */
	KUNIT_EXPECT_FALSE(test, pending(env, 1));
	KUNIT_EXPECT_FALSE(test, pending(env, 2));
	KUNIT_EXPECT_EQ(test, env->qp->resp.res_serve, 0U);
	KUNIT_EXPECT_EQ(test, env->qp->resp.dup_reqs, 1U);
	/* the work item sends; nothing was queued here, the PSN stays */
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&out.txq));
	KUNIT_EXPECT_FALSE(test, out.kick);
	KUNIT_EXPECT_EQ(test, env->qp->resp.psn, (u32)RES_NEXT_PSN);
}

/*
 * A duplicate READ gets what it asks for and no more: never past the
 * original's end, however much it asks; only its own length if shorter.
 */
static void resp_res_dup_read_bounded(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_res *res = &env->qp->resp.res[0];
	struct sv_resp_out out;

	dup_len(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 101, 0, 100);
	KUNIT_EXPECT_TRUE(test, pending(env, 0));
	KUNIT_EXPECT_EQ(test, res->cur_off, 1U * RES_MTU);
	KUNIT_EXPECT_EQ(test, res->end_off, RES_MTU + 100U);
	dup_len(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 103, 0, 1U << 31);
	KUNIT_EXPECT_EQ(test, res->cur_off, 3U * RES_MTU);
	KUNIT_EXPECT_EQ(test, res->end_off, 4000U);
	dup_len(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 100, 0, 0);
	KUNIT_EXPECT_EQ(test, res->cur_off, 0U);
	KUNIT_EXPECT_EQ(test, res->end_off, 0U);
	KUNIT_EXPECT_EQ(test, env->qp->resp.dup_reqs, 3U);
}

/* A duplicate atomic returns the saved value; it never runs twice. */
static void resp_res_dup_atomic_not_again(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_res *res = &env->qp->resp.res[1];
	struct sv_resp_out out;

	dup(env, &out, IB_OPCODE_RC_COMPARE_SWAP, 104, 0);
	KUNIT_EXPECT_TRUE(test, pending(env, 1));
	KUNIT_EXPECT_TRUE(test, res->executed);
	KUNIT_EXPECT_EQ(test, res->orig, 7ULL);
	KUNIT_EXPECT_FALSE(test, pending(env, 0));
	KUNIT_EXPECT_FALSE(test, pending(env, 2));
	KUNIT_EXPECT_EQ(test, env->qp->resp.res_serve, 1U);
}

/*
 * A duplicate that is not what its PSN was (a READ at the atomic's PSN),
 * or older than every resource, re-serves nothing.
 */
static void resp_res_dup_mismatch_ignored(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_out out;
	u32 seq;

	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 104, 0);
	dup(env, &out, IB_OPCODE_RC_FETCH_ADD, 105, 0);
	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 50, 0);
	for (seq = 0; seq < 3; seq++)
		KUNIT_EXPECT_FALSE(test, pending(env, seq));
	KUNIT_EXPECT_EQ(test, env->qp->resp.res_serve, 3U);
	KUNIT_EXPECT_EQ(test, env->qp->resp.res[1].orig, 7ULL);
	KUNIT_EXPECT_EQ(test, env->qp->resp.dup_reqs, 3U);
}

/*
 * The serving point only moves back: a later duplicate must not skip an
 * older request being served again (the requester resends in order).
 */
static void resp_res_dup_serve_only_back(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_out out;

	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 101, 0);
	KUNIT_EXPECT_EQ(test, env->qp->resp.res_serve, 0U);
	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 105, 0);
	KUNIT_EXPECT_EQ(test, env->qp->resp.res_serve, 0U);
	KUNIT_EXPECT_TRUE(test, pending(env, 0));
	KUNIT_EXPECT_TRUE(test, pending(env, 2));
	KUNIT_EXPECT_EQ(test, env->qp->resp.res[0].cur_psn, 101U);
}

/*
 * A duplicate SEND or WRITE is not executed again, only acknowledged when
 * it asks for it, and behind the responses being served (IBTA 9.7.5.1.1).
 */
static void resp_res_dup_send_acked(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_resp_out out;
	u32 seq;

	dup(env, &out, IB_OPCODE_RC_SEND_ONLY, 99, 0);
	KUNIT_EXPECT_FALSE(test, env->qp->resp.ack_pending);
	dup(env, &out, IB_OPCODE_RC_RDMA_WRITE_ONLY, 99, SV_BTH_ACKREQ);
	KUNIT_EXPECT_TRUE(test, env->qp->resp.ack_pending);
	KUNIT_EXPECT_EQ(test, env->qp->resp.ack_psn, (u32)RES_NEXT_PSN - 1);
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&out.txq));
	for (seq = 0; seq < 3; seq++)
		KUNIT_EXPECT_FALSE(test, pending(env, seq));
	KUNIT_EXPECT_FALSE(test, out.post_wc);
}

/* a queued response: an empty skb, its struct sv_net_pkt in skb->cb */
static void res_pkt(struct kunit *test, struct sv_resp_out *out,
		    const struct sv_resp_cb *cb)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);
	struct sv_net_pkt *pkt;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	pkt = (struct sv_net_pkt *)skb->cb;
	pkt->frame = false;
	*sv_resp_cb(pkt) = *cb;
	sv_net_pktq_add(&out->txq, pkt);
}

/*
 * The way out refused the first response of READ 100-103 while three
 * more packets were queued behind it (READ's next, an ACK, the atomic's):
 * the READ continues from the refused packet, the atomic is answered
 * again, the serving point goes back to the READ, and the queue is freed.
 */
static void resp_res_rewind(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_qp *qp = env->qp;
	struct sv_resp_res *res = &qp->resp.res[0];
	const struct sv_resp_cb failed = {
		.seq = 0, .cur_psn = 100, .cur_off = 0, .from_res = true,
	};
	struct sv_resp_out out;

	sv_resp_out_init(&out);
	res_pkt(test, &out, &(struct sv_resp_cb){
		.seq = 0, .cur_psn = 101, .cur_off = RES_MTU, .from_res = true,
	});
	res_pkt(test, &out, &(struct sv_resp_cb){ .from_res = false });
	res_pkt(test, &out, &(struct sv_resp_cb){
		.seq = 1, .from_res = true,
	});

	spin_lock_bh(&qp->resp.lock);
	sv_resp_rewind(qp, &out, &failed);
	spin_unlock_bh(&qp->resp.lock);

	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&out.txq));
	KUNIT_EXPECT_EQ(test, qp->resp.res_serve, 0U);
	KUNIT_EXPECT_TRUE(test, res->pending);
	KUNIT_EXPECT_EQ(test, res->cur_psn, 100U);
	KUNIT_EXPECT_EQ(test, res->cur_off, 0U);
	KUNIT_EXPECT_TRUE(test, pending(env, 1));
	KUNIT_EXPECT_TRUE(test, qp->resp.res[1].executed);
	KUNIT_EXPECT_FALSE(test, pending(env, 2));
}

/*
 * The work item's reference when it cannot be queued again (issue 15 #5):
 * sv_resp_reset()'s cancel_work_sync() holds the work's pending bit while
 * the running instance tries to requeue itself, and puts only the
 * reference of an instance it took off the queue.  The requeue must drop
 * its own, or destroy_qp waits for ever.  Here the work is held pending by
 * a queue that cannot run it yet, as the cancel holds it.
 */
static DECLARE_COMPLETION(res_wq_gate);

static void res_wq_blocker(struct work_struct *work)
{
	wait_for_completion(&res_wq_gate);
}

static void res_wq_nop(struct work_struct *work)
{
}

static void resp_res_requeue_refused_puts(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_qp *qp = env->qp;
	struct workqueue_struct *wq;
	struct work_struct blocker;

	qp->handle = kunit_kzalloc(test, sizeof(*qp->handle), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp->handle);
	refcount_set(&qp->handle->ref, 1);	/* the QP's own */
	init_completion(&qp->released);
	INIT_WORK(&qp->resp.work, res_wq_nop);
	INIT_WORK_ONSTACK(&blocker, res_wq_blocker);
	reinit_completion(&res_wq_gate);
	wq = alloc_ordered_workqueue("sv-kunit-resp", 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wq);
	queue_work(wq, &blocker);
	KUNIT_ASSERT_TRUE(test, queue_work(wq, &qp->resp.work));

	/* a queuer's reference, and the work cannot be queued: dropped */
	sv_qp_get(qp);
	sv_resp_work_queue(qp);
	KUNIT_EXPECT_EQ(test, refcount_read(&qp->handle->ref), 1U);

	complete(&res_wq_gate);
	destroy_workqueue(wq);	/* runs both, waits for them */
	destroy_work_on_stack(&blocker);

	/* queued: the reference goes with the work (which would drop it) */
	sv_qp_get(qp);
	INIT_WORK(&qp->resp.work, res_wq_nop);
	sv_resp_work_queue(qp);
	flush_work(&qp->resp.work);
	KUNIT_EXPECT_EQ(test, refcount_read(&qp->handle->ref), 2U);
}

/*
 * A ring that grows (SQD to SQD raising max_dest_rd_atomic) keeps every
 * resource under its sequence number: duplicates find them in the larger
 * ring, and the slots no request ever held end the search.
 */
static void resp_res_reserve_grows(struct kunit *test)
{
	struct res_env *env = test->priv;
	struct sv_qp *qp = env->qp;
	struct sv_resp_res *small;
	struct sv_resp_out out;
	u32 seq;

	/* the three resources as sequence numbers 3..5 of a wrapped ring of 4 */
	small = kcalloc(4, sizeof(*small), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, small);
	for (seq = 3; seq < 6; seq++)
		small[seq & 3] = qp->resp.res[seq - 3];
	qp->resp.res = small;
	qp->resp.res_size = 4;
	qp->resp.res_head = 6;
	qp->resp.res_serve = 6;

	KUNIT_ASSERT_EQ(test, sv_resp_res_reserve(qp, 3), 0);
	KUNIT_EXPECT_PTR_EQ(test, qp->resp.res, small);	/* it fits */
	KUNIT_ASSERT_EQ(test, sv_resp_res_reserve(qp, 9), 0);
	KUNIT_EXPECT_EQ(test, qp->resp.res_size, 16U);
	KUNIT_EXPECT_EQ(test, qp->resp.res[3].first_psn, 100U);
	KUNIT_EXPECT_EQ(test, qp->resp.res[4].orig, 7ULL);
	KUNIT_EXPECT_EQ(test, qp->resp.res[5].first_psn, 105U);

	dup(env, &out, IB_OPCODE_RC_COMPARE_SWAP, 104, 0);
	KUNIT_EXPECT_TRUE(test, pending(env, 4));
	KUNIT_EXPECT_EQ(test, qp->resp.res_serve, 4U);
	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 102, 0);
	KUNIT_EXPECT_TRUE(test, pending(env, 3));
	KUNIT_EXPECT_EQ(test, qp->resp.res[3].cur_psn, 102U);
	KUNIT_EXPECT_EQ(test, qp->resp.res_serve, 3U);
	/* older than any it held (slot 2 never held one): nothing */
	dup(env, &out, IB_OPCODE_RC_RDMA_READ_REQUEST, 0, 0);
	KUNIT_EXPECT_FALSE(test, pending(env, 0));
	KUNIT_EXPECT_EQ(test, qp->resp.res_serve, 3U);

	kfree(qp->resp.res);
	qp->resp.res = NULL;
}

static struct kunit_case resp_res_cases[] = {
	KUNIT_CASE(resp_res_dup_read_from_psn),
	KUNIT_CASE(resp_res_dup_read_bounded),
	KUNIT_CASE(resp_res_dup_atomic_not_again),
	KUNIT_CASE(resp_res_dup_mismatch_ignored),
	KUNIT_CASE(resp_res_dup_serve_only_back),
	KUNIT_CASE(resp_res_dup_send_acked),
	KUNIT_CASE(resp_res_rewind),
	KUNIT_CASE(resp_res_requeue_refused_puts),
	KUNIT_CASE(resp_res_reserve_grows),
	{}
};

static struct kunit_suite resp_res_suite = {
	.name = "resp_res_kunit",
	.init = res_env_init,
	.exit = res_env_exit,
	.test_cases = resp_res_cases,
};

kunit_test_suites(&resp_res_suite);
