// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which names and netdevs `rdma link add ... type sroce` accepts.
 */
#include <kunit/test.h>
#include <linux/if_arp.h>

#include "sroce.h"

static void sroce_name_accepts_sroce_prefix(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_ibdev_name_valid("sroce0"));
	KUNIT_EXPECT_TRUE(test, sroce_ibdev_name_valid("sroce"));
	KUNIT_EXPECT_TRUE(test, sroce_ibdev_name_valid("sroce_eth1"));
}

static void sroce_name_rejects_other_names(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid(""));
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid("rxe0"));
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid("Sroce0"));
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid("sroc"));
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid("xsroce0"));
}

static void sroce_name_length_bounded_by_ib_device_name_max(struct kunit *test)
{
	char name[IB_DEVICE_NAME_MAX + 1];

	memset(name, 'x', sizeof(name));
	memcpy(name, "sroce", 5);
	name[IB_DEVICE_NAME_MAX - 1] = '\0';
	KUNIT_EXPECT_TRUE(test, sroce_ibdev_name_valid(name));

	name[IB_DEVICE_NAME_MAX - 1] = 'x';
	name[IB_DEVICE_NAME_MAX] = '\0';
	KUNIT_EXPECT_FALSE(test, sroce_ibdev_name_valid(name));
}

static void sroce_netdev_only_real_ethernet(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_netdev_type_supported(ARPHRD_ETHER, 0));
	KUNIT_EXPECT_TRUE(test, sroce_netdev_type_supported(ARPHRD_ETHER,
							     IFF_UP | IFF_BROADCAST));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_ETHER,
							      IFF_LOOPBACK));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_LOOPBACK,
							      IFF_LOOPBACK));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_TUNNEL, 0));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_TUNNEL6, 0));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_INFINIBAND, 0));
	KUNIT_EXPECT_FALSE(test, sroce_netdev_type_supported(ARPHRD_NONE, 0));
}

static struct kunit_case sroce_device_cases[] = {
	KUNIT_CASE(sroce_name_accepts_sroce_prefix),
	KUNIT_CASE(sroce_name_rejects_other_names),
	KUNIT_CASE(sroce_name_length_bounded_by_ib_device_name_max),
	KUNIT_CASE(sroce_netdev_only_real_ethernet),
	{}
};

static struct kunit_suite sroce_device_suite = {
	.name = "sroce_device",
	.test_cases = sroce_device_cases,
};

kunit_test_suites(&sroce_device_suite);
