// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the IB MTU a port reports for each netdev MTU.
 */
#include <kunit/test.h>

#include "sroce.h"
#include "sroce_caps.h"

struct mtu_case {
	unsigned int netdev_mtu;
	enum ib_mtu expected;
};

static const struct mtu_case mtu_cases[] = {
	{ 9000, IB_MTU_4096 },
	{ 4096 + SROCE_ROCEV2_OVERHEAD, IB_MTU_4096 },
	{ 4096 + SROCE_ROCEV2_OVERHEAD - 1, IB_MTU_2048 },
	{ 2048 + SROCE_ROCEV2_OVERHEAD, IB_MTU_2048 },
	{ 1500, IB_MTU_1024 },
	{ 1280, IB_MTU_1024 },
	{ 1024 + SROCE_ROCEV2_OVERHEAD, IB_MTU_1024 },
	{ 1024 + SROCE_ROCEV2_OVERHEAD - 1, IB_MTU_512 },
	{ 600, IB_MTU_512 },
	{ 512 + SROCE_ROCEV2_OVERHEAD - 1, IB_MTU_256 },
	{ 68, IB_MTU_256 },
	{ 0, IB_MTU_256 },
	{ UINT_MAX, IB_MTU_4096 },
};

static void sroce_mtu_picks_largest_ib_mtu_that_fits(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mtu_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
			sroce_mtu_for_netdev_mtu(mtu_cases[i].netdev_mtu),
			mtu_cases[i].expected, "netdev mtu %u",
			mtu_cases[i].netdev_mtu);
}

static void sroce_mtu_payload_plus_headers_never_exceeds_netdev(struct kunit *test)
{
	unsigned int netdev_mtu;

	for (netdev_mtu = 256 + SROCE_ROCEV2_OVERHEAD; netdev_mtu <= 9216; netdev_mtu++) {
		int ib = ib_mtu_enum_to_int(sroce_mtu_for_netdev_mtu(netdev_mtu));

		KUNIT_ASSERT_LE(test, ib + SROCE_ROCEV2_OVERHEAD, netdev_mtu);
	}
}

static void sroce_port_immutable_is_rocev2_only(struct kunit *test)
{
	struct ib_port_immutable immutable = {};

	KUNIT_ASSERT_EQ(test, sroce_get_port_immutable(NULL, 1, &immutable), 0);
	KUNIT_EXPECT_EQ(test, immutable.core_cap_flags,
			(u32)RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, immutable.gid_tbl_len, SROCE_GID_TABLE_LEN);
	KUNIT_EXPECT_EQ(test, immutable.pkey_tbl_len, SROCE_PKEY_TABLE_LEN);
}

static void sroce_pkey_table_has_only_the_default_key(struct kunit *test)
{
	u16 pkey = 0;

	KUNIT_EXPECT_EQ(test, sroce_query_pkey(NULL, 1, 0, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, SROCE_DEFAULT_PKEY);
	KUNIT_EXPECT_EQ(test, sroce_query_pkey(NULL, 1, 1, &pkey), -EINVAL);
}

static struct kunit_case sroce_port_cases[] = {
	KUNIT_CASE(sroce_mtu_picks_largest_ib_mtu_that_fits),
	KUNIT_CASE(sroce_mtu_payload_plus_headers_never_exceeds_netdev),
	KUNIT_CASE(sroce_port_immutable_is_rocev2_only),
	KUNIT_CASE(sroce_pkey_table_has_only_the_default_key),
	{}
};

static struct kunit_suite sroce_port_suite = {
	.name = "sroce_port",
	.test_cases = sroce_port_cases,
};

kunit_test_suites(&sroce_port_suite);
