// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the counter table ib_core shows, and per-CPU counting.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "sroce_stats.h"

/* The counter set ib_core gets from sroce_alloc_hw_port_stats(). */
static struct rdma_hw_stats *sroce_stats_test_descs(struct kunit *test)
{
	struct rdma_hw_stats *stats = sroce_alloc_hw_port_stats(NULL, 1);

	KUNIT_ASSERT_NOT_NULL(test, stats);
	KUNIT_EXPECT_EQ(test, stats->num_counters, SROCE_NUM_STATS);
	return stats;
}

/* ib_core makes a sysfs file of each name: all set, distinct, file-safe. */
static void sroce_stat_names_complete_and_distinct(struct kunit *test)
{
	struct rdma_hw_stats *stats = sroce_stats_test_descs(test);
	int s, t;

	for (s = 0; s < SROCE_NUM_STATS; s++) {
		const char *name = stats->descs[s].name;

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "counter %d has no name", s);
		KUNIT_EXPECT_EQ_MSG(test, strspn(name, "abcdefghijklmnopqrstuvwxyz_"),
				    strlen(name), "bad name %s", name);
		for (t = 0; t < s; t++)
			KUNIT_EXPECT_STRNEQ(test, name, stats->descs[t].name);
	}
	rdma_free_hw_stats_struct(stats);
}

/* The names other code and the docs rely on sit at their enum values. */
static void sroce_stat_names_match_enum(struct kunit *test)
{
	struct rdma_hw_stats *stats = sroce_stats_test_descs(test);
	const struct rdma_stat_desc *d = stats->descs;

	KUNIT_EXPECT_STREQ(test, d[SROCE_STAT_SENT_PKTS].name, "sent_pkts");
	KUNIT_EXPECT_STREQ(test, d[SROCE_STAT_OUT_OF_SEQUENCE].name,
			   "out_of_sequence");
	KUNIT_EXPECT_STREQ(test, d[SROCE_STAT_DOORBELLS_ELIDED].name,
			   "doorbells_elided");
	KUNIT_EXPECT_STREQ(test, d[SROCE_STAT_SEND_ERR].name, "send_err");
	KUNIT_EXPECT_STREQ(test, d[SROCE_STAT_LOCAL_SEGMENTS].name,
			   "local_segments");
	rdma_free_hw_stats_struct(stats);
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
