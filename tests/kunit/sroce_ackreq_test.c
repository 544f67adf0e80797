// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which SEND/WRITE packets set AckReq (sroce_ackreq.h).
 */
#include <kunit/test.h>

#include "sroce_ackreq.h"

/* Arguments: last, signaled, resend, has_timeout, sq_crowded, unasked. */

static void sroce_ackreq_signaled_last_packet_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(true, true, false, true, false, 0));
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(false, true, false, true, false, 0));
}

static void sroce_ackreq_unsignaled_message_does_not_ask(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(true, false, false, true, false, 0));
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(true, false, false, true, false,
						     SROCE_ACKREQ_INTERVAL - 2));
}

static void sroce_ackreq_every_interval_packets_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(false, false, false, true, false,
						    SROCE_ACKREQ_INTERVAL - 1));
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(true, false, false, true, false,
						    SROCE_ACKREQ_INTERVAL - 1));
	/* Past the interval (it is never skipped, but stay safe). */
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(false, false, false, true, false,
						    SROCE_ACKREQ_INTERVAL + 5));
}

static void sroce_ackreq_retransmitted_last_packet_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(true, false, true, true, false, 0));
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(false, false, true, true, false, 0));
}

static void sroce_ackreq_without_timeout_every_message_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(true, false, false, false, false, 0));
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(false, false, false, false, false, 0));
}

static void sroce_ackreq_crowded_send_queue_asks(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ackreq_wanted(true, false, false, true, true, 0));
	KUNIT_EXPECT_FALSE(test, sroce_ackreq_wanted(false, false, false, true, true, 0));
}

static struct kunit_case sroce_ackreq_cases[] = {
	KUNIT_CASE(sroce_ackreq_signaled_last_packet_asks),
	KUNIT_CASE(sroce_ackreq_unsignaled_message_does_not_ask),
	KUNIT_CASE(sroce_ackreq_every_interval_packets_asks),
	KUNIT_CASE(sroce_ackreq_retransmitted_last_packet_asks),
	KUNIT_CASE(sroce_ackreq_without_timeout_every_message_asks),
	KUNIT_CASE(sroce_ackreq_crowded_send_queue_asks),
	{}
};

static struct kunit_suite sroce_ackreq_suite = {
	.name = "sroce_ackreq",
	.test_cases = sroce_ackreq_cases,
};

kunit_test_suites(&sroce_ackreq_suite);
