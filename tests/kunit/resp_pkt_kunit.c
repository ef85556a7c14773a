// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_resp_pkt.c: the responder's ACKs, NAKs and RNR
 * NAKs (IBTA 9.7.5.1, 9.7.5.2) and the response packets they are built
 * on.  A wrong syndrome, MSN or PSN reads to the requester as another
 * answer than the one meant (a NAK taken for an ACK completes a request
 * that failed), and tests/user sees NAKs only when it provokes them.
 *
 * Each case works on an RC QP made by hand: a zeroed struct sv_qp on a
 * device with counters and a zeroed net_device in init_net, and a zeroed
 * IPv4 path (no address of this host: skbs, not local frames); the
 * packets stay queued in the struct sv_resp_out, never sent.  The calls
 * run under RCU and resp.lock, as on the receive path.
 */
#include <kunit/test.h>

#include "sv_resp.h"

/* XRC Acknowledge (IBTA Annex A14); not every ib_pack.h names it */
#define PKT_XRC_ACK	0xb1
#define PKT_DEST_QPN	0x123456
#define PKT_MSN		0x00abcdef

struct pkt_env {
	struct sv_dev		*sv;
	struct sv_qp		*qp;
	struct sv_path		path;
	struct sv_resp_out	out;
};

static int pkt_env_init(struct kunit *test)
{
	struct pkt_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	struct sv_qp *qp;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	env->sv->ndev = kunit_kzalloc(test, sizeof(*env->sv->ndev),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv->ndev);
	env->sv->net = &init_net;
	env->sv->stats = alloc_percpu(struct sv_stats);
	/* NULL on failure; a per-CPU pointer is no plain pointer (7.x) */
	KUNIT_ASSERT_TRUE(test, env->sv->stats);
	test->priv = env;

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	qp->ibqp.device = &env->sv->ibdev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->attr.dest_qp_num = PKT_DEST_QPN;
	qp->attr.min_rnr_timer = 14;
	spin_lock_init(&qp->resp.lock);
	qp->resp.msn = PKT_MSN;
	env->qp = qp;

	env->path.network_type = RDMA_NETWORK_IPV4;
	sv_resp_out_init(&env->out);
	env->out.path = &env->path;
	return 0;
}

static void pkt_env_exit(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	sv_net_pktq_purge(&env->out.txq);
	free_percpu(env->sv->stats);
}

static u64 stat(struct pkt_env *env, unsigned int idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(env->sv->stats, cpu)->v[idx];
	return sum;
}

/*
 * The one packet queued: an acknowledge of @opcode for @psn to the QP's
 * peer, the right length, carrying @syndrome and the QP's MSN.
 */
static void expect_aeth(struct kunit *test, u8 opcode, u32 psn, u8 syndrome)
{
	struct pkt_env *env = test->priv;
	const struct sv_opcode_info *info = &sv_opcode_table[opcode];
	struct sv_net_pkt *pkt;
	u8 *data;

	KUNIT_ASSERT_EQ(test, env->out.txq.len, 1U);
	pkt = env->out.txq.head;
	data = sv_net_pkt_data(pkt);
	KUNIT_EXPECT_EQ(test, sv_net_pkt_len(pkt), sv_hdr_pkt_len(info, 0));
	KUNIT_EXPECT_EQ(test, sv_bth_opcode(data), opcode);
	KUNIT_EXPECT_EQ(test, sv_bth_psn(data), psn);
	KUNIT_EXPECT_EQ(test, sv_bth_qpn(data), PKT_DEST_QPN);
	KUNIT_EXPECT_EQ(test, sv_bth_pkey(data), SV_DEFAULT_PKEY);
	KUNIT_EXPECT_EQ(test, sv_bth_pad(data), 0);
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_syndrome(data), syndrome,
			    "AETH syndrome of the answer for PSN %u", psn);
	KUNIT_EXPECT_EQ_MSG(test, sv_aeth_msn(data), PKT_MSN,
			    "AETH MSN of the answer for PSN %u", psn);
	/* not from a resource: a refused ACK is not built again */
	KUNIT_EXPECT_FALSE(test, sv_resp_cb(pkt)->from_res);
}

/* An ACK: type ACK, "no credit count" (IBTA 9.7.5.1.1), counted. */
static void resp_pkt_ack(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_pkt_ack(env->qp, &env->out, 0xfffffe);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	expect_aeth(test, IB_OPCODE_RC_ACKNOWLEDGE, 0xfffffe,
		    SV_AETH_ACK << SV_AETH_TYPE_SHIFT | SV_AETH_CREDITS_INVALID);
	KUNIT_EXPECT_EQ(test, stat(env, SV_STAT_TX_ACKS), 1ULL);
	KUNIT_EXPECT_FALSE(test, env->qp->resp.ack_pending);
}

/*
 * Behind responses being served the ACK waits (it would acknowledge the
 * READ before it, IBTA 9.7.5.1.1): nothing queued, the PSN kept.
 */
static void resp_pkt_ack_waits(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	env->qp->resp.serving = true;
	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_pkt_ack(env->qp, &env->out, 77);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&env->out.txq));
	KUNIT_EXPECT_TRUE(test, env->qp->resp.ack_pending);
	KUNIT_EXPECT_EQ(test, env->qp->resp.ack_psn, 77U);
	KUNIT_EXPECT_EQ(test, stat(env, SV_STAT_TX_ACKS), 0ULL);
}

/* An RNR NAK carries the QP's min_rnr_timer code (IBTA 9.7.5.2.8). */
static void resp_pkt_rnr_nak(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_pkt_rnr_nak(env->qp, &env->out, 5);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	expect_aeth(test, IB_OPCODE_RC_ACKNOWLEDGE, 5,
		    SV_AETH_RNR_NAK << SV_AETH_TYPE_SHIFT | 14);
	KUNIT_EXPECT_EQ(test, stat(env, SV_STAT_TX_NAK_RNR), 1ULL);
	KUNIT_EXPECT_EQ(test, env->qp->resp.rnr_naks, 1U);
	KUNIT_EXPECT_TRUE(test, env->qp->resp.nak_sent);
}

/* Each NAK code (IBTA 9.7.5.2) on the wire as given, and counted. */
static void resp_pkt_nak(struct kunit *test)
{
	static const struct {
		enum sv_aeth_nak code;
		unsigned int stat;
	} naks[] = {
		{ SV_NAK_PSN_SEQ_ERR, SV_STAT_TX_NAK_SEQ },
		{ SV_NAK_INVALID_REQ, SV_STAT_TX_NAK_INV_REQ },
		{ SV_NAK_REM_ACCESS_ERR, SV_STAT_TX_NAK_REM_ACC },
		{ SV_NAK_REM_OP_ERR, SV_STAT_TX_NAK_REM_OP },
	};
	struct pkt_env *env = test->priv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(naks); i++) {
		rcu_read_lock();
		spin_lock_bh(&env->qp->resp.lock);
		sv_resp_pkt_nak(env->qp, &env->out, naks[i].code, 1000 + i);
		spin_unlock_bh(&env->qp->resp.lock);
		rcu_read_unlock();
		expect_aeth(test, IB_OPCODE_RC_ACKNOWLEDGE, 1000 + i,
			    SV_AETH_NAK << SV_AETH_TYPE_SHIFT | naks[i].code);
		KUNIT_EXPECT_EQ(test, stat(env, naks[i].stat), 1ULL);
		sv_net_pktq_purge(&env->out.txq);
	}
	/* a NAK is no RNR NAK: that one alone marks nak_sent */
	KUNIT_EXPECT_FALSE(test, env->qp->resp.nak_sent);
	KUNIT_EXPECT_EQ(test, env->qp->resp.rnr_naks, 0U);
}

/* An XRC target answers with the XRC acknowledge (IBTA A14). */
static void resp_pkt_xrc(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	env->qp->ibqp.qp_type = IB_QPT_XRC_TGT;
	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_pkt_ack(env->qp, &env->out, 9);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	expect_aeth(test, PKT_XRC_ACK, 9,
		    SV_AETH_ACK << SV_AETH_TYPE_SHIFT | SV_AETH_CREDITS_INVALID);
}

/* A response with payload: room for it, pad counted in the BTH, zeroed. */
static void resp_pkt_new_pad(struct kunit *test)
{
	const struct sv_opcode_info *info =
		&sv_opcode_table[IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY];
	struct pkt_env *env = test->priv;
	struct sv_net_pkt *pkt;
	u8 *hdr;

	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	hdr = sv_resp_pkt_new(env->qp, &env->out,
			      IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY, 42, 5, NULL,
			      0, &pkt);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	KUNIT_EXPECT_PTR_EQ(test, hdr, sv_net_pkt_data(pkt));
	KUNIT_EXPECT_EQ(test, sv_net_pkt_len(pkt),
			info->hdr_len + 5 + 3 + SV_ICRC_BYTES);
	KUNIT_EXPECT_EQ(test, sv_bth_opcode(hdr),
			IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY);
	KUNIT_EXPECT_EQ(test, sv_bth_psn(hdr), 42U);
	KUNIT_EXPECT_EQ(test, sv_bth_pad(hdr), 3);
	KUNIT_EXPECT_EQ(test, hdr[info->hdr_len + 5], 0);
	KUNIT_EXPECT_EQ(test, hdr[info->hdr_len + 6], 0);
	KUNIT_EXPECT_EQ(test, hdr[info->hdr_len + 7], 0);
	/* the caller queues it */
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&env->out.txq));
	sv_net_pkt_drop(pkt);
}

/* No path (the QP lost its peer): nothing built, nothing counted. */
static void resp_pkt_no_path(struct kunit *test)
{
	struct pkt_env *env = test->priv;

	env->out.path = NULL;
	rcu_read_lock();
	spin_lock_bh(&env->qp->resp.lock);
	sv_resp_pkt_nak(env->qp, &env->out, SV_NAK_INVALID_REQ, 3);
	spin_unlock_bh(&env->qp->resp.lock);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&env->out.txq));
}

static struct kunit_case resp_pkt_cases[] = {
	KUNIT_CASE(resp_pkt_ack),
	KUNIT_CASE(resp_pkt_ack_waits),
	KUNIT_CASE(resp_pkt_rnr_nak),
	KUNIT_CASE(resp_pkt_nak),
	KUNIT_CASE(resp_pkt_xrc),
	KUNIT_CASE(resp_pkt_new_pad),
	KUNIT_CASE(resp_pkt_no_path),
	{}
};

static struct kunit_suite resp_pkt_suite = {
	.name = "resp_pkt_kunit",
	.init = pkt_env_init,
	.exit = pkt_env_exit,
	.test_cases = resp_pkt_cases,
};

kunit_test_suites(&resp_pkt_suite);
