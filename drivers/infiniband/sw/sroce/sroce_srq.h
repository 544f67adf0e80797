/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_srq.h - shared receive queues.
 *
 * An SRQ is one receive ring (sroce_queue, the layout of an RQ) that every
 * QP created with it takes receive WQEs from. Its producer is the process
 * (the ring is mapped) or, for a kernel SRQ, post_srq_recv under
 * @post_lock. Its consumers are the responders of all attached QPs, each
 * under its own qp->lock, possibly in softirq on several CPUs at once: so
 * the consumer side - the ring's consumer index and the limit - has a lock
 * of its own, @lock, taken inside qp->lock (order: qp->lock -> srq->lock).
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce_queue.h"

struct sroce_rwqe;

/**
 * struct sroce_srq - a shared receive queue
 * @ibsrq: ib_core's part
 * @kernel: created by a kernel consumer: the ring is never mapped
 * @max_sge: SGEs a WQE may carry (what fits in the stride)
 * @post_lock: kernel SRQs: serialises post_srq_recv (producer); irqsave
 * @lock: the consumer side: @rq.index, the consumer word, @limit; taken
 *	with bottom halves off, inside the taking QP's qp->lock
 * @rq: the ring
 * @limit: armed SRQ limit, 0 when disarmed
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	bool kernel;
	u32 max_sge;
	spinlock_t post_lock;
	spinlock_t lock;
	struct sroce_queue rq;
	u32 limit;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

/*
 * Take the next WQE into @rwqe for a QP that holds its own lock; any
 * attached QP, any CPU. Return: as sroce_rwqe_take() (sroce_proto.h).
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_rwqe *rwqe);

/* ib_device_ops */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

#endif /* SROCE_SRQ_H */
