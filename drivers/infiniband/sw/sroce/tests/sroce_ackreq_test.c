// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which SEND/WRITE packets set AckReq (sroce_ackreq.h).
 */
#include <kunit/test.h>

#include "sroce_ackreq.h"

/* Fields left out are false/0; has_timeout is set in most cases. */
#define ASKS(...)	sroce_ackreq_wanted(&(const struct sroce_ackreq_in){ __VA_ARGS__ })

static void sroce_ackreq_signaled_last_packet_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .signaled = true, .has_timeout = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.signaled = true, .has_timeout = true));
}

static void sroce_ackreq_unsignaled_message_does_not_ask(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, ASKS(.last = true, .has_timeout = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.last = true, .has_timeout = true,
				      .unasked = SROCE_ACKREQ_INTERVAL - 2));
}

static void sroce_ackreq_every_interval_packets_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.has_timeout = true,
				     .unasked = SROCE_ACKREQ_INTERVAL - 1));
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true,
				     .unasked = SROCE_ACKREQ_INTERVAL - 1));
	/* Past the interval (it is never skipped, but stay safe). */
	KUNIT_EXPECT_TRUE(test, ASKS(.has_timeout = true,
				     .unasked = SROCE_ACKREQ_INTERVAL + 5));
}

static void sroce_ackreq_retransmitted_last_packet_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .resend = true, .has_timeout = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.resend = true, .has_timeout = true));
}

static void sroce_ackreq_without_timeout_every_message_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.last = false));
}

/* A queue of one (a ping-pong): every message's last packet asks. */
static void sroce_ackreq_crowded_send_queue_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				     .sq_depth = 1));
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				     .sq_depth = 2));
	KUNIT_EXPECT_FALSE(test, ASKS(.has_timeout = true, .sq_crowded = true, .sq_depth = 1));
}

/*
 * A deep crowded queue asks once a quarter of its depth went unasked, not
 * on every message: an ACK per 8-byte WRITE costs as much as the WRITE.
 */
static void sroce_ackreq_deep_crowded_queue_asks_by_quarter(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				      .sq_depth = 16, .unasked = 2));
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				     .sq_depth = 16, .unasked = 3));
	KUNIT_EXPECT_FALSE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				      .sq_depth = 256, .unasked = 20));
	/* Past the general interval, any queue asks. */
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .sq_crowded = true,
				     .sq_depth = 256, .unasked = SROCE_ACKREQ_INTERVAL - 1));
	/* Not crowded: the quarter does not apply. */
	KUNIT_EXPECT_FALSE(test, ASKS(.last = true, .has_timeout = true,
				      .sq_depth = 16, .unasked = 10));
}

/* Any packet that fills the window asks, mid-message and unsignaled too. */
static void sroce_ackreq_packet_filling_the_window_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.has_timeout = true, .fills_cwnd = true));
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .fills_cwnd = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.has_timeout = true, .unasked = 3));
}

/* In SQD every message's last packet asks: SQ_DRAINED waits for it. */
static void sroce_ackreq_draining_last_packet_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ASKS(.last = true, .has_timeout = true, .draining = true));
	KUNIT_EXPECT_FALSE(test, ASKS(.has_timeout = true, .draining = true));
}

static struct kunit_case sroce_ackreq_cases[] = {
	KUNIT_CASE(sroce_ackreq_signaled_last_packet_asks),
	KUNIT_CASE(sroce_ackreq_unsignaled_message_does_not_ask),
	KUNIT_CASE(sroce_ackreq_every_interval_packets_asks),
	KUNIT_CASE(sroce_ackreq_retransmitted_last_packet_asks),
	KUNIT_CASE(sroce_ackreq_without_timeout_every_message_asks),
	KUNIT_CASE(sroce_ackreq_crowded_send_queue_asks),
	KUNIT_CASE(sroce_ackreq_deep_crowded_queue_asks_by_quarter),
	KUNIT_CASE(sroce_ackreq_packet_filling_the_window_asks),
	KUNIT_CASE(sroce_ackreq_draining_last_packet_asks),
	{}
};

static struct kunit_suite sroce_ackreq_suite = {
	.name = "sroce_ackreq",
	.test_cases = sroce_ackreq_cases,
};

kunit_test_suites(&sroce_ackreq_suite);
