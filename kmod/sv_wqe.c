// SPDX-License-Identifier: GPL-2.0
/*
 * Work queue entries: the one slot format of every SQ and RQ (struct
 * sv_send_wqe, struct sv_recv_wqe in uapi/softverbs-abi.h), whoever posts.
 *
 * Kernel consumers' work requests are checked and encoded into the ring
 * here (post_send, post_recv in sv_qp.c).  Slots user space wrote are
 * checked here on the private copy the transport took (the requester for
 * send WQEs, the responder and sv_srq_pop() for receive WQEs): user space
 * may rewrite its ring at any time, so only the copy is checked and used,
 * and every length the transport trusts is recomputed from the SGEs.
 */
#include "sv.h"
#include "sv_xport_obj.h"

/* IB_SEND_IP_CSUM (IPoIB checksum offload) is not supported */
#define SV_SEND_FLAGS \
	(IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_INLINE)

/* --- kernel work requests ---------------------------------------------- */

/* @n SGEs of a kernel work request into a slot's SGE list */
static void sv_wqe_put_sges(struct sv_dma_info *dma, const struct ib_sge *sg,
			    int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
	}
}

/*
 * Check @wr and sum its SGE lengths into *@length.  IBTA rules for send
 * work requests; atomics operate on 8 naturally aligned bytes.
 */
int sv_wqe_check_send_wr(struct sv_qp *qp, const struct ib_send_wr *wr,
			 bool flush_err, u64 *length)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	const struct sv_wr_info *info = sv_opcode_wr_info(wr->opcode);
	u64 len = 0;
	int i;

	/*
	 * A QP whose SQ flushes executes nothing, so any known opcode will do
	 * there: ib_drain_sq() posts an RDMA Write whatever the QP type.
	 */
	if (!info || (!flush_err && !sv_opcode_wr_qp_ok(info, type)) ||
	    (info->flags & SV_WR_USER))
		return -EINVAL;
	if (wr->send_flags & ~SV_SEND_FLAGS)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && !(info->flags & SV_WR_INLINE))
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	if ((info->flags & SV_WR_LOCAL) && wr->num_sge)
		return -EINVAL;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > SV_PORT_MAX_MSG_SZ)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && len > qp->sq.max_inline)
		return -EINVAL;

	if ((info->flags & SV_WR_ATOMIC) &&
	    (len < sizeof(u64) || !IS_ALIGNED(atomic_wr(wr)->remote_addr, 8)))
		return -EINVAL;
	/* ATOMIC WRITE: 8 bytes to a naturally aligned address (IBTA 1.5) */
	if ((info->flags & SV_WR_VALUE8) &&
	    (len != sizeof(u64) || !IS_ALIGNED(rdma_wr(wr)->remote_addr, 8)))
		return -EINVAL;

	if ((type == IB_QPT_UD || type == IB_QPT_GSI) &&
	    (wr->opcode == IB_WR_SEND || wr->opcode == IB_WR_SEND_WITH_IMM)) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		/* the AH and the QP must share their PD (IBTA 10.2.3) */
		if (!ud->ah || ud->ah->pd != qp->ibqp.pd)
			return -EINVAL;
		if (ud->remote_qpn > SV_QPN_MAX ||
		    ud->pkey_index >= SV_PORT_PKEY_TBL_LEN)
			return -EINVAL;
	}
	if (wr->opcode == IB_WR_REG_MR) {
		const struct ib_reg_wr *reg = reg_wr(wr);

		if (!reg->mr || reg->mr->pd != qp->ibqp.pd)
			return -EINVAL;
	}
	*length = len;
	return 0;
}

/* Write @wr as the next SQ WQE; under sq.producer_lock, queue not full. */
void sv_wqe_write_send(struct sv_qp *qp, const struct ib_send_wr *wr,
		       u32 length)
{
	struct sv_send_wqe *wqe = sv_queue_producer_slot(qp->sq.queue);
	bool value8;
	int i;

	lockdep_assert_held(&qp->sq.producer_lock);

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;	/* ib_wr_opcode: same numbers */
	wqe->wr.send_flags = wr->send_flags;
	switch (wr->opcode) {
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->ex.imm_data;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
		break;
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->ibqp.qp_type == IB_QPT_UD ||
		    qp->ibqp.qp_type == IB_QPT_GSI) {
			const struct ib_ud_wr *ud = ud_wr(wr);

			wqe->wr.wr.ud.remote_qpn = ud->remote_qpn;
			wqe->wr.wr.ud.remote_qkey = ud->remote_qkey;
			wqe->wr.wr.ud.pkey_index = ud->pkey_index;
			/* the transport finds the path by number, as for user AHs */
			wqe->wr.wr.ud.ah_num = to_sv_ah(ud->ah)->ah_num;
		}
		break;
	default:
		break;
	}

	value8 = sv_opcode_wr_flags(wr->opcode) & SV_WR_VALUE8;
	if (value8) {
		/* ATOMIC WRITE: addressed like an RDMA WRITE */
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
	}
	if ((wr->send_flags & IB_SEND_INLINE) || value8) {
		/* the ATOMIC WRITE value lands in dma.atomic_wr, the same bytes */
		u8 *p = wqe->dma.inline_data;

		/* no DMA device: these addresses are kernel virtual ones */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		sv_wqe_put_sges(&wqe->dma, wr->sg_list, wr->num_sge);
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = value8 ? 0 : wr->num_sge;
	wqe->ssn = qp->req.ssn++;
	sv_queue_produce(qp->sq.queue);
}

/* Write @wr as the next RQ WQE; under rq.producer_lock, queue not full. */
int sv_wqe_write_recv(struct sv_qp *qp, const struct ib_recv_wr *wr)
{
	struct sv_recv_wqe *wqe;
	u64 length = 0;
	int i;

	lockdep_assert_held(&qp->rq.producer_lock);

	if (wr->num_sge < 0 || wr->num_sge > qp->rq.max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (length > SV_PORT_MAX_MSG_SZ)
		return -EINVAL;
	if (sv_queue_full(qp->rq.queue))
		return -ENOMEM;

	wqe = sv_queue_producer_slot(qp->rq.queue);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	sv_wqe_put_sges(&wqe->dma, wr->sg_list, wr->num_sge);
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
	sv_queue_produce(qp->rq.queue);
	return 0;
}

/* --- slots user space wrote, for the transport ------------------------ */

/*
 * @n SGEs one by one: most WQEs have one or two, for which a call to
 * memcpy() (on some kernels a byte per instruction) costs more than the
 * copy.
 */
static void sv_wqe_copy_sges(struct sv_sge *to, const struct sv_sge *from,
			     u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		to[i] = from[i];
}

/*
 * Copy the send WQE in @slot into @wqe, the requester's private copy of
 * @size bytes (sv_qp_send_wqe_size()): the fixed part, then of the room
 * behind it only what the copied header says is used, the inline bytes or
 * the SGEs, and at least the 8 bytes of an ATOMIC WRITE's value.  Most
 * WQEs use a small part of a room sized for the largest inline message,
 * and this copy is per message.  How much is copied depends only on the
 * private header, so a rewrite of the slot meanwhile changes data, never
 * a bound; sv_wqe_check_send() then reads only what was copied: num_sge
 * SGEs after checking num_sge against max_sge, dma.length inline bytes
 * after checking it against max_inline (both fit the room), or the 8-byte
 * value.
 */
void sv_wqe_copy_send(struct sv_send_wqe *wqe, const struct sv_send_wqe *slot,
		      size_t size)
{
	size_t room = size - sizeof(*wqe), used;
	u32 nsge;

	memcpy(wqe, slot, sizeof(*wqe));
	nsge = wqe->dma.num_sge;
	if (!(wqe->wr.send_flags & IB_SEND_INLINE) &&
	    nsge <= room / sizeof(struct sv_sge)) {
		if (nsge)
			sv_wqe_copy_sges(wqe->dma.sge, slot->dma.sge, nsge);
		else	/* an ATOMIC WRITE's value, the room's first 8 bytes */
			memcpy(wqe->dma.atomic_wr, slot->dma.atomic_wr,
			       sizeof(u64));
		return;
	}
	/* inline bytes, or SGEs the room cannot hold (the check refuses) */
	if (wqe->wr.send_flags & IB_SEND_INLINE)
		used = wqe->dma.length;
	else
		used = (size_t)wqe->dma.num_sge * sizeof(struct sv_sge);
	used = clamp_t(size_t, used, sizeof(u64), room);
	memcpy(wqe->dma.inline_data, slot->dma.inline_data, used);
}

/*
 * Copy the receive WQE in @slot into @wqe: the fixed part, then of its
 * SGEs as many as the copied header says, at most @max_sge (more fails
 * sv_wqe_check_recv() anyway).  As for a send WQE, the bound comes from
 * the private copy only.
 */
void sv_wqe_copy_recv(struct sv_recv_wqe *wqe, const struct sv_recv_wqe *slot,
		      u32 max_sge)
{
	memcpy(wqe, slot, sizeof(*wqe));
	sv_wqe_copy_sges(wqe->dma.sge, slot->dma.sge,
			 min(wqe->dma.num_sge, max_sge));
}

int sv_wqe_check_send(struct sv_qp *qp, struct sv_send_wqe *wqe)
{
	const struct sv_wr_info *info = sv_opcode_wr_info(wqe->wr.opcode);
	u32 flags = wqe->wr.send_flags;
	u64 length = 0;
	u32 i;

	if (!sv_opcode_wr_qp_ok(info, qp->ibqp.qp_type) ||
	    (info->flags & SV_WR_KERNEL))
		return -EINVAL;
	if (flags & ~SV_SEND_FLAGS)
		return -EINVAL;

	if (info->flags & SV_WR_VALUE8) {
		/*
		 * ATOMIC WRITE, librxe's layout: the value in dma.atomic_wr
		 * (inside the slot: its SGE room), no SGEs, dma.length 8.
		 */
		if ((flags & IB_SEND_INLINE) || wqe->dma.length != sizeof(u64) ||
		    !IS_ALIGNED(wqe->wr.wr.rdma.remote_addr, 8) ||
		    offsetof(struct sv_send_wqe, dma.atomic_wr) + sizeof(u64) >
		    sv_qp_send_wqe_size(qp))
			return -EINVAL;
		length = sizeof(u64);
		wqe->dma.num_sge = 0;
	} else if (info->flags & SV_WR_RANGE) {
		/* FLUSH: dma.length is the remote range; IBTA A19.4.1 values */
		u8 type = wqe->wr.wr.flush.type;

		if ((flags & IB_SEND_INLINE) || !type ||
		    (type & ~(SV_FLUSH_GLOBAL | SV_FLUSH_PERSISTENT)) ||
		    wqe->wr.wr.flush.level > SV_FLUSH_MR)
			return -EINVAL;
		length = wqe->dma.length;
		wqe->dma.num_sge = 0;
	} else if (info->flags & SV_WR_LOCAL) {
		wqe->dma.num_sge = 0;
	} else if (flags & IB_SEND_INLINE) {
		if (!(info->flags & SV_WR_INLINE) ||
		    wqe->dma.length > qp->sq.max_inline)
			return -EINVAL;
		length = wqe->dma.length;
		wqe->dma.num_sge = 0;
	} else {
		if (wqe->dma.num_sge > qp->sq.max_sge)
			return -EINVAL;
		for (i = 0; i < wqe->dma.num_sge; i++)
			length += wqe->dma.sge[i].length;
		if (length > SV_PORT_MAX_MSG_SZ)
			return -EINVAL;
	}
	/*
	 * 8 naturally aligned bytes at the address the AtomicETH will carry
	 * (not wqe->iova, which user space writes too and the wire never
	 * sees): a misaligned atomic is the requester's error.
	 */
	if ((info->flags & SV_WR_ATOMIC) &&
	    (length < sizeof(u64) ||
	     !IS_ALIGNED(wqe->wr.wr.atomic.remote_addr, 8)))
		return -EINVAL;
	if ((qp->ibqp.qp_type == IB_QPT_UD) &&
	    wqe->wr.wr.ud.remote_qpn > SV_QPN_MAX)
		return -EINVAL;
	/* XRC: the remote SRQ its XRCETHs name, 24 bits, 0 never used */
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI && !(info->flags & SV_WR_LOCAL) &&
	    (!wqe->wr.xrc_srqn || wqe->wr.xrc_srqn > SV_SRQ_NUM_MAX))
		return -EINVAL;

	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return 0;
}

int sv_wqe_check_recv(struct sv_recv_wqe *wqe, u32 max_sge)
{
	u32 num_sge = wqe->dma.num_sge;
	u64 length = 0;
	u32 i;

	if (num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++)
		length += wqe->dma.sge[i].length;

	/* saturate: a buffer larger than any message (2^31 bytes) is as good */
	wqe->dma.length = min_t(u64, length, U32_MAX);
	wqe->dma.resid = wqe->dma.length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return 0;
}
