/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_queue.h - rings shared with userspace (SQ, RQ, CQ).
 *
 * The layout and the ownership rules are in include/uapi/rdma/sroce-abi.h.
 * This is the kernel's half: allocation, export through mmap, and the
 * consumer/producer steps that read the other side's index exactly once and
 * never trust it.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

/**
 * struct sroce_queue - one shared ring
 * @hdr: start of the vmalloc memory the process maps
 * @entries: first entry, SROCE_RING_ENTRIES_OFFSET bytes after @hdr
 * @depth: entries, a power of two
 * @stride: bytes per entry, a power of two
 * @size: bytes of the whole mapping (page aligned)
 * @index: the kernel's own position, never read back from shared memory:
 *	the consumer index for SQ/RQ, the producer index for a CQ
 * @mmap_entry: the mapping's cookie; NULL until exported
 */
struct sroce_queue {
	struct sroce_ring_hdr *hdr;
	void *entries;
	u32 depth;
	u32 stride;
	size_t size;
	u32 index;
	struct rdma_user_mmap_entry *mmap_entry;
};

int sroce_queue_init(struct sroce_queue *q, u32 depth, u32 stride);
void sroce_queue_destroy(struct sroce_queue *q);
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       u64 *mmap_offset);

/* The slot of a free-running index. */
static inline void *sroce_queue_slot(struct sroce_queue *q, u32 index)
{
	return q->entries + (size_t)(index & (q->depth - 1)) * q->stride;
}

/*
 * Consumer side (SQ, RQ): how many entries the producer has published
 * beyond our index, or -EOVERFLOW when its index is further ahead than the
 * ring can hold (a corrupt or hostile producer). Acquire: entries below the
 * returned count are safe to read.
 */
int sroce_queue_available(struct sroce_queue *q);
/* Consumer side: we are done with @n entries; publish our new index. */
void sroce_queue_consume(struct sroce_queue *q, u32 n);
/* Consumer side: skip to the producer's index, for QP RESET. */
void sroce_queue_discard_all(struct sroce_queue *q);

/*
 * Producer side (CQ): the slot to fill next, or NULL when the consumer has
 * not freed one (the ring is full). Publish with sroce_queue_produce().
 */
void *sroce_queue_next_free(struct sroce_queue *q);
void sroce_queue_produce(struct sroce_queue *q);
/* Producer side: has the consumer not yet released everything we produced? */
bool sroce_queue_pending(struct sroce_queue *q);

/* ib_device_ops.mmap and .mmap_free */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SROCE_QUEUE_H */
