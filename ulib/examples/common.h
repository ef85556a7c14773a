/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the example programs share: failing and skipping (die, CHECK),
 * the clock, opening a device by name, one completion, and the attributes
 * that take a connected QP through INIT, RTR and RTS.  Header only: each
 * example stays one .c file built against the distro's verbs.h.
 *
 * Exit status of every program: 0 passed, 1 failed, 4 skipped.
 */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define EXIT_SKIP	4
#ifndef TIMEOUT_MS
#define TIMEOUT_MS	10000
#endif

/* what the program is doing, for "FAIL: [step] ..."; NULL: "FAIL: ..." */
static const char *step;

static inline void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static inline void die(int code, const char *fmt, ...)
{
	va_list ap;

	if (code == EXIT_SKIP)
		fputs("SKIP: ", stderr);
	else if (step)
		fprintf(stderr, "FAIL: [%s] ", step);
	else
		fputs("FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

#define CHECK(cond, ...) do { if (!(cond)) die(1, __VA_ARGS__); } while (0)

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Open the device called @name; a missing one is a skip.  With @listp the
 * device list is left to the caller to free (ctx->device points into it),
 * else it is freed here.
 */
static inline struct ibv_context *ex_open(const char *name,
					  struct ibv_device ***listp)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	int i;

	CHECK(list, "ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i])
		die(EXIT_SKIP, "no device %s", name);
	ctx = ibv_open_device(list[i]);
	CHECK(ctx, "open %s: %s", name, strerror(errno));
	if (listp)
		*listp = list;
	else
		ibv_free_device_list(list);
	return ctx;
}

/* The next completion of @cq, whatever its status; TIMEOUT_MS at most. */
static inline struct ibv_wc ex_poll_one(struct ibv_cq *cq, const char *what)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		CHECK(now_ms() < deadline, "%s: no completion", what);
	CHECK(n == 1, "%s: poll_cq %d", what, n);
	return wc;
}

/* The far end of a connected QP and the values of its transitions. */
struct ex_path {
	uint8_t port;
	unsigned int access;		/* INIT: remote access rights */
	enum ibv_mtu mtu;
	const union ibv_gid *dgid;
	int gid_index;
	uint32_t dest_qpn;
	uint32_t psn;			/* rq_psn and sq_psn */
	uint8_t max_dest_rd_atomic, min_rnr_timer;
	uint8_t timeout, retry_cnt, rnr_retry, max_rd_atomic;
};

/*
 * The path most examples take on port 1 to @dest_qpn at @dgid: PSN 0,
 * four RDMA READs and atomics in flight each way, RNR NAK timer 1 (0.01
 * ms), local ACK timeout 14 (67 ms), seven retries of each kind.
 */
static inline struct ex_path ex_path(const union ibv_gid *dgid, int gid_index,
				     uint32_t dest_qpn, unsigned int access,
				     enum ibv_mtu mtu)
{
	return (struct ex_path){
		.port = 1,
		.access = access,
		.mtu = mtu,
		.dgid = dgid,
		.gid_index = gid_index,
		.dest_qpn = dest_qpn,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};
}

/* RESET -> INIT: the attributes, and the mask to modify with */
static inline int ex_init_attr(struct ibv_qp_attr *a, const struct ex_path *p)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_INIT;
	a->port_num = p->port;
	a->qp_access_flags = p->access;
	return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS;
}

/*
 * INIT -> RTR: the responder's limits are required of RC and XRC receive
 * QPs and refused for UC and XRC send QPs (ib_modify_qp_is_ok()).
 */
static inline int ex_rtr_attr(struct ibv_qp_attr *a, enum ibv_qp_type type,
			      const struct ex_path *p)
{
	bool responder = type == IBV_QPT_RC || type == IBV_QPT_XRC_RECV;

	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = p->mtu;
	a->dest_qp_num = p->dest_qpn;
	a->rq_psn = p->psn;
	a->max_dest_rd_atomic = p->max_dest_rd_atomic;
	a->min_rnr_timer = p->min_rnr_timer;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = *p->dgid;
	a->ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = p->port;
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | (responder ? IBV_QP_MAX_DEST_RD_ATOMIC |
					    IBV_QP_MIN_RNR_TIMER : 0);
}

/*
 * RTR -> RTS: RC and XRC send QPs retry, so they take the ACK timeout,
 * the retry counts and the initiator depth; an XRC receive QP takes the
 * timeout alone, a UC QP none of them.
 */
static inline int ex_rts_attr(struct ibv_qp_attr *a, enum ibv_qp_type type,
			      const struct ex_path *p)
{
	bool requester = type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND;

	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = p->psn;
	a->timeout = p->timeout;
	a->retry_cnt = p->retry_cnt;
	a->rnr_retry = p->rnr_retry;
	a->max_rd_atomic = p->max_rd_atomic;
	if (requester)
		return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC;
	if (type == IBV_QPT_XRC_RECV)
		return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT;
	return IBV_QP_STATE | IBV_QP_SQ_PSN;
}

/*
 * RESET -> INIT -> RTR -> RTS along @p.  Return: 0, or the error of the
 * first transition refused, which *@to names ("to INIT", "to RTR",
 * "to RTS").
 */
static inline int ex_connect(struct ibv_qp *qp, const struct ex_path *p,
			     const char **to)
{
	struct ibv_qp_attr a;
	int err;

	*to = "to INIT";
	err = ibv_modify_qp(qp, &a, ex_init_attr(&a, p));
	if (err)
		return err;
	*to = "to RTR";
	err = ibv_modify_qp(qp, &a, ex_rtr_attr(&a, qp->qp_type, p));
	if (err)
		return err;
	*to = "to RTS";
	return ibv_modify_qp(qp, &a, ex_rts_attr(&a, qp->qp_type, p));
}

#endif /* EX_COMMON_H */
