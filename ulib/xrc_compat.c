// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compatibility functions: the XRC calls of OFED 1.3-1.5's libibverbs over
 * the modern XRC objects (include/softverbs.h; Documentation/ulib.md, "The
 * old OFED XRC calls").
 *
 * An ibv_xrc_domain wraps an ibv_xrcd.  OFED named a receive-only XRC QP
 * (IBTA A14's XRC target) by its number and let each process "register"
 * with it; the QP lived until the last registered process let go.  ib_core
 * has the same lifetime for the handles ibv_open_qp gives: the QP lives
 * while any handle exists.  So a registration is a handle, and each domain
 * handle keeps a table of the handles it holds, by QP number.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"
#include "include/softverbs.h"

/* XRC target QP numbers are 24 bits (BTH DestQP) */
#define XRC_QPN_MAX	0xffffffU

/*
 * One domain handle.  lock protects rcv and nrcv and is held across the
 * commands that create, open or destroy the handles in rcv, so that two
 * threads registering the same number through one domain handle make one
 * handle.
 */
struct sv_xrc_domain {
	struct ibv_xrc_domain ibdom;
	struct ibv_xrcd *xrcd;
	pthread_mutex_t lock;
	void *rcv;			/* tsearch tree of struct rcv_qp */
	unsigned long nrcv;
};

/* A receive QP this domain handle holds (created or registered). */
struct rcv_qp {
	uint32_t qpn;
	struct ibv_qp *qp;		/* this process's handle */
};

static struct sv_xrc_domain *to_dom(struct ibv_xrc_domain *d)
{
	return sv_container_of(d, struct sv_xrc_domain, ibdom);
}

static const struct sv_ops *ops_of(struct ibv_context *ctx)
{
	return to_sv_context(ctx)->ops;
}

static int rcv_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct rcv_qp *)a)->qpn;
	uint32_t y = ((const struct rcv_qp *)b)->qpn;

	return x < y ? -1 : x > y;
}

/* The entry of qpn, or NULL; caller holds dom->lock. */
static struct rcv_qp *rcv_find(struct sv_xrc_domain *dom, uint32_t qpn)
{
	struct rcv_qp key = { .qpn = qpn };
	struct rcv_qp **e = tfind(&key, &dom->rcv, rcv_cmp);

	return e ? *e : NULL;
}

/* Keep handle qp in the table; 0 or ENOMEM.  Caller holds dom->lock. */
static int rcv_add(struct sv_xrc_domain *dom, struct ibv_qp *qp)
{
	struct rcv_qp *e = malloc(sizeof(*e)), **slot;

	if (!e)
		return ENOMEM;
	e->qpn = qp->qp_num;
	e->qp = qp;
	slot = tsearch(e, &dom->rcv, rcv_cmp);
	if (!slot || *slot != e) {
		/* out of memory; or held already, which the callers exclude */
		free(e);
		return slot ? EEXIST : ENOMEM;
	}
	dom->nrcv++;
	return 0;
}

/*
 * A new handle of receive QP qpn of the domain (ibv_open_qp).  The kernel
 * answers EINVAL for a number that is no XRC target QP of this domain.
 */
static struct ibv_qp *rcv_open(struct sv_xrc_domain *dom, uint32_t qpn)
{
	struct ibv_context *ctx = dom->ibdom.context;
	struct ibv_qp_open_attr a = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = qpn,
		.xrcd = dom->xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};

	if (qpn > XRC_QPN_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (!ops_of(ctx)->open_qp) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return ops_of(ctx)->open_qp(ctx, &a);
}

SV_EXPORT struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context,
						     int fd, int oflag)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflag,
	};
	struct sv_xrc_domain *dom;

	/* OFED: without a file the only meaningful flag is O_CREAT */
	if (!context || (oflag & ~(O_CREAT | O_EXCL)) ||
	    (fd == -1 && oflag != O_CREAT)) {
		errno = EINVAL;
		return NULL;
	}
	if (!ops_of(context)->open_xrcd) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	dom = calloc(1, sizeof(*dom));
	if (!dom) {
		errno = ENOMEM;
		return NULL;
	}
	dom->xrcd = ops_of(context)->open_xrcd(context, &a);
	if (!dom->xrcd) {
		int err = errno;

		free(dom);
		errno = err;
		return NULL;
	}
	pthread_mutex_init(&dom->lock, NULL);
	dom->ibdom.context = context;
	dom->ibdom.handle = to_sv_xrcd(dom->xrcd)->handle;
	return &dom->ibdom;
}

SV_EXPORT int ibv_close_xrc_domain(struct ibv_xrc_domain *d)
{
	struct sv_xrc_domain *dom;
	int err;

	if (!d)
		return EINVAL;
	if (!ops_of(d->context)->close_xrcd)
		return EOPNOTSUPP;
	dom = to_dom(d);
	pthread_mutex_lock(&dom->lock);
	/* the QPs held through d keep the domain busy: unregister first */
	err = dom->nrcv ? EBUSY : ops_of(d->context)->close_xrcd(dom->xrcd);
	pthread_mutex_unlock(&dom->lock);
	if (err)
		return err;
	pthread_mutex_destroy(&dom->lock);
	free(dom);
	return 0;
}

SV_EXPORT struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
					     struct ibv_xrc_domain *xrc_domain,
					     struct ibv_cq *xrc_cq,
					     struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_srq_init_attr_ex a = {
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.cq = xrc_cq,
	};
	struct ibv_srq *srq;

	/* create_srq_ex checks that PD, domain and CQ share the context */
	if (!pd || !xrc_domain || !xrc_cq || !srq_init_attr) {
		errno = EINVAL;
		return NULL;
	}
	if (!ops_of(pd->context)->create_srq_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	a.xrcd = to_dom(xrc_domain)->xrcd;
	a.srq_context = srq_init_attr->srq_context;
	a.attr = srq_init_attr->attr;
	srq = ops_of(pd->context)->create_srq_ex(pd->context, &a);
	if (srq)
		srq_init_attr->attr = a.attr;	/* what was granted */
	return srq;
}

SV_EXPORT int ibv_create_xrc_rcv_qp(struct softverbs_xrc_qp_init_attr *init_attr,
				    uint32_t *xrc_rcv_qpn)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct sv_xrc_domain *dom;
	struct ibv_context *ctx;
	struct ibv_qp *qp;
	int err;

	if (!init_attr || !init_attr->xrc_domain || !xrc_rcv_qpn)
		return EINVAL;
	dom = to_dom(init_attr->xrc_domain);
	ctx = dom->ibdom.context;
	if (!ops_of(ctx)->create_qp_ex)
		return EOPNOTSUPP;
	a.xrcd = dom->xrcd;
	pthread_mutex_lock(&dom->lock);
	qp = ops_of(ctx)->create_qp_ex(ctx, &a);
	if (!qp) {
		err = errno;
		goto out_unlock;
	}
	/* the creator is registered, as in OFED */
	err = rcv_add(dom, qp);
	if (err) {
		ops_of(ctx)->destroy_qp(qp);
		goto out_unlock;
	}
	*xrc_rcv_qpn = qp->qp_num;
out_unlock:
	pthread_mutex_unlock(&dom->lock);
	return err;
}

SV_EXPORT int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
				 uint32_t xrc_qp_num)
{
	struct sv_xrc_domain *dom;
	struct ibv_qp *qp;
	int err = 0;

	if (!xrc_domain)
		return EINVAL;
	dom = to_dom(xrc_domain);
	pthread_mutex_lock(&dom->lock);
	/* a process registers once, however often it asks (OFED) */
	if (rcv_find(dom, xrc_qp_num))
		goto out_unlock;
	qp = rcv_open(dom, xrc_qp_num);
	if (!qp) {
		err = errno;
		goto out_unlock;
	}
	err = rcv_add(dom, qp);
	if (err)
		ops_of(xrc_domain->context)->destroy_qp(qp);
out_unlock:
	pthread_mutex_unlock(&dom->lock);
	return err;
}

SV_EXPORT int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
				   uint32_t xrc_qp_num)
{
	struct sv_xrc_domain *dom;
	struct rcv_qp *e;
	int err;

	if (!xrc_domain)
		return EINVAL;
	dom = to_dom(xrc_domain);
	pthread_mutex_lock(&dom->lock);
	e = rcv_find(dom, xrc_qp_num);
	if (!e) {
		err = EINVAL;	/* not registered through this domain handle */
		goto out_unlock;
	}
	/* the last handle of any process takes the QP with it (ib_core) */
	err = ops_of(xrc_domain->context)->destroy_qp(e->qp);
	if (err)
		goto out_unlock;	/* still held */
	tdelete(e, &dom->rcv, rcv_cmp);
	dom->nrcv--;
	free(e);
out_unlock:
	pthread_mutex_unlock(&dom->lock);
	return err;
}

/*
 * Run fn on this domain handle's handle of qpn, or on one opened for the
 * call when it holds none: OFED let every process of the domain modify
 * and query a receive QP by number, registered or not.
 */
static int on_rcv_qp(struct ibv_xrc_domain *d, uint32_t qpn,
		     int (*fn)(struct ibv_qp *qp, void *arg), void *arg)
{
	struct sv_xrc_domain *dom = to_dom(d);
	struct rcv_qp *e;
	struct ibv_qp *qp;
	int err;

	pthread_mutex_lock(&dom->lock);
	e = rcv_find(dom, qpn);
	if (e) {
		err = fn(e->qp, arg);
		goto out_unlock;
	}
	qp = rcv_open(dom, qpn);
	if (!qp) {
		err = errno;
		goto out_unlock;
	}
	err = fn(qp, arg);
	/*
	 * Nothing refuses it (an XRC target has no multicast attachments,
	 * an OPEN_QP handle no events); were it refused, the handle would
	 * only live on until the process exits.
	 */
	ops_of(d->context)->destroy_qp(qp);
out_unlock:
	pthread_mutex_unlock(&dom->lock);
	return err;
}

struct rcv_modify {
	struct ibv_qp_attr *attr;
	int mask;
};

static int rcv_modify(struct ibv_qp *qp, void *arg)
{
	struct rcv_modify *m = arg;

	return ops_of(qp->context)->modify_qp(qp, m->attr, m->mask);
}

SV_EXPORT int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
				    uint32_t xrc_qp_num,
				    struct ibv_qp_attr *attr, int attr_mask)
{
	struct rcv_modify m = { .attr = attr, .mask = attr_mask };

	if (!xrc_domain || !attr)
		return EINVAL;
	return on_rcv_qp(xrc_domain, xrc_qp_num, rcv_modify, &m);
}

struct rcv_query {
	struct ibv_qp_attr *attr;
	int mask;
	struct ibv_qp_init_attr init;
};

static int rcv_query(struct ibv_qp *qp, void *arg)
{
	struct rcv_query *q = arg;

	return ops_of(qp->context)->query_qp(qp, q->attr, q->mask, &q->init);
}

SV_EXPORT int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
				   uint32_t xrc_qp_num,
				   struct ibv_qp_attr *attr, int attr_mask,
				   struct softverbs_xrc_qp_init_attr *init_attr)
{
	struct rcv_query q = { .attr = attr, .mask = attr_mask };
	int err;

	if (!xrc_domain || !attr)
		return EINVAL;
	err = on_rcv_qp(xrc_domain, xrc_qp_num, rcv_query, &q);
	if (err || !init_attr)
		return err;
	/* a receive QP has no CQ, queue or context of the caller's */
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_type = IBV_QPT_XRC_RECV;
	init_attr->sq_sig_all = q.init.sq_sig_all;
	init_attr->xrc_domain = xrc_domain;
	return 0;
}
