// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data-path tests: ibv_post_send / ibv_post_recv - WQE encoding of every
 * opcode and flag, inline data, limits, completion-based slot accounting,
 * the NEED_WAKEUP doorbell, and index wraparound.
 */
#include <errno.h>
#include <string.h>

#include "dp.h"

static uint8_t buf[256];

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* Posts wr alone and returns the WQE the kernel sees (NULL if none). */
static const struct sroce_send_wqe *post_and_peek(struct unit_case_state *t,
						  struct fx *f,
						  struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	uint32_t before = k_sq_pending(f->kqp);

	EXPECT(t, ibv_post_send(f->qp, wr, &bad) == 0);
	EXPECT(t, k_sq_pending(f->kqp) == before + 1);
	return k_sq_pending(f->kqp) == before + 1 ? k_sq_peek(f->kqp, before) :
						    NULL;
}

static void post_send_encodes_send_with_sges_and_flags(
	struct unit_case_state *t)
{
	struct ibv_sge sge[2] = { { 0x1000, 100, 0x11 }, { 0x2000, 200, 0x22 } };
	struct ibv_send_wr wr = {
		.wr_id = 0xfeedULL,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			      IBV_SEND_FENCE,
	};
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	w = post_and_peek(t, &f, &wr);
	REQUIRE(t, w != NULL);
	EXPECT(t, w->wr_id == 0xfeed && w->opcode == SROCE_WR_SEND);
	EXPECT(t, w->send_flags == (SROCE_SEND_SIGNALED | SROCE_SEND_SOLICITED |
				    SROCE_SEND_FENCE));
	EXPECT(t, w->num_sge == 2 && w->inline_len == 0);
	EXPECT(t, w->sge[0].addr == 0x1000 && w->sge[0].length == 100 &&
			  w->sge[0].lkey == 0x11);
	EXPECT(t, w->sge[1].addr == 0x2000 && w->sge[1].length == 200 &&
			  w->sge[1].lkey == 0x22);
	EXPECT(t, w->imm_data == 0 && w->reserved == 0);
	EXPECT(t, all_zero(&w->atomic, sizeof(w->atomic)));
	fx_teardown(&f);
}

static void post_send_encodes_every_opcode(struct unit_case_state *t)
{
	struct ibv_sge sge = { 0x3000, 8, 0x33 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = 0x01020304;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_SEND_WITH_IMM &&
			  w->imm_data == 0x01020304);

	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 0xdead0000;
	wr.wr.rdma.rkey = 0x4242;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_RDMA_WRITE && w->imm_data == 0);
	EXPECT(t, w && w->rdma.remote_addr == 0xdead0000 &&
			  w->rdma.rkey == 0x4242 && w->rdma.reserved == 0);

	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_RDMA_WRITE_WITH_IMM &&
			  w->imm_data == 0x01020304 && w->rdma.rkey == 0x4242);

	wr.opcode = IBV_WR_RDMA_READ;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_RDMA_READ &&
			  w->rdma.remote_addr == 0xdead0000 && w->num_sge == 1);

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0xbeef0008;
	wr.wr.atomic.compare_add = 7;
	wr.wr.atomic.swap = 9;
	wr.wr.atomic.rkey = 0x5151;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP);
	EXPECT(t, w && w->atomic.remote_addr == 0xbeef0008 &&
			  w->atomic.compare_add == 7 && w->atomic.swap == 9 &&
			  w->atomic.rkey == 0x5151 && w->atomic.reserved == 0);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD &&
			  w->atomic.compare_add == 7 && w->num_sge == 1);
	fx_teardown(&f);
}

static void post_send_inline_copies_payload_after_header(
	struct unit_case_state *t)
{
	struct ibv_sge sge[2] = { { (uintptr_t)buf, 10, 0 },
				  { (uintptr_t)buf + 100, 30, 0 } };
	struct ibv_send_wr wr = {
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE,
	};
	const struct sroce_send_wqe *w;
	struct fx f;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	if (!fx_setup(t, &f, NULL))
		return;
	w = post_and_peek(t, &f, &wr);
	REQUIRE(t, w != NULL);
	EXPECT(t, w->send_flags == SROCE_SEND_INLINE);
	EXPECT(t, w->num_sge == 0 && w->inline_len == 40);
	EXPECT(t, !memcmp((const uint8_t *)w + 64, buf, 10));
	EXPECT(t, !memcmp((const uint8_t *)w + 74, buf + 100, 30));
	fx_teardown(&f);
}

static void post_send_inline_limits(struct unit_case_state *t)
{
	struct ibv_sge sge = { (uintptr_t)buf, 65, 0 };
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	}, *bad = NULL;
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	/* 65 bytes > max_inline_data 64 */
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL && bad == &wr);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	sge.length = 64;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->inline_len == 64);
	/* INLINE means nothing to a READ: its SGE is used as such. */
	wr.opcode = IBV_WR_RDMA_READ;
	w = post_and_peek(t, &f, &wr);
	EXPECT(t, w && w->send_flags == 0 && w->num_sge == 1 &&
			  w->sge[0].length == 64);
	fx_teardown(&f);
}

static void post_send_bad_wr_is_einval_after_posting_earlier_ones(
	struct unit_case_state *t)
{
	struct ibv_sge sge[5] = { { 0 } };
	struct ibv_send_wr bad_wr = { .wr_id = 2, .sg_list = sge,
				      .num_sge = 5, .opcode = IBV_WR_SEND };
	struct ibv_send_wr ok = { .wr_id = 1, .next = &bad_wr, .sg_list = sge,
				  .num_sge = 4, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad = NULL;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_post_send(f.qp, &ok, &bad) == EINVAL && bad == &bad_wr);
	EXPECT(t, k_sq_pending(f.kqp) == 1 && k_sq_peek(f.kqp, 0)->wr_id == 1);
	bad_wr.num_sge = -1;
	EXPECT(t, ibv_post_send(f.qp, &bad_wr, &bad) == EINVAL);
	fx_teardown(&f);
}

static const enum ibv_qp_state before_rts[] = { IBV_QPS_RESET, IBV_QPS_INIT,
						IBV_QPS_RTR };

/*
 * RESET, INIT, RTR: EINVAL with *bad_wr the first WR, nothing published,
 * no doorbell even when the kernel asks for one; RTS then takes posts.
 */
static void post_send_before_rts_is_einval_and_publishes_nothing(
	struct unit_case_state *t)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 0x77 };
	struct ibv_send_wr second = { .wr_id = 2, .sg_list = &sge,
				      .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr first = { .wr_id = 1, .next = &second,
				     .sg_list = &sge, .num_sge = 1,
				     .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_send_wr *bad;
	struct fx f;
	size_t i;

	if (!fx_setup(t, &f, NULL))
		return;
	f.kqp->sq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	for (i = 0; i < sizeof(before_rts) / sizeof(before_rts[0]); i++) {
		EXPECT(t, fx_move(&f, before_rts[i]) == 0);
		bad = NULL;
		EXPECT(t, ibv_post_send(f.qp, &first, &bad) == EINVAL);
		EXPECT(t, bad == &first);
		EXPECT(t, k_sq_pending(f.kqp) == 0 && f.kqp->doorbells == 0);
	}
	EXPECT(t, fx_move(&f, IBV_QPS_RTS) == 0);
	EXPECT(t, ibv_post_send(f.qp, &first, &bad) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 2 && f.kqp->doorbells == 1);
	EXPECT(t, k_sq_peek(f.kqp, 0)->wr_id == 1);
	fx_teardown(&f);
}

/* SQD executes them later, SQE and ERR flush them: all take posts. */
static void post_send_taken_in_sqd_sqe_and_err(struct unit_case_state *t)
{
	const enum ibv_qp_state states[] = { IBV_QPS_SQD, IBV_QPS_SQE,
					     IBV_QPS_ERR };
	struct fx f;
	size_t i;

	if (!fx_setup(t, &f, NULL))
		return;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		EXPECT(t, fx_move(&f, states[i]) == 0);
		EXPECT(t, post_one(&f, IBV_WR_SEND, 0, i) == 0);
		EXPECT(t, k_sq_pending(f.kqp) == i + 1);
	}
	fx_teardown(&f);
}

/*
 * A QP in RTR that the kernel put in ERR by itself (its responder failed)
 * takes posts, to flush them: the kernel marks every entry to ERR with
 * NEED_WAKEUP in the RQ's flags and clears it on RESET.
 */
static void post_send_taken_in_rtr_once_kernel_put_qp_in_error(
	struct unit_case_state *t)
{
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, fx_move(&f, IBV_QPS_RTR) == 0);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 1) == EINVAL);
	f.kqp->rq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 2) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 1 && k_sq_peek(f.kqp, 0)->wr_id == 2);
	/* The move to RESET clears the flag, and RESET refuses again. */
	f.kqp->rq.hdr->flags = 0;
	EXPECT(t, fx_move(&f, IBV_QPS_RESET) == 0);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 3) == EINVAL);
	fx_teardown(&f);
}

/* Memory windows (sroce-abi.h): LOCAL_INV, SEND_WITH_INV, BIND_MW. */
static void post_send_encodes_invalidate_and_bind(struct unit_case_state *t)
{
	struct ibv_sge sge = { 0x3000, 8, 0x33 };
	struct ibv_mr mr = { .lkey = 0x4455 };
	struct ibv_mw mw2 = { .rkey = 0x80001200, .type = IBV_MW_TYPE_2 };
	struct ibv_mw mw1 = { .rkey = 0x80003400, .type = IBV_MW_TYPE_1 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *bad = NULL;
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0x1234;
	w = post_and_peek(t, &f, &wr);
	REQUIRE(t, w != NULL);
	/* A local operation carries no SGE, whatever sg_list says. */
	EXPECT(t, w->opcode == SROCE_WR_LOCAL_INV && w->invalidate_rkey == 0x1234 &&
			  w->num_sge == 0);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x5678;
	w = post_and_peek(t, &f, &wr);
	REQUIRE(t, w != NULL);
	EXPECT(t, w->opcode == SROCE_WR_SEND_WITH_INV && w->invalidate_rkey == 0x5678 &&
			  w->num_sge == 1 && w->sge[0].lkey == 0x33);
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = &mw2;
	wr.bind_mw.rkey = 0x80001201;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = &mr, .addr = 0x10000, .length = 0x2000,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	w = post_and_peek(t, &f, &wr);
	REQUIRE(t, w != NULL);
	EXPECT(t, w->opcode == SROCE_WR_BIND_MW && w->num_sge == 0 &&
			  w->bind.mw_rkey == 0x80001200 && w->bind.new_rkey == 0x80001201 &&
			  w->bind.mr_lkey == 0x4455 && w->bind.addr == 0x10000 &&
			  w->bind.length == 0x2000 &&
			  w->bind.access == IBV_ACCESS_REMOTE_READ);
	/* Type 1 windows are bound by ibv_bind_mw() only; no window: EINVAL. */
	wr.bind_mw.mw = &mw1;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL && bad == &wr);
	wr.bind_mw.mw = NULL;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL && bad == &wr);
	fx_teardown(&f);
}

static void post_send_rejects_unsupported_opcodes_and_flags(
	struct unit_case_state *t)
{
	const enum ibv_wr_opcode ops[] = { IBV_WR_TSO, IBV_WR_DRIVER1,
					   (enum ibv_wr_opcode)1000 };
	struct fx f;
	size_t i;

	if (!fx_setup(t, &f, NULL))
		return;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		EXPECT(t, post_one(&f, ops[i], 0, i) == EINVAL);
	EXPECT(t, post_one(&f, IBV_WR_SEND, IBV_SEND_IP_CSUM, 0) == EINVAL);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	fx_teardown(&f);
}

/* UC carries sends and writes; what needs a response is refused at post. */
static void post_send_uc_takes_sends_and_writes_only(struct unit_case_state *t)
{
	const struct fx_opts uc = { .qp_type = IBV_QPT_UC };
	const enum ibv_wr_opcode ok[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
					  IBV_WR_RDMA_WRITE,
					  IBV_WR_RDMA_WRITE_WITH_IMM };
	const enum ibv_wr_opcode refused[] = { IBV_WR_RDMA_READ,
					       IBV_WR_ATOMIC_CMP_AND_SWP,
					       IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct fx f;
	size_t i;

	if (!fx_setup(t, &f, &uc))
		return;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		EXPECT(t, post_one(&f, refused[i], 0, i) == EINVAL);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		EXPECT(t, post_one(&f, ok[i], 0, i) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 4);
	fx_teardown(&f);
}

static void post_send_atomic_needs_one_aligned_8_byte_sge(
	struct unit_case_state *t)
{
	struct ibv_sge sge[2] = { { 0x1000, 8, 1 }, { 0x2000, 8, 1 } };
	struct ibv_send_wr wr = { .sg_list = sge, .num_sge = 2,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct ibv_send_wr *bad;
	struct fx f;

	wr.wr.atomic.remote_addr = 0x8000;
	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL);
	wr.num_sge = 1;
	sge[0].length = 4;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL);
	sge[0].length = 8;
	wr.wr.atomic.remote_addr = 0x8004;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == EINVAL);
	wr.wr.atomic.remote_addr = 0x8008;
	EXPECT(t, ibv_post_send(f.qp, &wr, &bad) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 1);
	fx_teardown(&f);
}

static void post_send_sq_sig_all_signals_every_wqe(struct unit_case_state *t)
{
	const struct fx_opts opts = { .sq_sig_all = 1 };
	struct fx f;

	if (!fx_setup(t, &f, &opts))
		return;
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 1) == 0);
	EXPECT(t, post_one(&f, IBV_WR_RDMA_WRITE, IBV_SEND_FENCE, 2) == 0);
	EXPECT(t, k_sq_peek(f.kqp, 0)->send_flags == SROCE_SEND_SIGNALED);
	EXPECT(t, k_sq_peek(f.kqp, 1)->send_flags ==
			  (SROCE_SEND_SIGNALED | SROCE_SEND_FENCE));
	fx_teardown(&f);
}

static void post_send_publishes_a_chain_in_order(struct unit_case_state *t)
{
	struct ibv_send_wr wr[3] = {
		{ .wr_id = 10, .next = &wr[1], .opcode = IBV_WR_SEND },
		{ .wr_id = 11, .next = &wr[2], .opcode = IBV_WR_SEND },
		{ .wr_id = 12, .opcode = IBV_WR_SEND },
	};
	struct ibv_send_wr *bad;
	struct fx f;
	uint32_t i;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_post_send(f.qp, wr, &bad) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 3);
	for (i = 0; i < 3; i++)
		EXPECT(t, k_sq_peek(f.kqp, i)->wr_id == 10 + i);
	fx_teardown(&f);
}

/*
 * The kernel reading WQEs frees nothing; a polled completion frees its
 * WQE and every earlier one (unsignaled WQEs have no CQE of their own).
 */
static void sq_slots_return_only_when_completions_are_polled(
	struct unit_case_state *t)
{
	struct ibv_wc wc;
	uint32_t first;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	first = f.kqp->sq.hdr->consumer;
	EXPECT(t, fill_sq(&f) == 8);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 99) == ENOMEM);
	k_sq_consume(f.kqp, 8);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 99) == ENOMEM);
	k_complete(&f, false, first + 2, 2);	/* retires 0..2 */
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 99) == ENOMEM);	/* not polled */
	EXPECT(t, ibv_poll_cq(f.cq, 1, &wc) == 1 && wc.wr_id == 2);
	EXPECT(t, fill_sq(&f) == 3);
	k_sq_consume(f.kqp, 3);
	k_complete(&f, false, first + 10, 10);	/* retires the rest */
	EXPECT(t, ibv_poll_cq(f.cq, 1, &wc) == 1);
	EXPECT(t, fill_sq(&f) == 8);
	fx_teardown(&f);
}

/* A CQE naming a WQE that is not outstanding must not free slots. */
static void sq_ignores_completion_of_unposted_index(struct unit_case_state *t)
{
	struct ibv_wc wc[2];
	uint32_t first;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	first = f.kqp->sq.hdr->consumer;
	EXPECT(t, fill_sq(&f) == 8);
	k_complete(&f, false, first + 8, 7);	/* one past the producer */
	EXPECT(t, ibv_poll_cq(f.cq, 2, wc) == 1 && wc[0].wr_id == 7);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 99) == ENOMEM);
	k_complete(&f, false, first - 1, 7);	/* before anything posted */
	EXPECT(t, ibv_poll_cq(f.cq, 2, wc) == 1);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 99) == ENOMEM);
	fx_teardown(&f);
}

static void doorbell_elided_while_need_wakeup_is_clear(
	struct unit_case_state *t)
{
	unsigned int writes = dp.mock->commands(IB_USER_VERBS_CMD_POST_SEND);
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 1) == 0);
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 2) == 0);
	EXPECT(t, f.kqp->doorbells == 0);
	EXPECT(t, dp.mock->commands(IB_USER_VERBS_CMD_POST_SEND) == writes);
	fx_teardown(&f);
}

static void doorbell_rung_once_per_post_when_need_wakeup_set(
	struct unit_case_state *t)
{
	struct ibv_send_wr wr[3] = {
		{ .next = &wr[1], .opcode = IBV_WR_SEND },
		{ .next = &wr[2], .opcode = IBV_WR_SEND },
		{ .opcode = IBV_WR_SEND },
	};
	struct ibv_send_wr *bad;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	f.kqp->sq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	EXPECT(t, ibv_post_send(f.qp, wr, &bad) == 0);
	EXPECT(t, f.kqp->doorbells == 1);
	/* The exact legacy command: header words, this QP, no WRs. */
	EXPECT(t, f.kqp->last_db_hdr.command == IB_USER_VERBS_CMD_POST_SEND);
	EXPECT(t, f.kqp->last_db_hdr.in_words == 8 &&
			  f.kqp->last_db_hdr.out_words == 1);
	EXPECT(t, f.kqp->last_db.qp_handle == f.qp->handle);
	EXPECT(t, f.kqp->last_db.wr_count == 0 &&
			  f.kqp->last_db.sge_count == 0);
	EXPECT(t, f.kqp->last_db.wqe_size == sizeof(struct ib_uverbs_send_wr));
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 1) == 0);
	EXPECT(t, f.kqp->doorbells == 2);
	/* Nothing posted, nothing to wake the kernel for. */
	EXPECT(t, post_one(&f, IBV_WR_TSO, 0, 1) == EINVAL);
	EXPECT(t, f.kqp->doorbells == 2);
	f.kqp->sq.hdr->flags = 0;
	EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 1) == 0);
	EXPECT(t, f.kqp->doorbells == 2);
	fx_teardown(&f);
}

/* Indices start 10 below 2^32: ten laps of an 8-deep SQ cross it. */
static void sq_wraps_over_2_32_for_several_laps(struct unit_case_state *t)
{
	uint64_t id = 0, expect = 0;
	struct ibv_wc wc;
	struct fx f;
	int lap, ok;
	uint32_t i;

	dp.mock->set_ring_start(0xfffffff6);
	ok = fx_setup(t, &f, NULL);
	dp.mock->set_ring_start(0);
	if (!ok)
		return;
	for (lap = 0; lap < 10; lap++) {
		for (i = 0; i < 8; i++)
			EXPECT(t, post_one(&f, IBV_WR_SEND,
					   i == 7 ? IBV_SEND_SIGNALED : 0,
					   id++) == 0);
		EXPECT(t, post_one(&f, IBV_WR_SEND, 0, 0) == ENOMEM);
		for (i = 0; i < 8; i++)
			EXPECT(t, k_sq_peek(f.kqp, i)->wr_id == expect++);
		k_complete_all_sends(&f);
		EXPECT(t, ibv_poll_cq(f.cq, 1, &wc) == 1);
	}
	EXPECT(t, f.kqp->sq.hdr->producer == (uint32_t)(0xfffffff6 + 80));
	fx_teardown(&f);
}

static void post_recv_encodes_wqe(struct unit_case_state *t)
{
	struct ibv_sge sge[2] = { { 0x1000, 64, 0x11 }, { 0x2000, 32, 0x22 } };
	struct ibv_recv_wr wr = { .wr_id = 77, .sg_list = sge, .num_sge = 2 };
	unsigned int writes = dp.mock->commands(IB_USER_VERBS_CMD_POST_RECV);
	const struct sroce_recv_wqe *w;
	struct ibv_recv_wr *bad;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_post_recv(f.qp, &wr, &bad) == 0);
	REQUIRE(t, k_rq_pending(f.kqp) == 1);
	w = k_rq_peek(f.kqp, 0);
	EXPECT(t, w->wr_id == 77 && w->num_sge == 2 && w->reserved == 0);
	EXPECT(t, w->sge[0].addr == 0x1000 && w->sge[0].length == 64 &&
			  w->sge[0].lkey == 0x11);
	EXPECT(t, w->sge[1].addr == 0x2000 && w->sge[1].lkey == 0x22);
	EXPECT(t, dp.mock->commands(IB_USER_VERBS_CMD_POST_RECV) == writes);
	EXPECT(t, f.kqp->doorbells == 0);
	fx_teardown(&f);
}

/* A QP in error asks for a doorbell so late receives get flushed. */
static void post_recv_rings_doorbell_when_rq_asks(struct unit_case_state *t)
{
	struct ibv_sge sge = { 0x1000, 64, 0x11 };
	struct ibv_recv_wr wr = { .wr_id = 78, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	f.kqp->rq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	EXPECT(t, ibv_post_recv(f.qp, &wr, &bad) == 0);
	EXPECT(t, f.kqp->doorbells == 1);
	fx_teardown(&f);
}

static void post_recv_bad_num_sge_is_einval(struct unit_case_state *t)
{
	struct ibv_sge sge[5] = { { 0 } };
	struct ibv_recv_wr bad_wr = { .wr_id = 2, .sg_list = sge, .num_sge = 5 };
	struct ibv_recv_wr ok = { .wr_id = 1, .next = &bad_wr, .sg_list = sge,
				  .num_sge = 4 };
	struct ibv_recv_wr *bad = NULL;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	EXPECT(t, ibv_post_recv(f.qp, &ok, &bad) == EINVAL && bad == &bad_wr);
	EXPECT(t, k_rq_pending(f.kqp) == 1);
	bad_wr.num_sge = -1;
	EXPECT(t, ibv_post_recv(f.qp, &bad_wr, &bad) == EINVAL);
	EXPECT(t, k_rq_pending(f.kqp) == 1);
	fx_teardown(&f);
}

static void rq_full_is_enomem_until_completion_polled(
	struct unit_case_state *t)
{
	struct ibv_recv_wr wr = { .wr_id = 5 }, *bad = NULL;
	struct ibv_wc wc;
	uint32_t first;
	struct fx f;

	if (!fx_setup(t, &f, NULL))
		return;
	first = f.kqp->rq.hdr->consumer;
	EXPECT(t, fill_rq(&f) == 8);
	EXPECT(t, ibv_post_recv(f.qp, &wr, &bad) == ENOMEM && bad == &wr);
	k_rq_consume(f.kqp, 1);
	k_complete(&f, true, first, 0);
	EXPECT(t, ibv_poll_cq(f.cq, 1, &wc) == 1 && wc.opcode == IBV_WC_RECV);
	EXPECT(t, fill_rq(&f) == 1);
	fx_teardown(&f);
}

DP_CASES(dp_post_cases,
	 UNIT_CASE(post_send_encodes_send_with_sges_and_flags),
	 UNIT_CASE(post_send_encodes_every_opcode),
	 UNIT_CASE(post_send_uc_takes_sends_and_writes_only),
	 UNIT_CASE(post_send_inline_copies_payload_after_header),
	 UNIT_CASE(post_send_inline_limits),
	 UNIT_CASE(post_send_bad_wr_is_einval_after_posting_earlier_ones),
	 UNIT_CASE(post_send_before_rts_is_einval_and_publishes_nothing),
	 UNIT_CASE(post_send_taken_in_sqd_sqe_and_err),
	 UNIT_CASE(post_send_taken_in_rtr_once_kernel_put_qp_in_error),
	 UNIT_CASE(post_send_encodes_invalidate_and_bind),
	 UNIT_CASE(post_send_rejects_unsupported_opcodes_and_flags),
	 UNIT_CASE(post_send_atomic_needs_one_aligned_8_byte_sge),
	 UNIT_CASE(post_send_sq_sig_all_signals_every_wqe),
	 UNIT_CASE(post_send_publishes_a_chain_in_order),
	 UNIT_CASE(sq_slots_return_only_when_completions_are_polled),
	 UNIT_CASE(sq_ignores_completion_of_unposted_index),
	 UNIT_CASE(doorbell_elided_while_need_wakeup_is_clear),
	 UNIT_CASE(doorbell_rung_once_per_post_when_need_wakeup_set),
	 UNIT_CASE(sq_wraps_over_2_32_for_several_laps),
	 UNIT_CASE(post_recv_encodes_wqe),
	 UNIT_CASE(post_recv_rings_doorbell_when_rq_asks),
	 UNIT_CASE(post_recv_bad_num_sge_is_einval),
	 UNIT_CASE(rq_full_is_enomem_until_completion_polled));
