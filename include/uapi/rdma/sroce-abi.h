/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * sroce-abi.h - the contract between sroce.ko and libsroce-rdmav34.so.
 *
 * This header is the single source of truth for both sides: the kernel
 * module and the rdma-core provider include it unchanged. Every structure is
 * built from fixed-width types with explicit padding so that 32- and 64-bit
 * processes see one layout; every reserved field must be zero when written
 * and is rejected by the receiver otherwise, so it can be given a meaning
 * later without breaking old binaries.
 *
 * Versioning
 * ----------
 * SROCE_UVERBS_ABI_VERSION is the ib_uverbs driver ABI version the kernel
 * advertises (sysfs abi_version); the provider refuses devices outside the
 * range it was built for. SROCE_ABI_VERSION versions the structures below and
 * is echoed by the kernel in struct sroce_alloc_ucontext_resp; a provider that
 * does not know the version it gets back must not use the device.
 *
 * Compatible growth happens through comp_mask bits and trailing fields; an
 * incompatible change bumps SROCE_ABI_VERSION.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	1
#define SROCE_ABI_VERSION		1

/* Devices are matched by name: rdma link names them "sroce<N>" by convention. */
#define SROCE_DEVICE_NAME_PREFIX	"sroce"

/*
 * struct sroce_alloc_ucontext_resp - kernel answer to ibv_open_device()
 * @abi_version: SROCE_ABI_VERSION of the running module
 * @comp_mask: SROCE_UCTX_* bits saying which optional fields are valid
 * @max_inline_data: largest inline payload a send WQE may carry, in bytes
 * @page_shift: log2 of the page size used for every mmap offset and length
 * @reserved: must be zero
 */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 comp_mask;
	__u32 max_inline_data;
	__u32 page_shift;
	__aligned_u64 reserved[2];
};

#endif /* SROCE_ABI_USER_H */
