// SPDX-License-Identifier: GPL-2.0
/*
 * What operators see of a device's inner workings through the standard
 * tools: the data path counters (sv_stats.h) and two QP gauges as ib_core
 * port hw stats ("rdma statistic show"), and per-object driver detail in
 * the resource tracker ("rdma resource show qp|cq|mr -dd").
 *
 * The hw stats API (struct rdma_stat_desc, alloc_hw_port_stats,
 * get_hw_stats) is the same in Linux 6.1 and 6.12, so no compat probe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/ib_umem_odp.h>

#include "sv.h"

/* gauges follow the counters in the table */
enum {
	SV_GAUGE_QPS = SV_STAT_NUM,	/* QPs alive now */
	SV_GAUGE_QPS_PEAK,		/* most QPs alive at once */
	SV_STAT_NUM_ALL
};

/* the names user space sees, in enum sv_stat order, then the gauges */
static const struct rdma_stat_desc sv_stat_descs[] = {
	[SV_STAT_TX_PKTS]		= { .name = "tx_packets" },
	[SV_STAT_TX_BYTES]		= { .name = "tx_bytes" },
	[SV_STAT_RX_PKTS]		= { .name = "rx_packets" },
	[SV_STAT_RX_BYTES]		= { .name = "rx_bytes" },
	[SV_STAT_TX_DROPS]		= { .name = "tx_drops" },
	[SV_STAT_TX_V1_PKTS]		= { .name = "tx_roce_v1_packets" },
	[SV_STAT_RX_V1_PKTS]		= { .name = "rx_roce_v1_packets" },
	[SV_STAT_TX_LOCAL_BURSTS]	= { .name = "tx_local_bursts" },
	[SV_STAT_TX_LOCAL_BY_REF]	= { .name = "tx_local_by_ref" },
	[SV_STAT_TX_ACKS]		= { .name = "tx_acks" },
	[SV_STAT_RX_ACKS]		= { .name = "rx_acks" },
	[SV_STAT_TX_NAK_SEQ]		= { .name = "tx_nak_seq_err" },
	[SV_STAT_TX_NAK_RNR]		= { .name = "tx_nak_rnr" },
	[SV_STAT_TX_NAK_INV_REQ]	= { .name = "tx_nak_inv_req" },
	[SV_STAT_TX_NAK_REM_ACC]	= { .name = "tx_nak_rem_access" },
	[SV_STAT_TX_NAK_REM_OP]		= { .name = "tx_nak_rem_op" },
	[SV_STAT_RX_NAK_SEQ]		= { .name = "rx_nak_seq_err" },
	[SV_STAT_RX_NAK_RNR]		= { .name = "rx_nak_rnr" },
	[SV_STAT_RX_NAK_INV_REQ]	= { .name = "rx_nak_inv_req" },
	[SV_STAT_RX_NAK_REM_ACC]	= { .name = "rx_nak_rem_access" },
	[SV_STAT_RX_NAK_REM_OP]		= { .name = "rx_nak_rem_op" },
	[SV_STAT_RETRANS_PKTS]		= { .name = "retrans_packets" },
	[SV_STAT_TAIL_ACK_REQS]		= { .name = "tail_ack_requests" },
	[SV_STAT_RETRY_TIMEOUTS]	= { .name = "retry_timeouts" },
	[SV_STAT_RNR_RETRIES]		= { .name = "rnr_retries" },
	[SV_STAT_RETRY_EXCEEDED]	= { .name = "retry_exceeded" },
	[SV_STAT_RNR_RETRY_EXCEEDED]	= { .name = "rnr_retry_exceeded" },
	[SV_STAT_DUP_REQS]		= { .name = "duplicate_requests" },
	[SV_STAT_OUT_OF_SEQ]		= { .name = "out_of_sequence" },
	[SV_STAT_UC_DROPS]		= { .name = "uc_drops" },
	[SV_STAT_QKEY_DROPS]		= { .name = "qkey_drops" },
	[SV_STAT_LEN_DROPS]		= { .name = "length_drops" },
	[SV_STAT_RX_DROP_ICRC]		= { .name = "rx_drop_icrc" },
	[SV_STAT_RX_DROP_INVALID]	= { .name = "rx_drop_invalid" },
	[SV_STAT_RX_DROP_NO_QP]		= { .name = "rx_drop_no_qp" },
	[SV_STAT_RX_DROP_NOT_PEER]	= { .name = "rx_drop_not_peer" },
	[SV_STAT_RX_DROP_LOOPBACK]	= { .name = "rx_drop_loopback" },
	[SV_STAT_SEND_CQE_ERR]		= { .name = "send_cqe_errors" },
	[SV_STAT_RECV_CQE_ERR]		= { .name = "recv_cqe_errors" },
	[SV_STAT_ODP_MISSES]		= { .name = "odp_misses" },
	[SV_STAT_ODP_FAULTS]		= { .name = "odp_faults" },
	[SV_STAT_ODP_FAULT_PAGES]	= { .name = "odp_fault_pages" },
	[SV_STAT_ODP_FAULT_ERRS]	= { .name = "odp_fault_errors" },
	[SV_STAT_ODP_INVALIDATIONS]	= { .name = "odp_invalidations" },
	[SV_STAT_ODP_DROPS]		= { .name = "odp_drops" },
	[SV_GAUGE_QPS]			= { .name = "qps" },
	[SV_GAUGE_QPS_PEAK]		= { .name = "qps_peak" },
};

static_assert(ARRAY_SIZE(sv_stat_descs) == SV_STAT_NUM_ALL);

unsigned int sv_stats_num(void)
{
	return SV_STAT_NUM_ALL;
}

const char *sv_stats_name(unsigned int i)
{
	return i < SV_STAT_NUM_ALL ? sv_stat_descs[i].name : NULL;
}

/* Sum the per-CPU counters and read the gauges: sv_stats_num() values. */
void sv_stats_read(struct sv_dev *sv, u64 *vals)
{
	int cpu, i;

	memset(vals, 0, SV_STAT_NUM_ALL * sizeof(*vals));
	for_each_possible_cpu(cpu) {
		const struct sv_stats *s = per_cpu_ptr(sv->stats, cpu);

		for (i = 0; i < SV_STAT_NUM; i++)
			vals[i] += READ_ONCE(s->v[i]);
	}
	vals[SV_GAUGE_QPS] = atomic_read(&sv->num_qp);
	vals[SV_GAUGE_QPS_PEAK] = atomic_read(&sv->qp_peak);
}

/* create_qp took a slot of sv->num_qp: raise the peak if it grew */
void sv_stats_qp_created(struct sv_dev *sv)
{
	int now = atomic_read(&sv->num_qp);
	int peak = atomic_read(&sv->qp_peak);

	while (now > peak &&
	       !atomic_try_cmpxchg_relaxed(&sv->qp_peak, &peak, now))
		;
}

struct rdma_hw_stats *sv_stats_alloc_port(struct ib_device *ibdev,
					  u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sv_stat_descs, SV_STAT_NUM_ALL,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sv_stats_get(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		 u32 port_num, int index)
{
	if (stats->num_counters != SV_STAT_NUM_ALL)
		return -EINVAL;
	sv_stats_read(to_sv_dev(ibdev), stats->value);
	return SV_STAT_NUM_ALL;
}

/* --- resource tracker detail ------------------------------------------- */

/*
 * Driver values travel in one RDMA_NLDEV_ATTR_DRIVER nest per object, which
 * "rdma -dd" prints as name/value pairs.
 */
static struct nlattr *sv_res_start(struct sk_buff *msg)
{
	return nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
}

static int sv_res_end(struct sk_buff *msg, struct nlattr *nest, int err)
{
	if (err) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static u32 sv_wq_fill(struct sv_wq *wq)
{
	return wq->queue ? sv_queue_count(wq->queue) : 0;
}

/*
 * "rdma -dd resource show qp".  The values are read without the QP's
 * locks (req.lock, resp.lock): a snapshot, like the counters, and a
 * netlink dump must not wait behind the data path.
 */
int sv_stats_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct nlattr *nest = sv_res_start(msg);
	bool conn = sv_qp_connected(qp);
	bool rc = sv_qp_reliable(qp);

	if (!nest)
		return -EMSGSIZE;
	return sv_res_end(msg, nest,
		rdma_nl_put_driver_u32(msg, "sq_psn", READ_ONCE(qp->req.psn)) ||
		rdma_nl_put_driver_u32(msg, "rq_psn", READ_ONCE(qp->resp.psn)) ||
		rdma_nl_put_driver_u32(msg, "in_flight",
				       READ_ONCE(qp->req.in_flight)) ||
		rdma_nl_put_driver_u32(msg, "sq_used", sv_wq_fill(&qp->sq)) ||
		rdma_nl_put_driver_u32(msg, "sq_size", qp->sq.max_wr) ||
		rdma_nl_put_driver_u32(msg, "rq_used", sv_wq_fill(&qp->rq)) ||
		rdma_nl_put_driver_u32(msg, "rq_size", qp->rq.max_wr) ||
		/* requester reliability (RC): sv_req.c, sv_comp.c */
		(rc && (rdma_nl_put_driver_u32(msg, "unacked_psn",
					       READ_ONCE(qp->comp.psn)) ||
			rdma_nl_put_driver_u32(msg, "rd_atomic",
					       READ_ONCE(qp->req.rd_atomic)) ||
			rdma_nl_put_driver_u32(msg, "retry_left",
					       READ_ONCE(qp->req.retry_left)) ||
			rdma_nl_put_driver_u32(msg, "rnr_left",
					       READ_ONCE(qp->req.rnr_left)) ||
			rdma_nl_put_driver_u32(msg, "rnr_wait",
					       READ_ONCE(qp->req.rnr_wait)) ||
			rdma_nl_put_driver_u32(msg, "retrying",
					       READ_ONCE(qp->req.retrying)))) ||
		/* responder (RC, UC): sv_resp.c */
		(conn && (rdma_nl_put_driver_u32(msg, "msn",
						 READ_ONCE(qp->resp.msn)) ||
			  rdma_nl_put_driver_u32(msg, "in_msg",
						 READ_ONCE(qp->resp.in_msg)) ||
			  rdma_nl_put_driver_u32(msg, "resp_dead",
						 READ_ONCE(qp->resp.dead)))) ||
		(rc && (rdma_nl_put_driver_u32(msg, "resp_res_queued",
					       READ_ONCE(qp->resp.res_head) -
					       READ_ONCE(qp->resp.res_serve)) ||
			rdma_nl_put_driver_u32(msg, "rnr_naks_sent",
					       READ_ONCE(qp->resp.rnr_naks)) ||
			rdma_nl_put_driver_u32(msg, "seq_naks_sent",
					       READ_ONCE(qp->resp.seq_naks)) ||
			rdma_nl_put_driver_u32(msg, "dup_reqs",
					       READ_ONCE(qp->resp.dup_reqs)))));
}

int sv_stats_fill_res_cq(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sv_cq *cq = to_sv_cq(ibcq);
	struct nlattr *nest;
	unsigned long flags;
	u32 used, size;
	bool overrun;

	/* the lock keeps resize_cq from swapping the queue under us */
	spin_lock_irqsave(&cq->lock, flags);
	used = sv_queue_count(cq->queue);
	size = sv_queue_capacity(cq->queue);
	overrun = cq->overrun;
	spin_unlock_irqrestore(&cq->lock, flags);

	nest = sv_res_start(msg);
	if (!nest)
		return -EMSGSIZE;
	return sv_res_end(msg, nest,
		rdma_nl_put_driver_u32(msg, "cq_used", used) ||
		rdma_nl_put_driver_u32(msg, "cq_size", size) ||
		rdma_nl_put_driver_u32(msg, "overrun", overrun));
}

static const char *const sv_mr_kind_names[] = {
	[SV_MR_DMA]	= "dma",
	[SV_MR_USER]	= "user",
	[SV_MR_FAST]	= "fast_reg",
	[SV_MR_ODP]	= "odp",
	[SV_MR_DMABUF]	= "dmabuf",
};

int sv_stats_fill_res_mr(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct sv_mr *mr = container_of(ibmr, struct sv_mr, ibmr);
	struct nlattr *nest;
	u64 pinned = 0;
	u32 pages = 0;

	switch (mr->kind) {
	case SV_MR_USER:
		/* immutable after creation */
		pages = mr->npages;
		pinned = (u64)mr->npages << PAGE_SHIFT;
		break;
	case SV_MR_FAST:
		/* capacity of the page list; nothing is pinned by us */
		pages = mr->max_pages;
		break;
	case SV_MR_ODP:
		/* mapped now, never pinned: a snapshot */
		if (mr->odp_implicit) {
			struct sv_odp_chunk *c;
			unsigned long idx;

			/* chunks go only with the MR, which restrack holds */
			xa_for_each(&mr->odp_chunks, idx, c)
				pages += READ_ONCE(c->odp->npages);
		} else {
			pages = READ_ONCE(mr->umem_odp->npages);
		}
		break;
	case SV_MR_DMABUF:
		/* the exporter's pages, held by it */
		pages = DIV_ROUND_UP(mr->length, PAGE_SIZE);
		break;
	case SV_MR_DMA:
		break;
	}
	nest = sv_res_start(msg);
	if (!nest)
		return -EMSGSIZE;
	return sv_res_end(msg, nest,
		rdma_nl_put_driver_string(msg, "kind",
					  sv_mr_kind_names[mr->kind]) ||
		rdma_nl_put_driver_u32(msg, "pages", pages) ||
		rdma_nl_put_driver_u64(msg, "pinned_bytes", pinned));
}
