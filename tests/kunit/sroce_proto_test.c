// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: protocol rules of the completer and responder that need no
 * packets: which READ response lengths the completer places.
 */
#include <kunit/test.h>

#include "sroce_proto.h"

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

static struct kunit_case sroce_proto_cases[] = {
	KUNIT_CASE(sroce_proto_read_resp_within_the_mtu_is_placed),
	KUNIT_CASE(sroce_proto_read_resp_past_the_mtu_is_bad),
	{}
};

static struct kunit_suite sroce_proto_suite = {
	.name = "sroce_proto",
	.test_cases = sroce_proto_cases,
};

kunit_test_suites(&sroce_proto_suite);
