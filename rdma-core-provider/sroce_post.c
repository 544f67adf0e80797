// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_post.c - ibv_post_send() and ibv_post_recv(): WQEs straight into
 * the shared rings. post_recv never enters the kernel; post_send does only
 * when the kernel asked for a doorbell (SROCE_RING_NEED_WAKEUP).
 */
#include <errno.h>

#include "sroce_queue.h"
#include "sroce_wqe.h"

static int sroce_wqe_add_inline_sges(const struct sroce_qp *qp,
				     struct sroce_send_wqe *wqe,
				     const struct ibv_sge *sg, int num_sge)
{
	int i, ret;

	for (i = 0; i < num_sge; i++) {
		ret = sroce_wqe_add_inline(qp, wqe,
					   (const void *)(uintptr_t)sg[i].addr,
					   sg[i].length);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * ibv_post_send() binds type 2 windows only; type 1 windows are bound by
 * ibv_bind_mw() (@type1), which posts the same WQE.
 */
static int sroce_wqe_set_target(struct sroce_send_wqe *wqe,
				const struct sroce_send_opdef *op,
				const struct ibv_send_wr *wr, bool type1)
{
	const struct ibv_mw *mw = wr->bind_mw.mw;

	if (op->target == SROCE_TARGET_BIND) {
		if (!mw || mw->type != (type1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2))
			return EINVAL;
		return sroce_wqe_set_bind(wqe, mw, wr->bind_mw.rkey,
					  &wr->bind_mw.bind_info);
	}
	if (op->target == SROCE_TARGET_INV ||
	    op->target == SROCE_TARGET_LOCAL_INV)
		wqe->invalidate_rkey = wr->invalidate_rkey;
	if (op->target == SROCE_TARGET_RDMA)
		sroce_wqe_set_rdma(wqe, wr->wr.rdma.rkey,
				   wr->wr.rdma.remote_addr);
	else if (op->target == SROCE_TARGET_ATOMIC)
		sroce_wqe_set_atomic(wqe, wr->wr.atomic.rkey,
				     wr->wr.atomic.remote_addr,
				     wr->wr.atomic.compare_add,
				     wr->wr.atomic.swap);
	/* Only *_WITH_IMM opcodes carry it; elsewhere it is just zero. */
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wqe->imm_data = wr->imm_data;
	return 0;
}

static void sroce_wqe_set_ud_target(const struct sroce_qp *qp,
				    struct sroce_send_wqe *wqe,
				    const struct ibv_send_wr *wr)
{
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		sroce_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				 wr->wr.ud.remote_qkey);
}

static int sroce_build_send(const struct sroce_qp *qp,
			    struct sroce_send_wqe *wqe,
			    const struct ibv_send_wr *wr, bool type1)
{
	const struct sroce_send_opdef *op = sroce_send_opdef(wr->opcode);
	unsigned int flags = wr->send_flags;
	int ret;

	if (!op || wr->num_sge < 0)
		return EINVAL;
	/* As on other devices, INLINE means nothing to READ or atomics. */
	if (!op->may_inline)
		flags &= ~IBV_SEND_INLINE;
	ret = sroce_wqe_init(qp, wqe, wr->wr_id, wr->opcode, flags);
	if (ret)
		return ret;
	ret = sroce_wqe_set_target(wqe, op, wr, type1);
	if (ret)
		return ret;
	sroce_wqe_set_ud_target(qp, wqe, wr);
	/* LOCAL_INV and BIND_MW ignore sg_list, as on other devices. */
	if (op->target == SROCE_TARGET_LOCAL_INV ||
	    op->target == SROCE_TARGET_BIND)
		ret = 0;
	else if (flags & IBV_SEND_INLINE)
		ret = sroce_wqe_add_inline_sges(qp, wqe, wr->sg_list,
						wr->num_sge);
	else
		ret = sroce_wqe_set_sges(qp, wqe, wr->sg_list, wr->num_sge);
	if (!ret)
		ret = sroce_wqe_check(wqe);
	return ret ? ret : sroce_wqe_check_qp_type(qp, wqe);
}

/*
 * WQEs up to the first failure are posted (verbs semantics); *bad_wr names
 * the one that failed. A QP before RTS takes none: EINVAL, *bad_wr the
 * first. A failed doorbell write() leaves every WR posted and returns its
 * errno with *bad_wr NULL: the kernel will see them at its next wakeup, but
 * the caller should know the device is in trouble.
 */
static int sroce_post_send_list(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr, bool type1)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_wq *sq = &qp->sq;
	bool doorbell = false;
	uint32_t prod, room;
	int ret = 0;

	if (!sroce_qp_takes_sends(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&sq->lock);
	prod = sq->prod;
	room = sroce_wq_free(sq, prod);
	for (; wr; wr = wr->next, prod++, room--) {
		if (!room) {
			ret = ENOMEM;
			break;
		}
		ret = sroce_build_send(qp, sroce_ring_entry(&sq->ring, prod),
				       wr, type1);
		if (ret)
			break;
	}
	if (prod != sq->prod)
		doorbell = sroce_sq_publish(qp, prod);
	pthread_spin_unlock(&sq->lock);

	*bad_wr = wr;
	if (doorbell) {
		int db_ret = sroce_sq_ring_doorbell(qp);

		if (!ret)	/* a WR error wins; wr is NULL otherwise */
			ret = db_ret;
	}
	return ret;
}

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	return sroce_post_send_list(ibqp, wr, bad_wr, false);
}

/*
 * ibv_bind_mw() of a type 1 window (libibverbs checked the type and the
 * MR's PD): a BIND_MW WQE with the window's next key, which the window
 * takes at once, as the verb promises; the bind itself happens, in order,
 * when the kernel reaches the WQE, and completes IBV_WC_BIND_MW.
 */
int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	};
	struct ibv_send_wr *bad_wr;
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = sroce_post_send_list(ibqp, &wr, &bad_wr, true);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

/*
 * Receives never need the kernel while the QP works; a QP in the error
 * state flushes them, and the kernel asks for a doorbell to do so by
 * setting NEED_WAKEUP on the RQ. Same barrier rule as the SQ doorbell.
 */
static bool sroce_rq_wants_doorbell(struct sroce_wq *rq)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&rq->ring.hdr->flags, __ATOMIC_RELAXED) &
	       SROCE_RING_NEED_WAKEUP;
}

static int sroce_build_recv(const struct sroce_wq *rq,
			    struct sroce_recv_wqe *wqe,
			    const struct ibv_recv_wr *wr)
{
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/*
 * Fills up to @room slots of @wq from its producer index on and publishes
 * them; call with wq->lock held. Returns 0 or an errno, *bad_wr the first
 * WR not posted (NULL if all were).
 */
int sroce_wq_post_recvs(struct sroce_wq *wq, uint32_t room,
			struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	uint32_t prod = wq->prod;
	int ret = 0;

	for (; wr; wr = wr->next, prod++, room--) {
		if (!room) {
			ret = ENOMEM;
			break;
		}
		ret = sroce_build_recv(wq, sroce_ring_entry(&wq->ring, prod),
				       wr);
		if (ret)
			break;
	}
	if (prod != wq->prod)
		sroce_wq_publish(wq, prod);
	*bad_wr = wr;
	return ret;
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_sqp(ibqp)->rq;
	int ret;

	/* A QP with an SRQ takes its receives from there only. */
	if (ibqp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&rq->lock);
	ret = sroce_wq_post_recvs(rq, sroce_wq_free(rq, rq->prod), wr, bad_wr);
	pthread_spin_unlock(&rq->lock);

	if (sroce_rq_wants_doorbell(rq)) {
		int db_ret = sroce_sq_ring_doorbell(to_sqp(ibqp));

		if (!ret)
			ret = db_ret;
	}
	return ret;
}
