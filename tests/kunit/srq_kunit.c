// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_srq.c: sv_srq_pop(), the responder's side (WQE
 * validation, the SRQ limit event), and what kernel consumers call
 * (post_srq_recv, modify, query), case by case and without a wire.
 *
 * Each case works on a device made by hand: a zeroed struct sv_dev with
 * its srq_xa; no ib_core registration.  Kernel SRQs are made through
 * sv_srq_create() without udata.  A user SRQ needs a ucontext to be
 * mapped, so the user-ring cases build one by hand around a
 * SV_QUEUE_KERNEL_CONSUMES ring and play librxe's producer on it (indices
 * masked to the ring, providers/rxe/rxe_queue.h).  tests/user/21-srq.sh
 * covers the verbs through librxe.
 */
#include <kunit/test.h>

#include "sv.h"
#include "sv_xport_obj.h"

struct srq_env {
	struct sv_dev	*sv;
	int		limit_events;	/* IB_EVENT_SRQ_LIMIT_REACHED */
};

/* room for any WQE sv_srq_pop() can return */
struct srq_out {
	struct sv_recv_wqe	wqe;
	struct sv_sge		sge[SV_MAX_SRQ_SGE];
};

static void srq_event_handler(struct ib_event *event, void *ctx)
{
	struct srq_env *env = ctx;

	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED)
		env->limit_events++;
}

static int srq_env_init(struct kunit *test)
{
	struct srq_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	xa_init_flags(&env->sv->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	test->priv = env;
	return 0;
}

static void srq_env_exit(struct kunit *test)
{
	struct srq_env *env = test->priv;

	/* every case destroys what it created */
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_srq), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&env->sv->srq_xa));
	xa_destroy(&env->sv->srq_xa);
}

static struct sv_srq *alloc_srq(struct kunit *test)
{
	struct srq_env *env = test->priv;
	struct sv_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	srq->ibsrq.device = &env->sv->ibdev;
	srq->ibsrq.event_handler = srq_event_handler;
	srq->ibsrq.srq_context = env;
	return srq;
}

static int create(struct sv_srq *srq, u32 max_wr, u32 max_sge, u32 limit)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = max_wr, .max_sge = max_sge,
			  .srq_limit = limit },
	};

	return sv_srq_create(&srq->ibsrq, &init, NULL);
}

static struct sv_srq *make_srq(struct kunit *test, u32 max_wr, u32 max_sge)
{
	struct sv_srq *srq = alloc_srq(test);

	KUNIT_ASSERT_EQ(test, create(srq, max_wr, max_sge, 0), 0);
	return srq;
}

static void destroy_srq(struct kunit *test, struct sv_srq *srq)
{
	KUNIT_EXPECT_EQ(test, sv_srq_destroy(&srq->ibsrq, NULL), 0);
}

/* a user SRQ without a process: its ring is never mapped */
static struct sv_srq *make_user_srq(struct kunit *test, u32 max_wr,
				    u32 max_sge)
{
	struct sv_srq *srq = alloc_srq(test);

	srq->is_user = true;
	srq->max_sge = max_sge;
	spin_lock_init(&srq->lock);
	mutex_init(&srq->modify_mutex);
	srq->queue = sv_queue_create(max_wr, sv_srq_wqe_size(max_sge),
				     SV_QUEUE_KERNEL_CONSUMES);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq->queue);
	return srq;
}

static void destroy_user_srq(struct sv_srq *srq)
{
	sv_queue_destroy(srq->queue);
	mutex_destroy(&srq->modify_mutex);
}

/* post one WQE of @num_sge SGEs (lengths 100, 200, U32_MAX, 1) */
static int post(struct sv_srq *srq, u64 wr_id, int num_sge)
{
	struct ib_sge sge[] = {
		{ .addr = 0x1000, .length = 100, .lkey = 7 },
		{ .addr = 0x2000, .length = 200, .lkey = 8 },
		{ .addr = 0x3000, .length = U32_MAX, .lkey = 9 },
		{ .addr = 0x4000, .length = 1, .lkey = 10 },
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = num_sge,
	};
	const struct ib_recv_wr *bad = NULL;
	int err;

	err = sv_srq_post_recv(&srq->ibsrq, &wr, &bad);
	if (err && bad != &wr)
		return -EFAULT;		/* bad_wr must name the failed WR */
	return err;
}

static void srq_create_checks_arguments(struct kunit *test)
{
	struct srq_env *env = test->priv;
	struct sv_srq *srq = alloc_srq(test);
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_TM,
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_srq_attr attr;

	KUNIT_EXPECT_EQ(test, sv_srq_create(&srq->ibsrq, &init, NULL),
			-EOPNOTSUPP);
	/* an XRC SRQ needs its CQ and its domain */
	init.srq_type = IB_SRQT_XRC;
	KUNIT_EXPECT_EQ(test, sv_srq_create(&srq->ibsrq, &init, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, create(srq, 0, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, create(srq, SV_MAX_SRQ_WR + 1, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, create(srq, 8, SV_MAX_SRQ_SGE + 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, create(srq, 8, 1, 9), -EINVAL);
	atomic_set(&env->sv->num_srq, SV_MAX_SRQ);
	KUNIT_EXPECT_EQ(test, create(srq, 8, 1, 0), -ENOMEM);
	atomic_set(&env->sv->num_srq, 0);

	/* the sizes reported: at least what was asked; 0 SGEs become 1 */
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_sge = 0;
	init.attr.srq_limit = 8;
	KUNIT_ASSERT_EQ(test, sv_srq_create(&srq->ibsrq, &init, NULL), 0);
	KUNIT_EXPECT_EQ(test, init.attr.max_wr, 15U);
	KUNIT_EXPECT_EQ(test, init.attr.max_sge, 1U);
	KUNIT_EXPECT_GE(test, srq->srq_num, 1U);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&env->sv->srq_xa, srq->srq_num),
			    (void *)srq);
	KUNIT_EXPECT_EQ(test, sv_srq_query(&srq->ibsrq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 15U);
	KUNIT_EXPECT_EQ(test, attr.max_sge, 1U);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 8U);
	destroy_srq(test, srq);
}

/* an XRC SRQ as ib_core makes it: type and ext set before create */
static struct sv_srq *make_xrc_srq(struct kunit *test, struct ib_cq *cq,
				   struct ib_xrcd *xrcd)
{
	struct sv_srq *srq = alloc_srq(test);
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_XRC,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.ext = { .cq = cq, .xrc.xrcd = xrcd },
	};

	srq->ibsrq.srq_type = IB_SRQT_XRC;
	srq->ibsrq.ext.cq = cq;
	srq->ibsrq.ext.xrc.xrcd = xrcd;
	KUNIT_ASSERT_EQ(test, sv_srq_create(&srq->ibsrq, &init, NULL), 0);
	return srq;
}

struct srq_late_put {
	struct delayed_work	work;
	struct sv_srq		*srq;
	bool			done;
};

static void srq_late_put_fn(struct work_struct *work)
{
	struct srq_late_put *lp = container_of(to_delayed_work(work),
					       struct srq_late_put, work);

	WRITE_ONCE(lp->done, true);
	sv_srq_put(lp->srq);
}

/*
 * An XRC SRQ is found by its number only by a target QP of its domain
 * (IBTA A14), with a reference that its destroy waits for.
 */
static void srq_xrc_lookup(struct kunit *test)
{
	struct srq_env *env = test->priv;
	struct ib_xrcd xrcd_a = {}, xrcd_b = {};
	struct sv_cq cq = {};	/* destroy waits for its handler calls */
	struct sv_srq *basic = make_srq(test, 4, 1);
	struct sv_srq *xa = make_xrc_srq(test, &cq.ibcq, &xrcd_a);
	struct sv_srq *xb = make_xrc_srq(test, &cq.ibcq, &xrcd_b);
	struct srq_late_put lp = { .srq = xa };

	/* the number user space gets from ib_uverbs is the wire's */
	KUNIT_EXPECT_EQ(test, xa->ibsrq.ext.xrc.srq_num, xa->srq_num);
	KUNIT_EXPECT_NE(test, xa->srq_num, xb->srq_num);

	KUNIT_EXPECT_PTR_EQ(test, sv_srq_get_xrc(env->sv, xa->srq_num,
						 &xrcd_a), xa);
	KUNIT_EXPECT_EQ(test, refcount_read(&xa->refs), 2U);
	sv_srq_put(xa);
	KUNIT_EXPECT_PTR_EQ(test, sv_srq_get_xrc(env->sv, xb->srq_num,
						 &xrcd_b), xb);
	sv_srq_put(xb);
	/* another domain's SRQ, a basic SRQ, no SRQ: none */
	KUNIT_EXPECT_NULL(test, sv_srq_get_xrc(env->sv, xa->srq_num, &xrcd_b));
	KUNIT_EXPECT_NULL(test, sv_srq_get_xrc(env->sv, basic->srq_num,
					       &xrcd_a));
	KUNIT_EXPECT_NULL(test, sv_srq_get_xrc(env->sv, 0, &xrcd_a));
	KUNIT_EXPECT_NULL(test, sv_srq_get_xrc(env->sv, 0xffffff, &xrcd_a));
	KUNIT_EXPECT_EQ(test, refcount_read(&xa->refs), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&xb->refs), 1U);

	/* destroy waits for a packet that holds the SRQ */
	KUNIT_ASSERT_PTR_EQ(test, sv_srq_get_xrc(env->sv, xa->srq_num,
						 &xrcd_a), xa);
	INIT_DELAYED_WORK_ONSTACK(&lp.work, srq_late_put_fn);
	schedule_delayed_work(&lp.work, msecs_to_jiffies(50));
	destroy_srq(test, xa);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(lp.done));
	flush_delayed_work(&lp.work);
	destroy_delayed_work_on_stack(&lp.work);
	/* and once it is gone, its number finds nothing */
	KUNIT_EXPECT_NULL(test, sv_srq_get_xrc(env->sv, lp.srq->srq_num,
					       &xrcd_a));
	destroy_srq(test, xb);
	destroy_srq(test, basic);
}

static void srq_post_pop(struct kunit *test)
{
	struct sv_srq *srq = make_srq(test, 3, 2);
	struct srq_out out;
	int i;

	KUNIT_EXPECT_EQ(test, post(srq, 1, 3), -EINVAL);	/* > max_sge */
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EAGAIN);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, post(srq, 10 + i, 2), 0);
	KUNIT_EXPECT_EQ(test, post(srq, 13, 1), -ENOMEM);	/* full */

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
		KUNIT_EXPECT_EQ(test, out.wqe.wr_id, 10ULL + i);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.num_sge, 2U);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.length, 300U);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.resid, 300U);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.sge[1].addr, 0x2000ULL);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.sge[1].lkey, 8U);
	}
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EAGAIN);

	/* around the ring many times */
	for (i = 0; i < 20; i++) {
		KUNIT_ASSERT_EQ(test, post(srq, i, 0), 0);
		KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
		KUNIT_EXPECT_EQ(test, out.wqe.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, out.wqe.dma.length, 0U);
	}
	destroy_srq(test, srq);

	/* a total length that would wrap saturates */
	srq = make_srq(test, 3, 4);
	KUNIT_ASSERT_EQ(test, post(srq, 1, 4), 0);
	KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
	KUNIT_EXPECT_EQ(test, out.wqe.dma.length, U32_MAX);
	destroy_srq(test, srq);
}

/* the limit event: once, when a pop leaves fewer WQEs than the limit */
static void srq_limit_event(struct kunit *test)
{
	struct srq_env *env = test->priv;
	struct sv_srq *srq = make_srq(test, 7, 1);
	struct ib_srq_attr attr = { .srq_limit = 3 };
	struct srq_out out;
	int i;

	for (i = 0; i < 7; i++)
		post(srq, i, 1);
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_LIMIT,
					    NULL), 0);
	for (i = 0; i < 7; i++) {
		KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
		/* 6 - i left: below 3 first at i == 4 */
		KUNIT_EXPECT_EQ_MSG(test, env->limit_events, i >= 4 ? 1 : 0,
				    "after pop %d", i);
	}
	KUNIT_EXPECT_EQ(test, sv_srq_query(&srq->ibsrq, &attr), 0);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0U);	/* disarmed */

	/* re-armed, it fires again; armed at 0 it never does */
	for (i = 0; i < 3; i++)
		post(srq, i, 1);
	attr.srq_limit = 2;
	sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_LIMIT, NULL);
	sv_srq_pop(srq, &out.wqe, sizeof(out));
	KUNIT_EXPECT_EQ(test, env->limit_events, 1);
	sv_srq_pop(srq, &out.wqe, sizeof(out));
	KUNIT_EXPECT_EQ(test, env->limit_events, 2);
	attr.srq_limit = 0;
	sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_LIMIT, NULL);
	sv_srq_pop(srq, &out.wqe, sizeof(out));
	KUNIT_EXPECT_EQ(test, env->limit_events, 2);
	destroy_srq(test, srq);
}

static void srq_modify(struct kunit *test)
{
	struct sv_srq *srq = make_srq(test, 7, 1);
	struct ib_srq_attr attr = {};
	struct srq_out out;
	int i;

	for (i = 0; i < 5; i++)
		post(srq, 60 + i, 1);
	sv_srq_pop(srq, &out.wqe, sizeof(out));
	/* 4 posted */
	attr.max_wr = 3;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_MAX_WR,
					    NULL), -EINVAL);
	attr.max_wr = 0;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_MAX_WR,
					    NULL), -EINVAL);
	attr.max_wr = SV_MAX_SRQ_WR + 1;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_MAX_WR,
					    NULL), -EINVAL);
	attr.srq_limit = 8;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_LIMIT,
					    NULL), -EINVAL);
	/* the limit is checked against the size being set with it */
	attr.max_wr = 4;
	attr.srq_limit = 5;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr,
					    IB_SRQ_MAX_WR | IB_SRQ_LIMIT, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr,
					    IB_SRQ_MAX_WR << 4, NULL), -EINVAL);
	sv_srq_query(&srq->ibsrq, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 7U);
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 0U);

	attr.max_wr = 4;
	attr.srq_limit = 4;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr,
					    IB_SRQ_MAX_WR | IB_SRQ_LIMIT, NULL),
			0);
	sv_srq_query(&srq->ibsrq, &attr);
	KUNIT_EXPECT_EQ(test, attr.max_wr, 7U);		/* 4 rounds up */
	KUNIT_EXPECT_EQ(test, attr.srq_limit, 4U);
	/* shrinking below the armed limit is refused */
	attr.max_wr = 3;
	KUNIT_EXPECT_EQ(test, sv_srq_modify(&srq->ibsrq, &attr, IB_SRQ_MAX_WR,
					    NULL), -EINVAL);
	/* the WQEs moved along, in order */
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
		KUNIT_EXPECT_EQ(test, out.wqe.wr_id, 61ULL + i);
	}
	destroy_srq(test, srq);
}

/* a WQE user space wrote: copied, then checked; bad ones are consumed */
static void srq_user_malformed_wqe(struct kunit *test)
{
	struct sv_srq *srq = make_user_srq(test, 3, 2);
	struct sv_queue_buf *buf = srq->queue->buf;
	struct sv_recv_wqe *slot = (void *)buf->data;
	struct srq_out out;

	KUNIT_EXPECT_EQ(test, post(srq, 1, 1), -EOPNOTSUPP);

	slot->wr_id = 77;
	slot->dma.num_sge = 100;
	slot->dma.length = 5;
	slot->dma.cur_sge = 3;
	/* publish the slot as user space does (uapi/softverbs-abi.h) */
	smp_store_release(&buf->producer_index, 1);
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EINVAL);
	KUNIT_EXPECT_EQ(test, out.wqe.wr_id, 77ULL);
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EAGAIN);

	/* lengths and progress fields come from the SGEs, not user space */
	slot = sv_queue_slot(srq->queue, 1);
	slot->wr_id = 78;
	slot->dma.num_sge = 2;
	slot->dma.sge[0].length = 10;
	slot->dma.sge[1].length = 20;
	slot->dma.length = 5;
	slot->dma.resid = 99;
	slot->dma.cur_sge = 1;
	slot->dma.sge_offset = 4;
	/* publish the slot as user space does */
	smp_store_release(&buf->producer_index, 2);
	KUNIT_ASSERT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
	KUNIT_EXPECT_EQ(test, out.wqe.dma.length, 30U);
	KUNIT_EXPECT_EQ(test, out.wqe.dma.resid, 30U);
	KUNIT_EXPECT_EQ(test, out.wqe.dma.cur_sge, 0U);
	KUNIT_EXPECT_EQ(test, out.wqe.dma.sge_offset, 0U);
	destroy_user_srq(srq);
}

/* librxe's producer stores its index masked to the ring */
static void srq_user_librxe_producer(struct kunit *test)
{
	struct sv_srq *srq = make_user_srq(test, 3, 1);
	struct sv_queue_buf *buf = srq->queue->buf;
	struct sv_recv_wqe *slot;
	struct srq_out out;
	u32 i, prod;

	for (i = 0; i < 50; i++) {
		prod = buf->producer_index;
		KUNIT_ASSERT_LE(test, buf->consumer_index, buf->index_mask);
		slot = (void *)(buf->data + (prod << buf->log2_elem_size));
		slot->wr_id = i;
		slot->dma.num_sge = 1;
		slot->dma.sge[0].length = 10;
		/* publish the slot as user space does */
		smp_store_release(&buf->producer_index,
				  (prod + 1) & buf->index_mask);
		KUNIT_ASSERT_EQ_MSG(test, sv_srq_pop(srq, &out.wqe, sizeof(out)),
				    0, "WQE %u", i);
		KUNIT_EXPECT_EQ(test, out.wqe.wr_id, (u64)i);
	}
	destroy_user_srq(srq);
}

/* a producer index user space scribbled on is taken modulo the ring */
static void srq_user_corrupt_index(struct kunit *test)
{
	struct sv_srq *srq = make_user_srq(test, 3, 1);
	struct sv_queue_buf *buf = srq->queue->buf;
	struct srq_out out;
	int i;

	buf->producer_index = 0x80000000;
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EAGAIN);
	buf->producer_index = 0xffffffff;	/* 3: three zeroed WQEs */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), 0);
	KUNIT_EXPECT_EQ(test, sv_srq_pop(srq, &out.wqe, sizeof(out)), -EAGAIN);
	KUNIT_EXPECT_LE(test, buf->consumer_index, buf->index_mask);
	destroy_user_srq(srq);
}

static struct kunit_case srq_cases[] = {
	KUNIT_CASE(srq_create_checks_arguments),
	KUNIT_CASE(srq_xrc_lookup),
	KUNIT_CASE(srq_post_pop),
	KUNIT_CASE(srq_limit_event),
	KUNIT_CASE(srq_modify),
	KUNIT_CASE(srq_user_malformed_wqe),
	KUNIT_CASE(srq_user_librxe_producer),
	KUNIT_CASE(srq_user_corrupt_index),
	{}
};

static struct kunit_suite srq_suite = {
	.name = "srq_kunit",
	.init = srq_env_init,
	.exit = srq_env_exit,
	.test_cases = srq_cases,
};

kunit_test_suites(&srq_suite);
