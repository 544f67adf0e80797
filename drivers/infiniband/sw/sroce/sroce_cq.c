// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_cq.c - completion queues.
 *
 * A CQ is a ring the kernel produces into (sroce-abi.h). A process polls
 * it in shared memory; ibv_poll_cq never enters the kernel. A kernel
 * consumer's CQ (udata == NULL) has the same ring, never exported, and
 * poll_cq reads it under cq->lock and turns each sroce_cqe into an ib_wc:
 * the engine that writes completions does not know which kind it feeds.
 *
 * Completion vectors. A kernel CQ's handler runs on the CPU of its
 * comp_vector (the vector-th online CPU at creation), in hard interrupt
 * context through an irq_work when the completion is written elsewhere:
 * what a device's interrupt vector would do, so ULPs that spread their
 * queues over num_comp_vectors (= online CPUs) spread their completion
 * work too. A user CQ's handler (uverbs' event queue) runs in place.
 *
 * Handlers. The completion and event handlers are called after cq->lock is
 * dropped. uverbs' handlers would be safe under it (they only take their
 * own event-queue lock), but a kernel consumer's completion handler may
 * re-arm the CQ at once, and req_notify_cq takes cq->lock. Deciding under
 * the lock and calling outside it loses nothing: the CQ is disarmed under
 * the lock, so one arm yields at most one call. A call for another CPU is
 * queued under the lock (nothing waits for it there) and runs there later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/smp.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_cq.h"

static int sroce_cq_check_attr(struct ib_device *ibdev,
			       const struct ib_cq_init_attr *attr)
{
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SROCE_MAX_CQE)
		return -EINVAL;
	if (attr->comp_vector >= ibdev->num_comp_vectors)
		return -EINVAL;
	return 0;
}

/* Bound the number of CQs, and with it the ring memory one process pins. */
static int sroce_cq_count_get(struct sroce_dev *sdev)
{
	return sroce_obj_count_get(&sdev->num_cq, SROCE_MAX_CQ);
}

static void sroce_cq_count_put(struct sroce_dev *sdev)
{
	sroce_obj_count_put(&sdev->num_cq);
}

static int sroce_cq_respond(const struct sroce_queue *ring,
			    struct ib_udata *udata, u64 mmap_offset)
{
	struct sroce_create_cq_resp resp = {
		.mmap_offset = mmap_offset,
		.mmap_size = ring->size,
		.depth = ring->depth,
	};

	/* An older provider may know a shorter response: send what fits. */
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/* A user CQ: map the ring into the process and say where. */
static int sroce_cq_export(struct sroce_cq *cq, struct ib_udata *udata)
{
	struct sroce_ucontext *uctx;
	u64 mmap_offset;
	int err;

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	err = sroce_queue_export(&cq->ring, &uctx->ibuc, &mmap_offset);
	if (err)
		return err;
	return sroce_cq_respond(&cq->ring, udata, mmap_offset);
}

/* On comp_cpu, in hard interrupt context. */
static void sroce_cq_comp_remote(void *info)
{
	struct sroce_cq *cq = info;

	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	/*
	 * Release: the handler is done with the CQ before sync sees 0; pairs
	 * with the acquire in sroce_cq_sync().
	 */
	atomic_dec_return_release(&cq->comp_remote);
}

void sroce_cq_sync(struct sroce_cq *cq)
{
	/*
	 * Acquire: pairs with sroce_cq_comp_remote()'s release. The IPI runs
	 * promptly.
	 */
	while (atomic_read_acquire(&cq->comp_remote))
		cpu_relax();
}

static int sroce_cq_init_kernel(struct sroce_cq *cq, u32 comp_vector)
{
	cq->kqp = kvcalloc(cq->ring.depth, sizeof(*cq->kqp), GFP_KERNEL);
	if (!cq->kqp)
		return -ENOMEM;
	cq->comp_cpu = cpumask_local_spread(comp_vector, NUMA_NO_NODE);
	INIT_CSD(&cq->comp_csd, sroce_cq_comp_remote, cq);
	return 0;
}

/**
 * sroce_create_cq - ib_device_ops.create_cq
 * @ibcq: the CQ ib_core allocated at sizeof(struct sroce_cq)
 * @attr: requested size, completion vector, flags
 * @ctx: the call's udata (6.1) or attribute bundle (6.10+)
 *
 * The ring gets the next power of two at or above cqe, and ibcq->cqe
 * reports all of it: the CQ overflows exactly when more than ibcq->cqe
 * completions are waiting.
 * Return: 0, -EOPNOTSUPP for CQ flags, -EINVAL for a bad size, vector or
 * request data, -ENOMEM, or a copy-out error.
 */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    sroce_create_cq_ctx_t *ctx)
{
	struct ib_udata *udata = sroce_create_cq_udata(ctx);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	err = sroce_cq_check_attr(ibcq->device, attr);
	if (err)
		return err;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	err = sroce_cq_count_get(sdev);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->notify = 0;
	cq->overflowed = false;
	cq->kqp = NULL;
	atomic_set(&cq->comp_remote, 0);
	err = sroce_queue_init(&cq->ring, roundup_pow_of_two(attr->cqe),
			       sizeof(struct sroce_cqe));
	if (err)
		goto err_count_put;
	err = udata ? sroce_cq_export(cq, udata) :
		      sroce_cq_init_kernel(cq, attr->comp_vector);
	if (err)
		goto err_destroy_ring;

	ibcq->cqe = cq->ring.depth;
	return 0;

err_destroy_ring:
	sroce_queue_destroy(&cq->ring);
err_count_put:
	sroce_cq_count_put(sdev);
	return err;
}

/*
 * ib_device_ops.destroy_cq. ib_core refuses while a QP still uses the CQ,
 * and a QP's destroy fences its data path, so no sroce_cq_post() runs here.
 * The ring memory lives on while the process still maps it.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	/* A handler call on its way to another CPU ends first. */
	sroce_cq_sync(cq);
	sroce_queue_destroy(&cq->ring);
	kvfree(cq->kqp);
	sroce_cq_count_put(to_sdev(ibcq->device));
	return 0;
}

/*
 * Move the CQEs the process has not released from @old into @new, keeping
 * their free-running indices: the process's private consumer position
 * stays valid across the move, and entries it polls from the old mapping
 * in the meantime are simply skipped in the new one. The consumer index is
 * read once and distrusted: one further behind than the old ring holds
 * cannot be honest. Return: 0, or -EINVAL if there are more than @cqe.
 */
static int sroce_cq_move_cqes(struct sroce_queue *new, struct sroce_queue *old,
			      u32 cqe)
{
	/*
	 * Acquire: pairs with the process's store-release of the consumer
	 * index after reading entries (rdma-core-provider/sroce_poll.c).
	 */
	u32 consumer = smp_load_acquire(&old->hdr->consumer);
	u32 pending = old->index - consumer;
	u32 i;

	if (pending > old->depth || pending > cqe)
		return -EINVAL;
	for (i = consumer; i != old->index; i++)
		memcpy(sroce_queue_slot(new, i), sroce_queue_slot(old, i),
		       sizeof(struct sroce_cqe));
	new->index = old->index;
	new->hdr->consumer = consumer;
	/*
	 * Release: the entries are in place before the process sees them;
	 * pairs with the load-acquire of the producer index in the
	 * provider's sroce_cq_ready() (rdma-core-provider/sroce_poll.c). A
	 * kernel CQ's poll_cq reads ring->index under cq->lock, as here.
	 */
	smp_store_release(&new->hdr->producer, new->index);
	return 0;
}

/* Swap in @new under the lock; on success @new holds the old ring. */
static int sroce_cq_swap_ring(struct sroce_cq *cq, struct sroce_queue *new,
			      u32 cqe)
{
	struct sroce_queue old;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	err = sroce_cq_move_cqes(new, &cq->ring, cqe);
	if (!err) {
		old = cq->ring;
		cq->ring = *new;
		*new = old;
		cq->ibcq.cqe = cq->ring.depth;
		/* A new ring: its first overflow is news again. */
		cq->overflowed = false;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return err;
}

/**
 * sroce_resize_cq - ib_device_ops.resize_cq
 * @ibcq: the CQ
 * @cqe: the smallest number of entries the CQ must hold afterwards
 * @udata: answered with struct sroce_create_cq_resp for the new ring
 *
 * A new ring is allocated and exported, the answer written, and only then,
 * under cq->lock, the unpolled CQEs move over and the new ring replaces the
 * old one (sroce-abi.h, "Resizing a CQ"). The old ring's mmap entry is
 * removed; its memory lives until the process unmaps it.
 * Return: 0, -EINVAL for a bad size or more unpolled CQEs than @cqe,
 * -ENOMEM, or a copy-out error; on error the CQ is unchanged.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_ucontext *uctx;
	struct sroce_queue ring;
	u64 mmap_offset;
	int err;

	if (!udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return -EINVAL;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);

	err = sroce_queue_init(&ring, roundup_pow_of_two(cqe),
			       sizeof(struct sroce_cqe));
	if (err)
		return err;
	err = sroce_queue_export(&ring, &uctx->ibuc, &mmap_offset);
	if (err)
		goto out_destroy;
	err = sroce_cq_respond(&ring, udata, mmap_offset);
	if (err)
		goto out_destroy;
	err = sroce_cq_swap_ring(cq, &ring, cqe);
out_destroy:
	/* The new ring on failure, the old one on success. */
	sroce_queue_destroy(&ring);
	return err;
}

/* Should this completion fire the armed handler? Disarms if so. */
static bool sroce_cq_disarm(struct sroce_cq *cq, bool solicited)
{
	lockdep_assert_held(&cq->lock);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		return true;
	}
	return false;
}

static void sroce_cq_report_overflow(struct sroce_cq *cq)
{
	struct ib_event event = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	ibdev_warn_ratelimited(cq->ibcq.device,
			       "CQ %u overflowed, completions lost\n",
			       cq->ibcq.res.id);
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
}

/*
 * Send a kernel CQ's handler call to its CPU. Return: false if it must be
 * made here instead (this is that CPU, or that CPU is offline: preemption
 * is off from the check to the queueing, so it cannot go in between).
 * Under cq->lock: the one csd may not be queued from two CPUs at once.
 */
static bool sroce_cq_fire_remote_locked(struct sroce_cq *cq)
{
	bool sent = false;
	int cpu;

	lockdep_assert_held(&cq->lock);
	cpu = get_cpu();
	if (cq->comp_cpu != cpu && cpu_online(cq->comp_cpu)) {
		atomic_inc(&cq->comp_remote);
		/* Busy: a call not yet started will see this CQE too. */
		if (smp_call_function_single_async(cq->comp_cpu, &cq->comp_csd))
			atomic_dec(&cq->comp_remote);
		sent = true;
	}
	put_cpu();
	return sent;
}

/*
 * Any context. Producers are serialised by cq->lock (several QPs may share
 * one CQ); irqsave because callers may run in softirq or with IRQs off.
 */
int sroce_cq_post(struct sroce_cq *cq, struct ib_qp *ibqp,
		  const struct sroce_cqe *cqe, bool solicited)
{
	bool first_overflow, fire;
	unsigned long flags;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	slot = sroce_queue_next_free(&cq->ring);
	if (!slot) {
		first_overflow = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first_overflow)
			sroce_cq_report_overflow(cq);
		return -ENOSPC;
	}
	memcpy(slot, cqe, sizeof(*cqe));
	if (cq->kqp)
		cq->kqp[cq->ring.index & (cq->ring.depth - 1)] = ibqp;
	sroce_queue_produce(&cq->ring);
	fire = sroce_cq_disarm(cq, solicited) && cq->ibcq.comp_handler;
	if (fire && cq->kqp && sroce_cq_fire_remote_locked(cq))
		fire = false;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

/*
 * ib_device_ops.req_notify_cq; may not sleep. NEXT_COMP is the wider arm
 * and is not narrowed by a later SOLICITED request. Returns 1 when asked to
 * report missed events and completions are waiting in the ring, so the
 * caller polls again instead of waiting for an event that may not come.
 */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    sroce_queue_pending(&cq->ring))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/* The ib_wc flags of a CQE's SROCE_WC_* flags. */
static int sroce_wc_flags(u32 flags)
{
	return (flags & SROCE_WC_WITH_IMM ? IB_WC_WITH_IMM : 0) |
	       (flags & SROCE_WC_WITH_INV ? IB_WC_WITH_INVALIDATE : 0) |
	       (flags & SROCE_WC_GRH ? IB_WC_GRH : 0);
}

/* A UD receive's network header type and VLAN (sroce-abi.h). */
static void sroce_cqe_to_wc_network(const struct sroce_cqe *cqe,
				    struct ib_wc *wc)
{
	if (!(cqe->wc_flags & SROCE_WC_GRH))
		return;
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	wc->network_hdr_type = cqe->wc_flags & SROCE_WC_NET_IPV4 ?
			       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	if (cqe->wc_flags & SROCE_WC_WITH_VLAN) {
		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = cqe->vlan_id;
	}
}

/*
 * The engine writes enum ib_wc_status and ib_wc_opcode values into CQEs
 * (they are libibverbs' too, sroce-abi.h); a kernel consumer gets them as
 * they are.
 */
static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ib_qp *ibqp,
			    struct ib_wc *wc)
{
	BUILD_BUG_ON((int)SROCE_WC_RECV != (int)IB_WC_RECV ||
		     (int)SROCE_WC_RECV_RDMA_WITH_IMM !=
		     (int)IB_WC_RECV_RDMA_WITH_IMM ||
		     (int)SROCE_WC_FETCH_ADD != (int)IB_WC_FETCH_ADD ||
		     (int)SROCE_WC_LOCAL_INV != (int)IB_WC_LOCAL_INV);
	memset(wc, 0, sizeof(*wc));
	/* wr_cqe shares wr_id's storage: either comes back as posted. */
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = ibqp;
	if (cqe->wc_flags & SROCE_WC_WITH_INV)
		wc->ex.invalidate_rkey = cqe->invalidated_rkey;
	else
		wc->ex.imm_data = cqe->imm_data;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = sroce_wc_flags(cqe->wc_flags);
	sroce_cqe_to_wc_network(cqe, wc);
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	wc->port_num = 1;
}

/**
 * sroce_poll_cq - ib_device_ops.poll_cq, for kernel CQs
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: filled with the oldest completions
 *
 * Any context (ib_core polls from softirq, workqueues and the caller's own
 * context; ULPs with IRQs off). A user CQ is polled by its process in
 * shared memory, never here.
 * Return: the number of completions written.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *ring = &cq->ring;
	unsigned long flags;
	u32 consumer;
	int n = 0;

	if (!cq->kqp)
		return 0;
	spin_lock_irqsave(&cq->lock, flags);
	/* Only poll_cq moves a kernel ring's consumer, under cq->lock. */
	consumer = ring->hdr->consumer;
	while (n < num_entries && consumer != ring->index) {
		sroce_cqe_to_wc(sroce_queue_slot(ring, consumer),
				cq->kqp[consumer & (ring->depth - 1)], &wc[n]);
		consumer++;
		n++;
	}
	/* Release: pairs with sroce_queue_next_free()'s acquire. */
	smp_store_release(&ring->hdr->consumer, consumer);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
