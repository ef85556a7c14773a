/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softverbs device limits and constants, in one place.  Every limit here is
 * enforced where objects are created or modified; query_device reports
 * exactly these values.
 */
#ifndef SV_PARAM_H
#define SV_PARAM_H

#include <rdma/ib_verbs.h>


/* ibv_devinfo vendor_id: no IEEE OUI of our own, so the "unassigned" one */
#define SV_VENDOR_ID		0xffffff
#define SV_VENDOR_PART_ID	0x5356		/* "SV" */
#define SV_HW_VERSION		1

enum sv_port_params {
	SV_PORT_NUM		= 1,		/* one port per device */
	SV_PORT_GID_TBL_LEN	= 1024,		/* RoCEv2 GIDs of the addresses */
	SV_PORT_PKEY_TBL_LEN	= 1,		/* RoCE: default P_Key only */
};

/*
 * Largest message: 2^31 bytes (IBTA 9.4.1, the RETH DMA length is 32
 * bits, and a message of 2^31 bytes at the 256-byte MTU is 2^23 packets,
 * half the PSN space, so no message wraps it).  An unsigned constant: as
 * an int enum 1 << 31 is INT_MIN, which a u64 length compares above.
 */
#define SV_PORT_MAX_MSG_SZ	(1U << 31)

/* object counts per device */
enum sv_dev_params {
	SV_MAX_PD		= 1 << 16,
	SV_MAX_XRCD		= 1 << 16,
};

/*
 * Completion queues (sv_cq.c).  A ring of 2^n slots holds 2^n - 1 entries
 * (one slot stays free), so SV_MAX_CQE is of that form and every accepted
 * size reports a capacity no larger than it.  The bound also caps what one
 * CQ costs: 2^18 slots of 64 bytes (user CQ) or 128 bytes (kernel CQ), and
 * what resize_cq may copy with the CQ lock held.
 */
enum sv_cq_params {
	SV_MAX_CQ		= 1 << 16,
	SV_MAX_CQE		= (1 << 18) - 1,
};

/*
 * Shared receive queues (sv_srq.c).  A WQE slot is struct sv_recv_wqe plus
 * max_sge struct sv_sge, rounded up to a power of two: 32 SGEs take
 * 1 KiB slots, so the largest SRQ ring is 32 MiB.
 */
enum sv_srq_params {
	SV_MAX_SRQ		= 1 << 16,
	/* SRQ numbers: 24 bits on the wire (XRCETH), 0 never used */
	SV_SRQ_NUM_MAX		= (1 << 24) - 1,
	SV_MAX_SRQ_WR		= (1 << 15) - 1,
	SV_MAX_SRQ_SGE		= 32,
};

/*
 * Queue pairs (sv_qp.c).  An SQ slot is struct sv_send_wqe plus the larger
 * of max_send_sge SGEs and max_inline_data bytes (they share the room), an
 * RQ slot struct sv_recv_wqe plus max_recv_sge SGEs, both rounded up to a
 * power of two: the largest SQ ring (32 SGEs, 1 KiB slots) is 32 MiB.
 * ib_device_attr has no inline limit; create_qp enforces
 * SV_MAX_INLINE_DATA and reports what a QP really takes in its caps.
 * RDMA Read/Atomic responder resources belong to each QP (no device-wide
 * pool), so the device total is what all QPs may hold at once.
 */
enum sv_qp_params {
	SV_MAX_QP		= 1 << 16,
	SV_MAX_QP_WR		= (1 << 15) - 1,
	SV_MAX_QP_SGE		= 32,
	SV_MAX_SGE_RD		= SV_MAX_QP_SGE,
	SV_MAX_INLINE_DATA	= SV_MAX_QP_SGE * 16,	/* the SGEs' room */
	SV_MAX_QP_RD_ATOM	= 128,	/* responder: max_dest_rd_atomic */
	SV_MAX_QP_INIT_RD_ATOM	= 128,	/* requester: max_rd_atomic */
	SV_MAX_RES_RD_ATOM	= SV_MAX_QP * SV_MAX_QP_RD_ATOM,
	/* slots of sv_dev.qp_hot: the last QPs published, 2 KiB */
	SV_QP_HOT		= 256,
	/*
	 * 4.096 us * 2^15 = 134 ms (IBTA encoding): the responder is
	 * software and may be descheduled before it acknowledges.
	 */
	SV_LOCAL_CA_ACK_DELAY	= 15,
};

/*
 * Completion counters (sv_cntr.c), per device: each pins up to two pages of
 * its process and maps them into the vmalloc area, so they are bounded
 * like the other objects.
 */
enum sv_cntr_params {
	SV_MAX_CNTR		= 1 << 16,
};

/* Address handles (sv_av.c): AH numbers 1..SV_MAX_AH, 0 means "none" */
enum sv_ah_params {
	SV_MAX_AH		= 1 << 16,
};

/* Multicast groups of UD QPs (sv_mcast.c), per device */
enum sv_mcast_params {
	SV_MAX_MCAST_GRP		= 8192,
	SV_MAX_MCAST_QP_ATTACH		= 56,
	SV_MAX_TOTAL_MCAST_QP_ATTACH	= SV_MAX_MCAST_GRP *
					  SV_MAX_MCAST_QP_ATTACH,
};

/*
 * Memory regions and windows (sv_mr.c, sv_mw.c).  Both take their keys from
 * one space of SV_MKEY_INDEX_MAX indices (key = index << 8 | variant),
 * large enough for every MR and MW at once.  Freed indices keep a tombstone
 * in sv_dev.mr_xa until the device has no MR or MW left, so the space's
 * size also bounds that memory: about 9 bytes per index ever used, under
 * 5 MiB.  A user MR costs a page pointer per pinned page, so
 * SV_MAX_MR_SIZE keeps that table under 1 GiB.  A fast-reg MR holds two
 * page lists of max_num_sg entries (the one in use, the one being staged).
 */
enum sv_mr_params {
	SV_MAX_MR		= 1 << 18,
	SV_MAX_MW		= 1 << 16,
	SV_MKEY_INDEX_MAX	= (1 << 19) - 1,
	/* slots of sv_dev.mkey_hot: the last MRs and MWs published, 2 KiB */
	SV_MKEY_HOT		= 256,
	SV_MAX_FAST_REG_PAGES	= 1024,
};

#define SV_MAX_MR_SIZE		(1ULL << 39)
/* page sizes map_mr_sg() accepts, 4 KiB .. 2 GiB; user MRs use PAGE_SIZE */
#define SV_PAGE_SIZE_CAP	GENMASK_ULL(31, 12)

static_assert(SV_MAX_MR + SV_MAX_MW < SV_MKEY_INDEX_MAX);
static_assert(SV_MKEY_INDEX_MAX < (1 << 24));

/* RoCE carries only the default partition (IBTA Annex A16.4.3) */
#define SV_DEFAULT_PKEY		0xffff

/*
 * Largest transport header stack that can precede the payload of one RoCEv2
 * packet: BTH (12) + the largest extension combination, RETH+ImmDt or
 * AtomicETH (28), plus the ICRC (4) that follows it.  IP and UDP come on
 * top (IBTA Annex A17.4.1: the IB path MTU counts only the IB payload).
 */
#define SV_ROCE_MAX_IB_HDRS	(12 + 28 + 4)
#define SV_UDP_HDR_LEN		8
/* the longest valid RoCEv2 UDP datagram: a 4096-byte MTU's payload */
#define SV_ROCE_MAX_UDP_LEN	(SV_UDP_HDR_LEN + 4096 + SV_ROCE_MAX_IB_HDRS)

/*
 * Asynchronous prefetches (ibv_advise_mr() without the FLUSH flag) a
 * device has queued at once; past it the caller does the prefetch itself,
 * so no process can queue unbounded work and memory behind its back.
 */
#define SV_MAX_ASYNC_PREFETCH	64

/*
 * Implicit ODP MRs (sv_mr.c) map the address space in chunks of
 * SV_ODP_CHUNK_SIZE, each a child umem_odp with two u64 per page (ib_core's
 * pfn and DMA lists): 8 KiB for a 2 MiB chunk.  A chunk is created only
 * over an address the process has mapped, and an MR has at most
 * SV_ODP_MAX_CHUNKS of them (128 GiB of address space, about 550 MiB of
 * tables at most): a fault that would need one more fails.
 */
#define SV_ODP_CHUNK_SHIFT	21
#define SV_ODP_CHUNK_SIZE	(1ULL << SV_ODP_CHUNK_SHIFT)
#define SV_ODP_MAX_CHUNKS	(1U << 16)

#endif /* SV_PARAM_H */
