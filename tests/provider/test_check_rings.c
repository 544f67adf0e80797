// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests for sroce_check_rings.c: which ring geometries the provider
 * accepts from the kernel before it maps and writes them.
 */
#include <string.h>

#include "sroce_check_rings.h"
#include "unit.h"

static struct sroce_create_cq_resp good_cq(void)
{
	struct sroce_create_cq_resp r;

	memset(&r, 0, sizeof(r));
	r.mmap_offset = 4096;
	r.depth = 16;
	r.mmap_size = 256 + 16 * 64;
	return r;
}

static struct sroce_create_qp_resp good_qp(void)
{
	struct sroce_create_qp_resp r;

	memset(&r, 0, sizeof(r));
	r.sq_depth = 8;
	r.sq_stride = 128;
	r.sq_mmap_size = 256 + 8 * 128;
	r.rq_depth = 4;
	r.rq_stride = 64;
	r.rq_mmap_size = 256 + 4 * 64;
	r.max_inline_data = 64;
	return r;
}

static void abi_structs_have_fixed_layout(struct unit_case_state *t)
{
	EXPECT(t, sizeof(struct sroce_ring_hdr) == 192);
	EXPECT(t, sizeof(struct sroce_send_wqe) == 64);
	EXPECT(t, sizeof(struct sroce_recv_wqe) == 16);
	EXPECT(t, sizeof(struct sroce_cqe) == 64);
	EXPECT(t, sizeof(struct sroce_create_cq_resp) == 24);
	EXPECT(t, sizeof(struct sroce_create_qp_resp) == 56);
	EXPECT(t, sizeof(struct sroce_create_srq_resp) == 32);
}

static void cq_resp_accepts_a_consistent_ring(struct unit_case_state *t)
{
	struct sroce_create_cq_resp r = good_cq();

	EXPECT(t, sroce_check_cq_resp(&r, 15) == SROCE_RINGS_OK);
	EXPECT(t, sroce_check_cq_resp(&r, 1) == SROCE_RINGS_OK);
}

static void cq_resp_rejects_each_inconsistency(struct unit_case_state *t)
{
	struct sroce_create_cq_resp r = good_cq();

	EXPECT(t, sroce_check_cq_resp(&r, 16) == SROCE_RINGS_OK);
	EXPECT(t, sroce_check_cq_resp(&r, 17) == SROCE_RINGS_DEPTH_BELOW_REQUEST);
	r.depth = 12;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_BAD_DEPTH);
	r.depth = 0;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_BAD_DEPTH);
	r = good_cq();
	r.mmap_size--;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_MAPPING_TOO_SMALL);
	r = good_cq();
	r.reserved = 1;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_RESERVED_NOT_ZERO);
}

static void cq_resp_size_check_does_not_overflow(struct unit_case_state *t)
{
	struct sroce_create_cq_resp r = good_cq();

	r.depth = 1U << 31;
	r.mmap_size = 256 + (1ULL << 31) * 64 - 1;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_MAPPING_TOO_SMALL);
	r.mmap_size++;
	EXPECT(t, sroce_check_cq_resp(&r, 4) == SROCE_RINGS_OK);
}

static void qp_resp_accepts_consistent_and_absent_queues(
	struct unit_case_state *t)
{
	struct sroce_create_qp_resp r = good_qp();

	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_OK);
	r.rq_depth = 0;
	r.rq_mmap_size = 0;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_OK);
}

static void qp_resp_rejects_each_inconsistency(struct unit_case_state *t)
{
	struct sroce_create_qp_resp r = good_qp();

	r.sq_stride = 96;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_BAD_STRIDE);
	r = good_qp();
	r.sq_stride = 32;	/* below the 64-byte header */
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_BAD_STRIDE);
	r = good_qp();
	r.rq_stride = 8;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_BAD_STRIDE);
	r = good_qp();
	r.rq_depth = 0;		/* absent needs a zero mapping too */
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_BAD_DEPTH);
	r = good_qp();
	r.sq_mmap_size--;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_MAPPING_TOO_SMALL);
	r = good_qp();
	r.max_inline_data = 65;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_INLINE_EXCEEDS_STRIDE);
	r = good_qp();
	r.reserved = 2;
	EXPECT(t, sroce_check_qp_resp(&r) == SROCE_RINGS_RESERVED_NOT_ZERO);
}

static struct sroce_create_srq_resp good_srq(void)
{
	struct sroce_create_srq_resp r;

	memset(&r, 0, sizeof(r));
	r.mmap_offset = 8192;
	r.depth = 16;
	r.stride = 32;
	r.mmap_size = 256 + 16 * 32;
	return r;
}

static void srq_resp_accepts_a_ring_at_least_as_deep_as_asked(
	struct unit_case_state *t)
{
	struct sroce_create_srq_resp r = good_srq();

	EXPECT(t, sroce_check_srq_resp(&r, 16) == SROCE_RINGS_OK);
	EXPECT(t, sroce_check_srq_resp(&r, 9) == SROCE_RINGS_OK);
	EXPECT(t, sroce_check_srq_resp(&r, 17) == SROCE_RINGS_DEPTH_BELOW_REQUEST);
}

static void srq_resp_rejects_each_inconsistency(struct unit_case_state *t)
{
	struct sroce_create_srq_resp r = good_srq();

	r.depth = 12;
	EXPECT(t, sroce_check_srq_resp(&r, 1) == SROCE_RINGS_BAD_DEPTH);
	r = good_srq();
	r.stride = 8;		/* below the 16-byte header */
	EXPECT(t, sroce_check_srq_resp(&r, 1) == SROCE_RINGS_BAD_STRIDE);
	r = good_srq();
	r.mmap_size--;
	EXPECT(t, sroce_check_srq_resp(&r, 1) == SROCE_RINGS_MAPPING_TOO_SMALL);
	r = good_srq();
	r.reserved = 1;
	EXPECT(t, sroce_check_srq_resp(&r, 1) == SROCE_RINGS_RESERVED_NOT_ZERO);
}

static void stride_gives_sge_capacity(struct unit_case_state *t)
{
	EXPECT(t, sroce_send_stride_max_sge(64) == 0);
	EXPECT(t, sroce_send_stride_max_sge(128) == 4);
	EXPECT(t, sroce_send_stride_max_sge(32) == 0);
	EXPECT(t, sroce_recv_stride_max_sge(16) == 0);
	EXPECT(t, sroce_recv_stride_max_sge(64) == 3);
}

static void every_rings_verdict_has_a_name(struct unit_case_state *t)
{
	int v;

	for (v = 0; v < SROCE_RINGS_VERDICT_COUNT; v++)
		EXPECT(t, sroce_rings_verdict_name(v) != NULL &&
				  strcmp(sroce_rings_verdict_name(v),
					 "unknown verdict"));
	EXPECT(t, !strcmp(sroce_rings_verdict_name(SROCE_RINGS_VERDICT_COUNT),
			  "unknown verdict"));
}

static const struct unit_case cases[] = {
	UNIT_CASE(abi_structs_have_fixed_layout),
	UNIT_CASE(cq_resp_accepts_a_consistent_ring),
	UNIT_CASE(cq_resp_rejects_each_inconsistency),
	UNIT_CASE(cq_resp_size_check_does_not_overflow),
	UNIT_CASE(qp_resp_accepts_consistent_and_absent_queues),
	UNIT_CASE(qp_resp_rejects_each_inconsistency),
	UNIT_CASE(srq_resp_accepts_a_ring_at_least_as_deep_as_asked),
	UNIT_CASE(srq_resp_rejects_each_inconsistency),
	UNIT_CASE(stride_gives_sge_capacity),
	UNIT_CASE(every_rings_verdict_has_a_name),
};

UNIT_MAIN(cases)
