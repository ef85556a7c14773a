// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the checks of kmod/sv_wqe.c on WQEs user space wrote,
 * sv_wqe_check_send() (a send WQE the requester copied from a user SQ)
 * and sv_wqe_check_recv() (a receive WQE the responder or sv_srq_pop()
 * copied from a user RQ or SRQ), sv_wqe.c and sv_opcode.c compiled
 * unchanged against the fake kernel headers in shim/.  The kernel work
 * request paths of sv_wqe.c (post_send/post_recv of kernel consumers:
 * trusted callers, kernel pointers in their SGE lists, the ring) are
 * built but not fuzzed.
 *
 * An input is a QP (or SRQ) as create_qp would make it, then the slot:
 *
 *   byte 0      bit 0: 0 send WQE, 1 receive WQE; bits 2:1 for a send
 *               WQE: the QP type, RC, UC or UD (a user QP: uverbs
 *               creates no GSI QP for user space)
 *   byte 1      max_send_sge / max_recv_sge asked for, mod 33 (32 max)
 *   bytes 2-3   max_inline_data asked for (little endian), mod 513
 *   bytes 4..   the slot as user space wrote it; short: zeros after it
 *
 * The copy the check gets is exactly as long as the kernel's (a send
 * WQE: sv_qp_send_wqe_size(), taken by sv_wqe_copy_send() from a slot of
 * 2^log2_elem_size bytes, sized as sv_qp.c sizes it, and what the
 * transport then reads must be the slot's bytes; a receive WQE:
 * sv_srq_wqe_size(max_sge), taken by sv_wqe_copy_recv()), so
 * AddressSanitizer sees any read past it.
 *
 * What must hold:
 *  - the verdict is the one of the model below (written from the user
 *    ABI and the IBTA rules, not from sv_wqe.c) on every input;
 *  - an accepted send WQE: dma.length and dma.resid are what the
 *    transport will send (the SGE sum, the inline length, 8 for ATOMIC
 *    WRITE, the range of a FLUSH), cur_sge and sge_offset are 0, num_sge
 *    is 0 where no SGE is used; every byte the transport then reads (the
 *    SGE list, the inline data, the ATOMIC WRITE value) is inside the copy
 *    (checked by the numbers and by reading it); no other byte changed;
 *  - an accepted receive WQE: num_sge <= max_sge, dma.length is the SGE
 *    sum saturated at 2^32 - 1, resid the same, the rest as sent.
 */
#include <linux/types.h>

#include "sv.h"
#include "sv_xport.h"

#include "fuzz.h"

/* ABI numbers from the system's uapi headers, not from kmod/ */
enum {
	OP_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	OP_WRITE_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	OP_SEND = IB_UVERBS_WR_SEND,
	OP_SEND_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	OP_READ = IB_UVERBS_WR_RDMA_READ,
	OP_CMP_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	OP_FETCH_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	OP_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	OP_BIND_MW = IB_UVERBS_WR_BIND_MW,
	OP_SEND_INV = IB_UVERBS_WR_SEND_WITH_INV,
	OP_FLUSH = 14,		/* IB_UVERBS_WR_FLUSH (uapi of 6.2+) */
	OP_ATOMIC_WRITE = 15,	/* IB_UVERBS_WR_ATOMIC_WRITE */
};

/* IBV_SEND_FENCE, SIGNALED, SOLICITED, INLINE; not IP_CSUM */
#define M_SEND_FLAGS	0xfU
#define M_SEND_INLINE	0x8U
#define M_MAX_SGE	32	/* SV_MAX_QP_SGE = SV_MAX_SRQ_SGE */
#define M_MAX_INLINE	512	/* SV_MAX_INLINE_DATA */
#define M_MAX_MSG	(1ULL << 31)	/* IBTA 9.4.1, the port's limit */
#define M_MAX_QPN	0xffffffU

static_assert(SV_MAX_QP_SGE == M_MAX_SGE && SV_MAX_SRQ_SGE == M_MAX_SGE);
static_assert(SV_MAX_INLINE_DATA == M_MAX_INLINE);
static_assert(SV_PORT_MAX_MSG_SZ == M_MAX_MSG);

/*
 * The QP types a user send work request may use.  IBTA chapter 9 and 10:
 * RDMA WRITE and SEND for RC and UC, SEND for UD; READ, atomics, Send
 * with Invalidate and the IBTA 1.5 operations for RC only; memory window
 * binds and local invalidation, softverbs' choice, on RC and UC
 * (librxe's).  FLUSH only where ib_core has it (SV_MPE, compat.h).  XRC
 * initiators (Annex A14): RC's operations but the IBTA 1.5 ones and window
 * binds, local invalidation too.
 */
static bool model_qp_ok(u32 op, enum ib_qp_type t)
{
	bool rc = t == IB_QPT_RC, uc = t == IB_QPT_UC, ud = t == IB_QPT_UD;
	bool xrc = t == IB_QPT_XRC_INI;

	switch (op) {
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_LOCAL_INV:
		return rc || uc || xrc;
	case OP_BIND_MW:
		return rc || uc;
	case OP_SEND:
	case OP_SEND_IMM:
		return rc || uc || ud || xrc;
	case OP_READ:
	case OP_CMP_SWP:
	case OP_FETCH_ADD:
	case OP_SEND_INV:
		return rc || xrc;
	case OP_ATOMIC_WRITE:
		return rc;
	case OP_FLUSH:
		return rc && SV_MPE;
	default:
		return false;	/* TSO, masked atomics, kernel-only REG_MR */
	}
}

/* operations whose data may travel inline in the WQE (IBTA 11.4.1.1) */
static bool model_inline_ok(u32 op)
{
	return op == OP_WRITE || op == OP_WRITE_IMM || op == OP_SEND ||
	       op == OP_SEND_IMM || op == OP_SEND_INV;
}

struct send_qp {
	enum ib_qp_type	type;
	u32		max_sge;	/* what create_qp reports */
	u32		max_inline;
	size_t		slot;		/* bytes of one SQ slot */
};

/* what sv_qp.c's create_qp makes of @sge SGEs and @inl inline bytes */
static void model_create(struct send_qp *q, u32 sge, u32 inl)
{
	u32 space = max_t(u32, sge * 16, inl);	/* SGEs and inline share it */
	size_t elem = sizeof(struct sv_send_wqe) + space;

	q->max_sge = space / 16;
	q->max_inline = space;
	for (q->slot = 1; q->slot < elem; q->slot <<= 1)
		;
}

/*
 * 0 and the length the transport will send, or -EINVAL: the rules of
 * the user ABI (uapi/softverbs-abi.h: librxe's layout, ATOMIC WRITE's
 * value in dma.atomic_wr, FLUSH's range in dma.length) and IBTA.
 */
static int model_send(const struct send_qp *q, const struct sv_send_wqe *w,
		      u64 *length, bool *sges)
{
	u32 op = w->wr.opcode, flags = w->wr.send_flags, i;
	u64 len = 0;

	*sges = false;
	if (!model_qp_ok(op, q->type) || (flags & ~M_SEND_FLAGS))
		return -EINVAL;
	switch (op) {
	case OP_ATOMIC_WRITE:
		/* 8 bytes to a naturally aligned address (IBTA 1.5) */
		if ((flags & M_SEND_INLINE) || w->dma.length != 8 ||
		    w->wr.wr.rdma.remote_addr % 8 ||
		    offsetof(struct sv_send_wqe, dma.atomic_wr) + 8 > q->slot)
			return -EINVAL;
		len = 8;
		break;
	case OP_FLUSH:
		/* IBTA 1.5 A19.4.1: placement type global and/or persistent */
		if ((flags & M_SEND_INLINE) || w->wr.wr.flush.type == 0 ||
		    w->wr.wr.flush.type > 3 || w->wr.wr.flush.level > 1)
			return -EINVAL;
		len = w->dma.length;
		break;
	case OP_LOCAL_INV:
	case OP_BIND_MW:
		break;
	default:
		if (flags & M_SEND_INLINE) {
			if (!model_inline_ok(op) ||
			    w->dma.length > q->max_inline)
				return -EINVAL;
			len = w->dma.length;
			break;
		}
		if (w->dma.num_sge > q->max_sge)
			return -EINVAL;
		for (i = 0; i < w->dma.num_sge; i++)
			len += w->dma.sge[i].length;
		if (len > M_MAX_MSG)
			return -EINVAL;
		*sges = true;
		break;
	}
	/* atomics: 8 naturally aligned bytes at the AtomicETH's address */
	if ((op == OP_CMP_SWP || op == OP_FETCH_ADD) &&
	    (len < 8 || w->wr.wr.atomic.remote_addr % 8))
		return -EINVAL;
	if (q->type == IB_QPT_UD && w->wr.wr.ud.remote_qpn > M_MAX_QPN)
		return -EINVAL;
	/* XRC (A14): every remote operation names an SRQ, 24 bits, not 0 */
	if (q->type == IB_QPT_XRC_INI && op != OP_LOCAL_INV &&
	    (!w->wr.xrc_srqn || w->wr.xrc_srqn >= 1U << 24))
		return -EINVAL;
	*length = len;
	return 0;
}

/*
 * Only bytes [@from, @to) of a WQE of @size bytes changed: the fields
 * the checks rewrite, dma.length .. dma.sge_offset.
 */
static void check_unchanged(const u8 *before, const u8 *after, size_t size,
			    size_t from, size_t to, const char *what)
{
	size_t i;

	for (i = 0; i < size; i++)
		CHECK(i >= from && i < to ? true : before[i] == after[i],
		      "%s: byte %zu changed from 0x%02x to 0x%02x", what, i,
		      before[i], after[i]);
}

static void fuzz_send(const u8 *cfg, const u8 *slot_in, size_t in_len)
{
	static const enum ib_qp_type types[] = { IB_QPT_RC, IB_QPT_UC,
						 IB_QPT_UD, IB_QPT_XRC_INI };
	struct sv_queue queue = { 0 };
	struct send_qp q;
	struct sv_send_wqe *wqe, *orig, *slot;
	struct sv_qp *qp;
	u64 want_len = 0;
	size_t copy;
	bool sges;
	int want, got;

	q.type = types[(cfg[0] >> 1) & 3];
	model_create(&q, cfg[1] % (M_MAX_SGE + 1),
		     (cfg[2] | cfg[3] << 8) % (M_MAX_INLINE + 1));

	/* the QP as sv_qp.c leaves it: only what the check may read is set */
	qp = calloc(1, sizeof(*qp));
	CHECK(qp, "out of memory");
	qp->ibqp.qp_type = q.type;
	qp->is_user = true;
	qp->sq.max_sge = q.max_sge;
	qp->sq.max_inline = q.max_inline;
	qp->sq.queue = &queue;
	queue.log2_elem_size = order_base_2(sizeof(struct sv_send_wqe) +
					    q.max_inline);
	queue.kind = SV_QUEUE_KERNEL_CONSUMES;
	CHECK(((size_t)1 << queue.log2_elem_size) == q.slot,
	      "slot of %zu bytes, sv_queue_create's log2 %u", q.slot,
	      queue.log2_elem_size);

	/* the requester's private copy of the slot, exactly as long */
	copy = sv_qp_send_wqe_size(qp);
	CHECK(copy <= q.slot, "a copy of %zu bytes of a slot of %zu", copy,
	      q.slot);
	/*
	 * taken as the requester takes it (sv_wqe_copy_send()), into a
	 * buffer exactly as long (ASan bounds it) holding a pattern where
	 * the copy leaves the room alone
	 */
	slot = calloc(1, q.slot);
	wqe = malloc(copy);
	orig = calloc(1, copy);
	CHECK(slot && wqe && orig, "out of memory");
	memcpy(slot, slot_in, min_t(size_t, in_len, q.slot));
	memset(wqe, 0xa5, copy);
	sv_wqe_copy_send(wqe, slot, copy);
	memcpy(orig, wqe, copy);

	want = model_send(&q, orig, &want_len, &sges);
	got = sv_wqe_check_send(qp, wqe);
	CHECK(got == want,
	      "sv_wqe_check_send: %d, the model: %d (opcode %u flags 0x%x, QP type %u, %u of %u SGEs, length %u, inline %u)",
	      got, want, orig->wr.opcode, orig->wr.send_flags, q.type,
	      orig->dma.num_sge, q.max_sge, orig->dma.length, q.max_inline);
	if (got)
		goto out;

	CHECK(wqe->dma.length == want_len && wqe->dma.resid == want_len &&
	      wqe->dma.cur_sge == 0 && wqe->dma.sge_offset == 0,
	      "opcode %u: length %u resid %u cur_sge %u sge_offset %u, want length %llu",
	      orig->wr.opcode, wqe->dma.length, wqe->dma.resid,
	      wqe->dma.cur_sge, wqe->dma.sge_offset,
	      (unsigned long long)want_len);
	CHECK(wqe->dma.num_sge == (sges ? orig->dma.num_sge : 0),
	      "opcode %u: num_sge %u after the check, %u before",
	      orig->wr.opcode, wqe->dma.num_sge, orig->dma.num_sge);
	check_unchanged((const u8 *)orig, (const u8 *)wqe, copy,
			offsetof(struct sv_send_wqe, dma.length),
			offsetof(struct sv_send_wqe, dma.reserved), "send WQE");

	/* what the transport reads next lies in the slot: read it */
	if (sges) {
		CHECK(offsetof(struct sv_send_wqe, dma.sge) +
		      (size_t)wqe->dma.num_sge * sizeof(struct sv_sge) <= copy,
		      "%u SGEs do not fit a copy of %zu bytes",
		      wqe->dma.num_sge, copy);
		fuzz_touch(wqe->dma.sge,
			   wqe->dma.num_sge * sizeof(struct sv_sge));
		CHECK(!memcmp(wqe->dma.sge, slot->dma.sge,
			      wqe->dma.num_sge * sizeof(struct sv_sge)),
		      "%u SGEs not copied from the slot", wqe->dma.num_sge);
	} else if (orig->wr.opcode == OP_ATOMIC_WRITE) {
		CHECK(offsetof(struct sv_send_wqe, dma.atomic_wr) + 8 <= copy,
		      "ATOMIC WRITE value outside the copy");
		fuzz_touch(wqe->dma.atomic_wr, 8);
		CHECK(!memcmp(wqe->dma.atomic_wr, slot->dma.atomic_wr, 8),
		      "ATOMIC WRITE value not copied from the slot");
	} else if (orig->wr.send_flags & M_SEND_INLINE &&
		   orig->wr.opcode != OP_LOCAL_INV &&
		   orig->wr.opcode != OP_BIND_MW) {
		CHECK(offsetof(struct sv_send_wqe, dma.inline_data) +
		      (size_t)wqe->dma.length <= copy,
		      "%u inline bytes do not fit a copy of %zu bytes",
		      wqe->dma.length, copy);
		fuzz_touch(wqe->dma.inline_data, wqe->dma.length);
		CHECK(!memcmp(wqe->dma.inline_data, slot->dma.inline_data,
			      wqe->dma.length),
		      "%u inline bytes not copied from the slot",
		      wqe->dma.length);
	}
out:
	free(orig);
	free(wqe);
	free(slot);
	free(qp);
}

static void fuzz_recv(const u8 *cfg, const u8 *slot_in, size_t in_len)
{
	u32 max_sge = cfg[1] % (M_MAX_SGE + 1), i;
	size_t size = sizeof(struct sv_recv_wqe) + max_sge * sizeof(struct sv_sge);
	struct sv_recv_wqe *slot, *wqe, *orig;
	u64 len = 0;
	int got;

	CHECK(size == sv_srq_wqe_size(max_sge),
	      "receive WQE of %zu bytes, sv_srq_wqe_size(%u) = %zu", size,
	      max_sge, sv_srq_wqe_size(max_sge));
	/*
	 * taken as the responder takes it (sv_wqe_copy_recv()), from a slot
	 * into a buffer of exactly the WQE's size (ASan bounds it) holding a
	 * pattern where the copy leaves it alone
	 */
	slot = calloc(1, size);
	wqe = malloc(size);
	orig = calloc(1, size);
	CHECK(slot && wqe && orig, "out of memory");
	memcpy(slot, slot_in, min_t(size_t, in_len, size));
	memset(wqe, 0xa5, size);
	sv_wqe_copy_recv(wqe, slot, max_sge);
	CHECK(!memcmp(wqe, slot, sizeof(*wqe) +
		      min(wqe->dma.num_sge, max_sge) * sizeof(struct sv_sge)),
	      "sv_wqe_copy_recv: the header and %u SGEs differ from the slot",
	      min(wqe->dma.num_sge, max_sge));
	memcpy(orig, wqe, size);

	got = sv_wqe_check_recv(wqe, max_sge);
	CHECK(got == (orig->dma.num_sge <= max_sge ? 0 : -EINVAL),
	      "sv_wqe_check_recv: %d for num_sge %u of %u", got,
	      orig->dma.num_sge, max_sge);
	if (got)
		goto out;
	for (i = 0; i < orig->dma.num_sge; i++)
		len += orig->dma.sge[i].length;
	fuzz_touch(wqe->dma.sge, wqe->dma.num_sge * sizeof(struct sv_sge));
	len = min_t(u64, len, U32_MAX);
	CHECK(wqe->dma.length == len && wqe->dma.resid == len &&
	      wqe->dma.cur_sge == 0 && wqe->dma.sge_offset == 0 &&
	      wqe->dma.num_sge == orig->dma.num_sge,
	      "receive WQE: length %u resid %u cur_sge %u sge_offset %u num_sge %u, want length %llu",
	      wqe->dma.length, wqe->dma.resid, wqe->dma.cur_sge,
	      wqe->dma.sge_offset, wqe->dma.num_sge, (unsigned long long)len);
	check_unchanged((const u8 *)orig, (const u8 *)wqe, size,
			offsetof(struct sv_recv_wqe, dma.length),
			offsetof(struct sv_recv_wqe, dma.reserved), "receive WQE");
out:
	free(orig);
	free(wqe);
	free(slot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_input = data;
	fuzz_input_len = size;
	if (size < 4)
		return -1;	/* not a valid input: not added to the corpus */
	if (data[0] & 1)
		fuzz_recv(data, data + 4, size - 4);
	else
		fuzz_send(data, data + 4, size - 4);
	return 0;
}
