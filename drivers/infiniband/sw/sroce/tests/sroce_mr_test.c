// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: MR keys, the access and bounds check, and the data copies, on MRs
 * built by hand from a few pages: no umem, no device registration.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/skbuff.h>

#include "sroce.h"
#include "sroce_mr.h"

#define TEST_PAGES	3

/* An MR over TEST_PAGES fresh pages, its iova @page_offset into the first. */
struct sroce_mr_test_ctx {
	struct sroce_dev *sdev;
	struct ib_pd pd;
	struct ib_pd other_pd;
	struct sroce_mr mr;
	struct page *pages[TEST_PAGES];
};

static void sroce_mr_test_fill(struct sroce_mr_test_ctx *ctx, u64 iova,
			       u64 length, int access)
{
	struct sroce_mr *mr = &ctx->mr;

	mr->sdev = ctx->sdev;
	mr->pd = &ctx->pd;
	mr->pages = ctx->pages;
	mr->npages = TEST_PAGES;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = offset_in_page(iova);
	mr->access = access;
	refcount_set(&mr->refs, 1);
	init_completion(&mr->released);
}

static int sroce_mr_test_init(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->sdev = kunit_kzalloc(test, sizeof(*ctx->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sdev);
	spin_lock_init(&ctx->sdev->mr_table.atomic_lock);
	test->priv = ctx;
	for (i = 0; i < TEST_PAGES; i++) {
		ctx->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, ctx->pages[i]);
	}
	sroce_mr_test_fill(ctx, 0x10000, 0x2000,
			   IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	return 0;
}

static void sroce_mr_test_exit(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	int i;

	if (!ctx)
		return;
	for (i = 0; i < TEST_PAGES; i++)
		if (ctx->pages[i])
			__free_page(ctx->pages[i]);
}

static void sroce_mr_key_packs_index_and_generation(struct kunit *test)
{
	u32 key = sroce_key_make(5, 0x7f);

	KUNIT_EXPECT_EQ(test, key, 0x57fU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(key), 5U);
	KUNIT_EXPECT_EQ(test, key & SROCE_KEY_GEN_MASK, 0x7fU);

	key = sroce_key_make(0xffffff, 0xff);
	KUNIT_EXPECT_EQ(test, key, 0xffffffffU);
	KUNIT_EXPECT_EQ(test, sroce_key_index(key), 0xffffffU);
}

static void sroce_mr_key_generation_tells_reused_slot_apart(struct kunit *test)
{
	u32 old = sroce_key_make(42, 1), new = sroce_key_make(42, 2);

	KUNIT_EXPECT_EQ(test, sroce_key_index(old), sroce_key_index(new));
	KUNIT_EXPECT_NE(test, old, new);
	/* The smallest index sroce hands out never yields key 0. */
	KUNIT_EXPECT_NE(test, sroce_key_make(1, 0), 0U);
}

static void sroce_mr_check_accepts_inside(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;

	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x10000, 0x2000, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x11fff, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x10800, 0x100, 0), 0);
	/* Zero bytes at the very end touch nothing. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x12000, 0, 0), 0);
}

static void sroce_mr_check_rejects_outside(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;

	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0xffff, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0xffff, 2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x10000, 0x2001, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x12000, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x12001, 0, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0, 0, 0), -ERANGE);
}

static void sroce_mr_check_survives_u64_overflow(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;

	/* va + len wraps to a small number inside the region. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x11000, U64_MAX, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0x11000,
					     U64_MAX - 0x10fff + 0x10010, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, U64_MAX, 2, 0), -ERANGE);

	/* A region ending at the top of the address space. */
	sroce_mr_test_fill(ctx, U64_MAX - 0xfff, 0x1000, 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, U64_MAX, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, U64_MAX - 0xfff,
					     0x1000, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, U64_MAX, 2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, U64_MAX - 0xfff,
					     0x1001, 0), -ERANGE);
}

static void sroce_mr_check_requires_every_right(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u64 va = 0x10000;

	/* Local read needs no flag; the MR has local write and remote read. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_REMOTE_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_REMOTE_ATOMIC), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_REMOTE_READ |
					     IB_ACCESS_REMOTE_WRITE), -EACCES);

	/* A read-only MR refuses even local writes (RDMA READ responses). */
	sroce_mr_test_fill(ctx, 0x10000, 0x2000, 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8,
					     IB_ACCESS_LOCAL_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, va, 8, 0), 0);
}

static void sroce_mr_check_rejects_other_pd_first(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;

	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->other_pd, 0x10000, 8, 0),
			-EACCES);
	/* Out of range too: a foreign PD learns nothing about the bounds. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->other_pd, 0, 8, 0),
			-EACCES);
}

static void sroce_mr_copy_crosses_pages(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	u8 in[64], out[64];
	u64 va;
	u8 *p;
	int i;

	/* iova 0xff0 into page 0: 16 bytes land in page 0, the rest in page 1. */
	sroce_mr_test_fill(ctx, 0x10ff0, 2 * PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	va = 0x10ff0;
	for (i = 0; i < sizeof(in); i++)
		in[i] = i + 1;
	sroce_mr_copy(&ctx->mr, va, in, sizeof(in), SROCE_COPY_TO_MR);

	p = kmap_local_page(ctx->pages[0]);
	KUNIT_EXPECT_EQ(test, p[PAGE_SIZE - 17], 0);
	KUNIT_EXPECT_EQ(test, p[PAGE_SIZE - 16], 1);
	KUNIT_EXPECT_EQ(test, p[PAGE_SIZE - 1], 16);
	kunmap_local(p);
	p = kmap_local_page(ctx->pages[1]);
	KUNIT_EXPECT_EQ(test, p[0], 17);
	KUNIT_EXPECT_EQ(test, p[47], 64);
	KUNIT_EXPECT_EQ(test, p[48], 0);
	kunmap_local(p);

	memset(out, 0, sizeof(out));
	sroce_mr_copy(&ctx->mr, va, out, sizeof(out), SROCE_COPY_FROM_MR);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, sizeof(in)), 0);
}

static void sroce_mr_copy_from_skb_places_payload(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	const u32 hdr = 28, len = PAGE_SIZE + 100;
	struct sk_buff *skb;
	u8 *data, *p;
	u32 i;

	skb = alloc_skb(hdr + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	data = skb_put(skb, hdr + len);
	for (i = 0; i < hdr + len; i++)
		data[i] = i * 7;

	/* Starts 8 bytes before the end of page 0, spans page 1 into page 2. */
	sroce_mr_test_fill(ctx, 0x20000, 3 * PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy_from_skb(&ctx->mr,
						     0x20000 + PAGE_SIZE - 8,
						     skb, hdr, len), 0);
	p = kmap_local_page(ctx->pages[0]);
	KUNIT_EXPECT_EQ(test, p[PAGE_SIZE - 8], (u8)(hdr * 7));
	kunmap_local(p);
	p = kmap_local_page(ctx->pages[2]);
	KUNIT_EXPECT_EQ(test, p[91], (u8)((hdr + len - 1) * 7));
	KUNIT_EXPECT_EQ(test, p[92], 0);
	kunmap_local(p);

	/* Asking for more than the skb holds fails instead of reading past it. */
	KUNIT_EXPECT_LT(test, sroce_mr_copy_from_skb(&ctx->mr, 0x20000, skb,
						     hdr, len + 1), 0);
	kfree_skb(skb);
}

static void sroce_mr_atomic_fetch_add_and_cmp_swap(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	u64 va = 0x10000 + 0x18, *p;

	sroce_mr_test_fill(ctx, 0x10000, 0x2000,
			   IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC);
	p = kmap_local_page(ctx->pages[0]);
	p[3] = 40;

	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(&ctx->mr, va, false, 2, 0), 40ULL);
	KUNIT_EXPECT_EQ(test, p[3], 42ULL);
	/* Compare fails: original returned, memory unchanged. */
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(&ctx->mr, va, true, 41, 7), 42ULL);
	KUNIT_EXPECT_EQ(test, p[3], 42ULL);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(&ctx->mr, va, true, 42, 7), 42ULL);
	KUNIT_EXPECT_EQ(test, p[3], 7ULL);
	/* Fetch-add wraps like the 64-bit hardware operation. */
	p[3] = U64_MAX;
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(&ctx->mr, va, false, 2, 0), U64_MAX);
	KUNIT_EXPECT_EQ(test, p[3], 1ULL);
	kunmap_local(p);
}

/* --- fast-reg MRs: the FREE/VALID state machine and the page list -------- */

#define TEST_FR_INDEX	7
#define TEST_FR_PAGES	4
#define TEST_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/*
 * A FREE fast-reg MR whose map_mr_sg result is @npages chunks of
 * 1 << @shift bytes at @base (kernel memory), the first byte @offset into
 * the first chunk. Its key is TEST_FR_INDEX with byte 0x10.
 */
static void sroce_mr_test_fill_fr(struct kunit *test, u8 *base, u32 shift,
				  u32 offset, u32 npages)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 i;

	memset(mr, 0, sizeof(*mr));
	sroce_mr_test_fill(ctx, 0, 0, 0);
	mr->pages = NULL;
	mr->npages = 0;
	mr->fast_reg = true;
	mr->key = sroce_key_make(TEST_FR_INDEX, 0x10);
	mr->fr_state = SROCE_FR_FREE;
	mr->fr_max_pages = TEST_FR_PAGES;
	spin_lock_init(&mr->fr_lock);
	mr->fr.pages = kunit_kcalloc(test, TEST_FR_PAGES, sizeof(u64), GFP_KERNEL);
	mr->fr_next.pages = kunit_kcalloc(test, TEST_FR_PAGES, sizeof(u64),
					  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr->fr.pages);
	KUNIT_ASSERT_NOT_NULL(test, mr->fr_next.pages);
	for (i = 0; i < npages; i++)
		mr->fr_next.pages[i] = (uintptr_t)base + ((u64)i << shift);
	mr->fr_next.npages = npages;
	mr->fr_next.page_shift = shift;
	mr->fr_next.offset = offset;
}

static void sroce_mr_test_fill_fr_pages(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;

	sroce_mr_test_fill_fr(test, page_address(ctx->pages[0]), PAGE_SHIFT,
			      0, 1);
}

static void sroce_mr_fr_key_works_only_while_valid(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 old = sroce_key_make(TEST_FR_INDEX, 0x10);
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x11);

	sroce_mr_test_fill_fr_pages(test);
	/* FREE: not even the key it was allocated with reaches it. */
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, old));
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0x1000, 64), 0);
	KUNIT_EXPECT_TRUE(test, sroce_mr_key_usable(mr, key));
	/* The REG_MR's key byte, and only that one. */
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, old));
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, key + 1));
	KUNIT_EXPECT_EQ(test, mr->iova, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, mr->length, 64ULL);
	KUNIT_EXPECT_EQ(test, mr->access, TEST_FR_ACCESS);

	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->pd, key), 0);
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, key));
}

static void sroce_mr_fr_register_needs_free_same_index_own_pd(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x22);

	sroce_mr_test_fill_fr_pages(test);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->other_pd, key,
						TEST_FR_ACCESS, 0, 64), -EACCES);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd,
						sroce_key_make(TEST_FR_INDEX + 1, 0x22),
						TEST_FR_ACCESS, 0, 64), -EINVAL);
	/* Remote write without local write (IBA), and a range past the list. */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						IB_ACCESS_REMOTE_WRITE, 0, 64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0,
						PAGE_SIZE + 1), -EINVAL);
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, key));

	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0, PAGE_SIZE), 0);
	/* VALID: a second REG_MR is refused and changes nothing. */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key + 1,
						TEST_FR_ACCESS, 0, 64), -EINVAL);
	KUNIT_EXPECT_TRUE(test, sroce_mr_key_usable(mr, key));
	KUNIT_EXPECT_EQ(test, mr->length, (u64)PAGE_SIZE);
}

static void sroce_mr_fr_invalidate_needs_current_key(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x33);

	sroce_mr_test_fill_fr_pages(test);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->pd, key), -EINVAL);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0, 64), 0);
	/* Another key byte or another PD invalidates nothing. */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->pd, key ^ 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->other_pd, key),
			-EACCES);
	KUNIT_EXPECT_TRUE(test, sroce_mr_key_usable(mr, key));
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->pd, key), 0);
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, key));
	/* FREE: once is all. Then the MR takes a new registration. */
	KUNIT_EXPECT_EQ(test, sroce_mr_invalidate(mr, &ctx->pd, key), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key + 1,
						TEST_FR_ACCESS, 0, 64), 0);
	KUNIT_EXPECT_TRUE(test, sroce_mr_key_usable(mr, key + 1));
}

/*
 * A lookup from before an invalidation may still be copying with the old
 * translation: the next REG_MR waits (EAGAIN) instead of rewriting it.
 */
static void sroce_mr_fr_register_waits_for_old_lookups(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x44);

	sroce_mr_test_fill_fr_pages(test);
	refcount_inc(&mr->refs);		/* the REG_MR's own lookup */
	refcount_inc(&mr->refs);		/* one from before */
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0, 64), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, sroce_mr_key_usable(mr, key));
	KUNIT_EXPECT_EQ(test, mr->fr_state, (u32)SROCE_FR_FREE);
	refcount_dec(&mr->refs);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0, 64), 0);
}

/*
 * 8 KiB chunks, an iova the ULP moved away from the kernel address (as
 * xprtrdma does): bytes land by their offset in the page list, across the
 * chunk boundary.
 */
static void sroce_mr_fr_copy_uses_page_list(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	const u64 iova = 0xabcd000000001ff0ULL;
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x55);
	struct page *block;
	u8 in[64], out[64], *base;
	int i;

	block = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	KUNIT_ASSERT_NOT_NULL(test, block);
	base = page_address(block);
	sroce_mr_test_fill_fr(test, base, 13, 0x1ff0, 2);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, iova, 0x100), 0);
	for (i = 0; i < sizeof(in); i++)
		in[i] = i + 1;
	sroce_mr_copy(mr, iova, in, sizeof(in), SROCE_COPY_TO_MR);
	KUNIT_EXPECT_EQ(test, base[0x1fef], 0);
	KUNIT_EXPECT_EQ(test, base[0x1ff0], 1);
	KUNIT_EXPECT_EQ(test, base[0x2000], 17);
	KUNIT_EXPECT_EQ(test, base[0x202f], 64);
	KUNIT_EXPECT_EQ(test, base[0x2030], 0);
	memset(out, 0, sizeof(out));
	sroce_mr_copy(mr, iova, out, sizeof(out), SROCE_COPY_FROM_MR);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, sizeof(in)), 0);
	/* Inside the range, outside it: the ordinary check. */
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, iova + 0xf8, 8,
					     IB_ACCESS_REMOTE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, iova + 0xf9, 8,
					     IB_ACCESS_REMOTE_WRITE), -ERANGE);
	__free_pages(block, 2);
}

/* A fast-reg MR is kernel memory: never reachable through a user PD. */
static void sroce_mr_fr_refused_to_user_pd(struct kunit *test)
{
	struct sroce_mr_test_ctx *ctx = test->priv;
	struct sroce_mr *mr = &ctx->mr;
	u32 key = sroce_key_make(TEST_FR_INDEX, 0x66);
	struct ib_uobject uobj = {};

	sroce_mr_test_fill_fr_pages(test);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(mr, &ctx->pd, key,
						TEST_FR_ACCESS, 0, 64), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0, 8, 0), 0);
	ctx->pd.uobject = &uobj;
	KUNIT_EXPECT_EQ(test, sroce_mr_check(mr, &ctx->pd, 0, 8, 0), -EACCES);
	ctx->pd.uobject = NULL;
}

static struct kunit_case sroce_mr_cases[] = {
	KUNIT_CASE(sroce_mr_key_packs_index_and_generation),
	KUNIT_CASE(sroce_mr_key_generation_tells_reused_slot_apart),
	KUNIT_CASE(sroce_mr_check_accepts_inside),
	KUNIT_CASE(sroce_mr_check_rejects_outside),
	KUNIT_CASE(sroce_mr_check_survives_u64_overflow),
	KUNIT_CASE(sroce_mr_check_requires_every_right),
	KUNIT_CASE(sroce_mr_check_rejects_other_pd_first),
	KUNIT_CASE(sroce_mr_copy_crosses_pages),
	KUNIT_CASE(sroce_mr_copy_from_skb_places_payload),
	KUNIT_CASE(sroce_mr_atomic_fetch_add_and_cmp_swap),
	KUNIT_CASE(sroce_mr_fr_key_works_only_while_valid),
	KUNIT_CASE(sroce_mr_fr_register_needs_free_same_index_own_pd),
	KUNIT_CASE(sroce_mr_fr_invalidate_needs_current_key),
	KUNIT_CASE(sroce_mr_fr_register_waits_for_old_lookups),
	KUNIT_CASE(sroce_mr_fr_copy_uses_page_list),
	KUNIT_CASE(sroce_mr_fr_refused_to_user_pd),
	{}
};

static struct kunit_suite sroce_mr_suite = {
	.name = "sroce_mr",
	.init = sroce_mr_test_init,
	.exit = sroce_mr_test_exit,
	.test_cases = sroce_mr_cases,
};

kunit_test_suites(&sroce_mr_suite);
