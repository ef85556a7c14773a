/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device counters: what the data path counts, per CPU so that counting
 * costs one unlocked increment in the hot paths.  Readers (the hw_stats
 * ops behind "rdma statistic show", and svctl) sum over all CPUs; a sum
 * read while packets flow is a snapshot, which is all counters promise.
 *
 * Every counter here is monotonic.  Gauges (live QPs, their peak) are
 * computed from the object counts when read.  The names user space sees
 * are in one table next to the hw_stats ops (sv_stats.c), in this order.
 */
#ifndef SV_STATS_H
#define SV_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum sv_stat {
	/* every RoCE packet handed to / taken from the network */
	SV_STAT_TX_PKTS,
	SV_STAT_TX_BYTES,		/* BTH through ICRC */
	SV_STAT_RX_PKTS,		/* accepted: valid, for a live QP */
	SV_STAT_RX_BYTES,
	SV_STAT_TX_DROPS,		/* no route/neighbour, xmit failure */
	SV_STAT_TX_V1_PKTS,		/* of tx_packets: RoCE v1 (Annex A16) */
	SV_STAT_RX_V1_PKTS,		/* of rx_packets: RoCE v1 */
	/* of what tx_packets counts: local bursts, each as its packets */
	SV_STAT_TX_LOCAL_BURSTS,
	/* local frames whose payload stayed in the sender's MR */
	SV_STAT_TX_LOCAL_BY_REF,

	/* RC acknowledgements (IBTA 9.7.5) */
	SV_STAT_TX_ACKS,		/* positive ACKs sent by the responder */
	SV_STAT_RX_ACKS,		/* positive ACKs seen by the completer */
	SV_STAT_TX_NAK_SEQ,		/* NAKs sent, by kind */
	SV_STAT_TX_NAK_RNR,
	SV_STAT_TX_NAK_INV_REQ,
	SV_STAT_TX_NAK_REM_ACC,
	SV_STAT_TX_NAK_REM_OP,
	SV_STAT_RX_NAK_SEQ,		/* NAKs received, by kind */
	SV_STAT_RX_NAK_RNR,
	SV_STAT_RX_NAK_INV_REQ,
	SV_STAT_RX_NAK_REM_ACC,
	SV_STAT_RX_NAK_REM_OP,

	/* requester reliability */
	SV_STAT_RETRANS_PKTS,		/* packets sent again */
	SV_STAT_TAIL_ACK_REQS,		/* newest packet sent again to ask for its ACK */
	SV_STAT_RETRY_TIMEOUTS,		/* local ACK timeouts (retry_cnt) */
	SV_STAT_RNR_RETRIES,		/* RNR NAK waits (rnr_retry) */
	SV_STAT_RETRY_EXCEEDED,		/* IB_WC_RETRY_EXC_ERR */
	SV_STAT_RNR_RETRY_EXCEEDED,	/* IB_WC_RNR_RETRY_EXC_ERR */

	/* responder */
	SV_STAT_DUP_REQS,		/* duplicate requests (re-served) */
	SV_STAT_OUT_OF_SEQ,		/* requests ahead of the expected PSN */
	SV_STAT_UC_DROPS,		/* UC messages dropped on a PSN gap */
	SV_STAT_QKEY_DROPS,		/* UD packets with a wrong Q_Key */
	SV_STAT_LEN_DROPS,		/* UD/UC messages too long to receive */

	/* receive drops before any QP processing */
	SV_STAT_RX_DROP_ICRC,		/* ICRC mismatch */
	SV_STAT_RX_DROP_INVALID,	/* sv_hdr_parse() refused it */
	SV_STAT_RX_DROP_NO_QP,		/* unknown QPN / QP not receiving */
	SV_STAT_RX_DROP_NOT_PEER,	/* RC/UC: not from the QP's peer */
	SV_STAT_RX_DROP_LOOPBACK,	/* came in over lo: not softverbs' */

	/* completions with an error status (flushes excluded) */
	SV_STAT_SEND_CQE_ERR,
	SV_STAT_RECV_CQE_ERR,

	/* on-demand paging (sv_odp.c) */
	SV_STAT_ODP_MISSES,		/* accesses that found a page absent */
	SV_STAT_ODP_FAULTS,		/* page faults resolved */
	SV_STAT_ODP_FAULT_PAGES,	/* pages mapped after them, of their ranges */
	SV_STAT_ODP_FAULT_ERRS,		/* faults that failed */
	SV_STAT_ODP_INVALIDATIONS,	/* invalidate callbacks */
	SV_STAT_ODP_DROPS,		/* UC/UD messages dropped on a miss */

	SV_STAT_NUM
};

struct sv_stats {
	u64	v[SV_STAT_NUM];
};

/* @sv is a struct sv_dev *; any context */
#define sv_stat_inc(sv, idx)	this_cpu_inc((sv)->stats->v[idx])
#define sv_stat_add(sv, idx, n)	this_cpu_add((sv)->stats->v[idx], (n))

#endif /* SV_STATS_H */
