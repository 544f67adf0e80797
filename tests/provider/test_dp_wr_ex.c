// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data-path tests: the ibv_wr_* API of ibv_qp_ex, driven the way perftest
 * drives it (wr_id and wr_flags set before each ibv_wr_<opcode>).
 */
#include <errno.h>
#include <string.h>

#include "dp.h"

static const struct fx_opts ex_opts = { .ex = true };

static void next_wr(struct ibv_qp_ex *qpx, uint64_t wr_id, unsigned int flags)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = flags;
}

/* Memory windows: SEND_WITH_INV, LOCAL_INV, BIND_MW (type 2 only). */
static void wr_api_encodes_invalidate_and_bind(struct unit_case_state *t)
{
	struct ibv_mr mr = { .lkey = 0x6677 };
	struct ibv_mw mw2 = { .rkey = 0x80005600, .type = IBV_MW_TYPE_2 };
	struct ibv_mw mw1 = { .rkey = 0x80007800, .type = IBV_MW_TYPE_1 };
	const struct ibv_mw_bind_info info = {
		.mr = &mr, .addr = 0x20000, .length = 0x100,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	REQUIRE(t, f.qpx != NULL);
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 1, IBV_SEND_SIGNALED);
	ibv_wr_send_inv(f.qpx, 0x1111);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 2, 0);
	ibv_wr_local_inv(f.qpx, 0x2222);
	next_wr(f.qpx, 3, IBV_SEND_SIGNALED);
	ibv_wr_bind_mw(f.qpx, &mw2, 0x80005601, &info);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	REQUIRE(t, k_sq_pending(f.kqp) == 3);
	w = k_sq_peek(f.kqp, 0);
	EXPECT(t, w->opcode == SROCE_WR_SEND_WITH_INV && w->invalidate_rkey == 0x1111 &&
			  w->num_sge == 1);
	w = k_sq_peek(f.kqp, 1);
	EXPECT(t, w->opcode == SROCE_WR_LOCAL_INV && w->invalidate_rkey == 0x2222 &&
			  w->num_sge == 0);
	w = k_sq_peek(f.kqp, 2);
	EXPECT(t, w->wr_id == 3 && w->opcode == SROCE_WR_BIND_MW && w->num_sge == 0 &&
			  w->bind.mw_rkey == 0x80005600 && w->bind.new_rkey == 0x80005601 &&
			  w->bind.mr_lkey == 0x6677 && w->bind.addr == 0x20000 &&
			  w->bind.length == 0x100 &&
			  w->bind.access == IBV_ACCESS_REMOTE_WRITE);
	/* A type 1 window, or an SGE on a local operation: the batch fails. */
	ibv_wr_start(f.qpx);
	ibv_wr_bind_mw(f.qpx, &mw1, 0x80007801, &info);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	ibv_wr_start(f.qpx);
	ibv_wr_local_inv(f.qpx, 0x2222);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	EXPECT(t, k_sq_pending(f.kqp) == 3);
	fx_teardown(&f);
}

static void wr_api_encodes_each_opcode(struct unit_case_state *t)
{
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	REQUIRE(t, f.qpx != NULL);
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 1, IBV_SEND_SIGNALED);
	ibv_wr_send(f.qpx);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 2, 0);
	ibv_wr_send_imm(f.qpx, 0x0a0b0c0d);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 3, IBV_SEND_FENCE);
	ibv_wr_rdma_write(f.qpx, 0x4242, 0xdead0000);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 4, IBV_SEND_SOLICITED);
	ibv_wr_rdma_write_imm(f.qpx, 0x4242, 0xdead0000, 0x01020304);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 5, 0);
	ibv_wr_rdma_read(f.qpx, 0x4343, 0xbeef0000);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 10);
	next_wr(f.qpx, 6, 0);
	ibv_wr_atomic_cmp_swp(f.qpx, 0x5151, 0xcafe0008, 7, 9);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 8);
	next_wr(f.qpx, 7, 0);
	ibv_wr_atomic_fetch_add(f.qpx, 0x5252, 0xcafe0010, 5);
	ibv_wr_set_sge(f.qpx, 0x11, 0x1000, 8);
	EXPECT(t, k_sq_pending(f.kqp) == 0);	/* nothing until complete */
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	REQUIRE(t, k_sq_pending(f.kqp) == 7);

	w = k_sq_peek(f.kqp, 0);
	EXPECT(t, w->wr_id == 1 && w->opcode == SROCE_WR_SEND &&
			  w->send_flags == SROCE_SEND_SIGNALED);
	EXPECT(t, w->num_sge == 1 && w->sge[0].lkey == 0x11 &&
			  w->sge[0].addr == 0x1000 && w->sge[0].length == 10);
	w = k_sq_peek(f.kqp, 1);
	EXPECT(t, w->wr_id == 2 && w->opcode == SROCE_WR_SEND_WITH_IMM &&
			  w->imm_data == 0x0a0b0c0d && w->send_flags == 0);
	w = k_sq_peek(f.kqp, 2);
	EXPECT(t, w->opcode == SROCE_WR_RDMA_WRITE &&
			  w->send_flags == SROCE_SEND_FENCE &&
			  w->rdma.rkey == 0x4242 &&
			  w->rdma.remote_addr == 0xdead0000);
	w = k_sq_peek(f.kqp, 3);
	EXPECT(t, w->opcode == SROCE_WR_RDMA_WRITE_WITH_IMM &&
			  w->imm_data == 0x01020304 &&
			  w->send_flags == SROCE_SEND_SOLICITED);
	w = k_sq_peek(f.kqp, 4);
	EXPECT(t, w->opcode == SROCE_WR_RDMA_READ && w->rdma.rkey == 0x4343 &&
			  w->rdma.remote_addr == 0xbeef0000);
	w = k_sq_peek(f.kqp, 5);
	EXPECT(t, w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP &&
			  w->atomic.rkey == 0x5151 &&
			  w->atomic.remote_addr == 0xcafe0008 &&
			  w->atomic.compare_add == 7 && w->atomic.swap == 9);
	w = k_sq_peek(f.kqp, 6);
	EXPECT(t, w->wr_id == 7 && w->opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD &&
			  w->atomic.compare_add == 5 && w->atomic.swap == 0);
	fx_teardown(&f);
}

static void wr_api_sge_list_and_inline_list(struct unit_case_state *t)
{
	static char a[] = "hello, ", b[] = "world";
	const struct ibv_sge sges[3] = {
		{ 0x1000, 1, 1 }, { 0x2000, 2, 2 }, { 0x3000, 3, 3 }
	};
	const struct ibv_data_buf bufs[2] = { { a, 7 }, { b, 5 } };
	const struct sroce_send_wqe *w;
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 1, 0);
	ibv_wr_send(f.qpx);
	ibv_wr_set_sge_list(f.qpx, 3, sges);
	/* perftest passes IBV_SEND_INLINE in wr_flags too: harmless. */
	next_wr(f.qpx, 2, IBV_SEND_INLINE);
	ibv_wr_rdma_write(f.qpx, 9, 0x9000);
	ibv_wr_set_inline_data_list(f.qpx, 2, bufs);
	next_wr(f.qpx, 3, 0);
	ibv_wr_send(f.qpx);
	ibv_wr_set_inline_data(f.qpx, a, 7);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	REQUIRE(t, k_sq_pending(f.kqp) == 3);
	w = k_sq_peek(f.kqp, 0);
	EXPECT(t, w->num_sge == 3 && w->sge[2].addr == 0x3000 &&
			  w->sge[2].length == 3 && w->sge[2].lkey == 3);
	w = k_sq_peek(f.kqp, 1);
	EXPECT(t, w->send_flags == SROCE_SEND_INLINE && w->num_sge == 0 &&
			  w->inline_len == 12);
	EXPECT(t, !memcmp(w->sge, "hello, world", 12));
	w = k_sq_peek(f.kqp, 2);
	EXPECT(t, w->inline_len == 7 && !memcmp(w->sge, "hello, ", 7));
	fx_teardown(&f);
}

/* Any error discards the whole batch and wr_complete returns it. */
static void wr_api_errors_discard_the_batch(struct unit_case_state *t)
{
	static char big[65];
	struct ibv_sge sges[5] = { { 0 } };
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	ibv_wr_start(f.qpx);			/* inline too long */
	ibv_wr_send(f.qpx);
	ibv_wr_set_sge(f.qpx, 1, 0x1000, 1);
	ibv_wr_send(f.qpx);
	ibv_wr_set_inline_data(f.qpx, big, sizeof(big));
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	ibv_wr_start(f.qpx);			/* too many SGEs */
	ibv_wr_send(f.qpx);
	ibv_wr_set_sge_list(f.qpx, 5, sges);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	ibv_wr_start(f.qpx);			/* inline on a READ */
	ibv_wr_rdma_read(f.qpx, 1, 0x1000);
	ibv_wr_set_inline_data(f.qpx, big, 8);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	ibv_wr_start(f.qpx);			/* SGE before any opcode */
	ibv_wr_set_sge(f.qpx, 1, 0x1000, 1);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	ibv_wr_start(f.qpx);			/* atomic without its SGE */
	ibv_wr_atomic_fetch_add(f.qpx, 1, 0x1000, 1);
	EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	/* The slots were not consumed: a whole SQ still fits. */
	EXPECT(t, fill_sq(&f) == 8);
	fx_teardown(&f);
}

static void wr_api_abort_discards_and_slots_are_reused(
	struct unit_case_state *t)
{
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 1, 0);
	ibv_wr_send(f.qpx);
	ibv_wr_abort(f.qpx);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 2, 0);
	ibv_wr_send(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 1 && k_sq_peek(f.kqp, 0)->wr_id == 2);
	/* Empty batch: nothing to publish, no error. */
	ibv_wr_start(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	fx_teardown(&f);
}

static void wr_api_full_sq_fails_with_enomem(struct unit_case_state *t)
{
	struct fx f;
	int i;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	ibv_wr_start(f.qpx);
	for (i = 0; i < 9; i++)
		ibv_wr_send(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == ENOMEM);
	EXPECT(t, k_sq_pending(f.kqp) == 0);
	ibv_wr_start(f.qpx);
	for (i = 0; i < 8; i++)
		ibv_wr_send(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 8);
	fx_teardown(&f);
}

static void wr_api_doorbell_follows_need_wakeup(struct unit_case_state *t)
{
	struct fx f;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	ibv_wr_start(f.qpx);
	ibv_wr_send(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	EXPECT(t, f.kqp->doorbells == 0);
	f.kqp->sq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	ibv_wr_start(f.qpx);
	ibv_wr_send(f.qpx);
	ibv_wr_send(f.qpx);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	EXPECT(t, f.kqp->doorbells == 1);
	ibv_wr_start(f.qpx);
	ibv_wr_abort(f.qpx);
	EXPECT(t, f.kqp->doorbells == 1);
	fx_teardown(&f);
}

/*
 * RESET, INIT, RTR: ibv_wr_complete fails the batch with EINVAL and
 * publishes nothing; in RTS the next batch starts at the same slot.
 */
static void wr_api_before_rts_is_einval_and_publishes_nothing(
	struct unit_case_state *t)
{
	const enum ibv_qp_state states[] = { IBV_QPS_RESET, IBV_QPS_INIT,
					     IBV_QPS_RTR };
	uint32_t first;
	struct fx f;
	size_t i;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	f.kqp->sq.hdr->flags = SROCE_RING_NEED_WAKEUP;
	first = f.kqp->sq.hdr->producer;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		EXPECT(t, fx_move(&f, states[i]) == 0);
		ibv_wr_start(f.qpx);
		next_wr(f.qpx, 10 + i, IBV_SEND_SIGNALED);
		ibv_wr_send(f.qpx);
		ibv_wr_set_sge(f.qpx, 0x77, (uintptr_t)&f, 8);
		EXPECT(t, ibv_wr_complete(f.qpx) == EINVAL);
		EXPECT(t, k_sq_pending(f.kqp) == 0 && f.kqp->doorbells == 0);
	}
	EXPECT(t, fx_move(&f, IBV_QPS_RTS) == 0);
	ibv_wr_start(f.qpx);
	next_wr(f.qpx, 20, IBV_SEND_SIGNALED);
	ibv_wr_send(f.qpx);
	ibv_wr_set_sge(f.qpx, 0x77, (uintptr_t)&f, 8);
	EXPECT(t, ibv_wr_complete(f.qpx) == 0);
	EXPECT(t, k_sq_pending(f.kqp) == 1 && f.kqp->doorbells == 1);
	EXPECT(t, f.kqp->sq.hdr->consumer == first &&
		  k_sq_peek(f.kqp, 0)->wr_id == 20);
	fx_teardown(&f);
}

/*
 * perftest's loop: a post list of RDMA WRITEs, every cq_mod-th signaled,
 * completions retiring the unsignaled ones, many times round the ring.
 */
static void wr_api_perftest_write_loop(struct unit_case_state *t)
{
	uint64_t posted = 0, completed = 0;
	struct ibv_wc wc[4];
	struct fx f;
	int iter, i, n;

	if (!fx_setup(t, &f, &ex_opts))
		return;
	for (iter = 0; iter < 20; iter++) {
		ibv_wr_start(f.qpx);
		for (i = 0; i < 4; i++, posted++) {
			next_wr(f.qpx, posted,
				i == 3 ? IBV_SEND_SIGNALED : 0);
			ibv_wr_rdma_write(f.qpx, 0x77, 0x10000 + posted * 64);
			ibv_wr_set_sge(f.qpx, 0x66, 0x20000, 64);
		}
		EXPECT(t, ibv_wr_complete(f.qpx) == 0);
		for (i = 0; i < 4; i++) {
			uint32_t at = k_sq_pending(f.kqp) - 4 + i;

			EXPECT(t, k_sq_peek(f.kqp, at)->rdma.remote_addr ==
					  0x10000 + (posted - 4 + i) * 64);
		}
		if (iter % 2) {		/* the kernel drains every other time */
			uint32_t last = f.kqp->sq.hdr->consumer + 7;

			k_sq_consume(f.kqp, 8);
			k_complete(&f, false, last - 4, posted - 5);
			k_complete(&f, false, last, posted - 1);
			n = ibv_poll_cq(f.cq, 4, wc);
			EXPECT(t, n == 2);
			completed += n;
		}
	}
	EXPECT(t, completed == 20);
	fx_teardown(&f);
}

DP_CASES(dp_wr_ex_cases,
	 UNIT_CASE(wr_api_encodes_each_opcode),
	 UNIT_CASE(wr_api_encodes_invalidate_and_bind),
	 UNIT_CASE(wr_api_sge_list_and_inline_list),
	 UNIT_CASE(wr_api_errors_discard_the_batch),
	 UNIT_CASE(wr_api_abort_discards_and_slots_are_reused),
	 UNIT_CASE(wr_api_full_sq_fails_with_enomem),
	 UNIT_CASE(wr_api_doorbell_follows_need_wakeup),
	 UNIT_CASE(wr_api_before_rts_is_einval_and_publishes_nothing),
	 UNIT_CASE(wr_api_perftest_write_loop));
