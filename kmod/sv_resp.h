/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the responder's two files share (IBTA 9.7-9.9): sv_resp.c accepts
 * requests (packet checks, PSN sequence, receive WQEs, SEND and RDMA WRITE
 * placement, the RC/UC/UD entry points); sv_resp_res.c runs the responder
 * resources (RDMA READ, atomics, FLUSH, ATOMIC WRITE, their replay for
 * duplicates, and the work item that sends long read responses).
 *
 * Nothing here is for other files: sv_qp.c and sv_recv.c see only the
 * responder's entry points in sv_xport.h.  The calls below that take a
 * QP run under qp->resp.lock unless they say otherwise (see struct sv_qp,
 * resp); those that need it assert it.
 */
#ifndef SV_RESP_H
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
	struct sk_buff_head	txq;
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
};

/*
 * In skb->cb of a response built from a resource, until it is handed to
 * sv_net_xmit(): where the resource's cursor stood before the packet, so
 * that the work item can send it again when the way out was full.
 */
struct sv_resp_cb {
	u32		seq;		/* resource sequence number */
	u32		cur_psn;
	u32		cur_off;
	bool		from_res;
};

static inline struct sv_resp_cb *sv_resp_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sv_resp_cb) > sizeof(skb->cb));
	return (struct sv_resp_cb *)skb->cb;
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
	__skb_queue_head_init(&out->txq);
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

u8 *sv_resp_new_pkt(struct sv_qp *qp, struct sv_resp_out *out, u8 opcode,
		    u32 psn, u32 paylen, struct sk_buff **skbp);
struct ib_pd *sv_resp_pd(struct sv_qp *qp);
void sv_resp_send_aeth(struct sv_qp *qp, struct sv_resp_out *out,
		       u8 syndrome, u32 psn);
void sv_resp_ack(struct sv_qp *qp, struct sv_resp_out *out, u32 psn);
void sv_resp_rnr_nak(struct sv_qp *qp, struct sv_resp_out *out, u32 psn);
void sv_resp_nak(struct sv_qp *qp, struct sv_resp_out *out,
		 enum sv_aeth_nak code, u32 psn);
bool sv_resp_xmit(struct sv_qp *qp, struct sv_resp_out *out, bool retry);
/* with no responder lock held */
void sv_resp_finish(struct sv_qp *qp, struct sv_resp_out *out);
enum sv_resp_err sv_resp_rdma_check(struct sv_qp *qp, int access, u64 va,
				    u32 rkey, u32 len);

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
/* sv_resp_xmit() could not send a response built from a resource */
void sv_resp_res_odp_resume(struct sv_qp *qp, struct sv_resp_out *out,
			    bool ok);
void sv_resp_rewind(struct sv_qp *qp, struct sv_resp_out *out,
		    const struct sv_resp_cb *failed);
/* qp->resp.work; process context, holds a QP reference while queued */
void sv_resp_work(struct work_struct *work);
void sv_resp_work_queue(struct sv_qp *qp);

#endif /* SV_RESP_H */
