/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_ring.h - index arithmetic for the rings shared by sroce.ko and
 * libsroce (send/receive queues, completion queues).
 *
 * The rules, which the kernel data path follows too:
 *
 * - A ring has `size` slots, size a power of two between 1 and 2^31.
 * - Two free-running __u32 indices: the producer owns `tail` (the next slot
 *   it will fill) and the consumer owns `head` (the next slot it will
 *   drain). Each side only ever adds to its own index and lets it wrap at
 *   2^32; neither is ever masked when stored.
 * - Entries in the ring = tail - head, computed modulo 2^32. Because size is
 *   at most 2^31 this difference is unambiguous: full (size) and empty (0)
 *   never collide, and a count above size can only come from a corrupt or
 *   hostile index.
 * - The slot of an index is index & (size - 1); since 2^32 is a multiple
 *   of size, wrapping the index at 2^32 keeps the slot sequence continuous.
 *
 * These helpers are pure index math: no memory barriers, no shared-memory
 * reads. Callers read the other side's index once (READ_ONCE / acquire),
 * check it with sroce_ring_indices_valid(), and only then use it.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#endif

#define SROCE_RING_MAX_SIZE (1U << 31)

/* True if size can back a ring under the rules above. */
static inline bool sroce_ring_size_valid(__u32 size)
{
	return size != 0 && size <= SROCE_RING_MAX_SIZE &&
	       (size & (size - 1)) == 0;
}

/* Entries produced and not yet consumed. */
static inline __u32 sroce_ring_count(__u32 head, __u32 tail)
{
	return tail - head;
}

/*
 * True if the pair could have been produced by following the rules; an
 * index taken from memory the other side can write must pass this before
 * sroce_ring_free() or a slot loop relies on it.
 */
static inline bool sroce_ring_indices_valid(__u32 head, __u32 tail,
					    __u32 size)
{
	return sroce_ring_count(head, tail) <= size;
}

/* Slots the producer may still fill; only meaningful for valid indices. */
static inline __u32 sroce_ring_free(__u32 head, __u32 tail, __u32 size)
{
	return size - sroce_ring_count(head, tail);
}

static inline bool sroce_ring_empty(__u32 head, __u32 tail)
{
	return head == tail;
}

static inline bool sroce_ring_full(__u32 head, __u32 tail, __u32 size)
{
	return sroce_ring_count(head, tail) == size;
}

/* Array position of a free-running index. */
static inline __u32 sroce_ring_slot(__u32 index, __u32 size)
{
	return index & (size - 1);
}

#endif /* SROCE_RING_H */
