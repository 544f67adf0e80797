// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a local segment split back into the packets it stands for
 * (sroce_seg.h).
 */
#include <kunit/test.h>

#include "sroce_seg.h"

/* The first packet of a WRITE segment, as the receiver parsed it. */
static struct sroce_hdrs seg_write_first(u32 psn, u32 payload_len)
{
	struct sroce_hdrs h = {
		.bth.opcode = SROCE_OP_WRITE_FIRST,
		.bth.psn = psn,
		.bth.dest_qpn = 0x12,
		.reth.va = 0x1000,
		.reth.rkey = 0x77,
		.reth.dma_len = 8192,
		.payload_len = payload_len,
	};

	h.op = sroce_opcode_lookup(h.bth.opcode);
	return h;
}

static void sroce_seg_splits_a_whole_write(struct kunit *test)
{
	const struct sroce_seg seg = {
		.pkts = 3,
		.pkt_len = 1024,
		.middle_opcode = SROCE_OP_WRITE_MIDDLE,
		.last_opcode = SROCE_OP_WRITE_LAST_IMM,
		.last_ack_req = true,
		.last_solicited = true,
		.last_imm = cpu_to_be32(0xabcd),
	};
	/* Starts two PSNs before the wrap: PSNs are 24 bits. */
	struct sroce_hdrs first = seg_write_first(0xfffffe, 2048 + 6), h;
	static const u8 opcodes[] = { SROCE_OP_WRITE_FIRST, SROCE_OP_WRITE_MIDDLE,
				      SROCE_OP_WRITE_LAST_IMM };
	static const u32 psns[] = { 0xfffffe, 0xffffff, 0 };
	static const u32 lens[] = { 1024, 1024, 6 };
	u32 i;

	KUNIT_ASSERT_TRUE(test, sroce_seg_valid(&seg, first.payload_len));
	for (i = 0; i < seg.pkts; i++) {
		bool last = i == seg.pkts - 1;

		KUNIT_EXPECT_EQ(test, sroce_seg_pkt(&first, &seg, i, &h), i * 1024);
		KUNIT_EXPECT_EQ(test, h.bth.opcode, opcodes[i]);
		KUNIT_EXPECT_PTR_EQ(test, h.op, sroce_opcode_lookup(opcodes[i]));
		KUNIT_EXPECT_EQ(test, h.bth.psn, psns[i]);
		KUNIT_EXPECT_EQ(test, h.payload_len, lens[i]);
		KUNIT_EXPECT_EQ(test, h.bth.pad, last ? 2 : 0);
		KUNIT_EXPECT_EQ(test, h.bth.ack_req, last);
		KUNIT_EXPECT_EQ(test, h.bth.solicited, last);
		KUNIT_EXPECT_EQ(test, h.bth.dest_qpn, 0x12u);
		if (last)
			KUNIT_EXPECT_EQ(test, be32_to_cpu(h.imm), 0xabcdu);
	}
	/* Only the first packet carries the RETH; it is left as parsed. */
	sroce_seg_pkt(&first, &seg, 0, &h);
	KUNIT_EXPECT_EQ(test, h.reth.va, 0x1000ull);
	KUNIT_EXPECT_TRUE(test, h.op->flags & SROCE_OPF_RETH);
}

static void sroce_seg_middle_of_a_message_ends_in_middle(struct kunit *test)
{
	const struct sroce_seg seg = {
		.pkts = 2,
		.pkt_len = 1024,
		.middle_opcode = SROCE_OP_WRITE_MIDDLE,
		.last_opcode = SROCE_OP_WRITE_MIDDLE,
	};
	struct sroce_hdrs first = seg_write_first(10, 2048), h;

	first.bth.opcode = SROCE_OP_WRITE_MIDDLE;
	first.op = sroce_opcode_lookup(first.bth.opcode);
	KUNIT_ASSERT_TRUE(test, sroce_seg_valid(&seg, first.payload_len));
	sroce_seg_pkt(&first, &seg, 1, &h);
	KUNIT_EXPECT_EQ(test, h.bth.opcode, SROCE_OP_WRITE_MIDDLE);
	KUNIT_EXPECT_EQ(test, h.bth.psn, 11u);
	KUNIT_EXPECT_EQ(test, h.payload_len, 1024u);
	KUNIT_EXPECT_FALSE(test, h.bth.ack_req);
}

/* AckReq set on the segment's headers belongs to its last packet only. */
static void sroce_seg_first_packet_never_asks(struct kunit *test)
{
	const struct sroce_seg seg = {
		.pkts = 2,
		.pkt_len = 256,
		.middle_opcode = SROCE_OP_SEND_MIDDLE,
		.last_opcode = SROCE_OP_SEND_LAST,
	};
	struct sroce_hdrs first = {
		.bth.opcode = SROCE_OP_SEND_FIRST,
		.bth.ack_req = true,
		.bth.solicited = true,
		.payload_len = 300,
	}, h;

	first.op = sroce_opcode_lookup(first.bth.opcode);
	KUNIT_ASSERT_TRUE(test, sroce_seg_valid(&seg, first.payload_len));
	sroce_seg_pkt(&first, &seg, 0, &h);
	KUNIT_EXPECT_FALSE(test, h.bth.ack_req);
	KUNIT_EXPECT_FALSE(test, h.bth.solicited);
	KUNIT_EXPECT_EQ(test, h.payload_len, 256u);
	KUNIT_EXPECT_EQ(test, sroce_seg_pkt(&first, &seg, 1, &h), 256u);
	KUNIT_EXPECT_EQ(test, h.bth.opcode, SROCE_OP_SEND_LAST);
	KUNIT_EXPECT_EQ(test, h.payload_len, 44u);
	KUNIT_EXPECT_FALSE(test, h.bth.ack_req);
}

static void sroce_seg_read_response_last_carries_aeth(struct kunit *test)
{
	const struct sroce_seg seg = {
		.pkts = 4,
		.pkt_len = 4096,
		.middle_opcode = SROCE_OP_READ_RESPONSE_MIDDLE,
		.last_opcode = SROCE_OP_READ_RESPONSE_LAST,
		.last_aeth = { .syndrome = 0x1f, .msn = 9 },
	};
	struct sroce_hdrs first = {
		.bth.opcode = SROCE_OP_READ_RESPONSE_FIRST,
		.bth.psn = 100,
		.aeth = { .syndrome = 0x1f, .msn = 9 },
		.payload_len = 3 * 4096 + 4096,
	}, h;

	first.op = sroce_opcode_lookup(first.bth.opcode);
	KUNIT_ASSERT_TRUE(test, sroce_seg_valid(&seg, first.payload_len));
	sroce_seg_pkt(&first, &seg, 2, &h);
	KUNIT_EXPECT_EQ(test, h.bth.opcode, SROCE_OP_READ_RESPONSE_MIDDLE);
	KUNIT_EXPECT_FALSE(test, h.op->flags & SROCE_OPF_AETH);
	KUNIT_EXPECT_EQ(test, sroce_seg_pkt(&first, &seg, 3, &h), 3 * 4096u);
	KUNIT_EXPECT_EQ(test, h.bth.opcode, SROCE_OP_READ_RESPONSE_LAST);
	KUNIT_EXPECT_TRUE(test, h.op->flags & SROCE_OPF_AETH);
	KUNIT_EXPECT_EQ(test, h.aeth.msn, 9u);
	KUNIT_EXPECT_EQ(test, h.bth.psn, 103u);
	KUNIT_EXPECT_EQ(test, h.payload_len, 4096u);
}

/* Sizes that do not add up, or opcodes sroce does not speak. */
static void sroce_seg_rejects_what_does_not_add_up(struct kunit *test)
{
	struct sroce_seg seg = {
		.pkts = 3,
		.pkt_len = 1024,
		.middle_opcode = SROCE_OP_WRITE_MIDDLE,
		.last_opcode = SROCE_OP_WRITE_LAST,
	};

	KUNIT_EXPECT_TRUE(test, sroce_seg_valid(&seg, 2049));
	KUNIT_EXPECT_TRUE(test, sroce_seg_valid(&seg, 3072));
	/* Last packet empty, or longer than the others. */
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 2048));
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 3073));
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 0));
	seg.pkt_len = 0;
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 100));
	seg.pkt_len = 1024;
	seg.pkts = 1;
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 100));
	seg.pkts = SROCE_SEG_MAX_PKTS + 1;
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, SROCE_SEG_MAX_PKTS * 1024 + 1));
	seg.pkts = 3;
	seg.last_opcode = 0x1f;	/* reserved RC opcode */
	KUNIT_EXPECT_FALSE(test, sroce_seg_valid(&seg, 3000));
}

/* Counters see a segment's packets as if they had come one by one. */
static void sroce_seg_wire_bytes_adds_up(struct kunit *test)
{
	const struct sroce_seg seg = {
		.pkts = 3,
		.pkt_len = 1024,
		.middle_opcode = SROCE_OP_WRITE_MIDDLE,
		.last_opcode = SROCE_OP_WRITE_LAST_IMM,
	};
	struct sroce_hdrs first = seg_write_first(7, 2048 + 5), h;
	u32 i, sum = 0;

	for (i = 0; i < seg.pkts; i++) {
		sroce_seg_pkt(&first, &seg, i, &h);
		sum += sroce_seg_pkt_bytes(&h);
	}
	/* BTH+RETH, BTH, BTH+ImmDt; 3 pad bytes; an ICRC each. */
	KUNIT_EXPECT_EQ(test, sum, 28u + 12 + 16 + 2053 + 3 + 12);
	KUNIT_EXPECT_EQ(test, sroce_seg_wire_bytes(&first, &seg), sum);
}

static void sroce_seg_max_pkts_fits_the_skb(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_seg_max_pkts(1024), 15u);
	KUNIT_EXPECT_EQ(test, sroce_seg_max_pkts(4096), 3u);
	KUNIT_EXPECT_EQ(test, sroce_seg_max_pkts(256), (u32)SROCE_SEG_MAX_PKTS);
	KUNIT_EXPECT_EQ(test, sroce_seg_max_pkts(65536), 1u);
}

static struct kunit_case sroce_seg_cases[] = {
	KUNIT_CASE(sroce_seg_splits_a_whole_write),
	KUNIT_CASE(sroce_seg_middle_of_a_message_ends_in_middle),
	KUNIT_CASE(sroce_seg_first_packet_never_asks),
	KUNIT_CASE(sroce_seg_read_response_last_carries_aeth),
	KUNIT_CASE(sroce_seg_rejects_what_does_not_add_up),
	KUNIT_CASE(sroce_seg_wire_bytes_adds_up),
	KUNIT_CASE(sroce_seg_max_pkts_fits_the_skb),
	{}
};

static struct kunit_suite sroce_seg_suite = {
	.name = "sroce_seg",
	.test_cases = sroce_seg_cases,
};

kunit_test_suites(&sroce_seg_suite);
