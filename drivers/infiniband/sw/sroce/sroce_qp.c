// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_qp.c - queue pair verbs: create, modify, query, destroy.
 *
 * QP numbers come from one module-wide table, so a packet's destination QP
 * identifies its QP whatever netdev it arrived on; only QP 1, the GSI QP
 * every device has, is found by its device instead (sroce_ud.c). The receive path looks
 * QPs up under RCU and holds a reference while it works; destroy unpublishes
 * the QP, then waits for those references before tearing it down. The table
 * holds RCU-freed handles, not QPs (struct sroce_qp_handle says why).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_debug.h"
#include "sroce_mcast.h"
#include "sroce_post.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_qp.h"
#include "sroce_srq.h"
#include "sroce_stats.h"
#include "sroce_tx.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* QPN -> struct sroce_qp_handle; RCU lookups, xa_lock for updates. */
static DEFINE_XARRAY_ALLOC(sroce_qps);
static u32 sroce_qpn_next;

/* QPNs 0 and 1 are the special QPs of each port; leave them alone. */
#define SROCE_QPN_MIN		16
#define SROCE_QPN_MAX		0xffffff

#define SROCE_SWQE_HDR_BYTES	sizeof(struct sroce_send_wqe)
#define SROCE_RWQE_HDR_BYTES	sizeof(struct sroce_recv_wqe)

/*
 * Any context. The handle may be on its way out (its QP being destroyed):
 * RCU keeps the handle itself readable, and a zero count means the QP must
 * not be touched. xa_store()'s release pairs with xa_load()'s dependency
 * order, so a handle found has its @qp set.
 */
struct sroce_qp *sroce_qp_get(u32 qpn)
{
	struct sroce_qp_handle *handle;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	handle = xa_load(&sroce_qps, qpn);
	if (handle) {
		sroce_delay(SROCE_DELAY_QP_LOOKUP);
		if (refcount_inc_not_zero(&handle->refs))
			qp = handle->qp;
		else
			sroce_delay_lost_race(SROCE_DELAY_QP_LOOKUP);
	}
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->handle->refs))
		complete(&qp->released);
}

static int sroce_qp_check_caps(const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	/* With an SRQ, the receive caps are the SRQ's: ignored here. */
	if (init->srq)
		return cap->max_send_wr > SROCE_MAX_QP_WR ||
		       cap->max_send_sge > SROCE_MAX_SGE ||
		       cap->max_inline_data > SROCE_MAX_INLINE_DATA ? -EINVAL : 0;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE_DATA)
		return -EINVAL;
	return 0;
}

/* Round the caps up to what the rings really offer, and report that. */
static void sroce_qp_size_rings(struct sroce_qp *qp, struct ib_qp_cap *cap,
				u32 *sq_stride, u32 *rq_stride)
{
	u32 sq_body = max3(cap->max_send_sge * (u32)sizeof(struct sroce_sge),
			   cap->max_inline_data, (u32)sizeof(struct sroce_sge));
	u32 rq_body = max_t(u32, cap->max_recv_sge, 1) * sizeof(struct sroce_sge);

	*sq_stride = roundup_pow_of_two(SROCE_SWQE_HDR_BYTES + sq_body);
	*rq_stride = roundup_pow_of_two(SROCE_RWQE_HDR_BYTES + rq_body);

	/* A queue nobody posts to still gets one slot: one code path. */
	cap->max_send_wr = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	cap->max_recv_wr = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
	cap->max_send_sge = min_t(u32, SROCE_MAX_SGE,
				  (*sq_stride - SROCE_SWQE_HDR_BYTES) /
				  sizeof(struct sroce_sge));
	cap->max_recv_sge = min_t(u32, SROCE_MAX_SGE,
				  (*rq_stride - SROCE_RWQE_HDR_BYTES) /
				  sizeof(struct sroce_sge));
	cap->max_inline_data = min_t(u32, SROCE_MAX_INLINE_DATA,
				     *sq_stride - SROCE_SWQE_HDR_BYTES);

	qp->max_send_sge = cap->max_send_sge;
	qp->max_recv_sge = cap->max_recv_sge;
	qp->max_inline = cap->max_inline_data;
}

static int sroce_qp_alloc_swqes(struct sroce_qp *qp)
{
	u32 depth = qp->sq.depth, i;

	/* Up to ~14 MiB at maximum caps: charged like the rings. */
	qp->swqes = kvcalloc(depth, sizeof(*qp->swqes), SROCE_GFP_USER_BULK);
	qp->sges = kvcalloc(array_size(depth, qp->max_send_sge ?: 1),
			    sizeof(*qp->sges), SROCE_GFP_USER_BULK);
	qp->inline_buf = kvzalloc(array_size(depth, qp->max_inline ?: 1),
				  SROCE_GFP_USER_BULK);
	if (!qp->swqes || !qp->sges || !qp->inline_buf)
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		qp->swqes[i].sge = qp->sges + (size_t)i * qp->max_send_sge;
		qp->swqes[i].inline_data = qp->inline_buf + (size_t)i * qp->max_inline;
	}
	return 0;
}

static void sroce_qp_free_memory(struct sroce_qp *qp)
{
	sroce_ud_kpost_free(qp);
	kvfree(qp->swqes);
	kvfree(qp->sges);
	kvfree(qp->inline_buf);
	kfree(qp->rd_res);
	sroce_queue_destroy(&qp->sq);
	sroce_queue_destroy(&qp->rq);
}

static int sroce_qp_alloc_queues(struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	u32 sq_stride, rq_stride;
	int err;

	sroce_qp_size_rings(qp, cap, &sq_stride, &rq_stride);
	err = sroce_queue_init(&qp->sq, cap->max_send_wr, sq_stride);
	if (err)
		return err;
	err = sroce_queue_init(&qp->rq, cap->max_recv_wr, rq_stride);
	if (err)
		return err;
	err = sroce_qp_alloc_swqes(qp);
	if (err || !sroce_qp_is_ud(qp) || !qp->kernel)
		return err;
	return sroce_ud_kpost_init(qp);
}

static int sroce_qp_export(struct sroce_qp *qp, struct ib_udata *udata)
{
	struct sroce_ucontext *uctx = rdma_udata_to_drv_context(udata,
					struct sroce_ucontext, ibuc);
	struct sroce_create_qp_resp resp = {
		.sq_mmap_size = qp->sq.size,
		.rq_mmap_size = qp->rq.size,
		.sq_depth = qp->sq.depth,
		.sq_stride = qp->sq.stride,
		.rq_depth = qp->rq.depth,
		.rq_stride = qp->rq.stride,
		.max_inline_data = qp->max_inline,
	};
	int err;

	err = sroce_queue_export(&qp->sq, &uctx->ibuc, &resp.sq_mmap_offset);
	if (err)
		return err;
	err = sroce_queue_export(&qp->rq, &uctx->ibuc, &resp.rq_mmap_offset);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

static int sroce_qp_check_init(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	/* XRC comes later; say so clearly. */
	if ((init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	     init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI) ||
	    init->create_flags)
		return -EOPNOTSUPP;
	/* A kernel SRQ serves kernel QPs, a process's its own QPs. */
	if (init->srq && to_ssrq(init->srq)->kernel != !udata)
		return -EINVAL;
	/* The GSI QP is ib_mad's, of the one port. */
	if (init->qp_type == IB_QPT_GSI && (udata || init->port_num != 1))
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return sroce_qp_check_caps(init);
}

/* The table's reference is the handle's first. */
static int sroce_qp_alloc_handle(struct sroce_qp *qp)
{
	qp->handle = kzalloc(sizeof(*qp->handle), GFP_KERNEL_ACCOUNT);
	if (!qp->handle)
		return -ENOMEM;
	refcount_set(&qp->handle->refs, 1);
	qp->handle->qp = qp;
	return 0;
}

static void sroce_qp_init_state(struct sroce_qp *qp,
				struct ib_qp_init_attr *init)
{
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_post_lock);
	spin_lock_init(&qp->rq_post_lock);
	init_completion(&qp->released);
	INIT_LIST_HEAD(&qp->tx_entry);
	sroce_xmit_qp_init(qp);
	timer_setup(&qp->retry_timer, sroce_comp_retry_timeout, 0);
	sroce_cwnd_init(&qp->cwnd, SROCE_REQ_WINDOW);
	qp->sdev = to_sdev(qp->ibqp.device);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	/* Its RQ ring stays at one unused slot: the flags word still counts. */
	if (qp->srq) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}
	qp->attr.path_mtu = IB_MTU_1024;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_1024);
}

/*
 * max_qp counts the QPs consumers create; the GSI QP, which ib_mad makes
 * for itself at registration like a special QP of a NIC, is not one of them.
 */
static int sroce_qp_count_get(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		return 0;
	return sroce_obj_count_get(&to_sdev(qp->ibqp.device)->num_qp, SROCE_MAX_QP);
}

static void sroce_qp_count_put(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_GSI)
		sroce_obj_count_put(&to_sdev(qp->ibqp.device)->num_qp);
}

/* The QP's number: 1 for the GSI QP, else the next free one, reserved. */
static int sroce_qp_reserve_qpn(struct sroce_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		qp->ibqp.qp_num = SROCE_GSI_QPN;
		return 0;
	}
	err = xa_alloc_cyclic(&sroce_qps, &qpn, NULL,
			      XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX),
			      &sroce_qpn_next, GFP_KERNEL);
	if (err < 0)
		return err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

/* From here the receive path can find the QP. */
static int sroce_qp_publish(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		return sroce_gsi_publish(qp);
	/* The slot is reserved: storing into it allocates nothing. */
	xa_store(&sroce_qps, qp->ibqp.qp_num, qp->handle, GFP_KERNEL);
	return 0;
}

/* Also releases the QPN; the QP may be published or only reserved. */
static void sroce_qp_unpublish(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_GSI)
		sroce_gsi_unpublish(qp);
	else
		xa_erase(&sroce_qps, qp->ibqp.qp_num);
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = sroce_qp_check_init(init, udata);
	if (err)
		return err;
	/* max_qp as advertised: QPs past it fail before allocating anything. */
	err = sroce_qp_count_get(qp);
	if (err)
		return err;
	err = sroce_qp_alloc_handle(qp);
	if (err)
		goto err_count_put;
	sroce_qp_init_state(qp, init);
	qp->kernel = !udata;
	err = sroce_qp_alloc_queues(qp, &init->cap);
	if (err)
		goto err_free;
	if (qp->srq) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}

	err = sroce_qp_reserve_qpn(qp);
	if (err)
		goto err_free;
	qp->src_port = 0xc000 | hash_32(qp->ibqp.qp_num, 14);
	if (init->qp_type == IB_QPT_UD && udata)
		sroce_ud_qp_add(qp, rdma_udata_to_drv_context(udata,
					struct sroce_ucontext, ibuc));

	if (udata) {
		err = sroce_qp_export(qp, udata);
		if (err)
			goto err_unpublish;
	}

	/*
	 * The transmit thread polls only QPs it lists (sroce_tx.c), so the
	 * process must ring the doorbell, which lists it: start with
	 * NEED_WAKEUP set.
	 */
	WRITE_ONCE(qp->sq.hdr->flags, SROCE_RING_NEED_WAKEUP);

	/* Only a second GSI QP fails here, which reserved nothing. */
	err = sroce_qp_publish(qp);
	if (err)
		goto err_free;
	return 0;

err_unpublish:
	sroce_ud_qp_del(qp);
	sroce_qp_unpublish(qp);
err_free:
	sroce_qp_free_memory(qp);
	/* Never found by a lookup: freed at once. */
	kfree(qp->handle);
err_count_put:
	sroce_qp_count_put(qp);
	return err;
}

/* Values modify_qp accepts, beyond what ib_modify_qp_is_ok() checks. */
static int sroce_qp_check_attr(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			       int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 ||
	     attr->path_mtu > sroce_mtu_for_netdev_mtu(READ_ONCE(qp->sdev->ndev->mtu))))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MAX)
		return -EINVAL;
	return 0;
}

/* Everything the QP keeps of the attributes, applied under qp->lock. */
static void sroce_qp_apply_attr(struct sroce_qp *qp, const struct ib_qp_attr *attr,
				int mask, const struct sroce_av *av)
{
	if (mask & IB_QP_AV)
		qp->av = *av;
	if (mask & IB_QP_PATH_MTU) {
		qp->attr.path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN) {
		qp->attr.rq_psn = attr->rq_psn & SROCE_PSN_MASK;
		qp->resp_psn = qp->attr.rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->attr.sq_psn = attr->sq_psn & SROCE_PSN_MASK;
		qp->req_psn = qp->attr.sq_psn;
		qp->comp_psn = qp->attr.sq_psn;
		qp->req_psn_max = qp->attr.sq_psn;
		qp->req_asked_psn = qp->attr.sq_psn;
		qp->req_unasked = 0;
		sroce_cwnd_init(&qp->cwnd, SROCE_REQ_WINDOW);
	}
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_AV)
		qp->attr.ah_attr = attr->ah_attr;
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	/* uverbs lets a process set a privileged Q_Key only if allowed. */
	if (mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	/* Asks for SQ_DRAINED on this modify's RTS->SQD only, never a later one. */
	qp->attr.en_sqd_async_notify = (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
				       attr->en_sqd_async_notify;
}

static void sroce_qp_reset_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	WRITE_ONCE(qp->rq.hdr->flags, 0);
	del_timer(&qp->retry_timer);
	sroce_resp_reset_locked(qp);
	qp->rwqe_valid = false;
	/* RESET forgets all work: posted WQEs go without completions. */
	sroce_ud_sq_release_locked(qp);
	sroce_queue_discard_all(&qp->sq);
	sroce_queue_discard_all(&qp->rq);
	qp->req_index = qp->sq.index;
	WRITE_ONCE(qp->comp_index, qp->sq.index);
	qp->rd_outstanding = 0;
	qp->rnr_wait = false;
	/* Nothing of the old connection may steer the next one. */
	qp->comp_retry_pending = false;
	qp->sqd_notify = false;
	qp->rwqe_offset = 0;
	qp->last_wqe_reported = false;
}

/*
 * The drain ends with the ACK of the last packet sent: if that packet did
 * not ask for one, ask now rather than at the local ACK timeout (seconds
 * with a large timeout). An RNR back-off resends with AckReq anyway.
 */
static void sroce_qp_sqd_ask_tail_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->rnr_wait || !sroce_comp_ask_tail_locked(qp))
		return;
	WRITE_ONCE(qp->tx_pending, true);
	sroce_tx_kick(qp);
}

/* Side effects of entering a state; qp->lock held. */
static void sroce_qp_enter_state_locked(struct sroce_qp *qp,
					enum ib_qp_state next)
{
	enum ib_qp_state prev = qp->state;

	lockdep_assert_held(&qp->lock);
	qp->state = next;
	switch (next) {
	case IB_QPS_RESET:
		sroce_qp_reset_locked(qp);
		break;
	case IB_QPS_RTS:
		if (prev == IB_QPS_RTR) {
			qp->retry_left = qp->attr.retry_cnt;
			qp->rnr_retry_left = qp->attr.rnr_retry;
		}
		qp->sqd_notify = false;
		/* WQEs fetched while draining wait in swqes[], not the ring. */
		if (prev == IB_QPS_SQD)
			WRITE_ONCE(qp->tx_pending, true);
		break;
	case IB_QPS_SQD:
		if (prev == IB_QPS_RTS) {
			qp->sqd_notify = qp->attr.en_sqd_async_notify;
			sroce_qp_sqd_ask_tail_locked(qp);
			sroce_qp_sqd_check_locked(qp);
		}
		break;
	case IB_QPS_ERR:
		sroce_qp_error_locked(qp);
		break;
	default:
		break;
	}
}

/*
 * Move the newest IRD entries into @res (room for @count), renumbered from
 * 0, with the READs still being answered: SQD->SQD may change
 * max_dest_rd_atomic (IBA's transition table lists it) while the responder
 * keeps serving the peer in SQD, so READ responses in progress and the
 * entries a duplicate request needs must survive. A smaller ring keeps the
 * newest entries; the oldest go, as when a new request finds it full.
 */
static void sroce_qp_move_rd_res_locked(struct sroce_qp *qp,
					struct sroce_rd_res *res, u32 count)
{
	u32 keep = min3(count, qp->rd_res_count, qp->rd_res_tail);
	u32 answering = min(qp->rd_res_tail - qp->rd_res_head, keep);
	u32 i, from = qp->rd_res_tail - keep;

	lockdep_assert_held(&qp->lock);
	for (i = 0; i < keep; i++)
		res[i] = qp->rd_res[(from + i) % qp->rd_res_count];
	qp->rd_res_tail = keep;
	qp->rd_res_head = keep - answering;
}

/* The IRD ring is sized by max_dest_rd_atomic: allocate before locking. */
static int sroce_qp_alloc_rd_res(u8 count, struct sroce_rd_res **res)
{
	*res = NULL;
	if (!count)
		return 0;
	*res = kcalloc(count, sizeof(**res), SROCE_GFP_USER_BULK);
	return *res ? 0 : -ENOMEM;
}

/* Install @res (room for @count) as the IRD ring; return the old ring. */
static struct sroce_rd_res *sroce_qp_swap_rd_res_locked(struct sroce_qp *qp,
							struct sroce_rd_res *res,
							u8 count)
{
	struct sroce_rd_res *old = qp->rd_res;

	lockdep_assert_held(&qp->lock);
	sroce_qp_move_rd_res_locked(qp, res, count);
	qp->rd_res = res;
	qp->rd_res_count = count;
	qp->attr.max_dest_rd_atomic = count;
	return old;
}

/*
 * The state the caller believes the QP is in must be the state it is in:
 * ib_core passes cur_qp_state through unchecked, and trusting it would let
 * a process jump from RESET straight to RTS without an address vector.
 */
static int sroce_qp_current_state(struct sroce_qp *qp, struct ib_qp_attr *attr,
				  int mask, enum ib_qp_state *cur)
{
	spin_lock_bh(&qp->lock);
	*cur = qp->state;
	spin_unlock_bh(&qp->lock);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != *cur)
		return -EINVAL;
	return 0;
}

/**
 * sroce_qp_state_transition_valid - may a QP go from @cur to @next?
 * @type: the QP's type (the table differs: SQE exists for UD and UC, not
 *	RC; UC takes no timeout, retry, RNR or RD atomic attributes)
 * @cur: current state
 * @next: requested state
 * @mask: IB_QP_* attributes given with the transition
 *
 * The IBA transition table (required and optional attributes per
 * transition) for the QP's own type, as ib_core encodes it.
 */
SROCE_VISIBLE_IF_KUNIT bool
sroce_qp_state_transition_valid(enum ib_qp_type type, enum ib_qp_state cur,
				enum ib_qp_state next, int mask)
{
	if (cur > IB_QPS_ERR || next > IB_QPS_ERR)
		return false;
	return ib_modify_qp_is_ok(cur, next, type, mask);
}

/**
 * sroce_qp_commit_modify_locked - apply a checked modify_qp, or nothing
 * @qp: the QP; qp->lock held
 * @attr: the attributes modify_qp was given
 * @mask: which of them to apply
 * @cur: the state the checks were made against
 * @next: the state asked for
 * @av: @attr's address vector, converted
 * @rd_res: in: the new IRD ring if @mask changes max_dest_rd_atomic; out:
 *	the ring to free (the old one, or the new one if nothing was applied)
 *
 * The receive path or the completer may have moved the QP to ERR since it
 * was checked: the transition must still be legal from there (ERR -> RTS
 * would revive a flushed QP). A modify that fails changes nothing, the IRD
 * ring included.
 *
 * Return: 0, or -EINVAL if the transition is no longer legal.
 */
SROCE_VISIBLE_IF_KUNIT int
sroce_qp_commit_modify_locked(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			      int mask, enum ib_qp_state cur,
			      enum ib_qp_state next, const struct sroce_av *av,
			      struct sroce_rd_res **rd_res)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != cur &&
	    !sroce_qp_state_transition_valid(qp->ibqp.qp_type, qp->state,
					     next, mask))
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		*rd_res = sroce_qp_swap_rd_res_locked(qp, *rd_res,
						      attr->max_dest_rd_atomic);
	sroce_qp_apply_attr(qp, attr, mask, av);
	if (mask & IB_QP_STATE)
		sroce_qp_enter_state_locked(qp, next);
	return 0;
}

static int sroce_modify_qp_serialised(struct sroce_qp *qp,
				      struct ib_qp_attr *attr, int mask)
{
	struct sroce_rd_res *rd_res = NULL;
	enum ib_qp_state cur, next;
	struct sroce_av av = {};
	int err;

	err = sroce_qp_current_state(qp, attr, mask, &cur);
	if (err)
		return err;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!sroce_qp_state_transition_valid(qp->ibqp.qp_type, cur, next, mask))
		return -EINVAL;
	err = sroce_qp_check_attr(qp, attr, mask);
	if (!err && (mask & IB_QP_AV))
		err = sroce_av_from_ah_attr(&av, &attr->ah_attr, qp->sdev->net);
	if (!err && (mask & IB_QP_MAX_DEST_RD_ATOMIC))
		err = sroce_qp_alloc_rd_res(attr->max_dest_rd_atomic, &rd_res);
	if (err)
		return err;

	spin_lock_bh(&qp->lock);
	err = sroce_qp_commit_modify_locked(qp, attr, mask, cur, next, &av,
					    &rd_res);
	spin_unlock_bh(&qp->lock);
	kfree(rd_res);
	if (err)
		return err;

	if (next == IB_QPS_RTS || next == IB_QPS_ERR)
		sroce_tx_kick(qp);
	return 0;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	mutex_lock(&qp->modify_mutex);
	err = sroce_modify_qp_serialised(qp, attr, mask);
	mutex_unlock(&qp->modify_mutex);
	return err;
}

/*
 * The SQ is drained when every WQE the requester started has completed:
 * the completer caught up with the requester, and the WQE the requester
 * stands at (if it fetched one) has never sent a packet. A WQE rewound to
 * its first PSN is QUEUED again but still outstanding: psns_set tells.
 * In SQD it starts no new WQE, so once drained the SQ stays drained until RTS.
 */
static bool sroce_sq_drained_locked(struct sroce_qp *qp)
{
	const struct sroce_swqe *swqe;

	lockdep_assert_held(&qp->lock);
	if (qp->comp_index != qp->req_index)
		return false;
	if (qp->req_index == qp->sq.index)
		return true;
	swqe = &qp->swqes[qp->req_index & (qp->sq.depth - 1)];
	return !swqe->psns_set;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	spin_lock_bh(&qp->lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_psn = qp->req_psn;
	attr->rq_psn = qp->resp_psn;
	/* Draining: in SQD with sent work not yet complete (SQ_DRAINED pending). */
	attr->sq_draining = qp->state == IB_QPS_SQD && !sroce_sq_drained_locked(qp);
	spin_unlock_bh(&qp->lock);

	attr->cap.max_send_wr = qp->sq.depth;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.depth;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;

	memset(init, 0, sizeof(*init));
	init->qp_type = qp->ibqp.qp_type;
	init->send_cq = qp->ibqp.send_cq;
	init->recv_cq = qp->ibqp.recv_cq;
	init->srq = qp->ibqp.srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* Drop what the responder still holds and stop the timer. */
static void sroce_qp_quiesce(struct sroce_qp *qp)
{
	spin_lock_bh(&qp->lock);
	qp->state = IB_QPS_ERR;
	sroce_resp_reset_locked(qp);
	sroce_ud_sq_release_locked(qp);
	spin_unlock_bh(&qp->lock);
	del_timer_sync(&qp->retry_timer);
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	sroce_mcast_qp_destroy(qp);
	sroce_ud_qp_del(qp);
	sroce_qp_unpublish(qp);
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
	/*
	 * No reference left: neither the thread nor the receive path. The
	 * timer, which kicks without one, is synced before the QP is unlisted.
	 */
	sroce_qp_quiesce(qp);
	sroce_tx_del_qp(qp->sdev, qp);
	/* Its last completions' handler calls are done before the CQs can go. */
	sroce_cq_sync(qp->scq);
	sroce_cq_sync(qp->rcq);
	sroce_qp_free_memory(qp);
	/* A lookup may still be reading the handle; ib_core frees @qp now. */
	kfree_rcu(qp->handle, rcu);
	sroce_qp_count_put(qp);
	return 0;
}

/*
 * Unlocked peek after a doorbell's pass: is anything left that only the
 * thread would send - WQEs not yet fetched or not fully sent, READ
 * responses, a pending kick? A pass that sent everything (loopback: and
 * got it acknowledged) needs no thread wake-up where the thread does not
 * poll (one CPU, or every CPU busy). Where it polls, it is woken anyway:
 * awake beside the process it takes the next posts without doorbells. A stale answer costs
 * one wake-up; work that appears later is kicked by whoever creates it
 * (ACK, timer, READ request, the next doorbell).
 */
static bool sroce_qp_tx_left(struct sroce_qp *qp)
{
	return READ_ONCE(qp->tx_pending) ||
	       READ_ONCE(qp->req_index) != READ_ONCE(qp->sq.index) ||
	       READ_ONCE(qp->rd_res_head) != READ_ONCE(qp->rd_res_tail) ||
	       sroce_queue_available(&qp->sq) != 0;
}

/*
 * A process rings the doorbell with an empty work request list (see the
 * NEED_WAKEUP protocol in sroce-abi.h); its work requests themselves only
 * come through the ring. The doorbell runs the requester right here, in the
 * process that posted, which saves waking the transmit thread and a context
 * switch; the thread takes over what one pass leaves. Kernel consumers
 * pass work requests, which sroce_post.c writes into the ring.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (qp->kernel)
		return sroce_kpost_send(qp, wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	sroce_stat_inc(qp->sdev, SROCE_STAT_DOORBELLS);
	if (sroce_req_run(qp) && (sroce_tx_polls(qp->sdev) || sroce_qp_tx_left(qp)))
		sroce_tx_kick(qp);
	return 0;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (qp->kernel)
		return sroce_kpost_recv(qp, wr, bad_wr);
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/*
 * `rdma -dd resource show qp`: the protocol state behind the standard
 * fields, for diagnosing a QP that does not move. The tool prints driver
 * attributes only from inside an RDMA_NLDEV_ATTR_DRIVER nest.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct {
		const char *name;
		u32 value;
	} fields[11];
	struct nlattr *table;
	int i, n = 0;

	spin_lock_bh(&qp->lock);
	fields[n++] = (typeof(fields[0])){ "req_psn", qp->req_psn };
	fields[n++] = (typeof(fields[0])){ "comp_psn", qp->comp_psn };
	fields[n++] = (typeof(fields[0])){ "resp_psn", qp->resp_psn };
	fields[n++] = (typeof(fields[0])){ "sq_fetched", qp->sq.index };
	fields[n++] = (typeof(fields[0])){ "sq_sending", qp->req_index };
	fields[n++] = (typeof(fields[0])){ "sq_completed", qp->comp_index };
	fields[n++] = (typeof(fields[0])){ "rd_outstanding", qp->rd_outstanding };
	fields[n++] = (typeof(fields[0])){ "retry_left", qp->retry_left };
	fields[n++] = (typeof(fields[0])){ "rnr_wait", qp->rnr_wait };
	fields[n++] = (typeof(fields[0])){ "cwnd", qp->cwnd.cwnd };
	fields[n++] = (typeof(fields[0])){ "ssthresh", qp->cwnd.ssthresh };
	spin_unlock_bh(&qp->lock);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (rdma_nl_put_driver_u32(msg, fields[i].name, fields[i].value)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * Any context, qp->lock may be held: the uverbs handler only queues the
 * event under its own lock, and a kernel consumer's handler must not sleep
 * (IBA events arrive in interrupt context on hardware) nor modify or
 * destroy the QP from inside it.
 */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* Called on entering SQD and after every completion step. */
void sroce_qp_sqd_check_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state != IB_QPS_SQD || !qp->sqd_notify ||
	    !sroce_sq_drained_locked(qp))
		return;
	qp->sqd_notify = false;
	sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/*
 * A QP with an SRQ in the error state takes no more SRQ WQEs, and the one
 * it held was flushed just before: tell the owner once per stay in ERR, so
 * it knows every completion of the QP's SRQ WQEs is in its CQ (6.12's
 * ib_drain_qp() waits for this event before it polls).
 */
static void sroce_qp_srq_last_wqe_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (!qp->srq || qp->last_wqe_reported)
		return;
	qp->last_wqe_reported = true;
	sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * sroce_qp_error_locked - move a QP to the error state
 * @qp: the QP; qp->lock held
 *
 * Flushes what can be flushed now; the transmit thread flushes work posted
 * later (it keeps looking at rings of QPs in error). qp->lock held.
 */
void sroce_qp_error_locked(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->state = IB_QPS_ERR;
	/*
	 * Receives posted from now on need a doorbell to be flushed. Flag
	 * before the flush's look at the RQ; pairs with the fence in the
	 * provider's sroce_rq_wants_doorbell() between publishing a WQE and
	 * reading the flag: each side sees the other's store.
	 */
	WRITE_ONCE(qp->rq.hdr->flags, SROCE_RING_NEED_WAKEUP);
	smp_mb();
	del_timer(&qp->retry_timer);
	sroce_resp_reset_locked(qp);
	sroce_sq_flush_locked(qp);
	sroce_rq_flush_locked(qp);
	sroce_qp_srq_last_wqe_locked(qp);
}
