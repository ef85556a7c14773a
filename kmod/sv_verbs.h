/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs objects of a softverbs device: each embeds its ib_core object
 * and has a to_sv_<obj>() converter.  Included through sv.h.  Memory
 * regions and windows are in sv_mkey.h; the entry points in sv_loc.h;
 * what the transport calls in sv_xport_obj.h.
 */
#ifndef SV_VERBS_H
#define SV_VERBS_H

#include <linux/completion.h>
#include <linux/smp.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/timer.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "softverbs-abi.h"
#include "sv_queue.h"
#include "sv_task.h"

/*
 * The state each transport role keeps in a QP, which struct sv_qp embeds:
 * the first part of each role's header.  The rest of those headers needs
 * struct sv_qp and is read when a role's file includes them.
 */
#define SV_XPORT_STATE_ONLY
#include "sv_req.h"
#include "sv_comp.h"
#include "sv_resp.h"
#undef SV_XPORT_STATE_ONLY

struct sv_dev;

/* sv_ucontext.c: a user context */
struct sv_odp_ctx;

struct sv_ucontext {
	struct ib_ucontext	ibuc;
	/* bytes of the context's queues (sv_ucontext_charge()) */
	atomic64_t		mem_bytes;
	/*
	 * The thread that faults the context's ODP MRs (sv_odp.c), made by
	 * its first ODP MR under odp_mutex; read locklessly after (an MR is
	 * published after it is set).
	 */
	struct mutex		odp_mutex;
	struct sv_odp_ctx	*odp;
};

static inline struct sv_ucontext *to_sv_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sv_ucontext, ibuc);
}

/* sv_pd.c */
struct sv_pd {
	struct ib_pd		ibpd;
	/*
	 * The PD's UD and GSI QPs (sv_req_state.pd_entry), which the
	 * requester (sv_req.c) lists for destroy_ah: a send rung in before
	 * an AH's destroy must still find the AH
	 * (sv_req_ah_linger()).  ud_lock (a mutex: lingering sleeps)
	 * protects the list; a QP leaves it at the start of its destroy,
	 * so a QP on the list is alive while ud_lock is held.  Lock order:
	 * ud_lock, then a QP's req.lock.
	 */
	struct mutex		ud_lock;
	struct list_head	ud_qps;
};

static inline struct sv_pd *to_sv_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sv_pd, ibpd);
}

/* sv_xrcd.c: an XRC domain, a tag (its sharing is ib_core's) */
struct sv_xrcd {
	struct ib_xrcd		ibxrcd;
};

/* sv_cq.c */
struct sv_cq {
	struct ib_cq		ibcq;

	/* Immutable after create. */
	bool			is_user;	/* ring of ib_uverbs_wc, mapped */
	/* kernel CQs: the CPU of comp_vector, where handlers run; else -1 */
	int			notify_cpu;

	/*
	 * A handler call sent to notify_cpu (sv_cq_notify()): notify_queued
	 * while it has not started, notify_inflight until it has returned
	 * (sv_cq_sync_notify() waits for that when a QP or SRQ that posts
	 * here goes, and at destroy).
	 */
	call_single_data_t	notify_csd;
	atomic_t		notify_queued;
	atomic_t		notify_inflight;

	/*
	 * lock (irqsave: posts come from softirq, kernel consumers may poll
	 * with interrupts off) protects the queue pointer and the kernel's
	 * side(s) of the ring: the producer side for every CQ (sv_cq_post)
	 * and the consumer side of kernel CQs (poll), plus notify and
	 * overrun.  Never held while calling the CQ's handlers.  A leaf
	 * lock (the order of all locks: Documentation/design.md, "Locking").
	 */
	spinlock_t		lock;
	struct sv_queue		*queue;
	/* armed notification: 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	u8			notify;
	/* an overrun put the CQ in the error state; posts fail from then on */
	bool			overrun;

	/* serialises resize_cq (uverbs runs it under a shared object lock) */
	struct mutex		resize_mutex;
};

static inline struct sv_cq *to_sv_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sv_cq, ibcq);
}

/* sv_srq.c */
struct sv_srq {
	struct ib_srq		ibsrq;

	/* Immutable after create. */
	bool			is_user;	/* user produces into the ring */
	u32			srq_num;	/* key in sv->srq_xa */
	u32			max_sge;	/* SGEs per WQE */

	/*
	 * References: 1 for the SRQ's existence, + 1 for each packet an XRC
	 * target QP is processing through it (sv_srq_get_xrc()).  destroy
	 * drops the first and waits for released.
	 */
	refcount_t		refs;
	struct completion	released;

	/*
	 * lock (irqsave: the responder pops from softirq, kernel consumers
	 * may post with interrupts off) protects the queue pointer, the
	 * kernel's side(s) of the ring (consumer: sv_srq_pop; producer of
	 * kernel SRQs: post_srq_recv) and limit.  Never held while calling
	 * the SRQ's event handler.  A leaf lock (Documentation/design.md,
	 * "Locking").
	 */
	spinlock_t		lock;
	struct sv_queue		*queue;
	u32			limit;		/* armed SRQ limit, 0 = disarmed */

	/* serialises modify_srq (uverbs runs it under a shared object lock) */
	struct mutex		modify_mutex;
};

static inline struct sv_srq *to_sv_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sv_srq, ibsrq);
}

/* bytes one WQE of an SRQ (or RQ) with @max_sge SGEs needs */
static inline size_t sv_srq_wqe_size(u32 max_sge)
{
	return sizeof(struct sv_recv_wqe) + max_sge * sizeof(struct sv_sge);
}

/*
 * sv_cntr.c: a completion counter (ib_core's comp_cntr object, where
 * ib_core has it: compat/sv_compat_cntr.h).  Two 64-bit counts, of
 * completions and of error completions, that the transport adds to as the
 * work requests of the QPs it is attached to complete (per operation type,
 * enum sv_cntr_op), and that live in the memory of the process that made
 * it: what the kernel counts is stored into two words of its memory,
 * pinned and mapped at create, so a read is a load (Documentation/ulib.md,
 * "Completion counters").
 */
enum sv_cntr_op {
	/* the bit numbers of enum ib_uverbs_qp_attach_comp_cntr_op */
	SV_CNTR_SEND,		/* requester: SEND completions */
	SV_CNTR_RECV,		/* responder: receive WQE completions */
	SV_CNTR_READ,		/* requester: RDMA READ completions */
	SV_CNTR_REMOTE_READ,	/* responder: RDMA READ requests served */
	SV_CNTR_WRITE,		/* requester: RDMA WRITE completions */
	SV_CNTR_REMOTE_WRITE,	/* responder: RDMA WRITE messages placed */
	SV_CNTR_OPS,
};

enum sv_cntr_entry {
	SV_CNTR_COMP,		/* successful completions */
	SV_CNTR_ERR,		/* error completions, flushes included */
	SV_CNTR_ENTRIES,
};

struct sv_cntr {
	/*
	 * lock (irqsave: counts come from softirq and process context; a
	 * leaf, Documentation/design.md "Locking") serialises the
	 * transport's additions with set and inc: val[] is the truth, and
	 * each change is stored (release) into user[] under it, so user
	 * space never sees a count go back.
	 */
	spinlock_t		lock;
	u64			val[SV_CNTR_ENTRIES];
	/* immutable after create: the user's words, mapped (vmap) */
	u64			*user[SV_CNTR_ENTRIES];
	void			*map[SV_CNTR_ENTRIES];
	struct ib_umem		*umem[SV_CNTR_ENTRIES];
	/* attachments (sv_qp.cntr[]): destroy is refused while there are any */
	atomic_t		attached;
	struct sv_ucontext	*uc;		/* charged for the counter */
};

/* sv_qp.c */

/*
 * One work queue (SQ or RQ) of a QP: a shared ring of struct sv_send_wqe or
 * struct sv_recv_wqe slots (uapi/softverbs-abi.h), mapped into the process
 * for user QPs (user space produces, the kernel consumes) and kernel-only for
 * kernel consumers' QPs (post_send/post_recv produce).
 *
 * Locks:
 *   producer_lock (irqsave: kernel consumers post from any context): the
 *     producer side of a kernel QP's ring (posting).
 *   The consumer side (the ring's private consumer index, and for the SQ
 *   req.in_flight) belongs to the QP role that consumes it: the SQ's to
 *   req.lock, the RQ's to resp.lock.  The transport holds that lock anyway
 *   whenever it takes or retires a WQE, so consuming costs no lock of its
 *   own; flushing and discarding take it too (sv_wq_lock()).  The
 *   producer side reads the consumer index without it (fullness checks:
 *   a stale index only makes the ring look fuller).
 * Order: the role lock, then producer_lock (Documentation/design.md,
 * "Locking").  producer_lock is never held while calling out of the QP
 * (CQ posts, events).
 */
struct sv_wq {
	struct sv_queue		*queue;	/* NULL: the RQ of a QP with an SRQ */
	spinlock_t		producer_lock;
	/* immutable after create: the real capacities, as create_qp reports */
	u32			max_wr;
	u32			max_sge;
	u32			max_inline;	/* SQ only */
};

/*
 * What the receive path (softirq, RCU) finds when it looks a QP up by QPN
 * in sv->qp_xa or through a multicast group.
 *
 * The rule: ib_core frees struct sv_qp with kfree() as soon as destroy_qp
 * returns, without waiting for an RCU grace period, so a lookup must never
 * touch the QP itself before it holds a reference.  References are counted
 * here, in a handle that is freed only through kfree_rcu(): a lookup under
 * rcu_read_lock() may always read handle->ref, and refcount_inc_not_zero()
 * fails once the QP is going.  destroy_qp unpublishes the handle (qp_xa,
 * multicast groups), drops the QP's own reference and sleeps until every
 * other reference is back; only then may the QP be freed.
 *
 * So: take references with sv_qp_get_by_qpn_rcu() (or sv_mcast_get_qps()),
 * hold them while touching the QP outside the verbs that own it, and drop
 * them with sv_qp_put().  A reference keeps the QP's memory, rings, CQ
 * pointers and path alive; it does not keep the QP out of the ERR state.
 */
struct sv_swqe;

struct sv_qp_handle {
	refcount_t		ref;
	struct sv_qp		*qp;
	u32			qpn;	/* set before it is published */
	struct rcu_head		rcu;
};

/*
 * A job for the ODP thread of a user context (sv_odp.c): @fn runs there,
 * in process context; @entry links it in the thread's queue while queued.
 */
struct sv_odp_item {
	struct list_head	entry;
	void			(*fn)(struct sv_odp_item *item);
};

/*
 * The page faults one role of a QP asks for (sv_odp.c): @mr (a reference)
 * at [@iova, @iova + @len), for writing or reading, waiting for the work
 * item (mr NULL: none waits); @busy: the work item is queued or running
 * on the ODP thread @ctx (that of the MR it faults), and holds a QP
 * reference; @dead: the QP is being destroyed, nothing is queued any more.  @failed: the last fault of this role failed
 * (not mapped, no rights) for the MR @failed_mr with key @failed_key (for
 * comparison only: no reference, the key tells a new MR at the same
 * address apart) at iovas [@failed_start, @failed_end); the next miss of
 * this role there is that access coming again, and fails instead of
 * faulting again.  No other QP, nor the other role, sees it.  lock
 * (irqsave: any context; a leaf) protects mr..failed_end.
 */
enum sv_odp_role {
	SV_ODP_REQ,	/* requester and completer: local SGEs */
	SV_ODP_RESP,	/* responder: receive SGEs and R_Key targets */
	SV_ODP_ROLES,
};

struct sv_odp_fault {
	spinlock_t		lock;
	struct sv_odp_item	item;
	struct sv_odp_ctx	*ctx;
	struct sv_qp		*qp;
	enum sv_odp_role	role;
	struct sv_mr		*mr;
	u64			iova;
	u64			len;
	bool			write;
	bool			busy;
	bool			dead;
	bool			failed;
	u32			failed_key;
	const struct sv_mr	*failed_mr;
	u64			failed_start;
	u64			failed_end;
};

struct sv_qp {
	struct ib_qp		ibqp;

	/* Immutable after create. */
	struct sv_qp_handle	*handle;
	bool			is_user;	/* rings mapped, user produces */
	/* user QPs: the context charged for the QP's memory (sv_ucontext.c) */
	struct sv_ucontext	*uc;
	bool			sq_sig_all;	/* IB_SIGNAL_ALL_WR */
	/*
	 * XRC target: its domain (ib_core sets ibqp.xrcd only after
	 * create_qp returns; the QP is published before)
	 */
	struct ib_xrcd		*xrcd;
	struct sv_wq		sq;
	struct sv_wq		rq;
	/* ODP page faults asked for by the transport (sv_odp.c) */
	struct sv_odp_fault	odp[SV_ODP_ROLES];
	/* RC/UC: the type 2 windows this QP bound (qpn set with ibqp.qp_num) */
	struct sv_mw_binds	mw_binds;

	/* serialises modify_qp and destroy_qp, which may sleep */
	struct mutex		modify_mutex;

	/*
	 * state_lock (irqsave; the transport moves QPs to ERR/SQE from
	 * softirq) protects state, attr, the path pointer and the PSNs below
	 * as modify_qp sets them.  Lockless readers on the data path use
	 * READ_ONCE(qp->state) and re-check under the lock when it matters.
	 * Never held while calling out of the QP.
	 * Lock order: modify_mutex, then state_lock, a leaf
	 * (Documentation/design.md, "Locking").
	 */
	spinlock_t		state_lock;
	enum ib_qp_state	state;
	/* as modify_qp set them, for query_qp; ah_attr has no sgid_attr */
	struct ib_qp_attr	attr;
	/* connected QPs from RTR on: see struct sv_path */
	struct sv_path __rcu	*path;

	/* the transport roles' state, each declared in its role's header */
	struct sv_req_state	req;	/* sv_req.h */
	struct sv_comp_state	comp;	/* sv_comp.h */
	struct sv_resp_state	resp;	/* sv_resp.h */

	/*
	 * Completion counters per operation type (sv_cntr.c): set by attach
	 * under modify_mutex in RESET or INIT, never changed after; read by
	 * the transport with READ_ONCE.  Each holds an attachment
	 * (sv_cntr.attached), dropped by destroy_qp once nothing counts.
	 */
	struct sv_cntr		*cntr[SV_CNTR_OPS];

	/* struct sv_mcg_attach of this QP; under sv_mcast_mutex */
	struct list_head	mcast_list;

	/* completed when the last reference (handle->ref) is dropped */
	struct completion	released;
};

static inline struct sv_qp *to_sv_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sv_qp, ibqp);
}

/*
 * Bytes of one of the QP's send WQEs: struct sv_send_wqe and its room for
 * SGEs or inline data (the ring's slot is this rounded up to a power of
 * two), and never less than an ATOMIC WRITE's 8 bytes in that room
 * (librxe's layout, dma.atomic_wr), which every slot has.  What the
 * requester copies of a slot and checks.
 */
static inline size_t sv_qp_send_wqe_size(const struct sv_qp *qp)
{
	return sizeof(struct sv_send_wqe) +
	       max_t(size_t, qp->sq.max_inline, sizeof(u64));
}

/*
 * The path MTU in bytes the transport must use now: the one modify_qp set,
 * capped by the port's active MTU, which follows the netdev and may shrink
 * under a live QP.
 */
static inline u32 sv_qp_mtu(const struct sv_qp *qp)
{
	enum ib_mtu active = READ_ONCE(to_sv_dev(qp->ibqp.device)->active_mtu);
	enum ib_mtu mtu = READ_ONCE(qp->attr.path_mtu);

	/* UD and GSI QPs have no path MTU: the port's is their limit */
	if (!mtu || mtu > active)
		mtu = active;
	return ib_mtu_enum_to_int(mtu);
}

/*
 * The reliable connected transports: RC, and XRC, whose initiator QPs are
 * RC's send half and target QPs its receive half (IBTA Annex A14).  Their
 * requests are acknowledged and retried, their responders keep responder
 * resources, and they have no SQE state (IBTA 10.3.1).
 */
static inline bool sv_qp_reliable(const struct sv_qp *qp)
{
	u32 t = qp->ibqp.qp_type;

	/* one bit test, not three compares: it is asked per packet */
	return t < 32 && (BIT(t) & (BIT(IB_QPT_RC) | BIT(IB_QPT_XRC_INI) |
				    BIT(IB_QPT_XRC_TGT)));
}

/* ... and UC: the QPs with one peer, a path, PSNs (IBTA 9.7) */
static inline bool sv_qp_connected(const struct sv_qp *qp)
{
	return sv_qp_reliable(qp) || qp->ibqp.qp_type == IB_QPT_UC;
}

/* QPN range of ordinary QPs; 0 is unused and 1 is the GSI QP (QP1) */
#define SV_QPN_GSI		1
#define SV_QPN_MIN		16
#define SV_QPN_MAX		((1U << 24) - 1)
/* the multicast QPN (IBTA 10.5.1.1): a destination, never a QP's number */
#define SV_QPN_MULTICAST	SV_QPN_MAX
#define SV_QPN_ALLOC_MAX	(SV_QPN_MULTICAST - 1)
/* QPNs and PSNs are 24-bit wire fields */
#define SV_PSN_MAX		((1U << 24) - 1)

/* Log with the QP number as prefix; as sv_dbg_dev() and its variants. */
#define sv_dbg_qp(qp, fmt, ...) \
	ibdev_dbg((qp)->ibqp.device, "qp#%u %s: " fmt, (qp)->ibqp.qp_num, \
		  __func__, ##__VA_ARGS__)
#define sv_info_qp(qp, fmt, ...) \
	ibdev_info_ratelimited((qp)->ibqp.device, "qp#%u: " fmt, \
			       (qp)->ibqp.qp_num, ##__VA_ARGS__)
#define sv_err_qp(qp, fmt, ...) \
	ibdev_err_ratelimited((qp)->ibqp.device, "qp#%u %s: " fmt, \
			      (qp)->ibqp.qp_num, __func__, ##__VA_ARGS__)

/*
 * References (see struct sv_qp_handle).  sv_qp_get_by_qpn_rcu() works in any
 * context under RCU and returns NULL for an unknown or dying QPN;
 * sv_qp_get() takes one more reference on a QP the caller already holds.
 */
struct sv_qp *sv_qp_get_by_qpn_rcu(struct sv_dev *sv, u32 qpn);

static inline struct sv_qp *sv_qp_handle_get_rcu(struct sv_qp_handle *h)
{
	return refcount_inc_not_zero(&h->ref) ? h->qp : NULL;
}

static inline void sv_qp_get(struct sv_qp *qp)
{
	refcount_inc(&qp->handle->ref);
}

static inline void sv_qp_put(struct sv_qp *qp)
{
	if (refcount_dec_and_test(&qp->handle->ref))
		complete(&qp->released);
}

/* sv_av.c: the paths of address vectors, and address handles */

/*
 * A resolved RoCE path: what the transport needs to address a packet,
 * derived from an address vector (rdma_ah_attr) and checked.  Immutable
 * once published, but for its route cache.  Its owner (an AH, or a
 * connected QP's primary path in qp->path) frees it with
 * sv_path_free_rcu(), so the transport reads it under rcu_read_lock()
 * without taking a reference.
 *
 * The source GID's type decides the framing: a RoCEv2
 * (IB_GID_TYPE_ROCE_UDP_ENCAP) entry gives network type RDMA_NETWORK_IPV4
 * or _IPV6, and the GIDs are the IP addresses (IPv4-mapped for IPv4); a
 * RoCE v1 (IB_GID_TYPE_ROCE) one RDMA_NETWORK_ROCE_V1, the GIDs going
 * into a GRH over Ethernet (sv_av.c, sv_net.c).
 */
struct sv_path {
	struct rcu_head		rcu;
	const struct ib_pd	*pd;		/* AH paths: the AH's PD */
	u8			network_type;	/* RDMA_NETWORK_IPV4/_IPV6/_ROCE_V1 */
	u8			hop_limit;	/* IPv4 TTL / IPv6 hop limit */
	u8			traffic_class;	/* IPv4 TOS / IPv6 traffic class */
	u8			sgid_index;
	u32			flow_label;	/* as given (20 bits), 0 = none */
	/*
	 * RC/UC paths: UDP source port for this QP pair (flow label, or a
	 * hash of both QPNs: ECMP entropy that keeps one flow per QP).  AH
	 * paths: 0, see sv_path_udp_sport().
	 */
	u16			udp_sport;
	u8			dmac[ETH_ALEN];	/* multicast MAC for a group */
	int			ifindex;	/* netdev of the source GID */
	union ib_gid		sgid;		/* = source IP address */
	union ib_gid		dgid;		/* = destination IP address */
	/*
	 * SV_PATH_CACHE paths (connected QPs) to a destination outside this
	 * host: the output route, per CPU, checked for staleness on every use
	 * (a route or address change invalidates it); never one to a local
	 * address.  Read and set with bottom halves off (sv_net.c).
	 */
	struct dst_cache	dst_cache;
};

static inline bool sv_path_is_ipv4(const struct sv_path *path)
{
	return path->network_type == RDMA_NETWORK_IPV4;
}

/* IPv4 addresses of an IPv4 path (the last 4 bytes of the mapped GIDs) */
static inline __be32 sv_path_saddr4(const struct sv_path *path)
{
	return ((const __be32 *)path->sgid.raw)[3];
}

static inline __be32 sv_path_daddr4(const struct sv_path *path)
{
	return ((const __be32 *)path->dgid.raw)[3];
}

/* UDP source port of a packet from local QPN @lqpn to remote QPN @rqpn */
static inline u16 sv_path_udp_sport(const struct sv_path *path, u32 lqpn,
				    u32 rqpn)
{
	return path->udp_sport ?:
	       rdma_get_udp_sport(path->flow_label, lqpn, rqpn);
}

/* flags of sv_path_create() */
enum {
	SV_PATH_UNICAST	= 1 << 0,	/* connected QP: no multicast dgid */
	/*
	 * Check the route and look up the neighbour for an unresolved
	 * destination MAC.  Not with hard interrupts disabled (IPv6 route
	 * lookups and neighbour lookups toggle bottom halves).
	 */
	SV_PATH_ROUTE	= 1 << 1,
	/*
	 * With SV_PATH_ROUTE, for a destination outside this host: keep the
	 * output route in path->dst_cache.
	 */
	SV_PATH_CACHE	= 1 << 2,
};

struct sv_ah {
	struct ib_ah		ibah;
	u32			ah_num;		/* key in sv->ah_xa, 1..SV_MAX_AH */
	struct sv_path		*path;
	struct rdma_ah_attr	attr;		/* for query_ah, no sgid_attr */
};

static inline struct sv_ah *to_sv_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sv_ah, ibah);
}

#endif /* SV_VERBS_H */
