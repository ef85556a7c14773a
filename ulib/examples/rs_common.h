/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the C ports of rust-ibverbs' examples (rs_*.c) and the ex-verbs
 * programs share: the calls rust-ibverbs 0.9 makes underneath its types.
 * Its Context::open, CompletionQueueBuilder::build (ibv_create_cq_ex with
 * BYTE_LEN|IMM|QP_NUM|SRC_QP), QueuePairBuilder::build (ibv_create_qp_ex
 * with the send_ops_flags its transport allows), the GID choice of its
 * examples (ibv_query_gid_table: port 1's RoCE v2 IPv4-mapped entry, else
 * the port's first), PreparedQueuePair::handshake (INIT/RTR/RTS) and
 * CompletionQueue::poll (start_poll/next_poll/end_poll).
 *
 * Exit status of every program: 0 passed, 1 failed, 4 skipped.
 */
#ifndef RS_COMMON_H
#define RS_COMMON_H

#include "common.h"

/* NULL from a constructor: EOPNOTSUPP is a skip, anything else a failure. */
static inline void *need(void *obj, const char *what)
{
	if (obj)
		return obj;
	die(errno == EOPNOTSUPP ? EXIT_SKIP : 1, "%s: %s", what,
	    strerror(errno));
}

static inline void need_ok(int err, const char *what)
{
	if (err)
		die(1, "%s: %s", what, strerror(err));
}

/* The named device, or the first one (rust: devices().iter().next()). */
static inline struct ibv_context *rs_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die(EXIT_SKIP, "no device list: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i])
		die(EXIT_SKIP, "no rdma device available");
	ctx = need(ibv_open_device(list[i]), "ibv_open_device");
	ibv_free_device_list(list);
	return ctx;
}

static inline struct ibv_cq_ex *rs_create_cq(struct ibv_context *ctx, int cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = (uint32_t)cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
	};

	return need(ibv_create_cq_ex(ctx, &a), "ibv_create_cq_ex");
}

/* Port 1: the RoCE v2 entry holding an IPv4 address, else the first. */
static inline int rs_pick_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	struct ibv_gid_entry e[64];
	ssize_t n, i, first = -1;

	n = ibv_query_gid_table(ctx, e, 64, 0);
	CHECK(n > 0, "ibv_query_gid_table: %zd", n);
	for (i = 0; i < n; i++) {
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		if (e[i].port_num != 1)
			continue;
		if (first < 0)
			first = i;
		if (e[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e[i].gid.raw, v4, sizeof(v4))) {
			first = i;
			break;
		}
	}
	CHECK(first >= 0, "no GID available");
	*gid = e[first].gid;
	return (int)e[first].gid_index;
}

/* The send_ops_flags rust-ibverbs' QueuePairBuilder::build asks for. */
static inline uint64_t rs_send_ops(enum ibv_qp_type type)
{
	uint64_t f = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (type == IBV_QPT_RC || type == IBV_QPT_UC)
		f |= IBV_QP_EX_WITH_RDMA_WRITE |
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	if (type == IBV_QPT_RC)
		f |= IBV_QP_EX_WITH_RDMA_READ |
		     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	return f;
}

static inline struct ibv_qp *rs_create_qp(struct ibv_context *ctx,
					  struct ibv_pd *pd,
					  struct ibv_cq_ex *scq,
					  struct ibv_cq_ex *rcq,
					  enum ibv_qp_type type, uint64_t ops,
					  uint32_t max_send_wr)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = ibv_cq_ex_to_cq(scq),
		.recv_cq = ibv_cq_ex_to_cq(rcq),
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = 16,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};

	return need(ibv_create_qp_ex(ctx, &a), "ibv_create_qp_ex");
}

/* INIT -> RTR -> RTS along @p, or die naming the transition refused */
static inline void rs_connect(struct ibv_qp *qp, const struct ex_path *p)
{
	const char *to;
	int err = ex_connect(qp, p, &to);

	need_ok(err, to);
}

/*
 * rust: PreparedQueuePair::handshake(endpoint) for an RC or UC QP;
 * extra_access adds to the remote access rights (e.g. FLUSH's).
 */
static inline void rs_handshake(struct ibv_qp *qp, int gid_index,
				const union ibv_gid *dgid, uint32_t dest_qpn,
				int extra_access)
{
	struct ex_path p = ex_path(dgid, gid_index, dest_qpn,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC | extra_access,
				   IBV_MTU_1024);

	rs_connect(qp, &p);
}

/* One completion as rust's WorkCompletion sees it. */
struct rs_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	unsigned int wc_flags;
	__be32 imm;
	uint32_t qp_num;
};

/*
 * Poll up to max completions (at least one) with the ex iterator, as
 * rust's CompletionQueue::poll + Completions::next; dies on timeout.
 */
static inline int rs_poll(struct ibv_cq_ex *cq, struct rs_wc *wc, int max)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	long long deadline = now_ms() + TIMEOUT_MS;
	int n = 0, err;

	while ((err = ibv_start_poll(cq, &pa)) == ENOENT)
		CHECK(now_ms() < deadline, "no completion in %d ms",
		      TIMEOUT_MS);
	CHECK(!err, "start_poll: %s", strerror(err));
	do {
		wc[n].wr_id = cq->wr_id;
		wc[n].status = cq->status;
		wc[n].opcode = ibv_wc_read_opcode(cq);
		wc[n].byte_len = ibv_wc_read_byte_len(cq);
		wc[n].wc_flags = ibv_wc_read_wc_flags(cq);
		wc[n].imm = wc[n].wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV) ?
			    ibv_wc_read_imm_data(cq) : 0;
		wc[n].qp_num = ibv_wc_read_qp_num(cq);
		n++;
	} while (n < max && ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
	return n;
}

#endif /* RS_COMMON_H */
