/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_icrc.h - the RoCEv2 invariant CRC.
 */
#ifndef SROCE_ICRC_H
#define SROCE_ICRC_H

#include <linux/types.h>

int sroce_icrc_compute(const void *ip, unsigned int len, u32 *icrc);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
int sroce_icrc_begin(const void *ip, unsigned int len, u32 *crc);
u32 sroce_icrc_update(u32 crc, const void *data, unsigned int len);
u32 sroce_icrc_finish(u32 crc);
#endif

#endif /* SROCE_ICRC_H */
