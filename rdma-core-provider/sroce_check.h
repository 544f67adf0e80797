/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_check.h - pure checks of what the kernel hands the provider.
 *
 * Nothing here touches libibverbs, so host unit tests can link it alone.
 */
#ifndef SROCE_CHECK_H
#define SROCE_CHECK_H

#include <stdbool.h>

#include <rdma/sroce-abi.h>

/* Why a ucontext response is refused; SROCE_UCTX_OK means it is usable. */
enum sroce_uctx_verdict {
	SROCE_UCTX_OK,
	SROCE_UCTX_ABI_VERSION_MISMATCH,
	SROCE_UCTX_RESERVED_NOT_ZERO,
	SROCE_UCTX_VERDICT_COUNT,
};

enum sroce_uctx_verdict
sroce_check_ucontext_resp(const struct sroce_alloc_ucontext_resp *resp);

/* A sentence fragment for error messages; never NULL. */
const char *sroce_uctx_verdict_name(enum sroce_uctx_verdict verdict);

/* True if an ib_device name is one sroce.ko registers ("sroce<N>"). */
bool sroce_device_name_matches(const char *ibdev_name);

#endif /* SROCE_CHECK_H */
