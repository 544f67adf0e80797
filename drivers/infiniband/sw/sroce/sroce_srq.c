// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_srq.c - shared receive queues: the verbs, kernel posting, and the
 * responders' side, taking a WQE for whichever attached QP needs one.
 *
 * The ring is an RQ ring (sroce-abi.h, "Shared receive queues"); what is
 * shared is its consumer side. Responders of different QPs run under
 * different QP locks, on any CPU, so srq->lock makes each take - copy,
 * consume, limit check - one step; it is held for one WQE's copy at most.
 * The limit event is delivered after the lock is dropped (still under the
 * taking QP's lock, as QP events are: uverbs only queues it).
 *
 * SRQ WQEs belong to the SRQ until a QP takes one: a QP going to the error
 * state flushes the WQE it holds, never the ring. ib_core refuses
 * destroy_srq while a QP uses the SRQ (-EBUSY), so no responder can be
 * inside the ring when it goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_post.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_srq.h"

#define SROCE_SRQ_WQE_HDR_BYTES	sizeof(struct sroce_recv_wqe)

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Posted and not yet taken; srq->lock held. A hostile producer index only
 * makes its own SRQ's event early or late.
 */
static u32 sroce_srq_posted_locked(struct sroce_srq *srq)
{
	int avail;

	lockdep_assert_held(&srq->lock);
	avail = sroce_queue_available(&srq->rq);
	return avail > 0 ? avail : 0;
}

int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *rwqe)
{
	bool limit_reached = false;
	int err;

	spin_lock_bh(&srq->lock);
	err = sroce_rwqe_take(&srq->rq, srq->max_sge, rwqe);
	if (err != -EAGAIN && err != -EOVERFLOW && srq->limit &&
	    sroce_srq_posted_locked(srq) < srq->limit) {
		/* Once per arming: modify_srq arms it again. */
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock_bh(&srq->lock);
	if (limit_reached)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

static int sroce_srq_check_init(const struct ib_srq_init_attr *init,
				struct ib_udata *udata)
{
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (init->attr.max_wr > SROCE_MAX_SRQ_WR ||
	    init->attr.max_sge > SROCE_MAX_SGE)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/* The ring as the caps ask, rounded up; @init reports what it got. */
static int sroce_srq_alloc_ring(struct sroce_srq *srq,
				struct ib_srq_init_attr *init)
{
	u32 body = max_t(u32, init->attr.max_sge, 1) * sizeof(struct sroce_sge);
	u32 stride = roundup_pow_of_two(SROCE_SRQ_WQE_HDR_BYTES + body);
	u32 depth = roundup_pow_of_two(max(init->attr.max_wr, 1U));
	int err;

	err = sroce_queue_init(&srq->rq, depth, stride);
	if (err)
		return err;
	srq->max_sge = min_t(u32, SROCE_MAX_SGE,
			     (stride - SROCE_SRQ_WQE_HDR_BYTES) /
			     sizeof(struct sroce_sge));
	init->attr.max_wr = depth;
	init->attr.max_sge = srq->max_sge;
	return 0;
}

static int sroce_srq_export(struct sroce_srq *srq, struct ib_udata *udata)
{
	struct sroce_ucontext *uctx = rdma_udata_to_drv_context(udata,
					struct sroce_ucontext, ibuc);
	struct sroce_create_srq_resp resp = {
		.mmap_size = srq->rq.size,
		.depth = srq->rq.depth,
		.stride = srq->rq.stride,
	};
	int err;

	err = sroce_queue_export(&srq->rq, &uctx->ibuc, &resp.mmap_offset);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int err;

	err = sroce_srq_check_init(init, udata);
	if (err)
		return err;
	/* max_srq as advertised: the next one fails before allocating. */
	err = sroce_obj_count_get(&sdev->num_srq, SROCE_MAX_SRQ);
	if (err)
		return err;
	spin_lock_init(&srq->post_lock);
	spin_lock_init(&srq->lock);
	srq->kernel = !udata;
	/* IBA: the limit is armed by modify_srq only; srq_limit is ignored. */
	srq->limit = 0;
	err = sroce_srq_alloc_ring(srq, init);
	if (err)
		goto err_count;
	if (udata) {
		err = sroce_srq_export(srq, udata);
		if (err)
			goto err_ring;
	}
	return 0;

err_ring:
	sroce_queue_destroy(&srq->rq);
err_count:
	sroce_obj_count_put(&sdev->num_srq);
	return err;
}

/*
 * IB_SRQ_LIMIT arms (or, with 0, disarms) the limit event. IB_SRQ_MAX_WR
 * would resize a ring other QPs' responders read without their QP locks
 * and the process writes without the kernel: refused.
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.depth)
		return -EINVAL;
	spin_lock_bh(&srq->lock);
	srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = srq->rq.depth;
	attr->max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_queue_destroy(&srq->rq);
	sroce_obj_count_put(&to_sdev(ibsrq->device)->num_srq);
	return 0;
}

/*
 * Kernel consumers, any context: the WQEs go into the ring as a process
 * would write them. No doorbell: responders look at the ring when a
 * message needs a WQE, and an RNR-NAKed sender retries by itself.
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	u32 producer;
	int err;

	if (!srq->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->post_lock, flags);
	producer = sroce_kpost_recv_wqes(&srq->rq, srq->max_sge, wr, bad_wr,
					 &err);
	/* Release: the WQEs before the index; pairs with the take's acquire. */
	smp_store_release(&srq->rq.hdr->producer, producer);
	spin_unlock_irqrestore(&srq->post_lock, flags);
	return err;
}
