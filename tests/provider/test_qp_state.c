// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests for sroce_qp_state.h: which QP states take send work
 * requests, as IBA and rdma_rxe define it, and the kernel's own move to
 * ERR overriding a state the process set before RTS.
 */
#include "sroce_qp_state.h"
#include "unit.h"

static void qp_state_refuses_sends_before_rts(struct unit_case_state *t)
{
	EXPECT(t, !sroce_qp_state_takes_sends(IBV_QPS_RESET, false));
	EXPECT(t, !sroce_qp_state_takes_sends(IBV_QPS_INIT, false));
	EXPECT(t, !sroce_qp_state_takes_sends(IBV_QPS_RTR, false));
	EXPECT(t, !sroce_qp_state_takes_sends(IBV_QPS_UNKNOWN, false));
}

static void qp_state_takes_sends_from_rts_on(struct unit_case_state *t)
{
	EXPECT(t, sroce_qp_state_takes_sends(IBV_QPS_RTS, false));
	EXPECT(t, sroce_qp_state_takes_sends(IBV_QPS_SQD, false));
	EXPECT(t, sroce_qp_state_takes_sends(IBV_QPS_SQE, false));
	EXPECT(t, sroce_qp_state_takes_sends(IBV_QPS_ERR, false));
}

static void qp_state_kernel_error_takes_sends_in_any_state(
	struct unit_case_state *t)
{
	int s;

	for (s = IBV_QPS_RESET; s <= IBV_QPS_UNKNOWN; s++)
		EXPECT(t, sroce_qp_state_takes_sends((enum ibv_qp_state)s,
						     true));
}

static const struct unit_case cases[] = {
	UNIT_CASE(qp_state_refuses_sends_before_rts),
	UNIT_CASE(qp_state_takes_sends_from_rts_on),
	UNIT_CASE(qp_state_kernel_error_takes_sends_in_any_state),
};

UNIT_MAIN(cases)
