// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: 24-bit PSN arithmetic across the wrap.
 */
#include <kunit/test.h>

#include "sroce_psn.h"

static void sroce_psn_add_wraps_at_24_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffffe, 1), 0xffffffU);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(0xfffff0, 0x20), 0x10U);
	KUNIT_EXPECT_EQ(test, sroce_psn_add(5, 0), 5U);
}

static void sroce_psn_diff_is_signed_distance(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(10, 3), 7);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(3, 10), -7);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(2, 0xfffffe), 4);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0xfffffe, 2), -4);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x800000, 0), -0x800000);
	/* Bits above 24 are ignored. */
	KUNIT_EXPECT_EQ(test, sroce_psn_diff(0x1000005, 3), 2);
}

static void sroce_psn_order_across_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_psn_before(0xffffff, 0));
	KUNIT_EXPECT_TRUE(test, sroce_psn_after(0, 0xffffff));
	KUNIT_EXPECT_FALSE(test, sroce_psn_before(7, 7));
	KUNIT_EXPECT_FALSE(test, sroce_psn_after(7, 7));
	KUNIT_EXPECT_TRUE(test, sroce_psn_before(100, 0x7fff00));
}

static void sroce_psn_window_membership(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(0xfffffe, 0xfffffe, 4));
	KUNIT_EXPECT_TRUE(test, sroce_psn_in_window(1, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(2, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(0xfffffd, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, sroce_psn_in_window(5, 5, 0));
}

/* A 4-packet message from 0xfffffe (wraps), MTU 1024. */
static void sroce_psn_resume_inside_what_was_sent(struct kunit *test)
{
	/* Two packets sent: resume at either, or at the next one. */
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 2048, 1024, 0xfffffe), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 2048, 1024, 0xffffff), 1U);
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 2048, 1024, 0), 2U);
	/* The last packet may be short. */
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 3100, 1024, 1), 3U);
}

static void sroce_psn_resume_elsewhere_starts_over(struct kunit *test)
{
	/* Past what was sent (a rewound WQE has sent nothing). */
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 2048, 1024, 1), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 0, 1024, 0), 0U);
	/* Before the message, or after its last packet. */
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 4096, 1024, 0xfffffd), 0U);
	KUNIT_EXPECT_EQ(test, sroce_psn_resume_index(0xfffffe, 4, 4096, 1024, 2), 0U);
}

/*
 * A READ's responses take one PSN each; 2^23 of them (2 GiB at path MTU
 * 256) put its end exactly half the PSN space away, where "after" turns
 * into "before": the requester then never counted the READ as sent.
 */
static void sroce_psn_span_stops_short_of_half_the_space(struct kunit *test)
{
	u32 first = 0xfffff0, half = 1U << 23;

	KUNIT_EXPECT_TRUE(test, sroce_psn_span_fits(1));
	KUNIT_EXPECT_TRUE(test, sroce_psn_span_fits(half - 1));
	KUNIT_EXPECT_TRUE(test, sroce_psn_after(sroce_psn_add(first, half - 1), first));
	KUNIT_EXPECT_FALSE(test, sroce_psn_span_fits(half));
	KUNIT_EXPECT_FALSE(test, sroce_psn_after(sroce_psn_add(first, half), first));
	KUNIT_EXPECT_FALSE(test, sroce_psn_span_fits(DIV_ROUND_UP(1ULL << 31, 256)));
	KUNIT_EXPECT_TRUE(test, sroce_psn_span_fits(DIV_ROUND_UP(1ULL << 31, 512)));
	KUNIT_EXPECT_FALSE(test, sroce_psn_span_fits(1ULL << 32));
}

static struct kunit_case sroce_psn_cases[] = {
	KUNIT_CASE(sroce_psn_add_wraps_at_24_bits),
	KUNIT_CASE(sroce_psn_diff_is_signed_distance),
	KUNIT_CASE(sroce_psn_order_across_wrap),
	KUNIT_CASE(sroce_psn_window_membership),
	KUNIT_CASE(sroce_psn_resume_inside_what_was_sent),
	KUNIT_CASE(sroce_psn_resume_elsewhere_starts_over),
	KUNIT_CASE(sroce_psn_span_stops_short_of_half_the_space),
	{}
};

static struct kunit_suite sroce_psn_suite = {
	.name = "sroce_psn",
	.test_cases = sroce_psn_cases,
};

kunit_test_suites(&sroce_psn_suite);
