// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_req.c - the requester: send WQEs in, request packets out.
 *
 * Runs in the device's transmit thread with qp->lock held. WQEs are copied
 * out of the shared ring once, validated, and from then on only the copy is
 * used. Packets leave in PSN order; a retransmission rewinds the requester
 * to the first unacknowledged PSN (go-back-N).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_ackreq.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_seg.h"
#include "sroce_sge.h"
#include "sroce_stats.h"
#include "sroce_tx.h"
#include "sroce_uc.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* Packets per QP per transmit pass (in flight: sroce_cwnd.h). */
#define SROCE_REQ_BUDGET	64

/* Wire opcodes of each position in a message, per work request opcode. */
static const struct {
	u8 first, middle, last, only;
} sroce_req_opcodes[] = {
	[SROCE_WR_SEND] = { SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE,
			    SROCE_OP_SEND_LAST, SROCE_OP_SEND_ONLY },
	[SROCE_WR_SEND_WITH_IMM] = { SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE,
				     SROCE_OP_SEND_LAST_IMM,
				     SROCE_OP_SEND_ONLY_IMM },
	[SROCE_WR_RDMA_WRITE] = { SROCE_OP_WRITE_FIRST, SROCE_OP_WRITE_MIDDLE,
				  SROCE_OP_WRITE_LAST, SROCE_OP_WRITE_ONLY },
	[SROCE_WR_RDMA_WRITE_WITH_IMM] = { SROCE_OP_WRITE_FIRST,
					   SROCE_OP_WRITE_MIDDLE,
					   SROCE_OP_WRITE_LAST_IMM,
					   SROCE_OP_WRITE_ONLY_IMM },
	[SROCE_WR_SEND_WITH_INV] = { SROCE_OP_SEND_FIRST, SROCE_OP_SEND_MIDDLE,
				     SROCE_OP_SEND_LAST_INV,
				     SROCE_OP_SEND_ONLY_INV },
};

/*
 * REG_MR serves kernel ULPs' fast registration, whose MRs only kernel QPs
 * reach. LOCAL_INV and SEND with invalidate serve it and memory windows;
 * BIND_MW comes only from processes (sroce_post.c maps no ib_wr_opcode to
 * it). A process has them on RC QPs only: UD takes sends alone
 * (sroce_ud_swqe_fetch(), which local operations would not reach). UC
 * carries sends and writes only.
 */
static bool sroce_wr_opcode_supported(const struct sroce_qp *qp, u32 opcode)
{
	if (sroce_qp_is_uc(qp))
		return sroce_uc_wr_opcode_ok(opcode);
	switch (opcode) {
	case SROCE_WR_SEND:
	case SROCE_WR_SEND_WITH_IMM:
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
	case SROCE_WR_RDMA_READ:
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		return true;
	case SROCE_WR_SEND_WITH_INV:
	case SROCE_WR_LOCAL_INV:
		return qp->kernel || qp->ibqp.qp_type == IB_QPT_RC;
	case SROCE_WR_BIND_MW:
		return qp->ibqp.qp_type == IB_QPT_RC;
	case SROCE_WR_KERNEL_REG_MR:
		return qp->kernel;
	default:
		return false;
	}
}

/* A local operation's operands; it has no SGEs and no data. */
static void sroce_swqe_fetch_local(struct sroce_swqe *swqe,
				   const struct sroce_send_wqe *hdr)
{
	swqe->num_sge = 0;
	swqe->length = 0;
	if (hdr->opcode == SROCE_WR_KERNEL_REG_MR) {
		swqe->rkey = hdr->atomic.rkey;
		swqe->remote_addr = hdr->atomic.remote_addr;
		swqe->compare_add = hdr->atomic.compare_add;
		swqe->reg_access = hdr->invalidate_rkey;
	} else if (hdr->opcode == SROCE_WR_BIND_MW) {
		swqe->rkey = hdr->bind.mw_rkey;
		swqe->bind_new_rkey = hdr->bind.new_rkey;
		swqe->bind_lkey = hdr->bind.mr_lkey;
		swqe->remote_addr = hdr->bind.addr;
		swqe->compare_add = hdr->bind.length;
		swqe->reg_access = hdr->bind.access;
	} else {
		swqe->rkey = hdr->invalidate_rkey;
	}
}

static u32 sroce_swqe_pkts(const struct sroce_qp *qp, u32 bytes)
{
	return bytes ? DIV_ROUND_UP(bytes, qp->mtu) : 1;
}

/* Inline data sits right after the header, where SGEs would be. */
static int sroce_swqe_copy_inline(struct sroce_qp *qp, struct sroce_swqe *swqe,
				  const struct sroce_send_wqe *wqe, u32 len)
{
	if (len > qp->max_inline || sroce_wr_is_rd_atomic(swqe->opcode))
		return -EINVAL;
	memcpy(swqe->inline_data, wqe->sge, len);
	swqe->num_sge = 0;
	swqe->length = len;
	return 0;
}

static int sroce_swqe_copy_sges(struct sroce_qp *qp, struct sroce_swqe *swqe,
				const struct sroce_send_wqe *wqe, u32 num_sge)
{
	s64 total;

	if (num_sge > qp->max_send_sge)
		return -EINVAL;
	memcpy(swqe->sge, wqe->sge, num_sge * sizeof(*swqe->sge));
	swqe->num_sge = num_sge;
	total = sroce_sge_total(swqe->sge, num_sge);
	if (total < 0)
		return total;
	swqe->length = total;
	/* Its responses must fit the PSN window (sroce_psn_span_fits()). */
	if (swqe->opcode == SROCE_WR_RDMA_READ &&
	    !sroce_psn_span_fits(sroce_swqe_pkts(qp, swqe->length)))
		return -EMSGSIZE;
	if (sroce_wr_is_atomic(swqe->opcode) &&
	    (num_sge != 1 || swqe->length != sizeof(u64) ||
	     swqe->remote_addr & (sizeof(u64) - 1)))
		return -EINVAL;
	return 0;
}

/*
 * Reserved fields must be zero (sroce-abi.h), so they can be given a
 * meaning later: the one the opcode's target uses, and the header's.
 */
static bool sroce_swqe_reserved_set(const struct sroce_send_wqe *hdr)
{
	if (hdr->reserved)
		return true;
	if (sroce_wr_is_atomic(hdr->opcode))
		return hdr->atomic.reserved;
	return hdr->rdma.reserved;
}

/*
 * Copy one WQE out of the ring into @swqe and check it. The ring is
 * process memory: the header is read exactly once, into a local copy.
 */
static int sroce_swqe_fetch(struct sroce_qp *qp, struct sroce_swqe *swqe,
			    const struct sroce_send_wqe *wqe)
{
	struct sroce_send_wqe hdr;
	int err;

	memcpy(&hdr, wqe, sizeof(hdr));
	swqe->wr_id = hdr.wr_id;
	swqe->opcode = hdr.opcode;
	swqe->send_flags = hdr.send_flags;
	swqe->imm_data = hdr.imm_data;
	swqe->reg_access = 0;
	swqe->remote_addr = sroce_wr_is_atomic(hdr.opcode) ?
			    hdr.atomic.remote_addr : hdr.rdma.remote_addr;
	swqe->rkey = sroce_wr_is_atomic(hdr.opcode) ? hdr.atomic.rkey :
						      hdr.rdma.rkey;
	/* A SEND has no RETH: rkey holds the IETH's key. */
	if (hdr.opcode == SROCE_WR_SEND_WITH_INV)
		swqe->rkey = hdr.invalidate_rkey;
	swqe->compare_add = hdr.atomic.compare_add;
	swqe->swap = hdr.atomic.swap;
	swqe->state = SROCE_SWQE_QUEUED;
	swqe->status = IB_WC_SUCCESS;
	swqe->sent = 0;
	swqe->rd_issued = false;
	swqe->psns_set = false;

	swqe->ah = NULL;

	if (!sroce_wr_opcode_supported(qp, hdr.opcode) ||
	    hdr.send_flags & ~SROCE_SEND_FLAGS_MASK)
		return -EINVAL;
	/*
	 * REG_MR comes from a kernel ring, written by sroce_post.c, its words
	 * all used. A process's LOCAL_INV or BIND_MW carries no data; the
	 * operands are checked when it runs (sroce_req_local_op()).
	 */
	if (sroce_wr_is_local(hdr.opcode)) {
		if (!qp->kernel && (hdr.reserved || hdr.num_sge ||
				    hdr.send_flags & SROCE_SEND_INLINE))
			return -EINVAL;
		sroce_swqe_fetch_local(swqe, &hdr);
		return 0;
	}
	if (sroce_swqe_reserved_set(&hdr))
		return -EINVAL;
	if (hdr.send_flags & SROCE_SEND_INLINE)
		err = sroce_swqe_copy_inline(qp, swqe, wqe, hdr.inline_len);
	else
		err = sroce_swqe_copy_sges(qp, swqe, wqe, hdr.num_sge);
	if (err || !sroce_qp_is_ud(qp))
		return err;
	return sroce_ud_swqe_fetch(qp, swqe, &hdr);
}

/* A message too long for its QP is a length error; anything else invalid. */
static enum ib_wc_status sroce_swqe_errno_to_status(int err)
{
	return err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_QP_OP_ERR;
}

/*
 * doorbells_elided: WQEs the transmit thread picked up from the ring while
 * polling, so the process needed no syscall for them. WQEs fetched inside
 * a doorbell (sroce_post_send) are not counted.
 */
static void sroce_sq_count_fetched(struct sroce_qp *qp, u32 fetched)
{
	if (fetched && current == qp->sdev->tx.thread)
		sroce_stat_add(qp->sdev, SROCE_STAT_DOORBELLS_ELIDED, fetched);
}

/*
 * A producer more than depth ahead of the oldest uncompleted WQE broke the
 * ring contract (slots are reused only after their completion). Fetching
 * could not take those WQEs, and the transmit thread would see work forever.
 */
static bool sroce_sq_overrun(struct sroce_qp *qp, int avail)
{
	return avail < 0 ||
	       qp->sq.index - qp->comp_index + (u32)avail > qp->sq.depth;
}

/* Pull newly posted WQEs, never more than the SQ can have outstanding. */
void sroce_sq_fetch_locked(struct sroce_qp *qp)
{
	int avail = sroce_queue_available(&qp->sq);
	u32 first = qp->sq.index;

	lockdep_assert_held(&qp->lock);
	if (sroce_sq_overrun(qp, avail)) {
		pr_warn_ratelimited("QP %u: corrupt send queue index, QP to error\n",
				    qp->ibqp.qp_num);
		sroce_qp_error_locked(qp);
		return;
	}
	while (avail-- > 0) {
		u32 index = qp->sq.index;
		struct sroce_swqe *swqe = &qp->swqes[index & (qp->sq.depth - 1)];
		int err;

		swqe->index = index;
		err = sroce_swqe_fetch(qp, swqe, sroce_queue_slot(&qp->sq, index));
		if (err)
			sroce_swqe_fail(swqe, sroce_swqe_errno_to_status(err));
		sroce_queue_consume(&qp->sq, 1);
	}
	sroce_sq_count_fetched(qp, qp->sq.index - first);
}

/* The packet at @psn goes out with AckReq set or not. */
static void sroce_req_note_ack_req(struct sroce_qp *qp, u32 psn, bool ack_req)
{
	if (ack_req) {
		qp->req_unasked = 0;
		qp->req_asked_psn = sroce_psn_add(psn, 1);
	} else {
		qp->req_unasked++;
	}
}

static void sroce_req_fill_bth(struct sroce_qp *qp, struct sroce_hdrs *h,
			       u8 opcode, u32 psn, bool ack_req)
{
	h->bth.opcode = opcode;
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dest_qpn = qp->attr.dest_qp_num;
	h->bth.psn = psn;
	h->bth.ack_req = ack_req;
}

static void sroce_req_init_bth(struct sroce_qp *qp, struct sroce_hdrs *h,
			       u8 opcode, u32 psn, bool ack_req)
{
	sroce_req_fill_bth(qp, h, opcode, psn, ack_req);
	sroce_req_note_ack_req(qp, psn, ack_req);
}

/*
 * AckReq for a SEND/WRITE packet at @psn (policy in sroce_ackreq.h), with
 * @in_flight packets unacknowledged before it.
 */
static bool sroce_req_data_ack_req(struct sroce_qp *qp,
				   const struct sroce_swqe *swqe, u32 psn,
				   bool last, u32 in_flight)
{
	const struct sroce_ackreq_in in = {
		.last = last,
		.signaled = qp->sq_sig_all ||
			    (swqe->send_flags & SROCE_SEND_SIGNALED),
		.resend = sroce_psn_before(psn, qp->req_psn_max),
		.has_timeout = qp->attr.timeout != 0,
		.sq_crowded = (qp->sq.index - qp->comp_index) * 2 >= qp->sq.depth,
		.sq_depth = qp->sq.depth,
		.fills_cwnd = !sroce_cwnd_allows(&qp->cwnd, in_flight + 1),
		.draining = qp->state == IB_QPS_SQD,
		.unasked = qp->req_unasked,
	};

	/* UC has no ACK to ask for. */
	if (sroce_qp_is_uc(qp))
		return false;
	return sroce_ackreq_wanted(&in);
}

/*
 * PSNs of a WQE are fixed the first time it goes out: a retransmission
 * reuses them, so acknowledgements keep matching.
 */
static void sroce_swqe_assign_psns(struct sroce_qp *qp, struct sroce_swqe *swqe,
				   u32 first, u32 pkts)
{
	swqe->first_psn = first;
	swqe->last_psn = sroce_psn_add(first, pkts - 1);
	swqe->psns_set = true;
}

static void sroce_req_advance_psn(struct sroce_qp *qp, u32 next)
{
	qp->req_psn = next;
	if (sroce_psn_after(next, qp->req_psn_max))
		qp->req_psn_max = next;
}

/* Build headers at skb->data; return the skb or NULL (try again later). */
struct sk_buff *sroce_req_build(struct sroce_hdrs *h)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(h->bth.opcode);
	u32 tail = h->payload_len + sroce_pad_for(h->payload_len) +
		   SROCE_ICRC_BYTES;
	struct sk_buff *skb = sroce_pkt_alloc(op->hdr_len + tail);

	if (!skb)
		return NULL;
	sroce_hdrs_build(skb->data, op->hdr_len, h);
	memset(skb->data + op->hdr_len + h->payload_len, 0,
	       tail - h->payload_len);
	return skb;
}

static enum ib_wc_status sroce_sge_errno_to_status(int err)
{
	return err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
}

int sroce_req_gather(struct sroce_qp *qp, struct sroce_swqe *swqe,
		     u32 offset, void *dst, u32 len)
{
	if (!swqe->num_sge) {
		memcpy(dst, swqe->inline_data + offset, len);
		return 0;
	}
	return sroce_sge_copy(qp, qp->ibqp.pd, swqe->sge, swqe->num_sge, offset,
			      dst, len, SROCE_COPY_FROM_MR);
}

/*
 * After a rewind, late ACKs can move comp_psn past req_psn inside the WQE
 * being resent: nothing of it is in flight then.
 */
static u32 sroce_req_in_flight(const struct sroce_qp *qp)
{
	return max(sroce_psn_diff(qp->req_psn, qp->comp_psn), 0);
}

/* The wire opcode, transport bits included, of a packet of @swqe. */
static u8 sroce_req_data_opcode(const struct sroce_qp *qp,
				const struct sroce_swqe *swqe, bool first,
				bool last)
{
	u8 op = first && last ? sroce_req_opcodes[swqe->opcode].only :
		first ? sroce_req_opcodes[swqe->opcode].first :
		last ? sroce_req_opcodes[swqe->opcode].last :
		       sroce_req_opcodes[swqe->opcode].middle;

	return sroce_qp_transport(qp) | op;
}

/*
 * UC: nothing sent waits for an answer, so nothing is ever in flight for
 * the congestion window, the AckReq policy or the ACK timer, and a WQE is
 * done once its last packet is handed to the network (sroce_uc.h).
 */
static void sroce_req_uc_sent(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	qp->comp_psn = qp->req_psn;
	if (swqe->state == SROCE_SWQE_SENT)
		swqe->state = SROCE_SWQE_DONE;
}

/*
 * The packets after the first of a local segment (sroce_seg.h): @pkts of
 * them in all, ending the message if @last; AckReq and SE belong to the
 * last one.
 */
static void sroce_req_fill_seg(struct sroce_qp *qp, const struct sroce_swqe *swqe,
			       struct sk_buff *skb, u32 pkts, bool last,
			       bool ack_req)
{
	struct sroce_seg *seg = sroce_seg_of(skb);

	seg->pkts = pkts;
	seg->pkt_len = qp->mtu;
	seg->middle_opcode = sroce_req_data_opcode(qp, swqe, false, false);
	seg->last_opcode = sroce_req_data_opcode(qp, swqe, false, last);
	seg->last_ack_req = ack_req;
	seg->last_solicited = last && (swqe->send_flags & SROCE_SEND_SOLICITED);
	seg->last_imm = swqe->imm_data;
	seg->last_ieth_rkey = swqe->rkey;
}

/*
 * The next @pkts packets of a SEND or RDMA WRITE (at most; fewer if the
 * message ends first), @in_flight packets unacknowledged before them, sent
 * where @route says. More than one only where the route takes segments
 * (@route->burst): they leave as one, whose last packet the AckReq policy
 * judges.
 *
 * Return: packets sent, or a negative errno.
 */
static int sroce_req_data_pkt(struct sroce_qp *qp, struct sroce_swqe *swqe,
			      u32 in_flight, u32 pkts,
			      const struct sroce_xmit_route *route)
{
	u32 offset = swqe->sent, psn = qp->req_psn;
	u32 len, last_psn;
	bool first = !offset, last, ack_req;
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	int err;

	pkts = clamp_t(u32, pkts, 1, sroce_swqe_pkts(qp, swqe->length - offset));
	len = min(pkts * qp->mtu, swqe->length - offset);
	last = offset + len == swqe->length;
	last_psn = sroce_psn_add(psn, pkts - 1);
	qp->req_unasked += pkts - 1;
	ack_req = sroce_req_data_ack_req(qp, swqe, last_psn, last,
					 in_flight + pkts - 1);

	sroce_req_fill_bth(qp, &h, sroce_req_data_opcode(qp, swqe, first,
							 last && pkts == 1),
			   psn, pkts == 1 && ack_req);
	h.bth.solicited = pkts == 1 && last &&
			  (swqe->send_flags & SROCE_SEND_SOLICITED);
	h.reth.va = swqe->remote_addr;
	h.reth.rkey = swqe->rkey;
	h.reth.dma_len = swqe->length;
	h.imm = swqe->imm_data;
	h.ieth_rkey = swqe->rkey;
	h.payload_len = len;

	skb = sroce_req_build(&h);
	if (!skb) {
		qp->req_unasked -= pkts - 1;
		return -ENOMEM;
	}
	err = sroce_req_gather(qp, swqe, offset, skb->data + h.op->hdr_len, len);
	if (err) {
		qp->req_unasked -= pkts - 1;
		kfree_skb(skb);
		return err;
	}
	sroce_req_note_ack_req(qp, last_psn, ack_req);
	if (first)
		sroce_swqe_assign_psns(qp, swqe, psn,
				       sroce_swqe_pkts(qp, swqe->length));
	swqe->sent += len;
	swqe->state = last ? SROCE_SWQE_SENT : SROCE_SWQE_SENDING;
	sroce_req_advance_psn(qp, sroce_psn_add(last_psn, 1));
	if (sroce_qp_is_uc(qp))
		sroce_req_uc_sent(qp, swqe);
	if (pkts > 1)
		sroce_req_fill_seg(qp, swqe, skb, pkts, last, ack_req);
	sroce_xmit_routed(qp, route, skb, &h);
	return pkts;
}

/*
 * An RDMA READ request, for the part not yet received: a retry after a
 * partial response asks only for the rest, at the PSN it would have had.
 */
static int sroce_req_read_pkt(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_hdrs h = {};
	struct sk_buff *skb;

	/* A READ owns one PSN per response packet, fixed when first sent. */
	if (!swqe->psns_set)
		sroce_swqe_assign_psns(qp, swqe, qp->req_psn,
				       sroce_swqe_pkts(qp, swqe->length));
	sroce_req_init_bth(qp, &h, SROCE_OP_READ_REQUEST,
			   sroce_psn_add(swqe->first_psn, swqe->sent / qp->mtu), true);
	h.reth.va = swqe->remote_addr + swqe->sent;
	h.reth.rkey = swqe->rkey;
	h.reth.dma_len = swqe->length - swqe->sent;
	/* The request asks for every response PSN up to the last. */
	qp->req_asked_psn = sroce_psn_add(swqe->last_psn, 1);
	skb = sroce_req_build(&h);
	if (!skb)
		return -ENOMEM;
	sroce_req_advance_psn(qp, sroce_psn_add(swqe->last_psn, 1));
	swqe->state = SROCE_SWQE_SENT;
	sroce_xmit(qp, skb);
	return 1;
}

static int sroce_req_atomic_pkt(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	bool cmp_swap = swqe->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP;
	struct sroce_hdrs h = {};
	struct sk_buff *skb;

	sroce_req_init_bth(qp, &h, cmp_swap ? SROCE_OP_COMPARE_SWAP :
				   SROCE_OP_FETCH_ADD, qp->req_psn, true);
	h.atmeth.va = swqe->remote_addr;
	h.atmeth.rkey = swqe->rkey;
	h.atmeth.swap_add = cmp_swap ? swqe->swap : swqe->compare_add;
	h.atmeth.compare = cmp_swap ? swqe->compare_add : 0;
	skb = sroce_req_build(&h);
	if (!skb)
		return -ENOMEM;
	if (!swqe->psns_set)
		sroce_swqe_assign_psns(qp, swqe, qp->req_psn, 1);
	sroce_req_advance_psn(qp, sroce_psn_add(swqe->first_psn, 1));
	swqe->state = SROCE_SWQE_SENT;
	sroce_xmit(qp, skb);
	return 1;
}

/*
 * @route: this pass's (sroce_xmit_route()).
 * Return: packets sent (up to @pkts), or a negative errno.
 */
static int sroce_req_send_pkt(struct sroce_qp *qp, struct sroce_swqe *swqe,
			      u32 in_flight, u32 pkts,
			      const struct sroce_xmit_route *route)
{
	if (swqe->opcode == SROCE_WR_RDMA_READ)
		return sroce_req_read_pkt(qp, swqe);
	if (sroce_wr_is_atomic(swqe->opcode))
		return sroce_req_atomic_pkt(qp, swqe);
	return sroce_req_data_pkt(qp, swqe, in_flight, pkts, route);
}

/*
 * Packets the next send may carry at once: several only where the route
 * takes segments (@burst, sroce_xmit_route()), within the budget and the
 * congestion window (sroce_req_may_send() saw room for one).
 */
static u32 sroce_req_pkts_now(const struct sroce_qp *qp, u32 burst,
			      int budget, u32 in_flight)
{
	return min3(burst, (u32)budget, sroce_cwnd_room(&qp->cwnd, in_flight));
}

/*
 * Of @pkts packets sent from @psn on, those below @psn_max, the highest
 * PSN sent before them: a rewind is resending those.
 */
static u32 sroce_req_resent(u32 psn, u32 psn_max, u32 pkts)
{
	return clamp_t(s32, sroce_psn_diff(psn_max, psn), 0, pkts);
}

/*
 * May this WQE put a packet on the wire now, with @in_flight packets
 * unacknowledged? "Starting" means it never sent one: a WQE rewound to its
 * first PSN is resent even in SQD.
 */
static bool sroce_req_may_send(struct sroce_qp *qp, struct sroce_swqe *swqe,
			       u32 in_flight)
{
	bool starting = !swqe->psns_set;

	if (qp->rnr_wait)
		return false;
	if (!sroce_cwnd_allows(&qp->cwnd, in_flight))
		return false;
	if (starting && qp->state == IB_QPS_SQD)
		return false;
	if (starting && (swqe->send_flags & SROCE_SEND_FENCE) &&
	    qp->rd_outstanding)
		return false;
	if (starting && sroce_wr_is_rd_atomic(swqe->opcode) && !swqe->rd_issued &&
	    qp->attr.max_rd_atomic &&
	    qp->rd_outstanding >= qp->attr.max_rd_atomic)
		return false;
	/* Everything outstanding, the READ's responses too, in one window. */
	if (starting && swqe->opcode == SROCE_WR_RDMA_READ &&
	    !sroce_psn_span_fits((u64)in_flight +
				 sroce_swqe_pkts(qp, swqe->length)))
		return false;
	return true;
}

/*
 * An initiator depth (max_rd_atomic) of 0 allows no READ or ATOMIC to be
 * outstanding, so none may start. Going out as if the depth were 1 (mlx5
 * leaves log_sra_max at 0, i.e. one) ignores what the consumer set;
 * waiting for a slot that never comes (rxe) hangs the send queue. The WQE
 * completes in error instead, and the QP with it, as any failed WQE.
 */
static bool sroce_req_ord_forbids(const struct sroce_qp *qp,
				  const struct sroce_swqe *swqe)
{
	return !swqe->psns_set && sroce_wr_is_rd_atomic(swqe->opcode) &&
	       !qp->attr.max_rd_atomic;
}

static void sroce_req_count_rd_atomic(struct sroce_qp *qp,
				      struct sroce_swqe *swqe)
{
	if (sroce_wr_is_rd_atomic(swqe->opcode) && !swqe->rd_issued) {
		swqe->rd_issued = true;
		qp->rd_outstanding++;
	}
}

/*
 * REG_MR, BIND_MW and LOCAL_INV take effect when the requester reaches
 * them: after every WQE posted before them went out, before anything
 * posted after them does, so a SEND that advertises the key a REG_MR or
 * BIND_MW made valid leaves only once the key works. A fence makes them
 * wait for earlier READs and atomics, as any WQE (sroce_req_may_send()).
 * A failure completes with IB_WC_MW_BIND_ERR, ib_verbs' status for a
 * failed memory operation. LOCAL_INV of a window's key invalidates the
 * window (sroce_mw.c), of any other key a fast-reg MR.
 *
 * Return: 0 (the WQE is done) or -EAGAIN (a REG_MR whose MR still serves
 * lookups from before its invalidation: nothing changed, try again).
 */
static int sroce_req_bind_mw(struct sroce_qp *qp, const struct sroce_swqe *swqe)
{
	const struct sroce_mw_bind b = {
		.mw_key = swqe->rkey,
		.new_key = swqe->bind_new_rkey,
		.mr_lkey = swqe->bind_lkey,
		.va = swqe->remote_addr,
		.length = swqe->compare_add,
		.access = swqe->reg_access,
	};

	return sroce_mw_bind(qp, &b);
}

static int sroce_req_local_op(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_mr *mr;
	int err;

	lockdep_assert_held(&qp->lock);
	if (swqe->opcode == SROCE_WR_LOCAL_INV) {
		err = sroce_key_invalidate(qp, swqe->rkey, false);
	} else if (swqe->opcode == SROCE_WR_BIND_MW) {
		err = sroce_req_bind_mw(qp, swqe);
	} else {
		mr = sroce_mr_get_fast_reg(qp->sdev, swqe->rkey);
		err = mr ? sroce_mr_fast_reg(mr, qp->ibqp.pd, swqe->rkey,
					     swqe->reg_access, swqe->remote_addr,
					     swqe->compare_add) : -EINVAL;
		if (mr)
			sroce_mr_put(mr);
		if (err == -EAGAIN)
			return err;
	}
	if (err)
		sroce_swqe_fail(swqe, IB_WC_MW_BIND_ERR);
	else
		swqe->state = SROCE_SWQE_DONE;
	return 0;
}

static bool sroce_req_send_locked(struct sroce_qp *qp, int *budget)
{
	/* Found once there is something to send. */
	struct sroce_xmit_route route = {};
	bool sent = false;

	lockdep_assert_held(&qp->lock);
	while (*budget > 0 && qp->req_index != qp->sq.index) {
		struct sroce_swqe *swqe =
			&qp->swqes[qp->req_index & (qp->sq.depth - 1)];
		u32 in_flight, psn, psn_max, want;
		int pkts;

		if (swqe->state == SROCE_SWQE_DONE) {
			/*
			 * Failed validation (completes in order, then errors),
			 * or, after a rewind, a READ answered in full: its
			 * PSNs stay taken.
			 */
			if (swqe->psns_set)
				qp->req_psn = sroce_psn_add(swqe->last_psn, 1);
			qp->req_index++;
			continue;
		}
		in_flight = sroce_req_in_flight(qp);
		if (!sroce_req_may_send(qp, swqe, in_flight))
			break;
		if (sroce_wr_is_local(swqe->opcode)) {
			if (sroce_req_local_op(qp, swqe)) {
				/* Those lookups end in a moment: come back. */
				WRITE_ONCE(qp->tx_pending, true);
				sroce_tx_kick(qp);
				break;
			}
			qp->req_index++;
			(*budget)--;
			sent = true;
			continue;
		}
		if (sroce_req_ord_forbids(qp, swqe)) {
			sroce_swqe_fail(swqe, IB_WC_LOC_QP_OP_ERR);
			qp->req_index++;
			continue;
		}
		sroce_req_count_rd_atomic(qp, swqe);
		if (!route.burst)
			sroce_xmit_route(qp, &route);
		psn = qp->req_psn;
		psn_max = qp->req_psn_max;
		want = sroce_req_pkts_now(qp, route.burst, *budget, in_flight);
		pkts = sroce_req_send_pkt(qp, swqe, in_flight, want, &route);
		/* A segment's skb is an order-2 allocation; one packet's is less. */
		if (pkts == -ENOMEM && want > 1)
			pkts = sroce_req_send_pkt(qp, swqe, in_flight, 1, &route);
		if (pkts == -ENOMEM)
			break;
		if (pkts < 0) {
			sroce_swqe_fail(swqe, sroce_sge_errno_to_status(pkts));
			qp->req_index++;
			continue;
		}
		sroce_stat_add(qp->sdev, SROCE_STAT_RETRANSMITTED_PKTS,
			       sroce_req_resent(psn, psn_max, pkts));
		*budget -= pkts;
		sent = true;
		/* DONE: a UC message, complete once sent. */
		if (swqe->state == SROCE_SWQE_SENT ||
		    swqe->state == SROCE_SWQE_DONE)
			qp->req_index++;
	}
	return sent;
}

/**
 * sroce_sq_flush_locked - complete every send WQE with a flush error
 * @qp: the QP; qp->lock held
 *
 * WQEs that failed keep their own status. Also drains whatever the process
 * posts after the QP entered the error state.
 */
void sroce_sq_flush_locked(struct sroce_qp *qp)
{
	int avail = sroce_queue_available(&qp->sq);

	lockdep_assert_held(&qp->lock);
	if (avail > 0) {
		while (avail-- > 0 && qp->sq.index - qp->comp_index < qp->sq.depth) {
			u32 index = qp->sq.index;
			struct sroce_swqe *swqe =
				&qp->swqes[index & (qp->sq.depth - 1)];

			swqe->index = index;
			sroce_swqe_fetch(qp, swqe, sroce_queue_slot(&qp->sq, index));
			sroce_queue_consume(&qp->sq, 1);
		}
	}
	while (qp->comp_index != qp->sq.index) {
		struct sroce_swqe *swqe =
			&qp->swqes[qp->comp_index & (qp->sq.depth - 1)];

		if (swqe->state != SROCE_SWQE_DONE || swqe->status == IB_WC_SUCCESS)
			swqe->status = IB_WC_WR_FLUSH_ERR;
		swqe->state = SROCE_SWQE_DONE;
		/* Slot first, then CQE: as in sroce_comp_advance_locked(). */
		WRITE_ONCE(qp->comp_index, qp->comp_index + 1);
		sroce_complete_swqe_locked(qp, swqe);
	}
	qp->req_index = qp->comp_index;
	qp->rd_outstanding = 0;
}

static struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 index)
{
	return &qp->swqes[index & (qp->sq.depth - 1)];
}

/* Make @swqe resend from @psn; earlier packets of it were acknowledged. */
static void sroce_swqe_rewind(struct sroce_qp *qp, struct sroce_swqe *swqe,
			      u32 psn)
{
	u32 index;

	if (!swqe->psns_set || swqe->state == SROCE_SWQE_DONE)
		return;
	if (swqe->opcode == SROCE_WR_RDMA_READ) {
		/* sent counts bytes received: ask for the rest. */
		qp->req_psn = sroce_psn_add(swqe->first_psn, swqe->sent / qp->mtu);
		swqe->state = SROCE_SWQE_SENDING;
		return;
	}
	index = sroce_wr_is_atomic(swqe->opcode) ? 0 :
		sroce_psn_resume_index(swqe->first_psn,
				       sroce_swqe_pkts(qp, swqe->length),
				       swqe->sent, qp->mtu, psn);
	swqe->sent = index * qp->mtu;
	swqe->state = swqe->sent ? SROCE_SWQE_SENDING : SROCE_SWQE_QUEUED;
	qp->req_psn = sroce_psn_add(swqe->first_psn, index);
}

/**
 * sroce_req_rewind_locked - go back to @psn and send everything again
 * @qp: the QP; qp->lock held
 * @psn: first PSN the responder has not accepted
 */
void sroce_req_rewind_locked(struct sroce_qp *qp, u32 psn)
{
	u32 i, end = qp->req_index;
	bool found = false;

	lockdep_assert_held(&qp->lock);
	/* The WQE being sent counts too. */
	if (end != qp->sq.index && sroce_swqe_at(qp, end)->state == SROCE_SWQE_SENDING)
		end++;
	for (i = qp->comp_index; i != end; i++) {
		struct sroce_swqe *swqe = sroce_swqe_at(qp, i);

		if (swqe->state == SROCE_SWQE_DONE)
			continue;
		if (!found) {
			found = true;
			qp->req_index = i;
			sroce_swqe_rewind(qp, swqe, psn);
		} else if (swqe->opcode == SROCE_WR_RDMA_READ) {
			swqe->state = SROCE_SWQE_SENDING;
		} else {
			swqe->state = SROCE_SWQE_QUEUED;
			swqe->sent = 0;
		}
	}
}

/**
 * sroce_req_resume_at_comp_locked - the completer overtook the requester
 * @qp: the QP; qp->lock held
 *
 * After a rewind, late ACKs can complete WQEs the requester is about to
 * send again. It then resumes at the oldest WQE not completed, at a PSN
 * that matches that WQE's data offset: the PSNs of a WQE sent before stay
 * what they were, whatever the ACK covered of it.
 */
void sroce_req_resume_at_comp_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->req_index = qp->comp_index;
	if (qp->comp_index != qp->sq.index &&
	    sroce_swqe_at(qp, qp->comp_index)->psns_set) {
		sroce_swqe_rewind(qp, sroce_swqe_at(qp, qp->comp_index), qp->comp_psn);
		return;
	}
	if (sroce_psn_before(qp->req_psn, qp->comp_psn))
		qp->req_psn = qp->comp_psn;
}

/**
 * sroce_req_run - one transmit pass over a QP
 * @qp: the QP; takes qp->lock
 *
 * Return: true if packets went out or state moved, so the caller should
 * come back soon.
 */
bool sroce_req_run(struct sroce_qp *qp)
{
	int budget = SROCE_REQ_BUDGET;
	bool busy = false;

	sroce_xmit_begin();
	spin_lock_bh(&qp->lock);
	WRITE_ONCE(qp->tx_pending, false);
	switch (qp->state) {
	case IB_QPS_RTR:
		busy = sroce_resp_send_reads_locked(qp, &budget);
		break;
	case IB_QPS_RTS:
		if (sroce_qp_is_ud(qp)) {
			busy = sroce_ud_req_locked(qp, &budget);
			break;
		}
		fallthrough;
	case IB_QPS_SQD:
		/* A UD QP in SQD starts nothing, and has nothing outstanding. */
		if (sroce_qp_is_ud(qp))
			break;
		busy = sroce_resp_send_reads_locked(qp, &budget);
		sroce_sq_fetch_locked(qp);
		busy |= sroce_req_send_locked(qp, &budget);
		sroce_comp_advance_locked(qp);
		if (busy)
			sroce_comp_arm_timer_locked(qp);
		break;
	case IB_QPS_ERR:
		if (sroce_queue_available(&qp->sq) > 0 ||
		    sroce_queue_available(&qp->rq) > 0) {
			sroce_sq_flush_locked(qp);
			sroce_rq_flush_locked(qp);
			busy = true;
		}
		break;
	default:
		break;
	}
	spin_unlock_bh(&qp->lock);
	sroce_xmit_end();
	return busy;
}
