// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the kernel's producer and consumer steps on a shared ring, against
 * the index values a hostile process could write. The queue is allocated
 * but never exported, so no ucontext is needed.
 */
#include <kunit/test.h>

#include "sroce_queue.h"

#define TEST_DEPTH	8
#define TEST_STRIDE	64

static int sroce_queue_test_init(struct kunit *test)
{
	struct sroce_queue *q;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, sroce_queue_init(q, TEST_DEPTH, TEST_STRIDE), 0);
	test->priv = q;
	return 0;
}

static void sroce_queue_test_exit(struct kunit *test)
{
	sroce_queue_destroy(test->priv);
}

/* Both sides' indices at @index, as after that many entries went through. */
static void sroce_queue_test_start_at(struct sroce_queue *q, u32 index)
{
	q->index = index;
	q->hdr->producer = index;
	q->hdr->consumer = index;
}

static void sroce_queue_init_lays_out_ring(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	KUNIT_EXPECT_EQ(test, q->depth, (u32)TEST_DEPTH);
	KUNIT_EXPECT_EQ(test, q->stride, (u32)TEST_STRIDE);
	KUNIT_EXPECT_PTR_EQ(test, q->entries,
			    (void *)q->hdr + SROCE_RING_ENTRIES_OFFSET);
	KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(q->size));
	KUNIT_EXPECT_GE(test, q->size, (size_t)SROCE_RING_ENTRIES_OFFSET +
					TEST_DEPTH * TEST_STRIDE);
	KUNIT_EXPECT_EQ(test, q->hdr->producer, 0U);
	KUNIT_EXPECT_EQ(test, q->hdr->consumer, 0U);
	KUNIT_EXPECT_EQ(test, q->hdr->flags, 0U);
	KUNIT_EXPECT_NULL(test, q->mmap_entry);
}

static void sroce_queue_init_rejects_bad_geometry(struct kunit *test)
{
	struct sroce_queue bad = {};

	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 0, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 6, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 8, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 8, 48), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 1U << 31, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_queue_init(&bad, 1U << 30, 1U << 31),
			-EINVAL);
}

static void sroce_queue_slot_masks_free_running_index(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_slot(q, 0), q->entries);
	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_slot(q, TEST_DEPTH), q->entries);
	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_slot(q, 0xffffffff),
			    q->entries + (TEST_DEPTH - 1) * TEST_STRIDE);
}

static void sroce_queue_available_counts_published_entries(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 0);
	q->hdr->producer = 3;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 3);
	q->hdr->producer = TEST_DEPTH;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), TEST_DEPTH);
}

static void sroce_queue_available_rejects_hostile_producer(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	sroce_queue_test_start_at(q, 100);
	/* One more than the ring holds. */
	q->hdr->producer = 100 + TEST_DEPTH + 1;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), -EOVERFLOW);
	/* Behind our index: as far ahead as u32 arithmetic goes. */
	q->hdr->producer = 99;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), -EOVERFLOW);
	q->hdr->producer = 0x80000000;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), -EOVERFLOW);
	q->hdr->producer = 0xffffffff;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), -EOVERFLOW);
	/* A bad read changes nothing: an honest value works again. */
	KUNIT_EXPECT_EQ(test, q->index, 100U);
	q->hdr->producer = 102;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 2);
}

static void sroce_queue_available_wraps_at_2_32(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	sroce_queue_test_start_at(q, 0xfffffffe);
	q->hdr->producer = 2;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 4);

	sroce_queue_consume(q, 3);
	KUNIT_EXPECT_EQ(test, q->index, 1U);
	KUNIT_EXPECT_EQ(test, q->hdr->consumer, 1U);
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 1);

	q->hdr->producer = 1 + TEST_DEPTH + 1;
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), -EOVERFLOW);
}

static void sroce_queue_consume_publishes_consumer(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	q->hdr->producer = 5;
	sroce_queue_consume(q, 2);
	KUNIT_EXPECT_EQ(test, q->hdr->consumer, 2U);
	KUNIT_EXPECT_EQ(test, sroce_queue_available(q), 3);
	/* Our index never comes from shared memory. */
	q->hdr->consumer = 77;
	sroce_queue_consume(q, 3);
	KUNIT_EXPECT_EQ(test, q->index, 5U);
	KUNIT_EXPECT_EQ(test, q->hdr->consumer, 5U);
}

static void sroce_queue_next_free_until_full(struct kunit *test)
{
	struct sroce_queue *q = test->priv;
	u32 i;

	for (i = 0; i < TEST_DEPTH; i++) {
		void *slot = sroce_queue_next_free(q);

		KUNIT_ASSERT_PTR_EQ(test, slot, sroce_queue_slot(q, i));
		sroce_queue_produce(q);
		KUNIT_EXPECT_EQ(test, q->hdr->producer, i + 1);
	}
	KUNIT_EXPECT_NULL(test, sroce_queue_next_free(q));
	KUNIT_EXPECT_TRUE(test, sroce_queue_pending(q));

	/* The consumer frees one slot: exactly one more fits. */
	q->hdr->consumer = 1;
	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_next_free(q),
			    sroce_queue_slot(q, TEST_DEPTH));
	sroce_queue_produce(q);
	KUNIT_EXPECT_NULL(test, sroce_queue_next_free(q));
}

static void sroce_queue_next_free_empty_after_consumer_catches_up(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	KUNIT_EXPECT_FALSE(test, sroce_queue_pending(q));
	sroce_queue_produce(q);
	sroce_queue_produce(q);
	KUNIT_EXPECT_TRUE(test, sroce_queue_pending(q));
	q->hdr->consumer = 2;
	KUNIT_EXPECT_FALSE(test, sroce_queue_pending(q));
	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_next_free(q),
			    sroce_queue_slot(q, 2));
}

static void sroce_queue_next_free_rejects_hostile_consumer(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	sroce_queue_test_start_at(q, 50);
	/* Claims to have consumed entries we never produced. */
	q->hdr->consumer = 51;
	KUNIT_EXPECT_NULL(test, sroce_queue_next_free(q));
	q->hdr->consumer = 50 - TEST_DEPTH - 1;
	KUNIT_EXPECT_NULL(test, sroce_queue_next_free(q));
	q->hdr->consumer = 0x80000000;
	KUNIT_EXPECT_NULL(test, sroce_queue_next_free(q));
	/* Nothing was produced while it lied. */
	KUNIT_EXPECT_EQ(test, q->index, 50U);
	q->hdr->consumer = 50;
	KUNIT_EXPECT_NOT_NULL(test, sroce_queue_next_free(q));
}

static void sroce_queue_next_free_wraps_at_2_32(struct kunit *test)
{
	struct sroce_queue *q = test->priv;

	sroce_queue_test_start_at(q, 0xfffffffc);
	q->hdr->consumer = 0xfffffffc;
	while (sroce_queue_next_free(q))
		sroce_queue_produce(q);
	KUNIT_EXPECT_EQ(test, q->index, 0xfffffffcU + TEST_DEPTH);
	KUNIT_EXPECT_EQ(test, q->hdr->producer, 4U);
	q->hdr->consumer = 2;
	KUNIT_EXPECT_PTR_EQ(test, sroce_queue_next_free(q),
			    sroce_queue_slot(q, 4));
}

static struct kunit_case sroce_queue_cases[] = {
	KUNIT_CASE(sroce_queue_init_lays_out_ring),
	KUNIT_CASE(sroce_queue_init_rejects_bad_geometry),
	KUNIT_CASE(sroce_queue_slot_masks_free_running_index),
	KUNIT_CASE(sroce_queue_available_counts_published_entries),
	KUNIT_CASE(sroce_queue_available_rejects_hostile_producer),
	KUNIT_CASE(sroce_queue_available_wraps_at_2_32),
	KUNIT_CASE(sroce_queue_consume_publishes_consumer),
	KUNIT_CASE(sroce_queue_next_free_until_full),
	KUNIT_CASE(sroce_queue_next_free_empty_after_consumer_catches_up),
	KUNIT_CASE(sroce_queue_next_free_rejects_hostile_consumer),
	KUNIT_CASE(sroce_queue_next_free_wraps_at_2_32),
	{}
};

static struct kunit_suite sroce_queue_suite = {
	.name = "sroce_queue",
	.init = sroce_queue_test_init,
	.exit = sroce_queue_test_exit,
	.test_cases = sroce_queue_cases,
};

kunit_test_suites(&sroce_queue_suite);
