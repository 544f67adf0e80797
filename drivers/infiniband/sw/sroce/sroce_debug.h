/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_debug.h - test-only knobs under /sys/kernel/debug/sroce/.
 *
 * Delay points hold a race window open so a test can hit it every time
 * (Documentation/testing.md). All are off by default; while every delay is
 * zero a static key keeps each point down to one patched-out jump.
 */
#ifndef SROCE_DEBUG_H
#define SROCE_DEBUG_H

#include <linux/jump_label.h>

/* Where a test may ask for a busy-wait; each has its debugfs files. */
enum sroce_delay_point {
	SROCE_DELAY_QP_LOOKUP,	/* sroce_qp_get(): after the load, before the ref */
	SROCE_NUM_DELAY_POINTS
};

DECLARE_STATIC_KEY_FALSE(sroce_delays_enabled);

void __sroce_delay(enum sroce_delay_point point);
void __sroce_delay_lost_race(enum sroce_delay_point point);

/* Busy-wait as configured: any context, RCU read side included. */
static inline void sroce_delay(enum sroce_delay_point point)
{
	if (static_branch_unlikely(&sroce_delays_enabled))
		__sroce_delay(point);
}

/* Count a delayed lookup whose object went away meanwhile: the test's proof. */
static inline void sroce_delay_lost_race(enum sroce_delay_point point)
{
	if (static_branch_unlikely(&sroce_delays_enabled))
		__sroce_delay_lost_race(point);
}

void sroce_debug_init(void);
void sroce_debug_exit(void);

#endif /* SROCE_DEBUG_H */
