// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_post.c - post_send and post_recv of kernel consumers.
 *
 * A kernel QP has the same send and receive rings as a user QP; they are
 * only never mapped. Posting turns each ib_send_wr or ib_recv_wr into the
 * ring WQE a process would have written (sroce-abi.h) and publishes it, so
 * the requester, responder and flush code that consume rings have one path
 * for both kinds of QP. The posting side plays the process's part of the
 * ring protocol, doorbell elision included. A UD send's AH, which a
 * process would name by index, is parked beside its slot (sroce_ud.c).
 *
 * Context. ULPs post from softirq and with IRQs off (ib_mad posts under
 * spin_lock_irqsave), so nothing here sleeps, allocates or takes qp->lock
 * (a _bh lock): each ring has its own producer lock, taken irqsave. The
 * packets themselves are never built here: the transmit thread fetches the
 * WQEs, woken only when it sleeps (NEED_WAKEUP).
 *
 * Space. A send slot may be reused once the engine has completed its WQE
 * (comp_index; the engine keeps its own copy of every WQE it fetched), a
 * receive slot once the responder fetched it (the ring's consumer index).
 * Both are read without the engine's lock: a stale value is an older,
 * smaller one, so it can only make the ring look fuller than it is, and the
 * engine retires a slot before writing its CQE, so a consumer that polled
 * a completion always finds its slot free.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_post.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_tx.h"
#include "sroce_uc.h"
#include "sroce_ud.h"

/* The send flags a kernel WR may carry: those the ring has. */
#define SROCE_KSEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

static int sroce_kpost_opcode(enum ib_wr_opcode opcode, u32 *out)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		*out = SROCE_WR_RDMA_WRITE;
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*out = SROCE_WR_RDMA_WRITE_WITH_IMM;
		return 0;
	case IB_WR_SEND:
		*out = SROCE_WR_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*out = SROCE_WR_SEND_WITH_IMM;
		return 0;
	case IB_WR_RDMA_READ:
		*out = SROCE_WR_RDMA_READ;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*out = SROCE_WR_ATOMIC_CMP_AND_SWP;
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*out = SROCE_WR_ATOMIC_FETCH_AND_ADD;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*out = SROCE_WR_SEND_WITH_INV;
		return 0;
	case IB_WR_LOCAL_INV:
		*out = SROCE_WR_LOCAL_INV;
		return 0;
	case IB_WR_REG_MR:
		*out = SROCE_WR_KERNEL_REG_MR;
		return 0;
	default:
		/* LSO, masked atomics, signature MRs, ...: not offered. */
		return -EINVAL;
	}
}

static u32 sroce_kpost_send_flags(int flags)
{
	return (flags & IB_SEND_FENCE ? SROCE_SEND_FENCE : 0) |
	       (flags & IB_SEND_SIGNALED ? SROCE_SEND_SIGNALED : 0) |
	       (flags & IB_SEND_SOLICITED ? SROCE_SEND_SOLICITED : 0) |
	       (flags & IB_SEND_INLINE ? SROCE_SEND_INLINE : 0);
}

/*
 * Inline data is copied now, from the SGEs' kernel virtual addresses (their
 * lkeys do not matter, as for any inline send), into the WQE body.
 */
static int sroce_kpost_inline(struct sroce_qp *qp, const struct ib_send_wr *wr,
			      struct sroce_send_wqe *wqe)
{
	u8 *dst = (u8 *)wqe->sge;
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 piece = wr->sg_list[i].length;

		if (piece > qp->max_inline - len)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, piece);
		len += piece;
	}
	wqe->inline_len = len;
	return 0;
}

static int sroce_kpost_sges(struct sroce_sge *dst, const struct ib_sge *src,
			    int num_sge, u32 max_sge)
{
	int i;

	if (num_sge < 0 || (u32)num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
	return 0;
}

/*
 * A REG_MR names a fast-reg MR of this device and its QP's PD, and a new
 * key for the same MR (ib_update_fast_reg_key changes only the key byte).
 * iova and length are taken now: a ULP may move iova after map_mr_sg
 * (xprtrdma puts the RPC's XID in its upper half).
 */
static int sroce_kpost_reg_mr(struct sroce_qp *qp, const struct ib_reg_wr *rwr,
			      struct sroce_send_wqe *wqe)
{
	struct ib_mr *ibmr = rwr->mr;
	struct sroce_mr *mr = to_smr(ibmr);

	if (ibmr->device != qp->ibqp.device || ibmr->pd != qp->ibqp.pd ||
	    !mr->fast_reg ||
	    sroce_key_index(rwr->key) != sroce_key_index(mr->key) ||
	    sroce_mr_check_access(rwr->access))
		return -EINVAL;
	wqe->atomic.remote_addr = ibmr->iova;
	wqe->atomic.compare_add = ibmr->length;
	wqe->atomic.rkey = rwr->key;
	wqe->invalidate_rkey = rwr->access;
	return 0;
}

/* The remote side of an RDMA or atomic WR. */
static int sroce_kpost_target(struct sroce_qp *qp, const struct ib_send_wr *wr,
			      struct sroce_send_wqe *wqe)
{
	if (sroce_wr_is_atomic(wqe->opcode)) {
		const struct ib_atomic_wr *awr = atomic_wr(wr);

		/* One 8-byte local buffer, an aligned target (IBA o9-21). */
		if (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(u64) ||
		    !IS_ALIGNED(awr->remote_addr, sizeof(u64)))
			return -EINVAL;
		wqe->atomic.remote_addr = awr->remote_addr;
		wqe->atomic.compare_add = awr->compare_add;
		wqe->atomic.swap = awr->swap;
		wqe->atomic.rkey = awr->rkey;
	} else if (wqe->opcode == SROCE_WR_KERNEL_REG_MR) {
		return sroce_kpost_reg_mr(qp, reg_wr(wr), wqe);
	} else if (wqe->opcode == SROCE_WR_LOCAL_INV ||
		   wqe->opcode == SROCE_WR_SEND_WITH_INV) {
		wqe->invalidate_rkey = wr->ex.invalidate_rkey;
	} else if (wqe->opcode != SROCE_WR_SEND &&
		   wqe->opcode != SROCE_WR_SEND_WITH_IMM) {
		wqe->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rdma.rkey = rdma_wr(wr)->rkey;
	}
	return 0;
}

/* Fill the ring slot @wqe from @wr. Return: 0 or -EINVAL. */
static int sroce_kpost_build_send(struct sroce_qp *qp,
				  const struct ib_send_wr *wr,
				  struct sroce_send_wqe *wqe)
{
	int err;

	memset(wqe, 0, sizeof(*wqe));
	if (wr->send_flags & ~SROCE_KSEND_FLAGS)
		return -EINVAL;
	err = sroce_kpost_opcode(wr->opcode, &wqe->opcode);
	if (err)
		return err;
	/* A datagram is a SEND (IBA 9.8.1); UC has no READ nor atomics. */
	if (sroce_qp_is_ud(qp) && wqe->opcode != SROCE_WR_SEND &&
	    wqe->opcode != SROCE_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (sroce_qp_is_uc(qp) && !sroce_uc_wr_opcode_ok(wqe->opcode))
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->send_flags = sroce_kpost_send_flags(wr->send_flags);
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->imm_data = wr->ex.imm_data;
	err = sroce_kpost_target(qp, wr, wqe);
	if (err)
		return err;
	/* Local operations move no data: their SGEs, if any, mean nothing. */
	if (sroce_wr_is_local(wqe->opcode))
		return 0;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (sroce_wr_is_rd_atomic(wqe->opcode))
			return -EINVAL;
		return sroce_kpost_inline(qp, wr, wqe);
	}
	wqe->num_sge = wr->num_sge;
	return sroce_kpost_sges(wqe->sge, wr->sg_list, wr->num_sge,
				qp->max_send_sge);
}

/* Publish up to @producer, then wake the transmit thread if it asked. */
static void sroce_kpost_publish(struct sroce_qp *qp, struct sroce_queue *q,
				u32 producer)
{
	/* Release: WQEs before index; pairs with the consumer's acquire. */
	smp_store_release(&q->hdr->producer, producer);
	/*
	 * Index before flag; pairs with the barrier of sroce_tx_sleep() and
	 * sroce_tx_prune_locked() between setting NEED_WAKEUP and their last
	 * look at the rings. The kick lists the QP if the thread dropped it.
	 */
	smp_mb();
	if (READ_ONCE(q->hdr->flags) & SROCE_RING_NEED_WAKEUP)
		sroce_tx_kick(qp);
}

/* States a send may be posted in; in ERR it completes flushed. */
static bool sroce_kpost_send_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

int sroce_kpost_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct sroce_queue *sq = &qp->sq;
	struct sroce_send_wqe *wqe;
	unsigned long flags;
	u32 producer;
	int err = 0;

	if (!sroce_kpost_send_state_ok(READ_ONCE(qp->state))) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_post_lock, flags);
	producer = sq->hdr->producer;
	for (; wr; wr = wr->next) {
		if (producer - READ_ONCE(qp->comp_index) >= sq->depth) {
			err = -ENOMEM;
			break;
		}
		wqe = sroce_queue_slot(sq, producer);
		err = sroce_kpost_build_send(qp, wr, wqe);
		if (!err && sroce_qp_is_ud(qp))
			err = sroce_ud_kpost_dest(qp, wr, wqe, producer);
		if (err)
			break;
		producer++;
	}
	sroce_kpost_publish(qp, sq, producer);
	spin_unlock_irqrestore(&qp->sq_post_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sroce_kpost_recv_wqes - write receive WRs into a ring
 * @rq: an RQ or an SRQ ring; the caller holds its producer lock
 * @max_sge: SGEs a WQE of this ring may carry
 * @wr: the list
 * @bad_wr: set to the first WR not written, if any
 * @err: set to 0, -EINVAL (a bad WR) or -ENOMEM (the ring is full)
 *
 * A slot is free once the responder consumed it: it copies the whole WQE
 * before moving the consumer index. Nothing is published.
 *
 * Return: the producer index after the last WQE written.
 */
u32 sroce_kpost_recv_wqes(struct sroce_queue *rq, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr, int *err)
{
	u32 producer = rq->hdr->producer;

	*err = 0;
	for (; wr; wr = wr->next) {
		struct sroce_recv_wqe *wqe = sroce_queue_slot(rq, producer);

		/* Acquire: pairs with the responder's release after its copy. */
		if (producer - smp_load_acquire(&rq->hdr->consumer) >= rq->depth) {
			*err = -ENOMEM;
			break;
		}
		memset(wqe, 0, sizeof(*wqe));
		*err = sroce_kpost_sges(wqe->sge, wr->sg_list, wr->num_sge,
					max_sge);
		if (*err)
			break;
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		producer++;
	}
	if (*err)
		*bad_wr = wr;
	return producer;
}

int sroce_kpost_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	u32 producer;
	int err;

	/* A QP with an SRQ takes its receives from there only. */
	if (READ_ONCE(qp->state) == IB_QPS_RESET || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_post_lock, flags);
	producer = sroce_kpost_recv_wqes(&qp->rq, qp->max_recv_sge, wr, bad_wr,
					 &err);
	sroce_kpost_publish(qp, &qp->rq, producer);
	spin_unlock_irqrestore(&qp->rq_post_lock, flags);
	return err;
}
