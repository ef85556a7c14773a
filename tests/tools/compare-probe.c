// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compare-probe: try, through whatever libibverbs it is linked with and
 * run against, what a verbs device can do, for scripts/compare-rxe.sh.
 *
 *   compare-probe DEV GID_INDEX
 *
 * Prints one "feature=result" line per attempt; result is "ok", "no"
 * (a capability bit is clear), "fail:ERRNO" (the verb returned an error),
 * "wc:STATUS" (the work request completed in error), "timeout" (no
 * completion within 5 s) or "skip:WHY" (an earlier step it needs failed).
 * The data-path checks use one RC QP connected to itself through the
 * RoCE v2 GID at GID_INDEX (a device looped back to itself, as Soft-RoCE
 * and softverbs both allow).  Exit 0 unless the device cannot be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* ib_user_verbs.h of kernels 6.2+; rdma-core 44's copy predates them */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

#define REGION		(1UL << 20)
#define XFER		(256UL << 10)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static void say(const char *feature, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const char *feature, const char *fmt, ...)
{
	va_list ap;

	printf("%s=", feature);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* a verb's outcome: 0 or a pointer = ok, else its errno */
static void say_rc(const char *feature, int err)
{
	if (err)
		say(feature, "fail:%s", strerrorname_np(err) ?: "?");
	else
		say(feature, "ok");
}

static void say_cap(const char *feature, uint64_t set)
{
	say(feature, set ? "yes" : "no");
}

/* memory that no one has touched yet: its pages are not there */
static void *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* "ok", or where the LEN bytes at GOT first differ from WANT, and how many */
static const char *check_data(const char *r, const char *got,
			      const char *want, size_t len)
{
	static char buf[64];
	size_t i, first = len, wrong = 0;

	if (strcmp(r, "ok"))
		return r;
	for (i = 0; i < len; i++) {
		if (got[i] == want[i])
			continue;
		if (!wrong++)
			first = i;
	}
	if (!wrong)
		return "ok";
	snprintf(buf, sizeof(buf), "data-differs@%zu:0x%02x,%zu-of-%zu-wrong",
		 first, (unsigned char)got[first], wrong, len);
	return buf;
}

/* wait for one completion; its status text, or "timeout" */
static const char *complete(void)
{
	static char buf[64];
	struct timespec ts;
	struct ibv_wc wc;
	time_t end;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + 5;
	do {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return "poll-failed";
		if (n == 1) {
			if (wc.status == IBV_WC_SUCCESS)
				return "ok";
			snprintf(buf, sizeof(buf), "wc:%s",
				 ibv_wc_status_str(wc.status));
			return buf;
		}
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec < end);
	return "timeout";
}

/* post through the extended QP; the completion's text */
static const char *post_done(struct ibv_qp_ex *qx)
{
	int err = ibv_wr_complete(qx);
	static char buf[64];

	if (err) {
		snprintf(buf, sizeof(buf), "fail:%s",
			 strerrorname_np(err) ?: "?");
		return buf;
	}
	return complete();
}

static int connect_self(struct ibv_qp *qp, int gid_index)
{
	struct ibv_qp_attr a;
	union ibv_gid gid;
	int err;

	if (ibv_query_gid(ctx, 1, gid_index, &gid))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_qp *create_qp(uint64_t ops, int *err)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 8 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &ia);

	*err = qp ? 0 : errno;
	return qp;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax = {};
	struct ibv_mr *mr = NULL, *odp = NULL, *imp = NULL;
	struct ibv_qp *qp = NULL, *qpa = NULL;
	struct ibv_qp_ex *qx = NULL;
	struct ibv_device **list;
	struct ibv_mw *mw1, *mw2;
	char *src, *dst, *obuf, *ibuf;
	uint64_t caps;
	int gid_index, err, i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	gid_index = atoi(argv[2]);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "%s: no PD or CQ\n", argv[0]);
		return 1;
	}

	err = ibv_query_device_ex(ctx, NULL, &ax);
	if (err) {
		say_rc("query_device_ex", err);
		return 1;
	}
	caps = ax.device_cap_flags_ex;
	say("cap_flags_ex", "0x%llx", (unsigned long long)caps);
	say_cap("cap_mem_window", caps & IBV_DEVICE_MEM_WINDOW);
	say_cap("cap_mw_type_2a", caps & IBV_DEVICE_MEM_WINDOW_TYPE_2A);
	say_cap("cap_mw_type_2b", caps & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	say_cap("cap_xrc", caps & IBV_DEVICE_XRC);
	say_cap("cap_flush_global", caps & CAP_FLUSH_GLOBAL);
	say_cap("cap_flush_persistent", caps & CAP_FLUSH_PERSISTENT);
	say_cap("cap_atomic_write", caps & CAP_ATOMIC_WRITE);

	/* ordinary memory: the source of writes, the target of windows */
	src = fresh(REGION);
	dst = fresh(REGION);
	memset(src, 0x5a, REGION);
	memset(dst, 0, REGION);
	mr = ibv_reg_mr(pd, src, REGION,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			IBV_ACCESS_MW_BIND);
	say_rc("mr", mr ? 0 : errno);
	struct ibv_mr *dmr = ibv_reg_mr(pd, dst, REGION,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_ATOMIC |
					IBV_ACCESS_MW_BIND);
	if (!mr || !dmr)
		return 1;

	/* ODP: an explicit MR over pages not yet faulted in, an implicit one */
	obuf = fresh(REGION);
	odp = ibv_reg_mr(pd, obuf, REGION, IBV_ACCESS_ON_DEMAND |
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ);
	say_rc("odp_explicit_reg", odp ? 0 : errno);
	imp = ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND |
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_READ);
	say_rc("odp_implicit_reg", imp ? 0 : errno);
	if (odp) {
		/* the first half only: the data test below writes the second */
		struct ibv_sge sge = { .addr = (uintptr_t)obuf,
				       .length = REGION / 2, .lkey = odp->lkey };

		say_rc("odp_prefetch",
		       ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
	} else {
		say("odp_prefetch", "skip:no-odp-mr");
	}
	ibuf = fresh(REGION);
	if (imp) {
		struct ibv_sge sge = { .addr = (uintptr_t)ibuf,
				       .length = REGION / 2, .lkey = imp->lkey };

		say_rc("odp_implicit_prefetch",
		       ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
	} else {
		say("odp_implicit_prefetch", "skip:no-implicit-mr");
	}

	/* XRC: a domain and an XRC SRQ in it */
	{
		struct ibv_xrcd_init_attr xa = {
			.comp_mask = IBV_XRCD_INIT_ATTR_FD |
				     IBV_XRCD_INIT_ATTR_OFLAGS,
			.fd = -1,
			.oflags = O_CREAT,
		};
		struct ibv_xrcd *xrcd = ibv_open_xrcd(ctx, &xa);

		say_rc("xrcd", xrcd ? 0 : errno);
		if (xrcd) {
			struct ibv_srq_init_attr_ex sa = {
				.attr = { .max_wr = 16, .max_sge = 1 },
				.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
					     IBV_SRQ_INIT_ATTR_PD |
					     IBV_SRQ_INIT_ATTR_CQ |
					     IBV_SRQ_INIT_ATTR_XRCD,
				.srq_type = IBV_SRQT_XRC,
				.pd = pd,
				.xrcd = xrcd,
				.cq = cq,
			};
			struct ibv_srq *srq = ibv_create_srq_ex(ctx, &sa);

			say_rc("xrc_srq", srq ? 0 : errno);
			if (srq)
				ibv_destroy_srq(srq);
			ibv_close_xrcd(xrcd);
		} else {
			say("xrc_srq", "skip:no-xrcd");
		}
	}

	/* memory windows: allocation */
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	say_rc("mw1_alloc", mw1 ? 0 : errno);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	say_rc("mw2_alloc", mw2 ? 0 : errno);

	/* the data path: one RC QP looped back to itself */
	qp = create_qp(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_BIND_MW |
		       IBV_QP_EX_WITH_LOCAL_INV, &err);
	if (qp)
		err = connect_self(qp, gid_index);
	say_rc("rc_self_qp", err);
	if (err) {
		for (i = 0; i < 7; i++)
			say((const char *[]){ "rc_write", "odp_explicit_write",
					      "odp_explicit_write_touched",
					      "odp_implicit_write", "mw1_bind_write",
					      "mw2_bind_write", "atomic_write" }[i],
			    "skip:no-qp");
		return 0;
	}
	qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, dmr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, XFER);
	say("rc_write", "%s", post_done(qx));

	if (odp) {
		/* the second half: pages that were never touched nor prefetched */
		char *t = obuf + REGION / 2;
		const char *r;

		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, odp->rkey, (uintptr_t)t);
		ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, XFER);
		r = check_data(post_done(qx), t, src, XFER);
		say("odp_explicit_write", "%s", r);

		/* the same into pages the process has written already */
		t = obuf;
		memset(t, 0, XFER);
		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, odp->rkey, (uintptr_t)t);
		ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, XFER);
		r = check_data(post_done(qx), t, src, XFER);
		say("odp_explicit_write_touched", "%s", r);
	} else {
		say("odp_explicit_write", "skip:no-odp-mr");
		say("odp_explicit_write_touched", "skip:no-odp-mr");
	}
	if (imp) {
		char *t = ibuf + REGION / 2;
		const char *r;

		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, imp->rkey, (uintptr_t)t);
		ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, XFER);
		r = check_data(post_done(qx), t, src, XFER);
		say("odp_implicit_write", "%s", r);
	} else {
		say("odp_implicit_write", "skip:no-implicit-mr");
	}

	/* type 1: ibv_bind_mw, then an RDMA WRITE through the window */
	if (mw1) {
		struct ibv_mw_bind b = {
			.wr_id = 1,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = { .mr = dmr, .addr = (uintptr_t)dst,
				       .length = 4096,
				       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
		};
		const char *r;

		err = ibv_bind_mw(qp, mw1, &b);
		r = err ? "fail" : complete();
		if (err) {
			say_rc("mw1_bind_write", err);
		} else if (strcmp(r, "ok")) {
			say("mw1_bind_write", "bind-%s", r);
		} else {
			ibv_wr_start(qx);
			qx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_rdma_write(qx, mw1->rkey, (uintptr_t)dst);
			ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, 4096);
			say("mw1_bind_write", "%s", post_done(qx));
		}
	} else {
		say("mw1_bind_write", "skip:no-mw");
	}
	/* type 2: a BIND_MW work request, then a write through it */
	if (mw2) {
		struct ibv_mw_bind_info bi = {
			.mr = dmr, .addr = (uintptr_t)dst + 8192,
			.length = 4096,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};
		uint32_t rkey = ibv_inc_rkey(mw2->rkey);
		const char *r;

		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qx, mw2, rkey, &bi);
		r = post_done(qx);
		if (strcmp(r, "ok")) {
			say("mw2_bind_write", "bind-%s", r);
		} else {
			ibv_wr_start(qx);
			qx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_rdma_write(qx, rkey, (uintptr_t)dst + 8192);
			ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)src, 4096);
			say("mw2_bind_write", "%s", post_done(qx));
		}
	} else {
		say("mw2_bind_write", "skip:no-mw");
	}

	/* IBTA 1.5 ATOMIC WRITE: a QP that asks for it, 8 bytes placed */
	qpa = create_qp(IBV_QP_EX_WITH_ATOMIC_WRITE, &err);
	if (qpa)
		err = connect_self(qpa, gid_index);
	if (err) {
		say("atomic_write", "qp-fail:%s", strerrorname_np(err) ?: "?");
	} else {
		uint64_t v = 0x0123456789abcdefULL;
		const char *r;

		qx = ibv_qp_to_qp_ex(qpa);
		ibv_wr_start(qx);
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qx, dmr->rkey, (uintptr_t)dst + 16384, &v);
		r = check_data(post_done(qx), dst + 16384, (char *)&v, 8);
		say("atomic_write", "%s", r);
	}
	return 0;
}
