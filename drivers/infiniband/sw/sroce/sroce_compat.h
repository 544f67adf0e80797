/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_compat.h - the one place where kernel API differences live.
 *
 * Force-included by Kbuild ahead of every source file (after only
 * <linux/kconfig.h>, whose IS_ENABLED() it uses), so it may only pull in
 * <linux/version.h> and must not depend on anything defined later. The .c
 * files use the feature-named helpers below and never test versions.
 *
 * Supported: Debian 12's 6.1 and bookworm-backports' 6.12.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>

struct ib_udata;
struct uverbs_attr_bundle;

/*
 * ib_device_ops.create_cq: since 6.10 the last argument is the whole uverbs
 * attribute bundle instead of the driver udata.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SROCE_CREATE_CQ_HAS_ATTR_BUNDLE 1
typedef struct uverbs_attr_bundle sroce_create_cq_ctx_t;
#else
typedef struct ib_udata sroce_create_cq_ctx_t;
#endif

/*
 * sroce_create_cq_udata(ctx) - the driver udata of a create_cq call, or NULL
 * for a kernel CQ. A macro because struct uverbs_attr_bundle is not defined
 * yet where this header is included; callers include rdma/uverbs_ioctl.h.
 */
#ifdef SROCE_CREATE_CQ_HAS_ATTR_BUNDLE
#define sroce_create_cq_udata(ctx) ({				\
	sroce_create_cq_ctx_t *__sroce_ctx = (ctx);		\
	__sroce_ctx ? &__sroce_ctx->driver_udata : NULL;	\
})
#else
#define sroce_create_cq_udata(ctx) ((struct ib_udata *)(ctx))
#endif

/*
 * vm_area_struct.vm_flags became read-only in 6.3; since then it is changed
 * with vm_flags_mod() and friends. Older kernels get the same name as a
 * macro (struct vm_area_struct is not defined yet here).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define vm_flags_mod(vma, set, clear) \
	((vma)->vm_flags = ((vma)->vm_flags | (set)) & ~(clear))
#endif

/*
 * The unaligned access helpers moved from asm/ to linux/ in 6.12. A quoted
 * name, because GNU C predefines "linux" as a macro.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define SROCE_UNALIGNED_H "linux/unaligned.h"
#else
#define SROCE_UNALIGNED_H "asm/unaligned.h"
#endif

/*
 * SROCE_VISIBLE_IF_KUNIT: static in the module, global only when the KUnit
 * suites are linked in (CONFIG_SROCE_KUNIT_TEST, see Kbuild), so a suite can
 * call a function no other file needs; its prototype sits in the unit's
 * header under the same condition. <kunit/visibility.h>'s VISIBLE_IF_KUNIT
 * (6.2+, absent from 6.1) keys on CONFIG_KUNIT instead, which distribution
 * kernels may set (Ubuntu: =m), and would make these global in a production
 * module built there.
 */
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
#define SROCE_VISIBLE_IF_KUNIT
#else
#define SROCE_VISIBLE_IF_KUNIT static
#endif

#endif /* SROCE_COMPAT_H */
