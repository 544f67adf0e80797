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

/*
 * May @pkts consecutive PSNs be outstanding at once? Beyond 2^23 - 1 the
 * last is no longer "after" the first (sroce_psn_after()), so a READ that
 * long could neither be tracked by its requester nor told from a duplicate
 * by its responder: 2 GiB at path MTU 256 is exactly 2^23.
 */
static inline bool sroce_psn_span_fits(u64 pkts)
{
	return pkts < (1U << (SROCE_PSN_BITS - 1));
}

/* Is @psn one of the @count PSNs starting at @first? */
static inline bool sroce_psn_in_window(u32 psn, u32 first, u32 count)
{
	return ((psn - first) & SROCE_PSN_MASK) < count;
}

/**
 * sroce_psn_resume_index - packet of a message to send again from
 * @first: PSN of the message's first packet
 * @pkts: packets in the message
 * @sent: bytes of it sent so far (in @mtu-byte packets)
 * @mtu: path MTU in bytes
 * @psn: first PSN the responder is missing
 *
 * Only a PSN inside what was sent can resume the message midway: every
 * packet before it arrived. Any other PSN starts the message over (0).
 */
static inline u32 sroce_psn_resume_index(u32 first, u32 pkts, u32 sent,
					 u32 mtu, u32 psn)
{
	u32 index = (psn - first) & SROCE_PSN_MASK;

	if (index >= pkts || (u64)index * mtu > sent)
		return 0;
	return index;
}

#endif /* SROCE_PSN_H */
