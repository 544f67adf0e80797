/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cq.h - completion queues.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_queue.h"

/**
 * struct sroce_cq - a completion queue whose ring the process polls
 * @ibcq: ib_core's part
 * @lock: serialises producers (several QPs may share the CQ) and protects
 *	@notify and @overflowed; taken from softirq, so _bh/_irqsave users
 * @ring: CQE ring, kernel produces
 * @notify: 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED: armed by req_notify_cq,
 *	disarmed when the completion event fires
 * @overflowed: a CQE was lost; reported once per ring as IB_EVENT_CQ_ERR
 *	(resize_cq installs a new ring and clears it)
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct sroce_queue ring;
	u8 notify;
	bool overflowed;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/*
 * Write one completion; any context. Fires the completion handler if the CQ
 * is armed (for SOLICITED only when @solicited). Return: 0, or -ENOSPC when
 * the ring is full (the CQE is dropped and the CQ error event raised).
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);

/* ib_device_ops */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    sroce_create_cq_ctx_t *ctx);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);

#endif /* SROCE_CQ_H */
