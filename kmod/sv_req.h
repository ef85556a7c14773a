/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the requester (sv_req.c) and the completer (sv_comp.c) share: the
 * private copy of every send WQE they work on, and the calls between them.
 * Nothing here is for other files: sv_qp.c sees only sv_xport.h and sv.h.
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
#ifndef SV_REQ_H
#define SV_REQ_H

#include "sv.h"
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
};

/**
 * struct sv_swqe - the requester's state of one send WQE
 * @wqe:	private copy of the ring slot (checked, never re-read)
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
 */
struct sv_swqe {
	struct sv_send_wqe	*wqe;
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
void sv_req_arm_retrans_locked(struct sv_qp *qp, bool restart);
int sv_req_sge_copy(struct sv_qp *qp, const struct sv_send_wqe *wqe, u32 off,
		    void *buf, u32 len, enum sv_copy_dir dir);

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

/* WQE copies a QP starts with (sv_req_alloc()): what fits in a page */
#define SV_REQ_SWQE_FIRST	8U

/* sv_comp.c; sv_comp_init() from sv_req_init(): the retiring task */
void sv_comp_init(struct sv_qp *qp);
void sv_comp_retrans_timeout(struct timer_list *t);
void sv_comp_rnr_timeout(struct timer_list *t);
void sv_comp_fail_locked(struct sv_qp *qp, struct sv_swqe *sw,
			 enum ib_wc_status status);

#endif /* SV_REQ_H */
