// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: PMA replies built from counter values, and which MADs
 * sroce_process_mad() answers at all.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "sroce.h"
#include "sroce_pma.h"
#include "sroce_stats.h"

/* Read a big-endian field of @width bytes at @off, as ib_core's sysfs does. */
static u64 sroce_pma_test_be(const void *p, size_t off, int width)
{
	const u8 *b = (const u8 *)p + off;
	u64 v = 0;
	int i;

	for (i = 0; i < width; i++)
		v = v << 8 | b[i];
	return v;
}

/* Data is reported in units of four octets, most significant byte first. */
static void sroce_pma_counters_data_in_dwords_big_endian(struct kunit *test)
{
	struct sroce_pma_counts c = { .xmit_bytes = 4003, .rcv_bytes = 0x01020304 * 4,
				      .xmit_pkts = 7, .rcv_pkts = 0x0a0b0c0d };
	struct ib_pma_portcounters pc = {};

	sroce_pma_fill_counters(&pc, &c);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(&pc, 24, 4), 1000ULL);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(&pc, 28, 4), 0x01020304ULL);
	KUNIT_EXPECT_EQ(test, ((u8 *)&pc)[28], 0x01);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(&pc, 32, 4), 7ULL);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(&pc, 36, 4), 0x0a0b0c0dULL);
}

/* A count past a field's width reads as the field's maximum, not wrapped. */
static void sroce_pma_counters_saturate(struct kunit *test)
{
	struct sroce_pma_counts c = {
		.xmit_bytes = 4ULL * U32_MAX + 100, .rcv_bytes = 4ULL * U32_MAX,
		.xmit_pkts = 1ULL << 32, .rcv_pkts = U64_MAX,
		.rcv_errors = 0x10000, .xmit_discards = 0xffff, .link_downed = 256,
	};
	struct ib_pma_portcounters pc = {};

	sroce_pma_fill_counters(&pc, &c);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc.port_xmit_data), U32_MAX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc.port_rcv_data), U32_MAX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc.port_xmit_packets), U32_MAX);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc.port_rcv_packets), U32_MAX);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pc.port_rcv_errors), 0xffff);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pc.port_xmit_discards), 0xffff);
	KUNIT_EXPECT_EQ(test, pc.link_downed_counter, 0xff);
}

/* Extended: 64 bits, no saturation short of that; unicast is the rest. */
static void sroce_pma_counters_ext_wide_with_split(struct kunit *test)
{
	struct sroce_pma_counts c = {
		.xmit_bytes = (1ULL << 40) + 3, .rcv_bytes = 8,
		.xmit_pkts = 1ULL << 33, .rcv_pkts = 10,
		.mcast_xmit_pkts = 1, .mcast_rcv_pkts = 11,
	};
	struct ib_pma_portcounters_ext pc = {};

	sroce_pma_fill_counters_ext(&pc, &c);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(&pc, 8, 8), 1ULL << 38);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_rcv_data), 2ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_xmit_packets), 1ULL << 33);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_unicast_xmit_packets),
			(1ULL << 33) - 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_multicast_xmit_packets), 1ULL);
	/* Sums read at different moments: unicast stops at zero. */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_unicast_rcv_packets), 0ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pc.port_multicast_rcv_packets), 11ULL);
}

/* A GET as ib_core's sysfs builds it (get_perf_mad()). */
static void sroce_pma_test_get(struct ib_mad *in, __be16 attr, u8 port)
{
	memset(in, 0, sizeof(*in));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	in->mad_hdr.attr_id = attr;
	in->data[41] = port;
}

struct sroce_pma_test_ctx {
	struct sroce_dev *sdev;
	struct ib_mad *in;
	struct ib_mad *out;
	size_t out_size;
	u16 pkey_index;
};

static int sroce_pma_test_init(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->sdev = kunit_kzalloc(test, sizeof(*ctx->sdev), GFP_KERNEL);
	ctx->in = kunit_kzalloc(test, sizeof(*ctx->in), GFP_KERNEL);
	ctx->out = kunit_kzalloc(test, sizeof(*ctx->out), GFP_KERNEL);
	if (!ctx->sdev || !ctx->in || !ctx->out || sroce_stats_init(ctx->sdev))
		return -ENOMEM;
	ctx->out_size = sizeof(*ctx->out);
	test->priv = ctx;
	return 0;
}

static void sroce_pma_test_exit(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = test->priv;

	if (ctx)
		sroce_stats_free(ctx->sdev);
}

static int sroce_pma_test_mad(struct sroce_pma_test_ctx *ctx, const struct ib_wc *wc)
{
	return sroce_process_mad(&ctx->sdev->ib_dev, 0, 1, wc, NULL, ctx->in,
				 ctx->out, &ctx->out_size, &ctx->pkey_index);
}

/* ClassPortInfo says the extended counters, with the split, are there. */
static void sroce_pma_class_port_info_has_ext_width(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = test->priv;
	struct ib_class_port_info *cpi = (void *)(ctx->out->data + 40);

	sroce_pma_test_get(ctx->in, IB_PMA_CLASS_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, sroce_pma_test_mad(ctx, NULL),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, ctx->out->mad_hdr.status, 0);
	KUNIT_EXPECT_TRUE(test, cpi->capability_mask & IB_PMA_CLASS_CAP_EXT_WIDTH);
}

/* The device's counters come back at the offsets sysfs reads them from. */
static void sroce_pma_counters_ext_from_device_stats(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = test->priv;
	const u8 *data = ctx->out->data + 40;

	sroce_stat_add(ctx->sdev, SROCE_STAT_SENT_BYTES, 4096 + 2);
	sroce_stat_add(ctx->sdev, SROCE_STAT_SENT_PKTS, 5);
	sroce_stat_inc(ctx->sdev, SROCE_STAT_SENT_MCAST_PKTS);
	sroce_pma_test_get(ctx->in, IB_PMA_PORT_COUNTERS_EXT, 1);
	KUNIT_ASSERT_EQ(test, sroce_pma_test_mad(ctx, NULL),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, ctx->out->mad_hdr.status, 0);
	KUNIT_EXPECT_EQ(test, data[1], 1);			/* PortSelect */
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(data, 8, 8), 1024ULL);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(data, 24, 8), 5ULL);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(data, 40, 8), 4ULL);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_be(data, 56, 8), 1ULL);
}

/* A port the device does not have is refused in the reply's status. */
static void sroce_pma_counters_other_port_refused(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = test->priv;

	sroce_pma_test_get(ctx->in, IB_PMA_PORT_COUNTERS, 2);
	KUNIT_ASSERT_EQ(test, sroce_pma_test_mad(ctx, NULL),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(ctx->out->mad_hdr.status),
			IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

/*
 * What ib_mad received on the GSI QP, and every class but PerfMgt GETs,
 * goes back untouched: ib_mad then routes it as without process_mad.
 */
static void sroce_pma_passes_through_the_rest(struct kunit *test)
{
	struct sroce_pma_test_ctx *ctx = test->priv;
	struct ib_wc wc = {};

	memset(ctx->out, 0x5a, sizeof(*ctx->out));
	sroce_pma_test_get(ctx->in, IB_PMA_PORT_COUNTERS, 1);
	KUNIT_EXPECT_EQ(test, sroce_pma_test_mad(ctx, &wc), IB_MAD_RESULT_SUCCESS);
	ctx->in->mad_hdr.mgmt_class = IB_MGMT_CLASS_CM;
	KUNIT_EXPECT_EQ(test, sroce_pma_test_mad(ctx, NULL), IB_MAD_RESULT_SUCCESS);
	sroce_pma_test_get(ctx->in, IB_PMA_PORT_COUNTERS, 1);
	ctx->in->mad_hdr.method = IB_MGMT_METHOD_SET;
	KUNIT_EXPECT_EQ(test, sroce_pma_test_mad(ctx, NULL), IB_MAD_RESULT_SUCCESS);
	KUNIT_EXPECT_EQ(test, ctx->out->mad_hdr.method, 0x5a);
	KUNIT_EXPECT_EQ(test, ctx->out_size, sizeof(*ctx->out));
}

static struct kunit_case sroce_pma_cases[] = {
	KUNIT_CASE(sroce_pma_counters_data_in_dwords_big_endian),
	KUNIT_CASE(sroce_pma_counters_saturate),
	KUNIT_CASE(sroce_pma_counters_ext_wide_with_split),
	KUNIT_CASE(sroce_pma_class_port_info_has_ext_width),
	KUNIT_CASE(sroce_pma_counters_ext_from_device_stats),
	KUNIT_CASE(sroce_pma_counters_other_port_refused),
	KUNIT_CASE(sroce_pma_passes_through_the_rest),
	{}
};

static struct kunit_suite sroce_pma_suite = {
	.name = "sroce_pma",
	.init = sroce_pma_test_init,
	.exit = sroce_pma_test_exit,
	.test_cases = sroce_pma_cases,
};

kunit_test_suites(&sroce_pma_suite);
