/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_queue.h - the process's side of the shared rings: mapping them,
 * the barriers of the producer/consumer contract in sroce-abi.h, and the
 * completion-based slot accounting of send and receive queues.
 *
 * The index arithmetic itself is sroce_ring.h's; this file adds memory.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include "sroce.h"
#include "sroce_qp_state.h"
#include "sroce_ring.h"

/* Producer: entries are written, then the index is published. */
static inline void sroce_store_release(__u32 *index, uint32_t value)
{
	__atomic_store_n(index, value, __ATOMIC_RELEASE);
}

/* Consumer: the index is read, then the entries below it. */
static inline uint32_t sroce_load_acquire(const __u32 *index)
{
	return __atomic_load_n(index, __ATOMIC_ACQUIRE);
}

static inline void *sroce_ring_entry(const struct sroce_ring *ring,
				     uint32_t index)
{
	return ring->entries +
	       (size_t)sroce_ring_slot(index, ring->depth) * ring->stride;
}

/*
 * Maps a ring the kernel described; an absent queue (depth 0) maps
 * nothing. Returns 0 or an errno.
 */
int sroce_ring_map(struct sroce_ring *ring, int cmd_fd, uint64_t offset,
		   uint64_t size, uint32_t depth, uint32_t stride);
void sroce_ring_unmap(struct sroce_ring *ring);

/* Slots the producer may fill now; call with wq->lock held. */
static inline uint32_t sroce_wq_free(const struct sroce_wq *wq,
				     uint32_t prod)
{
	uint32_t retired = __atomic_load_n(&wq->retired, __ATOMIC_ACQUIRE);

	return sroce_ring_free(retired, prod, wq->ring.depth);
}

/* Publishes [wq->prod, prod) to the kernel; call with wq->lock held. */
static inline void sroce_wq_publish(struct sroce_wq *wq, uint32_t prod)
{
	sroce_store_release(&wq->ring.hdr->producer, prod);
	__atomic_store_n(&wq->prod, prod, __ATOMIC_RELAXED);
}

/*
 * May post_send queue work now? Two relaxed loads, no syscall; the rules
 * and why they never refuse wrongly are in sroce_qp_state.h.
 */
static inline bool sroce_qp_takes_sends(const struct sroce_qp *qp)
{
	int state = __atomic_load_n(&qp->state, __ATOMIC_RELAXED);
	uint32_t rq_flags = __atomic_load_n(&qp->rq.ring.hdr->flags,
					    __ATOMIC_RELAXED);

	return sroce_qp_state_takes_sends((enum ibv_qp_state)state,
					  rq_flags & SROCE_RING_NEED_WAKEUP);
}

int sroce_wq_init(struct sroce_wq *wq, uint32_t max_sge);
void sroce_wq_fini(struct sroce_wq *wq);

/*
 * A CQE says wqe_index and everything before it on wq are complete.
 * Returns false (and changes nothing) if wqe_index is not outstanding.
 */
bool sroce_wq_retire(struct sroce_wq *wq, uint32_t wqe_index);

/* Forgets every outstanding WQE: the QP went to RESET. */
void sroce_wq_discard(struct sroce_wq *wq);

#endif /* SROCE_QUEUE_H */
