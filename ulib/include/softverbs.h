/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsoftverbs extensions: what the verbs API of rdma-core 44 cannot say,
 * and (at the end) compatibility functions for OFED's old XRC calls.
 *
 * The IBTA 1.5 Memory Placement Extensions on an RC QP of a softverbs
 * device, where the kernel has them (ibv_query_device_ex():
 * device_cap_flags_ex bit 40 ATOMIC_WRITE, bit 38 FLUSH_GLOBAL; Linux 6.2+
 * ib_core).  rdma-core 44 has ibv_wr_atomic_write() only on an extended QP,
 * which libsoftverbs does not implement, and no FLUSH verb at all (it came
 * with ibv_wr_flush() in rdma-core 45).  These two calls post one work
 * request each, on an ordinary ibv_create_qp() QP, like ibv_post_send():
 * the QP must be in RTS (or SQD/SQE/ERR), and the completion comes on the
 * send CQ with opcode SOFTVERBS_WC_FLUSH / SOFTVERBS_WC_ATOMIC_WRITE (the
 * numbers of IBV_WC_FLUSH / IBV_WC_ATOMIC_WRITE).  They return 0 or a
 * positive errno: EINVAL for a malformed request (not an RC QP, unknown
 * send flags, a misaligned ATOMIC WRITE address, a bad placement type or
 * selectivity level), ENOMEM when the SQ is full, EOPNOTSUPP when the
 * QP's device is not a softverbs device opened by libsoftverbs.
 *
 * A kernel without the extensions completes such a request with
 * IBV_WC_LOC_QP_OP_ERR.  FLUSH to persistence is never granted by a
 * softverbs responder (its MRs cannot have IBV_ACCESS_FLUSH_PERSISTENT).
 */
#ifndef SOFTVERBS_H
#define SOFTVERBS_H

#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FLUSH placement types (a mask) and selectivity levels, IBTA 1.5 A19.4.1 */
enum {
	SOFTVERBS_FLUSH_GLOBAL = 1 << 0,	/* global visibility */
	SOFTVERBS_FLUSH_PERSISTENT = 1 << 1,	/* persistence */
};

enum {
	SOFTVERBS_FLUSH_RANGE = 0,	/* [remote_addr, +length) of the MR */
	SOFTVERBS_FLUSH_MR = 1,		/* the whole MR of rkey */
};

/* completion opcodes (enum ibv_wc_opcode values of rdma-core 45+) */
enum {
	SOFTVERBS_WC_FLUSH = 8,
	SOFTVERBS_WC_ATOMIC_WRITE = 9,
};

/* MR access right for a FLUSH target (IBV_ACCESS_FLUSH_GLOBAL of 45+) */
#define SOFTVERBS_ACCESS_FLUSH_GLOBAL (1 << 8)

/*
 * RDMA ATOMIC WRITE: store the 8 bytes at value, as they are, at the
 * naturally aligned remote_addr of rkey's MR (remote write access) in one
 * indivisible access, after everything the QP sent before has been placed.
 * send_flags: IBV_SEND_SIGNALED, IBV_SEND_FENCE.
 */
int softverbs_post_atomic_write(struct ibv_qp *qp, uint64_t wr_id,
				unsigned int send_flags, uint32_t rkey,
				uint64_t remote_addr, const void *value);

/*
 * RDMA FLUSH: make what the QP placed before in the range (or the whole MR,
 * level SOFTVERBS_FLUSH_MR) reach the placement type(s) in type; the MR
 * needs the matching flush access.  send_flags as above.
 */
int softverbs_post_flush(struct ibv_qp *qp, uint64_t wr_id,
			 unsigned int send_flags, uint32_t rkey,
			 uint64_t remote_addr, uint32_t length, uint8_t type,
			 uint8_t level);

/*
 * The resource_type a parent domain's alloc()/free() receive
 * (ibv_alloc_parent_domain with IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS).
 * They cover the memory libsoftverbs allocates itself for a QP or CQ
 * created under the parent domain; the rings are the kernel's (mmap).
 */
enum {
	SOFTVERBS_RES_TYPE_QP = 1,
	SOFTVERBS_RES_TYPE_CQ = 2,
};

/*
 * ibv_wr_flush() for programs built against rdma-core 44's verbs.h, which
 * lacks it: an extended QP created with SOFTVERBS_QP_EX_WITH_FLUSH in
 * send_ops_flags (IBV_QP_EX_WITH_FLUSH of rdma-core 45+) has the builder
 * in the slot 45's struct ibv_qp_ex has after wr_atomic_write.
 */
#define SOFTVERBS_QP_EX_WITH_FLUSH	(1ULL << 11)

typedef void (*softverbs_wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey,
				     uint64_t remote_addr, size_t len,
				     uint8_t type, uint8_t level);

static inline void softverbs_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey,
				      uint64_t remote_addr, size_t len,
				      uint8_t type, uint8_t level)
{
	/* the slot after wr_atomic_write, whichever header is in use */
	softverbs_wr_flush_fn fn;

	memcpy(&fn, (char *)&qp->wr_atomic_write + sizeof(qp->wr_atomic_write),
	       sizeof(fn));
	fn(qp, rkey, remote_addr, len, type, level);
}

/*
 * ---------------------------------------------------------------------
 * Compatibility functions: the XRC calls of OFED 1.3-1.5's libibverbs
 * (the verbs(7) page of that era), as thin wrappers over the modern XRC
 * objects (ibv_open_xrcd, ibv_create_srq_ex, IBV_QPT_XRC_RECV QPs,
 * ibv_open_qp).  For porting old programs; new code should call those
 * directly.  Documentation/ulib.md, "The old OFED XRC calls", says what
 * maps to what and what does not: senders use IBV_QPT_XRC_SEND and
 * wr.qp_type.xrc.remote_srqn, SRQ numbers come from ibv_get_srq_num().
 * Version node SOFTVERBS_1.1.  Return conventions are OFED's: pointers
 * (NULL with errno set) or 0 / a positive errno.
 */

/* An XRC domain as OFED declared it: handle is the kernel's domain handle. */
struct ibv_xrc_domain {
	struct ibv_context	*context;
	uint32_t		handle;
};

/*
 * OFED's struct ibv_qp_init_attr, which had xrc_domain after sq_sig_all;
 * rdma-core's has no such member, so the two calls that read or return
 * it take this one.  The leading members are ibv_qp_init_attr's.
 */
struct softverbs_xrc_qp_init_attr {
	void			*qp_context;
	struct ibv_cq		*send_cq;
	struct ibv_cq		*recv_cq;
	struct ibv_srq		*srq;
	struct ibv_qp_cap	cap;
	enum ibv_qp_type	qp_type;
	int			sq_sig_all;
	struct ibv_xrc_domain	*xrc_domain;
};

/*
 * Compatibility: open the XRC domain of the file fd refers to (fd -1 and
 * oflag O_CREAT: a private one); oflag O_CREAT and/or O_EXCL as open(2).
 */
struct ibv_xrc_domain *ibv_open_xrc_domain(struct ibv_context *context,
					   int fd, int oflag);
/*
 * Compatibility: close it; EBUSY while receive QPs are registered through
 * it or SRQs/QPs of this process are in the domain.
 */
int ibv_close_xrc_domain(struct ibv_xrc_domain *d);
/* Compatibility: an XRC SRQ in xrc_domain reporting to xrc_cq. */
struct ibv_srq *ibv_create_xrc_srq(struct ibv_pd *pd,
				   struct ibv_xrc_domain *xrc_domain,
				   struct ibv_cq *xrc_cq,
				   struct ibv_srq_init_attr *srq_init_attr);
/*
 * Compatibility: a receive-only XRC QP in init_attr->xrc_domain (the
 * other members are ignored), registered through that domain handle;
 * its number in *xrc_rcv_qpn.
 */
int ibv_create_xrc_rcv_qp(struct softverbs_xrc_qp_init_attr *init_attr,
			  uint32_t *xrc_rcv_qpn);
/* Compatibility: modify/query receive QP xrc_qp_num of the domain. */
int ibv_modify_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			  uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			  int attr_mask);
int ibv_query_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			 uint32_t xrc_qp_num, struct ibv_qp_attr *attr,
			 int attr_mask,
			 struct softverbs_xrc_qp_init_attr *init_attr);
/*
 * Compatibility: hold (register) / release (unregister) receive QP
 * xrc_qp_num through this domain handle; the QP lives while any process
 * holds it.  EINVAL for a number that is no receive QP of the domain.
 */
int ibv_reg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain, uint32_t xrc_qp_num);
int ibv_unreg_xrc_rcv_qp(struct ibv_xrc_domain *xrc_domain,
			 uint32_t xrc_qp_num);

#ifdef __cplusplus
}
#endif

#endif /* SOFTVERBS_H */
