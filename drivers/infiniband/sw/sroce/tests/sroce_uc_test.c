// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what UC speaks (its rows of the opcode table, the work requests
 * it carries) and how its responder follows the PSNs (sroce_uc.h).
 */
#include <kunit/test.h>

#include "sroce_uc.h"

/* UC has RC's sends and writes, 0x20..0x2B, with the same headers. */
static void sroce_uc_opcodes_are_rc_sends_and_writes(struct kunit *test)
{
	unsigned int op;

	for (op = SROCE_OP_SEND_FIRST; op <= SROCE_OP_WRITE_ONLY_IMM; op++) {
		const struct sroce_opcode_info *rc = sroce_opcode_lookup(op);
		const struct sroce_opcode_info *uc =
			sroce_opcode_lookup(SROCE_TRANSPORT_UC | op);

		KUNIT_ASSERT_NOT_NULL_MSG(test, uc, "opcode %#x", op);
		KUNIT_EXPECT_EQ_MSG(test, uc->flags, rc->flags, "opcode %#x", op);
		KUNIT_EXPECT_EQ_MSG(test, uc->hdr_len, rc->hdr_len, "opcode %#x", op);
		KUNIT_EXPECT_TRUE(test, uc->flags & SROCE_OPF_REQUEST);
	}
	/* WRITE FIRST and ONLY carry the RETH; MIDDLE and LAST do not. */
	KUNIT_EXPECT_TRUE(test, sroce_opcode_lookup(0x26)->flags & SROCE_OPF_RETH);
	KUNIT_EXPECT_TRUE(test, sroce_opcode_lookup(0x2a)->flags & SROCE_OPF_RETH);
	KUNIT_EXPECT_FALSE(test, sroce_opcode_lookup(0x27)->flags & SROCE_OPF_RETH);
	KUNIT_EXPECT_FALSE(test, sroce_opcode_lookup(0x28)->flags & SROCE_OPF_RETH);
}

/* No READ, ATOMIC, ACK or invalidate on UC: the rest of the class is empty. */
static void sroce_uc_has_nothing_past_write_only_imm(struct kunit *test)
{
	unsigned int op;

	for (op = SROCE_OP_READ_REQUEST; op < 0x20; op++)
		KUNIT_EXPECT_NULL_MSG(test,
				      sroce_opcode_lookup(SROCE_TRANSPORT_UC | op),
				      "opcode %#x", SROCE_TRANSPORT_UC | op);
}

static void sroce_uc_carries_sends_and_writes_only(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_uc_wr_opcode_ok(SROCE_WR_SEND));
	KUNIT_EXPECT_TRUE(test, sroce_uc_wr_opcode_ok(SROCE_WR_SEND_WITH_IMM));
	KUNIT_EXPECT_TRUE(test, sroce_uc_wr_opcode_ok(SROCE_WR_RDMA_WRITE));
	KUNIT_EXPECT_TRUE(test, sroce_uc_wr_opcode_ok(SROCE_WR_RDMA_WRITE_WITH_IMM));
	KUNIT_EXPECT_FALSE(test, sroce_uc_wr_opcode_ok(SROCE_WR_RDMA_READ));
	KUNIT_EXPECT_FALSE(test, sroce_uc_wr_opcode_ok(SROCE_WR_ATOMIC_CMP_AND_SWP));
	KUNIT_EXPECT_FALSE(test, sroce_uc_wr_opcode_ok(SROCE_WR_ATOMIC_FETCH_AND_ADD));
	KUNIT_EXPECT_FALSE(test, sroce_uc_wr_opcode_ok(SROCE_WR_SEND_WITH_INV));
	KUNIT_EXPECT_FALSE(test, sroce_uc_wr_opcode_ok(SROCE_WR_LOCAL_INV));
}

/* Flags of the UC opcodes the cases name. */
static u32 uc_flags(u8 op)
{
	return sroce_opcode_lookup(SROCE_TRANSPORT_UC | op)->flags;
}

struct uc_step_case {
	const char *name;
	u8 last_op;		/* 0xff: nothing accepted (idle, or after a drop) */
	u32 expected;
	u8 op;
	u32 psn;
	enum sroce_uc_step step;
};

#define IDLE	0xff

static const struct uc_step_case uc_step_cases[] = {
	{ "first at the expected PSN", IDLE, 10, SROCE_OP_SEND_FIRST, 10, SROCE_UC_CONTINUE },
	{ "middle goes on", SROCE_OP_SEND_FIRST, 11, SROCE_OP_SEND_MIDDLE, 11, SROCE_UC_CONTINUE },
	{ "last goes on", SROCE_OP_SEND_MIDDLE, 12, SROCE_OP_SEND_LAST_IMM, 12, SROCE_UC_CONTINUE },
	{ "only after a last", SROCE_OP_SEND_LAST, 13, SROCE_OP_WRITE_ONLY, 13, SROCE_UC_CONTINUE },
	{ "write last with imm continues a write", SROCE_OP_WRITE_MIDDLE, 5,
	  SROCE_OP_WRITE_LAST_IMM, 5, SROCE_UC_CONTINUE },
	{ "psn wraps", SROCE_OP_WRITE_FIRST, 0, SROCE_OP_WRITE_LAST, 0, SROCE_UC_CONTINUE },
	{ "middle after a gap", SROCE_OP_SEND_FIRST, 11, SROCE_OP_SEND_MIDDLE, 12, SROCE_UC_DROP },
	{ "last after a gap", SROCE_OP_WRITE_MIDDLE, 11, SROCE_OP_WRITE_LAST, 13, SROCE_UC_DROP },
	{ "middle with nothing under way", IDLE, 11, SROCE_OP_SEND_MIDDLE, 11, SROCE_UC_DROP },
	{ "last after a complete message", SROCE_OP_SEND_ONLY, 11, SROCE_OP_SEND_LAST, 11,
	  SROCE_UC_DROP },
	{ "write middle inside a send", SROCE_OP_SEND_FIRST, 11, SROCE_OP_WRITE_MIDDLE, 11,
	  SROCE_UC_DROP },
	{ "send last inside a write", SROCE_OP_WRITE_MIDDLE, 11, SROCE_OP_SEND_LAST, 11,
	  SROCE_UC_DROP },
	{ "first after a gap resyncs", IDLE, 11, SROCE_OP_SEND_FIRST, 40, SROCE_UC_RESYNC },
	{ "only behind the expected psn resyncs", SROCE_OP_SEND_ONLY, 11, SROCE_OP_SEND_ONLY, 3,
	  SROCE_UC_RESYNC },
	{ "first inside a message restarts", SROCE_OP_SEND_MIDDLE, 11, SROCE_OP_SEND_FIRST, 11,
	  SROCE_UC_RESTART },
	{ "only after a gap inside a message restarts", SROCE_OP_WRITE_FIRST, 11,
	  SROCE_OP_WRITE_ONLY_IMM, 20, SROCE_UC_RESTART },
};

static void uc_step_case_desc(const struct uc_step_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(uc_step, uc_step_cases, uc_step_case_desc);

static void sroce_uc_step_follows_the_message_stream(struct kunit *test)
{
	const struct uc_step_case *c = test->param_value;
	u32 last = c->last_op == IDLE ? 0 : uc_flags(c->last_op);

	KUNIT_EXPECT_EQ(test, sroce_uc_step(last, c->expected, c->psn, uc_flags(c->op)),
			c->step);
}

static struct kunit_case sroce_uc_cases[] = {
	KUNIT_CASE(sroce_uc_opcodes_are_rc_sends_and_writes),
	KUNIT_CASE(sroce_uc_has_nothing_past_write_only_imm),
	KUNIT_CASE(sroce_uc_carries_sends_and_writes_only),
	KUNIT_CASE_PARAM(sroce_uc_step_follows_the_message_stream, uc_step_gen_params),
	{}
};

static struct kunit_suite sroce_uc_suite = {
	.name = "sroce_uc",
	.test_cases = sroce_uc_cases,
};

kunit_test_suites(&sroce_uc_suite);
