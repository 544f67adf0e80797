/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_psn.h - 24-bit packet sequence number arithmetic.
 *
 * PSNs wrap at 2^24. Two PSNs are compared by their signed distance modulo
 * 2^24, which is meaningful while they are less than 2^23 apart: IBA keeps
 * the outstanding window far below that (9.7.1).
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include <linux/types.h>

#define SROCE_PSN_BITS	24
#define SROCE_PSN_MASK	((1U << SROCE_PSN_BITS) - 1)

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* Signed distance from @b to @a: positive when @a comes after @b. */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - SROCE_PSN_BITS)) >> (32 - SROCE_PSN_BITS);
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

/* Is @psn one of the @count PSNs starting at @first? */
static inline bool sroce_psn_in_window(u32 psn, u32 first, u32 count)
{
	return ((psn - first) & SROCE_PSN_MASK) < count;
}

#endif /* SROCE_PSN_H */
