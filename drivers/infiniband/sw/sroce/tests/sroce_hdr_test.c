// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RoCEv2 header codec and the opcode table.
 *
 * Round trips cover every opcode in the table; golden vectors are packets
 * rdma_rxe put on a wire, with field values read by tshark's dissector.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include "sroce_hdr.h"
#include "rxe_capture_vectors.h"

#define MAX_PKT	256

/* Distinct, non-zero patterns so a field read from the wrong place shows. */
static void fill_hdrs(struct sroce_hdrs *h, u8 opcode, u32 payload_len)
{
	*h = (struct sroce_hdrs) {
		.bth = {
			.opcode = opcode, .solicited = true, .migreq = true,
			.pkey = 0xffff, .fecn = true, .becn = false,
			.dest_qpn = 0xabcdef, .ack_req = true, .psn = 0xfedcba,
		},
		.deth = { .qkey = 0x80010000, .src_qpn = 0x123456 },
		.reth = { .va = 0x0123456789abcdefULL, .rkey = 0x11223344,
			  .dma_len = 0x55667788 },
		.atmeth = { .va = 0x1111222233334444ULL, .rkey = 0x99aabbcc,
			    .swap_add = 0x5555666677778888ULL,
			    .compare = 0x9999aaaabbbbccccULL },
		.aeth = { .syndrome = 0x1f, .msn = 0x765432 },
		.atmack_orig = 0xdddd0000eeee1111ULL,
		.imm = cpu_to_be32(0xcafef00d),
		.ieth_rkey = 0x0badbeef,
		.payload_len = payload_len,
	};
}

static void expect_same_bth(struct kunit *test, const struct sroce_bth *a,
			    const struct sroce_bth *b)
{
	KUNIT_EXPECT_EQ(test, a->opcode, b->opcode);
	KUNIT_EXPECT_EQ(test, a->solicited, b->solicited);
	KUNIT_EXPECT_EQ(test, a->migreq, b->migreq);
	KUNIT_EXPECT_EQ(test, a->pad, b->pad);
	KUNIT_EXPECT_EQ(test, a->tver, b->tver);
	KUNIT_EXPECT_EQ(test, a->pkey, b->pkey);
	KUNIT_EXPECT_EQ(test, a->fecn, b->fecn);
	KUNIT_EXPECT_EQ(test, a->becn, b->becn);
	KUNIT_EXPECT_EQ(test, a->dest_qpn, b->dest_qpn);
	KUNIT_EXPECT_EQ(test, a->ack_req, b->ack_req);
	KUNIT_EXPECT_EQ(test, a->psn, b->psn);
}

static void expect_same_ext(struct kunit *test, u32 flags,
			    const struct sroce_hdrs *a, const struct sroce_hdrs *b)
{
	if (flags & SROCE_OPF_DETH) {
		KUNIT_EXPECT_EQ(test, a->deth.qkey, b->deth.qkey);
		KUNIT_EXPECT_EQ(test, a->deth.src_qpn, b->deth.src_qpn);
	}
	if (flags & SROCE_OPF_RETH) {
		KUNIT_EXPECT_EQ(test, a->reth.va, b->reth.va);
		KUNIT_EXPECT_EQ(test, a->reth.rkey, b->reth.rkey);
		KUNIT_EXPECT_EQ(test, a->reth.dma_len, b->reth.dma_len);
	}
	if (flags & SROCE_OPF_ATMETH) {
		KUNIT_EXPECT_EQ(test, a->atmeth.va, b->atmeth.va);
		KUNIT_EXPECT_EQ(test, a->atmeth.rkey, b->atmeth.rkey);
		KUNIT_EXPECT_EQ(test, a->atmeth.swap_add, b->atmeth.swap_add);
		KUNIT_EXPECT_EQ(test, a->atmeth.compare, b->atmeth.compare);
	}
	if (flags & SROCE_OPF_AETH) {
		KUNIT_EXPECT_EQ(test, a->aeth.syndrome, b->aeth.syndrome);
		KUNIT_EXPECT_EQ(test, a->aeth.msn, b->aeth.msn);
	}
	if (flags & SROCE_OPF_ATMACK)
		KUNIT_EXPECT_EQ(test, a->atmack_orig, b->atmack_orig);
	if (flags & SROCE_OPF_IMMDT)
		KUNIT_EXPECT_EQ(test, a->imm, b->imm);
	if (flags & SROCE_OPF_IETH)
		KUNIT_EXPECT_EQ(test, a->ieth_rkey, b->ieth_rkey);
}

/* Build headers, then payload + pad + a dummy ICRC; return the length. */
static int build_packet(struct kunit *test, u8 *buf, struct sroce_hdrs *h)
{
	int hdr_len = sroce_hdrs_build(buf, MAX_PKT, h);
	unsigned int tail;

	KUNIT_ASSERT_GT(test, hdr_len, 0);
	tail = h->payload_len + h->bth.pad + SROCE_ICRC_BYTES;
	KUNIT_ASSERT_LE(test, hdr_len + tail, (unsigned int)MAX_PKT);
	memset(buf + hdr_len, 0x5a, tail);
	return hdr_len + tail;
}

static void sroce_hdr_round_trips_every_opcode(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MAX_PKT, GFP_KERNEL);
	struct sroce_hdrs in, out;
	unsigned int op, known = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);
		u32 payload = info && (info->flags & SROCE_OPF_PAYLOAD) ? 13 : 0;
		int len;

		if (!info)
			continue;
		known++;
		fill_hdrs(&in, op, payload);
		len = build_packet(test, buf, &in);
		KUNIT_ASSERT_EQ_MSG(test, sroce_hdrs_parse(buf, len, &out), 0,
				    "opcode %#x", op);
		KUNIT_EXPECT_PTR_EQ(test, out.op, info);
		KUNIT_EXPECT_EQ(test, out.payload_len, payload);
		expect_same_bth(test, &in.bth, &out.bth);
		expect_same_ext(test, info->flags, &in, &out);
	}
	/* 23 RC, 12 UC (sends and writes) and 2 UD opcodes. */
	KUNIT_EXPECT_EQ(test, known, 37U);
}

static void sroce_hdr_lengths_match_the_spec(struct kunit *test)
{
	static const struct { u8 op; u8 len; } cases[] = {
		{ 0x04, 12 }, { 0x05, 16 }, { 0x06, 28 }, { 0x0b, 32 },
		{ 0x0c, 28 }, { 0x0d, 16 }, { 0x0e, 12 }, { 0x11, 16 },
		{ 0x12, 24 }, { 0x13, 40 }, { 0x14, 40 }, { 0x17, 16 },
		{ 0x64, 20 }, { 0x65, 24 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_lookup(cases[i].op)->hdr_len,
				    cases[i].len, "opcode %#x", cases[i].op);
}

static void sroce_hdr_unknown_opcodes_have_no_row(struct kunit *test)
{
	static const u8 unknown[] = { 0x15, 0x18, 0x1f, 0x2c, 0x33, 0x40, 0x60,
				      0x66, 0x80, 0xff };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		KUNIT_EXPECT_NULL_MSG(test, sroce_opcode_lookup(unknown[i]),
				      "opcode %#x", unknown[i]);
}

static void sroce_hdr_truncated_packets_rejected(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MAX_PKT, GFP_KERNEL);
	struct sroce_hdrs h;
	unsigned int op, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);

		if (!info)
			continue;
		fill_hdrs(&h, op, 0);
		build_packet(test, buf, &h);
		for (len = 0; len < info->hdr_len + SROCE_ICRC_BYTES; len++)
			KUNIT_EXPECT_EQ_MSG(test, sroce_hdrs_parse(buf, len, &h),
					    -EBADMSG, "opcode %#x len %u", op, len);
	}
}

static void sroce_hdr_malformed_packets_rejected(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, MAX_PKT, GFP_KERNEL);
	struct sroce_hdrs h;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Unknown transport version. */
	fill_hdrs(&h, SROCE_OP_SEND_ONLY, 8);
	len = build_packet(test, buf, &h);
	buf[1] |= 0x01;
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len, &h), -EPROTONOSUPPORT);

	/* Unknown opcode. */
	fill_hdrs(&h, SROCE_OP_SEND_ONLY, 8);
	len = build_packet(test, buf, &h);
	buf[0] = 0x15;
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len, &h), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, h.bth.opcode, 0x15);
	KUNIT_EXPECT_NULL(test, h.op);

	/* Payload and pad not a whole number of 4-byte words. */
	fill_hdrs(&h, SROCE_OP_SEND_ONLY, 8);
	len = build_packet(test, buf, &h);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len - 1, &h), -EBADMSG);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len + 2, &h), -EBADMSG);

	/* Pad count larger than what follows the headers. */
	fill_hdrs(&h, SROCE_OP_SEND_ONLY, 0);
	len = build_packet(test, buf, &h);
	buf[1] = (buf[1] & ~0x30) | (3 << 4);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len, &h), -EBADMSG);

	/* Payload on an opcode that carries none. */
	fill_hdrs(&h, SROCE_OP_ACKNOWLEDGE, 0);
	len = build_packet(test, buf, &h);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_parse(buf, len + 4, &h), -EBADMSG);
}

/*
 * AETH type 10b and bit 7 are reserved (IBA table 43): such an ACK or
 * response is not a NAK to act on but a packet to drop. Every type that
 * means something still parses.
 */
static void sroce_hdr_reserved_aeth_syndromes_rejected(struct kunit *test)
{
	static const u8 reserved[] = { 0x40, 0x41, 0x5f, 0x80, 0x9f, 0xe0 };
	static const u8 valid[] = { 0x00, 0x1f, 0x20, 0x3f, 0x60, 0x61, 0x7f };
	static const u8 opcodes[] = { SROCE_OP_ACKNOWLEDGE,
				      SROCE_OP_ATOMIC_ACKNOWLEDGE,
				      SROCE_OP_READ_RESPONSE_ONLY };
	u8 *buf = kunit_kzalloc(test, MAX_PKT, GFP_KERNEL);
	struct sroce_hdrs h;
	int i, o, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (o = 0; o < ARRAY_SIZE(opcodes); o++) {
		for (i = 0; i < ARRAY_SIZE(reserved); i++) {
			fill_hdrs(&h, opcodes[o], 0);
			h.aeth.syndrome = reserved[i];
			len = build_packet(test, buf, &h);
			KUNIT_EXPECT_EQ_MSG(test, sroce_hdrs_parse(buf, len, &h),
					    -EBADMSG, "opcode %#x syndrome %#x",
					    opcodes[o], reserved[i]);
		}
		for (i = 0; i < ARRAY_SIZE(valid); i++) {
			fill_hdrs(&h, opcodes[o], 0);
			h.aeth.syndrome = valid[i];
			len = build_packet(test, buf, &h);
			KUNIT_EXPECT_EQ_MSG(test, sroce_hdrs_parse(buf, len, &h),
					    0, "opcode %#x syndrome %#x",
					    opcodes[o], valid[i]);
		}
	}
}

static void sroce_hdr_pad_brings_payload_to_four_bytes(struct kunit *test)
{
	u32 len;

	for (len = 0; len < 64; len++)
		KUNIT_EXPECT_EQ(test, (len + sroce_pad_for(len)) % 4, 0U);
	KUNIT_EXPECT_EQ(test, sroce_pad_for(1024), 0);
	KUNIT_EXPECT_EQ(test, sroce_pad_for(1), 3);
}

static void sroce_hdr_build_refuses_unknown_opcode_and_short_buffer(struct kunit *test)
{
	u8 buf[64];
	struct sroce_hdrs h;

	fill_hdrs(&h, 0x15, 0);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_build(buf, sizeof(buf), &h), -EINVAL);
	fill_hdrs(&h, SROCE_OP_COMPARE_SWAP, 0);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_build(buf, 39, &h), -ENOSPC);
	KUNIT_EXPECT_EQ(test, sroce_hdrs_build(buf, 40, &h), 40);
}

/* Field values as tshark's InfiniBand dissector decoded the capture. */
struct golden {
	const char *frame;
	u8 opcode;
	u32 dest_qpn, psn;
	bool ack_req;
	u32 payload_len;
	u64 va;
	u32 rkey, dma_len;
	u8 syndrome;
	u32 msn;
	u64 swap_add, compare, orig;
};

static const struct golden goldens[] = {
	{ "frame1_op00", 0x00, 0x11, 7919373, false, 1024 },
	{ "frame4_op02", 0x02, 0x11, 7919376, true, 1024 },
	{ "frame5_op11", 0x11, 0x11, 7919376, false, 0, .syndrome = 31, .msn = 1 },
	{ "frame25_op06", 0x06, 0x15, 7499966, false, 1024,
	  .va = 0x00005602d6067000ULL, .rkey = 0x622, .dma_len = 65536 },
	{ "frame43_op0c", 0x0c, 0x16, 80846, true, 0,
	  .va = 0x0000557e2ec57000ULL, .rkey = 0x798, .dma_len = 65536 },
	{ "frame44_op0d", 0x0d, 0x16, 80846, false, 1024, .syndrome = 31, .msn = 1 },
	{ "frame67_op14", 0x14, 0x18, 9045598, true, 0,
	  .va = 0x00005653f9597000ULL, .rkey = 0x92b, .swap_add = 1, .compare = 0 },
	{ "frame68_op12", 0x12, 0x18, 9045598, false, 0, .syndrome = 31, .msn = 1,
	  .orig = 0xdaaedae9ccbbf2e4ULL },
};

static const struct rxe_capture_vector *find_vector(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rxe_capture_vectors); i++)
		if (!strcmp(rxe_capture_vectors[i].name, name))
			return &rxe_capture_vectors[i];
	return NULL;
}

static void expect_golden_fields(struct kunit *test, const struct golden *g,
				 const struct sroce_hdrs *h)
{
	KUNIT_EXPECT_EQ(test, h->bth.opcode, g->opcode);
	KUNIT_EXPECT_EQ(test, h->bth.dest_qpn, g->dest_qpn);
	KUNIT_EXPECT_EQ(test, h->bth.psn, g->psn);
	KUNIT_EXPECT_EQ(test, h->bth.ack_req, g->ack_req);
	KUNIT_EXPECT_EQ(test, h->bth.pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, h->payload_len, g->payload_len);
	if (h->op->flags & SROCE_OPF_RETH) {
		KUNIT_EXPECT_EQ(test, h->reth.va, g->va);
		KUNIT_EXPECT_EQ(test, h->reth.rkey, g->rkey);
		KUNIT_EXPECT_EQ(test, h->reth.dma_len, g->dma_len);
	}
	if (h->op->flags & SROCE_OPF_ATMETH) {
		KUNIT_EXPECT_EQ(test, h->atmeth.va, g->va);
		KUNIT_EXPECT_EQ(test, h->atmeth.rkey, g->rkey);
		KUNIT_EXPECT_EQ(test, h->atmeth.swap_add, g->swap_add);
		KUNIT_EXPECT_EQ(test, h->atmeth.compare, g->compare);
	}
	if (h->op->flags & SROCE_OPF_AETH) {
		KUNIT_EXPECT_EQ(test, h->aeth.syndrome, g->syndrome);
		KUNIT_EXPECT_EQ(test, h->aeth.msn, g->msn);
	}
	if (h->op->flags & SROCE_OPF_ATMACK)
		KUNIT_EXPECT_EQ(test, h->atmack_orig, g->orig);
}

static void sroce_hdr_parses_rxe_capture_like_tshark(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(goldens); i++) {
		const struct rxe_capture_vector *v = find_vector(goldens[i].frame);
		unsigned int l4 = sizeof(struct iphdr) + sizeof(struct udphdr);
		struct sroce_hdrs h;

		KUNIT_ASSERT_NOT_NULL(test, v);
		KUNIT_ASSERT_EQ_MSG(test, sroce_hdrs_parse(v->bytes + l4, v->len - l4, &h),
				    0, "%s", v->name);
		expect_golden_fields(test, &goldens[i], &h);
	}
}

static void sroce_hdr_rebuild_of_rxe_capture_is_identical(struct kunit *test)
{
	unsigned int l4 = sizeof(struct iphdr) + sizeof(struct udphdr);
	u8 buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rxe_capture_vectors); i++) {
		const struct rxe_capture_vector *v = &rxe_capture_vectors[i];
		struct sroce_hdrs h;
		int len;

		KUNIT_ASSERT_EQ(test, sroce_hdrs_parse(v->bytes + l4, v->len - l4, &h), 0);
		len = sroce_hdrs_build(buf, sizeof(buf), &h);
		KUNIT_ASSERT_GT(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, v->bytes + l4, len), 0,
				    "%s", v->name);
	}
}

static struct kunit_case sroce_hdr_cases[] = {
	KUNIT_CASE(sroce_hdr_round_trips_every_opcode),
	KUNIT_CASE(sroce_hdr_lengths_match_the_spec),
	KUNIT_CASE(sroce_hdr_unknown_opcodes_have_no_row),
	KUNIT_CASE(sroce_hdr_truncated_packets_rejected),
	KUNIT_CASE(sroce_hdr_malformed_packets_rejected),
	KUNIT_CASE(sroce_hdr_reserved_aeth_syndromes_rejected),
	KUNIT_CASE(sroce_hdr_pad_brings_payload_to_four_bytes),
	KUNIT_CASE(sroce_hdr_build_refuses_unknown_opcode_and_short_buffer),
	KUNIT_CASE(sroce_hdr_parses_rxe_capture_like_tshark),
	KUNIT_CASE(sroce_hdr_rebuild_of_rxe_capture_is_identical),
	{}
};

static struct kunit_suite sroce_hdr_suite = {
	.name = "sroce_hdr",
	.test_cases = sroce_hdr_cases,
};

kunit_test_suites(&sroce_hdr_suite);
