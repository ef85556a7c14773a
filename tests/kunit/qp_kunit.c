// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the QP state machine of kmod/sv_qp.c: which transitions
 * modify_qp accepts with which attributes (IBTA 11.2.4.2 and its state
 * table, 10.3.1), what each state does with posted work requests (10.8.3:
 * ERR flushes, RESET discards), the attribute range checks, and the
 * SQ-drained event (11.2.4.2 en_sqd_async_notify).
 *
 * Kernel QPs on a device made by hand (no ib_core registration), as ib_core
 * would set up the ib_qp before create_qp.  Connected QPs cannot reach RTR
 * here (their address vector needs a registered device's GID table), so
 * the full cycle runs on UD QPs and the RC cases stay at or below INIT;
 * tests/user/24-qp.sh covers RC through RTS on a real device.
 */
#include <kunit/test.h>
#include <linux/delay.h>

#include "sv.h"
#include "sv_req.h"
#include "sv_xport.h"

struct qp_env {
	struct sv_dev	*sv;
	struct ib_pd	*pd;
	struct sv_cq	*cq;
	int		events[IB_EVENT_GID_CHANGE + 1];
};

static int qp_suite_init(struct kunit_suite *suite)
{
	/* what sv_main.c creates at module load */
	sv_wq = alloc_workqueue("softverbs_kunit", WQ_UNBOUND, 0);
	if (!sv_wq)
		return -ENOMEM;
	if (sv_req_wq_create()) {
		destroy_workqueue(sv_wq);
		return -ENOMEM;
	}
	return 0;
}

static void qp_suite_exit(struct kunit_suite *suite)
{
	sv_req_wq_destroy();
	destroy_workqueue(sv_wq);
}

static int qp_env_init(struct kunit *test)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 63 };
	struct qp_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	struct sv_dev *sv;
	struct sv_pd *pd;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	sv = kunit_kzalloc(test, sizeof(*sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sv);
	xa_init_flags(&sv->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sv->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sv->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sv->ah_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	sv->stats = alloc_percpu(struct sv_stats);
	/* NULL on failure; a per-CPU pointer is no plain pointer (7.x) */
	KUNIT_ASSERT_TRUE(test, sv->stats);
	sv->ibdev.num_comp_vectors = 1;
	sv->port_state = IB_PORT_ACTIVE;
	sv->active_mtu = IB_MTU_1024;
	env->sv = sv;

	/* a whole sv_pd: UD QPs join its list (sv_req_ud_add()) */
	pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	pd->ibpd.device = &sv->ibdev;
	KUNIT_ASSERT_EQ(test, sv_pd_alloc(&pd->ibpd, NULL), 0);
	env->pd = &pd->ibpd;

	env->cq = kunit_kzalloc(test, sizeof(*env->cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->cq);
	env->cq->ibcq.device = &sv->ibdev;
	KUNIT_ASSERT_EQ(test, sv_cq_create(&env->cq->ibcq, &cq_attr, NULL), 0);
	test->priv = env;
	return 0;
}

static void qp_env_exit(struct kunit *test)
{
	struct qp_env *env = test->priv;

	/* every case destroys its QPs: no QP, no QPN left */
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_qp), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&env->sv->qp_xa));
	KUNIT_EXPECT_EQ(test, sv_cq_destroy(&env->cq->ibcq, NULL), 0);
	KUNIT_EXPECT_EQ(test, sv_pd_dealloc(env->pd, NULL), 0);
	free_percpu(env->sv->stats);
	/* QP handles and paths are freed after a grace period */
	rcu_barrier();
}

static void qp_event_handler(struct ib_event *event, void *ctx)
{
	struct qp_env *env = ctx;

	if (event->event >= 0 && event->event < ARRAY_SIZE(env->events))
		env->events[event->event]++;
}

/* a kernel QP of @type, set up the way ib_core does before create_qp */
static struct sv_qp *make_qp(struct kunit *test, enum ib_qp_type type)
{
	struct qp_env *env = test->priv;
	struct ib_qp_init_attr init = {
		.qp_type = type,
		.send_cq = &env->cq->ibcq,
		.recv_cq = &env->cq->ibcq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.port_num = SV_PORT_NUM,
	};
	struct sv_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	qp->ibqp.device = &env->sv->ibdev;
	qp->ibqp.pd = env->pd;
	qp->ibqp.send_cq = init.send_cq;
	qp->ibqp.recv_cq = init.recv_cq;
	qp->ibqp.qp_type = type;
	qp->ibqp.event_handler = qp_event_handler;
	qp->ibqp.qp_context = env;
	KUNIT_ASSERT_EQ(test, sv_qp_create(&qp->ibqp, &init, NULL), 0);
	return qp;
}

static void destroy_qp(struct kunit *test, struct sv_qp *qp)
{
	KUNIT_EXPECT_EQ(test, sv_qp_destroy(&qp->ibqp, NULL), 0);
}

static enum ib_qp_state state_of(struct sv_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	sv_qp_query(&qp->ibqp, &attr, IB_QP_STATE, &init);
	return attr.qp_state;
}

/* modify @qp to @state with @mask (IB_QP_STATE added) and @attr's values */
static int to_state(struct sv_qp *qp, enum ib_qp_state state, int mask,
		    struct ib_qp_attr *attr)
{
	struct ib_qp_attr a = {};

	if (attr)
		a = *attr;
	a.qp_state = state;
	return sv_qp_modify(&qp->ibqp, &a, mask | IB_QP_STATE, NULL);
}

#define UD_INIT_MASK	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
#define RC_INIT_MASK	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)

static struct ib_qp_attr init_attr = {
	.pkey_index = 0, .port_num = SV_PORT_NUM, .qkey = 0x1234,
	.qp_access_flags = IB_ACCESS_REMOTE_WRITE,
};

/*
 * XRC QPs (IBTA A14) as ib_core creates them: no kernel initiator (struct
 * ib_send_wr cannot name a remote SRQ); a target in a domain, without PD,
 * CQ or queue: caps 0, nothing to post, the RC receive-side transitions.
 */
static void qp_xrc_create(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct ib_xrcd xrcd = { .device = &env->sv->ibdev };
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_XRC_INI,
		.send_cq = &env->cq->ibcq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ib_send_wr swr = { .opcode = IB_WR_SEND };
	struct ib_recv_wr rwr = {};
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct sv_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	qp->ibqp.device = &env->sv->ibdev;
	qp->ibqp.qp_type = IB_QPT_XRC_INI;
	qp->ibqp.pd = env->pd;
	KUNIT_EXPECT_EQ(test, sv_qp_create(&qp->ibqp, &init, NULL),
			-EOPNOTSUPP);

	/* a target: ib_core passes the domain, no PD and no CQ */
	memset(qp, 0, sizeof(*qp));
	qp->ibqp.device = &env->sv->ibdev;
	qp->ibqp.qp_type = IB_QPT_XRC_TGT;
	init.qp_type = IB_QPT_XRC_TGT;
	init.send_cq = NULL;
	KUNIT_EXPECT_EQ(test, sv_qp_create(&qp->ibqp, &init, NULL), -EINVAL);
	init.xrcd = &xrcd;
	qp->ibqp.xrcd = &xrcd;
	KUNIT_ASSERT_EQ(test, sv_qp_create(&qp->ibqp, &init, NULL), 0);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, 0U);
	KUNIT_EXPECT_EQ(test, init.cap.max_recv_wr, 0U);
	KUNIT_EXPECT_EQ(test, sv_qp_post_send(&qp->ibqp, &swr, &sbad),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, sbad, (const struct ib_send_wr *)&swr);
	KUNIT_EXPECT_EQ(test, sv_qp_post_recv(&qp->ibqp, &rwr, &rbad),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	destroy_qp(test, qp);
}

/* UD through every state it can take: RESET INIT RTR RTS SQD RTS ERR RESET */
static void qp_ud_full_cycle(struct kunit *test)
{
	struct sv_qp *qp = make_qp(test, IB_QPT_UD);
	struct ib_qp_attr attr = { .sq_psn = 0x123456 };
	struct ib_qp_init_attr init;
	struct ib_qp_attr q;

	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_RTR, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &attr), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_RTS);
	sv_qp_query(&qp->ibqp, &q, 0, &init);
	KUNIT_EXPECT_EQ_MSG(test, q.sq_psn, 0x123456U,
			    "query_qp must return the SQ PSN modify set");
	KUNIT_EXPECT_EQ(test, q.qkey, 0x1234U);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_SQD, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_RTS, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_RESET, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_RESET);
	/* and again from RESET: a reset QP is as good as new */
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	destroy_qp(test, qp);
}

/*
 * Transitions the IBTA state table does not have, and transitions with a
 * required attribute missing or a forbidden one present, are refused with
 * -EINVAL and leave the state alone.
 */
static void qp_invalid_transitions(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		enum ib_qp_state from, to;
		int mask;
		const char *what;
	} cases[] = {
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTR, RC_INIT_MASK, "RESET->RTR" },
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTS, RC_INIT_MASK, "RESET->RTS" },
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_SQD, 0, "RESET->SQD" },
		/* ib_core's table: RESET goes only to INIT (or stays) */
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_ERR, 0, "RESET->ERR" },
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT,
		  "RC RESET->INIT without access flags" },
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, RC_INIT_MASK | IB_QP_QKEY,
		  "RC RESET->INIT with a Q_Key" },
		{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTS, 0, "INIT->RTS" },
		{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, 0, "RC INIT->RTR without AV" },
		{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_SQD, 0, "INIT->SQD" },
		{ IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT,
		  "UD RESET->INIT without Q_Key" },
		{ IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, UD_INIT_MASK | IB_QP_ACCESS_FLAGS,
		  "UD RESET->INIT with access flags" },
		{ IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, IB_QP_PATH_MTU,
		  "UD INIT->RTR with a path MTU" },
		{ IB_QPT_UD, IB_QPS_RTR, IB_QPS_RTS, 0, "UD RTR->RTS without SQ PSN" },
		{ IB_QPT_UD, IB_QPS_RTS, IB_QPS_RTR, 0, "RTS->RTR" },
		{ IB_QPT_UD, IB_QPS_RTS, IB_QPS_INIT, 0, "RTS->INIT" },
		{ IB_QPT_UD, IB_QPS_ERR, IB_QPS_RTS, 0, "ERR->RTS" },
		{ IB_QPT_UD, IB_QPS_ERR, IB_QPS_INIT, UD_INIT_MASK, "ERR->INIT" },
	};
	struct ib_qp_attr rts = { .sq_psn = 1 };
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sv_qp *qp = make_qp(test, cases[i].type);
		enum ib_qp_state s = cases[i].from;
		bool ud = cases[i].type == IB_QPT_UD;

		/* walk to the starting state the legal way */
		if (s != IB_QPS_RESET)
			KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT,
					ud ? UD_INIT_MASK : RC_INIT_MASK,
					&init_attr), 0);
		if (s == IB_QPS_RTR || s == IB_QPS_RTS)
			KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTR, 0, NULL), 0);
		if (s == IB_QPS_RTS)
			KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTS,
						       IB_QP_SQ_PSN, &rts), 0);
		if (s == IB_QPS_ERR)
			KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
		KUNIT_ASSERT_EQ(test, state_of(qp), s);

		KUNIT_EXPECT_EQ_MSG(test, to_state(qp, cases[i].to,
						   cases[i].mask, &init_attr),
				    -EINVAL, "%s must be refused", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, state_of(qp), s,
				    "%s changed the state", cases[i].what);
		destroy_qp(test, qp);
	}
}

/* attribute values out of range, or naming the wrong current state */
static void qp_attr_checks(struct kunit *test)
{
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct ib_qp_attr a = init_attr;

	a.port_num = SV_PORT_NUM + 1;
	KUNIT_EXPECT_EQ_MSG(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK, &a),
			    -EINVAL, "port %u does not exist", a.port_num);
	a = init_attr;
	a.pkey_index = SV_PORT_PKEY_TBL_LEN;
	KUNIT_EXPECT_EQ_MSG(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK, &a),
			    -EINVAL, "P_Key index %u beyond the table",
			    a.pkey_index);
	a = init_attr;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | (1 << 30);
	KUNIT_EXPECT_EQ_MSG(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK, &a),
			    -EINVAL, "unknown access flag accepted");
	a = init_attr;
	a.cur_qp_state = IB_QPS_INIT;	/* it is in RESET */
	KUNIT_EXPECT_EQ_MSG(test, to_state(qp, IB_QPS_INIT,
					   RC_INIT_MASK | IB_QP_CUR_STATE, &a),
			    -EINVAL, "a wrong current state accepted");
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_RESET);

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	/* INIT->INIT may change the access flags, with valid values only */
	a = init_attr;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, to_state(qp, IB_QPS_INIT, IB_QP_ACCESS_FLAGS, &a),
			0);
	a.port_num = SV_PORT_NUM + 1;
	KUNIT_EXPECT_EQ_MSG(test, to_state(qp, IB_QPS_INIT, IB_QP_PORT, &a),
			    -EINVAL, "INIT->INIT to port %u", a.port_num);
	KUNIT_EXPECT_EQ(test, state_of(qp), IB_QPS_INIT);
	destroy_qp(test, qp);
}

static int post_recv(struct sv_qp *qp, u64 wr_id)
{
	struct ib_recv_wr wr = { .wr_id = wr_id };
	const struct ib_recv_wr *bad;

	return sv_qp_post_recv(&qp->ibqp, &wr, &bad);
}

static int post_send(struct sv_qp *qp, u64 wr_id)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;

	return sv_qp_post_send(&qp->ibqp, &wr, &bad);
}

/* poll everything; returns how many, the first @max in @wc */
static int poll_all(struct qp_env *env, struct ib_wc *wc, int max)
{
	struct ib_wc junk;
	int n = 0;

	while (n < max && sv_cq_poll(&env->cq->ibcq, 1, &wc[n]) == 1)
		n++;
	while (sv_cq_poll(&env->cq->ibcq, 1, &junk) == 1)
		n++;
	return n;
}

/*
 * Posting per state (IBTA 10.8.2, C10-97.2.1): no receives in RESET, no
 * sends before RTS; in ERR every WQE, old and new, completes with
 * IB_WC_WR_FLUSH_ERR in order; a move to RESET discards WQEs silently.
 */
static void qp_post_by_state(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct ib_wc wc[8];
	int i, n;

	KUNIT_EXPECT_EQ_MSG(test, post_recv(qp, 1), -EINVAL,
			    "a receive posted in RESET");
	KUNIT_EXPECT_EQ_MSG(test, post_send(qp, 1), -EINVAL,
			    "a send posted in RESET");
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_EXPECT_EQ_MSG(test, post_send(qp, 1), -EINVAL,
			    "a send posted in INIT");
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ_MSG(test, post_recv(qp, 10 + i), 0,
				    "receive %d refused in INIT", i);
	KUNIT_EXPECT_EQ(test, poll_all(env, wc, ARRAY_SIZE(wc)), 0);

	/* ERR: the three receives flush, in order, then new ones at once */
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, post_recv(qp, 13), 0);
	KUNIT_EXPECT_EQ(test, post_send(qp, 20), 0);
	n = poll_all(env, wc, ARRAY_SIZE(wc));
	KUNIT_ASSERT_EQ_MSG(test, n, 5, "4 receives and 1 send must flush");
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
		KUNIT_EXPECT_EQ_MSG(test, wc[i].wr_id, (u64)(10 + i),
				    "flush completions out of order");
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &qp->ibqp);
	}
	KUNIT_EXPECT_EQ(test, wc[4].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc[4].wr_id, 20ULL);

	/* RESET discards without completions */
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RESET, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_EXPECT_EQ(test, post_recv(qp, 30), 0);
	KUNIT_EXPECT_EQ(test, post_recv(qp, 31), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RESET, 0, NULL), 0);
	KUNIT_EXPECT_EQ_MSG(test, poll_all(env, wc, ARRAY_SIZE(wc)), 0,
			    "RESET must discard, not complete");
	/* and the ring is empty again: ERR now flushes nothing */
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, poll_all(env, wc, ARRAY_SIZE(wc)), 0);
	destroy_qp(test, qp);
}

/*
 * The message size limit (2^31 bytes) holds for the sum of a WR's SGEs,
 * 64-bit: two SGEs of 2^30 + 1 bytes are refused, 2^30 each taken.  The QP
 * is in ERR, so what is taken flushes and nothing is read.
 */
static void qp_msg_size_limit(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = (1U << 30) + 1, .lkey = 0 },
		{ .addr = 0x2000, .length = (1U << 30) + 1, .lkey = 0 },
	};
	struct ib_send_wr wr = {
		.wr_id = 1, .opcode = IB_WR_SEND, .sg_list = sge, .num_sge = 2,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc[2];

	KUNIT_EXPECT_EQ(test, SV_PORT_MAX_MSG_SZ, 1ULL << 31);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	KUNIT_EXPECT_EQ_MSG(test, sv_qp_post_send(&qp->ibqp, &wr, &bad),
			    -EINVAL, "2^31 + 2 bytes taken");
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);
	sge[0].length = 1U << 30;
	sge[1].length = 1U << 30;
	wr.wr_id = 2;
	KUNIT_EXPECT_EQ_MSG(test, sv_qp_post_send(&qp->ibqp, &wr, &bad), 0,
			    "2^31 bytes refused");
	KUNIT_ASSERT_EQ(test, poll_all(env, wc, ARRAY_SIZE(wc)), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	destroy_qp(test, qp);
}

/*
 * Bounded work per call of the flush with error (sv_comp_retire()): a
 * consumer that posts a receive from every flush completion keeps the
 * flush going (as a process that advances its mapped producer index from
 * another thread does).  The
 * modify_qp to ERR that started the flush must return after a few passes,
 * not after all of them; the work queue takes over and finishes, in order.
 */
struct repost {
	struct sv_qp		*qp;
	struct task_struct	*caller;
	struct completion	done;
	u64			next_id;	/* the wr_id expected next */
	int			calls, inline_calls, limit;
	bool			out_of_order;
};

static void repost_handler(struct ib_cq *ibcq, void *ctx)
{
	struct repost *r = ctx;
	struct ib_wc wc;

	if (current == r->caller)
		r->inline_calls++;
	while (sv_cq_poll(ibcq, 1, &wc) == 1) {
		if (wc.wr_id != r->next_id || wc.status != IB_WC_WR_FLUSH_ERR)
			r->out_of_order = true;
		r->next_id++;
	}
	if (++r->calls >= r->limit) {
		complete(&r->done);
		return;
	}
	sv_cq_req_notify(ibcq, IB_CQ_NEXT_COMP);
	post_recv(r->qp, r->next_id);
}

static void qp_flush_err_bounded(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct repost r = { .qp = qp, .caller = current, .limit = 1000 };

	init_completion(&r.done);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, post_recv(qp, 0), 0);
	env->cq->ibcq.comp_handler = repost_handler;
	env->cq->ibcq.cq_context = &r;
	sv_cq_req_notify(&env->cq->ibcq, IB_CQ_NEXT_COMP);

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_ERR, 0, NULL), 0);
	KUNIT_EXPECT_LE_MSG(test, r.inline_calls, 16,
			    "the modify to ERR flushed %d receives itself",
			    r.inline_calls);
	KUNIT_EXPECT_GT_MSG(test, wait_for_completion_timeout(&r.done, 30 * HZ),
			    0UL, "the work queue did not finish the flush");
	/* the handler no longer reposts: wait for the runner to stop */
	while (!sv_task_idle(&qp->comp.task))
		msleep(20);
	KUNIT_EXPECT_FALSE(test, r.out_of_order);
	KUNIT_EXPECT_EQ(test, r.calls, r.limit);
	env->cq->ibcq.comp_handler = NULL;
	destroy_qp(test, qp);
}

/*
 * A user atomic WQE is checked at the address the AtomicETH carries
 * (wr.atomic.remote_addr), not at the iova field beside it, which the
 * same hostile writer controls and the wire never sees.
 */
static void qp_user_atomic_alignment(struct kunit *test)
{
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct sv_send_wqe *wqe;

	wqe = kunit_kzalloc(test, (size_t)1 << qp->sq.queue->log2_elem_size,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
	wqe->wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	wqe->wr.send_flags = IB_SEND_SIGNALED;
	wqe->dma.num_sge = 1;
	wqe->dma.sge[0].length = 8;
	wqe->iova = 0x1000;
	wqe->wr.wr.atomic.remote_addr = 0x1004;
	KUNIT_EXPECT_EQ(test, sv_wqe_check_send(qp, wqe), -EINVAL);
	wqe->iova = 0x1004;
	wqe->wr.wr.atomic.remote_addr = 0x1000;
	KUNIT_EXPECT_EQ(test, sv_wqe_check_send(qp, wqe), 0);
	destroy_qp(test, qp);
}

/*
 * The requester's copy of a send slot takes the fixed part and only the
 * used part of the room (inline bytes or SGEs, at least 8 bytes), bounded
 * by the room whatever the slot's header claims; what it does not copy
 * stays untouched, and the check refuses the claims that overran.
 */
static void qp_wqe_copy_bounded(struct kunit *test)
{
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	size_t size = sv_qp_send_wqe_size(qp);
	size_t room = size - sizeof(struct sv_send_wqe);
	const struct {
		u32 flags, length, num_sge;
		size_t copied;
		int check;
	} cases[] = {
		{ 0, 0, 1, sizeof(struct sv_sge), 0 },
		{ 0, 0, 0, sizeof(u64), 0 },
		{ IB_SEND_INLINE, 20, 0, 20, 0 },
		{ 0, 0, U32_MAX, room, -EINVAL },
		{ IB_SEND_INLINE, U32_MAX, 0, room, -EINVAL },
	};
	struct sv_send_wqe *slot, *wqe;
	u8 *from, *to;
	size_t i, j;

	KUNIT_ASSERT_EQ(test, room, 2 * sizeof(struct sv_sge));
	slot = kunit_kzalloc(test, size, GFP_KERNEL);
	wqe = kunit_kzalloc(test, size + 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, slot);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
	from = slot->dma.inline_data;
	to = wqe->dma.inline_data;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(slot, 0, size);
		for (j = 0; j < room; j++)
			from[j] = 0xa0 + j;
		slot->wr.opcode = IB_WR_SEND;
		slot->wr.send_flags = cases[i].flags;
		slot->dma.length = cases[i].length;
		slot->dma.num_sge = cases[i].num_sge;
		slot->dma.sge[0].length = 4;
		memset(wqe, 0x5a, size + 16);

		sv_wqe_copy_send(wqe, slot, size);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(wqe, slot, sizeof(*wqe)), 0,
				    "case %zu: header", i);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(to, from, cases[i].copied), 0,
				    "case %zu: used room", i);
		for (j = cases[i].copied; j < room + 16; j++)
			if (to[j] != 0x5a)
				break;
		KUNIT_EXPECT_EQ_MSG(test, j, room + 16,
				    "case %zu: byte %zu past the used room written",
				    i, j);
		KUNIT_EXPECT_EQ_MSG(test, sv_wqe_check_send(qp, wqe),
				    cases[i].check, "case %zu: check", i);
	}
	destroy_qp(test, qp);
}

/* QPN 0xFFFFFF is the multicast QPN (IBTA 10.5.1.1): no QP gets it */
static void qp_qpn_not_multicast(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *a, *b;

	env->sv->qpn_next = SV_QPN_MULTICAST - 1;
	a = make_qp(test, IB_QPT_UD);
	b = make_qp(test, IB_QPT_UD);
	KUNIT_EXPECT_EQ(test, a->ibqp.qp_num, SV_QPN_MULTICAST - 1);
	KUNIT_EXPECT_NE(test, b->ibqp.qp_num, SV_QPN_MULTICAST);
	KUNIT_EXPECT_GE(test, b->ibqp.qp_num, (u32)SV_QPN_MIN);
	destroy_qp(test, b);
	destroy_qp(test, a);
}

/* SQD with nothing in flight is drained at once: one SQ_DRAINED event */
static void qp_sqd_drained_event(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *qp = make_qp(test, IB_QPT_UD);
	struct ib_qp_attr rts = { .sq_psn = 7 }, sqd = {
		.en_sqd_async_notify = 1,
	};

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTR, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &rts), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_SQD,
				       IB_QP_EN_SQD_ASYNC_NOTIFY, &sqd), 0);
	KUNIT_EXPECT_EQ_MSG(test, env->events[IB_EVENT_SQ_DRAINED], 1,
			    "an idle SQ must report drained exactly once");
	/* without the flag this time: no event (it is per transition) */
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTS, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_SQD, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, env->events[IB_EVENT_SQ_DRAINED], 1);
	destroy_qp(test, qp);
}

/*
 * SQD with a WQE in flight is drained when the completer retires it
 * (IBTA 11.2.4.2): no event on entering SQD, one after the retire.  The
 * WQE is made to look sent (a ring slot produced, its copy SENT) and
 * then acknowledged (DONE), as the completer would find it.
 */
static void qp_sqd_drained_by_completer(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *qp = make_qp(test, IB_QPT_UD);
	struct ib_qp_attr rts = { .sq_psn = 7 }, sqd = {
		.en_sqd_async_notify = 1,
	};
	struct sv_queue *q = qp->sq.queue;
	struct sv_send_wqe *slot;
	struct sv_swqe *sw;
	unsigned long flags;
	int i;

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTR, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &rts), 0);

	spin_lock_irqsave(&qp->sq.producer_lock, flags);
	slot = sv_queue_producer_slot(q);
	memset(slot, 0, sizeof(*slot));
	slot->wr.wr_id = 9;
	sv_queue_produce(q);
	spin_unlock_irqrestore(&qp->sq.producer_lock, flags);
	spin_lock_bh(&qp->req.lock);
	sw = sv_req_swqe(qp, q->cons);
	memcpy(sv_req_wqe(qp, sw), slot, sizeof(*slot));
	sw->state = SV_SWQE_SENT;
	sw->status = IB_WC_SUCCESS;
	sw->flags = 0;
	sw->npkts = 1;
	sw->next = 1;
	qp->req.cur = q->cons;
	qp->req.in_flight = 1;
	spin_unlock_bh(&qp->req.lock);

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_SQD,
				       IB_QP_EN_SQD_ASYNC_NOTIFY, &sqd), 0);
	KUNIT_EXPECT_EQ_MSG(test, env->events[IB_EVENT_SQ_DRAINED], 0,
			    "drained with a WQE in flight");

	spin_lock_bh(&qp->req.lock);
	sw->state = SV_SWQE_DONE;
	spin_unlock_bh(&qp->req.lock);
	sv_comp_retire(qp);
	for (i = 0; i < 100 && !sv_task_idle(&qp->comp.task); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qp->req.in_flight), 0U);
	KUNIT_EXPECT_EQ_MSG(test, env->events[IB_EVENT_SQ_DRAINED], 1,
			    "the completer's retire must report drained once");
	destroy_qp(test, qp);
}

/* the transport's error transitions (sv_qp_error, sv_qp_sq_error) */
static void qp_transport_errors(struct kunit *test)
{
	struct qp_env *env = test->priv;
	struct sv_qp *ud = make_qp(test, IB_QPT_UD);
	struct sv_qp *rc = make_qp(test, IB_QPT_RC);
	struct ib_qp_attr rts = { .sq_psn = 7 };

	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_RTR, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_RTS, IB_QP_SQ_PSN, &rts), 0);
	/* a UD send error stops the SQ only (IBTA 10.3.1: SQE) */
	sv_qp_sq_error(ud);
	KUNIT_EXPECT_EQ(test, state_of(ud), IB_QPS_SQE);
	/* SQE -> RTS is the consumer's way back */
	KUNIT_EXPECT_EQ(test, to_state(ud, IB_QPS_RTS, 0, NULL), 0);

	/* RC has no SQE; errors from RESET are ignored, from INIT go to ERR */
	sv_qp_sq_error(rc);
	KUNIT_EXPECT_EQ(test, state_of(rc), IB_QPS_RESET);
	sv_qp_error(rc, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, state_of(rc), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, env->events[IB_EVENT_QP_FATAL], 0);
	KUNIT_ASSERT_EQ(test, to_state(rc, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	sv_qp_error(rc, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, state_of(rc), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, env->events[IB_EVENT_QP_FATAL], 1);
	/* once in ERR, a second error reports nothing more */
	sv_qp_error(rc, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, env->events[IB_EVENT_QP_FATAL], 1);
	destroy_qp(test, rc);
	destroy_qp(test, ud);
}

/*
 * The requester's WQE copies come with the first RTS, a few, and grow to
 * one per SQ slot when the QP fills them (sv_req_grow_work()); the copies
 * in flight move with their ring indices.  An RC QP (only RC and XRC
 * start with few; RTR needs a path, which this suite has none for) gets
 * its first copies as modify_qp to RTS would give them, and waits in INIT,
 * where nothing starts, while WQEs are made to look in flight from ring
 * index 5 on (wrapping around the 8 first copies).  A UD QP gets one per
 * slot at RTS: its sends outlive it (sv_req_linger()).
 */
static void qp_swqe_grow(struct kunit *test)
{
	struct sv_qp *qp = make_qp(test, IB_QPT_RC);
	struct sv_qp *ud = make_qp(test, IB_QPT_UD);
	struct ib_qp_attr rts = { .sq_psn = 7 };
	u32 slots = qp->sq.queue->index_mask + 1, first, i;

	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_INIT, UD_INIT_MASK,
				       &init_attr), 0);
	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_RTR, 0, NULL), 0);
	KUNIT_EXPECT_NULL_MSG(test, ud->req.swqe, "WQE copies before RTS");
	KUNIT_ASSERT_EQ(test, to_state(ud, IB_QPS_RTS, IB_QP_SQ_PSN, &rts), 0);
	KUNIT_ASSERT_NOT_NULL(test, ud->req.swqe);
	KUNIT_EXPECT_EQ(test, ud->req.swqe_mask, ud->sq.queue->index_mask);
	destroy_qp(test, ud);

	KUNIT_ASSERT_EQ(test, to_state(qp, IB_QPS_INIT, RC_INIT_MASK,
				       &init_attr), 0);
	KUNIT_EXPECT_NULL_MSG(test, qp->req.swqe, "WQE copies before RTS");
	mutex_lock(&qp->modify_mutex);
	KUNIT_EXPECT_EQ(test, sv_req_alloc(qp), 0);
	mutex_unlock(&qp->modify_mutex);
	KUNIT_ASSERT_NOT_NULL(test, qp->req.swqe);
	first = qp->req.swqe_mask + 1;
	KUNIT_ASSERT_EQ(test, first, sv_req_swqe_first(qp));
	if (first > SV_REQ_SWQE_FIRST_MIN)
		KUNIT_EXPECT_LE(test, qp->req.swqe_bytes,
				(size_t)SV_REQ_SWQE_FIRST_BYTES);
	KUNIT_ASSERT_GT(test, slots, first);

	spin_lock_bh(&qp->req.lock);
	for (i = 0; i < first; i++) {
		struct sv_swqe *sw = sv_req_swqe(qp, 5 + i);

		sw->state = SV_SWQE_DONE;
		sw->first_psn = 100 + i;
		sv_req_wqe(qp, sw)->wr.wr_id = 200 + i;
	}
	qp->sq.queue->cons = 5;
	qp->req.in_flight = first;
	/* what sv_req_grow_locked() does */
	qp->req.growing = true;
	sv_qp_get(qp);
	spin_unlock_bh(&qp->req.lock);
	KUNIT_ASSERT_TRUE(test, queue_work(system_wq, &qp->req.grow_work));
	flush_work(&qp->req.grow_work);

	/* a requester run in INIT does nothing */
	KUNIT_EXPECT_EQ(test, qp->req.swqe_mask + 1, slots);
	KUNIT_EXPECT_FALSE(test, qp->req.growing);
	for (i = 0; i < first; i++) {
		struct sv_swqe *sw = sv_req_swqe(qp, 5 + i);

		KUNIT_EXPECT_PTR_EQ(test, sw, &qp->req.swqe[5 + i]);
		KUNIT_EXPECT_EQ(test, sw->first_psn, 100 + i);
		KUNIT_EXPECT_EQ(test, sv_req_wqe(qp, sw)->wr.wr_id, 200ULL + i);
	}
	/* nothing was in flight after all */
	spin_lock_bh(&qp->req.lock);
	qp->req.in_flight = 0;
	qp->sq.queue->cons = 0;
	spin_unlock_bh(&qp->req.lock);
	destroy_qp(test, qp);
}

static struct kunit_case qp_cases[] = {
	KUNIT_CASE(qp_ud_full_cycle),
	KUNIT_CASE(qp_invalid_transitions),
	KUNIT_CASE(qp_attr_checks),
	KUNIT_CASE(qp_post_by_state),
	KUNIT_CASE(qp_msg_size_limit),
	KUNIT_CASE(qp_flush_err_bounded),
	KUNIT_CASE(qp_qpn_not_multicast),
	KUNIT_CASE(qp_user_atomic_alignment),
	KUNIT_CASE(qp_wqe_copy_bounded),
	KUNIT_CASE(qp_sqd_drained_event),
	KUNIT_CASE(qp_sqd_drained_by_completer),
	KUNIT_CASE(qp_transport_errors),
	KUNIT_CASE(qp_xrc_create),
	KUNIT_CASE(qp_swqe_grow),
	{}
};

static struct kunit_suite qp_suite = {
	.name = "qp_state_kunit",
	.suite_init = qp_suite_init,
	.suite_exit = qp_suite_exit,
	.init = qp_env_init,
	.exit = qp_env_exit,
	.test_cases = qp_cases,
};

kunit_test_suites(&qp_suite);
