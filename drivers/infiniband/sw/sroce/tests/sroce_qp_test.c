// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which QP state transitions modify_qp accepts for RC (and, where
 * the tables differ, UC and UD), with which attribute masks (IBA 10.3.1, table
 * 91), and that a modify failing its
 * last check under qp->lock applies nothing.
 */
#include <kunit/test.h>

#include "sroce_qp.h"

#define TO_INIT		(IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | \
			 IB_QP_ACCESS_FLAGS)
#define TO_RTR		(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | \
			 IB_QP_DEST_QPN | IB_QP_RQ_PSN | \
			 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define TO_RTS		(IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | \
			 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			 IB_QP_MAX_QP_RD_ATOMIC)

#define UC_TO_RTR	(IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | \
			 IB_QP_DEST_QPN | IB_QP_RQ_PSN)

struct transition {
	enum ib_qp_state cur, next;
	int mask;
	bool valid;
	enum ib_qp_type type;	/* 0 (IB_QPT_SMI) stands for RC here */
};

static const struct transition transitions[] = {
	/* The connection sequence, with exactly the required attributes. */
	{ IB_QPS_RESET, IB_QPS_INIT, TO_INIT, true },
	{ IB_QPS_INIT, IB_QPS_RTR, TO_RTR, true },
	{ IB_QPS_RTR, IB_QPS_RTS, TO_RTS, true },
	/* A required attribute missing. */
	{ IB_QPS_RESET, IB_QPS_INIT, TO_INIT & ~IB_QP_PORT, false },
	{ IB_QPS_INIT, IB_QPS_RTR, TO_RTR & ~IB_QP_AV, false },
	{ IB_QPS_INIT, IB_QPS_RTR, TO_RTR & ~IB_QP_DEST_QPN, false },
	{ IB_QPS_RTR, IB_QPS_RTS, TO_RTS & ~IB_QP_SQ_PSN, false },
	/* An attribute the transition does not take. */
	{ IB_QPS_RESET, IB_QPS_INIT, TO_INIT | IB_QP_SQ_PSN, false },
	/* Skipping states. */
	{ IB_QPS_RESET, IB_QPS_RTR, TO_RTR, false },
	{ IB_QPS_RESET, IB_QPS_RTS, TO_RTS, false },
	{ IB_QPS_INIT, IB_QPS_RTS, TO_RTS, false },
	/* Error is reachable from every state past RESET; leads to RESET. */
	{ IB_QPS_RESET, IB_QPS_ERR, IB_QP_STATE, false },
	{ IB_QPS_INIT, IB_QPS_ERR, IB_QP_STATE, true },
	{ IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE, true },
	{ IB_QPS_ERR, IB_QPS_RESET, IB_QP_STATE, true },
	{ IB_QPS_ERR, IB_QPS_RTS, TO_RTS, false },
	/* Drain and back. */
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE, true },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QP_STATE, true },
	/* Staying in RTS while changing a timer. */
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QP_STATE | IB_QP_MIN_RNR_TIMER, true },
	/*
	 * SQE (send queue error): a UD QP leaves it for RTS with a modify but
	 * never enters it by one (only a failed send does). An RC QP never
	 * is in SQE: sroce refuses a cur_qp_state that is not the real one.
	 */
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QP_STATE, true, IB_QPT_UD },
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QP_STATE | IB_QP_QKEY, true, IB_QPT_UD },
	{ IB_QPS_RTS, IB_QPS_SQE, IB_QP_STATE, false, IB_QPT_UD },
	/* The type's own table: UD's RTR takes no AV, RC's needs one. */
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE, true, IB_QPT_UD },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE, false },
	/*
	 * UC: RC's sequence without what only acknowledgements need: no
	 * RD atomic depths, RNR timer, timeout or retry counts.
	 */
	{ IB_QPS_RESET, IB_QPS_INIT, TO_INIT, true, IB_QPT_UC },
	{ IB_QPS_INIT, IB_QPS_RTR, UC_TO_RTR, true, IB_QPT_UC },
	{ IB_QPS_INIT, IB_QPS_RTR, UC_TO_RTR & ~IB_QP_RQ_PSN, false, IB_QPT_UC },
	{ IB_QPS_INIT, IB_QPS_RTR, TO_RTR, false, IB_QPT_UC },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN, true, IB_QPT_UC },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE, false, IB_QPT_UC },
	{ IB_QPS_RTR, IB_QPS_RTS, TO_RTS, false, IB_QPT_UC },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE, true, IB_QPT_UC },
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QP_STATE, true, IB_QPT_UC },
	/* Not a state at all. */
	{ IB_QPS_ERR + 1, IB_QPS_RESET, IB_QP_STATE, false },
	{ IB_QPS_RESET, IB_QPS_ERR + 1, IB_QP_STATE, false },
};

static void sroce_qp_transitions_follow_the_iba_table(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(transitions); i++) {
		const struct transition *t = &transitions[i];

		KUNIT_EXPECT_EQ_MSG(test,
			sroce_qp_state_transition_valid(t->type ?: IB_QPT_RC,
							t->cur, t->next, t->mask),
			t->valid, "type %d: %d -> %d mask %#x", t->type,
			t->cur, t->next, t->mask);
	}
}

#define IRD_OLD		4
#define IRD_NEW		16

/* A QP in @state with an IRD ring of IRD_OLD; qp->lock initialised. */
static struct sroce_qp *ird_qp_in(struct kunit *test, enum ib_qp_state state)
{
	struct sroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->lock);
	qp->state = state;
	qp->rd_res = kunit_kcalloc(test, IRD_OLD, sizeof(*qp->rd_res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->rd_res);
	qp->rd_res_count = IRD_OLD;
	qp->attr.max_dest_rd_atomic = IRD_OLD;
	return qp;
}

/* SQD->SQD changing max_dest_rd_atomic, checked while the QP was in SQD. */
static int commit_ird_resize(struct kunit *test, struct sroce_qp *qp,
			     struct sroce_rd_res **rd_res)
{
	struct ib_qp_attr attr = { .max_dest_rd_atomic = IRD_NEW };
	struct sroce_av av = {};
	int err;

	*rd_res = kunit_kcalloc(test, IRD_NEW, sizeof(**rd_res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *rd_res);
	spin_lock_bh(&qp->lock);
	err = sroce_qp_commit_modify_locked(qp, &attr, IB_QP_MAX_DEST_RD_ATOMIC,
					    IB_QPS_SQD, IB_QPS_SQD, &av, rd_res);
	spin_unlock_bh(&qp->lock);
	return err;
}

/*
 * The QP went to ERR between modify_qp's checks and the commit: the modify
 * fails and the IRD ring is the one it had (the new one is for the caller
 * to free).
 */
static void sroce_qp_failed_modify_keeps_the_ird(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp_in(test, IB_QPS_ERR);
	struct sroce_rd_res *old = qp->rd_res, *rd_res;

	KUNIT_EXPECT_EQ(test, commit_ird_resize(test, qp, &rd_res), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, qp->rd_res, old);
	KUNIT_EXPECT_EQ(test, qp->rd_res_count, (u32)IRD_OLD);
	KUNIT_EXPECT_EQ(test, qp->attr.max_dest_rd_atomic, (u8)IRD_OLD);
	KUNIT_EXPECT_PTR_NE(test, rd_res, old);
}

/* Still in SQD: the new ring is installed, the old one handed back. */
static void sroce_qp_committed_modify_resizes_the_ird(struct kunit *test)
{
	struct sroce_qp *qp = ird_qp_in(test, IB_QPS_SQD);
	struct sroce_rd_res *old = qp->rd_res, *rd_res;

	KUNIT_EXPECT_EQ(test, commit_ird_resize(test, qp, &rd_res), 0);
	KUNIT_EXPECT_PTR_EQ(test, rd_res, old);
	KUNIT_EXPECT_PTR_NE(test, qp->rd_res, old);
	KUNIT_EXPECT_EQ(test, qp->rd_res_count, (u32)IRD_NEW);
	KUNIT_EXPECT_EQ(test, qp->attr.max_dest_rd_atomic, (u8)IRD_NEW);
}

static struct kunit_case sroce_qp_cases[] = {
	KUNIT_CASE(sroce_qp_transitions_follow_the_iba_table),
	KUNIT_CASE(sroce_qp_failed_modify_keeps_the_ird),
	KUNIT_CASE(sroce_qp_committed_modify_resizes_the_ird),
	{}
};

static struct kunit_suite sroce_qp_suite = {
	.name = "sroce_qp",
	.test_cases = sroce_qp_cases,
};

kunit_test_suites(&sroce_qp_suite);
