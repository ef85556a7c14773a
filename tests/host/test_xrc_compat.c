// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * OFED's XRC calls (ulib/xrc_compat.c) against the fake kernel: which
 * commands each sends, the per-domain table of receive QP handles (one
 * handle per number however often it is registered, the creator
 * registered, a handle opened just for a modify or query of a number not
 * held), and the refusals that need no kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "fake.h"
#include "harness.h"
#include "../../ulib/include/softverbs.h"

struct cenv {
	struct fake_tree t;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static bool csetup(struct cenv *e)
{
	struct ibv_device **list;

	memset(e, 0, sizeof(*e));
	fake_standard_setup(&e->t);
	fk.objects = true;
	list = ibv_get_device_list(NULL);
	if (list && list[0])
		e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	CHECK(e->ctx != NULL);
	if (!e->ctx)
		return false;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 7, NULL, NULL, 0);
	CHECK(e->pd && e->cq);
	return e->pd && e->cq;
}

static void cteardown(struct cenv *e)
{
	unsigned int i;

	if (e->cq)
		CHECK_INT(ibv_destroy_cq(e->cq), 0);
	if (e->pd)
		CHECK_INT(ibv_dealloc_pd(e->pd), 0);
	if (e->ctx)
		ibv_close_device(e->ctx);
	for (i = 0; i < fk.nrings; i++) {
		CHECK_INT(fk.rings[i].maps, 0);
		free(fk.rings[i].buf);
	}
	fake_tree_destroy(&e->t);
}

#define COUNT(cmd) fk.count[IB_USER_VERBS_CMD_##cmd]

TEST(xrc_compat_domain_and_srq)
{
	struct ibv_srq_init_attr sa = { .srq_context = &sa,
					.attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_xrc_domain *d;
	struct ibv_srq *srq;
	struct cenv e;
	uint32_t n = 0;

	if (!csetup(&e))
		goto out;
	/* OFED's flag rules need no kernel */
	errno = 0;
	CHECK(!ibv_open_xrc_domain(e.ctx, -1, 0) && errno == EINVAL);
	errno = 0;
	CHECK(!ibv_open_xrc_domain(e.ctx, -1, O_CREAT | O_EXCL) &&
	      errno == EINVAL);
	errno = 0;
	CHECK(!ibv_open_xrc_domain(e.ctx, 3, O_CREAT | O_APPEND) &&
	      errno == EINVAL);
	errno = 0;
	CHECK(!ibv_open_xrc_domain(NULL, 3, O_CREAT) && errno == EINVAL);
	CHECK_INT(COUNT(OPEN_XRCD), 0);
	/* the kernel's answer comes through: a file without a domain */
	errno = 0;
	CHECK(!ibv_open_xrc_domain(e.ctx, 3, 0) && errno == EAGAIN);
	CHECK_INT(COUNT(OPEN_XRCD), 1);

	d = ibv_open_xrc_domain(e.ctx, -1, O_CREAT);
	CHECK(d != NULL);
	if (!d)
		goto out;
	CHECK(d->context == e.ctx);
	CHECK_INT(d->handle, fk.next_handle - 1);

	srq = ibv_create_xrc_srq(e.pd, d, e.cq, &sa);
	CHECK(srq != NULL);
	if (srq) {
		CHECK_INT(fk.last_xsrq.srq_type, IB_UVERBS_SRQT_XRC);
		CHECK_INT(fk.last_xsrq.xrcd_handle, d->handle);
		CHECK_INT(fk.last_xsrq.cq_handle, e.cq->handle);
		CHECK_INT(fk.last_xsrq.pd_handle, e.pd->handle);
		CHECK(srq->srq_context == &sa);
		CHECK_INT(sa.attr.max_wr, 8);	/* what the fake granted */
		CHECK_INT(ibv_get_srq_num(srq, &n), 0);
		CHECK_INT(n, 0x500 + srq->handle);
		CHECK_INT(ibv_destroy_srq(srq), 0);
	}
	errno = 0;
	CHECK(!ibv_create_xrc_srq(e.pd, NULL, e.cq, &sa) && errno == EINVAL);
	errno = 0;
	CHECK(!ibv_create_xrc_srq(e.pd, d, NULL, &sa) && errno == EINVAL);
	errno = 0;
	CHECK(!ibv_create_xrc_srq(e.pd, d, e.cq, NULL) && errno == EINVAL);
	CHECK_INT(COUNT(CREATE_XSRQ), 1);

	CHECK_INT(ibv_close_xrc_domain(NULL), EINVAL);
	CHECK_INT(ibv_close_xrc_domain(d), 0);
	CHECK_INT(COUNT(CLOSE_XRCD), 1);
out:
	cteardown(&e);
}

TEST(xrc_compat_receive_qps_by_number)
{
	struct softverbs_xrc_qp_init_attr ia = { .qp_type = IBV_QPT_RC };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	struct ibv_xrc_domain *d;
	uint32_t qpn = 0, h_created;
	struct cenv e;

	if (!csetup(&e))
		goto out;
	d = ibv_open_xrc_domain(e.ctx, -1, O_CREAT);
	CHECK(d != NULL);
	if (!d)
		goto out;

	/* a receive QP needs its domain; the rest is ignored */
	CHECK_INT(ibv_create_xrc_rcv_qp(&ia, &qpn), EINVAL);
	CHECK_INT(ibv_create_xrc_rcv_qp(NULL, &qpn), EINVAL);
	ia.xrc_domain = d;
	CHECK_INT(ibv_create_xrc_rcv_qp(&ia, NULL), EINVAL);
	CHECK_INT(COUNT(CREATE_QP), 0);
	CHECK_INT(ibv_create_xrc_rcv_qp(&ia, &qpn), 0);
	CHECK_INT(fk.last_create_qp.qp_type, IB_UVERBS_QPT_XRC_TGT);
	CHECK_INT(fk.last_create_qp.pd_handle, d->handle);
	h_created = fk.last_qp_handle;
	CHECK_INT(qpn, 0x100 + h_created);

	/* the creator holds it: registering again opens nothing */
	CHECK_INT(ibv_reg_xrc_rcv_qp(d, qpn), 0);
	CHECK_INT(COUNT(OPEN_QP), 0);
	/* held through d: the domain cannot close */
	CHECK_INT(ibv_close_xrc_domain(d), EBUSY);
	CHECK_INT(COUNT(CLOSE_XRCD), 0);

	/* another number: one OPEN_QP, however often */
	CHECK_INT(ibv_reg_xrc_rcv_qp(d, 0x777), 0);
	CHECK_INT(COUNT(OPEN_QP), 1);
	CHECK_INT(fk.last_open_qp.qpn, 0x777);
	CHECK_INT(fk.last_open_qp.pd_handle, d->handle);
	CHECK_INT(fk.last_open_qp.qp_type, IB_UVERBS_QPT_XRC_TGT);
	CHECK_INT(ibv_reg_xrc_rcv_qp(d, 0x777), 0);
	CHECK_INT(COUNT(OPEN_QP), 1);
	/* the kernel's EINVAL (no such receive QP in the domain) comes back */
	fk.open_qp_err = EINVAL;
	CHECK_INT(ibv_reg_xrc_rcv_qp(d, 0x778), EINVAL);
	CHECK_INT(COUNT(OPEN_QP), 2);
	/* beyond 24 bits: no command at all */
	CHECK_INT(ibv_reg_xrc_rcv_qp(d, 1U << 24), EINVAL);
	CHECK_INT(ibv_reg_xrc_rcv_qp(NULL, qpn), EINVAL);
	CHECK_INT(COUNT(OPEN_QP), 2);

	/* modify and query a held number: its handle, nothing opened */
	CHECK_INT(ibv_modify_xrc_rcv_qp(d, qpn, &a, IBV_QP_STATE), 0);
	CHECK_INT(fk.last_modify_handle, h_created);
	CHECK_INT(fk.last_modify_state, IBV_QPS_INIT);
	{
		struct softverbs_xrc_qp_init_attr qa;
		struct ibv_qp_attr got;

		memset(&qa, 0xa5, sizeof(qa));
		CHECK_INT(ibv_query_xrc_rcv_qp(d, qpn, &got, IBV_QP_STATE,
					       &qa), 0);
		CHECK_INT(fk.last_query_qp_handle, h_created);
		CHECK_INT(got.qp_state, IBV_QPS_INIT);
		CHECK(qa.xrc_domain == d);
		CHECK_INT(qa.qp_type, IBV_QPT_XRC_RECV);
		CHECK_INT(qa.sq_sig_all, 1);
		CHECK(!qa.qp_context && !qa.send_cq && !qa.recv_cq && !qa.srq);
		CHECK_INT(qa.cap.max_send_wr, 0);
		/* no init_attr is fine */
		CHECK_INT(ibv_query_xrc_rcv_qp(d, qpn, &got, IBV_QP_STATE,
					       NULL), 0);
	}
	CHECK_INT(COUNT(OPEN_QP), 2);
	CHECK_INT(COUNT(DESTROY_QP), 0);
	/* a number d does not hold: a handle just for the call */
	CHECK_INT(ibv_modify_xrc_rcv_qp(d, 0x779, &a, IBV_QP_STATE), EINVAL);
	CHECK_INT(COUNT(MODIFY_QP), 1);
	fk.open_qp_err = 0;
	a.qp_state = IBV_QPS_RTR;
	CHECK_INT(ibv_modify_xrc_rcv_qp(d, 0x779, &a, IBV_QP_STATE), 0);
	CHECK_INT(fk.last_open_qp.qpn, 0x779);
	CHECK_INT(fk.last_modify_state, IBV_QPS_RTR);
	CHECK_INT(COUNT(OPEN_QP), 4);
	CHECK_INT(COUNT(MODIFY_QP), 2);
	CHECK_INT(COUNT(DESTROY_QP), 1);
	CHECK_INT(ibv_modify_xrc_rcv_qp(d, qpn, NULL, IBV_QP_STATE), EINVAL);
	CHECK_INT(ibv_query_xrc_rcv_qp(NULL, qpn, &a, 0, NULL), EINVAL);

	/* unregistering: what d holds goes, once */
	CHECK_INT(ibv_unreg_xrc_rcv_qp(d, 0x777), 0);
	CHECK_INT(COUNT(DESTROY_QP), 2);
	CHECK_INT(ibv_unreg_xrc_rcv_qp(d, 0x777), EINVAL);
	CHECK_INT(ibv_unreg_xrc_rcv_qp(d, 0x779), EINVAL);
	CHECK_INT(ibv_unreg_xrc_rcv_qp(NULL, qpn), EINVAL);
	CHECK_INT(COUNT(DESTROY_QP), 2);
	CHECK_INT(ibv_close_xrc_domain(d), EBUSY);
	CHECK_INT(ibv_unreg_xrc_rcv_qp(d, qpn), 0);
	CHECK_INT(COUNT(DESTROY_QP), 3);
	CHECK_INT(ibv_close_xrc_domain(d), 0);
	CHECK_INT(COUNT(CLOSE_XRCD), 1);
out:
	cteardown(&e);
}
