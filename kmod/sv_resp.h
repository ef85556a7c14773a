/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The responder: its state in a QP, struct sv_resp_state, which
 * sv_verbs.h reads to embed it in struct sv_qp; then what the responder's
 * three files share (IBTA 9.7-9.9): sv_resp.c accepts
 * requests (packet checks, PSN sequence, receive WQEs, SEND and RDMA WRITE
 * placement, the RC/UC/UD entry points); sv_resp_res.c runs the responder
 * resources (RDMA READ, atomics, FLUSH, ATOMIC WRITE, their replay for
 * duplicates, and the work item that sends long read responses);
 * sv_resp_pkt.c builds the response packets, ACKs and NAKs and sends them.
 *
 * The second part is for those files: sv_qp.c and sv_recv.c see only
 * the responder's entry points in sv_xport.h.  The calls below that take
 * a QP run under qp->resp.lock unless they say otherwise (see struct
 * sv_resp_state); those that need it assert it.
 */
#ifndef SV_RESP_STATE_H
#define SV_RESP_STATE_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "sv_net_dest.h"

struct sv_recv_wqe;
struct sv_resp_res;
struct sv_srq;

/*
 * The responder's part of a QP (qp->resp).  lock (_bh: requests
 * arrive in softirq, the read-response work item and reset run in
 * process context) protects every field below and the consumer side of the RQ
 * (struct sv_wq); psn is also written by modify_qp (INIT->RTR,
 * RESET) under state_lock while the responder is not active, and
 * read by query_qp.  Lock order: resp.lock, then state_lock or
 * rq.producer_lock or an SRQ's lock, never with req.lock
 * (Documentation/design.md, "Locking").
 * Held across sv_net_xmit(), so that responses leave in order;
 * never across sv_cq_post() or QP events (the one exception: an SRQ
 * limit event dispatched by sv_srq_pop()).  Always taken _bh: no
 * path reaches it with interrupts off (the flush with error runs in
 * the completer's task, which defers then).
 */
struct sv_resp_state {
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
	/*
	 * private copy of the current receive WQE, wqe_size bytes
	 * (immutable after create: see sv_resp_init())
	 */
	struct sv_recv_wqe *wqe;
	u32		wqe_size;
	/*
	 * XRC target (IBTA A14): the XRC SRQ the packet being
	 * processed names, with a reference (sv_srq_get_xrc()),
	 * NULL between packets; the number of the SRQ the held
	 * WQE came from, which the rest of its message must name
	 * and whose CQ gets its completion.
	 */
	struct sv_srq	*xrc_srq;
	u32		xrc_wqe_srqn;
	/*
	 * RC responder resources (IBTA 9.7.5.1.4): a ring of
	 * res_size RDMA READ / atomic requests, indexed by
	 * sequence numbers: res_head is the next to allocate,
	 * res_serve the oldest whose response is still to be sent.
	 * res_size is a power of two, at least max_dest_rd_atomic:
	 * the ring is allocated (NULL and 0 before) and grown by
	 * modify_qp when it sets that attribute
	 * (sv_resp_res_reserve()), never shrunk.
	 */
	struct sv_resp_res *res;
	u32		res_size;
	u32		res_head;
	u32		res_serve;
	struct work_struct work;	/* sends queued responses */
	/* a response's ODP page is being faulted: serve after */
	bool		odp_wait;
	/*
	 * RC: the request packet that missed an ODP page (RNR
	 * NAKed) and those that came right after it, copies, at
	 * most SV_RESP_ODP_PARK, placed by sv_resp_odp_fault()
	 * under the fault's lock if still expected then
	 */
	struct sk_buff_head odp_q;
	/*
	 * a NAK held back behind queued responses, sent once they
	 * are out (enum sv_resp_defer: a PSN gap, or an RNR or ODP
	 * miss)
	 */
	u8		nak_deferred;
	/* for rdma resource show (monotonic) */
	u32		rnr_naks;
	u32		seq_naks;
	u32		dup_reqs;
	/* where local frames went last (sv_net_pkt_alloc()) */
	struct sv_net_dest dest;
};

#endif /* SV_RESP_STATE_H */

/* The rest needs the whole struct sv_qp: not read from sv_verbs.h. */
#if !defined(SV_XPORT_STATE_ONLY) && !defined(SV_RESP_H)
#define SV_RESP_H

#include "sv.h"
#include "sv_xport.h"

enum sv_res_type {
	SV_RES_NONE,	/* zeroed: never held a request */
	SV_RES_READ,
	SV_RES_ATOMIC,
	SV_RES_FLUSH,
	SV_RES_ATOMIC_WRITE,
};

/*
 * One responder resource: an RDMA READ or atomic request (IBTA 9.7.5.1.4).
 * A READ's cursors and an atomic's operands share their room: a resource
 * is one or the other for its life (sv_resp_res_new() zeroes it), and 64
 * bytes make the usual 16 of a connection one 1 KiB block.
 */
struct sv_resp_res {
	u8		type;		/* enum sv_res_type */
	bool		pending;	/* response (still) to be sent */
	bool		executed;	/* atomic: done, orig is valid */
	bool		cmp_swap;	/* atomic: compare & swap (else add) */
	u32		first_psn;	/* request PSN */
	u32		last_psn;	/* last response PSN */
	u32		msn;		/* MSN of its responses */
	u32		rkey;
	u32		length;		/* read, flush: DMA length */
	u32		xrc_srqn;	/* XRC target: the request's SRQ */
	u64		va;
	union {
		struct {	/* SV_RES_READ */
			u32	mtu;	/* segment size it started with */
			/* where sending continues; start_psn: its First */
			u32	start_psn;
			u32	cur_psn;
			u32	cur_off;
			/* where this serving ends: length or less (dup) */
			u32	end_off;
		};
		struct {	/* SV_RES_ATOMIC, SV_RES_ATOMIC_WRITE */
			union {
				u64	swap_add;
				u64	value;	/* atomic write: as sent */
			};
			u64	compare;
			u64	orig;	/* atomic: original value returned */
		};
	};
};

/* resp.nak_deferred: the NAK due once the queued responses are out */
enum sv_resp_defer {
	SV_RESP_DEFER_NONE,
	SV_RESP_DEFER_SEQ,	/* PSN sequence error (9.7.5.2.1) */
	SV_RESP_DEFER_RNR,	/* receiver not ready (9.7.5.2.8) */
};

/* What a lock holder decided; done by sv_resp_finish() after unlock. */
struct sv_resp_out {
	const struct sv_path	*path;	/* RCU: for the packets in txq */
	struct sv_net_pktq	txq;
	struct ib_wc		wc;
	/* XRC target: the SRQ whose CQ gets wc (looked up again to post) */
	u32			xrc_srqn;
	bool			post_wc;
	bool			solicited;
	bool			comm_est;
	bool			kick;	/* queue the work item */
	bool			odp_retry;	/* sv_resp_odp_fault()'s */
	bool			qp_error;
	enum ib_event_type	event;	/* with qp_error; 0 = none */
	/* a remote RDMA READ or WRITE ended, to count (sv_cntr_count()) */
	bool			cntr;
	bool			cntr_ok;
	enum sv_cntr_op		cntr_op;
	/*
	 * A READ's MR from its R_Key check to its first response packet,
	 * when that is sent in the same call (sv_resp_read()): one look-up,
	 * not two.  Held by sv_resp_read(), which drops it before it returns.
	 */
	struct sv_mr		*read_mr;
	const struct sv_resp_res *read_res;
	u64			read_iova;
};

/*
 * In the owner's part of a response built from a resource (struct
 * sv_net_pkt), until it is handed to sv_net_pkt_xmit(): where the
 * resource's cursor stood before the packet, so that the work item can
 * send it again when the way out was full.
 */
struct sv_resp_cb {
	u32		seq;		/* resource sequence number */
	u32		cur_psn;
	u32		cur_off;
	bool		from_res;
};

static inline struct sv_resp_cb *sv_resp_cb(struct sv_net_pkt *pkt)
{
	BUILD_BUG_ON(sizeof(struct sv_resp_cb) > sizeof(pkt->owner));
	return (struct sv_resp_cb *)pkt->owner;
}

/* Outcomes of executing a request, and what each means on the wire. */
enum sv_resp_err {
	SV_RESP_OK,
	SV_RESP_RNR,		/* no receive WQE */
	SV_RESP_INV_REQ,	/* invalid request (sequence, length, op) */
	SV_RESP_REM_ACCESS,	/* R_Key/range/rights violation */
	SV_RESP_LOC_LEN,	/* receive WQE too small */
	SV_RESP_LOC_PROT,	/* receive SGE lkey violation */
	SV_RESP_LOC_QP_OP,	/* malformed receive WQE */
	SV_RESP_ODP,		/* an ODP page is being faulted (sv_odp.c) */
};

/* --- helpers of both files ---------------------------------------------- */

static inline struct sv_dev *sv_resp_dev(struct sv_qp *qp)
{
	return to_sv_dev(qp->ibqp.device);
}

/* Requests are accepted from RTR on, and not in ERR (IBTA 10.3.1). */
static inline bool sv_resp_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/* the next PSN expected; query_qp reads it without the responder lock */
static inline void sv_resp_set_psn(struct sv_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->resp.lock);
	WRITE_ONCE(qp->resp.psn, psn);
}

static inline void sv_resp_out_init(struct sv_resp_out *out)
{
	memset(out, 0, sizeof(*out));
	sv_net_pktq_init(&out->txq);
}

/* a remote operation of the packet ended: count it after the CQE */
static inline void sv_resp_cntr(struct sv_resp_out *out, enum sv_cntr_op op,
				bool ok)
{
	out->cntr = true;
	out->cntr_op = op;
	out->cntr_ok = ok;
}

static inline void sv_resp_msg_done(struct sv_qp *qp)
{
	qp->resp.in_msg = false;
	qp->resp.msn = (qp->resp.msn + 1) & SV_AETH_MSN_MASK;
}

/* --- sv_resp.c ----------------------------------------------------------- */

struct ib_pd *sv_resp_pd(struct sv_qp *qp);
/* with no responder lock held */
void sv_resp_finish(struct sv_qp *qp, struct sv_resp_out *out);
/* the R_Key check of RDMA WRITE and READ requests (sv_resp.c) */
enum sv_resp_err sv_resp_rdma_get(struct sv_qp *qp, int access, u64 va,
				  u32 rkey, u32 len, struct sv_mr **mrp,
				  u64 *iova);
enum sv_resp_err sv_resp_rdma_check(struct sv_qp *qp, int access, u64 va,
				    u32 rkey, u32 len);

/* --- sv_resp_pkt.c ------------------------------------------------------- */

u8 *sv_resp_pkt_new(struct sv_qp *qp, struct sv_resp_out *out, u8 opcode,
		    u32 psn, u32 paylen, struct sv_mr *ref_mr, u64 ref_iova,
		    struct sv_net_pkt **pktp);
void sv_resp_pkt_aeth(struct sv_qp *qp, struct sv_resp_out *out,
		      u8 syndrome, u32 psn);
void sv_resp_pkt_ack(struct sv_qp *qp, struct sv_resp_out *out, u32 psn);
void sv_resp_pkt_rnr_nak(struct sv_qp *qp, struct sv_resp_out *out, u32 psn);
void sv_resp_pkt_nak(struct sv_qp *qp, struct sv_resp_out *out,
		     enum sv_aeth_nak code, u32 psn);
bool sv_resp_pkt_xmit(struct sv_qp *qp, struct sv_resp_out *out, bool retry);

/* --- sv_resp_res.c ------------------------------------------------------- */

/* RC requests that take a responder resource, at the expected PSN */
enum sv_resp_err sv_resp_read(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
			      struct sv_resp_out *out);
enum sv_resp_err sv_resp_atomic(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
				struct sv_resp_out *out);
enum sv_resp_err sv_resp_flush_req(struct sv_qp *qp,
				   const struct sv_rx_pkt *pkt,
				   struct sv_resp_out *out);
enum sv_resp_err sv_resp_atomic_write(struct sv_qp *qp,
				      const struct sv_rx_pkt *pkt,
				      struct sv_resp_out *out);
/* an RC request before the expected PSN */
void sv_resp_duplicate(struct sv_qp *qp, const struct sv_rx_pkt *pkt,
		       struct sv_resp_out *out);
/* sv_resp_pkt_xmit() could not send a response built from a resource */
void sv_resp_res_odp_resume(struct sv_qp *qp, struct sv_resp_out *out,
			    bool ok);
void sv_resp_rewind(struct sv_qp *qp, struct sv_resp_out *out,
		    const struct sv_resp_cb *failed);
/* qp->resp.work; process context, holds a QP reference while queued */
void sv_resp_work(struct work_struct *work);
void sv_resp_work_queue(struct sv_qp *qp);

#endif /* SV_RESP_H */
