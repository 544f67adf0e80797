// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests for sroce_ring.h: the index rules both sides of a shared ring
 * follow, with particular care for the wrap of the u32 indices at 2^32.
 */
#include <stdint.h>

#include "sroce_ring.h"
#include "unit.h"

static void ring_size_accepts_powers_of_two_up_to_2_31(struct unit_case_state *t)
{
	int shift;

	for (shift = 0; shift <= 31; shift++)
		EXPECT(t, sroce_ring_size_valid(1U << shift));
}

static void ring_size_rejects_zero_and_non_powers(struct unit_case_state *t)
{
	EXPECT(t, !sroce_ring_size_valid(0));
	EXPECT(t, !sroce_ring_size_valid(3));
	EXPECT(t, !sroce_ring_size_valid(12));
	EXPECT(t, !sroce_ring_size_valid((1U << 31) + 1));
	EXPECT(t, !sroce_ring_size_valid(UINT32_MAX));
}

static void ring_is_empty_when_indices_are_equal(struct unit_case_state *t)
{
	EXPECT(t, sroce_ring_empty(0, 0));
	EXPECT(t, sroce_ring_empty(UINT32_MAX, UINT32_MAX));
	EXPECT(t, sroce_ring_count(12345, 12345) == 0);
	EXPECT(t, sroce_ring_free(12345, 12345, 64) == 64);
	EXPECT(t, !sroce_ring_full(12345, 12345, 64));
	EXPECT(t, !sroce_ring_empty(UINT32_MAX, 0));
}

static void ring_count_wraps_at_2_32(struct unit_case_state *t)
{
	/* The producer wrapped past 2^32, the consumer has not yet. */
	EXPECT(t, sroce_ring_count(UINT32_MAX - 1, 2) == 4);
	EXPECT(t, sroce_ring_count(UINT32_MAX, 0) == 1);
	EXPECT(t, sroce_ring_free(UINT32_MAX - 1, 2, 8) == 4);
}

static void ring_is_full_when_count_equals_size(struct unit_case_state *t)
{
	EXPECT(t, sroce_ring_full(0, 16, 16));
	EXPECT(t, sroce_ring_full(UINT32_MAX - 3, 0, 4));
	EXPECT(t, sroce_ring_free(UINT32_MAX - 3, 0, 4) == 0);
	EXPECT(t, !sroce_ring_full(0, 15, 16));
	EXPECT(t, sroce_ring_full(5, 6, 1));
}

static void ring_full_and_empty_differ_at_max_size(struct unit_case_state *t)
{
	const uint32_t size = SROCE_RING_MAX_SIZE;

	EXPECT(t, sroce_ring_full(7, 7 + size, size));
	EXPECT(t, !sroce_ring_empty(7, 7 + size));
	EXPECT(t, sroce_ring_indices_valid(7, 7 + size, size));
}

static void ring_indices_invalid_when_count_exceeds_size(struct unit_case_state *t)
{
	EXPECT(t, sroce_ring_indices_valid(0, 64, 64));
	EXPECT(t, !sroce_ring_indices_valid(0, 65, 64));
	/* A consumer index ahead of the producer looks like 2^32 - 1 entries. */
	EXPECT(t, !sroce_ring_indices_valid(10, 9, 64));
	EXPECT(t, !sroce_ring_full(0, 65, 64));
}

static void ring_slot_masks_the_free_running_index(struct unit_case_state *t)
{
	EXPECT(t, sroce_ring_slot(0, 8) == 0);
	EXPECT(t, sroce_ring_slot(13, 8) == 5);
	EXPECT(t, sroce_ring_slot(UINT32_MAX, 1) == 0);
	EXPECT(t, sroce_ring_slot(UINT32_MAX, SROCE_RING_MAX_SIZE) ==
			  SROCE_RING_MAX_SIZE - 1);
}

static void ring_slots_stay_consecutive_across_2_32(struct unit_case_state *t)
{
	uint32_t index = UINT32_MAX - 2;
	int step;

	for (step = 0; step < 6; step++, index++)
		EXPECT(t, sroce_ring_slot(index + 1, 8) ==
				  ((sroce_ring_slot(index, 8) + 1) & 7));
}

/* xorshift32: deterministic, so a failure reproduces. */
static uint32_t next_random(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/*
 * Run a producer and a consumer over the 2^32 wrap and compare the helpers
 * with a model kept in 64-bit counters, which never wrap in this test.
 */
static void ring_model_agrees_through_wraparound(struct unit_case_state *t)
{
	const uint32_t size = 16;
	uint64_t produced = UINT32_MAX - 1000, consumed = produced;
	uint32_t seed = 0x5eed1234;
	int step;

	for (step = 0; step < 200000 && !t->failed; step++) {
		uint32_t head = (uint32_t)consumed, tail = (uint32_t)produced;
		uint32_t n = next_random(&seed) % (size + 1);

		EXPECT(t, sroce_ring_indices_valid(head, tail, size));
		EXPECT(t, sroce_ring_count(head, tail) == produced - consumed);
		EXPECT(t, sroce_ring_free(head, tail, size) ==
				  size - (produced - consumed));
		EXPECT(t, sroce_ring_full(head, tail, size) ==
				  (produced - consumed == size));
		EXPECT(t, sroce_ring_empty(head, tail) == (produced == consumed));
		EXPECT(t, sroce_ring_slot(tail, size) == produced % size);

		if (next_random(&seed) & 1) {
			if (n > sroce_ring_free(head, tail, size))
				n = sroce_ring_free(head, tail, size);
			produced += n;
		} else {
			if (n > sroce_ring_count(head, tail))
				n = sroce_ring_count(head, tail);
			consumed += n;
		}
	}
	EXPECT(t, produced > (uint64_t)UINT32_MAX + 1);
}

static const struct unit_case cases[] = {
	UNIT_CASE(ring_size_accepts_powers_of_two_up_to_2_31),
	UNIT_CASE(ring_size_rejects_zero_and_non_powers),
	UNIT_CASE(ring_is_empty_when_indices_are_equal),
	UNIT_CASE(ring_count_wraps_at_2_32),
	UNIT_CASE(ring_is_full_when_count_equals_size),
	UNIT_CASE(ring_full_and_empty_differ_at_max_size),
	UNIT_CASE(ring_indices_invalid_when_count_exceeds_size),
	UNIT_CASE(ring_slot_masks_the_free_running_index),
	UNIT_CASE(ring_slots_stay_consecutive_across_2_32),
	UNIT_CASE(ring_model_agrees_through_wraparound),
};

UNIT_MAIN(cases)
