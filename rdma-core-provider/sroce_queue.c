// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_queue.c - mapping the shared rings and the completion-based slot
 * accounting of send and receive queues (see sroce_queue.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "sroce_queue.h"

int sroce_ring_map(struct sroce_ring *ring, int cmd_fd, uint64_t offset,
		   uint64_t size, uint32_t depth, uint32_t stride)
{
	void *map;

	memset(ring, 0, sizeof(*ring));
	if (!depth)
		return 0;
	if (size > SIZE_MAX || offset > (uint64_t)INT64_MAX)
		return EINVAL;

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   (off_t)offset);
	if (map == MAP_FAILED)
		return errno;

	ring->map = map;
	ring->map_size = size;
	ring->hdr = map;
	ring->entries = (uint8_t *)map + SROCE_RING_ENTRIES_OFFSET;
	ring->depth = depth;
	ring->stride = stride;
	return 0;
}

void sroce_ring_unmap(struct sroce_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_size);
	ring->map = NULL;
}

int sroce_wq_init(struct sroce_wq *wq, uint32_t max_sge)
{
	/*
	 * Start where the kernel left the index (normally 0): the producer
	 * index is ours from here on, and nothing is outstanding.
	 */
	wq->prod = wq->ring.depth ? wq->ring.hdr->producer : 0;
	wq->retired = wq->prod;
	wq->max_sge = max_sge;
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

void sroce_wq_fini(struct sroce_wq *wq)
{
	pthread_spin_destroy(&wq->lock);
	sroce_ring_unmap(&wq->ring);
}

/*
 * The poller of the queue's CQ is the usual writer of `retired`; a
 * compare-and-swap keeps it monotonic against sroce_wq_discard().
 */
bool sroce_wq_retire(struct sroce_wq *wq, uint32_t wqe_index)
{
	uint32_t retired = __atomic_load_n(&wq->retired, __ATOMIC_RELAXED);
	uint32_t prod;

	do {
		prod = __atomic_load_n(&wq->prod, __ATOMIC_RELAXED);
		/* Outstanding means retired <= wqe_index < prod, mod 2^32. */
		if (wqe_index - retired >= prod - retired)
			return false;
	} while (!__atomic_compare_exchange_n(&wq->retired, &retired,
					      wqe_index + 1, false,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return true;
}

void sroce_wq_discard(struct sroce_wq *wq)
{
	pthread_spin_lock(&wq->lock);
	__atomic_store_n(&wq->retired, wq->prod, __ATOMIC_RELEASE);
	pthread_spin_unlock(&wq->lock);
}
