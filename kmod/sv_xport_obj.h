/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the transport calls of the verbs objects: CQs, SRQs, QPs, the
 * checks of user-written WQEs (sv_wqe.c), address vectors, multicast
 * groups, MRs, windows, ODP and completion counters.  Included by the
 * files that implement these calls and, through sv_xport.h, by the
 * transport; nothing here knows the wire.
 */
#ifndef SV_XPORT_OBJ_H
#define SV_XPORT_OBJ_H

#include <rdma/ib_verbs.h>

#include "sv.h"

struct sv_recv_wqe;

/* sv_cq.c */
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
/* wait for a completion handler call still on its way to the CQ's CPU */
void sv_cq_sync_notify(struct sv_cq *cq);

/* sv_srq.c */
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
 * The XRC SRQ @srq_num of domain @xrcd with a reference (NULL: none such),
 * for one packet's processing by an XRC target QP; sv_srq_put() after.
 */
struct sv_srq *sv_srq_get_xrc(struct sv_dev *sv, u32 srq_num,
			      const struct ib_xrcd *xrcd);
void sv_srq_put(struct sv_srq *srq);

/* sv_qp.c */
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
 * For the completer, after it retired SQ WQEs (with req.lock not held):
 * in SQD with nothing in flight any more, ends the drain and reports
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
 * For the completer's flush-with-error run, in ERR, after the send WQEs:
 * the responder's receive WQE in progress and then what the RQ holds now
 * complete with IB_WC_WR_FLUSH_ERR, in order (IBTA 10.8.3); WQEs posted
 * later ask for another run.  Any context; only from sv_comp.c's run.
 */
void sv_qp_rq_flush_err(struct sv_qp *qp);

/*
 * sv_wqe.c: sv_wqe_copy_send() takes the private copy of a send WQE (see
 * there: the fixed part and the used part of the room); the requester
 * calls it for every QP's slots.
 */
void sv_wqe_copy_send(struct sv_send_wqe *wqe, const struct sv_send_wqe *slot,
		      size_t size);

/*
 * sv_wqe.c, for the responder's RQ and sv_srq_pop(): the private copy of
 * a receive WQE: its fixed part and its first num_sge SGEs, at most
 * @max_sge (@wqe has room for that many).
 */
void sv_wqe_copy_recv(struct sv_recv_wqe *wqe, const struct sv_recv_wqe *slot,
		      u32 max_sge);

/*
 * sv_wqe.c: check a send WQE taken from a user SQ.  @wqe must be
 * the private copy sv_wqe_copy_send() took, because user space may rewrite
 * the ring at any time.  Checks the opcode against the QP type, the send flags,
 * num_sge or the inline length against the QP's capacities, and recomputes
 * dma.length/dma.resid from the SGEs (resetting cur_sge and sge_offset).
 * For UD QPs the address comes from wr.ud.ah_num (see sv_ah_path_rcu()) or,
 * when that is 0, from wr.ud.av (see sv_path_from_user_av()).  Returns 0 or
 * -EINVAL: complete the WQE with IB_WC_LOC_QP_OP_ERR.
 */
int sv_wqe_check_send(struct sv_qp *qp, struct sv_send_wqe *wqe);

/*
 * sv_wqe.c, for the responder's RQ and sv_srq_pop(): check a private copy
 * of a receive WQE (from an SRQ or a QP's RQ) against @max_sge and rebuild
 * dma.length/resid/cur_sge/sge_offset from its SGEs alone, so nothing but
 * wr_id and the SGEs comes from user space.  -EINVAL if num_sge is too
 * large.  Any context.
 */
int sv_wqe_check_recv(struct sv_recv_wqe *wqe, u32 max_sge);

/* sv_av.c */
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

/* sv_mcast.c */
/*
 * For the receive path: take a reference on up to @max QPs attached to
 * @mgid, store them in @qps and return how many (drop each with
 * sv_qp_put()).  Any context.  SV_MAX_MCAST_QP_ATTACH is enough for @max.
 */
unsigned int sv_mcast_get_qps(struct sv_dev *sv, const union ib_gid *mgid,
			      struct sv_qp **qps, unsigned int max);

/* sv_mr.c */
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
 * lookup of a valid key passes.  sv_mr_lookup_rcu() is the same under
 * the caller's RCU (the packet paths: one read-side section, not two).
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
struct sv_mr *sv_mr_lookup_rcu(struct sv_dev *sv, u32 key, struct ib_pd *pd,
			       u32 qpn, int access, u64 *iova, u64 length);
int sv_mr_copy(struct sv_mr *mr, u64 iova, void *buf, u32 len,
	       enum sv_copy_dir dir);

/**
 * struct sv_pay - bytes to place into an MR
 * @buf:	the bytes, or NULL: they are in @mr from @iova
 * @mr:		an MR sv_mr_can_ref() accepted, held by whoever made this
 * @iova:	where they start in @mr
 */
struct sv_pay {
	const u8	*buf;
	struct sv_mr	*mr;
	u64		iova;
};

/*
 * sv_mr_can_ref: whether a held @mr's bytes may be read later, by another
 * QP's responder, for a payload sent by reference: its translation never
 * changes while held (a user MR's pinned pages, a DMA MR's kernel
 * addresses), unlike a fast-reg MR's (invalidated), an ODP MR's (faults,
 * invalidations) or a dma-buf MR's (moved).
 *
 * sv_mr_copy_in: copy @len bytes of @src, from @off into it, into @mr at
 * @iova (as sv_mr_copy() SV_COPY_TO_MR, whose errors it returns).  From
 * another MR it is one copy, page by page of each.
 */
bool sv_mr_can_ref(const struct sv_mr *mr);
int sv_mr_copy_in(struct sv_mr *mr, u64 iova, const struct sv_pay *src,
		  u32 off, u32 len);
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
/*
 * On-demand paging.  sv_mr_copy() and sv_mr_atomic() on an ODP MR return
 * -EAGAIN when a page is not mapped with the rights the access needs (they
 * never fault: any context); the transport then asks for the fault
 * (sv_odp_fault_async()), which tells it when that access's own fault
 * failed before.
 * sv_mr_odp_fault(): map [@iova, @iova + @len) of @mr for writing or
 * reading, faulting the pages in (@fault) or only taking those present;
 * on an implicit MR @fault also creates the chunks the range needs
 * (-EFAULT over address space the process has not mapped, -ENOSPC past
 * SV_ODP_MAX_CHUNKS); a long range is mapped chunk by chunk and stops
 * between chunks with -EINTR on a fatal signal or -ENOENT once the MR is
 * being deregistered; process context, sleeps; 0 for other kinds of MR.
 */
int sv_mr_odp_fault(struct sv_mr *mr, u64 iova, u64 len, bool write,
		    bool fault);
/*
 * sv_mr_odp_fault_use(): the same, and once the pages are mapped @use(@arg)
 * runs before they can be invalidated again: under the umem_mutex of the
 * range's first page (the whole range on an explicit MR, its first chunk
 * on an implicit one), which invalidations take first.  An access @use
 * makes there cannot miss, however often the process invalidates: this is
 * what guarantees a fault's progress (Documentation/design.md, "On-demand
 * paging").  @use must not sleep or allocate but atomically (invalidations
 * run in reclaim); it may take QP locks (_bh) and send.  Not called if the
 * fault fails.
 */
int sv_mr_odp_fault_use(struct sv_mr *mr, u64 iova, u64 len, bool write,
			bool fault, void (*use)(void *arg), void *arg);

/*
 * sv_odp.c: have the pages of a miss faulted in process context, for the
 * requester/completer (@role SV_ODP_REQ: the requester sends nothing
 * until then, see req.odp_wait) or the responder (SV_ODP_RESP: the parked
 * response or request is served again after it, see resp.odp_wait and
 * resp.odp_q).  Any context; takes its own reference on @mr.  One
 * request per role waits; another asked for meanwhile is dropped, found
 * again by the retry of the first (which runs in the same work item, so
 * the role's next miss is faulted without a round trip).  Returns -EAGAIN
 * (the caller parks the access), or -EFAULT when this role's last fault
 * failed there (sv_odp_fault_failed()): the access that missed is that one
 * coming again, and fails.
 *
 * sv_odp_fault_failed(): the fault of [@iova, @iova + @len) of @mr that
 * @role of @qp asked for failed with @err; unless that was contention,
 * the role's next miss there fails.  Only this QP's role: another QP's
 * access to the same pages faults them itself.
 */
void sv_odp_init(struct sv_qp *qp);
int sv_odp_fault_async(struct sv_qp *qp, enum sv_odp_role role,
		       struct sv_mr *mr, u64 iova, u64 len, bool write);
void sv_odp_fault_failed(struct sv_qp *qp, enum sv_odp_role role,
			 const struct sv_mr *mr, u64 iova, u64 len, int err);
/*
 * The ODP thread of a user context (sv_odp.c; design.md, "On-demand
 * paging"): every fault and asynchronous prefetch of the context's ODP
 * MRs runs there, so a fault that never ends stops only its own context.
 *
 * sv_odp_ctx_get(): make @uc's thread if it has none (its first ODP MR).
 * Process context.  Return: 0, or -ENOMEM / the error of kthread_run().
 * sv_odp_ctx_put(): stop it (context dealloc: nothing of it is queued).
 * sv_odp_queue(): run @item on @mr's thread.  Any context.
 * sv_odp_using(): the item running on @mr's thread faults @mr now (@on),
 * or is done with it (a kill sent for it is dropped).  That thread.
 * sv_odp_qp_stop(): @qp is being destroyed: its fault items are cancelled
 * if queued, killed if running.  Process context.
 * sv_odp_mr_wait(): wait for the references of a deregistered ODP @mr,
 * killing a fault of it its thread is stuck in.  Process context.
 */
int sv_odp_ctx_get(struct sv_ucontext *uc);
void sv_odp_ctx_put(struct sv_ucontext *uc);
void sv_odp_item_init(struct sv_odp_item *item,
		      void (*fn)(struct sv_odp_item *item));
void sv_odp_queue(struct sv_mr *mr, struct sv_odp_item *item);
void sv_odp_using(const struct sv_mr *mr, bool on);
void sv_odp_qp_stop(struct sv_qp *qp);
void sv_odp_mr_wait(struct sv_mr *mr);

/* sv_mw.c */
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
 * sv_mw_bind: execute a BIND_MW work request posted on the QP of @pd whose
 * type 2 windows @binds lists (its number is binds->qpn), for
 * a type 1 (ibv_bind_mw) or type 2 window, with the checks of IBTA
 * 10.6.7.2: the window named by its index, the MR by its exact L_Key; QP,
 * window and MR in one PD; the MR valid with IB_ACCESS_MW_BIND; a writable
 * window only on an MR with local write; the window inside the MR; type 1
 * not zero-based (and rebindable), type 2 Free and of non-zero length.  A
 * type 1 bind of length 0 unbinds.  The window's R_Key becomes
 * @args->new_rkey.  Returns 0 or -EINVAL/-EACCES/-ERANGE: complete the WR
 * with IB_WC_MW_BIND_ERR.

 */
int sv_mw_bind(struct sv_dev *sv, struct ib_pd *pd, struct sv_mw_binds *binds,
	       const struct sv_mw_bind_args *args);

/*
 * sv_cntr.c: completion counters.  The transport counts each completed
 * work request of an operation type with sv_cntr_count(): the requester
 * when it retires a send WQE (signaled or not, flushes included), the
 * responder when it completes a receive WQE and when it places a remote
 * RDMA WRITE or serves a remote RDMA READ (or fails one).  Any context; no
 * QP lock needed (the counter's lock is a leaf).
 */
void sv_cntr_add(struct sv_cntr *c, enum sv_cntr_entry e, u64 n);
enum sv_cntr_op sv_cntr_wc_op(enum ib_wc_opcode opcode);

/* Does a completion counter count @op's completions of @qp? */
static inline bool sv_cntr_attached(struct sv_qp *qp, enum sv_cntr_op op)
{
	return op < SV_CNTR_OPS && READ_ONCE(qp->cntr[op]);
}

static inline void sv_cntr_count(struct sv_qp *qp, enum sv_cntr_op op,
				 bool ok)
{
	struct sv_cntr *c;

	if (op >= SV_CNTR_OPS)
		return;
	c = READ_ONCE(qp->cntr[op]);
	if (c)
		sv_cntr_add(c, ok ? SV_CNTR_COMP : SV_CNTR_ERR, 1);
}

#endif /* SV_XPORT_OBJ_H */
