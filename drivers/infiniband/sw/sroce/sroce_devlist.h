/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_devlist.h - the module-wide list of sroce devices, shared by the
 * device lifetime code and the netdev notifier.
 */
#ifndef SROCE_DEVLIST_H
#define SROCE_DEVLIST_H

#include <linux/mutex.h>

struct net_device;
struct sroce_dev;

extern struct mutex sroce_devices_lock;

struct sroce_dev *sroce_dev_find_by_netdev(struct net_device *ndev);

#endif /* SROCE_DEVLIST_H */
