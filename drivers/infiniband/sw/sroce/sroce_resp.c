// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_resp.c - the responder: request packets in, memory updated,
 * acknowledgements out.
 *
 * Runs in softirq from the UDP receive hook with qp->lock held; nothing here
 * sleeps. Single-packet answers (ACK, NAK, ATOMIC ACK) are sent right away;
 * multi-packet READ responses are queued as IRD resources and sent by the
 * transmit thread (sroce_resp_send_reads_locked()).
 *
 * Receive WQEs are fetched from the shared ring - the QP's RQ, or its SRQ
 * (sroce_srq.c) - only when a SEND needs one: read once into qp->rwqe,
 * validated, then used from the copy.
 *
 * A UC QP's requests are executed the same way but never answered; what
 * RC would NAK drops the message instead (sroce_uc.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_qp.h"
#include "sroce_seg.h"
#include "sroce_sge.h"
#include "sroce_srq.h"
#include "sroce_stats.h"
#include "sroce_uc.h"
#include "sroce_xmit.h"

enum sroce_resp_result {
	SROCE_RESP_DONE,		/* accepted; PSN advances */
	SROCE_RESP_RNR,			/* no receive WQE: RNR NAK */
	SROCE_RESP_NAK_INVALID,		/* NAK, both QPs to error */
	SROCE_RESP_NAK_ACCESS,
	SROCE_RESP_NAK_OPERATIONAL,
};

static void sroce_resp_send(struct sroce_qp *qp, struct sroce_hdrs *h)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(h->bth.opcode);
	u32 tail = h->payload_len + sroce_pad_for(h->payload_len) +
		   SROCE_ICRC_BYTES;
	struct sk_buff *skb = sroce_pkt_alloc(op->hdr_len + tail);

	/* A lost answer is recovered by the requester's retry. */
	if (!skb)
		return;
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dest_qpn = qp->attr.dest_qp_num;
	sroce_hdrs_build(skb->data, op->hdr_len, h);
	memset(skb->data + op->hdr_len, 0, tail);
	sroce_xmit(qp, skb);
}

static void sroce_resp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_hdrs h = {
		.bth.opcode = SROCE_OP_ACKNOWLEDGE,
		.bth.psn = psn,
		.aeth.syndrome = syndrome,
		.aeth.msn = qp->resp_msn,
	};

	sroce_resp_send(qp, &h);
}

static void sroce_resp_atomic_ack(struct sroce_qp *qp, u32 psn, u64 orig)
{
	struct sroce_hdrs h = {
		.bth.opcode = SROCE_OP_ATOMIC_ACKNOWLEDGE,
		.bth.psn = psn,
		.aeth.syndrome = SROCE_AETH_ACK | SROCE_AETH_CREDITS_INVALID,
		.aeth.msn = qp->resp_msn,
		.atmack_orig = orig,
	};

	sroce_resp_send(qp, &h);
}

/**
 * sroce_rwqe_take - copy the next receive WQE out of a ring and consume it
 * @q: an RQ or an SRQ ring; the caller serialises its consumer side
 * @max_sge: SGEs a WQE of this ring may carry
 * @rwqe: the copy, used from here on; the slot is never read again
 *
 * The whole entry is copied before the consumer index moves, so a kernel
 * producer, which reuses a slot as soon as it is consumed, never writes
 * under the copy.
 *
 * Return: 0; -EAGAIN if the ring is empty; -EOVERFLOW for an impossible
 * producer index; -EINVAL if the entry is invalid (it is consumed, and
 * @rwqe's wr_id and index are set so that it can complete in error).
 */
int sroce_rwqe_take(struct sroce_queue *q, u32 max_sge, struct sroce_rwqe *rwqe)
{
	int avail = sroce_queue_available(q);
	const struct sroce_recv_wqe *wqe;
	struct sroce_recv_wqe hdr;
	s64 total;

	if (avail <= 0)
		return avail ?: -EAGAIN;
	wqe = sroce_queue_slot(q, q->index);
	memcpy(&hdr, wqe, sizeof(hdr));
	rwqe->wr_id = hdr.wr_id;
	rwqe->index = q->index;
	rwqe->num_sge = min(hdr.num_sge, max_sge);
	memcpy(rwqe->sge, wqe->sge, rwqe->num_sge * sizeof(*rwqe->sge));
	sroce_queue_consume(q, 1);
	/* Reserved must be zero (sroce-abi.h). */
	if (hdr.num_sge > max_sge || hdr.reserved)
		return -EINVAL;
	total = sroce_sge_total(rwqe->sge, rwqe->num_sge);
	if (total < 0)
		return -EINVAL;
	rwqe->length = total;
	return 0;
}

/* The next receive WQE for @qp: from its SRQ if it has one, else its RQ. */
int sroce_resp_fetch_rwqe(struct sroce_qp *qp)
{
	int err;

	lockdep_assert_held(&qp->lock);
	if (qp->srq)
		err = sroce_srq_take(qp->srq, &qp->rwqe);
	else
		err = sroce_rwqe_take(&qp->rq, qp->max_recv_sge, &qp->rwqe);
	if (err)
		return err;
	qp->rwqe_valid = true;
	qp->rwqe_offset = 0;
	return 0;
}

/**
 * sroce_resp_post_rwqe_cqe - complete the receive WQE in qp->rwqe
 * @qp: the QP; qp->lock held
 * @h: the packet that completes it
 * @cqe: what the caller knows filled in (status, byte_len, src_qp, and
 *	wc_flags and vlan_id beyond what @h decides); the rest is set here
 */
void sroce_resp_post_rwqe_cqe(struct sroce_qp *qp, const struct sroce_hdrs *h,
			      struct sroce_cqe *cqe)
{
	cqe->wr_id = qp->rwqe.wr_id;
	cqe->opcode = (h->op->flags & SROCE_OPF_WRITE) ?
		      SROCE_WC_RECV_RDMA_WITH_IMM : SROCE_WC_RECV;
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->wqe_index = qp->rwqe.index;
	cqe->is_recv = 1;
	if (h->op->flags & SROCE_OPF_IMMDT) {
		cqe->imm_data = h->imm;
		cqe->wc_flags |= SROCE_WC_WITH_IMM;
	}
	/* The ULP learns which of its keys the peer invalidated. */
	if ((h->op->flags & SROCE_OPF_IETH) && cqe->status == IB_WC_SUCCESS) {
		cqe->invalidated_rkey = h->ieth_rkey;
		cqe->wc_flags |= SROCE_WC_WITH_INV;
	}
	qp->rwqe_valid = false;
	sroce_cq_post(qp->rcq, &qp->ibqp, cqe, h->bth.solicited);
}

static void sroce_resp_complete_rwqe(struct sroce_qp *qp,
				     const struct sroce_hdrs *h,
				     enum ib_wc_status status)
{
	struct sroce_cqe cqe = {
		.status = status,
		.byte_len = qp->rwqe_offset,
		.src_qp = qp->attr.dest_qp_num,
	};

	sroce_resp_post_rwqe_cqe(qp, h, &cqe);
}

/* Make sure a receive WQE is at hand; a message's first packet takes one. */
static enum sroce_resp_result sroce_resp_need_rwqe(struct sroce_qp *qp,
						   const struct sroce_hdrs *h)
{
	int err;

	if (qp->rwqe_valid)
		return SROCE_RESP_DONE;
	err = sroce_resp_fetch_rwqe(qp);
	if (err == -EAGAIN)
		return SROCE_RESP_RNR;
	if (err) {
		if (err == -EINVAL)
			sroce_resp_complete_rwqe(qp, h, IB_WC_LOC_QP_OP_ERR);
		return SROCE_RESP_NAK_OPERATIONAL;
	}
	return SROCE_RESP_DONE;
}

/*
 * The LAST or ONLY packet of a SEND with invalidate, placed: the key in its
 * IETH must be the current key of a VALID fast-reg MR of this QP's PD, or
 * of a bound type 2 window bound to this QP (sroce_mw.c), which becomes
 * FREE before the receive completes, so no access through
 * the key succeeds once the ULP sees IB_WC_WITH_INVALIDATE. Any other key
 * completes the receive with IB_WC_REM_INV_REQ_ERR and is an invalid
 * request for the sender.
 */
static enum sroce_resp_result sroce_resp_send_inv_last(struct sroce_qp *qp,
						       const struct sroce_hdrs *h)
{
	if (sroce_key_invalidate(qp, h->ieth_rkey, true)) {
		sroce_resp_complete_rwqe(qp, h, IB_WC_REM_INV_REQ_ERR);
		return SROCE_RESP_NAK_INVALID;
	}
	sroce_resp_complete_rwqe(qp, h, IB_WC_SUCCESS);
	qp->resp_msn++;
	return SROCE_RESP_DONE;
}

static enum sroce_resp_result sroce_resp_send_op(struct sroce_qp *qp,
						 const struct sroce_hdrs *h,
						 const u8 *payload)
{
	enum sroce_resp_result res = sroce_resp_need_rwqe(qp, h);
	int err;

	if (res != SROCE_RESP_DONE)
		return res;
	if (h->payload_len > qp->rwqe.length - qp->rwqe_offset) {
		/* UC drops the message, the WQE left to the next one. */
		if (!sroce_qp_is_uc(qp))
			sroce_resp_complete_rwqe(qp, h, IB_WC_LOC_LEN_ERR);
		return SROCE_RESP_NAK_INVALID;
	}
	err = sroce_sge_copy(qp, sroce_qp_recv_pd(qp), qp->rwqe.sge,
			     qp->rwqe.num_sge, qp->rwqe_offset, (void *)payload,
			     h->payload_len, SROCE_COPY_TO_MR);
	if (err) {
		sroce_resp_complete_rwqe(qp, h, IB_WC_LOC_PROT_ERR);
		return SROCE_RESP_NAK_OPERATIONAL;
	}
	qp->rwqe_offset += h->payload_len;
	if (h->op->flags & SROCE_OPF_IETH)
		return sroce_resp_send_inv_last(qp, h);
	if (h->op->flags & SROCE_OPF_LAST) {
		sroce_resp_complete_rwqe(qp, h, IB_WC_SUCCESS);
		qp->resp_msn++;
	}
	return SROCE_RESP_DONE;
}

static void sroce_resp_drop_write(struct sroce_qp *qp)
{
	qp->resp_write_left = 0;
}

/* Look up and check the target of a WRITE, READ or ATOMIC. */
static struct sroce_mr *sroce_resp_target(struct sroce_qp *qp, u32 rkey,
					  u64 va, u64 len, int access)
{
	struct sroce_mr *mr;

	if (!(qp->attr.qp_access_flags & access))
		return ERR_PTR(-EACCES);
	/* A window's key: its checks, then its MR as if named directly. */
	if (sroce_key_is_mw(rkey)) {
		mr = sroce_mw_target(qp, rkey, va, len, access);
		return mr ? mr : ERR_PTR(-EACCES);
	}
	mr = sroce_mr_get(qp->sdev, rkey);
	if (!mr)
		return ERR_PTR(-EINVAL);
	if (sroce_mr_check(mr, qp->ibqp.pd, va, len, access)) {
		sroce_mr_put(mr);
		return ERR_PTR(-EACCES);
	}
	return mr;
}

/*
 * The first packet of a WRITE: check its whole range. *@mr is left holding
 * the checked MR (NULL for a zero-length WRITE) so that the packet's own
 * payload needs no second lookup; the caller puts it.
 */
static enum sroce_resp_result sroce_resp_write_start(struct sroce_qp *qp,
						     const struct sroce_hdrs *h,
						     struct sroce_mr **mr)
{
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return SROCE_RESP_NAK_ACCESS;
	if (h->reth.dma_len > SROCE_MAX_MSG_SIZE)
		return SROCE_RESP_NAK_INVALID;
	if (h->reth.dma_len) {
		*mr = sroce_resp_target(qp, h->reth.rkey, h->reth.va,
					h->reth.dma_len, IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(*mr)) {
			*mr = NULL;
			return SROCE_RESP_NAK_ACCESS;
		}
	}
	qp->resp_write_rkey = h->reth.rkey;
	qp->resp_write_va = h->reth.va;
	qp->resp_write_left = h->reth.dma_len;
	qp->resp_write_len = h->reth.dma_len;
	return SROCE_RESP_DONE;
}

/*
 * The MR is looked up again for every packet of a WRITE after its first,
 * as for READ responses: holding it from FIRST to LAST would let a peer
 * that stops mid-message block dereg_mr/rereg_mr of that MR until the QP
 * goes away. A MIDDLE or LAST whose MR has meanwhile gone gets NAK remote
 * access. @checked: the MR the first packet's range check took, or NULL.
 */
static enum sroce_resp_result sroce_resp_write_payload(struct sroce_qp *qp,
						       const struct sroce_hdrs *h,
						       const u8 *payload,
						       struct sroce_mr *checked)
{
	struct sroce_mr *mr = checked;

	if (!mr)
		mr = sroce_resp_target(qp, qp->resp_write_rkey, qp->resp_write_va,
				       h->payload_len, IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(mr))
		return SROCE_RESP_NAK_ACCESS;
	sroce_mr_copy(mr, qp->resp_write_va, (void *)payload, h->payload_len,
		      SROCE_COPY_TO_MR);
	if (!checked)
		sroce_mr_put(mr);
	return SROCE_RESP_DONE;
}

/* A WRITE packet's payload and, at its LAST, the end of the message. */
static enum sroce_resp_result sroce_resp_write_data(struct sroce_qp *qp,
						    const struct sroce_hdrs *h,
						    const u8 *payload,
						    struct sroce_mr *mr)
{
	u32 flags = h->op->flags;
	enum sroce_resp_result res;

	if (h->payload_len > qp->resp_write_left ||
	    ((flags & SROCE_OPF_LAST) && h->payload_len != qp->resp_write_left))
		return SROCE_RESP_NAK_INVALID;
	if (h->payload_len) {
		res = sroce_resp_write_payload(qp, h, payload, mr);
		if (res != SROCE_RESP_DONE)
			return res;
		qp->resp_write_va += h->payload_len;
		qp->resp_write_left -= h->payload_len;
	}
	if (flags & SROCE_OPF_LAST) {
		sroce_resp_drop_write(qp);
		if (flags & SROCE_OPF_IMMDT) {
			/* Like RNICs: byte_len is the length of the write. */
			qp->rwqe_offset = qp->resp_write_len;
			sroce_resp_complete_rwqe(qp, h, IB_WC_SUCCESS);
		}
		qp->resp_msn++;
	}
	return SROCE_RESP_DONE;
}

static enum sroce_resp_result sroce_resp_write_op(struct sroce_qp *qp,
						  const struct sroce_hdrs *h,
						  const u8 *payload)
{
	u32 flags = h->op->flags;
	struct sroce_mr *mr = NULL;	/* the FIRST's range, checked */
	enum sroce_resp_result res;

	/* WRITE with immediate needs its receive WQE before touching memory. */
	if ((flags & SROCE_OPF_IMMDT)) {
		res = sroce_resp_need_rwqe(qp, h);
		if (res != SROCE_RESP_DONE)
			return res;
	}
	if (flags & SROCE_OPF_FIRST) {
		res = sroce_resp_write_start(qp, h, &mr);
		if (res != SROCE_RESP_DONE)
			return res;
	}
	res = sroce_resp_write_data(qp, h, payload, mr);
	if (mr)
		sroce_mr_put(mr);
	return res;
}

/**
 * sroce_resp_new_rd_res - the IRD slot for a new READ or ATOMIC
 * @qp: the QP; qp->lock held
 *
 * Takes the oldest slot even if its READ is still being answered: the
 * requester keeps at most max_dest_rd_atomic READs/ATOMICs outstanding, so a
 * new one means it is done with the oldest. That READ can still be pending
 * when a duplicate request restarted responses the requester then received
 * from the first copy; refusing the new request would put the QP in error.
 *
 * Return: the cleared slot, or NULL if the QP has no IRD resources.
 */
SROCE_VISIBLE_IF_KUNIT struct sroce_rd_res *
sroce_resp_new_rd_res(struct sroce_qp *qp)
{
	struct sroce_rd_res *res;

	if (!qp->rd_res_count)
		return NULL;
	res = &qp->rd_res[qp->rd_res_tail % qp->rd_res_count];
	qp->rd_res_tail++;
	/* Responses go out from head: never from the overwritten slot. */
	if (qp->rd_res_tail - qp->rd_res_head > qp->rd_res_count)
		qp->rd_res_head = qp->rd_res_tail - qp->rd_res_count;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

static u32 sroce_resp_read_pkts(const struct sroce_qp *qp, u32 len)
{
	return len ? DIV_ROUND_UP(len, qp->mtu) : 1;
}

static enum sroce_resp_result sroce_resp_read_op(struct sroce_qp *qp,
						 const struct sroce_hdrs *h,
						 u32 *npsn)
{
	struct sroce_rd_res *res;
	struct sroce_mr *mr;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ))
		return SROCE_RESP_NAK_ACCESS;
	/*
	 * Past max_msg_sz (which also keeps the packet count from wrapping), or
	 * more responses than PSNs can tell apart.
	 */
	if (h->reth.dma_len > SROCE_MAX_MSG_SIZE ||
	    !sroce_psn_span_fits(sroce_resp_read_pkts(qp, h->reth.dma_len)))
		return SROCE_RESP_NAK_INVALID;
	if (h->reth.dma_len) {
		mr = sroce_resp_target(qp, h->reth.rkey, h->reth.va,
				       h->reth.dma_len, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return SROCE_RESP_NAK_ACCESS;
		sroce_mr_put(mr);
	}
	res = sroce_resp_new_rd_res(qp);
	if (!res)
		return SROCE_RESP_NAK_INVALID;
	*npsn = sroce_resp_read_pkts(qp, h->reth.dma_len);
	res->opcode = SROCE_OP_READ_REQUEST;
	res->first_psn = h->bth.psn;
	res->last_psn = sroce_psn_add(h->bth.psn, *npsn - 1);
	res->va = h->reth.va;
	res->rkey = h->reth.rkey;
	res->length = h->reth.dma_len;
	res->pending = true;
	qp->resp_msn++;
	WRITE_ONCE(qp->tx_pending, true);
	sroce_xmit_kick(qp, SROCE_TX_ANSWER);
	return SROCE_RESP_DONE;
}

static enum sroce_resp_result sroce_resp_atomic_op(struct sroce_qp *qp,
						   const struct sroce_hdrs *h)
{
	bool cmp_swap = h->bth.opcode == SROCE_OP_COMPARE_SWAP;
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	u64 orig;

	if (h->atmeth.va & (sizeof(u64) - 1))
		return SROCE_RESP_NAK_INVALID;
	mr = sroce_resp_target(qp, h->atmeth.rkey, h->atmeth.va, sizeof(u64),
			       IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr))
		return SROCE_RESP_NAK_ACCESS;
	res = sroce_resp_new_rd_res(qp);
	if (!res) {
		sroce_mr_put(mr);
		return SROCE_RESP_NAK_INVALID;
	}
	orig = sroce_mr_atomic(mr, h->atmeth.va, cmp_swap,
			       cmp_swap ? h->atmeth.compare : h->atmeth.swap_add,
			       h->atmeth.swap_add);
	sroce_mr_put(mr);
	res->opcode = h->bth.opcode;
	res->first_psn = res->last_psn = h->bth.psn;
	res->va = h->atmeth.va;
	res->rkey = h->atmeth.rkey;
	res->length = sizeof(u64);
	res->atomic_orig = orig;
	qp->resp_msn++;
	sroce_resp_atomic_ack(qp, h->bth.psn, orig);
	return SROCE_RESP_DONE;
}

/*
 * FIRST, MIDDLE and LAST of one message must follow each other without
 * anything else in between (IBA 9.8.3.1).
 */
static bool sroce_resp_sequence_ok(const struct sroce_qp *qp, u32 flags)
{
	u32 last = qp->resp_last_flags;
	bool in_message = (last & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) &&
			  !(last & SROCE_OPF_LAST);

	if (!in_message)
		return flags & SROCE_OPF_FIRST;
	if (flags & SROCE_OPF_FIRST)
		return false;
	return (flags & SROCE_OPF_WRITE) == (last & SROCE_OPF_WRITE);
}

/*
 * Every packet of a message but the last carries exactly one path MTU of
 * payload (hence no pad); the last (or only) one at most that (IBA 9.7.4.1.4:
 * a length error is an invalid request).
 */
static bool sroce_resp_length_ok(const struct sroce_qp *qp,
				 const struct sroce_hdrs *h)
{
	u32 flags = h->op->flags;

	if (!(flags & SROCE_OPF_PAYLOAD))
		return true;
	if (flags & SROCE_OPF_LAST)
		return h->payload_len <= qp->mtu;
	return h->payload_len == qp->mtu && !h->bth.pad;
}

static enum sroce_resp_result sroce_resp_execute(struct sroce_qp *qp,
						 const struct sroce_hdrs *h,
						 const u8 *payload, u32 *npsn)
{
	u32 flags = h->op->flags;

	*npsn = 1;
	if (!sroce_resp_sequence_ok(qp, flags) || !sroce_resp_length_ok(qp, h))
		return SROCE_RESP_NAK_INVALID;
	if (flags & SROCE_OPF_WRITE)
		return sroce_resp_write_op(qp, h, payload);
	if (flags & SROCE_OPF_SEND)
		return sroce_resp_send_op(qp, h, payload);
	if (flags & SROCE_OPF_READ)
		return sroce_resp_read_op(qp, h, npsn);
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_RESP_NAK_ACCESS;
	return sroce_resp_atomic_op(qp, h);
}

static void sroce_resp_count_nak(struct sroce_qp *qp, u8 nak)
{
	if (nak == SROCE_NAK_REMOTE_ACCESS)
		sroce_stat_inc(qp->sdev, SROCE_STAT_SENT_NAK_ACCESS);
	else if (nak == SROCE_NAK_INVALID_REQUEST)
		sroce_stat_inc(qp->sdev, SROCE_STAT_SENT_NAK_INV_REQ);
}

static void sroce_resp_fatal(struct sroce_qp *qp, u8 nak, enum ib_event_type ev)
{
	sroce_resp_count_nak(qp, nak);
	sroce_resp_ack(qp, qp->resp_psn, SROCE_AETH_NAK | nak);
	sroce_qp_error_locked(qp);
	sroce_qp_event(qp, ev);
}

static void sroce_resp_finish(struct sroce_qp *qp, const struct sroce_hdrs *h,
			      enum sroce_resp_result res, u32 npsn)
{
	switch (res) {
	case SROCE_RESP_DONE:
		qp->resp_psn = sroce_psn_add(h->bth.psn, npsn);
		qp->resp_last_flags = h->op->flags;
		qp->resp_nak_sent = false;
		if (h->op->flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))
			break;
		if (h->bth.ack_req)
			sroce_resp_ack(qp, h->bth.psn, SROCE_AETH_ACK |
				       SROCE_AETH_CREDITS_INVALID);
		else
			sroce_stat_inc(qp->sdev, SROCE_STAT_ACK_COALESCED);
		break;
	case SROCE_RESP_RNR:
		sroce_stat_inc(qp->sdev, SROCE_STAT_SEND_RNR_ERR);
		qp->resp_nak_sent = true;
		sroce_resp_ack(qp, h->bth.psn,
			       SROCE_AETH_RNR_NAK | qp->attr.min_rnr_timer);
		break;
	case SROCE_RESP_NAK_INVALID:
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQUEST, IB_EVENT_QP_REQ_ERR);
		break;
	case SROCE_RESP_NAK_ACCESS:
		sroce_resp_fatal(qp, SROCE_NAK_REMOTE_ACCESS, IB_EVENT_QP_ACCESS_ERR);
		break;
	case SROCE_RESP_NAK_OPERATIONAL:
		sroce_resp_fatal(qp, SROCE_NAK_REMOTE_OP_ERROR, IB_EVENT_QP_FATAL);
		break;
	}
}

/* States in which the responder takes requests; qp->lock held. */
static bool sroce_resp_qp_receives(const struct sroce_qp *qp)
{
	return qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS ||
	       qp->state == IB_QPS_SQD;
}

/**
 * sroce_resp_find_rd_res - the IRD resource that answered a duplicate
 * @qp: the QP; qp->lock held
 * @psn: the duplicate request's PSN
 * @pos: set to the resource's position in the ring (as rd_res_tail counts)
 *
 * Slots that never held a request, or were cleared by a reset, are zero:
 * their PSN range [0, 0] must not answer a duplicate at PSN 0.
 *
 * Return: the resource, or NULL (the duplicate is dropped, IBA 9.7.5.1.1).
 */
SROCE_VISIBLE_IF_KUNIT struct sroce_rd_res *
sroce_resp_find_rd_res(struct sroce_qp *qp, u32 psn, u32 *pos)
{
	u32 n = min(qp->rd_res_tail, qp->rd_res_count), i;

	for (i = 1; i <= n; i++) {
		struct sroce_rd_res *res =
			&qp->rd_res[(qp->rd_res_tail - i) % qp->rd_res_count];

		if (res->valid && !sroce_psn_before(psn, res->first_psn) &&
		    !sroce_psn_after(psn, res->last_psn)) {
			*pos = qp->rd_res_tail - i;
			return res;
		}
	}
	return NULL;
}

/**
 * sroce_resp_dup_read_matches - may a duplicate READ restart @res?
 * @res: the READ the duplicate's PSN falls in
 * @psn: the duplicate's PSN
 * @reth: the duplicate's RETH
 * @mtu: path MTU in bytes
 *
 * A requester that missed part of the responses asks again for the rest,
 * from the first missing PSN: same R_Key, address and length moved on by
 * one path MTU per PSN (what sroce's and rxe's requesters send). Anything
 * else names memory the original request did not: answering it would let
 * one spoofed packet pull a whole large READ out again.
 *
 * Return: true if the duplicate asks for exactly the rest of @res from @psn.
 */
SROCE_VISIBLE_IF_KUNIT bool
sroce_resp_dup_read_matches(const struct sroce_rd_res *res, u32 psn,
			    const struct sroce_reth *reth, u32 mtu)
{
	s32 pkts = sroce_psn_diff(psn, res->first_psn);
	u64 offset = (u64)pkts * mtu;

	if (pkts < 0 || offset > res->length || reth->rkey != res->rkey)
		return false;
	return reth->va == res->va + offset &&
	       reth->dma_len == res->length - offset;
}

/**
 * sroce_resp_dup_atomic_matches - is @h a resend of the ATOMIC in @res?
 * @res: the ATOMIC the duplicate's PSN names
 * @h: the duplicate's headers
 *
 * A requester resends an ATOMIC as it was: same opcode, PSN, R_Key and
 * address. Anything else at that PSN is not this request (a spoofed
 * packet, or a READ whose PSN falls on an ATOMIC's) and gets no answer:
 * replaying the saved result to it would report memory contents the
 * packet never had the right to see.
 *
 * Return: true if @h repeats @res.
 */
SROCE_VISIBLE_IF_KUNIT bool
sroce_resp_dup_atomic_matches(const struct sroce_rd_res *res,
			      const struct sroce_hdrs *h)
{
	return h->bth.opcode == res->opcode && h->bth.psn == res->first_psn &&
	       h->atmeth.rkey == res->rkey && h->atmeth.va == res->va;
}

/* Send @res's responses again, from @psn on. */
static void sroce_resp_restart_read(struct sroce_qp *qp,
				    struct sroce_rd_res *res, u32 pos, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	res->sent = sroce_psn_diff(psn, res->first_psn) * qp->mtu;
	res->pending = true;
	/* Responses go out oldest first: never skip a pending older one. */
	if ((s32)(pos - qp->rd_res_head) < 0)
		qp->rd_res_head = pos;
	WRITE_ONCE(qp->tx_pending, true);
	sroce_tx_kick(qp);
}

/* A request we already executed: answer it again, change nothing. */
static void sroce_resp_duplicate(struct sroce_qp *qp, const struct sroce_hdrs *h)
{
	struct sroce_rd_res *res;
	u32 pos;

	if (!(h->op->flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))) {
		sroce_resp_ack(qp, sroce_psn_add(qp->resp_psn, SROCE_PSN_MASK),
			       SROCE_AETH_ACK | SROCE_AETH_CREDITS_INVALID);
		return;
	}
	res = sroce_resp_find_rd_res(qp, h->bth.psn, &pos);
	if (!res)
		return;
	if (res->opcode != SROCE_OP_READ_REQUEST) {
		if (!sroce_resp_dup_atomic_matches(res, h)) {
			sroce_stat_drop(qp->sdev,
					SROCE_STAT_RCVD_DUP_ATOMIC_MISMATCH);
			return;
		}
		sroce_resp_atomic_ack(qp, res->first_psn, res->atomic_orig);
		return;
	}
	if (h->bth.opcode != SROCE_OP_READ_REQUEST ||
	    !sroce_resp_dup_read_matches(res, h->bth.psn, &h->reth, qp->mtu)) {
		sroce_stat_drop(qp->sdev, SROCE_STAT_RCVD_DUP_READ_MISMATCH);
		return;
	}
	/* Resend from the PSN asked for; later READs will be asked again. */
	sroce_resp_restart_read(qp, res, pos, h->bth.psn);
}

/*
 * UC: give up the message under way. Without an SRQ its receive WQE, if
 * it took one, is used again from the start by the next message; with an
 * SRQ it completes in error, so that a peer that went quiet does not keep
 * a shared WQE (the IBA's class D1 and E rules).
 */
static void sroce_resp_uc_abort(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_cqe cqe = {
		.status = status,
		.opcode = SROCE_WC_RECV,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->attr.dest_qp_num,
		.is_recv = 1,
	};

	lockdep_assert_held(&qp->lock);
	sroce_resp_drop_write(qp);
	qp->resp_last_flags = 0;
	if (!qp->rwqe_valid)
		return;
	if (!qp->srq) {
		qp->rwqe_offset = 0;
		return;
	}
	cqe.wr_id = qp->rwqe.wr_id;
	cqe.wqe_index = qp->rwqe.index;
	qp->rwqe_valid = false;
	sroce_cq_post(qp->rcq, &qp->ibqp, &cqe, false);
}

/* UC: a message dropped whole or in part; the QP carries on. */
static void sroce_resp_uc_drop_msg(struct sroce_qp *qp,
				   enum ib_wc_status status)
{
	sroce_stat_inc(qp->sdev, SROCE_STAT_UC_DROPPED_MSGS);
	sroce_resp_uc_abort(qp, status);
}

/* UC: the end of a request executed; nothing is answered. */
static void sroce_resp_uc_finish(struct sroce_qp *qp, const struct sroce_hdrs *h,
				 enum sroce_resp_result res)
{
	switch (res) {
	case SROCE_RESP_DONE:
		qp->resp_psn = sroce_psn_add(h->bth.psn, 1);
		qp->resp_last_flags = h->op->flags;
		break;
	case SROCE_RESP_NAK_OPERATIONAL:
		/* A bad receive WQE is this side's fault: as on RC, without the NAK. */
		sroce_qp_error_locked(qp);
		sroce_qp_event(qp, IB_EVENT_QP_FATAL);
		break;
	default:
		/* No receive WQE, an R_Key, bounds or length error: dropped. */
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_DROPPED);
		sroce_resp_uc_drop_msg(qp, res == SROCE_RESP_NAK_ACCESS ?
				       IB_WC_REM_ACCESS_ERR : IB_WC_REM_INV_REQ_ERR);
		break;
	}
}

/* A UC request packet (sroce_uc.h); qp->lock held. */
static void sroce_resp_uc_rcv_locked(struct sroce_qp *qp,
				     const struct sroce_hdrs *h,
				     const u8 *payload)
{
	bool in_message = sroce_uc_in_message(qp->resp_last_flags);
	enum sroce_resp_result res;
	u32 npsn;

	lockdep_assert_held(&qp->lock);
	switch (sroce_uc_step(qp->resp_last_flags, qp->resp_psn, h->bth.psn,
			      h->op->flags)) {
	case SROCE_UC_CONTINUE:
		break;
	case SROCE_UC_RESYNC:
		sroce_stat_inc(qp->sdev, SROCE_STAT_OUT_OF_SEQUENCE);
		break;
	case SROCE_UC_RESTART:
		sroce_stat_inc(qp->sdev, SROCE_STAT_OUT_OF_SEQUENCE);
		sroce_resp_uc_drop_msg(qp, IB_WC_REM_INV_REQ_ERR);
		break;
	case SROCE_UC_DROP:
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_DROPPED);
		if (in_message) {
			sroce_stat_inc(qp->sdev, SROCE_STAT_OUT_OF_SEQUENCE);
			sroce_resp_uc_drop_msg(qp, IB_WC_REM_INV_REQ_ERR);
		}
		return;
	}
	res = sroce_resp_execute(qp, h, payload, &npsn);
	sroce_resp_uc_finish(qp, h, res);
}

/* Return: false if the QP's state takes no requests (packet dropped). */
bool sroce_resp_rcv(struct sroce_qp *qp, const struct sroce_hdrs *h,
		    const u8 *payload)
{
	enum sroce_resp_result res;
	bool taken = false;
	s32 diff;
	u32 npsn;

	/* sroce_rcv_bth() let only the QP's own transport through. */
	spin_lock_bh(&qp->lock);
	if (!sroce_resp_qp_receives(qp)) {
		sroce_stat_drop(qp->sdev, SROCE_STAT_RCVD_UNKNOWN_QPN);
		goto out;
	}
	taken = true;
	if (sroce_qp_is_uc(qp)) {
		sroce_resp_uc_rcv_locked(qp, h, payload);
		goto out;
	}
	diff = sroce_psn_diff(h->bth.psn, qp->resp_psn);
	if (diff > 0) {
		/* Something was lost: ask once for a resend from resp_psn. */
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_DROPPED);
		if (!qp->resp_nak_sent) {
			sroce_stat_inc(qp->sdev, SROCE_STAT_OUT_OF_SEQUENCE);
			sroce_resp_ack(qp, qp->resp_psn,
				       SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERROR);
		}
		qp->resp_nak_sent = true;
		goto out;
	}
	if (diff < 0) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_DUPLICATE_REQUEST);
		sroce_resp_duplicate(qp, h);
		goto out;
	}
	res = sroce_resp_execute(qp, h, payload, &npsn);
	sroce_resp_finish(qp, h, res, npsn);
out:
	spin_unlock_bh(&qp->lock);
	return taken;
}

/*
 * Would every packet of a run (sroce_resp_rcv_run()) be accepted as a plain
 * continuation of the message under way? The run's first packet is a
 * MIDDLE at the expected PSN, its last one a MIDDLE or LAST of the same
 * kind, all but the last carry one path MTU; a WRITE with immediate is
 * left out (it takes a receive WQE before memory is touched).
 */
static bool sroce_resp_run_plain(const struct sroce_qp *qp,
				 const struct sroce_hdrs *first,
				 const struct sroce_hdrs *last, u32 len)
{
	u32 kind = SROCE_OPF_WRITE | SROCE_OPF_SEND;
	u32 flags = first->op->flags, last_flags = last->op->flags;

	if (!sroce_resp_qp_receives(qp) || first->bth.psn != qp->resp_psn ||
	    !(flags & SROCE_OPF_MIDDLE) || !sroce_resp_sequence_ok(qp, flags) ||
	    (last_flags & kind) != (flags & kind) ||
	    !(last_flags & (SROCE_OPF_MIDDLE | SROCE_OPF_LAST)) ||
	    first->payload_len != qp->mtu || !sroce_resp_length_ok(qp, last))
		return false;
	/* A SEND with invalidate ends packet by packet (it invalidates). */
	if (last_flags & SROCE_OPF_IETH)
		return false;
	if (flags & SROCE_OPF_WRITE)
		return !(last_flags & SROCE_OPF_IMMDT) && len <= qp->resp_write_left &&
		       (!(last_flags & SROCE_OPF_LAST) || len == qp->resp_write_left);
	return qp->rwqe_valid && len <= qp->rwqe.length - qp->rwqe_offset;
}

/* Place a plain run's payload; false (nothing placed) if a key check fails. */
static bool sroce_resp_run_place(struct sroce_qp *qp, const struct sroce_hdrs *first,
				 const u8 *payload, u32 len)
{
	struct sroce_mr *mr;

	if (first->op->flags & SROCE_OPF_SEND)
		return !sroce_sge_copy(qp, sroce_qp_recv_pd(qp), qp->rwqe.sge,
				       qp->rwqe.num_sge, qp->rwqe_offset,
				       (void *)payload, len, SROCE_COPY_TO_MR);
	mr = sroce_resp_target(qp, qp->resp_write_rkey, qp->resp_write_va, len,
			       IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(mr))
		return false;
	sroce_mr_copy(mr, qp->resp_write_va, (void *)payload, len, SROCE_COPY_TO_MR);
	sroce_mr_put(mr);
	return true;
}

/* The state the run's packets one by one would have left, ACK included. */
static void sroce_resp_run_finish(struct sroce_qp *qp, const struct sroce_hdrs *last,
				  u32 pkts, u32 len)
{
	u32 last_flags = last->op->flags;

	if (last_flags & SROCE_OPF_WRITE) {
		qp->resp_write_va += len;
		qp->resp_write_left -= len;
		if (last_flags & SROCE_OPF_LAST)
			sroce_resp_drop_write(qp);
	} else {
		qp->rwqe_offset += len;
		if (last_flags & SROCE_OPF_LAST)
			sroce_resp_complete_rwqe(qp, last, IB_WC_SUCCESS);
	}
	if (last_flags & SROCE_OPF_LAST)
		qp->resp_msn++;
	qp->resp_psn = sroce_psn_add(last->bth.psn, 1);
	qp->resp_last_flags = last_flags;
	qp->resp_nak_sent = false;
	if (sroce_qp_is_uc(qp))
		return;
	if (last->bth.ack_req)
		sroce_resp_ack(qp, last->bth.psn,
			       SROCE_AETH_ACK | SROCE_AETH_CREDITS_INVALID);
	sroce_stat_add(qp->sdev, SROCE_STAT_ACK_COALESCED,
		       pkts - last->bth.ack_req);
}

/**
 * sroce_resp_rcv_run - the rest of a SEND or WRITE from a local segment at once
 * @qp: the destination QP
 * @first: headers of the run's first packet
 * @last: headers of its last packet; those between are MIDDLEs of one MTU
 * @pkts: packets in the run, at least 2
 * @payload: their payloads, back to back
 * @len: @payload's length
 *
 * Per packet, a segment's receiver pays the QP lock, a key lookup and a
 * copy. When each packet of the run is certain to be accepted as a plain
 * continuation of the message under way (sroce_resp_run_plain()), the run
 * takes one lock, one key lookup and one copy, and leaves the QP as the
 * packets one by one would: PSN, message state, completion, AckReq of the
 * last. Otherwise, or if a key check fails, nothing is done, and the caller
 * hands the packets over one by one, where each rule gives its own answer
 * at the packet it concerns.
 *
 * Return: true if the run was taken.
 */
bool sroce_resp_rcv_run(struct sroce_qp *qp, const struct sroce_hdrs *first,
			const struct sroce_hdrs *last, u32 pkts,
			const u8 *payload, u32 len)
{
	bool taken;

	spin_lock_bh(&qp->lock);
	taken = sroce_resp_run_plain(qp, first, last, len) &&
		sroce_resp_run_place(qp, first, payload, len);
	if (taken)
		sroce_resp_run_finish(qp, last, pkts, len);
	spin_unlock_bh(&qp->lock);
	return taken;
}

/**
 * sroce_resp_rcv_unsupported - a request whose opcode sroce does not speak
 * @qp: the destination QP
 * @h: only @h->bth is valid
 *
 * An unsupported or reserved RC opcode at the expected PSN is an invalid
 * request (IBA 9.7.5.2.2, class C: NAK, QP to error); at any other PSN it is
 * dropped like any out-of-order packet we cannot interpret. UC answers
 * nothing: such a packet is dropped whatever its PSN. The receive path has
 * already dropped other transports' opcodes.
 *
 * Return: false if the QP's state takes no requests.
 */
bool sroce_resp_rcv_unsupported(struct sroce_qp *qp, const struct sroce_hdrs *h)
{
	bool taken;

	spin_lock_bh(&qp->lock);
	taken = sroce_resp_qp_receives(qp);
	if (!taken)
		sroce_stat_drop(qp->sdev, SROCE_STAT_RCVD_UNKNOWN_QPN);
	else if (h->bth.psn != qp->resp_psn || sroce_qp_is_uc(qp))
		sroce_stat_drop(qp->sdev, SROCE_STAT_RCVD_MALFORMED);
	else
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQUEST, IB_EVENT_QP_REQ_ERR);
	spin_unlock_bh(&qp->lock);
	return taken;
}

static u8 sroce_resp_read_opcode(bool first, bool last)
{
	return first && last ? SROCE_OP_READ_RESPONSE_ONLY :
	       first ? SROCE_OP_READ_RESPONSE_FIRST :
	       last ? SROCE_OP_READ_RESPONSE_LAST :
		      SROCE_OP_READ_RESPONSE_MIDDLE;
}

/* The packets after the first of a local READ response segment. */
static void sroce_resp_fill_seg(struct sroce_qp *qp, const struct sroce_hdrs *h,
				struct sk_buff *skb, u32 pkts, bool last)
{
	struct sroce_seg *seg = sroce_seg_of(skb);

	seg->pkts = pkts;
	seg->pkt_len = qp->mtu;
	seg->middle_opcode = SROCE_OP_READ_RESPONSE_MIDDLE;
	seg->last_opcode = sroce_resp_read_opcode(false, last);
	seg->last_aeth = h->aeth;
}

/*
 * The next @pkts packets of a READ response (at most; fewer if it ends
 * first), sent where @route says. More than one only where the route takes
 * segments (@route->burst), as one.
 *
 * Return: packets sent, or a negative errno.
 */
static int sroce_resp_read_pkt(struct sroce_qp *qp, struct sroce_rd_res *res,
			       u32 pkts, const struct sroce_xmit_route *route)
{
	u32 len, left = res->length - res->sent;
	bool first = !res->sent, last;
	struct sroce_hdrs h = {
		.bth.psn = sroce_psn_add(res->first_psn, res->sent / qp->mtu),
		.aeth.syndrome = SROCE_AETH_ACK | SROCE_AETH_CREDITS_INVALID,
		.aeth.msn = qp->resp_msn,
	};
	const struct sroce_opcode_info *op;
	struct sroce_mr *mr = NULL;
	struct sk_buff *skb;
	u32 tail;

	pkts = clamp_t(u32, pkts, 1, sroce_resp_read_pkts(qp, left));
	len = min(pkts * qp->mtu, left);
	last = len == left;
	h.payload_len = len;
	h.bth.opcode = sroce_resp_read_opcode(first, last && pkts == 1);
	op = sroce_opcode_lookup(h.bth.opcode);
	if (len) {
		/* Looked up again: the region may be gone since the request. */
		mr = sroce_resp_target(qp, res->rkey, res->va + res->sent, len,
				       IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return -EACCES;
	}
	tail = len + sroce_pad_for(len) + SROCE_ICRC_BYTES;
	skb = sroce_pkt_alloc(op->hdr_len + tail);
	if (!skb) {
		if (mr)
			sroce_mr_put(mr);
		return -ENOMEM;
	}
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dest_qpn = qp->attr.dest_qp_num;
	sroce_hdrs_build(skb->data, op->hdr_len, &h);
	memset(skb->data + op->hdr_len + len, 0, tail - len);
	if (mr) {
		sroce_mr_copy(mr, res->va + res->sent, skb->data + op->hdr_len,
			      len, SROCE_COPY_FROM_MR);
		sroce_mr_put(mr);
	}
	res->sent += len;
	if (last)
		res->pending = false;
	if (pkts > 1)
		sroce_resp_fill_seg(qp, &h, skb, pkts, last);
	sroce_xmit_routed(qp, route, skb, &h);
	return pkts;
}

/**
 * sroce_resp_send_reads_locked - send pending READ responses, oldest first
 * @qp: the QP; qp->lock held
 * @budget: packets this pass may still send; decremented
 *
 * Return: true if anything was sent.
 */
bool sroce_resp_send_reads_locked(struct sroce_qp *qp, int *budget)
{
	/* Found once there is something to send. */
	struct sroce_xmit_route route = {};
	bool sent = false;

	lockdep_assert_held(&qp->lock);
	while (*budget > 0 && qp->rd_res_head != qp->rd_res_tail) {
		struct sroce_rd_res *res =
			&qp->rd_res[qp->rd_res_head % qp->rd_res_count];
		u32 want;
		int pkts;

		if (!res->pending) {
			qp->rd_res_head++;
			continue;
		}
		if (!route.burst)
			sroce_xmit_route(qp, &route);
		want = min_t(u32, route.burst, *budget);
		pkts = sroce_resp_read_pkt(qp, res, want, &route);
		/* A segment's skb is an order-2 allocation; one packet's is less. */
		if (pkts == -ENOMEM && want > 1)
			pkts = sroce_resp_read_pkt(qp, res, 1, &route);
		if (pkts == -ENOMEM)
			break;
		if (pkts < 0) {
			sroce_resp_fatal(qp, SROCE_NAK_REMOTE_ACCESS,
					 IB_EVENT_QP_ACCESS_ERR);
			return true;
		}
		*budget -= pkts;
		sent = true;
	}
	return sent;
}

/* Complete every posted receive with a flush error (QP in error). */
void sroce_rq_flush_locked(struct sroce_qp *qp)
{
	int avail = sroce_queue_available(&qp->rq);
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = SROCE_WC_RECV,
		.qp_num = qp->ibqp.qp_num,
		.is_recv = 1,
	};

	lockdep_assert_held(&qp->lock);
	if (qp->rwqe_valid) {
		cqe.wr_id = qp->rwqe.wr_id;
		cqe.wqe_index = qp->rwqe.index;
		sroce_cq_post(qp->rcq, &qp->ibqp, &cqe, false);
		qp->rwqe_valid = false;
	}
	while (avail-- > 0) {
		const struct sroce_recv_wqe *wqe =
			sroce_queue_slot(&qp->rq, qp->rq.index);

		cqe.wr_id = READ_ONCE(wqe->wr_id);
		cqe.wqe_index = qp->rq.index;
		sroce_queue_consume(&qp->rq, 1);
		sroce_cq_post(qp->rcq, &qp->ibqp, &cqe, false);
	}
}

/*
 * Forget the message in progress and every IRD resource. The MSN starts
 * over too: a QP reset and connected again is a new connection, whose
 * first ACK must not carry the old one's message count.
 */
void sroce_resp_reset_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_resp_drop_write(qp);
	qp->resp_msn = 0;
	qp->resp_last_flags = 0;
	qp->resp_nak_sent = false;
	qp->rd_res_head = qp->rd_res_tail;
	if (qp->rd_res)
		memset(qp->rd_res, 0, qp->rd_res_count * sizeof(*qp->rd_res));
}
