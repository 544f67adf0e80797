/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cq.h - completion queues.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/atomic.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_queue.h"

/**
 * struct sroce_cq - a completion queue
 * @ibcq: ib_core's part
 * @lock: serialises producers (several QPs may share the CQ) and protects
 *	@notify and @overflowed, and for a kernel CQ poll_cq's consumer
 *	index; taken from softirq and with IRQs off, so always _irqsave
 * @ring: CQE ring, kernel produces; a process polls it in shared memory,
 *	a kernel consumer through poll_cq (never exported then)
 * @kqp: kernel CQs only (else NULL): the ib_qp of the CQE in each slot,
 *	which struct ib_wc carries and struct sroce_cqe does not
 * @comp_cpu: kernel CQs: the CPU of the CQ's comp_vector, where the
 *	completion handler runs, as a device's interrupt vector would run it
 * @comp_csd: calls the completion handler on @comp_cpu
 * @comp_remote: such calls queued or running; sroce_cq_sync() waits for 0
 * @notify: 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED: armed by req_notify_cq,
 *	disarmed when the completion event fires
 * @overflowed: a CQE was lost; reported once per ring as IB_EVENT_CQ_ERR
 *	(resize_cq installs a new ring and clears it)
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct sroce_queue ring;
	struct ib_qp **kqp;
	int comp_cpu;
	call_single_data_t comp_csd;
	atomic_t comp_remote;
	u8 notify;
	bool overflowed;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/*
 * Write one completion of @ibqp; any context. Fires the completion handler
 * if the CQ is armed (for SOLICITED only when @solicited). Return: 0, or
 * -ENOSPC when the ring is full (the CQE is dropped and the CQ error event
 * raised).
 */
int sroce_cq_post(struct sroce_cq *cq, struct ib_qp *ibqp,
		  const struct sroce_cqe *cqe, bool solicited);

/*
 * Wait until no completion handler call of @cq is on its way to another
 * CPU: after a QP's last completion, before the QP (and with it the
 * consumer's right to free the CQ) goes. Process context.
 */
void sroce_cq_sync(struct sroce_cq *cq);

/* ib_device_ops */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    sroce_create_cq_ctx_t *ctx);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);

#endif /* SROCE_CQ_H */
