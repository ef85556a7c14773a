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
	return sv_swqe_copy(qp->req.swqe, qp->req.swqe_mask + 1,
			    sw - qp->req.swqe, sv_req_wqe_size(qp));
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

/* sv_comp.c; sv_comp_init() from sv_req_init(): the retiring task */
void sv_comp_init(struct sv_qp *qp);
void sv_comp_retrans_timeout(struct timer_list *t);
void sv_comp_rnr_timeout(struct timer_list *t);
void sv_comp_fail_locked(struct sv_qp *qp, struct sv_swqe *sw,
			 enum ib_wc_status status);

#endif /* SV_REQ_H */
