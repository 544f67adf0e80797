// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data-path tests: completion queues (create/destroy, ibv_poll_cq
 * translation and ring handling, the ibv_cq_ex API, notify, resize) and
 * memory regions.
 */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>

#include "dp.h"

static void cq_create_maps_power_of_two_ring_and_destroy_unmaps(
	struct unit_case_state *t)
{
	unsigned int maps = dp.mock->live_mappings();
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 5, NULL, NULL, 0);
	struct mock_cq *k;

	EXPECT(t, cq != NULL);
	if (!cq)
		return;
	k = dp.mock->cq(cq->handle);
	EXPECT(t, k && k->ring.depth == 8 && cq->cqe == 8);
	EXPECT(t, dp.mock->live_mappings() == maps + 1);
	EXPECT(t, ibv_destroy_cq(cq) == 0);
	EXPECT(t, !k->alive);
	EXPECT(t, dp.mock->live_mappings() == maps);
}

static void cq_create_refuses_bad_ring_geometry(struct unit_case_state *t)
{
	const enum mock_lie lies[] = { MOCK_LIE_DEPTH_NOT_POW2,
				       MOCK_LIE_MAPPING_TOO_SHORT,
				       MOCK_LIE_RESERVED_SET };
	unsigned int maps = dp.mock->live_mappings();
	size_t i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		unsigned int destroys =
			dp.mock->commands(IB_USER_VERBS_CMD_DESTROY_CQ);

		dp.mock->lie_next_create(lies[i]);
		errno = 0;
		EXPECT(t, ibv_create_cq(dp.ctx, 4, NULL, NULL, 0) == NULL);
		EXPECT(t, errno == EPROTO);
		/* The kernel object is not leaked, nor a mapping. */
		EXPECT(t, dp.mock->commands(IB_USER_VERBS_CMD_DESTROY_CQ) ==
				  destroys + 1);
		EXPECT(t, dp.mock->live_mappings() == maps);
	}
}

static void cq_poll_empty_returns_zero(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 4, NULL, NULL, 0);
	struct ibv_wc wc[2];

	EXPECT(t, cq && ibv_poll_cq(cq, 2, wc) == 0);
	if (cq)
		ibv_destroy_cq(cq);
}

static const struct sroce_cqe full_recv_cqe = {
	.wr_id = 0x1122334455667788ULL,
	.status = IBV_WC_SUCCESS,
	.opcode = SROCE_WC_RECV_RDMA_WITH_IMM,
	.vendor_err = 0,
	.byte_len = 4096,
	.imm_data = 0x0a0b0c0d,
	.qp_num = 0xabcdef,
	.src_qp = 0x123456,
	.wc_flags = SROCE_WC_WITH_IMM,
	.wqe_index = 0,
	.is_recv = 1,
	.sl = 5,
	.pkey_index = 3,
};

static void cq_poll_translates_every_field(struct unit_case_state *t)
{
	struct sroce_cqe err = {
		.wr_id = 99,
		.status = IBV_WC_REM_ACCESS_ERR,
		.opcode = SROCE_WC_RDMA_WRITE,
		.vendor_err = 0x5a,
		.qp_num = 0xabcdef,
		.wc_flags = SROCE_WC_WITH_INV,
		.invalidated_rkey = 0x4444,
	};
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 4, NULL, NULL, 0);
	struct mock_cq *k = cq ? dp.mock->cq(cq->handle) : NULL;
	struct ibv_wc wc[3];

	EXPECT(t, k != NULL);
	if (!k)
		return;
	k_cq_push(k, &full_recv_cqe);
	k_cq_push(k, &err);
	memset(wc, 0xee, sizeof(wc));
	EXPECT(t, ibv_poll_cq(cq, 3, wc) == 2);
	EXPECT(t, wc[0].wr_id == full_recv_cqe.wr_id);
	EXPECT(t, wc[0].status == IBV_WC_SUCCESS);
	EXPECT(t, wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM);
	EXPECT(t, wc[0].byte_len == 4096 && wc[0].imm_data == 0x0a0b0c0d);
	EXPECT(t, wc[0].qp_num == 0xabcdef && wc[0].src_qp == 0x123456);
	EXPECT(t, wc[0].wc_flags == IBV_WC_WITH_IMM);
	EXPECT(t, wc[0].sl == 5 && wc[0].pkey_index == 3);
	EXPECT(t, wc[0].slid == 0 && wc[0].dlid_path_bits == 0);
	EXPECT(t, wc[0].vendor_err == 0);
	EXPECT(t, wc[1].wr_id == 99 && wc[1].status == IBV_WC_REM_ACCESS_ERR);
	EXPECT(t, wc[1].opcode == IBV_WC_RDMA_WRITE && wc[1].vendor_err == 0x5a);
	EXPECT(t, wc[1].wc_flags == IBV_WC_WITH_INV &&
			  wc[1].invalidated_rkey == 0x4444);
	ibv_destroy_cq(cq);
}

static void cq_poll_drops_unknown_wc_flags(struct unit_case_state *t)
{
	struct sroce_cqe cqe = full_recv_cqe;
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 4, NULL, NULL, 0);
	struct ibv_wc wc;

	REQUIRE(t, cq != NULL);
	cqe.wc_flags = 0xffffffff;
	k_cq_push(dp.mock->cq(cq->handle), &cqe);
	EXPECT(t, ibv_poll_cq(cq, 1, &wc) == 1);
	EXPECT(t, wc.wc_flags ==
			  (IBV_WC_GRH | IBV_WC_WITH_IMM | IBV_WC_WITH_INV));
	ibv_destroy_cq(cq);
}

static void cq_poll_batches_and_publishes_consumer(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 7, NULL, NULL, 0);
	struct mock_cq *k = cq ? dp.mock->cq(cq->handle) : NULL;
	struct sroce_cqe cqe = full_recv_cqe;
	struct ibv_wc wc[8];
	uint32_t start;
	int i;

	REQUIRE(t, k != NULL);
	start = k->ring.hdr->consumer;
	for (i = 0; i < 5; i++) {
		cqe.wr_id = i;
		k_cq_push(k, &cqe);
	}
	EXPECT(t, ibv_poll_cq(cq, 3, wc) == 3);
	EXPECT(t, wc[0].wr_id == 0 && wc[2].wr_id == 2);
	EXPECT(t, k->ring.hdr->consumer == start + 3);
	EXPECT(t, ibv_poll_cq(cq, 8, wc) == 2);
	EXPECT(t, wc[0].wr_id == 3 && wc[1].wr_id == 4);
	EXPECT(t, k->ring.hdr->consumer == start + 5);
	ibv_destroy_cq(cq);
}

/* Indices start just below 2^32, so they wrap during the laps. */
static void cq_poll_wraps_over_2_32_for_several_laps(struct unit_case_state *t)
{
	struct sroce_cqe cqe = full_recv_cqe;
	struct ibv_wc wc[4];
	struct mock_cq *k;
	struct ibv_cq *cq;
	uint64_t id = 0, seen = 0;
	int lap, i, n;

	dp.mock->set_ring_start(0xfffffff6);
	cq = ibv_create_cq(dp.ctx, 3, NULL, NULL, 0);
	dp.mock->set_ring_start(0);
	REQUIRE(t, cq != NULL);
	k = dp.mock->cq(cq->handle);
	for (lap = 0; lap < 10; lap++) {
		for (i = 0; i < 4; i++) {
			cqe.wr_id = id++;
			k_cq_push(k, &cqe);
		}
		n = ibv_poll_cq(cq, 4, wc);
		EXPECT(t, n == 4);
		for (i = 0; i < n; i++)
			EXPECT(t, wc[i].wr_id == seen++);
	}
	EXPECT(t, k->ring.hdr->consumer == (uint32_t)(0xfffffff6 + 40));
	ibv_destroy_cq(cq);
}

static void cq_poll_stalls_on_impossible_producer(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 3, NULL, NULL, 0);
	struct mock_cq *k = cq ? dp.mock->cq(cq->handle) : NULL;
	struct ibv_wc wc;

	REQUIRE(t, k != NULL);
	k->ring.hdr->producer = k->ring.hdr->consumer + k->ring.depth + 1;
	EXPECT(t, ibv_poll_cq(cq, 1, &wc) == 0);
	EXPECT(t, k->ring.hdr->consumer == k->ring.hdr->producer -
						   k->ring.depth - 1);
	ibv_destroy_cq(cq);
}

static struct ibv_cq_ex *create_cq_ex(uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 8,
		.wc_flags = wc_flags,
	};

	return ibv_create_cq_ex(dp.ctx, &attr);
}

static void cq_ex_reads_fields_with_start_next_end(struct unit_case_state *t)
{
	struct ibv_cq_ex *cqx = create_cq_ex(IBV_WC_STANDARD_FLAGS);
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	struct sroce_cqe cqe = full_recv_cqe;
	struct mock_cq *k;

	REQUIRE(t, cqx != NULL);
	k = dp.mock->cq(cqx->handle);
	k_cq_push(k, &cqe);
	cqe.wr_id = 2;
	cqe.status = IBV_WC_WR_FLUSH_ERR;
	k_cq_push(k, &cqe);
	EXPECT(t, ibv_start_poll(cqx, &attr) == 0);
	EXPECT(t, cqx->wr_id == full_recv_cqe.wr_id &&
			  cqx->status == IBV_WC_SUCCESS);
	EXPECT(t, ibv_wc_read_opcode(cqx) == IBV_WC_RECV_RDMA_WITH_IMM);
	EXPECT(t, ibv_wc_read_byte_len(cqx) == 4096);
	EXPECT(t, ibv_wc_read_imm_data(cqx) == 0x0a0b0c0d);
	EXPECT(t, ibv_wc_read_qp_num(cqx) == 0xabcdef);
	EXPECT(t, ibv_wc_read_src_qp(cqx) == 0x123456);
	EXPECT(t, ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_IMM);
	EXPECT(t, ibv_wc_read_sl(cqx) == 5 && ibv_wc_read_slid(cqx) == 0);
	EXPECT(t, ibv_wc_read_dlid_path_bits(cqx) == 0);
	EXPECT(t, ibv_wc_read_vendor_err(cqx) == 0);
	EXPECT(t, ibv_next_poll(cqx) == 0);
	EXPECT(t, cqx->wr_id == 2 && cqx->status == IBV_WC_WR_FLUSH_ERR);
	EXPECT(t, ibv_next_poll(cqx) == ENOENT);
	ibv_end_poll(cqx);
	EXPECT(t, k->ring.hdr->consumer == k->ring.hdr->producer);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
}

/* ENOENT from start_poll must leave the CQ unlocked: no end_poll follows. */
static void cq_ex_start_poll_on_empty_is_enoent_and_unlocks(
	struct unit_case_state *t)
{
	struct ibv_cq_ex *cqx = create_cq_ex(IBV_WC_EX_WITH_BYTE_LEN);
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	struct ibv_wc wc;

	REQUIRE(t, cqx != NULL);
	EXPECT(t, ibv_start_poll(cqx, &attr) == ENOENT);
	k_cq_push(dp.mock->cq(cqx->handle), &full_recv_cqe);
	EXPECT(t, ibv_start_poll(cqx, &attr) == 0);
	ibv_end_poll(cqx);
	EXPECT(t, ibv_poll_cq(ibv_cq_ex_to_cq(cqx), 1, &wc) == 0);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
}

static void cq_ex_rejects_unsupported_wc_flags(struct unit_case_state *t)
{
	const uint64_t flags[] = { IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
				   IBV_WC_EX_WITH_CVLAN,
				   IBV_WC_EX_WITH_FLOW_TAG,
				   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK };
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		errno = 0;
		EXPECT(t, create_cq_ex(IBV_WC_EX_WITH_BYTE_LEN | flags[i]) ==
				  NULL);
		EXPECT(t, errno == EOPNOTSUPP);
	}
}

static void cq_req_notify_reaches_kernel(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 4, NULL, NULL, 0);
	struct mock_cq *k = cq ? dp.mock->cq(cq->handle) : NULL;

	REQUIRE(t, k != NULL);
	EXPECT(t, ibv_req_notify_cq(cq, 1) == 0);
	EXPECT(t, k->notify_calls == 1 && k->last_solicited_only == 1);
	EXPECT(t, ibv_req_notify_cq(cq, 0) == 0);
	EXPECT(t, k->notify_calls == 2 && k->last_solicited_only == 0);
	ibv_destroy_cq(cq);
}

/* Pushes CQEs with wr_id first, first + 1, ... */
static void push_ids(struct mock_cq *k, uint64_t first, int count)
{
	struct sroce_cqe cqe = full_recv_cqe;
	int i;

	for (i = 0; i < count; i++) {
		cqe.wr_id = first + i;
		k_cq_push(k, &cqe);
	}
}

/* Polls count CQEs one by one; each must carry the next wr_id. */
static void expect_ids(struct unit_case_state *t, struct ibv_cq *cq,
		       uint64_t first, int count)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < count; i++) {
		EXPECT(t, ibv_poll_cq(cq, 1, &wc) == 1);
		EXPECT(t, wc.wr_id == first + i);
	}
	EXPECT(t, ibv_poll_cq(cq, 1, &wc) == 0);
}

/*
 * Grow and shrink with CQEs pending, across the 2^32 wrap: they come out
 * in order from the new ring, the old mapping goes, the new ring carries
 * our consumer index, and later CQEs land in the new ring.
 */
static void cq_resize_moves_pending_cqes_in_order(struct unit_case_state *t)
{
	unsigned int maps = dp.mock->live_mappings();
	struct mock_cq *k;
	struct ibv_cq *cq;

	dp.mock->set_ring_start(0xfffffffc);
	cq = ibv_create_cq(dp.ctx, 8, NULL, NULL, 0);
	dp.mock->set_ring_start(0);
	REQUIRE(t, cq != NULL);
	k = dp.mock->cq(cq->handle);
	push_ids(k, 0, 7);
	EXPECT(t, ibv_resize_cq(cq, 100) == 0);
	EXPECT(t, cq->cqe == 128 && k->ring.depth == 128 && k->resizes == 1);
	EXPECT(t, dp.mock->live_mappings() == maps + 1);
	push_ids(k, 7, 60);
	expect_ids(t, cq, 0, 67);
	EXPECT(t, k->ring.hdr->consumer == (uint32_t)(0xfffffffc + 67));

	push_ids(k, 67, 3);
	EXPECT(t, ibv_resize_cq(cq, 3) == 0);
	EXPECT(t, cq->cqe == 4 && k->resizes == 2);
	push_ids(k, 70, 1);
	expect_ids(t, cq, 67, 4);
	EXPECT(t, ibv_destroy_cq(cq) == 0);
	EXPECT(t, dp.mock->live_mappings() == maps);
}

static void cq_resize_below_pending_fails_and_keeps_ring(
	struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 8, NULL, NULL, 0);
	struct mock_cq *k = cq ? dp.mock->cq(cq->handle) : NULL;

	REQUIRE(t, k != NULL);
	push_ids(k, 0, 5);
	EXPECT(t, ibv_resize_cq(cq, 4) == EINVAL);
	EXPECT(t, ibv_resize_cq(cq, 0) == EINVAL);
	EXPECT(t, cq->cqe == 8 && k->resizes == 0);
	expect_ids(t, cq, 0, 5);
	ibv_destroy_cq(cq);
}

static void cq_resize_refuses_bad_ring_geometry(struct unit_case_state *t)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 8, NULL, NULL, 0);

	REQUIRE(t, cq != NULL);
	dp.mock->lie_next_create(MOCK_LIE_MAPPING_TOO_SHORT);
	EXPECT(t, ibv_resize_cq(cq, 16) == EPROTO);
	ibv_destroy_cq(cq);
}

static void mr_reg_and_dereg_round_trip(struct unit_case_state *t)
{
	static char buf[8192];
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *mr = ibv_reg_mr(dp.pd, buf, sizeof(buf), access);
	struct mock_mr *k;

	REQUIRE(t, mr != NULL);
	k = dp.mock->mr(mr->lkey);
	EXPECT(t, k && k->alive && mr->rkey == k->rkey);
	EXPECT(t, k->req.start == (uintptr_t)buf && k->req.length == 8192);
	EXPECT(t, k->req.hca_va == (uintptr_t)buf &&
			  k->req.access_flags == (uint32_t)access);
	EXPECT(t, mr->addr == buf && mr->length == 8192 && mr->pd == dp.pd);
	EXPECT(t, ibv_dereg_mr(mr) == 0);
	EXPECT(t, !k->alive);
}

static void mr_rereg_passes_request_and_takes_new_keys(
	struct unit_case_state *t)
{
	static char buf[64], buf2[8192];
	struct ibv_mr *mr = ibv_reg_mr(dp.pd, buf, sizeof(buf), 0);
	struct ibv_pd *pd2 = ibv_alloc_pd(dp.ctx);
	uint32_t old_lkey;
	struct mock_mr *k;

	REQUIRE(t, mr != NULL && pd2 != NULL);
	old_lkey = mr->lkey;
	k = dp.mock->mr(mr->lkey);
	REQUIRE(t, k != NULL);
	EXPECT(t, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			       IBV_ACCESS_LOCAL_WRITE) == 0);
	EXPECT(t, k->rereg.flags == IBV_REREG_MR_CHANGE_ACCESS &&
			  k->rereg.access_flags == IBV_ACCESS_LOCAL_WRITE);
	EXPECT(t, mr->lkey == k->lkey && mr->rkey == k->rkey &&
			  mr->lkey != old_lkey);

	EXPECT(t, ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				       IBV_REREG_MR_CHANGE_PD,
			       pd2, buf2, sizeof(buf2), 0) == 0);
	EXPECT(t, k->rereg.start == (uintptr_t)buf2 &&
			  k->rereg.hca_va == (uintptr_t)buf2 &&
			  k->rereg.length == sizeof(buf2) &&
			  k->rereg.pd_handle == pd2->handle);
	EXPECT(t, mr->addr == buf2 && mr->length == sizeof(buf2) &&
			  mr->pd == pd2);
	EXPECT(t, ibv_dereg_mr(mr) == 0);
	ibv_dealloc_pd(pd2);
}

DP_CASES(dp_cq_cases,
	 UNIT_CASE(cq_create_maps_power_of_two_ring_and_destroy_unmaps),
	 UNIT_CASE(cq_create_refuses_bad_ring_geometry),
	 UNIT_CASE(cq_poll_empty_returns_zero),
	 UNIT_CASE(cq_poll_translates_every_field),
	 UNIT_CASE(cq_poll_drops_unknown_wc_flags),
	 UNIT_CASE(cq_poll_batches_and_publishes_consumer),
	 UNIT_CASE(cq_poll_wraps_over_2_32_for_several_laps),
	 UNIT_CASE(cq_poll_stalls_on_impossible_producer),
	 UNIT_CASE(cq_ex_reads_fields_with_start_next_end),
	 UNIT_CASE(cq_ex_start_poll_on_empty_is_enoent_and_unlocks),
	 UNIT_CASE(cq_ex_rejects_unsupported_wc_flags),
	 UNIT_CASE(cq_req_notify_reaches_kernel),
	 UNIT_CASE(cq_resize_moves_pending_cqes_in_order),
	 UNIT_CASE(cq_resize_below_pending_fails_and_keeps_ring),
	 UNIT_CASE(cq_resize_refuses_bad_ring_geometry),
	 UNIT_CASE(mr_reg_and_dereg_round_trip),
	 UNIT_CASE(mr_rereg_passes_request_and_takes_new_keys));
