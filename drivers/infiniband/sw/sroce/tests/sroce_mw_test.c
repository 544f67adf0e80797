// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the memory window rules that need no device: what a bind may ask
 * of an MR (sroce_mw_bind_check) and what an access through a bound
 * window may do (sroce_win_check), on objects built by hand.
 */
#include <kunit/test.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_mw.h"

#define MW_KEY		(SROCE_MW_KEY_BIT | 0x1200)
#define MR_IOVA		0x10000ULL
#define MR_LEN		0x4000ULL
#define RW		(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

struct sroce_mw_test_ctx {
	struct ib_pd pd, other_pd;
	struct sroce_mr mr;
	struct sroce_mw_bind b;
};

static int sroce_mw_test_init(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->mr.pd = &ctx->pd;
	ctx->mr.iova = MR_IOVA;
	ctx->mr.length = MR_LEN;
	ctx->mr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_MW_BIND;
	ctx->b = (struct sroce_mw_bind) {
		.mw_key = MW_KEY, .new_key = MW_KEY + 1, .mr_lkey = 0x100,
		.va = MR_IOVA + 0x1000, .length = 0x1000, .access = RW,
	};
	test->priv = ctx;
	return 0;
}

static int bind_check(struct sroce_mw_test_ctx *ctx, enum ib_mw_type type)
{
	return sroce_mw_bind_check(type, &ctx->pd, &ctx->mr, &ctx->pd, &ctx->b);
}

static void sroce_mw_key_never_an_mr_key(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sroce_key_is_mw(MW_KEY));
	KUNIT_EXPECT_EQ(test, sroce_mw_key_index(MW_KEY), 0x12U);
	/* The largest MR key has the window bit clear. */
	KUNIT_EXPECT_FALSE(test, sroce_key_is_mw(sroce_key_make(SROCE_MAX_MR, 0xff)));
}

static void sroce_mw_bind_accepts_window_inside_mr(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), 0);
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_1), 0);
	/* The whole MR, and an empty window at its end. */
	ctx->b.va = MR_IOVA;
	ctx->b.length = MR_LEN;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), 0);
	ctx->b.va = MR_IOVA + MR_LEN;
	ctx->b.length = 0;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), 0);
}

static void sroce_mw_bind_rejects_outside_mr(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	ctx->b.va = MR_IOVA - 1;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -ERANGE);
	ctx->b.va = MR_IOVA + MR_LEN - 0x800;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -ERANGE);
	/* va + length wraps: still outside. */
	ctx->b.va = MR_IOVA + 0x1000;
	ctx->b.length = U64_MAX - 0x100;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -ERANGE);
}

static void sroce_mw_bind_needs_mw_bind_and_local_write(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	ctx->mr.access &= ~IB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EACCES);
	ctx->mr.access = IB_ACCESS_MW_BIND | IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EACCES);
	ctx->b.access = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EACCES);
	/* Read only needs no local write. */
	ctx->b.access = IB_ACCESS_REMOTE_READ;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), 0);
}

static void sroce_mw_bind_rejects_other_pd_and_rights(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	/* Window of another PD than the QP. */
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(IB_MW_TYPE_2, &ctx->other_pd, &ctx->mr,
						  &ctx->pd, &ctx->b), -EACCES);
	/* MR of another PD. */
	ctx->mr.pd = &ctx->other_pd;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EACCES);
	ctx->mr.pd = &ctx->pd;
	/* Kernel MRs never. */
	ctx->mr.fast_reg = true;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EACCES);
	ctx->mr.fast_reg = false;
	/* Only remote rights; local write or zero-based are not a window's. */
	ctx->b.access = IB_ACCESS_LOCAL_WRITE;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EINVAL);
	ctx->b.access = RW | IB_ZERO_BASED;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EINVAL);
}

static void sroce_mw_bind_key_keeps_index(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	ctx->b.new_key = MW_KEY + 0x100;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EINVAL);
	ctx->b.new_key = MW_KEY & ~SROCE_MW_KEY_BIT;
	KUNIT_EXPECT_EQ(test, bind_check(ctx, IB_MW_TYPE_2), -EINVAL);
}

static void sroce_mw_type1_unbind_needs_no_mr(struct kunit *test)
{
	struct sroce_mw_test_ctx *ctx = test->priv;

	ctx->b.length = 0;
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(IB_MW_TYPE_1, &ctx->pd, NULL, &ctx->pd,
						  &ctx->b), 0);
	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(IB_MW_TYPE_2, &ctx->pd, NULL, &ctx->pd,
						  &ctx->b), -EINVAL);
}

static void sroce_win_check_rights_range_and_qp(struct kunit *test)
{
	struct sroce_qp *qp = (struct sroce_qp *)0x1000, *other = (struct sroce_qp *)0x2000;
	struct sroce_win_bind b = {
		.state = SROCE_WIN_VALID, .key = MW_KEY, .qp = qp, .qpn = 7,
		.va = MR_IOVA + 0x1000, .length = 0x1000, .access = IB_ACCESS_REMOTE_READ,
	};

	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va, 0x1000, IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va + 0xff8, 8, IB_ACCESS_REMOTE_READ),
			0);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va, 8, IB_ACCESS_REMOTE_WRITE),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va + 0xff9, 8, IB_ACCESS_REMOTE_READ),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va - 1, 8, IB_ACCESS_REMOTE_READ),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va + 8, U64_MAX, IB_ACCESS_REMOTE_READ),
			-ERANGE);
	/* Type 2: the QP it is bound to only, by address and number. */
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, other, 8, b.va, 8, IB_ACCESS_REMOTE_READ),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 8, b.va, 8, IB_ACCESS_REMOTE_READ),
			-EACCES);
	/* Type 1 (no QP): any. */
	b.qp = NULL;
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, other, 8, b.va, 8, IB_ACCESS_REMOTE_READ), 0);
	/* Zero length: nothing; FREE: nothing. */
	b.length = 0;
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va, 1, IB_ACCESS_REMOTE_READ), -ERANGE);
	b.length = 0x1000;
	b.state = SROCE_WIN_FREE;
	KUNIT_EXPECT_EQ(test, sroce_win_check(&b, qp, 7, b.va, 8, IB_ACCESS_REMOTE_READ), -EINVAL);
}

static struct kunit_case sroce_mw_cases[] = {
	KUNIT_CASE(sroce_mw_key_never_an_mr_key),
	KUNIT_CASE(sroce_mw_bind_accepts_window_inside_mr),
	KUNIT_CASE(sroce_mw_bind_rejects_outside_mr),
	KUNIT_CASE(sroce_mw_bind_needs_mw_bind_and_local_write),
	KUNIT_CASE(sroce_mw_bind_rejects_other_pd_and_rights),
	KUNIT_CASE(sroce_mw_bind_key_keeps_index),
	KUNIT_CASE(sroce_mw_type1_unbind_needs_no_mr),
	KUNIT_CASE(sroce_win_check_rights_range_and_qp),
	{}
};

static struct kunit_suite sroce_mw_suite = {
	.name = "sroce_mw",
	.init = sroce_mw_test_init,
	.test_cases = sroce_mw_cases,
};

kunit_test_suites(&sroce_mw_suite);
