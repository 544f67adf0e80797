// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data-path tests: queue pair lifetime - caps, refusals, modify/query,
 * destroy, and the qp_num table pollers use to retire slots.
 */
#include <errno.h>
#include <string.h>

#include "dp.h"

static void qp_create_reports_caps_from_rings_and_grant(
	struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	unsigned int maps = dp.mock->live_mappings();
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 5, .max_recv_wr = 3,
			 .max_send_sge = 3, .max_recv_sge = 2,
			 .max_inline_data = 40 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp;

	REQUIRE(t, cq != NULL);
	qp = ibv_create_qp(dp.pd, &attr);
	REQUIRE(t, qp != NULL);
	/* Depths are the rings'; SGEs the smaller of grant and stride. */
	EXPECT(t, attr.cap.max_send_wr == 8 && attr.cap.max_recv_wr == 4);
	EXPECT(t, attr.cap.max_send_sge == 3 && attr.cap.max_recv_sge == 2);
	EXPECT(t, attr.cap.max_inline_data == 40);
	EXPECT(t, dp.mock->live_mappings() == maps + 2);
	EXPECT(t, ibv_qp_to_qp_ex(qp) == NULL);
	EXPECT(t, qp->state == IBV_QPS_RESET && qp->qp_type == IBV_QPT_RC);
	EXPECT(t, ibv_destroy_qp(qp) == 0);
	EXPECT(t, dp.mock->live_mappings() == maps);
	ibv_destroy_cq(cq);
}

static struct ibv_qp *try_create(struct ibv_cq *cq, enum ibv_qp_type type,
				 uint32_t comp_mask, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD | comp_mask,
		.pd = dp.pd,
		.send_ops_flags = send_ops,
	};

	return ibv_create_qp_ex(dp.ctx, &attr);
}

static void qp_create_refuses_what_sroce_cannot_do(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	unsigned int creates = dp.mock->commands(IB_USER_VERBS_CMD_CREATE_QP);
	/* UC and UD are supported (the VM tests run them); these are not. */
	const enum ibv_qp_type types[] = { IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND };
	size_t i;

	REQUIRE(t, cq != NULL);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		errno = 0;
		EXPECT(t, try_create(cq, types[i], 0, 0) == NULL);
		EXPECT(t, errno == EOPNOTSUPP);
	}
	errno = 0;
	EXPECT(t, try_create(cq, IBV_QPT_RC, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			     IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO) ==
			  NULL);
	EXPECT(t, errno == EOPNOTSUPP);
	errno = 0;
	EXPECT(t, try_create(cq, IBV_QPT_RC, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			     IBV_QP_EX_WITH_TSO) == NULL);
	EXPECT(t, errno == EOPNOTSUPP);
	/* Refused before the kernel is asked. */
	EXPECT(t, dp.mock->commands(IB_USER_VERBS_CMD_CREATE_QP) == creates);
	ibv_destroy_cq(cq);
}

static void qp_ex_exists_only_with_send_ops_flags(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	struct ibv_qp *plain, *ex;

	REQUIRE(t, cq != NULL);
	plain = try_create(cq, IBV_QPT_RC, 0, 0);
	ex = try_create(cq, IBV_QPT_RC, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			IBV_QP_EX_WITH_RDMA_WRITE);
	EXPECT(t, plain && ex);
	EXPECT(t, plain && ibv_qp_to_qp_ex(plain) == NULL);
	EXPECT(t, ex && ibv_qp_to_qp_ex(ex) != NULL);
	EXPECT(t, ex && ibv_qp_to_qp_ex(ex)->wr_rdma_write != NULL);
	if (plain)
		ibv_destroy_qp(plain);
	if (ex)
		ibv_destroy_qp(ex);
	ibv_destroy_cq(cq);
}

static void qp_create_refuses_bad_ring_geometry(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	unsigned int maps, destroys;

	REQUIRE(t, cq != NULL);
	maps = dp.mock->live_mappings();
	destroys = dp.mock->commands(IB_USER_VERBS_CMD_DESTROY_QP);
	dp.mock->lie_next_create(MOCK_LIE_MAPPING_TOO_SHORT);
	errno = 0;
	EXPECT(t, try_create(cq, IBV_QPT_RC, 0, 0) == NULL);
	EXPECT(t, errno == EPROTO);
	EXPECT(t, dp.mock->commands(IB_USER_VERBS_CMD_DESTROY_QP) ==
			  destroys + 1);
	EXPECT(t, dp.mock->live_mappings() == maps);
	ibv_destroy_cq(cq);
}

static void qp_modify_and_query_reach_kernel(struct unit_case_state *t)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp_init_attr init;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_modify_qp(f.qp, &attr, IBV_QP_STATE | IBV_QP_PORT |
					    IBV_QP_PKEY_INDEX |
					    IBV_QP_ACCESS_FLAGS) == 0);
	EXPECT(t, f.kqp->state == IBV_QPS_INIT && f.qp->state == IBV_QPS_INIT);
	memset(&attr, 0, sizeof(attr));
	EXPECT(t, ibv_query_qp(f.qp, &attr, IBV_QP_STATE | IBV_QP_CAP,
			       &init) == 0);
	EXPECT(t, attr.qp_state == IBV_QPS_INIT);
	/* The mock answers max_send_wr 1; the provider knows better. */
	EXPECT(t, attr.cap.max_send_wr == 8 && init.cap.max_recv_wr == 8);
	EXPECT(t, init.cap.max_send_sge == 4 && init.cap.max_inline_data == 64);
	fx_teardown(&f);
}

/* RESET drops outstanding WQEs without completions: slots come back. */
static void qp_reset_frees_outstanding_slots(struct unit_case_state *t)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RESET };
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, fill_sq(&f) == 8 && fill_rq(&f) == 8);
	EXPECT(t, ibv_modify_qp(f.qp, &attr, IBV_QP_STATE) == 0);
	k_sq_consume(f.kqp, k_sq_pending(f.kqp));
	k_rq_consume(f.kqp, k_rq_pending(f.kqp));
	EXPECT(t, fx_move(&f, IBV_QPS_RTS) == 0);
	EXPECT(t, fill_sq(&f) == 8 && fill_rq(&f) == 8);
	fx_teardown(&f);
}

static void qp_destroy_unmaps_and_later_cqes_still_poll(
	struct unit_case_state *t)
{
	unsigned int maps = dp.mock->live_mappings();
	struct ibv_wc wc;
	uint32_t qpn;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	qpn = f.qp->qp_num;
	EXPECT(t, post_one(&f, IBV_WR_SEND, IBV_SEND_SIGNALED, 1) == 0);
	EXPECT(t, ibv_destroy_qp(f.qp) == 0);
	EXPECT(t, !f.kqp->alive);
	EXPECT(t, dp.mock->live_mappings() == maps + 1);	/* the CQ */
	/* A completion the kernel wrote before the destroy. */
	k_complete(&f, false, f.kqp->sq.hdr->consumer, 1);
	f.qp = NULL;
	EXPECT(t, ibv_poll_cq(f.cq, 1, &wc) == 1);
	EXPECT(t, wc.qp_num == qpn && wc.wr_id == 1);
	fx_teardown(&f);
}

/* The mock gives every QPN the same low byte: one hash chain. */
static void qp_table_keeps_qps_sharing_a_bucket_apart(
	struct unit_case_state *t)
{
	struct fx f[3];
	struct ibv_wc wc;
	int i, made = 0;

	for (i = 0; i < 3; i++, made++)
		if (!fx_setup(t, &f[i], NULL))
			break;
	for (i = 0; i < made; i++)
		EXPECT(t, fill_sq(&f[i]) == 8);
	/* Complete the middle QP only: only its SQ gets room. */
	if (made == 3) {
		k_complete_all_sends(&f[1]);
		EXPECT(t, ibv_poll_cq(f[1].cq, 1, &wc) == 1);
		EXPECT(t, fill_sq(&f[0]) == 0 && fill_sq(&f[2]) == 0);
		EXPECT(t, fill_sq(&f[1]) == 8);
	}
	for (i = 0; i < made; i++)
		fx_teardown(&f[i]);
}

DP_CASES(dp_qp_cases,
	 UNIT_CASE(qp_create_reports_caps_from_rings_and_grant),
	 UNIT_CASE(qp_create_refuses_what_sroce_cannot_do),
	 UNIT_CASE(qp_ex_exists_only_with_send_ops_flags),
	 UNIT_CASE(qp_create_refuses_bad_ring_geometry),
	 UNIT_CASE(qp_modify_and_query_reach_kernel),
	 UNIT_CASE(qp_reset_frees_outstanding_slots),
	 UNIT_CASE(qp_destroy_unmaps_and_later_cqes_still_poll),
	 UNIT_CASE(qp_table_keeps_qps_sharing_a_bucket_apart));
