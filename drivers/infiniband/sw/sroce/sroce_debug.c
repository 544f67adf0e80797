// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_debug.c - test-only delay points, set through debugfs.
 *
 * /sys/kernel/debug/sroce/delay_<point>_us   busy-wait in µs (0: off, max 10000)
 * /sys/kernel/debug/sroce/delay_<point>_hits  times the point waited (read-only)
 * /sys/kernel/debug/sroce/delay_<point>_lost  waits after which the object
 *					        looked up was gone (read-only)
 *
 * Without debugfs the files do not exist and every point stays off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/mutex.h>

#include "sroce_debug.h"

#define SROCE_DELAY_MAX_US	10000

DEFINE_STATIC_KEY_FALSE(sroce_delays_enabled);

struct sroce_delay {
	const char *name;
	u32 us;			/* written by debugfs, read racily: any value is valid */
	atomic64_t hits;
	atomic64_t lost;
};

static struct sroce_delay sroce_delays[SROCE_NUM_DELAY_POINTS] = {
	[SROCE_DELAY_QP_LOOKUP] = { .name = "qp_lookup" },
};

/* Serialises knob writes, so the static key follows the last one. */
static DEFINE_MUTEX(sroce_delays_lock);
static struct dentry *sroce_debug_dir;

void __sroce_delay(enum sroce_delay_point point)
{
	struct sroce_delay *d = &sroce_delays[point];
	u32 us = READ_ONCE(d->us);

	if (!us)
		return;
	atomic64_inc(&d->hits);
	udelay(us);
}

void __sroce_delay_lost_race(enum sroce_delay_point point)
{
	atomic64_inc(&sroce_delays[point].lost);
}

static bool sroce_delays_any(void)
{
	int i;

	lockdep_assert_held(&sroce_delays_lock);
	for (i = 0; i < SROCE_NUM_DELAY_POINTS; i++)
		if (sroce_delays[i].us)
			return true;
	return false;
}

static int sroce_delay_set(void *data, u64 val)
{
	struct sroce_delay *d = data;

	if (val > SROCE_DELAY_MAX_US)
		return -EINVAL;
	mutex_lock(&sroce_delays_lock);
	WRITE_ONCE(d->us, val);
	if (sroce_delays_any())
		static_branch_enable(&sroce_delays_enabled);
	else
		static_branch_disable(&sroce_delays_enabled);
	mutex_unlock(&sroce_delays_lock);
	return 0;
}

static int sroce_delay_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct sroce_delay *)data)->us);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(sroce_delay_fops, sroce_delay_get, sroce_delay_set,
			 "%llu\n");

static int sroce_counter_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(sroce_counter_fops, sroce_counter_get, NULL, "%llu\n");

static void sroce_delay_files(struct sroce_delay *d)
{
	char name[48];

	snprintf(name, sizeof(name), "delay_%s_us", d->name);
	debugfs_create_file_unsafe(name, 0600, sroce_debug_dir, d,
				   &sroce_delay_fops);
	snprintf(name, sizeof(name), "delay_%s_hits", d->name);
	debugfs_create_file_unsafe(name, 0400, sroce_debug_dir, &d->hits,
				   &sroce_counter_fops);
	snprintf(name, sizeof(name), "delay_%s_lost", d->name);
	debugfs_create_file_unsafe(name, 0400, sroce_debug_dir, &d->lost,
				   &sroce_counter_fops);
}

/* Nothing to undo on failure: debugfs errors only mean no knobs. */
void sroce_debug_init(void)
{
	int i;

	sroce_debug_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < SROCE_NUM_DELAY_POINTS; i++)
		sroce_delay_files(&sroce_delays[i]);
}

/* After the devices are gone: no delay point can be running. */
void sroce_debug_exit(void)
{
	debugfs_remove_recursive(sroce_debug_dir);
}
