// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_cq.c: the completion path the transport drives
 * (sv_cq_post: ring format, notification, overrun) and what kernel
 * consumers call (poll, req_notify, resize), case by case and without a
 * wire (the user tests reach them through traffic).
 *
 * Each case works on a device made by hand: a zeroed struct sv_dev with one
 * completion vector; no ib_core registration.  Kernel CQs are made through
 * sv_cq_create() without udata.  A user CQ needs a ucontext to be mapped,
 * so the user-ring cases build one by hand around a SV_QUEUE_KERNEL_PRODUCES
 * ring and play librxe's consumer on it: indices masked to the ring, as
 * providers/rxe/rxe_queue.h keeps them.  tests/user/20-cq.sh covers the
 * verbs through librxe.
 */
#include <kunit/test.h>

#include "sv.h"
#include "sv_xport_obj.h"

struct cq_env {
	struct sv_dev	*sv;
	int		comp_calls;	/* comp_handler calls */
	int		comp_cpu;	/* the CPU of the last one */
	int		cq_errors;	/* IB_EVENT_CQ_ERR events */
};

static void cq_comp_handler(struct ib_cq *ibcq, void *ctx)
{
	struct cq_env *env = ctx;

	env->comp_calls++;
	env->comp_cpu = raw_smp_processor_id();
}

static void cq_event_handler(struct ib_event *event, void *ctx)
{
	struct cq_env *env = ctx;

	if (event->event == IB_EVENT_CQ_ERR)
		env->cq_errors++;
}

static int cq_env_init(struct kunit *test)
{
	struct cq_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	env->sv->ibdev.num_comp_vectors = 1;
	test->priv = env;
	return 0;
}

static void cq_env_exit(struct kunit *test)
{
	struct cq_env *env = test->priv;

	/* every case destroys what it created */
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_cq), 0);
}

/* a kernel CQ of @cqe entries with the env's handlers */
static struct sv_cq *make_cq(struct kunit *test, u32 cqe)
{
	struct cq_env *env = test->priv;
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct sv_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	cq->ibcq.device = &env->sv->ibdev;
	KUNIT_ASSERT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), 0);
	cq->ibcq.comp_handler = cq_comp_handler;
	cq->ibcq.event_handler = cq_event_handler;
	cq->ibcq.cq_context = env;
	return cq;
}

static void destroy_cq(struct kunit *test, struct sv_cq *cq)
{
	KUNIT_EXPECT_EQ(test, sv_cq_destroy(&cq->ibcq, NULL), 0);
}

/* a user CQ without a process: its ring is never mapped */
static struct sv_cq *make_user_cq(struct kunit *test, u32 cqe)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	cq->ibcq.device = &env->sv->ibdev;
	cq->ibcq.comp_handler = cq_comp_handler;
	cq->ibcq.event_handler = cq_event_handler;
	cq->ibcq.cq_context = env;
	cq->is_user = true;
	cq->notify_cpu = -1;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->queue = sv_queue_create(cqe, sizeof(struct ib_uverbs_wc),
				    SV_QUEUE_KERNEL_PRODUCES);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq->queue);
	return cq;
}

static void destroy_user_cq(struct sv_cq *cq)
{
	sv_queue_destroy(cq->queue);
	mutex_destroy(&cq->resize_mutex);
}

static int post_nowait(struct sv_cq *cq, u64 wr_id, bool solicited,
		       enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
		.byte_len = 7,
		.wc_flags = IB_WC_GRH | IB_WC_WITH_INVALIDATE,
		.ex.invalidate_rkey = 0x1234,
		.src_qp = 0x55,
		.pkey_index = 3,
		.sl = 2,
		.port_num = 1,
	};

	return sv_cq_post(cq, &wc, solicited);
}

/*
 * Post one completion and wait for a handler call it sent to the CQ's
 * vector CPU (when this thread runs elsewhere), so that the cases can
 * count calls straight after.
 */
static int post(struct sv_cq *cq, u64 wr_id, bool solicited,
		enum ib_wc_status status)
{
	int ret = post_nowait(cq, wr_id, solicited, status);

	sv_cq_sync_notify(cq);
	return ret;
}

static void cq_create_checks_arguments(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct ib_cq_init_attr attr = { .cqe = 8 };
	struct sv_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	cq->ibcq.device = &env->sv->ibdev;

	attr.cqe = 0;
	KUNIT_EXPECT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), -EINVAL);
	attr.cqe = SV_MAX_CQE + 1;
	KUNIT_EXPECT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), -EINVAL);
	attr.cqe = 8;
	attr.comp_vector = 1;
	KUNIT_EXPECT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), -EINVAL);
	attr.comp_vector = 0;
	attr.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	KUNIT_EXPECT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL),
			-EOPNOTSUPP);
	attr.flags = 0;
	atomic_set(&env->sv->num_cq, SV_MAX_CQ);
	KUNIT_EXPECT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), -ENOMEM);
	atomic_set(&env->sv->num_cq, 0);

	/* the capacity reported is the ring's, at least what was asked */
	attr.cqe = 1;
	KUNIT_ASSERT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 1);
	destroy_cq(test, cq);
	attr.cqe = 8;
	KUNIT_ASSERT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 15);
	destroy_cq(test, cq);
}

/* completions come out in order, around the ring many times */
static void cq_post_poll_in_order(struct kunit *test)
{
	struct sv_cq *cq = make_cq(test, 7);
	struct ib_wc wc[8];
	u64 next = 0;
	int i;

	KUNIT_EXPECT_EQ(test, sv_cq_poll(&cq->ibcq, 8, wc), 0);
	for (i = 0; i < 100; i++) {
		KUNIT_ASSERT_EQ(test, post(cq, 2 * i, false, IB_WC_SUCCESS), 0);
		KUNIT_ASSERT_EQ(test, post(cq, 2 * i + 1, false, IB_WC_SUCCESS),
				0);
		KUNIT_ASSERT_EQ(test, sv_cq_poll(&cq->ibcq, 1, wc), 1);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, next++);
		KUNIT_ASSERT_EQ(test, sv_cq_poll(&cq->ibcq, 8, wc), 1);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, next++);
	}
	/* a kernel CQ keeps the ib_wc as posted */
	post(cq, 99, false, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, sv_cq_poll(&cq->ibcq, 8, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wc_flags, IB_WC_GRH | IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc[0].src_qp, 0x55U);
	destroy_cq(test, cq);
}

/* armed for the next completion: one handler call, then disarmed */
static void cq_notify_next_comp_once(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = make_cq(test, 15);

	post(cq, 1, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 0);	/* not armed */
	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP), 0);
	post(cq, 2, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 1);
	post(cq, 3, true, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 1);	/* disarmed */
	/* arming for any completion is not weakened by a solicited request */
	sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP);
	sv_cq_req_notify(&cq->ibcq, IB_CQ_SOLICITED);
	post(cq, 4, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 2);
	destroy_cq(test, cq);
}

/* solicited-only arming: solicited and unsuccessful completions fire it */
static void cq_notify_solicited(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = make_cq(test, 15);

	sv_cq_req_notify(&cq->ibcq, IB_CQ_SOLICITED);
	post(cq, 1, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 0);
	post(cq, 2, true, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 1);
	post(cq, 3, true, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 1);
	sv_cq_req_notify(&cq->ibcq, IB_CQ_SOLICITED);
	post(cq, 4, false, IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 2);
	destroy_cq(test, cq);
}

struct vector_post {
	struct sv_cq	*cq;
	u64		wr_id;
};

static long vector_post_fn(void *arg)
{
	struct vector_post *vp = arg;

	return post_nowait(vp->cq, vp->wr_id, false, IB_WC_SUCCESS);
}

/*
 * A kernel CQ's handler runs on its comp_vector's CPU: posted from
 * another CPU, by IPI; posted on that CPU, right there, before the post
 * returns.
 */
static void cq_notify_on_vector_cpu(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct ib_cq_init_attr attr = { .cqe = 15, .comp_vector = 1 };
	struct sv_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	struct vector_post vp = { .cq = cq };
	int other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	env->sv->ibdev.num_comp_vectors = 2;
	cq->ibcq.device = &env->sv->ibdev;
	KUNIT_ASSERT_EQ(test, sv_cq_create(&cq->ibcq, &attr, NULL), 0);
	cq->ibcq.comp_handler = cq_comp_handler;
	cq->ibcq.cq_context = env;
	KUNIT_EXPECT_EQ(test, cq->notify_cpu, cpumask_local_spread(1, NUMA_NO_NODE));
	other = cpumask_any_but(cpu_online_mask, cq->notify_cpu);
	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);

	env->comp_cpu = -1;
	sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP);
	vp.wr_id = 1;
	KUNIT_EXPECT_EQ(test, work_on_cpu(other, vector_post_fn, &vp), 0L);
	sv_cq_sync_notify(cq);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 1);
	KUNIT_EXPECT_EQ(test, env->comp_cpu, cq->notify_cpu);

	sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP);
	vp.wr_id = 2;
	KUNIT_EXPECT_EQ(test, work_on_cpu(cq->notify_cpu, vector_post_fn, &vp), 0L);
	KUNIT_EXPECT_EQ(test, env->comp_calls, 2);	/* no sync needed */
	KUNIT_EXPECT_EQ(test, env->comp_cpu, cq->notify_cpu);
	destroy_cq(test, cq);
}

static void cq_notify_flags(struct kunit *test)
{
	struct sv_cq *cq = make_cq(test, 15);
	struct ib_wc wc[4];

	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, IB_CQ_SOLICITED_MASK),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	post(cq, 1, false, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, IB_CQ_SOLICITED |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, sv_cq_poll(&cq->ibcq, 4, wc), 1);
	KUNIT_EXPECT_EQ(test, sv_cq_req_notify(&cq->ibcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	destroy_cq(test, cq);
}

/* overrun: -EOVERFLOW, one CQ error event, the CQ stays in error */
static void cq_overrun(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = make_cq(test, 3);
	struct ib_wc wc[4];
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, post(cq, i, false, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 3, false, IB_WC_SUCCESS), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 1);
	KUNIT_EXPECT_EQ(test, post(cq, 4, false, IB_WC_SUCCESS), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 1);
	/* what made it in can still be polled, nothing after it */
	KUNIT_EXPECT_EQ(test, sv_cq_poll(&cq->ibcq, 4, wc), 3);
	KUNIT_EXPECT_EQ(test, wc[2].wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, post(cq, 5, false, IB_WC_SUCCESS), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 1);
	destroy_cq(test, cq);
}

static void cq_resize(struct kunit *test)
{
	struct sv_cq *cq = make_cq(test, 7);
	struct ib_wc wc[16];
	int i, n;

	for (i = 0; i < 5; i++)
		post(cq, i, false, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, sv_cq_poll(&cq->ibcq, 2, wc), 2);
	/* 3 waiting */
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, 2, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, -1, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, SV_MAX_CQE + 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 7);
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, 3, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 3);
	KUNIT_EXPECT_EQ(test, sv_cq_resize(&cq->ibcq, 100, NULL), 0);
	KUNIT_EXPECT_EQ(test, cq->ibcq.cqe, 127);
	for (i = 5; i < 18; i++)
		KUNIT_EXPECT_EQ(test, post(cq, i, false, IB_WC_SUCCESS), 0);
	n = sv_cq_poll(&cq->ibcq, 16, wc);
	KUNIT_ASSERT_EQ(test, n, 16);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i + 2);
	destroy_cq(test, cq);
}

/* what librxe reads: struct ib_uverbs_wc with libibverbs' wc_flags */
static void cq_user_ring_format(struct kunit *test)
{
	struct sv_cq *cq = make_user_cq(test, 7);
	struct ib_uverbs_wc *uwc = (void *)cq->queue->buf->data;
	struct ib_wc wc = {};

	KUNIT_EXPECT_EQ(test, cq->queue->log2_elem_size, 6U);
	KUNIT_ASSERT_EQ(test, post(cq, 42, false, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, cq->queue->buf->producer_index, 1U);
	KUNIT_EXPECT_EQ(test, uwc->wr_id, 42ULL);
	KUNIT_EXPECT_EQ(test, uwc->status, (u32)IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, uwc->opcode, (u32)IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, uwc->byte_len, 7U);
	KUNIT_EXPECT_EQ(test, uwc->ex.invalidate_rkey, 0x1234U);
	KUNIT_EXPECT_EQ(test, uwc->qp_num, 0U);		/* wc.qp NULL */
	KUNIT_EXPECT_EQ(test, uwc->src_qp, 0x55U);
	/* IBV_WC_GRH (1 << 0) | IBV_WC_WITH_INV (1 << 3) */
	KUNIT_EXPECT_EQ(test, uwc->wc_flags, 0x9U);
	KUNIT_EXPECT_EQ(test, uwc->pkey_index, 3);
	KUNIT_EXPECT_EQ(test, uwc->sl, 2);
	KUNIT_EXPECT_EQ(test, uwc->port_num, 1);
	KUNIT_EXPECT_EQ(test, uwc->reserved, 0);

	wc.wc_flags = IB_WC_WITH_IMM | IB_WC_IP_CSUM_OK | IB_WC_WITH_SMAC |
		      IB_WC_WITH_VLAN;
	KUNIT_ASSERT_EQ(test, sv_cq_post(cq, &wc, false), 0);
	uwc = sv_queue_slot(cq->queue, 1);	/* slots are 64 bytes */
	/* IBV_WC_WITH_IMM (1 << 1) | IBV_WC_IP_CSUM_OK (1 << 2) */
	KUNIT_EXPECT_EQ(test, uwc->wc_flags, 0x6U);

	/* a RoCEv2 datagram: its packet type in sl, as RoCE NICs report it */
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = RDMA_NETWORK_IPV4;
	KUNIT_ASSERT_EQ(test, sv_cq_post(cq, &wc, false), 0);
	uwc = sv_queue_slot(cq->queue, 2);
	KUNIT_EXPECT_EQ(test, uwc->sl, SV_UWC_SL_ROCE_UDP | SV_UWC_SL_IPV4);
	wc.network_hdr_type = RDMA_NETWORK_IPV6;
	KUNIT_ASSERT_EQ(test, sv_cq_post(cq, &wc, false), 0);
	uwc = sv_queue_slot(cq->queue, 3);
	KUNIT_EXPECT_EQ(test, uwc->sl, SV_UWC_SL_ROCE_UDP | SV_UWC_SL_IPV6);

	/* user CQs are polled from the ring, never through poll_cq */
	KUNIT_EXPECT_EQ(test, sv_cq_poll(&cq->ibcq, 1, &wc), -EOPNOTSUPP);
	destroy_user_cq(cq);
}

/*
 * librxe's consumer stores its index masked to the ring; around the ring
 * many times, the kernel must neither lose room nor see an overrun.
 */
static void cq_user_librxe_consumer(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = make_user_cq(test, 3);
	struct sv_queue_buf *buf = cq->queue->buf;
	struct ib_uverbs_wc *uwc;
	u32 i, cons;

	for (i = 0; i < 50; i++) {
		KUNIT_ASSERT_EQ_MSG(test, post(cq, i, false, IB_WC_SUCCESS), 0,
				    "completion %u", i);
		KUNIT_ASSERT_EQ_MSG(test, post(cq, 1000 + i, false,
					       IB_WC_SUCCESS), 0,
				    "completion %u", i);
		/* poll both, as rxe_poll_cq() does */
		cons = smp_load_acquire(&buf->consumer_index);
		KUNIT_ASSERT_LE(test, cons, buf->index_mask);
		uwc = (void *)(buf->data + (cons << buf->log2_elem_size));
		KUNIT_EXPECT_EQ(test, uwc->wr_id, (u64)i);
		cons = (cons + 2) & buf->index_mask;
		/* as librxe does: hand the slots back (release) ... */
		smp_store_release(&buf->consumer_index, cons);
		/* ... and read the producer's index (acquire) */
		KUNIT_EXPECT_EQ(test, smp_load_acquire(&buf->producer_index),
				cons);
	}
	KUNIT_EXPECT_EQ(test, env->cq_errors, 0);
	destroy_user_cq(cq);
}

/* a consumer index user space scribbled on names a slot inside the ring */
static void cq_user_corrupt_index(struct kunit *test)
{
	struct cq_env *env = test->priv;
	struct sv_cq *cq = make_user_cq(test, 3);
	struct sv_queue_buf *buf = cq->queue->buf;

	buf->consumer_index = 0x80000000;
	KUNIT_EXPECT_EQ(test, post(cq, 1, false, IB_WC_SUCCESS), 0);
	/* 3 as seen masked: with 1 posted that looks like 2 waiting */
	buf->consumer_index = 0xffffffff;
	KUNIT_EXPECT_EQ(test, post(cq, 2, false, IB_WC_SUCCESS), 0);
	KUNIT_EXPECT_EQ(test, post(cq, 3, false, IB_WC_SUCCESS), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, env->cq_errors, 1);
	KUNIT_EXPECT_LE(test, buf->producer_index, buf->index_mask);
	destroy_user_cq(cq);
}

static struct kunit_case cq_cases[] = {
	KUNIT_CASE(cq_create_checks_arguments),
	KUNIT_CASE(cq_post_poll_in_order),
	KUNIT_CASE(cq_notify_next_comp_once),
	KUNIT_CASE(cq_notify_solicited),
	KUNIT_CASE(cq_notify_on_vector_cpu),
	KUNIT_CASE(cq_notify_flags),
	KUNIT_CASE(cq_overrun),
	KUNIT_CASE(cq_resize),
	KUNIT_CASE(cq_user_ring_format),
	KUNIT_CASE(cq_user_librxe_consumer),
	KUNIT_CASE(cq_user_corrupt_index),
	{}
};

static struct kunit_suite cq_suite = {
	.name = "cq_kunit",
	.init = cq_env_init,
	.exit = cq_env_exit,
	.test_cases = cq_cases,
};

kunit_test_suites(&cq_suite);
