// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_qp.c - queue pair lifetime (RC and UD, with an RQ or an SRQ): create with its two rings,
 * modify, query, destroy, and the context's qp_num -> QP table that
 * pollers use to retire slots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_check_rings.h"
#include "sroce_queue.h"

#define SROCE_QP_COMP_MASK                                                     \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |                 \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* The ibv_wr_* operations sroce_wr_ex.c implements. */
#define SROCE_QP_SEND_OPS                                                      \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV |  \
	 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)

struct sroce_create_qp_resp_buf {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct sroce_create_qp_resp drv;
};

_Static_assert(offsetof(struct sroce_create_qp_resp_buf, drv) ==
		       sizeof(struct ib_uverbs_ex_create_qp_resp),
	       "driver payload must follow the core response directly");

/* --- qp_num -> QP ------------------------------------------------------- */

int sroce_qp_table_init(struct sroce_context *sctx)
{
	memset(sctx->qp_table, 0, sizeof(sctx->qp_table));
	return pthread_rwlock_init(&sctx->qp_lock, NULL);
}

void sroce_qp_table_fini(struct sroce_context *sctx)
{
	pthread_rwlock_destroy(&sctx->qp_lock);
}

static struct sroce_qp **sroce_qp_bucket(struct sroce_context *sctx,
					 uint32_t qpn)
{
	return &sctx->qp_table[qpn & (SROCE_QP_TABLE_BUCKETS - 1)];
}

/* Call with qp_lock held, for reading at least. */
struct sroce_qp *sroce_qp_lookup(struct sroce_context *sctx, uint32_t qpn)
{
	struct sroce_qp *qp = *sroce_qp_bucket(sctx, qpn);

	while (qp && qp->vqp.qp.qp_num != qpn)
		qp = qp->table_next;
	return qp;
}

static void sroce_qp_table_add(struct sroce_context *sctx,
			       struct sroce_qp *qp)
{
	struct sroce_qp **bucket = sroce_qp_bucket(sctx, qp->vqp.qp.qp_num);

	pthread_rwlock_wrlock(&sctx->qp_lock);
	qp->table_next = *bucket;
	*bucket = qp;
	pthread_rwlock_unlock(&sctx->qp_lock);
}

static void sroce_qp_table_del(struct sroce_context *sctx,
			       struct sroce_qp *qp)
{
	struct sroce_qp **link = sroce_qp_bucket(sctx, qp->vqp.qp.qp_num);

	pthread_rwlock_wrlock(&sctx->qp_lock);
	while (*link && *link != qp)
		link = &(*link)->table_next;
	if (*link)
		*link = qp->table_next;
	pthread_rwlock_unlock(&sctx->qp_lock);
}

/* --- create ------------------------------------------------------------- */

static int sroce_check_qp_init_attr(const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~SROCE_QP_COMP_MASK)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(uint64_t)SROCE_QP_SEND_OPS))
		return EOPNOTSUPP;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return EINVAL;
	return 0;
}

/* The legacy POST_SEND write() that wakes the kernel's transmit thread. */
static void sroce_qp_init_doorbell(struct sroce_qp *qp)
{
	struct sroce_doorbell_cmd *db = &qp->db_cmd;

	db->hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	db->hdr.in_words = sizeof(*db) / 4;
	db->hdr.out_words = sizeof(qp->db_resp) / 4;
	db->core_payload.response = (uintptr_t)&qp->db_resp;
	db->core_payload.qp_handle = qp->vqp.qp.handle;
	db->core_payload.wr_count = 0;
	db->core_payload.sge_count = 0;
	/* Kernels refuse a wqe_size below the struct even for 0 WRs. */
	db->core_payload.wqe_size = sizeof(struct ib_uverbs_send_wr);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Checks and maps the rings the kernel made. SGE limits are what fits in
 * an entry, capped by what the kernel granted in the core response.
 */
static int sroce_qp_attach_rings(struct sroce_qp *qp,
				 const struct sroce_create_qp_resp *drv,
				 const struct ibv_qp_cap *kcap)
{
	struct ibv_context *ibctx = qp->vqp.qp.context;
	enum sroce_rings_verdict verdict;
	int ret;

	verdict = sroce_check_qp_resp(drv);
	if (verdict != SROCE_RINGS_OK) {
		fprintf(stderr, "libsroce: %s: refusing QP: %s\n",
			ibctx->device->name, sroce_rings_verdict_name(verdict));
		return EPROTO;
	}
	ret = sroce_ring_map(&qp->sq.ring, ibctx->cmd_fd, drv->sq_mmap_offset,
			     drv->sq_mmap_size, drv->sq_depth, drv->sq_stride);
	if (ret)
		return ret;
	ret = sroce_ring_map(&qp->rq.ring, ibctx->cmd_fd, drv->rq_mmap_offset,
			     drv->rq_mmap_size, drv->rq_depth, drv->rq_stride);
	if (ret)
		goto err_unmap_sq;
	ret = sroce_wq_init(&qp->sq, min_u32(kcap->max_send_sge,
					     sroce_send_stride_max_sge(drv->sq_stride)));
	if (ret)
		goto err_unmap_rq;
	ret = sroce_wq_init(&qp->rq, min_u32(kcap->max_recv_sge,
					     sroce_recv_stride_max_sge(drv->rq_stride)));
	if (ret)
		goto err_fini_sq;
	qp->max_inline_data = drv->max_inline_data;
	return 0;

err_fini_sq:
	pthread_spin_destroy(&qp->sq.lock);
err_unmap_rq:
	sroce_ring_unmap(&qp->rq.ring);
err_unmap_sq:
	sroce_ring_unmap(&qp->sq.ring);
	return ret;
}

static void sroce_qp_caps(const struct sroce_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.ring.depth;
	cap->max_recv_wr = qp->rq.ring.depth;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_recv_sge = qp->rq.max_sge;
	cap->max_inline_data = qp->max_inline_data;
}

static void sroce_qp_finish_init(struct sroce_qp *qp,
				 const struct ibv_qp_init_attr_ex *attr)
{
	qp->sq_sig_all = attr->sq_sig_all ? SROCE_SEND_SIGNALED : 0;
	sroce_qp_init_doorbell(qp);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->vqp.comp_mask |= VERBS_QP_EX;
		sroce_qp_set_wr_ops(&qp->vqp.qp_ex);
	}
	sroce_qp_table_add(to_sctx(qp->vqp.qp.context), qp);
}

static void *sroce_qp_create_failed(struct sroce_qp *qp, bool created,
				    int ret)
{
	if (created)
		ibv_cmd_destroy_qp(&qp->vqp.qp);
	if (qp)
		pthread_mutex_destroy(&qp->modify_lock);
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_create_qp_resp_buf resp;
	struct ibv_qp_init_attr_ex kattr;
	struct ibv_create_qp_ex cmd;
	struct sroce_qp *qp;
	int ret;

	ret = sroce_check_qp_init_attr(attr);
	if (ret)
		return sroce_qp_create_failed(NULL, false, ret);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = pthread_mutex_init(&qp->modify_lock, NULL);
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->state = IBV_QPS_RESET;

	/* Zero create_flags would still force the extended command. */
	kattr = *attr;
	kattr.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, &kattr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		return sroce_qp_create_failed(qp, false, ret);
	ret = sroce_qp_attach_rings(qp, &resp.drv, &kattr.cap);
	if (ret)
		return sroce_qp_create_failed(qp, true, ret);

	sroce_qp_finish_init(qp, attr);
	sroce_qp_caps(qp, &attr->cap);
	return &qp->vqp.qp;
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = sroce_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

/* --- modify, query, destroy --------------------------------------------- */

/* After the kernel applied the move to state; modify_lock held. */
static void sroce_qp_entered_state(struct sroce_qp *qp,
				   enum ibv_qp_state state)
{
	/*
	 * RESET drops outstanding work without completions, so nothing
	 * would ever retire those slots: free them here.
	 */
	if (state == IBV_QPS_RESET) {
		sroce_wq_discard(&qp->sq);
		sroce_wq_discard(&qp->rq);
	}
	/* Posts refused from here until RTS (sroce_qp_state.h). */
	__atomic_store_n(&qp->state, state, __ATOMIC_RELAXED);
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_modify_qp cmd;
	int ret;

	pthread_mutex_lock(&qp->modify_lock);
	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret && (attr_mask & IBV_QP_STATE))
		sroce_qp_entered_state(qp, attr->qp_state);
	pthread_mutex_unlock(&qp->modify_lock);
	return ret;
}

/* The kernel's idea of the caps may be rounded differently: report ours. */
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_query_qp cmd;
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (ret)
		return ret;
	sroce_qp_caps(qp, &attr->cap);
	sroce_qp_caps(qp, &init_attr->cap);
	init_attr->sq_sig_all = !!qp->sq_sig_all;
	return 0;
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	sroce_qp_table_del(to_sctx(ibqp->context), qp);
	sroce_cq_forget_qp(to_scq(ibqp->send_cq), qp);
	sroce_cq_forget_qp(to_scq(ibqp->recv_cq), qp);
	sroce_wq_fini(&qp->sq);
	sroce_wq_fini(&qp->rq);
	pthread_mutex_destroy(&qp->modify_lock);
	free(qp);
	return 0;
}
