// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the counter table ib_core shows, and per-CPU counting.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sroce_stats.h"

/* ib_core makes a sysfs file of each name: all set, distinct, file-safe. */
static void sroce_stat_names_complete_and_distinct(struct kunit *test)
{
	int s, t;

	for (s = 0; s < SROCE_NUM_STATS; s++) {
		const char *name = sroce_stat_name(s);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "counter %d has no name", s);
		KUNIT_EXPECT_EQ_MSG(test, strspn(name, "abcdefghijklmnopqrstuvwxyz_"),
				    strlen(name), "bad name %s", name);
		for (t = 0; t < s; t++)
			KUNIT_EXPECT_STRNEQ(test, name, sroce_stat_name(t));
	}
	KUNIT_EXPECT_NULL(test, sroce_stat_name(SROCE_NUM_STATS));
}

/* The names other code and the docs rely on sit at their enum values. */
static void sroce_stat_names_match_enum(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, sroce_stat_name(SROCE_STAT_SENT_PKTS), "sent_pkts");
	KUNIT_EXPECT_STREQ(test, sroce_stat_name(SROCE_STAT_OUT_OF_SEQUENCE),
			   "out_of_sequence");
	KUNIT_EXPECT_STREQ(test, sroce_stat_name(SROCE_STAT_DOORBELLS_ELIDED),
			   "doorbells_elided");
	KUNIT_EXPECT_STREQ(test, sroce_stat_name(SROCE_STAT_SEND_ERR), "send_err");
	KUNIT_EXPECT_STREQ(test, sroce_stat_name(SROCE_STAT_LOCAL_SEGMENTS),
			   "local_segments");
}

static struct sroce_dev *sroce_stats_test_dev(struct kunit *test)
{
	struct sroce_dev *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_EQ(test, sroce_stats_init(sdev), 0);
	return sdev;
}

/* A reading adds up every CPU's copy; counters do not mix. */
static void sroce_stat_read_sums_cpus(struct kunit *test)
{
	struct sroce_dev *sdev = sroce_stats_test_dev(test);
	u64 expect = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu_ptr(sdev->stats, cpu)->v[SROCE_STAT_RCVD_BYTES] = cpu + 1;
		expect += cpu + 1;
	}
	sroce_stat_inc(sdev, SROCE_STAT_RCVD_BYTES);
	sroce_stat_add(sdev, SROCE_STAT_RCVD_BYTES, 1000);
	KUNIT_EXPECT_EQ(test, sroce_stat_read(sdev, SROCE_STAT_RCVD_BYTES),
			expect + 1001);
	KUNIT_EXPECT_EQ(test, sroce_stat_read(sdev, SROCE_STAT_RCVD_PKTS), 0ULL);
	sroce_stats_free(sdev);
}

/* A drop counts its reason and the rcvd_dropped total. */
static void sroce_stat_drop_counts_reason_and_total(struct kunit *test)
{
	struct sroce_dev *sdev = sroce_stats_test_dev(test);

	sroce_stat_drop(sdev, SROCE_STAT_ICRC_ERRORS);
	sroce_stat_drop(sdev, SROCE_STAT_RCVD_UNKNOWN_QPN);
	KUNIT_EXPECT_EQ(test, sroce_stat_read(sdev, SROCE_STAT_ICRC_ERRORS), 1ULL);
	KUNIT_EXPECT_EQ(test, sroce_stat_read(sdev, SROCE_STAT_RCVD_UNKNOWN_QPN), 1ULL);
	KUNIT_EXPECT_EQ(test, sroce_stat_read(sdev, SROCE_STAT_RCVD_DROPPED), 2ULL);
	sroce_stats_free(sdev);
}

static struct kunit_case sroce_stats_cases[] = {
	KUNIT_CASE(sroce_stat_names_complete_and_distinct),
	KUNIT_CASE(sroce_stat_names_match_enum),
	KUNIT_CASE(sroce_stat_read_sums_cpus),
	KUNIT_CASE(sroce_stat_drop_counts_reason_and_total),
	{}
};

static struct kunit_suite sroce_stats_suite = {
	.name = "sroce_stats",
	.test_cases = sroce_stats_cases,
};

kunit_test_suites(&sroce_stats_suite);
