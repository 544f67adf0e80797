// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the requester's congestion window (sroce_cwnd.h).
 */
#include <kunit/test.h>

#include "sroce_cwnd.h"

static void sroce_cwnd_starts_small_and_below_the_ceiling(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_INITIAL);
	KUNIT_EXPECT_TRUE(test, sroce_cwnd_allows(&c, SROCE_CWND_INITIAL - 1));
	KUNIT_EXPECT_FALSE(test, sroce_cwnd_allows(&c, SROCE_CWND_INITIAL));
	sroce_cwnd_init(&c, 4);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
}

static void sroce_cwnd_slow_start_grows_by_what_was_acked(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	sroce_cwnd_on_progress(&c, 32, 32);
	KUNIT_EXPECT_EQ(test, c.cwnd, 64U);
	sroce_cwnd_on_progress(&c, 1000, 1032);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_REQ_WINDOW);
}

static void sroce_cwnd_above_ssthresh_grows_one_per_window(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	c.cwnd = 100;
	c.ssthresh = 100;
	sroce_cwnd_on_progress(&c, 99, 99);
	KUNIT_EXPECT_EQ(test, c.cwnd, 100U);
	sroce_cwnd_on_progress(&c, 1, 100);
	KUNIT_EXPECT_EQ(test, c.cwnd, 101U);
	sroce_cwnd_on_progress(&c, 100, 200);
	KUNIT_EXPECT_EQ(test, c.cwnd, 101U);
	sroce_cwnd_on_progress(&c, 1, 201);
	KUNIT_EXPECT_EQ(test, c.cwnd, 102U);
}

static void sroce_cwnd_nak_halves_once_per_loss_event(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	c.cwnd = 200;
	KUNIT_EXPECT_TRUE(test, sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, 1000, 1200));
	KUNIT_EXPECT_EQ(test, c.cwnd, 100U);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 100U);
	/* More NAKs for packets sent before the event began: no further cut. */
	sroce_cwnd_on_progress(&c, 50, 1050);
	KUNIT_EXPECT_FALSE(test, sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, 1100, 1300));
	KUNIT_EXPECT_EQ(test, c.cwnd, 100U);
	/* Progress past the event's end closes it: the next loss cuts again. */
	sroce_cwnd_on_progress(&c, 150, 1200);
	KUNIT_EXPECT_TRUE(test, sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, 1250, 1400));
	KUNIT_EXPECT_EQ(test, c.cwnd, 50U);
}

static void sroce_cwnd_never_below_the_floor(struct kunit *test)
{
	struct sroce_cwnd c;
	int i;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	for (i = 0; i < 10; i++) {
		u32 psn = i * 100;

		sroce_cwnd_on_progress(&c, 100, psn);
		sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, psn, psn + 50);
	}
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_TRUE(test, sroce_cwnd_allows(&c, SROCE_CWND_MIN - 1));
}

static void sroce_cwnd_timeout_falls_to_the_floor(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	c.cwnd = 200;
	sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_TIMEOUT, 10, 210);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 100U);
	/* A timeout inside a NAK's event still drops to the floor. */
	c.cwnd = 60;
	sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_TIMEOUT, 20, 300);
	KUNIT_EXPECT_EQ(test, c.cwnd, (u32)SROCE_CWND_MIN);
	KUNIT_EXPECT_EQ(test, c.ssthresh, 100U);
	/* Slow start back up to ssthresh, then additive. */
	sroce_cwnd_on_progress(&c, 200, 220);
	KUNIT_EXPECT_EQ(test, c.cwnd, 100U);
}

static void sroce_cwnd_loss_event_spans_the_psn_wrap(struct kunit *test)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, SROCE_REQ_WINDOW);
	c.cwnd = 128;
	sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, 0xfffff0, 0x10);
	KUNIT_EXPECT_FALSE(test, sroce_cwnd_on_loss(&c, SROCE_CWND_LOSS_NAK, 0x8, 0x20));
	KUNIT_EXPECT_EQ(test, c.cwnd, 64U);
	sroce_cwnd_on_progress(&c, 32, 0x10);
	KUNIT_EXPECT_FALSE(test, c.recovering);
}

static struct kunit_case sroce_cwnd_cases[] = {
	KUNIT_CASE(sroce_cwnd_starts_small_and_below_the_ceiling),
	KUNIT_CASE(sroce_cwnd_slow_start_grows_by_what_was_acked),
	KUNIT_CASE(sroce_cwnd_above_ssthresh_grows_one_per_window),
	KUNIT_CASE(sroce_cwnd_nak_halves_once_per_loss_event),
	KUNIT_CASE(sroce_cwnd_never_below_the_floor),
	KUNIT_CASE(sroce_cwnd_timeout_falls_to_the_floor),
	KUNIT_CASE(sroce_cwnd_loss_event_spans_the_psn_wrap),
	{}
};

static struct kunit_suite sroce_cwnd_suite = {
	.name = "sroce_cwnd",
	.test_cases = sroce_cwnd_cases,
};

kunit_test_suites(&sroce_cwnd_suite);
