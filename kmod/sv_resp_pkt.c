// SPDX-License-Identifier: GPL-2.0
/*
 * The responder's outgoing packets (IBTA 9.7.5): a response packet with its
 * BTH, ACKs, NAKs and RNR NAKs with their AETH, and the sending, in order,
 * of what a lock holder queued.  sv_resp.c and sv_resp_res.c build their
 * responses here; sv_resp.h is shared.
 *
 * Documentation/design.md, "Transport" (responder).
 */
#include "sv.h"
#include "sv_resp.h"
#include "sv_xport.h"

/**
 * sv_resp_pkt_new() - allocate a response packet and build its BTH
 * @qp: the responding QP
 * @out: what the lock holder decided; gives the path
 * @opcode: an RC response opcode (an XRC target sends the same response
 *	with the XRC prefix, IBTA A14)
 * @psn: the response's PSN
 * @paylen: payload bytes to follow the headers
 * @ref_mr: NULL; or an MR (sv_mr_can_ref()) whose bytes from @ref_iova are
 *	the payload: the packet is then a local frame by reference, which
 *	takes the caller's reference to @ref_mr, or nothing
 * @ref_iova: where that payload starts in @ref_mr
 * @pktp: the new packet, on success (a local frame where the path allows)
 *
 * The pad after the payload is zeroed; the caller fills the extension
 * headers and payload (not one by reference) and queues the packet on
 * @out->txq.
 *
 * Context: softirq or process context, under qp->resp.lock.
 * Return: the start of the packet's headers (the BTH), or NULL if there
 * is no path or no memory (the packet is lost, which the requester's
 * retry covers) or, with @ref_mr, no frame (the caller keeps its
 * reference).
 */
u8 *sv_resp_pkt_new(struct sv_qp *qp, struct sv_resp_out *out, u8 opcode,
		    u32 psn, u32 paylen, struct sv_mr *ref_mr, u64 ref_iova,
		    struct sv_net_pkt **pktp)
{
	const struct sv_opcode_info *info;
	struct sv_net_pkt *pkt;
	u8 *hdr;

	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		opcode = SV_OPCODE_XRC | sv_opcode_op(opcode);
	info = &sv_opcode_table[opcode];

	if (!out->path)
		return NULL;
	/* a responder's QP is connected: never UD */
	if (ref_mr)
		pkt = sv_net_pkt_alloc_ref(sv_resp_dev(qp), out->path,
					   info->hdr_len,
					   sv_hdr_pkt_len(info, paylen),
					   ref_mr, ref_iova, &qp->resp.dest);
	else
		pkt = sv_net_pkt_alloc(sv_resp_dev(qp), out->path,
				       sv_hdr_pkt_len(info, paylen),
				       SV_NET_PKT_FRAME, &qp->resp.dest);
	if (!pkt)
		return NULL;
	hdr = sv_net_pkt_data(pkt);
	sv_hdr_build_bth(hdr, opcode, 0, SV_DEFAULT_PKEY,
			 READ_ONCE(qp->attr.dest_qp_num), psn, paylen);
	if (!ref_mr)
		memset(hdr + info->hdr_len + paylen, 0, sv_hdr_pad(paylen));
	*pktp = pkt;
	return hdr;
}

/**
 * sv_resp_pkt_aeth() - queue an ACK or NAK (IBTA 9.7.5.1, 9.7.5.2)
 * @qp: the responding QP
 * @out: where the packet is queued (@out->txq)
 * @syndrome: the AETH syndrome (sv_aeth_syn_*())
 * @psn: the PSN acknowledged or NAKed
 *
 * The AETH carries the QP's current MSN.  Sent at once, even behind
 * queued responses: sv_resp_pkt_ack() is the one that waits.
 *
 * Context: softirq or process context, under qp->resp.lock.
 */
void sv_resp_pkt_aeth(struct sv_qp *qp, struct sv_resp_out *out,
		      u8 syndrome, u32 psn)
{
	struct sv_net_pkt *pkt;
	u8 *hdr;

	lockdep_assert_held(&qp->resp.lock);
	hdr = sv_resp_pkt_new(qp, out, IB_OPCODE_RC_ACKNOWLEDGE, psn, 0, NULL, 0,
			      &pkt);
	if (!hdr)
		return;
	sv_hdr_build_aeth(hdr, syndrome, qp->resp.msn);
	sv_resp_cb(pkt)->from_res = false;
	sv_net_pktq_add(&out->txq, pkt);
}

/**
 * sv_resp_pkt_ack() - acknowledge everything up to a PSN
 * @qp: the responding QP
 * @out: where the packet is queued
 * @psn: the PSN acknowledged
 *
 * The credit field carries the "invalid credit count" code: no end-to-end
 * flow control (IBTA 9.7.5.1.1).  Behind queued responses (resp.serving)
 * the ACK waits, to be sent after them (see sv_resp_res.c).
 *
 * Context: softirq or process context, under qp->resp.lock.
 */
void sv_resp_pkt_ack(struct sv_qp *qp, struct sv_resp_out *out, u32 psn)
{
	lockdep_assert_held(&qp->resp.lock);
	if (qp->resp.serving) {
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = psn;
		return;
	}
	sv_resp_pkt_aeth(qp, out, sv_aeth_syn_ack(SV_AETH_CREDITS_INVALID),
			 psn);
	sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_ACKS);
}

/**
 * sv_resp_pkt_rnr_nak() - queue a Receiver Not Ready NAK (IBTA 9.7.5.2.8)
 * @qp: the responding QP
 * @out: where the packet is queued
 * @psn: the PSN the requester is to send again from
 *
 * The syndrome carries the QP's min_rnr_timer.
 *
 * Context: softirq or process context, under qp->resp.lock.
 */
void sv_resp_pkt_rnr_nak(struct sv_qp *qp, struct sv_resp_out *out, u32 psn)
{
	u8 timer = READ_ONCE(qp->attr.min_rnr_timer);

	lockdep_assert_held(&qp->resp.lock);
	sv_resp_pkt_aeth(qp, out, sv_aeth_syn_rnr(timer), psn);
	sv_stat_inc(sv_resp_dev(qp), SV_STAT_TX_NAK_RNR);
	qp->resp.rnr_naks++;
	qp->resp.nak_sent = true;
}

/**
 * sv_resp_pkt_nak() - queue a NAK (IBTA 9.7.5.2)
 * @qp: the responding QP
 * @out: where the packet is queued
 * @code: the NAK code
 * @psn: the PSN NAKed
 *
 * Context: softirq or process context, under qp->resp.lock.
 */
void sv_resp_pkt_nak(struct sv_qp *qp, struct sv_resp_out *out,
		     enum sv_aeth_nak code, u32 psn)
{
	static const u8 stat[] = {
		[SV_NAK_PSN_SEQ_ERR] = SV_STAT_TX_NAK_SEQ,
		[SV_NAK_INVALID_REQ] = SV_STAT_TX_NAK_INV_REQ,
		[SV_NAK_REM_ACCESS_ERR] = SV_STAT_TX_NAK_REM_ACC,
		[SV_NAK_REM_OP_ERR] = SV_STAT_TX_NAK_REM_OP,
	};

	lockdep_assert_held(&qp->resp.lock);
	sv_resp_pkt_aeth(qp, out, sv_aeth_syn_nak(code), psn);
	if (code < ARRAY_SIZE(stat))
		sv_stat_inc(sv_resp_dev(qp), stat[code]);
}

/**
 * sv_resp_pkt_xmit() - send the packets queued in @out, in order
 * @qp: the responding QP
 * @out: the packets (@out->txq) and their path
 * @retry: the caller is the work item: keep a refused packet for later
 *
 * Sent still under the lock, so that responses leave in order (see
 * struct sv_resp_state).  With @retry, when the way out refuses a packet
 * built from a resource, sv_resp_rewind() drops it and those after it and
 * puts the resources' cursors back, to build them again.
 *
 * Context: softirq or process context, under qp->resp.lock.
 * Return: true if every packet was handed over; false (only with @retry)
 * if the caller is to back off before trying again.
 */
bool sv_resp_pkt_xmit(struct sv_qp *qp, struct sv_resp_out *out, bool retry)
{
	struct sv_dev *sv = sv_resp_dev(qp);
	struct sv_net_pkt *pkt;
	u16 sport;

	lockdep_assert_held(&qp->resp.lock);
	if (sv_net_pktq_empty(&out->txq))
		return true;
	sport = sv_path_udp_sport(out->path, qp->ibqp.qp_num,
				  READ_ONCE(qp->attr.dest_qp_num));
	while ((pkt = sv_net_pktq_pop(&out->txq))) {
		/* sending consumes the packet: keep the cursor */
		struct sv_resp_cb cb = *sv_resp_cb(pkt);

		if (!sv_net_pkt_xmit(sv, out->path, sport, pkt, 1) || !retry ||
		    !cb.from_res)
			continue;
		sv_resp_rewind(qp, out, &cb);
		return false;
	}
	return true;
}

