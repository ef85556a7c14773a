// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * WQE encoding and CQE decoding: how a verbs.h work request becomes a slot
 * of the mapped SQ/RQ/SRQ (struct sv_send_wqe / struct sv_recv_wqe of
 * uapi/softverbs-abi.h, byte-compatible with <rdma/rdma_user_rxe.h>), and
 * how a CQ slot (struct ib_uverbs_wc) becomes a struct ibv_wc.
 *
 * Everything here is a pure function of its arguments, so the host tests
 * exercise it on plain buffers.  The kernel re-validates every WQE it
 * reads (it must: user space can write anything); the checks here exist to
 * give the caller the verbs API's synchronous EINVAL for a malformed work
 * request instead of an error completion later, and to never write past
 * the slot.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "ulib.h"
#include "include/softverbs.h"

/*
 * Which QP types may post each opcode (IBTA 9.2 table 38 "OpCode field":
 * UD has only SEND[_WITH_IMM]; RDMA READ and atomics are RC only; UC has
 * no invalidate opcode), and what the WQE carries.  Local operations follow
 * the Soft-RoCE kernel: LOCAL_INV on RC, BIND_MW (type 2 binding) on RC and
 * UC.  An XRC sender (IBTA Annex A14) posts what RC posts but window binds;
 * every remote operation of it names the remote XRC SRQ.  Opcodes absent
 * here (TSO, DRIVER1, the masked atomics and the ones only ibv_qp_ex can
 * post) fail with EINVAL.
 */
enum {
	OP_RC = 1 << IBV_QPT_RC,
	OP_UC = 1 << IBV_QPT_UC,
	OP_UD = 1 << IBV_QPT_UD,
	OP_XRC = 1 << IBV_QPT_XRC_SEND,
};

/* XRC SRQ numbers: 24 bits (the XRCETH), 0 never used */
#define SV_XRC_SRQN_MAX	0xffffffU

enum op_kind {
	OPK_SEND,			/* payload from SGEs or inline */
	OPK_RDMA,			/* + remote address and rkey */
	OPK_ATOMIC,			/* + 8-byte operands */
	OPK_LOCAL_INV,			/* invalidate_rkey only */
	OPK_BIND_MW,			/* + MW binding, no payload */
};

struct op_info {
	unsigned int qp_types;		/* OP_* */
	enum op_kind kind;
	bool imm;			/* carries imm_data */
	bool inv;			/* carries invalidate_rkey */
	bool inline_ok;			/* IBV_SEND_INLINE allowed */
};

static const struct op_info op_table[] = {
	[IBV_WR_SEND] = { OP_RC | OP_UC | OP_UD | OP_XRC, OPK_SEND, false,
			  false, true },
	[IBV_WR_SEND_WITH_IMM] = { OP_RC | OP_UC | OP_UD | OP_XRC, OPK_SEND,
				   true, false, true },
	[IBV_WR_SEND_WITH_INV] = { OP_RC | OP_XRC, OPK_SEND, false, true,
				   true },
	[IBV_WR_RDMA_WRITE] = { OP_RC | OP_UC | OP_XRC, OPK_RDMA, false, false,
				true },
	[IBV_WR_RDMA_WRITE_WITH_IMM] = { OP_RC | OP_UC | OP_XRC, OPK_RDMA,
					 true, false, true },
	[IBV_WR_RDMA_READ] = { OP_RC | OP_XRC, OPK_RDMA, false, false, false },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = { OP_RC | OP_XRC, OPK_ATOMIC, false,
					false, false },
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = { OP_RC | OP_XRC, OPK_ATOMIC, false,
					  false, false },
	[IBV_WR_LOCAL_INV] = { OP_RC | OP_XRC, OPK_LOCAL_INV, false, true,
			       false },
	[IBV_WR_BIND_MW] = { OP_RC | OP_UC, OPK_BIND_MW, false, false, false },
};

static const struct op_info *op_lookup(enum ibv_wr_opcode opcode,
				       enum ibv_qp_type qp_type)
{
	const struct op_info *op;

	if ((unsigned int)opcode >= sizeof(op_table) / sizeof(op_table[0]))
		return NULL;
	op = &op_table[opcode];
	if ((unsigned int)qp_type >= 32 || !(op->qp_types & (1u << qp_type)))
		return NULL;
	return op;
}

bool sv_wqe_op_allowed(unsigned int opcode, enum ibv_qp_type qp_type)
{
	/* the IBTA 1.5 extensions: RC only (sv_wqe_encode_mpe) */
	if (opcode == IBV_WR_ATOMIC_WRITE || opcode == SV_WR_FLUSH)
		return qp_type == IBV_QPT_RC;
	return op_lookup((enum ibv_wr_opcode)opcode, qp_type) != NULL;
}

#define SV_SEND_FLAGS_KNOWN (IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
			     IBV_SEND_SOLICITED | IBV_SEND_INLINE | \
			     IBV_SEND_IP_CSUM)

/* Room for SGEs or inline bytes after the fixed part of a slot. */
static size_t slot_payload_room(size_t slot_size, size_t fixed)
{
	return slot_size > fixed ? slot_size - fixed : 0;
}

/* Total payload of an SGE list; EINVAL when it does not fit in 32 bits. */
static int sge_total(const struct ibv_sge *sg, int n, uint32_t *total)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += sg[i].length;
	if (sum > UINT32_MAX)
		return EINVAL;
	*total = (uint32_t)sum;
	return 0;
}

int sv_wqe_encode_send(void *slot, const struct sv_sq_limits *lim,
		       const struct ibv_send_wr *wr, uint32_t ssn)
{
	const size_t fixed = offsetof(struct sv_send_wqe, dma.sge);
	struct sv_send_wqe *wqe = slot;
	const struct op_info *op;
	uint32_t length;
	int err;

	op = op_lookup(wr->opcode, lim->qp_type);
	if (!op || (wr->send_flags & ~SV_SEND_FLAGS_KNOWN))
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > lim->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	err = sge_total(wr->sg_list, wr->num_sge, &length);
	if (err)
		return err;

	if (wr->send_flags & IBV_SEND_INLINE) {
		if (!op->inline_ok || length > lim->max_inline ||
		    length > slot_payload_room(lim->slot_size, fixed))
			return EINVAL;
	} else if ((size_t)wr->num_sge * sizeof(struct sv_sge) >
		   slot_payload_room(lim->slot_size, fixed)) {
		return EINVAL;
	}

	switch (op->kind) {
	case OPK_ATOMIC:
		/* IBTA 9.4.5: 64-bit operands, naturally aligned */
		if (length < 8 || (wr->wr.atomic.remote_addr & 7))
			return EINVAL;
		break;
	case OPK_BIND_MW:
		if (wr->num_sge || !wr->bind_mw.mw)
			return EINVAL;
		if (!wr->bind_mw.bind_info.mr &&
		    (wr->bind_mw.bind_info.addr || wr->bind_mw.bind_info.length))
			return EINVAL;
		break;
	case OPK_LOCAL_INV:
		if (wr->num_sge)
			return EINVAL;
		break;
	case OPK_SEND:
		if (lim->qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
			return EINVAL;
		break;
	case OPK_RDMA:
		break;
	}
	if (lim->qp_type == IBV_QPT_XRC_SEND && op->kind != OPK_LOCAL_INV &&
	    (!wr->qp_type.xrc.remote_srqn ||
	     wr->qp_type.xrc.remote_srqn > SV_XRC_SRQN_MAX))
		return EINVAL;

	/* Everything the kernel reads is written; state/status/psn start 0. */
	memset(wqe, 0, fixed);
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;	/* IBV_WR_* == IB_UVERBS_WR_* */
	wqe->wr.send_flags = wr->send_flags;
	if (lim->qp_type == IBV_QPT_XRC_SEND)
		wqe->wr.xrc_srqn = wr->qp_type.xrc.remote_srqn;
	if (op->imm)
		wqe->wr.ex.imm_data = wr->imm_data;	/* stays big endian */
	else if (op->inv)
		wqe->wr.ex.invalidate_rkey = wr->invalidate_rkey;

	switch (op->kind) {
	case OPK_SEND:
		if (lim->qp_type == IBV_QPT_UD) {
			wqe->wr.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe->wr.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
			wqe->wr.wr.ud.ah_num = to_sv_ah(wr->wr.ud.ah)->ah_num;
		}
		break;
	case OPK_RDMA:
		wqe->wr.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
		break;
	case OPK_ATOMIC:
		wqe->wr.wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.wr.atomic.rkey = wr->wr.atomic.rkey;
		wqe->iova = wr->wr.atomic.remote_addr;
		break;
	case OPK_BIND_MW: {
		const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

		wqe->wr.wr.mw.addr = bi->addr;
		wqe->wr.wr.mw.length = bi->length;
		wqe->wr.wr.mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
		wqe->wr.wr.mw.mw_rkey = wr->bind_mw.mw->rkey;
		wqe->wr.wr.mw.rkey = wr->bind_mw.rkey;
		wqe->wr.wr.mw.access = bi->mw_access_flags;
		break;
	}
	case OPK_LOCAL_INV:
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *dst = wqe->dma.inline_data;
		int i;

		/* The data is copied now: the buffers may be reused on return. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
	} else if (wr->num_sge) {
		/* struct ibv_sge and struct sv_sge: addr, length, lkey */
		memcpy(wqe->dma.sge, wr->sg_list,
		       (size_t)wr->num_sge * sizeof(struct sv_sge));
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = (uint32_t)wr->num_sge;
	wqe->ssn = ssn;
	return 0;
}

/*
 * The Soft-RoCE WQE layout of the IBTA 1.5 operations (as librxe writes
 * them): ATOMIC WRITE addressed by wr.rdma with its 8 bytes in
 * dma.atomic_wr and dma.length 8; FLUSH with wr.flush (address, rkey,
 * placement type, selectivity level) and dma.length the range's length.
 * Neither has SGEs.  The kernel checks again (type, level, alignment).
 */
int sv_wqe_encode_mpe(void *slot, const struct sv_sq_limits *lim,
		      const struct sv_mpe_wr *wr, uint32_t ssn)
{
	const size_t fixed = offsetof(struct sv_send_wqe, dma.atomic_wr);
	struct sv_send_wqe *wqe = slot;
	uint32_t length;

	if (lim->qp_type != IBV_QPT_RC ||
	    (wr->send_flags & ~(IBV_SEND_SIGNALED | IBV_SEND_FENCE)))
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_ATOMIC_WRITE:
		/* IBTA 1.5: 8 bytes at a naturally aligned address */
		if ((wr->remote_addr & 7) ||
		    lim->slot_size < fixed + sizeof(wr->value))
			return EINVAL;
		length = sizeof(wr->value);
		break;
	case SV_WR_FLUSH:
		if (!wr->type ||
		    (wr->type & ~(SOFTVERBS_FLUSH_GLOBAL |
				  SOFTVERBS_FLUSH_PERSISTENT)) ||
		    wr->level > SOFTVERBS_FLUSH_MR || lim->slot_size < fixed)
			return EINVAL;
		length = wr->length;
		break;
	default:
		return EINVAL;
	}

	memset(wqe, 0, fixed);
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == SV_WR_FLUSH) {
		wqe->wr.wr.flush.remote_addr = wr->remote_addr;
		wqe->wr.wr.flush.length = wr->length;
		wqe->wr.wr.flush.rkey = wr->rkey;
		wqe->wr.wr.flush.type = wr->type;
		wqe->wr.wr.flush.level = wr->level;
	} else {
		wqe->wr.wr.rdma.remote_addr = wr->remote_addr;
		wqe->wr.wr.rdma.rkey = wr->rkey;
		memcpy(wqe->dma.atomic_wr, wr->value, sizeof(wr->value));
	}
	wqe->iova = wr->remote_addr;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->ssn = ssn;
	return 0;
}

/* rdma-core 44 has these two of the extensions' numbers */
_Static_assert(IBV_WR_ATOMIC_WRITE == 15 && SV_WR_FLUSH == 14 &&
	       (int)IBV_WC_ATOMIC_WRITE == (int)SOFTVERBS_WC_ATOMIC_WRITE,
	       "IBTA 1.5 opcode numbers");
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct sv_sge) &&
	       offsetof(struct ibv_sge, addr) == offsetof(struct sv_sge, addr) &&
	       offsetof(struct ibv_sge, length) ==
	       offsetof(struct sv_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct sv_sge, lkey),
	       "ibv_sge and sv_sge differ");

int sv_wqe_encode_recv(void *slot, size_t slot_size, uint32_t max_sge,
		       const struct ibv_recv_wr *wr)
{
	const size_t fixed = offsetof(struct sv_recv_wqe, dma.sge);
	struct sv_recv_wqe *wqe = slot;
	uint32_t length;
	int err;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
	    (wr->num_sge && !wr->sg_list) ||
	    (size_t)wr->num_sge * sizeof(struct sv_sge) >
	    slot_payload_room(slot_size, fixed))
		return EINVAL;
	err = sge_total(wr->sg_list, wr->num_sge, &length);
	if (err)
		return err;

	memset(wqe, 0, fixed);
	wqe->wr_id = wr->wr_id;
	if (wr->num_sge)
		memcpy(wqe->dma.sge, wr->sg_list,
		       (size_t)wr->num_sge * sizeof(struct sv_sge));
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = (uint32_t)wr->num_sge;
	return 0;
}

/*
 * wc_flags in a CQE: softverbs writes verbs.h's values (IBV_WC_GRH 1,
 * IBV_WC_WITH_IMM 2, IBV_WC_IP_CSUM_OK 4, IBV_WC_WITH_INV 8), because
 * librxe copies CQEs verbatim into struct ibv_wc and must see them right;
 * see uapi/softverbs-abi.h.  Soft-RoCE writes the kernel's IB_WC_* values
 * (include/rdma/ib_verbs.h: WITH_INVALIDATE 4, IP_CSUM_OK 8), so librxe's
 * users see those two swapped; for it (@kernel_values) we translate.
 */
enum {
	KWC_GRH = 1 << 0,
	KWC_WITH_IMM = 1 << 1,
	KWC_WITH_INVALIDATE = 1 << 2,
	KWC_IP_CSUM_OK = 1 << 3,
};

unsigned int sv_wc_flags_decode(uint32_t flags, bool kernel_values)
{
	unsigned int out = 0;

	if (!kernel_values)
		return flags & (IBV_WC_GRH | IBV_WC_WITH_IMM | IBV_WC_IP_CSUM_OK |
				IBV_WC_WITH_INV);
	if (flags & KWC_GRH)
		out |= IBV_WC_GRH;
	if (flags & KWC_WITH_IMM)
		out |= IBV_WC_WITH_IMM;
	if (flags & KWC_WITH_INVALIDATE)
		out |= IBV_WC_WITH_INV;
	if (flags & KWC_IP_CSUM_OK)
		out |= IBV_WC_IP_CSUM_OK;
	return out;
}

void sv_cqe_decode(struct ibv_wc *wc, const struct ib_uverbs_wc *cqe,
		   bool kernel_wc_flags)
{
	wc->wr_id = cqe->wr_id;
	/* IB_WC_* status and IB_UVERBS_WC_* opcodes are verbs.h's numbers */
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->wc_flags = sv_wc_flags_decode(cqe->wc_flags, kernel_wc_flags);
	/* one union: imm_data (big endian) or the invalidated rkey */
	wc->imm_data = cqe->ex.imm_data;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}
