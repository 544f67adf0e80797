/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SROCE_FUZZ_SHIM_KERNEL_H
#define SROCE_FUZZ_SHIM_KERNEL_H

#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif
