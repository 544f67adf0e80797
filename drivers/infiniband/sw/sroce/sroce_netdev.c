// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_netdev.c - keeping devices in step with their netdev.
 *
 * Runs in the netdev notifier, under RTNL. Unregistration cannot happen here
 * (ib_core takes RTNL while unregistering), so it is queued; ib_core drops
 * its netdev references from that work, which lets the netdev's own
 * unregistration, waiting for them, complete.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>

#include "sroce.h"
#include "sroce_devlist.h"

static void sroce_netdev_gone(struct sroce_dev *sdev)
{
	/* A failed get means someone is unregistering it already. */
	if (!ib_device_try_get(&sdev->ib_dev))
		return;
	dev_info(&sdev->ib_dev.dev, "netdev %s unregistered, removing\n",
		 netdev_name(sdev->ndev));
	ib_unregister_device_queued(&sdev->ib_dev);
	ib_device_put(&sdev->ib_dev);
}

static void sroce_netdev_changed(struct sroce_dev *sdev, unsigned long event)
{
	switch (event) {
	case NETDEV_UNREGISTER:
		sroce_netdev_gone(sdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_port_report_state(sdev);
		break;
	default:
		/* MTU and addresses are read live or handled by ib_core. */
		break;
	}
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	ASSERT_RTNL();
	/* Held throughout: dealloc takes the device off the list under it. */
	mutex_lock(&sroce_devices_lock);
	sdev = sroce_dev_find_by_netdev(ndev);
	if (sdev)
		sroce_netdev_changed(sdev, event);
	mutex_unlock(&sroce_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

int sroce_netdev_init(void)
{
	return register_netdevice_notifier(&sroce_netdev_notifier);
}

void sroce_netdev_exit(void)
{
	unregister_netdevice_notifier(&sroce_netdev_notifier);
}
