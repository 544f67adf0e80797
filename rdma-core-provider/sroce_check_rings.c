// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_check_rings.c - what the provider accepts as ring geometry from
 * the kernel. The provider writes into these rings at offsets computed
 * from depth and stride, so a geometry that does not fit its mapping
 * must be refused before the first mmap(), not discovered by a SIGBUS.
 */
#include <stddef.h>

#include "sroce_check_rings.h"
#include "sroce_ring.h"

_Static_assert(sizeof(struct sroce_send_wqe) == SROCE_SEND_WQE_HDR_SIZE,
	       "send WQE header size");
_Static_assert(sizeof(struct sroce_recv_wqe) == SROCE_RECV_WQE_HDR_SIZE,
	       "receive WQE header size");
_Static_assert(sizeof(struct sroce_cqe) == 64, "CQE size");
_Static_assert(sizeof(struct sroce_ring_hdr) <= SROCE_RING_ENTRIES_OFFSET,
	       "ring header fits before the entries");

static const char *const sroce_rings_verdict_names[] = {
	[SROCE_RINGS_OK] = "ok",
	[SROCE_RINGS_RESERVED_NOT_ZERO] = "reserved field not zero",
	[SROCE_RINGS_BAD_DEPTH] = "ring depth not a power of two",
	[SROCE_RINGS_DEPTH_BELOW_REQUEST] = "ring smaller than requested",
	[SROCE_RINGS_BAD_STRIDE] = "entry stride not a usable power of two",
	[SROCE_RINGS_MAPPING_TOO_SMALL] = "mapping shorter than the ring",
	[SROCE_RINGS_INLINE_EXCEEDS_STRIDE] = "max_inline_data exceeds the send entry",
};

_Static_assert(sizeof(sroce_rings_verdict_names) /
			       sizeof(sroce_rings_verdict_names[0]) ==
		       SROCE_RINGS_VERDICT_COUNT,
	       "every verdict needs a name");

const char *sroce_rings_verdict_name(enum sroce_rings_verdict verdict)
{
	if ((unsigned int)verdict >= SROCE_RINGS_VERDICT_COUNT)
		return "unknown verdict";
	return sroce_rings_verdict_names[verdict];
}

static bool sroce_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static enum sroce_rings_verdict sroce_check_ring(uint64_t map_size,
						 uint32_t depth,
						 uint32_t stride,
						 uint32_t min_stride)
{
	if (!sroce_ring_size_valid(depth))
		return SROCE_RINGS_BAD_DEPTH;
	if (!sroce_pow2(stride) || stride < min_stride)
		return SROCE_RINGS_BAD_STRIDE;
	/* depth <= 2^31 and stride < 2^32: the product fits in 64 bits. */
	if (map_size < SROCE_RING_ENTRIES_OFFSET + (uint64_t)depth * stride)
		return SROCE_RINGS_MAPPING_TOO_SMALL;
	return SROCE_RINGS_OK;
}

static enum sroce_rings_verdict sroce_check_queue(uint64_t map_size,
						  uint32_t depth,
						  uint32_t stride,
						  uint32_t min_stride)
{
	if (depth == 0 && map_size == 0)
		return SROCE_RINGS_OK;
	return sroce_check_ring(map_size, depth, stride, min_stride);
}

enum sroce_rings_verdict
sroce_check_cq_resp(const struct sroce_create_cq_resp *resp, uint32_t cqe)
{
	enum sroce_rings_verdict v;

	if (resp->reserved)
		return SROCE_RINGS_RESERVED_NOT_ZERO;
	v = sroce_check_ring(resp->mmap_size, resp->depth,
			     sizeof(struct sroce_cqe), sizeof(struct sroce_cqe));
	if (v != SROCE_RINGS_OK)
		return v;
	if (resp->depth < cqe)
		return SROCE_RINGS_DEPTH_BELOW_REQUEST;
	return SROCE_RINGS_OK;
}

enum sroce_rings_verdict
sroce_check_qp_resp(const struct sroce_create_qp_resp *resp)
{
	enum sroce_rings_verdict v;

	if (resp->reserved)
		return SROCE_RINGS_RESERVED_NOT_ZERO;
	v = sroce_check_queue(resp->sq_mmap_size, resp->sq_depth,
			      resp->sq_stride, SROCE_SEND_WQE_HDR_SIZE);
	if (v != SROCE_RINGS_OK)
		return v;
	v = sroce_check_queue(resp->rq_mmap_size, resp->rq_depth,
			      resp->rq_stride, SROCE_RECV_WQE_HDR_SIZE);
	if (v != SROCE_RINGS_OK)
		return v;
	if (resp->max_inline_data &&
	    (!resp->sq_depth ||
	     resp->max_inline_data > resp->sq_stride - SROCE_SEND_WQE_HDR_SIZE))
		return SROCE_RINGS_INLINE_EXCEEDS_STRIDE;
	return SROCE_RINGS_OK;
}

enum sroce_rings_verdict
sroce_check_srq_resp(const struct sroce_create_srq_resp *resp,
		     uint32_t max_wr)
{
	enum sroce_rings_verdict v;

	if (resp->reserved)
		return SROCE_RINGS_RESERVED_NOT_ZERO;
	v = sroce_check_ring(resp->mmap_size, resp->depth, resp->stride,
			     SROCE_RECV_WQE_HDR_SIZE);
	if (v != SROCE_RINGS_OK)
		return v;
	if (resp->depth < max_wr)
		return SROCE_RINGS_DEPTH_BELOW_REQUEST;
	return SROCE_RINGS_OK;
}

uint32_t sroce_send_stride_max_sge(uint32_t stride)
{
	if (stride < SROCE_SEND_WQE_HDR_SIZE)
		return 0;
	return (stride - SROCE_SEND_WQE_HDR_SIZE) / sizeof(struct sroce_sge);
}

uint32_t sroce_recv_stride_max_sge(uint32_t stride)
{
	if (stride < SROCE_RECV_WQE_HDR_SIZE)
		return 0;
	return (stride - SROCE_RECV_WQE_HDR_SIZE) / sizeof(struct sroce_sge);
}
