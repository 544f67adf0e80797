// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: which RC QP state transitions modify_qp accepts, with which
 * attribute masks (IBA 10.3.1, table 91).
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

struct transition {
	enum ib_qp_state cur, next;
	int mask;
	bool valid;
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
			sroce_qp_state_transition_valid(t->cur, t->next, t->mask),
			t->valid, "%d -> %d mask %#x", t->cur, t->next, t->mask);
	}
}

static struct kunit_case sroce_qp_cases[] = {
	KUNIT_CASE(sroce_qp_transitions_follow_the_iba_table),
	{}
};

static struct kunit_suite sroce_qp_suite = {
	.name = "sroce_qp",
	.test_cases = sroce_qp_cases,
};

kunit_test_suites(&sroce_qp_suite);
