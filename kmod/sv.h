/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softverbs: shared declarations, grouped by the .c file that defines them.
 */
#ifndef SV_H
#define SV_H

#include <linux/completion.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat/compat.h"
#include "sv_param.h"
#include "softverbs-abi.h"
#include "sv_queue.h"
#include "sv_stats.h"
#include "sv_fault.h"

/* SV_VERSION comes from dkms.conf through kmod/Kbuild */
#ifndef SV_VERSION
#error "build softverbs through its Kbuild, which defines SV_VERSION"
#endif

/*
 * One softverbs device: an ib_device with one RoCE port on top of an
 * Ethernet netdev, created by "rdma link add NAME type softverbs netdev DEV".
 */
struct sv_dev {
	struct ib_device	ibdev;	/* first: ib_alloc_device() needs it */

	/* Immutable from creation until dealloc_driver. */
	struct net_device	*ndev;	/* held, with ndev_tracker */
	netdevice_tracker	ndev_tracker;
	struct net		*net;	/* dev_net(ndev) at creation */
	struct sv_net_sock	*sock;	/* RoCEv2 sockets of net, ref held */

	/* In sv_devices; written under sv_devices_mutex, read under RCU. */
	struct list_head	list;

	/* Unregisters the device when its netdev goes away. */
	struct work_struct	unreg_work;

	/*
	 * Port state and active MTU follow the netdev.  Written only under
	 * RTNL (netdev notifier, and once at creation), read locklessly
	 * with READ_ONCE by query_port.
	 */
	enum ib_port_state	port_state;
	enum ib_mtu		active_mtu;

	/*
	 * Object tables: allocating xarrays (each with its own internal
	 * lock) that map wire-visible numbers to objects.
	 *   qp_xa:  QPN -> struct sv_qp_handle of a QP (QPN 1 is the GSI QP,
	 *           0 and 2..15 are unused)
	 *   mr_xa:  key index (lkey/rkey >> 8) -> struct sv_mkey of an MR
	 *           or MW; freed indices keep a tombstone (sv_mr.c)
	 *   srq_xa: SRQ number -> struct sv_srq
	 *   ah_xa:  AH number (librxe's ah_num) -> struct sv_path of an AH;
	 *           irq-safe: AHs come and go with interrupts off (sv_av.c)
	 */
	struct xarray		qp_xa;
	struct xarray		mr_xa;
	struct xarray		srq_xa;
	struct xarray		ah_xa;
	/* next mr_xa index to try (sv_mkey_publish), under mr_xa's lock */
	u32			mkey_next;
	/* xa_alloc_cyclic() cursors, under the lock of qp_xa and ah_xa */
	u32			qpn_next;
	u32			ah_num_next;

	/*
	 * Multicast groups (sv_mcast.c): MGID -> struct sv_mcg, read under
	 * RCU; the table and the counts are written under sv_mcast_mutex.
	 */
	DECLARE_HASHTABLE(mcg_hash, 8);
	unsigned int		num_mcg;
	unsigned int		num_mcg_attach;

	/* live objects, checked against the limits in sv_param.h */
	atomic_t		num_pd;
	atomic_t		num_cq;
	atomic_t		num_qp;
	atomic_t		num_srq;
	atomic_t		num_mr;
	atomic_t		num_mw;
	atomic_t		num_ah;

	/* data path counters (sv_stats.h), allocated with the device */
	struct sv_stats __percpu *stats;

	/* --- management plane (sv_stats.c, sv_fault.c, sv_nl.c) --- */
	/* most QPs alive at once; raised by sv_stats_qp_created() */
	atomic_t		qp_peak;
	/* fault injection state (sv_fault.h) */
	struct sv_fault		fault;
	/* --- end management plane --- */
};

/*
 * Take one of @count's @max slots; false when all are in use.  Creation
 * verbs call this first and sv_dev_count_put() on failure or destroy.
 */
static inline bool sv_dev_count_get(atomic_t *count, unsigned int max)
{
	return atomic_add_unless(count, 1, max);
}

static inline void sv_dev_count_put(atomic_t *count)
{
	atomic_dec(count);
}

static inline struct sv_dev *to_sv_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sv_dev, ibdev);
}

/*
 * Log with the device name as prefix.  The info and error variants are
 * rate-limited: info says why a verb refused what a consumer asked for
 * (the errno alone rarely tells which attribute it was).
 */
#define sv_dbg_dev(sv, fmt, ...) \
	ibdev_dbg(&(sv)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define sv_info_dev(sv, fmt, ...) \
	ibdev_info_ratelimited(&(sv)->ibdev, fmt, ##__VA_ARGS__)
#define sv_err_dev(sv, fmt, ...) \
	ibdev_err_ratelimited(&(sv)->ibdev, "%s: " fmt, __func__, \
			      ##__VA_ARGS__)

/* sv_main.c */
extern struct workqueue_struct *sv_wq;

/* sv_dev.c: device life cycle and netdev events */
int sv_dev_newlink(const char *ibdev_name, struct net_device *ndev);
void sv_dev_remove_all(void);
int sv_dev_notifier_register(void);
void sv_dev_notifier_unregister(void);
struct sv_dev *sv_dev_find_rcu(const struct net_device *ndev);

/* --- management plane --- */
/* sv_stats.c: hw counters (rdma statistic) and restrack driver detail */
void sv_stats_read(struct sv_dev *sv, u64 *vals);
unsigned int sv_stats_num(void);
const char *sv_stats_name(unsigned int i);
void sv_stats_qp_created(struct sv_dev *sv);
struct rdma_hw_stats *sv_stats_alloc_port(struct ib_device *ibdev,
					  u32 port_num);
int sv_stats_get(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		 u32 port_num, int index);
int sv_stats_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp);
int sv_stats_fill_res_cq(struct sk_buff *msg, struct ib_cq *ibcq);
int sv_stats_fill_res_mr(struct sk_buff *msg, struct ib_mr *ibmr);

/* sv_nl.c: the softverbs generic netlink family */
int sv_nl_init(void);
void sv_nl_exit(void);

/* sv_dev.c, for sv_nl.c: the device of @net after @index, referenced */
struct sv_dev *sv_dev_get_next(struct net *net, u32 index);
/* --- end management plane --- */

/* sv_port.c: port and device attributes */
int sv_port_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata);
int sv_port_query(struct ib_device *ibdev, u32 port_num,
		  struct ib_port_attr *attr);
int sv_port_immutable(struct ib_device *ibdev, u32 port_num,
		      struct ib_port_immutable *immutable);
int sv_port_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		       u16 *pkey);
enum rdma_link_layer sv_port_link_layer(struct ib_device *ibdev,
					u32 port_num);
struct net_device *sv_port_get_netdev(struct ib_device *ibdev, u32 port_num);
void sv_port_update(struct sv_dev *sv);
void sv_port_get_fw_str(struct ib_device *ibdev, char *str);
extern const struct attribute_group sv_port_dev_attr_group;

/* sv_net.c: per network namespace RoCEv2 UDP sockets */
struct sv_net_sock;
int sv_net_init(void);
void sv_net_exit(void);
struct sv_net_sock *sv_net_sock_get(struct net *net);
void sv_net_sock_put(struct net *net);

/* sv_ucontext.c */
struct sv_ucontext {
	struct ib_ucontext	ibuc;
	/* bytes of the context's queues (sv_ucontext_charge()) */
	atomic64_t		mem_bytes;
};

static inline struct sv_ucontext *to_sv_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sv_ucontext, ibuc);
}

int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sv_ucontext_dealloc(struct ib_ucontext *ibuc);
void sv_ucontext_disassociate(struct ib_ucontext *ibuc);
int sv_ucontext_charge(struct sv_ucontext *uc, size_t bytes);
void sv_ucontext_uncharge(struct sv_ucontext *uc, size_t bytes);

/* sv_pd.c */
struct sv_pd {
	struct ib_pd		ibpd;
};

static inline struct sv_pd *to_sv_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sv_pd, ibpd);
}

int sv_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sv_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* sv_cq.c */
struct sv_cq {
	struct ib_cq		ibcq;

	/* Immutable after create. */
	bool			is_user;	/* ring of ib_uverbs_wc, mapped */

	/*
	 * lock (irqsave: posts come from softirq, kernel consumers may poll
	 * with interrupts off) protects the queue pointer and the kernel's
	 * side(s) of the ring: the producer side for every CQ (sv_cq_post)
	 * and the consumer side of kernel CQs (poll), plus notify and
	 * overrun.  Never held while calling the CQ's handlers.
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

/*
 * Append one completion.  Callable from any context (process, softirq,
 * with or without interrupts disabled); takes cq->lock.  @wc is in kernel
 * form; for a user CQ it is converted to struct ib_uverbs_wc, with qp_num
 * taken from wc->qp (which may be NULL only for completions of no QP).
 * @solicited: the completion is for a message with the Solicited Event bit
 * (a receive whose BTH SE bit was set); a completion with an error status
 * counts as solicited anyway.
 *
 * If the CQ is armed (IB_CQ_NEXT_COMP, or IB_CQ_SOLICITED and this
 * completion is solicited), calls cq->ibcq.comp_handler once and disarms.
 * Returns 0, or -EOVERFLOW when the CQ is full: the CQ then enters the
 * error state, IB_EVENT_CQ_ERR is dispatched once, and every later post
 * fails with -EOVERFLOW too.  The caller must hold the CQ alive: post only
 * through a QP or SRQ that counts in cq->ibcq.usecnt, and finish posting
 * before that QP is destroyed.
 */
int sv_cq_post(struct sv_cq *cq, const struct ib_wc *wc, bool solicited);

int sv_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 sv_create_cq_arg_t arg);
int sv_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int sv_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sv_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sv_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* sv_srq.c */
struct sv_srq {
	struct ib_srq		ibsrq;

	/* Immutable after create. */
	bool			is_user;	/* user produces into the ring */
	u32			srq_num;	/* key in sv->srq_xa */
	u32			max_sge;	/* SGEs per WQE */

	/*
	 * lock (irqsave: the responder pops from softirq, kernel consumers
	 * may post with interrupts off) protects the queue pointer, the
	 * kernel's side(s) of the ring (consumer: sv_srq_pop; producer of
	 * kernel SRQs: post_srq_recv) and limit.  Never held while calling
	 * the SRQ's event handler.
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
 * For the responder: take the oldest receive WQE off @srq into @out, which
 * has room for @out_size bytes (at least sv_srq_wqe_size(srq->max_sge)).
 * Any context; takes srq->lock.
 *
 * User space can rewrite a slot while it is read, so the WQE is copied
 * first and only the copy is checked: num_sge against the SRQ's max_sge.
 * dma.length and dma.resid are recomputed from the SGEs and dma.cur_sge and
 * dma.sge_offset reset, so nothing else in @out comes from user space
 * unchecked except wr_id and the SGEs themselves (which the responder
 * resolves through their lkeys like any SGE).
 *
 * Returns 0 with a valid WQE in @out; -EINVAL if the WQE was malformed (it
 * is consumed and @out->wr_id is valid, for an error completion); -EAGAIN
 * if the SRQ is empty (RNR).  A producer index user space corrupted is
 * taken modulo the ring like any other: it can only make garbage look
 * posted, and a garbage WQE is checked like any other.
 *
 * When taking a WQE leaves fewer WQEs than the armed SRQ limit, the limit
 * is disarmed and IB_EVENT_SRQ_LIMIT_REACHED dispatched, once per arming
 * (IBTA 10.2.9.1, 11.4.3).
 */
int sv_srq_pop(struct sv_srq *srq, struct sv_recv_wqe *out, size_t out_size);

/*
 * Check a private copy of a receive WQE (from an SRQ or a QP's RQ) against
 * @max_sge and rebuild dma.length/resid/cur_sge/sge_offset from its SGEs
 * alone, so nothing but wr_id and the SGEs comes from user space.  -EINVAL
 * if num_sge is too large.
 */
int sv_recv_wqe_check(struct sv_recv_wqe *wqe, u32 max_sge);

int sv_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		  struct ib_udata *udata);
int sv_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		  enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sv_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sv_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int sv_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);

/* sv_qp.c */

/*
 * One work queue (SQ or RQ) of a QP: a shared ring of struct sv_send_wqe or
 * struct sv_recv_wqe slots (uapi/softverbs-abi.h), mapped into the process
 * for user QPs (user space produces, the kernel consumes) and kernel-only for
 * kernel consumers' QPs (post_send/post_recv produce).
 *
 * Locks (both irqsave: kernel consumers post from any context, and the
 * transport consumes from softirq):
 *   producer_lock: the producer side of a kernel QP's ring (posting).
 *   consumer_lock: the consumer side (the transport engine and flushing).
 * Order: producer_lock before consumer_lock (only resetting takes both).
 * Neither is ever held while calling out of the QP (CQ posts, events).
 */
struct sv_wq {
	struct sv_queue		*queue;	/* NULL: the RQ of a QP with an SRQ */
	spinlock_t		producer_lock;
	spinlock_t		consumer_lock;
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
 * So: take references with sv_qp_get_by_qpn() (or sv_mcast_get_qps()),
 * hold them while touching the QP outside the verbs that own it, and drop
 * them with sv_qp_put().  A reference keeps the QP's memory, rings, CQ
 * pointers and path alive; it does not keep the QP out of the ERR state.
 */
struct sv_swqe;

struct sv_qp_handle {
	refcount_t		ref;
	struct sv_qp		*qp;
	struct rcu_head		rcu;
};

struct sv_qp {
	struct ib_qp		ibqp;

	/* Immutable after create. */
	struct sv_qp_handle	*handle;
	bool			is_user;	/* rings mapped, user produces */
	bool			sq_sig_all;	/* IB_SIGNAL_ALL_WR */
	struct sv_wq		sq;
	struct sv_wq		rq;

	/* serialises modify_qp and destroy_qp, which may sleep */
	struct mutex		modify_mutex;

	/*
	 * state_lock (irqsave; the transport moves QPs to ERR/SQE from
	 * softirq) protects state, attr, the path pointer and the PSNs below
	 * as modify_qp sets them.  Lockless readers on the data path use
	 * READ_ONCE(qp->state) and re-check under the lock when it matters.
	 * Never held while calling out of the QP.
	 * Lock order: modify_mutex, then state_lock.
	 */
	spinlock_t		state_lock;
	enum ib_qp_state	state;
	/* as modify_qp set them, for query_qp; ah_attr has no sgid_attr */
	struct ib_qp_attr	attr;
	/* connected QPs from RTR on: see struct sv_path */
	struct sv_path __rcu	*path;

	/*
	 * Requester (sv_req.c).  It works from private copies of the WQEs
	 * it starts (struct sv_swqe, sv_req.h), never from the ring slot
	 * again.  lock (_bh: the completer and the timers run in softirq)
	 * protects every field below except where noted, and the WQE
	 * copies; lock order: req.lock, then sq.consumer_lock.  Never held
	 * across sv_net_xmit() or sv_cq_post().
	 */
	struct {
		/*
		 * Next new PSN to send (sq_psn): set by modify_qp under
		 * state_lock while the requester is idle (before RTS, or
		 * drained in SQD), then the requester's, under lock.
		 */
		u32		psn;
		/*
		 * WQEs the requester has started and the completer not yet
		 * retired: the first in_flight WQEs from the SQ's consumer
		 * index; the rest wait.  Under sq.consumer_lock (changed with
		 * lock held too).  The SQ is drained (SQD) when it is 0.
		 */
		u32		in_flight;
		/* kernel QPs: next send sequence number, under sq.producer_lock */
		u32		ssn;

		spinlock_t	lock;
		struct sv_swqe	*swqe;		/* one per SQ slot */
		/*
		 * Ring index of the WQE whose packets go next: an in-flight
		 * WQE being sent or resent, or (cons + in_flight) & mask
		 * when the next packet starts a new WQE.
		 */
		u32		cur;
		u32		rd_atomic;	/* READ/atomic WQEs outstanding */
		u32		noack_pkts;	/* sent since the last AckReq */
		u8		retry_left;	/* of attr.retry_cnt */
		u8		rnr_left;	/* of attr.rnr_retry (7 = infinite) */
		bool		rnr_wait;	/* RNR NAK: wait for rnr_timer */
		bool		stopped;	/* a WQE failed: send no more */
		/* went back after a loss, no progress since */
		bool		retrying;
		/* local ACK timeout (RC): armed while responses are due */
		struct timer_list retrans_timer;
		struct timer_list rnr_timer;
		/*
		 * The requester runs inline from sv_qp_kick() or in work
		 * (sv_req_wq).  sched counts requests to run; only the
		 * caller that raised it from 0 runs, until it drops back.
		 */
		atomic_t	sched;
		/*
		 * The CPU the requester last sent from (-1: none yet).
		 * Packets sent on one CPU can overtake those still queued
		 * on another (per-CPU backlogs, transmit queues), so a QP
		 * changes CPU only while nothing it sent can
		 * still be on the way (sv_req_sched()).  Read and written
		 * only by the runner (the owner of sched).
		 */
		int		cpu;
		struct work_struct work;
		/* retiring for callers with interrupts off (sv_qp_flush) */
		struct work_struct retire_work;
	} req;
	/*
	 * Completer (sv_comp.c), under req.lock: the oldest PSN not yet
	 * acknowledged.  Packets between comp.psn and req.psn are in flight.
	 */
	struct {
		u32		psn;
	} comp;
	/*
	 * Responder (sv_resp.c).  lock (_bh: requests arrive in softirq,
	 * the read-response work item and reset run in process context)
	 * protects every field below; psn is also written by modify_qp
	 * (INIT->RTR, RESET) under state_lock while the responder is not
	 * active, and read by query_qp.  Lock order: resp.lock, then
	 * state_lock or a work queue's consumer_lock or an SRQ's lock.
	 * Held across sv_net_xmit(), so that responses leave in order;
	 * never across sv_cq_post() or QP events (the one exception: an SRQ
	 * limit event dispatched by sv_srq_pop()).  sv_resp_flush() takes
	 * it irqsave: flushing runs in any context.
	 */
	struct {
		u32		psn;		/* next PSN expected (rq_psn) */
		spinlock_t	lock;
		u32		msn;		/* messages completed (AETH MSN) */
		bool		active;		/* psn taken over from modify_qp */
		bool		dead;		/* an error sent the QP to ERR */
		bool		nak_sent;	/* NAK sent for the current gap */
		bool		drop_msg;	/* UC: drop until First/Only */
		bool		in_msg;		/* a First was accepted, no Last */
		bool		wqe_valid;	/* *wqe is a taken receive WQE */
		bool		serving;	/* the work item sends responses */
		bool		ack_pending;	/* ACK deferred behind responses */
		u32		msg_op;		/* SV_OP_SEND/WRITE of the message */
		u32		ack_psn;	/* PSN of the deferred ACK */
		u32		recv_len;	/* bytes received into *wqe */
		/* RDMA WRITE in progress: where the next payload goes */
		u64		wr_va;
		u32		wr_rkey;
		u32		wr_resid;
		u32		wr_len;
		/* private copy of the current receive WQE (max SGEs) */
		struct sv_recv_wqe *wqe;
		/*
		 * RC responder resources (IBTA 9.7.5.1.4): a ring of
		 * SV_MAX_QP_RD_ATOM RDMA READ / atomic requests, indexed by
		 * sequence numbers: res_head is the next to allocate,
		 * res_serve the oldest whose response is still to be sent.
		 */
		struct sv_resp_res *res;
		u32		res_head;
		u32		res_serve;
		struct work_struct work;	/* sends queued responses */
		/* for rdma resource show (monotonic) */
		u32		rnr_naks;
		u32		seq_naks;
		u32		dup_reqs;
	} resp;

	/* flush requests; see sv_qp_flush() */
	atomic_t		flush_req;

	/* struct sv_mcg_attach of this QP; under sv_mcast_mutex */
	struct list_head	mcast_list;

	/* completed when the last reference (handle->ref) is dropped */
	struct completion	released;
};

static inline struct sv_qp *to_sv_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sv_qp, ibqp);
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
 * References (see struct sv_qp_handle).  sv_qp_get_by_qpn() works in any
 * context and returns NULL for an unknown or dying QPN; sv_qp_get() takes
 * one more reference on a QP the caller already holds.
 */
struct sv_qp *sv_qp_get_by_qpn(struct sv_dev *sv, u32 qpn);

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

/*
 * The path MTU in bytes the transport must use now: the one modify_qp set,
 * capped by the port's active MTU, which follows the netdev and may shrink
 * under a live QP.
 */
int sv_qp_mtu(struct sv_qp *qp);

/*
 * For the transport: @qp's affiliated asynchronous events (any context,
 * no QP lock held).  sv_qp_event() only reports, e.g. IB_EVENT_COMM_EST when
 * the responder receives the first packet in RTR.  sv_qp_error() moves the
 * QP to ERR (flushing both queues, IBTA 10.8.3) and then reports @event if
 * it is not 0: IB_EVENT_QP_FATAL, IB_EVENT_QP_REQ_ERR or
 * IB_EVENT_QP_ACCESS_ERR.  sv_qp_sq_error() moves an RTS UC/UD QP to SQE
 * (a send error there does not break the receive side) and flushes the SQ.
 */
void sv_qp_event(struct sv_qp *qp, enum ib_event_type type);
void sv_qp_error(struct sv_qp *qp, enum ib_event_type event);
void sv_qp_sq_error(struct sv_qp *qp);

/*
 * For the completer, after it retired SQ WQEs (with sq.consumer_lock not
 * held): in SQD with nothing in flight any more, ends the drain and reports
 * IB_EVENT_SQ_DRAINED if the consumer asked for it (IBTA 11.2.4.2,
 * en_sqd_async_notify).
 */
void sv_qp_sq_drain_check(struct sv_qp *qp);

/*
 * The SQ of @qp has new WQEs: librxe's doorbell (post_send with no work
 * requests) and kernel post_send call it.  Any context.  The transport
 * schedules its requester here; in SQE and ERR the new WQEs are flushed.
 */
void sv_qp_kick(struct sv_qp *qp);

/*
 * For the transport: retire finished send WQEs into the send CQ in order
 * and, in SQE and ERR, flush the rest (IBTA 10.8.3).  Any context; one
 * retirer at a time per QP (see sv_qp_flush()).
 */
void sv_qp_sq_complete(struct sv_qp *qp);
void sv_qp_flush_resume(struct sv_qp *qp);
bool sv_qp_flush_idle(struct sv_qp *qp);

/* the completion opcode of a send WQE's opcode (IB_WC_SEND if unknown) */
enum ib_wc_opcode sv_qp_send_wc_opcode(u32 wr_opcode);

/*
 * For the transport: check a send WQE taken from a user SQ.  @wqe must be
 * a private copy of the whole slot, because user space may rewrite the ring
 * at any time.  Checks the opcode against the QP type, the send flags,
 * num_sge or the inline length against the QP's capacities, and recomputes
 * dma.length/dma.resid from the SGEs (resetting cur_sge and sge_offset).
 * For UD QPs the address comes from wr.ud.ah_num (see sv_ah_path_rcu()) or,
 * when that is 0, from wr.ud.av (see sv_path_from_user_av()).  Returns 0 or
 * -EINVAL: complete the WQE with IB_WC_LOC_QP_OP_ERR.
 */
int sv_qp_check_send_wqe(struct sv_qp *qp, struct sv_send_wqe *wqe);

int sv_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		 struct ib_udata *udata);
int sv_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata);
int sv_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init);
int sv_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
int sv_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sv_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/* sv_req.c: the requester's work queue, and its part of flushing */
int sv_req_wq_create(void);
void sv_req_wq_destroy(void);
void sv_req_defer_retire(struct sv_qp *qp);
/* make the requester run (inline when it can, else in work); any context */
void sv_req_sched(struct sv_qp *qp);

/* sv_comp.c: retiring send WQEs, for sv_qp_flush() only */
void sv_comp_retire(struct sv_qp *qp, bool flush);

/* sv_av.c: address handles and the paths of address vectors */

/*
 * A resolved RoCE path: what the transport needs to address a packet,
 * derived from an address vector (rdma_ah_attr) and checked.  Immutable
 * once published.  Its owner (an AH, or a connected QP's primary path in
 * qp->path) frees it with kfree_rcu(), so the transport reads it under
 * rcu_read_lock() without taking a reference.
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
};

struct sv_path *sv_path_create(struct sv_dev *sv,
			       const struct rdma_ah_attr *attr,
			       unsigned int flags, gfp_t gfp);

/*
 * For the transport, UD sends: the path of AH number @ah_num (from a send
 * WQE), or NULL if there is no such AH or it belongs to another PD than
 * @pd.  Call under rcu_read_lock(); the path stays valid until
 * rcu_read_unlock().
 */
const struct sv_path *sv_ah_path_rcu(struct sv_dev *sv, u32 ah_num,
				     const struct ib_pd *pd);

/*
 * For the transport, UD sends of old user libraries (ah_num 0): check the
 * address vector user space wrote into a send WQE (a private copy) and
 * build @path from it.  Only the port, network type, source GID index and
 * the GRH fields are taken from @uav; the addresses come from the GID table
 * and dgid, and the destination MAC from the neighbour table, never from
 * what user space claims.  Softirq or process context (SV_PATH_ROUTE).
 * Returns 0 or a negative errno (complete the WQE with an error).
 */
int sv_path_from_user_av(struct sv_dev *sv, const struct sv_av *uav,
			 struct sv_path *path);

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

int sv_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		 struct ib_udata *udata);
int sv_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sv_ah_destroy(struct ib_ah *ibah, u32 flags);

/* sv_mcast.c: multicast groups of UD QPs */
int sv_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sv_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sv_mcast_detach_all(struct sv_qp *qp);

/*
 * For the receive path: take a reference on up to @max QPs attached to
 * @mgid, store them in @qps and return how many (drop each with
 * sv_qp_put()).  Any context.  SV_MAX_MCAST_QP_ATTACH is enough for @max.
 */
unsigned int sv_mcast_get_qps(struct sv_dev *sv, const union ib_gid *mgid,
			      struct sv_qp **qps, unsigned int max);

/* sv_mr.c: memory regions, and the key space shared with memory windows */

/*
 * L_Keys and R_Keys.  Every MR and MW owns one index in sv_dev.mr_xa
 * (1..SV_MKEY_INDEX_MAX); its keys are index << 8 | variant, and an MR's
 * L_Key and R_Key are equal.  The variant is the low byte IBTA 10.6 leaves
 * to the consumer: it changes when a fast-reg consumer says so
 * (ib_update_fast_reg_key, then REG_MR), on every window bind (the new
 * R_Key comes with the bind), on every in-place rereg, and on every reuse
 * of an index (a freed index keeps a tombstone remembering its last
 * variant; indices are handed out cyclically).  A key matches only with
 * its exact variant, so keys of a freed or re-keyed object are stale.
 *
 * Lifetime: struct sv_mkey heads every object in mr_xa.  Lookups run in any
 * context (the receive path is softirq): under RCU they find the object
 * and take a reference with refcount_inc_not_zero().  Destruction removes
 * the object from mr_xa (sv_mkey_unpublish), drops the owner's reference,
 * waits until every lookup reference is gone (sv_mkey_wait) and frees the
 * memory after an RCU grace period.  So a transport holding a reference
 * can always touch the object, and deregistration returns only after the
 * last in-flight access through the key finished, as IBTA requires.
 */
enum sv_mkey_type {
	SV_MKEY_MR,
	SV_MKEY_MW,
};

#define SV_MKEY_VARIANT_MASK	0xffU

struct sv_mkey {
	u32			key;	/* written under the owner's lock */
	enum sv_mkey_type	type;	/* immutable */
	refcount_t		ref;	/* owner + lookups */
	struct completion	released;	/* ref reached zero */
	struct rcu_head		rcu;
};

/* IBTA 10.6 memory region states */
enum sv_mr_state {
	SV_MR_INVALID,		/* being deregistered or re-registered */
	SV_MR_FREE,		/* fast-reg L_Key allocated, no translation */
	SV_MR_VALID,		/* usable through its key */
};

enum sv_mr_kind {
	SV_MR_DMA,		/* a kernel PD's DMA MR: kernel addresses */
	SV_MR_USER,		/* reg_user_mr: pinned user pages */
	SV_MR_FAST,		/* alloc_mr MEM_REG: page list by REG_MR */
};

/* a fast-register page list: page_size blocks of kernel addresses */
struct sv_mr_pages {
	u64			*addrs;		/* max_pages entries */
	u32			npages;
	u32			page_shift;
	u32			offset;		/* of the first byte in addrs[0] */
};

struct sv_mr {
	struct ib_mr		ibmr;
	struct sv_mkey		mkey;

	/* Immutable after creation. */
	struct sv_dev		*sv;
	enum sv_mr_kind		kind;

	/*
	 * lock (a seqlock; writers take it _bh since the transport changes
	 * state from softirq) protects state, pd, access, iova, length, the
	 * key variant, active/staged and num_mw.  Lookups read it locklessly
	 * and retry; copies into fast-reg MRs take it exclusively
	 * (read_seqlock_excl_bh) so an invalidate or fast-reg waits for
	 * them; num_mw is changed under the exclusive lock only.
	 */
	seqlock_t		lock;
	enum sv_mr_state	state;
	struct ib_pd		*pd;	/* ours: ib_core moves ibmr.pd itself */
	int			access;	/* IB_ACCESS_* */
	u64			iova;	/* the valid translation: its start... */
	u64			length;	/* ...and length */
	unsigned int		num_mw;	/* windows bound (IBTA 10.6.7.2.1) */

	/* SV_MR_USER: immutable after creation (a new translation is a new MR) */
	struct ib_umem		*umem;
	struct page		**pages;	/* npages pinned pages */
	unsigned long		npages;
	unsigned int		page_offset;	/* of iova in pages[0] */

	/*
	 * SV_MR_FAST: map_mr_sg fills *staged, REG_MR swaps it with *active
	 * (under lock), so a registration can be staged while the previous
	 * one is still valid.
	 */
	struct sv_mr_pages	*active;
	struct sv_mr_pages	*staged;
	struct sv_mr_pages	lists[2];
	u32			max_pages;
};

/* [iova, iova + len) inside [base, base + size), without overflow */
static inline bool sv_mr_range_ok(u64 base, u64 size, u64 iova, u64 len)
{
	return iova >= base && len <= size && iova - base <= size - len;
}

enum sv_copy_dir {
	SV_COPY_TO_MR,		/* from the buffer into the region */
	SV_COPY_FROM_MR,	/* from the region into the buffer */
};

/*
 * Transport API.  @pd is the PD of the QP doing the access and @qpn its
 * number; all functions take any context unless said otherwise.
 *
 * sv_mr_lookup: resolve @key for an access of @length bytes at *@iova.
 * @access is the right the access needs: 0 for a local read (gather of a
 * send or RDMA write), IB_ACCESS_LOCAL_WRITE for a local write (receive
 * scatter, read response, atomic result), or one of IB_ACCESS_REMOTE_READ,
 * _WRITE, _ATOMIC for an incoming request, where @key is an R_Key and may
 * name an MR or a window.  The key must match exactly (variant included),
 * name a valid MR or a bound window of @pd (a type 2 window: bound to
 * @qpn) that grants @access, and cover the range.  On success returns the
 * MR with a reference (drop with sv_mr_put()) and, for a window, changes
 * *@iova into the MR's address space (zero-based windows).  Errors:
 * -EINVAL unknown, stale or invalid key (or a window key used as L_Key),
 * -EACCES PD, QP or rights mismatch, -ERANGE outside the region/window.
 * IBTA maps all of them to a Local Protection Error (local) or a Remote
 * Access Error NAK (remote).  IBTA does not validate the R_Key of a
 * zero-length RDMA, so the transport skips the lookup then; a zero-length
 * lookup of a valid key passes.
 *
 * sv_mr_copy: copy @len bytes between @buf and the MR at @iova (an address
 * sv_mr_lookup() accepted).  Re-checks the range; for a fast-reg MR also
 * that it is still valid (-EINVAL if it was invalidated since the lookup),
 * holding its lock for the copy: copy at most a packet's worth per call.
 *
 * sv_mr_atomic: an 8-byte atomic at @iova (-EINVAL if not 8-byte
 * aligned): compare-and-swap (@compare_add compared, @swap stored),
 * fetch-and-add (@compare_add added), in host byte order, or an atomic
 * write (@compare_add stored as it is: the bytes of an IBTA 1.5 ATOMIC
 * WRITE); *@orig gets the old value.  Atomic against the CPU and other
 * softverbs atomics, and a full barrier.
 *
 * sv_mr_fast_reg: execute a REG_MR work request (struct ib_reg_wr): make
 * the page list staged by ib_map_mr_sg() the MR's translation, with
 * ibmr->iova/length as they are now, @access and @key (whose index must
 * be the MR's).  The MR must be a fast-reg MR of @pd in the Free state.
 * -EINVAL/-EACCES/-EOPNOTSUPP: complete the WR in error.
 *
 * sv_mr_invalidate: LOCAL_INV (@remote false) or SEND with Invalidate
 * (@remote true) of @key: a fast-reg MR of @pd (Valid or Free -> Free;
 * -EBUSY while windows are bound) or a type 2 window of @pd (Valid ->
 * Free; for @remote it must be bound to @qpn).
 */
struct sv_mr *sv_mr_lookup(struct sv_dev *sv, u32 key, struct ib_pd *pd,
			   u32 qpn, int access, u64 *iova, u64 length);
int sv_mr_copy(struct sv_mr *mr, u64 iova, void *buf, u32 len,
	       enum sv_copy_dir dir);
enum sv_atomic_op {
	SV_ATOMIC_FETCH_ADD,
	SV_ATOMIC_CMP_SWAP,
	SV_ATOMIC_WRITE,
};

int sv_mr_atomic(struct sv_mr *mr, u64 iova, enum sv_atomic_op op,
		 u64 compare_add, u64 swap, u64 *orig);
int sv_mr_fast_reg(struct ib_mr *ibmr, struct ib_pd *pd, u32 key, int access);
int sv_mr_invalidate(struct sv_dev *sv, u32 key, struct ib_pd *pd, u32 qpn,
		     bool remote);

/* key space, for sv_mr.c and sv_mw.c */
void sv_mkey_init(struct sv_mkey *mk, enum sv_mkey_type type);
int sv_mkey_publish(struct sv_dev *sv, struct sv_mkey *mk);
void sv_mkey_unpublish(struct sv_dev *sv, struct sv_mkey *mk);
struct sv_mkey *sv_mkey_get(struct sv_dev *sv, u32 key);
void sv_mkey_put(struct sv_mkey *mk);
void sv_mkey_wait(struct sv_dev *sv, struct sv_mkey *mk);
void sv_mkey_count_put(struct sv_dev *sv, atomic_t *count);

static inline void sv_mr_put(struct sv_mr *mr)
{
	sv_mkey_put(&mr->mkey);
}

/* binding windows (for sv_mw.c): take/give back one of mr->num_mw */
int sv_mr_mw_attach(struct sv_mr *mr, u32 lkey, struct ib_pd *pd, u64 addr,
		    u64 length, int mw_access);
void sv_mr_mw_detach(struct sv_mr *mr);

struct ib_mr *sv_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sv_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
			       u64 length, u64 iova, int access,
			       struct ib_pd *pd, struct ib_udata *udata);
int sv_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sv_mr_alloc_fast(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int sv_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset);

/* sv_mw.c: memory windows */

/* IBTA 10.6.7.1 window states */
enum sv_mw_state {
	SV_MW_INVALID,		/* being deallocated */
	SV_MW_FREE,		/* allocated, not bound */
	SV_MW_VALID,		/* bound: usable through its R_Key */
};

/*
 * A window's state.  Lookups find it under RCU, but ib_core allocates the
 * ib_mw (struct sv_mw_obj) and kfree()s it right after dealloc_mw, with no
 * grace period; so the window lives in its own allocation, freed like an
 * MR (see struct sv_mkey), and sv_mw_obj only points to it.
 */
struct sv_mw {
	struct sv_mkey		mkey;

	/* Immutable after allocation. */
	struct sv_dev		*sv;
	enum ib_mw_type		type;
	struct ib_pd		*pd;

	/*
	 * lock (_bh: binds and invalidates come from the transport) protects
	 * state, the key variant and the binding below.  Lock order: a
	 * window's lock, then its MR's.
	 */
	spinlock_t		lock;
	enum sv_mw_state	state;
	struct sv_mr		*mr;	/* bound MR: a reference and a num_mw */
	u64			addr;	/* in the MR's address space */
	u64			length;
	int			access;	/* remote rights | IB_ZERO_BASED */
	u32			qpn;	/* type 2: the QP it is bound to */
};

struct sv_mw_obj {
	struct ib_mw		ibmw;
	struct sv_mw		*mw;
};

static inline struct sv_mw *to_sv_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sv_mw_obj, ibmw)->mw;
}

/* a BIND_MW work request, as librxe posts it (struct sv_send_wr wr.mw) */
struct sv_mw_bind_args {
	u32			mw_rkey;	/* names the window (by index) */
	u32			new_rkey;	/* its R_Key after the bind */
	u32			mr_lkey;	/* unused for a length 0 bind */
	u64			addr;
	u64			length;
	int			access;		/* IB_ACCESS_* of the window */
};

/*
 * sv_mw_bind: execute a BIND_MW work request posted on QP @qpn of @pd, for
 * a type 1 (ibv_bind_mw) or type 2 window, with the checks of IBTA
 * 10.6.7.2: the window named by its index, the MR by its exact L_Key; QP,
 * window and MR in one PD; the MR valid with IB_ACCESS_MW_BIND; a writable
 * window only on an MR with local write; the window inside the MR; type 1
 * not zero-based (and rebindable), type 2 Free and of non-zero length.  A
 * type 1 bind of length 0 unbinds.  The window's R_Key becomes
 * @args->new_rkey.  Returns 0 or -EINVAL/-EACCES/-ERANGE: complete the WR
 * with IB_WC_MW_BIND_ERR.
 *
 * sv_mw_invalidate: see sv_mr_invalidate(), which calls it for window keys.
 * sv_mw_resolve: see sv_mr_lookup(), which calls it for window keys.
 *
 * sv_mw_invalidate_qp: QP @qpn is being destroyed: every type 2 window
 * bound to it goes back to Free (nothing else could use it, and its MR
 * can be deregistered again).  Process context; walks all keys.
 */
int sv_mw_bind(struct sv_dev *sv, struct ib_pd *pd, u32 qpn,
	       const struct sv_mw_bind_args *args);
int sv_mw_invalidate(struct sv_mw *mw, u32 rkey, struct ib_pd *pd, u32 qpn,
		     bool remote);
struct sv_mr *sv_mw_resolve(struct sv_mw *mw, u32 rkey, struct ib_pd *pd,
			    u32 qpn, int access, u64 *iova, u64 length);
void sv_mw_invalidate_qp(struct sv_dev *sv, u32 qpn);

int sv_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata);
int sv_mw_dealloc(struct ib_mw *ibmw);

#endif /* SV_H */
