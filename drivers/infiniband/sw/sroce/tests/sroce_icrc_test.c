// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RoCEv2 ICRC against packets whose ICRC was computed by other
 * implementations (rdma_rxe on the wire, zlib in the vector generator).
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include "sroce_icrc.h"
#include "rxe_capture_vectors.h"
#include SROCE_UNALIGNED_H

static u32 stored_icrc(const unsigned char *pkt, unsigned int len)
{
	return get_unaligned_le32(pkt + len - 4);
}

static u32 icrc_of(struct kunit *test, const unsigned char *pkt, unsigned int len)
{
	u32 icrc = 0;

	KUNIT_ASSERT_EQ(test, sroce_icrc_compute(pkt, len - 4, &icrc), 0);
	return icrc;
}

static void sroce_icrc_matches_rxe_capture(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rxe_capture_vectors); i++) {
		const struct rxe_capture_vector *v = &rxe_capture_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test, icrc_of(test, v->bytes, v->len),
				    stored_icrc(v->bytes, v->len), "%s", v->name);
	}
}

static void sroce_icrc_matches_zlib_for_ipv6(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, icrc_of(test, ipv6_read_request, sizeof(ipv6_read_request)),
			stored_icrc(ipv6_read_request, sizeof(ipv6_read_request)));
}

/* Offsets in an IPv4 packet of fields routers may rewrite. */
static const unsigned int ipv4_variant_bytes[] = {
	1,		/* TOS */
	8,		/* TTL */
	10, 11,		/* header checksum */
	20 + 6, 20 + 7,	/* UDP checksum */
	28 + 4,		/* BTH FECN/BECN/reserved */
};

/* Offsets of invariant fields: changing any must change the ICRC. */
static const unsigned int ipv4_invariant_bytes[] = {
	2, 4, 9, 12, 16,	/* length, id, protocol, addresses */
	20, 22,			/* UDP ports */
	28, 29, 33, 37,		/* BTH opcode, flags, dest QP, PSN */
	44,			/* first byte after the BTH */
};

static void sroce_icrc_ignores_variant_fields(struct kunit *test)
{
	const struct rxe_capture_vector *v = &rxe_capture_vectors[0];
	unsigned char *pkt = kunit_kmalloc(test, v->len, GFP_KERNEL);
	u32 expected = stored_icrc(v->bytes, v->len);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	for (i = 0; i < ARRAY_SIZE(ipv4_variant_bytes); i++) {
		memcpy(pkt, v->bytes, v->len);
		pkt[ipv4_variant_bytes[i]] ^= 0xa5;
		KUNIT_EXPECT_EQ_MSG(test, icrc_of(test, pkt, v->len), expected,
				    "byte %u", ipv4_variant_bytes[i]);
	}
}

static void sroce_icrc_covers_invariant_fields(struct kunit *test)
{
	const struct rxe_capture_vector *v = &rxe_capture_vectors[0];
	unsigned char *pkt = kunit_kmalloc(test, v->len, GFP_KERNEL);
	u32 expected = stored_icrc(v->bytes, v->len);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, pkt);
	for (i = 0; i < ARRAY_SIZE(ipv4_invariant_bytes); i++) {
		memcpy(pkt, v->bytes, v->len);
		pkt[ipv4_invariant_bytes[i]] ^= 0x01;
		KUNIT_EXPECT_NE_MSG(test, icrc_of(test, pkt, v->len), expected,
				    "byte %u", ipv4_invariant_bytes[i]);
	}
	/* And the last payload byte. */
	memcpy(pkt, v->bytes, v->len);
	pkt[v->len - 5] ^= 0x80;
	KUNIT_EXPECT_NE(test, icrc_of(test, pkt, v->len), expected);
}

static void sroce_icrc_ipv6_ignores_class_flow_and_hop_limit(struct kunit *test)
{
	unsigned char pkt[sizeof(ipv6_read_request)];
	u32 expected = stored_icrc(ipv6_read_request, sizeof(pkt));

	memcpy(pkt, ipv6_read_request, sizeof(pkt));
	pkt[0] ^= 0x0f;		/* traffic class, high nibble */
	pkt[1] ^= 0xff;		/* traffic class, flow label */
	pkt[3] ^= 0x01;		/* flow label */
	pkt[7] = 1;		/* hop limit */
	KUNIT_EXPECT_EQ(test, icrc_of(test, pkt, sizeof(pkt)), expected);

	pkt[8] ^= 0x01;		/* source address is invariant */
	KUNIT_EXPECT_NE(test, icrc_of(test, pkt, sizeof(pkt)), expected);
}

static void sroce_icrc_incremental_equals_one_shot(struct kunit *test)
{
	const struct rxe_capture_vector *v = &rxe_capture_vectors[0];
	unsigned int len = v->len - 4, off;
	u32 crc;
	int hdrs = sroce_icrc_begin(v->bytes, len, &crc);

	KUNIT_ASSERT_GT(test, hdrs, 0);
	/* Feed the payload in odd-sized pieces, as skb fragments would come. */
	for (off = hdrs; off < len; off += 7)
		crc = sroce_icrc_update(crc, v->bytes + off, min(7U, len - off));
	KUNIT_EXPECT_EQ(test, sroce_icrc_finish(crc), stored_icrc(v->bytes, v->len));
}

static void sroce_icrc_rejects_short_or_non_ip(struct kunit *test)
{
	unsigned char pkt[64] = { 0x45 };
	u32 icrc;

	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(pkt, 39, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(pkt, 40, &icrc), 0);
	pkt[0] = 0x55;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(pkt, 64, &icrc), -EINVAL);
	pkt[0] = 0x60;
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(pkt, 59, &icrc), -EINVAL);
	pkt[0] = 0x43;	/* IHL below the minimum header */
	KUNIT_EXPECT_EQ(test, sroce_icrc_compute(pkt, 64, &icrc), -EINVAL);
}

static struct kunit_case sroce_icrc_cases[] = {
	KUNIT_CASE(sroce_icrc_matches_rxe_capture),
	KUNIT_CASE(sroce_icrc_matches_zlib_for_ipv6),
	KUNIT_CASE(sroce_icrc_ignores_variant_fields),
	KUNIT_CASE(sroce_icrc_covers_invariant_fields),
	KUNIT_CASE(sroce_icrc_ipv6_ignores_class_flow_and_hop_limit),
	KUNIT_CASE(sroce_icrc_incremental_equals_one_shot),
	KUNIT_CASE(sroce_icrc_rejects_short_or_non_ip),
	{}
};

static struct kunit_suite sroce_icrc_suite = {
	.name = "sroce_icrc",
	.test_cases = sroce_icrc_cases,
};

kunit_test_suites(&sroce_icrc_suite);
