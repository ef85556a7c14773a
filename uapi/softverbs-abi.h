/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * softverbs user ABI: the one definition of everything a softverbs device
 * shares with user space through udata and mmap'ed queues.
 *
 * Compatibility promise
 * ---------------------
 * softverbs registers with ib_core as RDMA_DRIVER_RXE with uverbs ABI
 * version SV_UVERBS_ABI_VERSION, so the unmodified Soft-RoCE provider of
 * distro rdma-core (librxe) drives a softverbs device.  Every structure here
 * is therefore byte-for-byte the layout of its counterpart in the public
 * <rdma/rdma_user_rxe.h>.  The names differ (sv_* instead of rxe_*) so both
 * headers can be included together, which is exactly what the layout checks
 * at the end of this file do (see SV_ABI_CHECK_LAYOUTS).
 *
 * All fields are fixed width; every hole is an explicit pad or reserved
 * field that the producer writes as zero and the consumer ignores.
 *
 * Shared queues and memory ordering
 * ---------------------------------
 * Every work queue (SQ, RQ, SRQ) and completion queue is one mmap'ed
 * buffer: a struct sv_queue_buf header followed by 2^n slots of
 * 2^log2_elem_size bytes.  Exactly one side produces and one side consumes:
 *
 *	queue	producer	consumer
 *	SQ	user (post)	kernel (requester)
 *	RQ/SRQ	user (post)	kernel (responder)
 *	CQ	kernel		user (poll)
 *
 * producer_index and consumer_index are slot numbers in [0, index_mask]
 * (index_mask = slots - 1): each side advances its own as (i + 1) &
 * index_mask, as librxe does.  The queue is empty when they are equal and
 * full when (producer - consumer) & index_mask == index_mask, i.e. one slot
 * always stays free.  The two indices live on separate cache lines so
 * producer and consumer never write the same line.
 *
 * Producer:  1. read its own index P (plain load, it is the only writer),
 *            2. load-acquire the other side's index C, check not full,
 *            3. write the slot P & index_mask with plain stores,
 *            4. store-release (P + 1) & index_mask into producer_index.
 * Consumer:  1. load-acquire producer_index P,
 *            2. if C != P read slot C & index_mask with plain loads,
 *            3. store-release (C + 1) & index_mask into consumer_index (the slot may then
 *               be overwritten by the producer).
 *
 * The release in step 4 orders the slot contents before the index that
 * publishes them; the acquire in consumer step 1 pairs with it.  The
 * release in consumer step 3 keeps the slot reads before the index that
 * hands the slot back; the producer's acquire in step 2 pairs with it.
 * In the kernel these are smp_load_acquire()/smp_store_release(); in user
 * space __atomic_load_n(..., __ATOMIC_ACQUIRE) and __atomic_store_n(...,
 * __ATOMIC_RELEASE) (what librxe does too).  The kernel never trusts the
 * user-written index: it masks it and re-checks fullness itself, so a
 * hostile user can only corrupt its own queue, never kernel memory.
 *
 * log2_elem_size and index_mask in the header are a copy for user space;
 * the kernel keeps and uses its own values. *
 * CQ slots are struct ib_uverbs_wc.  Its wc_flags carry libibverbs'
 * values (enum ibv_wc_flags: GRH 1, WITH_IMM 2, IP_CSUM_OK 4, WITH_INV 8),
 * not the kernel's IB_WC_* (which swap the last two): librxe copies CQEs
 * into struct ibv_wc verbatim, so this is what makes an unmodified
 * rdma-core report IBV_WC_WITH_INV correctly on softverbs.  (Soft-RoCE
 * writes the kernel values; libsoftverbs translates for it.)  Only those
 * four bits are ever set.  Their sl, for a datagram received over RoCE
 * (wc_flags GRH), is the packet type as RoCE NICs report it there
 * (SV_UWC_SL_*: RoCE v1 GRH, or UDP-encapsulated with an IPv4 or IPv6
 * header in the GRH area):
 * a RoCE packet carries no service level, the CQE has no other field for
 * the network header type, and UCX's UD transport reads it to find the
 * destination address in the GRH area.  Their opcode is libibverbs' enum ibv_wc_opcode,
 * including IBV_WC_FLUSH 8 and IBV_WC_ATOMIC_WRITE 9 (IBTA 1.5, kernels
 * whose ib_core has them: the same numbers as IB_WC_FLUSH and
 * IB_WC_ATOMIC_WRITE there; the kernel-only IB_WC_REG_MR never reaches a
 * user CQ).  Send WQEs of those operations use librxe's layout: ATOMIC
 * WRITE (opcode 15) addressed by wr.rdma, its 8 bytes in dma.atomic_wr,
 * dma.length 8; FLUSH (opcode 14) by wr.flush, dma.length the range; no
 * SGEs for either.
 */
#ifndef SOFTVERBS_ABI_H
#define SOFTVERBS_ABI_H

#include <linux/types.h>
#include <linux/stddef.h>
#ifdef __KERNEL__
struct ib_mr;
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>
#else
#include <sys/socket.h>
#include <netinet/in.h>
#endif

/* uverbs ABI version librxe accepts (rdma-core providers/rxe) */
#define SV_UVERBS_ABI_VERSION	2

/* name of the ib_device sysfs attribute that marks a softverbs device */
#define SV_SYSFS_VERSION_ATTR	"softverbs_version"

/* RoCEv2: IANA assigned UDP destination port (IBTA Annex A17.2.3) */
#define SV_ROCE_V2_UDP_PORT	4791

enum {
	SV_NETWORK_TYPE_IPV4 = 1,
	SV_NETWORK_TYPE_IPV6 = 2,
};

/* sl of a user CQE for a datagram received over RoCE (see the top) */
enum {
	SV_UWC_SL_GRH		= 0x0,	/* RoCE v1: the GRH in the GRH area */
	SV_UWC_SL_IPV6		= 0x1,	/* IPv6 header in the GRH area */
	SV_UWC_SL_IPV4		= 0x2,	/* IPv4 header in its last 20 bytes */
	SV_UWC_SL_ROCE_UDP	= 0x8,	/* UDP encapsulated: RoCEv2 */
};

union sv_gid {
	__u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

struct sv_global_route {
	union sv_gid	dgid;
	__u32		flow_label;
	__u8		sgid_index;
	__u8		hop_limit;
	__u8		traffic_class;
	__u8		pad;
};

/* address vector: built by the user library for UD sends (librxe fills it) */
struct sv_av {
	__u8			port_num;
	__u8			network_type;	/* SV_NETWORK_TYPE_* */
	__u8			dmac[6];
	struct sv_global_route	grh;
	union {
		struct sockaddr_in	_sockaddr_in;
		struct sockaddr_in6	_sockaddr_in6;
	} sgid_addr, dgid_addr;
};

struct sv_send_wr {
	__aligned_u64		wr_id;
	/*
	 * rxe's reserved word.  On an XRC initiator QP (IB_QPT_XRC_INI,
	 * softverbs' extension of the layout): the 24-bit number of the
	 * remote XRC SRQ that is to take the request (ibv_send_wr's
	 * qp_type.xrc.remote_srqn), sent in every request packet's XRCETH;
	 * a number above 24 bits fails the WQE.  Ignored on other QPs;
	 * librxe, which has no XRC, writes 0.
	 */
	union {
		__u32		reserved;
		__u32		xrc_srqn;
	};
	__u32			opcode;		/* enum ib_uverbs_wr_opcode */
	__u32			send_flags;	/* IB_SEND_* / IBV_SEND_* */
	union {
		__be32		imm_data;
		__u32		invalidate_rkey;
	} ex;
	union {
		struct {
			__aligned_u64	remote_addr;
			__u32		rkey;
			__u32		reserved;
		} rdma;
		struct {
			__aligned_u64	remote_addr;
			__aligned_u64	compare_add;
			__aligned_u64	swap;
			__u32		rkey;
			__u32		reserved;
		} atomic;
		struct {
			__aligned_u64	remote_addr;
			__u32		length;
			__u32		rkey;
			__u8		type;
			__u8		level;
			__u8		pad[6];
		} flush;
		struct {
			__u32		remote_qpn;
			__u32		remote_qkey;
			__u16		pkey_index;
			__u16		reserved;
			__u32		ah_num;
			__u32		pad[4];
			struct sv_av	av;
		} ud;
		struct {
			__aligned_u64	addr;
			__aligned_u64	length;
			__u32		mr_lkey;
			__u32		mw_rkey;
			__u32		rkey;
			__u32		access;
		} mw;
#ifdef __KERNEL__
		/*
		 * IB_WR_REG_MR of a kernel consumer, in kernel-only rings:
		 * not part of the user ABI (user space cannot post it).
		 */
		struct {
			union {
				struct ib_mr	*mr;
				__aligned_u64	reserved;
			};
			__u32		key;
			__u32		access;
		} reg;
#endif
	} wr;
};

struct sv_sge {
	__aligned_u64	addr;
	__u32		length;
	__u32		lkey;
};

/* where and how big one mmap'able queue is: pass offset/size to mmap(2) */
struct sv_mmap_info {
	__aligned_u64	offset;
	__u32		size;
	__u32		pad;
};

struct sv_dma_info {
	__u32		length;
	__u32		resid;
	__u32		cur_sge;
	__u32		num_sge;
	__u32		sge_offset;
	__u32		reserved;
	union {
		__DECLARE_FLEX_ARRAY(__u8, inline_data);
		__DECLARE_FLEX_ARRAY(__u8, atomic_wr);
		__DECLARE_FLEX_ARRAY(struct sv_sge, sge);
	};
};

/* one SQ slot; the dma.sge[] (or inline data) array follows */
struct sv_send_wqe {
	struct sv_send_wr	wr;
	__u32			status;
	__u32			state;
	__aligned_u64		iova;
	__u32			mask;
	__u32			first_psn;
	__u32			last_psn;
	__u32			ack_length;
	__u32			ssn;
	__u32			has_rd_atomic;
	struct sv_dma_info	dma;
};

/* one RQ/SRQ slot; the dma.sge[] array follows */
struct sv_recv_wqe {
	__aligned_u64		wr_id;
	__u32			reserved;
	__u32			padding;
	struct sv_dma_info	dma;
};

/* udata responses and commands (what ib_uverbs carries as driver data) */
struct sv_create_ah_resp {
	__u32	ah_num;
	__u32	reserved;
};

struct sv_create_cq_resp {
	struct sv_mmap_info	mi;
};

struct sv_resize_cq_resp {
	struct sv_mmap_info	mi;
};

struct sv_create_qp_resp {
	struct sv_mmap_info	rq_mi;
	struct sv_mmap_info	sq_mi;
};

struct sv_create_srq_resp {
	struct sv_mmap_info	mi;
	__u32			srq_num;
	__u32			reserved;
};

/* modify_srq with IB_SRQ_MAX_WR: where to write the new struct sv_mmap_info */
struct sv_modify_srq_cmd {
	__aligned_u64	mmap_info_addr;
};

/* header of every shared queue; see "Shared queues and memory ordering" */
struct sv_queue_buf {
	__u32	log2_elem_size;
	__u32	index_mask;
	__u32	pad_1[30];
	__u32	producer_index;
	__u32	pad_2[31];
	__u32	consumer_index;
	__u32	pad_3[31];
	__u8	data[];
};

/*
 * Completion counters (ib_core's UVERBS_OBJECT_COMP_CNTR, where the kernel
 * has it): softverbs' attributes of its CREATE method, in the driver's
 * namespace (UVERBS_ID_DRIVER_NS, 1 << 12).  Each is a struct
 * ib_uverbs_buffer_desc (<rdma/ib_user_ioctl_verbs.h>) of type VA naming
 * the 8 bytes, 8-byte aligned, where the kernel stores one count: the
 * completions, the error completions.  The kernel pins them for the
 * counter's life and stores each new count with release semantics; user
 * space reads them with acquire loads and never writes them (set and
 * increment are the MODIFY method).  Not part of librxe's ABI.
 */
enum sv_comp_cntr_create_attrs {
	SV_ATTR_CREATE_COMP_CNTR_COMP_BUFFER = (1U << 12),
	SV_ATTR_CREATE_COMP_CNTR_ERR_BUFFER,
};

/*
 * Compile-time proof of the compatibility promise.  Define
 * SV_ABI_CHECK_LAYOUTS after including <rdma/rdma_user_rxe.h> (kernel:
 * kmod/sv_abi_check.c, user space: ulib and tests/host) to check every
 * structure's size and every field's offset against Soft-RoCE's.
 */
#ifdef SV_ABI_CHECK_LAYOUTS
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#define SV_ABI_ASSERT(c, m)	static_assert(c, m)
#else
#include <stddef.h>
#define SV_ABI_ASSERT(c, m)	_Static_assert(c, m)
#endif

#define SV_ABI_SAME_SIZE(ours, theirs) \
	SV_ABI_ASSERT(sizeof(struct ours) == sizeof(struct theirs), \
		      #ours " differs in size from " #theirs)
#define SV_ABI_SAME_FIELD(ours, theirs, field) \
	SV_ABI_ASSERT(offsetof(struct ours, field) == \
		      offsetof(struct theirs, field) && \
		      sizeof(((struct ours *)0)->field) == \
		      sizeof(((struct theirs *)0)->field), \
		      #ours "." #field " differs from " #theirs)

SV_ABI_ASSERT((int)SV_NETWORK_TYPE_IPV4 == (int)RXE_NETWORK_TYPE_IPV4, "ipv4 type");
SV_ABI_ASSERT((int)SV_NETWORK_TYPE_IPV6 == (int)RXE_NETWORK_TYPE_IPV6, "ipv6 type");
SV_ABI_ASSERT(sizeof(union sv_gid) == sizeof(union rxe_gid), "gid");

SV_ABI_SAME_SIZE(sv_global_route, rxe_global_route);
SV_ABI_SAME_FIELD(sv_global_route, rxe_global_route, dgid);
SV_ABI_SAME_FIELD(sv_global_route, rxe_global_route, flow_label);
SV_ABI_SAME_FIELD(sv_global_route, rxe_global_route, sgid_index);
SV_ABI_SAME_FIELD(sv_global_route, rxe_global_route, hop_limit);
SV_ABI_SAME_FIELD(sv_global_route, rxe_global_route, traffic_class);

SV_ABI_SAME_SIZE(sv_av, rxe_av);
SV_ABI_SAME_FIELD(sv_av, rxe_av, port_num);
SV_ABI_SAME_FIELD(sv_av, rxe_av, network_type);
SV_ABI_SAME_FIELD(sv_av, rxe_av, dmac);
SV_ABI_SAME_FIELD(sv_av, rxe_av, grh);
SV_ABI_SAME_FIELD(sv_av, rxe_av, sgid_addr);
SV_ABI_SAME_FIELD(sv_av, rxe_av, dgid_addr);

SV_ABI_SAME_SIZE(sv_send_wr, rxe_send_wr);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr_id);
/* the XRC SRQ number lives in rxe's reserved word */
SV_ABI_ASSERT(offsetof(struct sv_send_wr, xrc_srqn) ==
	      offsetof(struct rxe_send_wr, reserved) &&
	      sizeof(((struct sv_send_wr *)0)->xrc_srqn) ==
	      sizeof(((struct rxe_send_wr *)0)->reserved),
	      "sv_send_wr.xrc_srqn is not rxe's reserved word");
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, opcode);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, send_flags);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, ex);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.rdma.remote_addr);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.rdma.rkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.atomic.remote_addr);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.atomic.compare_add);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.atomic.swap);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.atomic.rkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.ud.remote_qpn);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.ud.remote_qkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.ud.pkey_index);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.ud.ah_num);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.ud.av);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.addr);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.length);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.mr_lkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.mw_rkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.rkey);
SV_ABI_SAME_FIELD(sv_send_wr, rxe_send_wr, wr.mw.access);

SV_ABI_SAME_SIZE(sv_sge, rxe_sge);
SV_ABI_SAME_FIELD(sv_sge, rxe_sge, addr);
SV_ABI_SAME_FIELD(sv_sge, rxe_sge, length);
SV_ABI_SAME_FIELD(sv_sge, rxe_sge, lkey);

SV_ABI_SAME_SIZE(sv_mmap_info, mminfo);
SV_ABI_SAME_FIELD(sv_mmap_info, mminfo, offset);
SV_ABI_SAME_FIELD(sv_mmap_info, mminfo, size);

SV_ABI_SAME_SIZE(sv_dma_info, rxe_dma_info);
SV_ABI_SAME_FIELD(sv_dma_info, rxe_dma_info, length);
SV_ABI_SAME_FIELD(sv_dma_info, rxe_dma_info, resid);
SV_ABI_SAME_FIELD(sv_dma_info, rxe_dma_info, cur_sge);
SV_ABI_SAME_FIELD(sv_dma_info, rxe_dma_info, num_sge);
SV_ABI_SAME_FIELD(sv_dma_info, rxe_dma_info, sge_offset);
SV_ABI_ASSERT(offsetof(struct sv_dma_info, sge) ==
	      offsetof(struct rxe_dma_info, sge), "sv_dma_info.sge");
SV_ABI_ASSERT(offsetof(struct sv_dma_info, inline_data) ==
	      offsetof(struct rxe_dma_info, inline_data),
	      "sv_dma_info.inline_data");

SV_ABI_SAME_SIZE(sv_send_wqe, rxe_send_wqe);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, wr);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, status);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, state);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, iova);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, mask);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, first_psn);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, last_psn);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, ack_length);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, ssn);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, has_rd_atomic);
SV_ABI_SAME_FIELD(sv_send_wqe, rxe_send_wqe, dma);

SV_ABI_SAME_SIZE(sv_recv_wqe, rxe_recv_wqe);
SV_ABI_SAME_FIELD(sv_recv_wqe, rxe_recv_wqe, wr_id);
SV_ABI_SAME_FIELD(sv_recv_wqe, rxe_recv_wqe, dma);

SV_ABI_SAME_SIZE(sv_create_ah_resp, rxe_create_ah_resp);
SV_ABI_SAME_FIELD(sv_create_ah_resp, rxe_create_ah_resp, ah_num);
SV_ABI_SAME_SIZE(sv_create_cq_resp, rxe_create_cq_resp);
SV_ABI_SAME_SIZE(sv_resize_cq_resp, rxe_resize_cq_resp);
SV_ABI_SAME_SIZE(sv_create_qp_resp, rxe_create_qp_resp);
SV_ABI_SAME_FIELD(sv_create_qp_resp, rxe_create_qp_resp, rq_mi);
SV_ABI_SAME_FIELD(sv_create_qp_resp, rxe_create_qp_resp, sq_mi);
SV_ABI_SAME_SIZE(sv_create_srq_resp, rxe_create_srq_resp);
SV_ABI_SAME_FIELD(sv_create_srq_resp, rxe_create_srq_resp, mi);
SV_ABI_SAME_FIELD(sv_create_srq_resp, rxe_create_srq_resp, srq_num);
SV_ABI_SAME_SIZE(sv_modify_srq_cmd, rxe_modify_srq_cmd);

SV_ABI_SAME_SIZE(sv_queue_buf, rxe_queue_buf);
SV_ABI_SAME_FIELD(sv_queue_buf, rxe_queue_buf, log2_elem_size);
SV_ABI_SAME_FIELD(sv_queue_buf, rxe_queue_buf, index_mask);
SV_ABI_SAME_FIELD(sv_queue_buf, rxe_queue_buf, producer_index);
SV_ABI_SAME_FIELD(sv_queue_buf, rxe_queue_buf, consumer_index);
SV_ABI_ASSERT(offsetof(struct sv_queue_buf, data) ==
	      offsetof(struct rxe_queue_buf, data), "sv_queue_buf.data");
#endif /* SV_ABI_CHECK_LAYOUTS */

#endif /* SOFTVERBS_ABI_H */
