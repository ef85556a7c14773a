/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester (sv_req.c): its state in a QP, struct sv_req_state,
 * which sv_verbs.h reads to embed it in struct sv_qp; then what it and
 * the completer (sv_comp.c) share: the private copy of every send WQE
 * they work on, and the requester's calls.  That second part is for those
 * two files: sv_qp.c sees only sv_xport.h and sv.h.
 *
 * A send WQE's life (all under qp->req.lock):
 *
 *   ring slot --copy--> SENDING --last request packet--> SENT --response--> DONE
 *                          |                                                 ^
 *                          +-- local op, UC/UD send, or a local error -------+
 *
 * DONE WQEs are retired in ring order by the completer, the one owner of
 * retiring (sv_comp_retire()): it posts their completions and hands the
 * slots back.  "In flight" (qp->req.in_flight) counts the WQEs from the
 * SQ's consumer index that have a copy here.
 */
#ifndef SV_REQ_STATE_H
#define SV_REQ_STATE_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "sv_net_dest.h"
#include "sv_task.h"

struct mem_cgroup;
struct sv_swqe;

/*
 * The requester's part of a QP (qp->req).  It works from private
 * copies of the WQEs it starts (struct sv_swqe, below), never from the
 * ring slot again.  lock (_bh: the completer and the timers run in softirq)
 * protects every field below except where noted, the WQE copies
 * and the consumer side of the SQ (struct sv_wq); lock order:
 * req.lock, then sq.producer_lock, never with resp.lock
 * (Documentation/design.md, "Locking").  Never held across
 * sv_net_xmit() or sv_cq_post().
 */
struct sv_req_state {
	/*
	 * Next new PSN to send (sq_psn): set by modify_qp under
	 * state_lock while the requester is idle (before RTS, or
	 * drained in SQD), then the requester's, under lock.
	 */
	u32		psn;
	/*
	 * WQEs the requester has started and the completer not yet
	 * retired: the first in_flight WQEs from the SQ's consumer
	 * index; the rest wait.  Under lock, like the SQ's consumer
	 * index.  The SQ is drained (SQD) when it is 0.
	 */
	u32		in_flight;
	/* kernel QPs: next send sequence number, under sq.producer_lock */
	u32		ssn;

	spinlock_t	lock;
	/*
	 * WQE copies, from the first RTS on (NULL before): a power
	 * of two, swqe_mask + 1, of them, at most one per SQ slot
	 * (sv_req_swqe()); growing: sv_req_grow_work() is queued
	 * to make them one per slot
	 */
	struct sv_swqe	*swqe;
	size_t		swqe_bytes;	/* of swqe, charged to uc */
	u32		swqe_mask;
	/*
	 * sv_swqe_copy(swqe, swqe_mask + 1, 0, wqe_size), and
	 * sv_req_wqe_size(): set with swqe, so that finding a WQE's
	 * copy is one multiply-add (sv_req_wqe())
	 */
	u32		wqe_size;
	u8		*wqe_copies;
	bool		growing;
	struct work_struct grow_work;
	/* user QPs: the memory cgroup the growth is charged to */
	struct mem_cgroup *memcg;
	/*
	 * Ring index of the WQE whose packets go next: an in-flight
	 * WQE being sent or resent, or (cons + in_flight) & mask
	 * when the next packet starts a new WQE.
	 */
	u32		cur;
	u32		rd_atomic;	/* READ/atomic WQEs outstanding */
	/*
	 * The requester waits for the completer: for the window to open
	 * (SV_REQ_WINDOW), or a WQE for READs and atomics to retire (a
	 * fence, max_rd_atomic).  The completer clears it and runs the
	 * requester when it makes progress or one retires; until then a
	 * doorbell does not (sv_qp_kick()), and progress alone does not.
	 * Written under req.lock, read without by sv_qp_kick().
	 */
	bool		held;
	u32		noack_pkts;	/* sent since the last AckReq */
	/*
	 * A SEND or WRITE packet went out without AckReq since the
	 * last one that asked (or a READ/atomic request, whose
	 * response acknowledges what came before it): its ACK is
	 * owed until a later packet asks, or tail_timer does.
	 */
	bool		ack_owed;
	/* tail_timer resent the newest packet: it asks, and is no retry */
	bool		tail_ask;
	/*
	 * jiffies of the requester's latest idle run with ack_owed:
	 * tail_timer is due SV_REQ_TAIL_JIFFIES after it.  Written by the
	 * runner, read by the timer, which moves itself on when it fires
	 * early (sv_req_tail_timeout()).
	 */
	unsigned long	tail_from;
	/*
	 * sv_ack_timeout_jiffies() of attr.timeout (0: never), kept by
	 * modify_qp so that packets do not convert it each time
	 */
	unsigned long	ack_timeout_j;
	u8		retry_left;	/* of attr.retry_cnt */
	u8		rnr_left;	/* of attr.rnr_retry (7 = infinite) */
	bool		rnr_wait;	/* RNR NAK: wait for rnr_timer */
	/*
	 * an ODP page fault of a local SGE is being resolved: send
	 * nothing until it is, then from comp.psn if odp_resend
	 * (a response could not be placed and was dropped)
	 */
	bool		odp_wait;
	bool		odp_resend;
	bool		stopped;	/* a WQE failed: send no more */
	/* went back after a loss, no progress since */
	bool		retrying;
	/*
	 * local ACK timeout (RC): armed while responses are due.  Under
	 * lock, retrans_on says it runs and retrans_due when it is due;
	 * the timer itself moves lazily (sv_req_arm_retrans_locked(),
	 * sv_req_stop_retrans_locked()): it may fire early, then moves
	 * itself on to retrans_due, or find retrans_on clear and stop.
	 * Whenever retrans_on is set, retrans_timer is pending with
	 * expires <= retrans_due, or its callback is running.
	 */
	bool		retrans_on;
	unsigned long	retrans_due;
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	/* the requester idle with an ACK owed: ask (sv_req_tail_timeout()) */
	struct timer_list tail_timer;
	/*
	 * The requester runs inline from sv_qp_kick() or in work
	 * (sv_req_wq), one runner at a time (struct sv_task).
	 * task.cpu is the CPU the requester last sent from
	 * (WORK_CPU_UNBOUND: none yet).  Packets sent on one CPU can
	 * overtake those still queued on another (per-CPU backlogs,
	 * transmit queues), so a QP changes CPU only while nothing
	 * it sent can still be on the way (sv_req_sched()).  Read
	 * and written only by the runner.
	 */
	struct sv_task	task;
	/*
	 * UD, GSI: in its PD's ud_qps (sv_req_ud_add()), under the PD's
	 * ud_lock, not lock
	 */
	struct list_head pd_entry;
	/* where local frames went last (sv_net_pkt_alloc()) */
	struct sv_net_dest dest;
};

#endif /* SV_REQ_STATE_H */

/* The rest needs the whole struct sv_qp: not read from sv_verbs.h. */
#if !defined(SV_XPORT_STATE_ONLY) && !defined(SV_REQ_H)
#define SV_REQ_H

#include "sv.h"
#include "sv_comp.h"
#include "sv_xport.h"

enum sv_swqe_state {
	SV_SWQE_SENDING,	/* started; request packets remain */
	SV_SWQE_SENT,		/* RC: every request packet went out once */
	SV_SWQE_DONE,		/* finished, status final: retire in order */
};

enum sv_swqe_flags {
	SV_SWQE_SIGNALED	= BIT(0),	/* completes even on success */
	/* READ or atomic: counts in req.rd_atomic until retired */
	SV_SWQE_RD_ATOMIC	= BIT(1),
	/* RC READ/atomic: its response carries data (not an ACK) */
	SV_SWQE_RESP		= BIT(2),
	SV_SWQE_ACKED		= BIT(3),	/* RC: finished by an ACK */
	/*
	 * FLUSH, ATOMIC WRITE: their response is a zero-length RDMA READ
	 * Response Only (IBTA 1.5), but an ACK covering the PSN ends them too
	 */
	SV_SWQE_ACK_ENDS	= BIT(4),
	/* its packets go as skbs (not local frames): no more look-ups */
	SV_SWQE_REMOTE		= BIT(5),
};

/**
 * struct sv_swqe - the requester's state of one send WQE, whose private
 * copy (checked, never re-read from the ring) is sv_req_wqe()'s
 * @first_psn:	PSN of its first request packet
 * @last_psn:	PSN of its last packet: the last request packet, or for a
 *		READ the last response packet
 * @npkts:	request packets (a READ request is one packet)
 * @next:	index of the next request packet to (re)send
 * @mtu:	path MTU the WQE is segmented with (fixed at start, so a
 *		retransmission sends the same packets)
 * @resp_len:	READ: response bytes received and placed so far
 * @state:	enum sv_swqe_state
 * @status:	enum ib_wc_status once DONE
 * @wc_opcode:	enum ib_wc_opcode of its completion
 * @flags:	enum sv_swqe_flags
 * @wr_flags:	SV_WR_* flags of its opcode (sv_opcode_wr_flags()), from
 *		its start on
 */
struct sv_swqe {
	u32			first_psn;
	u32			last_psn;
	u32			npkts;
	u32			next;
	u32			mtu;
	u32			resp_len;
	u8			state;
	u8			status;
	u8			wc_opcode;
	u8			flags;
	u16			wr_flags;
};

/* RC packets that may go without AckReq before one asks (sv_req_ask_ack()) */
#define SV_REQ_ACKREQ_EVERY	32
/*
 * How long an idle requester leaves its newest packets unasked before
 * tail_timer asks: more than one tick (jiffies + 1 can expire at once)
 */
#define SV_REQ_TAIL_JIFFIES	2

/* sv_req.c */
extern struct workqueue_struct *sv_req_wq;
void sv_req_resend_locked(struct sv_qp *qp, u32 psn);
/*
 * The local ACK timer, under req.lock: arm (@restart: measure again from
 * now, progress was made), or stop it because nothing is unanswered.
 * Neither need touch the timer wheel (struct sv_req_state, retrans_on).
 */
void sv_req_arm_retrans_locked(struct sv_qp *qp, bool restart);
void sv_req_stop_retrans_locked(struct sv_qp *qp);
int sv_req_sge_copy(struct sv_qp *qp, const struct sv_send_wqe *wqe, u32 off,
		    void *buf, u32 len, enum sv_copy_dir dir);
int sv_req_sge_place(struct sv_qp *qp, const struct sv_send_wqe *wqe, u32 off,
		     const struct sv_pay *src, u32 len);

static inline u32 sv_req_mask(const struct sv_qp *qp)
{
	return qp->sq.queue->index_mask;
}

/*
 * The copy of the WQE at ring index @idx: the copies are fewer than the
 * slots until the QP needs them all (sv_req_grow_work()), a power of two
 * no smaller than the WQEs in flight, so those never share one.
 */
static inline struct sv_swqe *sv_req_swqe(const struct sv_qp *qp, u32 idx)
{
	return &qp->req.swqe[idx & qp->req.swqe_mask];
}

/* One WQE copy: as large as the QP's WQEs, 8-byte fields aligned */
static inline size_t sv_req_wqe_size(const struct sv_qp *qp)
{
	return ALIGN(sv_qp_send_wqe_size(qp), 16);
}

/*
 * Copy @i of @n states and copies allocated together (sv_req_alloc()):
 * the states first, then the copies in the same order.  No pointer in
 * each state: 8 bytes of every copy, and what decides how many copies
 * fit a slab block.
 */
static inline struct sv_send_wqe *sv_swqe_copy(struct sv_swqe *swqe, u32 n,
					       u32 i, size_t wqe_size)
{
	return (struct sv_send_wqe *)((u8 *)swqe +
				      ALIGN(n * sizeof(*swqe), 16) +
				      i * wqe_size);
}

/* The private copy of @sw's WQE; @sw is one of qp->req.swqe */
static inline struct sv_send_wqe *sv_req_wqe(const struct sv_qp *qp,
					     const struct sv_swqe *sw)
{
	return (struct sv_send_wqe *)(qp->req.wqe_copies +
				      (sw - qp->req.swqe) * qp->req.wqe_size);
}

/* Bytes of @n states and WQE copies (sv_swqe_copy()) */
static inline size_t sv_req_swqe_bytes(const struct sv_qp *qp, u32 n)
{
	return ALIGN(n * sizeof(struct sv_swqe), 16) +
	       array_size(n, sv_req_wqe_size(qp));
}

/* what the first WQE copies of a QP (sv_req_alloc()) may take */
#define SV_REQ_SWQE_FIRST_BYTES	1024U
/* ... unless that is fewer than this many */
#define SV_REQ_SWQE_FIRST_MIN	2U

/*
 * How many WQE copies an RC or XRC QP starts with: as many as fit one
 * SV_REQ_SWQE_FIRST_BYTES block (4 of one or no SGE), a power of two, at
 * least SV_REQ_SWQE_FIRST_MIN, at most one per SQ slot.
 */
static inline u32 sv_req_swqe_first(const struct sv_qp *qp)
{
	u32 n = qp->sq.queue->index_mask + 1;

	while (n > SV_REQ_SWQE_FIRST_MIN &&
	       sv_req_swqe_bytes(qp, n) > SV_REQ_SWQE_FIRST_BYTES)
		n /= 2;
	return n;
}

#endif /* SV_REQ_H */
