/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_check_rings.h - pure checks of the ring geometry the kernel returns
 * when it creates a CQ or a QP, and the capacities derived from it.
 *
 * Nothing here touches libibverbs, so host unit tests can link it alone.
 */
#ifndef SROCE_CHECK_RINGS_H
#define SROCE_CHECK_RINGS_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/sroce-abi.h>

/* Bytes of a send WQE before its SGEs or inline data. */
#define SROCE_SEND_WQE_HDR_SIZE 64
#define SROCE_RECV_WQE_HDR_SIZE 16

/* Why a create response is refused; SROCE_RINGS_OK means usable. */
enum sroce_rings_verdict {
	SROCE_RINGS_OK,
	SROCE_RINGS_RESERVED_NOT_ZERO,
	SROCE_RINGS_BAD_DEPTH,
	SROCE_RINGS_DEPTH_BELOW_REQUEST,
	SROCE_RINGS_BAD_STRIDE,
	SROCE_RINGS_MAPPING_TOO_SMALL,
	SROCE_RINGS_INLINE_EXCEEDS_STRIDE,
	SROCE_RINGS_VERDICT_COUNT,
};

/* cqe is what the process asked for; the ring must hold cqe + 1. */
enum sroce_rings_verdict
sroce_check_cq_resp(const struct sroce_create_cq_resp *resp, uint32_t cqe);

/* A queue with depth 0 and mmap_size 0 is absent, which is allowed. */
enum sroce_rings_verdict
sroce_check_qp_resp(const struct sroce_create_qp_resp *resp);

/* max_wr is what the process asked for; the ring must hold at least that. */
enum sroce_rings_verdict
sroce_check_srq_resp(const struct sroce_create_srq_resp *resp,
		     uint32_t max_wr);

/* A sentence fragment for error messages; never NULL. */
const char *sroce_rings_verdict_name(enum sroce_rings_verdict verdict);

/* SGEs that fit in one entry of a checked ring. */
uint32_t sroce_send_stride_max_sge(uint32_t stride);
uint32_t sroce_recv_stride_max_sge(uint32_t stride);

#endif /* SROCE_CHECK_RINGS_H */
