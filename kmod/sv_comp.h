/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The completer (sv_comp.c): its state in a QP, struct sv_comp_state,
 * which sv_verbs.h reads to embed it in struct sv_qp; then its calls for
 * the requester (sv_req.c).  Its calls for other files are in sv_xport.h.
 */
#ifndef SV_COMP_STATE_H
#define SV_COMP_STATE_H

#include <linux/types.h>

#include "sv_task.h"

struct sk_buff;

/*
 * The completer's part of a QP (qp->comp).  psn, under req.lock: the oldest PSN not
 * yet acknowledged.  Packets between comp.psn and req.psn are in
 * flight.  task retires send WQEs and flushes with error (IBTA
 * 10.8.3), one runner at a time, bounded per call: see
 * sv_comp_retire().
 */
struct sv_comp_state {
	u32		psn;
	struct sv_task	task;
	/*
	 * under req.lock: the response (a copy) whose placement
	 * missed an ODP page of its WQE's SGEs, placed by
	 * sv_req_odp_fault() under the fault's lock
	 */
	struct sk_buff	*odp_skb;
};

#endif /* SV_COMP_STATE_H */

/* The rest needs the whole struct sv_qp: not read from sv_verbs.h. */
#if !defined(SV_XPORT_STATE_ONLY) && !defined(SV_COMP_H)
#define SV_COMP_H

#include "sv.h"

struct sv_swqe;

/*
 * sv_comp_init(), from sv_req_init(): the retiring task.  The timeouts:
 * the callbacks of the requester's retrans_timer and rnr_timer, which it
 * arms.  sv_comp_fail_locked(), under req.lock: @sw completes with
 * @status and nothing after it is sent.
 */
void sv_comp_init(struct sv_qp *qp);
void sv_comp_retrans_timeout(struct timer_list *t);
void sv_comp_rnr_timeout(struct timer_list *t);
void sv_comp_fail_locked(struct sv_qp *qp, struct sv_swqe *sw,
			 enum ib_wc_status status);

#endif /* SV_COMP_H */
