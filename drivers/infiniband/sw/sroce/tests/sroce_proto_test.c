// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: protocol rules of the completer and responder that need no
 * packets: which READ response lengths the completer places, and what a
 * responder reset forgets of the connection.
 */
#include <kunit/test.h>

#include "sroce_proto.h"
#include "sroce_qp.h"

#define MTU	1024

static const u32 last = SROCE_OPF_READ | SROCE_OPF_LAST;
static const u32 only = SROCE_OPF_READ | SROCE_OPF_ONLY;
static const u32 middle = SROCE_OPF_READ | SROCE_OPF_MIDDLE;

static void sroce_proto_read_resp_within_the_mtu_is_placed(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_read_resp_len_ok(middle, MTU, MTU, 3 * MTU));
	KUNIT_EXPECT_TRUE(test, sroce_read_resp_len_ok(last, MTU, MTU, MTU));
	KUNIT_EXPECT_TRUE(test, sroce_read_resp_len_ok(last, 1, MTU, 1));
	KUNIT_EXPECT_TRUE(test, sroce_read_resp_len_ok(only, 0, MTU, 0));
	KUNIT_EXPECT_TRUE(test, sroce_read_resp_len_ok(only, MTU, MTU, 64 * MTU));
}

/*
 * A LAST or ONLY longer than the path MTU used to be placed whenever the
 * READ had room for it: a bad response instead, like a short MIDDLE.
 */
static void sroce_proto_read_resp_past_the_mtu_is_bad(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(last, MTU + 4, MTU, 2 * MTU));
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(only, MTU + 4, MTU, 2 * MTU));
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(only, 4096, 256, 1 << 20));
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(middle, MTU + 4, MTU, 4 * MTU));
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(middle, MTU - 4, MTU, 4 * MTU));
	KUNIT_EXPECT_FALSE(test, sroce_read_resp_len_ok(last, 8, MTU, 4));
}

/*
 * A QP moved to RESET and connected again starts a new connection: its
 * first ACK carries MSN 1, not the old connection's count plus one.
 */
static void sroce_proto_responder_reset_starts_the_msn_over(struct kunit *test)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->lock);
	qp->resp_msn = 12345;
	qp->resp_nak_sent = true;
	qp->resp_last_flags = SROCE_OPF_FIRST;
	qp->resp_write_left = 4096;
	spin_lock_bh(&qp->lock);
	sroce_resp_reset_locked(qp);
	spin_unlock_bh(&qp->lock);
	KUNIT_EXPECT_EQ(test, qp->resp_msn, 0U);
	KUNIT_EXPECT_FALSE(test, qp->resp_nak_sent);
	KUNIT_EXPECT_EQ(test, qp->resp_last_flags, 0U);
	KUNIT_EXPECT_EQ(test, qp->resp_write_left, 0U);
}

static struct kunit_case sroce_proto_cases[] = {
	KUNIT_CASE(sroce_proto_read_resp_within_the_mtu_is_placed),
	KUNIT_CASE(sroce_proto_read_resp_past_the_mtu_is_bad),
	KUNIT_CASE(sroce_proto_responder_reset_starts_the_msn_over),
	{}
};

static struct kunit_suite sroce_proto_suite = {
	.name = "sroce_proto",
	.test_cases = sroce_proto_cases,
};

kunit_test_suites(&sroce_proto_suite);
