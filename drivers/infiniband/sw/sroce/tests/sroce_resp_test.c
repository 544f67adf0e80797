// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the responder's ring of IRD resources (READ/ATOMIC answers kept
 * for duplicates, IBA 9.7.5.1), which of them answers a duplicate, and
 * whether a duplicate READ may restart it.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_qp.h"

#define IRD	4

static struct sroce_qp *ird_qp(struct kunit *test)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->lock);
	qp->rd_res = kunit_kcalloc(test, IRD, sizeof(*qp->rd_res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->rd_res);
	qp->rd_res_count = IRD;
	return qp;
}

/*
 * A duplicate request restarted the oldest READ; the requester finished it
 * from the first copy of the responses and sent a new READ. The new one
 * takes the slot (it used to be refused: NAK invalid request, QP in error)
 * and responses resume at the next oldest READ, not at the overwritten one.
 */
static void sroce_resp_new_read_reuses_a_restarted_oldest_slot(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp(test);
	struct sroce_rd_res *oldest, *res;
	int i;

	oldest = sroce_resp_new_rd_res(qp);
	KUNIT_ASSERT_NOT_NULL(test, oldest);
	for (i = 1; i < IRD; i++)
		KUNIT_ASSERT_NOT_NULL(test, sroce_resp_new_rd_res(qp));
	/* The duplicate restarted the oldest: responses go out from it. */
	oldest->pending = true;
	oldest->first_psn = 100;
	qp->rd_res_head = 0;

	res = sroce_resp_new_rd_res(qp);
	KUNIT_ASSERT_PTR_EQ(test, res, oldest);
	KUNIT_EXPECT_FALSE(test, res->pending);
	KUNIT_EXPECT_EQ(test, res->first_psn, 0U);
	KUNIT_EXPECT_EQ(test, qp->rd_res_tail, (u32)IRD + 1);
	KUNIT_EXPECT_EQ(test, qp->rd_res_head, 1U);
}

/* A head already past the reused slot stays where it is. */
static void sroce_resp_new_read_keeps_a_later_head(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp(test);
	int i;

	for (i = 0; i < IRD; i++)
		KUNIT_ASSERT_NOT_NULL(test, sroce_resp_new_rd_res(qp));
	qp->rd_res_head = 3;
	KUNIT_ASSERT_NOT_NULL(test, sroce_resp_new_rd_res(qp));
	KUNIT_EXPECT_EQ(test, qp->rd_res_head, 3U);
	KUNIT_EXPECT_EQ(test, qp->rd_res_tail, (u32)IRD + 1);
}

static void sroce_resp_no_ird_no_slot(struct kunit *test)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_EXPECT_NULL(test, sroce_resp_new_rd_res(qp));
}

/* A READ of @pkts packets at @psn, as sroce_resp_read_op() records it. */
static void ird_read(struct kunit *test, struct sroce_qp *qp, u32 psn, u32 pkts)
{
	struct sroce_rd_res *res = sroce_resp_new_rd_res(qp);

	KUNIT_ASSERT_NOT_NULL(test, res);
	res->opcode = SROCE_OP_READ_REQUEST;
	res->first_psn = psn;
	res->last_psn = sroce_psn_add(psn, pkts - 1);
}

/*
 * After a reset every slot is zero and the ring's tail is where it was: a
 * duplicate READ at PSN 0 (below a new rq_psn) must find no slot, not a
 * zeroed one (it was answered as an ATOMIC of opcode 0).
 */
static void sroce_resp_reset_slots_match_no_duplicate(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp(test);
	u32 pos;
	int i;

	for (i = 0; i < IRD; i++)
		ird_read(test, qp, 100 + 10 * i, 2);
	spin_lock_bh(&qp->lock);
	sroce_resp_reset_locked(qp);
	spin_unlock_bh(&qp->lock);
	KUNIT_EXPECT_NULL(test, sroce_resp_find_rd_res(qp, 0, &pos));
	KUNIT_EXPECT_NULL(test, sroce_resp_find_rd_res(qp, 100, &pos));
}

/* A READ still in the ring answers duplicates of each of its PSNs. */
static void sroce_resp_duplicate_finds_its_read(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp(test);
	struct sroce_rd_res *res;
	u32 pos;

	ird_read(test, qp, SROCE_PSN_MASK, 3);	/* PSNs 0xffffff, 0, 1 */
	ird_read(test, qp, 2, 1);
	res = sroce_resp_find_rd_res(qp, 0, &pos);
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_EXPECT_EQ(test, res->first_psn, (u32)SROCE_PSN_MASK);
	KUNIT_EXPECT_EQ(test, pos, 0U);
	res = sroce_resp_find_rd_res(qp, 2, &pos);
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_EXPECT_EQ(test, pos, 1U);
	KUNIT_EXPECT_NULL(test, sroce_resp_find_rd_res(qp, 3, &pos));
}

/*
 * A duplicate READ against one remembered READ of 4 packets at MTU 1024:
 * PSNs 100..103, va 0x10000, 3500 bytes, rkey 0x1234.
 */
#define DUP_MTU		1024
#define DUP_PSN		100
#define DUP_VA		0x10000ULL
#define DUP_LEN		3500U
#define DUP_RKEY	0x1234U

struct dup_read_case {
	const char *desc;
	u32 psn;
	struct sroce_reth reth;
	bool matches;
};

static const struct dup_read_case dup_read_cases[] = {
	{ "the whole READ again", DUP_PSN,
	  { DUP_VA, DUP_RKEY, DUP_LEN }, true },
	{ "the rest from its third PSN", DUP_PSN + 2,
	  { DUP_VA + 2 * DUP_MTU, DUP_RKEY, DUP_LEN - 2 * DUP_MTU }, true },
	{ "the last packet only", DUP_PSN + 3,
	  { DUP_VA + 3 * DUP_MTU, DUP_RKEY, DUP_LEN - 3 * DUP_MTU }, true },
	{ "another rkey", DUP_PSN,
	  { DUP_VA, DUP_RKEY + 1, DUP_LEN }, false },
	{ "the whole READ at a later PSN", DUP_PSN + 2,
	  { DUP_VA, DUP_RKEY, DUP_LEN }, false },
	{ "an address not at its PSN's offset", DUP_PSN + 1,
	  { DUP_VA + 8, DUP_RKEY, DUP_LEN - DUP_MTU }, false },
	{ "a length past the original's end", DUP_PSN,
	  { DUP_VA, DUP_RKEY, 0x80000000U }, false },
	{ "a shorter length", DUP_PSN,
	  { DUP_VA, DUP_RKEY, DUP_LEN - 1 }, false },
	{ "another address, same length", DUP_PSN,
	  { DUP_VA + 0x100000, DUP_RKEY, DUP_LEN }, false },
	{ "a PSN before the READ", DUP_PSN - 1,
	  { DUP_VA - DUP_MTU, DUP_RKEY, DUP_LEN + DUP_MTU }, false },
};

static void dup_read_case_desc(const struct dup_read_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dup_read, dup_read_cases, dup_read_case_desc);

/* Only a request for exactly the rest of the original restarts it. */
static void sroce_resp_dup_read_must_ask_for_the_rest(struct kunit *test)
{
	const struct dup_read_case *c = test->param_value;
	const struct sroce_rd_res res = {
		.opcode = SROCE_OP_READ_REQUEST, .valid = true,
		.first_psn = DUP_PSN, .last_psn = DUP_PSN + 3,
		.va = DUP_VA, .rkey = DUP_RKEY, .length = DUP_LEN,
	};

	KUNIT_EXPECT_EQ(test, sroce_resp_dup_read_matches(&res, c->psn, &c->reth,
							   DUP_MTU), c->matches);
}

/* A zero-length READ owns one PSN; its duplicate names the same address. */
static void sroce_resp_dup_zero_length_read_matches_itself(struct kunit *test)
{
	const struct sroce_rd_res res = {
		.opcode = SROCE_OP_READ_REQUEST, .valid = true,
		.first_psn = 7, .last_psn = 7, .va = DUP_VA, .rkey = DUP_RKEY,
	};
	const struct sroce_reth same = { DUP_VA, DUP_RKEY, 0 };
	const struct sroce_reth longer = { DUP_VA, DUP_RKEY, DUP_MTU };

	KUNIT_EXPECT_TRUE(test, sroce_resp_dup_read_matches(&res, 7, &same, DUP_MTU));
	KUNIT_EXPECT_FALSE(test, sroce_resp_dup_read_matches(&res, 7, &longer, DUP_MTU));
}

/* Which duplicates at an ATOMIC's PSN get its saved result again. */
struct dup_atomic_case {
	const char *desc;
	u8 opcode;
	u32 psn;
	u64 va;
	u32 rkey;
	bool matches;
};

#define DUP_ATOMIC_PSN	0x200

static const struct dup_atomic_case dup_atomic_cases[] = {
	{ "the same request", SROCE_OP_FETCH_ADD, DUP_ATOMIC_PSN,
	  DUP_VA, DUP_RKEY, true },
	{ "another rkey", SROCE_OP_FETCH_ADD, DUP_ATOMIC_PSN,
	  DUP_VA, DUP_RKEY + 1, false },
	{ "another address", SROCE_OP_FETCH_ADD, DUP_ATOMIC_PSN,
	  DUP_VA + 8, DUP_RKEY, false },
	{ "the other atomic opcode", SROCE_OP_COMPARE_SWAP, DUP_ATOMIC_PSN,
	  DUP_VA, DUP_RKEY, false },
	{ "a READ at the ATOMIC's PSN", SROCE_OP_READ_REQUEST, DUP_ATOMIC_PSN,
	  DUP_VA, DUP_RKEY, false },
};

static void dup_atomic_case_desc(const struct dup_atomic_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dup_atomic, dup_atomic_cases, dup_atomic_case_desc);

static void sroce_resp_dup_atomic_must_repeat_the_request(struct kunit *test)
{
	const struct dup_atomic_case *c = test->param_value;
	const struct sroce_rd_res res = {
		.opcode = SROCE_OP_FETCH_ADD, .valid = true,
		.first_psn = DUP_ATOMIC_PSN, .last_psn = DUP_ATOMIC_PSN,
		.va = DUP_VA, .rkey = DUP_RKEY, .length = sizeof(u64),
	};
	struct sroce_hdrs h = {
		.bth = { .opcode = c->opcode, .psn = c->psn },
	};

	if (c->opcode == SROCE_OP_READ_REQUEST)
		h.reth = (struct sroce_reth){ c->va, c->rkey, sizeof(u64) };
	else
		h.atmeth = (struct sroce_atmeth){ .va = c->va, .rkey = c->rkey };
	KUNIT_EXPECT_EQ(test, sroce_resp_dup_atomic_matches(&res, &h), c->matches);
}

static struct kunit_case sroce_resp_cases[] = {
	KUNIT_CASE(sroce_resp_reset_slots_match_no_duplicate),
	KUNIT_CASE(sroce_resp_duplicate_finds_its_read),
	KUNIT_CASE(sroce_resp_new_read_reuses_a_restarted_oldest_slot),
	KUNIT_CASE(sroce_resp_new_read_keeps_a_later_head),
	KUNIT_CASE(sroce_resp_no_ird_no_slot),
	KUNIT_CASE_PARAM(sroce_resp_dup_read_must_ask_for_the_rest,
			 dup_read_gen_params),
	KUNIT_CASE(sroce_resp_dup_zero_length_read_matches_itself),
	KUNIT_CASE_PARAM(sroce_resp_dup_atomic_must_repeat_the_request,
			 dup_atomic_gen_params),
	{}
};

static struct kunit_suite sroce_resp_suite = {
	.name = "sroce_resp",
	.test_cases = sroce_resp_cases,
};

kunit_test_suites(&sroce_resp_suite);
