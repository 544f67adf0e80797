/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce.h - libsroce's objects and the converters from the libibverbs
 * objects embedded in them.
 */
#ifndef SROCE_H
#define SROCE_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/sroce-abi.h>

#include "verbs_provider_abi.h"

#define sroce_container_of(ptr, type, member)                                 \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* One sroce ib_device as libibverbs enumerates it. */
struct sroce_device {
	struct verbs_device vdev;
	uint32_t uverbs_abi_version;	/* sysfs abi_version at probe */
};

/* An open device: what ibv_open_device() returns, wrapped. */
struct sroce_context {
	struct verbs_context vctx;
	uint32_t max_inline_data;	/* from sroce_alloc_ucontext_resp */
	uint32_t page_shift;		/* for the data path's mmap offsets */
};

/* The GET_CONTEXT answer: the core part, then sroce's own. */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

_Static_assert(offsetof(struct sroce_get_context_resp, drv) ==
		       sizeof(struct ib_uverbs_get_context_resp),
	       "driver payload must follow the core response directly");

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return sroce_container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return sroce_container_of(ibctx, struct sroce_context, vctx.context);
}

#endif /* SROCE_H */
