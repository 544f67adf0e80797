// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_poll.c - reading completions from the CQ ring without a syscall:
 * ibv_poll_cq() and the ibv_cq_ex start/next/end_poll interface.
 *
 * Each CQE is copied out of the ring once and only the copy is used; the
 * copy also retires the send or receive slots it completes (sroce-abi.h:
 * "Send and receive slots are not reused when the kernel has read them but
 * when their completion is polled").
 */
#include <errno.h>
#include <string.h>

#include "sroce_queue.h"

/* Completion flags the ABI defines; others would be kernel garbage. */
#define SROCE_WC_FLAGS_KNOWN (SROCE_WC_GRH | SROCE_WC_WITH_IMM | SROCE_WC_WITH_INV)

_Static_assert(SROCE_WC_WITH_IMM == IBV_WC_WITH_IMM &&
		       SROCE_WC_WITH_INV == IBV_WC_WITH_INV,
	       "sroce completion flags are ibv_wc_flags");
#define SROCE_SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SROCE_SAME(SROCE_WC_SEND, IBV_WC_SEND) &&
		       SROCE_SAME(SROCE_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE) &&
		       SROCE_SAME(SROCE_WC_RDMA_READ, IBV_WC_RDMA_READ) &&
		       SROCE_SAME(SROCE_WC_COMP_SWAP, IBV_WC_COMP_SWAP) &&
		       SROCE_SAME(SROCE_WC_FETCH_ADD, IBV_WC_FETCH_ADD) &&
		       SROCE_SAME(SROCE_WC_BIND_MW, IBV_WC_BIND_MW) &&
		       SROCE_SAME(SROCE_WC_LOCAL_INV, IBV_WC_LOCAL_INV) &&
		       SROCE_SAME(SROCE_WC_RECV, IBV_WC_RECV) &&
		       SROCE_SAME(SROCE_WC_RECV_RDMA_WITH_IMM,
				  IBV_WC_RECV_RDMA_WITH_IMM),
	       "sroce completion opcodes are ibv_wc_opcode");

/*
 * CQEs produced and not yet consumed, or 0 if the kernel's producer index
 * is impossible (more than a ring ahead): better to stall this CQ than to
 * hand out stale entries as new ones. Call with cq->lock held.
 */
static uint32_t sroce_cq_ready(const struct sroce_cq *cq)
{
	uint32_t prod = sroce_load_acquire(&cq->ring.hdr->producer);

	if (!sroce_ring_indices_valid(cq->cons, prod, cq->ring.depth))
		return 0;
	return sroce_ring_count(cq->cons, prod);
}

static struct sroce_qp *sroce_cq_find_qp(struct sroce_cq *cq, uint32_t qpn)
{
	struct sroce_context *sctx = to_sctx(cq->vcq.cq.context);
	struct sroce_qp *qp = cq->last_qp;

	if (qp && qp->vqp.qp.qp_num == qpn)
		return qp;
	pthread_rwlock_rdlock(&sctx->qp_lock);
	qp = sroce_qp_lookup(sctx, qpn);
	pthread_rwlock_unlock(&sctx->qp_lock);
	/* Safe to cache: destroy_qp clears it under cq->lock. */
	cq->last_qp = qp;
	return qp;
}

/* Copies the CQE at cq->cons into *cqe and retires what it completes. */
static void sroce_cq_take(struct sroce_cq *cq, struct sroce_cqe *cqe)
{
	struct sroce_qp *qp;

	memcpy(cqe, sroce_ring_entry(&cq->ring, cq->cons), sizeof(*cqe));
	qp = sroce_cq_find_qp(cq, cqe->qp_num);
	/*
	 * A CQE of a destroyed QP still reaches the user; nothing to free.
	 * Nor for a receive through an SRQ: its slot was free once taken.
	 */
	if (qp && !(cqe->is_recv && qp->vqp.qp.srq))
		sroce_wq_retire(cqe->is_recv ? &qp->rq : &qp->sq,
				cqe->wqe_index);
}

static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->imm_data;	/* or invalidated_rkey: same word */
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags & SROCE_WC_FLAGS_KNOWN;
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	/* RoCE has no LIDs: slid and dlid_path_bits stay 0. */
}

int sroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_cqe cqe;
	uint32_t ready;
	int n;

	pthread_spin_lock(&cq->lock);
	ready = sroce_cq_ready(cq);
	for (n = 0; n < num_entries && (uint32_t)n < ready; n++) {
		sroce_cq_take(cq, &cqe);
		sroce_cqe_to_wc(&cqe, &wc[n]);
		cq->cons++;
	}
	if (n)
		sroce_store_release(&cq->ring.hdr->consumer, cq->cons);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* --- ibv_cq_ex ---------------------------------------------------------- */

/* Makes the CQE at cq->cons current; ENOENT if there is none. */
static int sroce_cq_ex_load(struct sroce_cq *cq)
{
	if (!sroce_cq_ready(cq))
		return ENOENT;
	sroce_cq_take(cq, &cq->cur);
	cq->cur_valid = true;
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cq->cur.status;
	return 0;
}

static void sroce_cq_ex_consume(struct sroce_cq *cq)
{
	if (cq->cur_valid)
		cq->cons++;
	cq->cur_valid = false;
}

/* Holds cq->lock until end_poll, as the verbs contract allows. */
static int sroce_start_poll(struct ibv_cq_ex *cqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = cq_ex_to_scq(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = sroce_cq_ex_load(cq);
	if (ret)
		pthread_spin_unlock(&cq->lock);	/* no end_poll follows */
	return ret;
}

static int sroce_next_poll(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cq_ex_to_scq(cqx);

	sroce_cq_ex_consume(cq);
	return sroce_cq_ex_load(cq);
}

static void sroce_end_poll(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cq_ex_to_scq(cqx);

	sroce_cq_ex_consume(cq);
	sroce_store_release(&cq->ring.hdr->consumer, cq->cons);
	pthread_spin_unlock(&cq->lock);
}

static const struct sroce_cqe *cur_cqe(struct ibv_cq_ex *cqx)
{
	return &cq_ex_to_scq(cqx)->cur;
}

static enum ibv_wc_opcode sroce_read_opcode(struct ibv_cq_ex *cqx)
{
	return (enum ibv_wc_opcode)cur_cqe(cqx)->opcode;
}

static uint32_t sroce_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->vendor_err;
}

static uint32_t sroce_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->byte_len;
}

static __be32 sroce_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->imm_data;
}

static uint32_t sroce_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->qp_num;
}

static uint32_t sroce_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->src_qp;
}

static unsigned int sroce_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->wc_flags & SROCE_WC_FLAGS_KNOWN;
}

static uint8_t sroce_read_sl(struct ibv_cq_ex *cqx)
{
	return cur_cqe(cqx)->sl;
}

/* RoCE has no LIDs. */
static uint32_t sroce_read_slid(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

static uint8_t sroce_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

/* create_cq_ex refuses every other wc_flag, so these are all it needs. */
void sroce_cq_set_ex_ops(struct ibv_cq_ex *cqx)
{
	cqx->start_poll = sroce_start_poll;
	cqx->next_poll = sroce_next_poll;
	cqx->end_poll = sroce_end_poll;
	cqx->read_opcode = sroce_read_opcode;
	cqx->read_vendor_err = sroce_read_vendor_err;
	cqx->read_byte_len = sroce_read_byte_len;
	cqx->read_imm_data = sroce_read_imm_data;
	cqx->read_qp_num = sroce_read_qp_num;
	cqx->read_src_qp = sroce_read_src_qp;
	cqx->read_wc_flags = sroce_read_wc_flags;
	cqx->read_slid = sroce_read_slid;
	cqx->read_sl = sroce_read_sl;
	cqx->read_dlid_path_bits = sroce_read_dlid_path_bits;
}
