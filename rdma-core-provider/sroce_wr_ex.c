// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_wr_ex.c - the extended send API on ibv_qp_ex (ibv_wr_start,
 * ibv_wr_send, ..., ibv_wr_complete), as perftest drives it: set
 * qp_ex->wr_id and wr_flags, call one ibv_wr_<opcode>, then one
 * ibv_wr_set_sge*() or ibv_wr_set_inline_data*(), repeat, complete.
 *
 * wr_start takes sq.lock and wr_complete/wr_abort drop it, so a batch is
 * built in place in the ring slots after the published producer index and
 * becomes visible to the kernel all at once. The first error is
 * remembered, later calls do nothing, and wr_complete discards the whole
 * batch and returns that error. A QP before RTS fails the batch the same
 * way, with EINVAL.
 */
#include <errno.h>

#include "sroce_queue.h"
#include "sroce_wqe.h"

static void sroce_wr_fail(struct sroce_qp *qp, int err)
{
	if (err && !qp->batch_err)
		qp->batch_err = err;
}

/* The WQE the set_* calls apply to, or NULL after an error. */
static struct sroce_send_wqe *sroce_wr_current(struct sroce_qp *qp)
{
	if (qp->batch_err)
		return NULL;
	if (!qp->batch_wqe)
		qp->batch_err = EINVAL;		/* set_* before any wr_* */
	return qp->batch_wqe;
}

/* Final checks of the WQE being built, before the next one or complete. */
static void sroce_wr_close(struct sroce_qp *qp)
{
	if (qp->batch_wqe && !qp->batch_err)
		sroce_wr_fail(qp, sroce_wqe_check(qp->batch_wqe));
	if (qp->batch_wqe && !qp->batch_err)
		sroce_wr_fail(qp, sroce_wqe_check_qp_type(qp, qp->batch_wqe));
	qp->batch_wqe = NULL;
}

/*
 * Opens the next slot for opcode with the caller's wr_id and wr_flags.
 * IBV_SEND_INLINE is dropped here: in this API the payload is inline if
 * and only if ibv_wr_set_inline_data*() supplies it.
 */
static struct sroce_send_wqe *sroce_wr_begin(struct ibv_qp_ex *qpx,
					     unsigned int opcode)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);
	struct sroce_send_wqe *wqe;

	sroce_wr_close(qp);
	if (qp->batch_err)
		return NULL;
	if (!sroce_wq_free(&qp->sq, qp->batch_prod)) {
		qp->batch_err = ENOMEM;
		return NULL;
	}
	wqe = sroce_ring_entry(&qp->sq.ring, qp->batch_prod);
	sroce_wr_fail(qp, sroce_wqe_init(qp, wqe, qpx->wr_id, opcode,
					 qpx->wr_flags & ~IBV_SEND_INLINE));
	if (qp->batch_err)
		return NULL;
	qp->batch_prod++;
	qp->batch_wqe = wqe;
	return wqe;
}

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->batch_prod = qp->sq.prod;
	qp->batch_wqe = NULL;
	qp->batch_err = 0;
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);
	bool doorbell = false;
	int ret;

	sroce_wr_close(qp);
	ret = qp->batch_err;
	/* Checked once, when the batch would become visible. */
	if (!ret && !sroce_qp_takes_sends(qp))
		ret = EINVAL;
	if (!ret && qp->batch_prod != qp->sq.prod)
		doorbell = sroce_sq_publish(qp, qp->batch_prod);
	pthread_spin_unlock(&qp->sq.lock);

	if (doorbell)
		ret = sroce_sq_ring_doorbell(qp);
	return ret;
}

/* Nothing was published, so forgetting the batch is enough. */
static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);

	qp->batch_wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/* --- opcodes ------------------------------------------------------------ */

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_begin(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->imm_data = imm_data;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		sroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *wqe =
		sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->imm_data = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_RDMA_READ);

	if (wqe)
		sroce_wqe_set_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct sroce_send_wqe *wqe =
		sroce_wr_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (wqe)
		sroce_wqe_set_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct sroce_send_wqe *wqe =
		sroce_wr_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (wqe)
		sroce_wqe_set_atomic(wqe, rkey, remote_addr, add, 0);
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->invalidate_rkey = invalidate_rkey;
}

/* Local operations: no set_sge or inline call follows them. */
static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->invalidate_rkey = invalidate_rkey;
}

/* Type 2 windows only, as ibv_wr_bind_mw(3) says. */
static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct sroce_send_wqe *wqe = sroce_wr_begin(qpx, IBV_WR_BIND_MW);
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);

	if (!wqe)
		return;
	if (!mw || mw->type != IBV_MW_TYPE_2) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_wr_fail(qp, sroce_wqe_set_bind(wqe, mw, rkey, bind_info));
}

/* --- payload ------------------------------------------------------------ */

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);
	struct sroce_send_wqe *wqe = sroce_wr_current(qp);

	if (wqe)
		sroce_wr_fail(qp, sroce_wqe_set_sges(qp, wqe, sg_list,
						     num_sge));
}

/* UD: where the WQE being built goes (ibv_wr_set_ud_addr()). */
static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_current(qp_ex_to_sqp(qpx));

	if (wqe)
		sroce_wqe_set_ud(wqe, ah, remote_qpn, remote_qkey);
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *qp = qp_ex_to_sqp(qpx);
	struct sroce_send_wqe *wqe = sroce_wr_current(qp);
	size_t i;

	if (!wqe)
		return;
	if (!sroce_send_opdef(wqe->opcode)->may_inline) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->inline_len = 0;	/* a second call replaces the payload */
	for (i = 0; i < num_buf && !qp->batch_err; i++)
		sroce_wr_fail(qp, sroce_wqe_add_inline(qp, wqe,
						       buf_list[i].addr,
						       buf_list[i].length));
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	const struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/* Every opcode create_qp_ex accepts in send_ops_flags is wired. */
void sroce_qp_set_wr_ops(struct ibv_qp_ex *qpx)
{
	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;
	qpx->wr_send = sroce_wr_send;
	qpx->wr_send_imm = sroce_wr_send_imm;
	qpx->wr_rdma_write = sroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = sroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	qpx->wr_send_inv = sroce_wr_send_inv;
	qpx->wr_local_inv = sroce_wr_local_inv;
	qpx->wr_bind_mw = sroce_wr_bind_mw;
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
}
