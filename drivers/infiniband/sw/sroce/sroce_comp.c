// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_comp.c - the completer: responses in, completions out.
 *
 * ACKs, NAKs, READ responses and ATOMIC ACKs arrive in softirq; the retry
 * timer fires in softirq too. Both take qp->lock. Send WQEs complete in
 * order: a WQE is marked done when its response arrives, and completions
 * are written only while the oldest WQE is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_sge.h"
#include "sroce_stats.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* IBA table 45: RNR NAK timer field -> microseconds. */
static const u32 sroce_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * For test harnesses only (Documentation/testing.md): a floor under every
 * QP's local ACK timeout exponent, for tools that cannot set their QPs'
 * (ibv_rc_pingpong's fixed 14: 67 ms x 7 retries), which a TCG guest stalled
 * 1-2 s on a loaded host outlasts. 0, the default, leaves every QP its own.
 */
static uint min_ack_timeout;
module_param(min_ack_timeout, uint, 0644);
MODULE_PARM_DESC(min_ack_timeout,
		 "Test harnesses only: smallest local ACK timeout exponent (4.096 us * 2^N) any QP gets; default 0, the QP's own");

/* rnr_retry 7 means retry forever (IBA 9.7.5.2.8). */
#define SROCE_RNR_RETRY_INFINITE	7

static const u8 sroce_wc_opcode_of[] = {
	[SROCE_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[SROCE_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[SROCE_WR_SEND] = IB_WC_SEND,
	[SROCE_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[SROCE_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[SROCE_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[SROCE_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SROCE_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[SROCE_WR_BIND_MW] = IB_WC_BIND_MW,
	[SROCE_WR_SEND_WITH_INV] = IB_WC_SEND,
};

/* REG_MR is a kernel-only opcode past the table; its value is ib_core's. */
static u32 sroce_wc_opcode(u32 opcode)
{
	if (opcode == SROCE_WR_KERNEL_REG_MR)
		return IB_WC_REG_MR;
	return opcode < ARRAY_SIZE(sroce_wc_opcode_of) ?
	       sroce_wc_opcode_of[opcode] : 0;
}

/* The oldest WQE not yet completed, if one was fetched. */
static struct sroce_swqe *sroce_comp_oldest(struct sroce_qp *qp)
{
	if (qp->comp_index == qp->sq.index)
		return NULL;
	return &qp->swqes[qp->comp_index & (qp->sq.depth - 1)];
}

/**
 * sroce_complete_swqe_locked - write the CQE of a finished send WQE
 * @qp: the QP; qp->lock held
 * @swqe: the finished WQE
 *
 * Successful unsignaled WQEs write nothing: the next CQE's wqe_index
 * retires them in the provider. Errors always complete.
 */
void sroce_complete_swqe_locked(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_cqe cqe = {
		.wr_id = swqe->wr_id,
		.status = swqe->status,
		.qp_num = qp->ibqp.qp_num,
		.wqe_index = swqe->index,
		.byte_len = swqe->length,
	};

	lockdep_assert_held(&qp->lock);
	sroce_swqe_put_ah(swqe);

	if (swqe->status == IB_WC_SUCCESS && !qp->sq_sig_all &&
	    !(swqe->send_flags & SROCE_SEND_SIGNALED))
		return;
	cqe.opcode = sroce_wc_opcode(swqe->opcode);
	sroce_cq_post(qp->scq, &qp->ibqp, &cqe, false);
}

/* Write completions for every finished WQE at the head of the queue. */
void sroce_comp_advance_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	while (qp->comp_index != qp->sq.index) {
		struct sroce_swqe *swqe =
			&qp->swqes[qp->comp_index & (qp->sq.depth - 1)];

		if (swqe->state != SROCE_SWQE_DONE)
			break;
		if (swqe->rd_issued)
			qp->rd_outstanding--;
		/*
		 * Retire the slot before its CQE: a kernel consumer that polled
		 * the CQE may post into the slot at once (sroce_post.c reads
		 * comp_index locklessly; cq->lock orders the two).
		 */
		WRITE_ONCE(qp->comp_index, qp->comp_index + 1);
		sroce_complete_swqe_locked(qp, swqe);
		if (swqe->status != IB_WC_SUCCESS) {
			sroce_qp_error_locked(qp);
			return;
		}
	}
	/* Completed past a rewound requester: it resumes after them. */
	if ((s32)(qp->comp_index - qp->req_index) > 0)
		sroce_req_resume_at_comp_locked(qp);
	sroce_qp_sqd_check_locked(qp);
}

static unsigned long sroce_ack_timeout(const struct sroce_qp *qp)
{
	u32 exponent = clamp_t(u32, READ_ONCE(min_ack_timeout), qp->attr.timeout, 31);
	/* 4.096 us * 2^timeout (IBA 9.7.6.1.3) */
	u64 usecs = (4096ULL << exponent) / 1000;

	return max(usecs_to_jiffies(usecs), 1UL);
}

/* Keep the local ACK timer running while anything is unacknowledged. */
void sroce_comp_arm_timer_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->rnr_wait || !qp->attr.timeout)
		return;
	if (qp->comp_psn == qp->req_psn_max) {
		del_timer(&qp->retry_timer);
		return;
	}
	mod_timer(&qp->retry_timer, jiffies + sroce_ack_timeout(qp));
}

/* Progress: the retry budgets start over (IBA 9.7.5.2.8). */
static void sroce_comp_progress(struct sroce_qp *qp, u32 next_psn)
{
	sroce_cwnd_on_progress(&qp->cwnd,
			       max(sroce_psn_diff(next_psn, qp->comp_psn), 0),
			       next_psn);
	qp->comp_psn = next_psn;
	qp->comp_retry_pending = false;
	qp->retry_left = qp->attr.retry_cnt;
	if (qp->attr.rnr_retry != SROCE_RNR_RETRY_INFINITE)
		qp->rnr_retry_left = qp->attr.rnr_retry;
}

/* Mark done every SEND/WRITE whose last packet is at or before @psn. */
static void sroce_comp_ack_upto(struct sroce_qp *qp, u32 psn)
{
	u32 next = sroce_psn_add(psn, 1), i;

	/*
	 * Up to every WQE that ever went out, not just to req_index: after a
	 * rewind, WQEs past req_index may be acknowledged already.
	 */
	for (i = qp->comp_index; i != qp->sq.index; i++) {
		struct sroce_swqe *swqe = &qp->swqes[i & (qp->sq.depth - 1)];

		if (swqe->state == SROCE_SWQE_DONE)
			continue;
		/*
		 * READs and ATOMICs complete with their own responses, and
		 * nothing past their first missing response is acknowledged.
		 */
		if (sroce_wr_is_rd_atomic(swqe->opcode)) {
			u32 missing = sroce_psn_add(swqe->first_psn,
						    swqe->sent / qp->mtu);

			if (sroce_psn_before(missing, next))
				next = missing;
			break;
		}
		if (!swqe->psns_set || sroce_psn_after(swqe->last_psn, psn))
			break;
		swqe->state = SROCE_SWQE_DONE;
	}
	if (sroce_psn_after(next, qp->comp_psn))
		sroce_comp_progress(qp, next);
}

/* The WQE that sent @psn, if it is still outstanding. */
static struct sroce_swqe *sroce_comp_swqe_of(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	for (i = qp->comp_index; i != qp->sq.index; i++) {
		struct sroce_swqe *swqe = &qp->swqes[i & (qp->sq.depth - 1)];

		if (!swqe->psns_set) {
			/* Done without a packet (a local operation): look on. */
			if (swqe->state == SROCE_SWQE_DONE)
				continue;
			break;
		}
		if (!sroce_psn_before(psn, swqe->first_psn) &&
		    !sroce_psn_after(psn, swqe->last_psn))
			return swqe;
	}
	return NULL;
}

/* The first WQE that still waits for a response, if any. */
static struct sroce_swqe *sroce_comp_first_unfinished(struct sroce_qp *qp)
{
	u32 i;

	for (i = qp->comp_index; i != qp->sq.index; i++) {
		struct sroce_swqe *swqe = &qp->swqes[i & (qp->sq.depth - 1)];

		if (swqe->state != SROCE_SWQE_DONE)
			return swqe->psns_set ? swqe : NULL;
	}
	return NULL;
}

/* Packets from @psn on were lost: the congestion window shrinks. */
static void sroce_comp_loss(struct sroce_qp *qp, enum sroce_cwnd_loss kind,
			    u32 psn)
{
	sroce_cwnd_on_loss(&qp->cwnd, kind, psn, qp->req_psn_max);
}

/*
 * Responses come in PSN order (IBA 9.7.5.1.1): one for a later request
 * while an earlier one is unanswered means responses were lost. Resend from
 * the oldest unacknowledged PSN, once per loss rather than per packet.
 */
static void sroce_comp_retry_now(struct sroce_qp *qp)
{
	if (qp->comp_retry_pending)
		return;
	qp->comp_retry_pending = true;
	sroce_comp_loss(qp, SROCE_CWND_LOSS_NAK, qp->comp_psn);
	sroce_req_rewind_locked(qp, qp->comp_psn);
}

static void sroce_comp_fail_at(struct sroce_qp *qp, u32 psn,
			       enum ib_wc_status status)
{
	struct sroce_swqe *swqe = sroce_comp_swqe_of(qp, psn);

	if (!swqe)
		swqe = sroce_comp_oldest(qp);
	if (swqe)
		sroce_swqe_fail(swqe, status);
}

static void sroce_comp_rnr_nak(struct sroce_qp *qp, u32 psn, u8 timer)
{
	sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_RNR_ERR);
	if (!qp->rnr_retry_left) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RETRY_RNR_EXCEEDED_ERR);
		sroce_comp_fail_at(qp, psn, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (qp->attr.rnr_retry != SROCE_RNR_RETRY_INFINITE)
		qp->rnr_retry_left--;
	sroce_req_rewind_locked(qp, psn);
	qp->rnr_wait = true;
	mod_timer(&qp->retry_timer,
		  jiffies + max(usecs_to_jiffies(sroce_rnr_usecs[timer]), 1UL));
}

static void sroce_comp_count_nak(struct sroce_qp *qp, u8 code)
{
	switch (code) {
	case SROCE_NAK_PSN_SEQ_ERROR:
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_SEQ_ERR);
		break;
	case SROCE_NAK_INVALID_REQUEST:
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_NAK_INV_REQ);
		break;
	case SROCE_NAK_REMOTE_ACCESS:
		sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_NAK_ACCESS);
		break;
	}
}

static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	sroce_comp_count_nak(qp, code);
	switch (code) {
	case SROCE_NAK_PSN_SEQ_ERROR:
		sroce_comp_loss(qp, SROCE_CWND_LOSS_NAK, psn);
		sroce_req_rewind_locked(qp, psn);
		WRITE_ONCE(qp->tx_pending, true);
		break;
	case SROCE_NAK_INVALID_REQUEST:
		sroce_comp_fail_at(qp, psn, IB_WC_REM_INV_REQ_ERR);
		break;
	case SROCE_NAK_REMOTE_ACCESS:
		sroce_comp_fail_at(qp, psn, IB_WC_REM_ACCESS_ERR);
		break;
	default:
		sroce_comp_fail_at(qp, psn, IB_WC_REM_OP_ERR);
		break;
	}
}

/* Is @psn one the requester has sent and not yet seen acknowledged? */
static bool sroce_comp_psn_outstanding(struct sroce_qp *qp, u32 psn)
{
	return !sroce_psn_before(psn, qp->comp_psn) &&
	       sroce_psn_before(psn, qp->req_psn_max);
}

static void sroce_comp_ack(struct sroce_qp *qp, const struct sroce_hdrs *h)
{
	u8 type = h->aeth.syndrome & SROCE_AETH_TYPE_MASK;
	u8 value = h->aeth.syndrome & SROCE_AETH_VALUE_MASK;
	u32 psn = h->bth.psn;

	if (type == SROCE_AETH_ACK) {
		if (sroce_comp_psn_outstanding(qp, psn))
			sroce_comp_ack_upto(qp, psn);
		return;
	}
	/* A NAK names the PSN it refuses: everything before it arrived. */
	if (!sroce_comp_psn_outstanding(qp, psn))
		return;
	if (psn != qp->comp_psn)
		sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MASK));
	if (type == SROCE_AETH_RNR_NAK)
		sroce_comp_rnr_nak(qp, psn, value);
	else
		sroce_comp_nak(qp, psn, value);
}

static void sroce_comp_atomic_ack(struct sroce_qp *qp, const struct sroce_hdrs *h)
{
	struct sroce_swqe *swqe = sroce_comp_swqe_of(qp, h->bth.psn);
	u64 orig = h->atmack_orig;
	int err;

	if (!swqe || swqe->state == SROCE_SWQE_DONE ||
	    !sroce_wr_is_atomic(swqe->opcode))
		return;
	sroce_comp_ack_upto(qp, sroce_psn_add(h->bth.psn, SROCE_PSN_MASK));
	if (sroce_comp_first_unfinished(qp) != swqe) {
		sroce_comp_retry_now(qp);
		return;
	}
	err = sroce_sge_copy(qp, qp->ibqp.pd, swqe->sge, swqe->num_sge, 0,
			     &orig, sizeof(orig), SROCE_COPY_TO_MR);
	swqe->status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	swqe->state = SROCE_SWQE_DONE;
	sroce_comp_progress(qp, sroce_psn_add(h->bth.psn, 1));
}

/*
 * READ responses must come in PSN order; one that skips ahead means a
 * response was lost: ask again for the rest.
 */
static void sroce_comp_read_response(struct sroce_qp *qp,
				     const struct sroce_hdrs *h,
				     const u8 *payload)
{
	struct sroce_swqe *swqe = sroce_comp_swqe_of(qp, h->bth.psn);
	u32 expected;
	int err;

	if (!swqe || swqe->opcode != SROCE_WR_RDMA_READ ||
	    swqe->state == SROCE_SWQE_DONE)
		return;
	expected = sroce_psn_add(swqe->first_psn, swqe->sent / qp->mtu);
	if (h->bth.psn != expected) {
		if (sroce_psn_after(h->bth.psn, expected))
			sroce_comp_retry_now(qp);
		return;
	}
	/* Its first response acknowledges every request before it. */
	if (h->op->flags & SROCE_OPF_AETH)
		sroce_comp_ack_upto(qp, sroce_psn_add(swqe->first_psn, SROCE_PSN_MASK));
	if (sroce_comp_first_unfinished(qp) != swqe) {
		sroce_comp_retry_now(qp);
		return;
	}
	if (!sroce_read_resp_len_ok(h->op->flags, h->payload_len, qp->mtu,
				    swqe->length - swqe->sent)) {
		sroce_swqe_fail(swqe, IB_WC_BAD_RESP_ERR);
		return;
	}
	err = sroce_sge_copy(qp, qp->ibqp.pd, swqe->sge, swqe->num_sge,
			     swqe->sent, (void *)payload, h->payload_len,
			     SROCE_COPY_TO_MR);
	if (err) {
		sroce_swqe_fail(swqe, err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					     IB_WC_LOC_PROT_ERR);
		return;
	}
	swqe->sent += h->payload_len;
	sroce_comp_progress(qp, sroce_psn_add(h->bth.psn, 1));
	if (h->op->flags & SROCE_OPF_LAST) {
		swqe->status = swqe->sent == swqe->length ? IB_WC_SUCCESS :
							     IB_WC_BAD_RESP_ERR;
		swqe->state = SROCE_SWQE_DONE;
	}
}

/*
 * After a response, is there anything for the requester? The window may
 * have opened for fetched WQEs, or a rewind may need sending; in error the
 * thread flushes. With nothing of the kind, as after every ACK of a
 * ping-pong (one WQE in flight), waking the transmit thread only costs a
 * wake-up, a context switch and, with more than one CPU, a vCPU busy for
 * sq_poll_usecs; the next post finds NEED_WAKEUP set (doorbell) or the
 * thread polling, as without this response.
 *
 * Posts still in the ring are not work for us: a pass fetches the whole
 * ring, so they came after it, and whoever made them rang the doorbell
 * (NEED_WAKEUP set) or left them to the polling thread, whose sleep looks
 * at the rings once more. Counting them only woke the thread for nothing
 * whenever a process posted its next READ the moment it saw this
 * response's CQE - most READ round trips of a ping-pong on two CPUs.
 */
static bool sroce_comp_req_has_work_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return true;
	return qp->req_index != qp->sq.index;
}

/*
 * After a response was taken: complete what it finished, keep the timer
 * running while anything is outstanding, and let the requester send what
 * the response made possible.
 */
static void sroce_comp_after_rcv_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_comp_advance_locked(qp);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD)
		sroce_comp_arm_timer_locked(qp);
	if (sroce_comp_req_has_work_locked(qp)) {
		WRITE_ONCE(qp->tx_pending, true);
		sroce_xmit_kick(qp, SROCE_TX_OWN);
	}
}

/* Return: false if the QP's state takes no responses (packet dropped). */
bool sroce_comp_rcv(struct sroce_qp *qp, const struct sroce_hdrs *h,
		    const u8 *payload)
{
	u32 flags = h->op->flags;
	bool taken = false;

	/* sroce_rcv_bth() let only RC opcodes through: UC has no responses. */
	spin_lock_bh(&qp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		sroce_stat_drop(qp->sdev, SROCE_STAT_RCVD_UNKNOWN_QPN);
		goto out;
	}
	taken = true;
	if (flags & SROCE_OPF_READ)
		sroce_comp_read_response(qp, h, payload);
	else if (flags & SROCE_OPF_ATOMIC)
		sroce_comp_atomic_ack(qp, h);
	else
		sroce_comp_ack(qp, h);
	sroce_comp_after_rcv_locked(qp);
out:
	spin_unlock_bh(&qp->lock);
	return taken;
}

/*
 * Is a run of READ responses (sroce_comp_rcv_run()) the plain next part of
 * the READ under way? Its first is a MIDDLE at the expected PSN of the
 * oldest unfinished WQE, all but the last carry one path MTU, and it fits.
 *
 * Return: that READ's WQE, or NULL.
 */
static struct sroce_swqe *sroce_comp_run_swqe(struct sroce_qp *qp,
					      const struct sroce_hdrs *first,
					      const struct sroce_hdrs *last,
					      u32 len)
{
	u32 flags = first->op->flags, last_flags = last->op->flags;
	struct sroce_swqe *swqe;

	if ((qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) ||
	    !(flags & SROCE_OPF_READ) || !(flags & SROCE_OPF_MIDDLE) ||
	    !(last_flags & SROCE_OPF_READ) || first->payload_len != qp->mtu ||
	    last->payload_len > qp->mtu ||
	    (!(last_flags & SROCE_OPF_LAST) && last->payload_len != qp->mtu))
		return NULL;
	swqe = sroce_comp_swqe_of(qp, first->bth.psn);
	if (!swqe || swqe->opcode != SROCE_WR_RDMA_READ ||
	    swqe->state == SROCE_SWQE_DONE ||
	    first->bth.psn != sroce_psn_add(swqe->first_psn, swqe->sent / qp->mtu) ||
	    sroce_comp_first_unfinished(qp) != swqe ||
	    len > swqe->length - swqe->sent)
		return NULL;
	return swqe;
}

/**
 * sroce_comp_rcv_run - the rest of a READ response from a local segment at once
 * @qp: the requester's QP
 * @first: headers of the run's first packet
 * @last: headers of its last packet; those between are MIDDLEs of one MTU
 * @pkts: packets in the run, at least 2
 * @payload: their payloads, back to back
 * @len: @payload's length
 *
 * The completer's side of sroce_resp_rcv_run(): when every response of the
 * run is certain to be placed as the next part of the READ under way, one
 * lock, one key lookup and one copy, and the QP as the responses one by
 * one would leave it. Otherwise, or if the local key check fails, nothing
 * is done and the caller hands the responses over one by one.
 *
 * Return: true if the run was taken.
 */
bool sroce_comp_rcv_run(struct sroce_qp *qp, const struct sroce_hdrs *first,
			const struct sroce_hdrs *last, u32 pkts,
			const u8 *payload, u32 len)
{
	struct sroce_swqe *swqe;
	bool taken = false;

	spin_lock_bh(&qp->lock);
	swqe = sroce_comp_run_swqe(qp, first, last, len);
	if (!swqe || sroce_sge_copy(qp, qp->ibqp.pd, swqe->sge, swqe->num_sge,
				    swqe->sent, (void *)payload, len,
				    SROCE_COPY_TO_MR))
		goto out;
	taken = true;
	if (last->op->flags & SROCE_OPF_AETH)
		sroce_comp_ack_upto(qp, sroce_psn_add(swqe->first_psn, SROCE_PSN_MASK));
	swqe->sent += len;
	sroce_comp_progress(qp, sroce_psn_add(last->bth.psn, 1));
	if (last->op->flags & SROCE_OPF_LAST) {
		swqe->status = swqe->sent == swqe->length ? IB_WC_SUCCESS :
							     IB_WC_BAD_RESP_ERR;
		swqe->state = SROCE_SWQE_DONE;
	}
	sroce_comp_after_rcv_locked(qp);
out:
	spin_unlock_bh(&qp->lock);
	return taken;
}

/**
 * sroce_comp_ask_tail_locked - ask for the ACK of an unasked tail
 * @qp: the QP; qp->lock held
 *
 * When every packet that asked for an ACK got one, the unacknowledged rest
 * is a tail sent without AckReq: the responder owes no ACK for it. Send it
 * again asking (the last packet of a retransmitted message sets AckReq);
 * this is not a retry. The caller has the transmit side run.
 *
 * Return: true if there was such a tail.
 */
bool sroce_comp_ask_tail_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (!sroce_comp_oldest(qp) || qp->comp_psn == qp->req_psn_max ||
	    sroce_psn_before(qp->comp_psn, qp->req_asked_psn))
		return false;
	sroce_req_rewind_locked(qp, qp->comp_psn);
	return true;
}

static void sroce_comp_timeout_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->rnr_wait) {
		qp->rnr_wait = false;
		return;
	}
	/* After a rewind nothing may be in flight yet: still retry. */
	if (!sroce_comp_oldest(qp) || qp->comp_psn == qp->req_psn_max)
		return;
	if (sroce_comp_ask_tail_locked(qp))
		return;
	sroce_stat_inc(qp->sdev, SROCE_STAT_COMPLETER_RETRY_ERR);
	if (!qp->retry_left) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RETRY_EXCEEDED_ERR);
		sroce_comp_fail_at(qp, qp->comp_psn, IB_WC_RETRY_EXC_ERR);
		sroce_comp_advance_locked(qp);
		return;
	}
	qp->retry_left--;
	sroce_comp_loss(qp, SROCE_CWND_LOSS_TIMEOUT, qp->comp_psn);
	sroce_req_rewind_locked(qp, qp->comp_psn);
}

/* Local ACK timeout, or the end of an RNR back-off. */
void sroce_comp_retry_timeout(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retry_timer);

	spin_lock_bh(&qp->lock);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) {
		sroce_comp_timeout_locked(qp);
		WRITE_ONCE(qp->tx_pending, true);
		sroce_tx_kick(qp);
	}
	spin_unlock_bh(&qp->lock);
}
