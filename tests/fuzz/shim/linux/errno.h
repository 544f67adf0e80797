/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi errno values; the kernel header of the same name adds nothing the codec uses. */
#include_next <linux/errno.h>
