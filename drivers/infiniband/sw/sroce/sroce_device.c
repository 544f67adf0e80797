// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_device.c - creation, lookup and teardown of sroce devices.
 *
 * Lifetime: sroce_dev_add() allocates the ib_device, reserves its netdev on
 * the device list and registers it with ib_core. From then on ib_core owns
 * the device: whoever unregisters it (rdma link delete, the netdev going
 * away, module unload) ends in sroce_dev_dealloc(), the dealloc_driver op,
 * which takes it off the list and drops the netdev; ib_core frees the memory.
 *
 * Lock order: RTNL -> sroce_devices_lock. ib_register_device() takes RTNL
 * internally, so it is never called with sroce_devices_lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <net/addrconf.h>

#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_devlist.h"
#include "sroce_net.h"
#include "sroce_stats.h"

/* Protects sroce_devices and each device's reported_port_state. */
DEFINE_MUTEX(sroce_devices_lock);
/* Every sroce device from reservation in sroce_dev_add() to dealloc. */
static LIST_HEAD(sroce_devices);

/*
 * The provider claims devices by the "sroce" name prefix, so any other name
 * would create a device no process could open. "%" patterns are refused by
 * ib_core's netlink handler already.
 */
SROCE_VISIBLE_IF_KUNIT bool sroce_ibdev_name_valid(const char *name)
{
	size_t prefix_len = strlen(SROCE_DEVICE_NAME_PREFIX);
	size_t len = strnlen(name, IB_DEVICE_NAME_MAX);

	return len >= prefix_len && len < IB_DEVICE_NAME_MAX &&
	       !strncmp(name, SROCE_DEVICE_NAME_PREFIX, prefix_len);
}

/* RoCE needs Ethernet framing; loopback devices have no wire to put it on. */
SROCE_VISIBLE_IF_KUNIT bool sroce_netdev_type_supported(unsigned short type,
						 unsigned int flags)
{
	return type == ARPHRD_ETHER && !(flags & IFF_LOOPBACK);
}

struct sroce_dev *sroce_dev_find_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_devices_lock);
	list_for_each_entry(sdev, &sroce_devices, list)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

static bool sroce_dev_name_taken(const char *name)
{
	struct ib_device *other;
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_devices_lock);
	/* A device of ours may still be unnamed while it registers. */
	list_for_each_entry(sdev, &sroce_devices, list)
		if (!strcmp(dev_name(&sdev->ib_dev.dev) ?: "", name))
			return true;

	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!other)
		return false;
	ib_device_put(other);
	return true;
}

/*
 * Put @sdev on the list unless its netdev or name is already in use. Doing
 * the check and the insertion under one lock hold closes the race between
 * two concurrent `rdma link add` on the same netdev.
 */
static int sroce_dev_reserve(struct sroce_dev *sdev, const char *name)
{
	int err = 0;

	mutex_lock(&sroce_devices_lock);
	if (sroce_dev_find_by_netdev(sdev->ndev)) {
		pr_info("netdev %s already has an sroce device\n",
			netdev_name(sdev->ndev));
		err = -EEXIST;
	} else if (sroce_dev_name_taken(name)) {
		pr_info("device name %s is already in use\n", name);
		err = -EEXIST;
	} else {
		list_add_tail(&sdev->list, &sroce_devices);
	}
	mutex_unlock(&sroce_devices_lock);
	return err;
}

static void sroce_dev_init_ibdev(struct sroce_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ib_dev;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = SROCE_PORT_NUM;
	/* Kernel ULPs size their queues by it (sroce_cq.c spreads them). */
	ibdev->num_comp_vectors = num_online_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    sdev->ndev->dev_addr);
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ibdev, &sroce_dev_ops);
}

static struct sroce_dev *sroce_dev_alloc(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev)
		return NULL;
	INIT_LIST_HEAD(&sdev->list);
	atomic_set(&sdev->num_pd, 0);
	atomic_set(&sdev->num_cq, 0);
	atomic_set(&sdev->num_qp, 0);
	sdev->ndev = ndev;
	sdev->net = dev_net(ndev);
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sroce_dev_init_ibdev(sdev);
	if (sroce_mr_table_init(sdev) || sroce_mw_table_init(sdev) ||
	    sroce_stats_init(sdev)) {
		/* Runs sroce_dev_dealloc(), which drops the netdev. */
		ib_dealloc_device(&sdev->ib_dev);
		return NULL;
	}
	return sdev;
}

static int sroce_dev_check_netdev(struct net_device *ndev)
{
	if (!sroce_netdev_type_supported(ndev->type, ndev->flags)) {
		pr_info("netdev %s is not an Ethernet device\n",
			netdev_name(ndev));
		return -EINVAL;
	}
	return 0;
}

/* Sockets and the transmit thread; sroce_dev_dealloc() undoes both. */
static int sroce_dev_start_data_path(struct sroce_dev *sdev)
{
	int err = sroce_net_get(sdev->net);

	if (err)
		return err;
	sdev->net_ref = true;
	return sroce_tx_start(sdev);
}

/**
 * sroce_dev_add - create and register an sroce device on @ndev
 * @name: ib_device name, must start with "sroce"
 * @ndev: Ethernet netdev; the caller holds a reference for the call
 *
 * Return: 0, or -EINVAL for a bad name or netdev, -EEXIST if the name or the
 * netdev is taken, -EADDRINUSE if UDP port 4791 belongs to someone else
 * (rdma_rxe), -ENOMEM, or ib_core's registration error.
 */
int sroce_dev_add(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	if (!sroce_ibdev_name_valid(name)) {
		pr_info("device name %s must start with \"%s\"\n", name,
			SROCE_DEVICE_NAME_PREFIX);
		return -EINVAL;
	}
	err = sroce_dev_check_netdev(ndev);
	if (err)
		return err;

	sdev = sroce_dev_alloc(ndev);
	if (!sdev)
		return -ENOMEM;

	err = sroce_dev_reserve(sdev, name);
	if (err)
		goto err_dealloc;

	err = ib_device_set_netdev(&sdev->ib_dev, ndev, SROCE_PORT_NUM);
	if (err)
		goto err_dealloc;
	err = sroce_dev_start_data_path(sdev);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&sdev->ib_dev, name, NULL);
	if (err) {
		/* ib_core reports a name clash it saw first as -ENFILE. */
		if (err == -ENFILE)
			err = -EEXIST;
		goto err_dealloc;
	}

	/* Announce the state the port starts in, and track it from here. */
	mutex_lock(&sroce_devices_lock);
	sroce_port_report_state(sdev);
	mutex_unlock(&sroce_devices_lock);
	dev_info(&sdev->ib_dev.dev, "created on netdev %s\n", netdev_name(ndev));
	return 0;

err_dealloc:
	/* Calls sroce_dev_dealloc(), which undoes the reservation. */
	ib_dealloc_device(&sdev->ib_dev);
	return err;
}

/* ib_device_ops.dealloc_driver: the last call ib_core makes into a device. */
void sroce_dev_dealloc(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	mutex_lock(&sroce_devices_lock);
	list_del_init(&sdev->list);
	mutex_unlock(&sroce_devices_lock);

	sroce_tx_stop(sdev);
	if (sdev->net_ref)
		sroce_net_put(sdev->net);
	sroce_mw_table_destroy(sdev);
	sroce_mr_table_destroy(sdev);
	sroce_stats_free(sdev);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	sdev->ndev = NULL;
}

static struct sroce_dev *sroce_dev_first_get(void)
{
	struct sroce_dev *sdev;

	mutex_lock(&sroce_devices_lock);
	sdev = list_first_entry_or_null(&sroce_devices, struct sroce_dev, list);
	if (sdev)
		get_device(&sdev->ib_dev.dev);
	mutex_unlock(&sroce_devices_lock);
	return sdev;
}

/**
 * sroce_dev_remove_all - unregister every device, for module unload
 *
 * Also the fence for unregistrations already queued by the netdev notifier:
 * ib_unregister_device() returns only once the device is fully gone, even
 * when another thread is unregistering it, and dealloc has then taken it off
 * the list. The caller guarantees no new device can appear.
 */
void sroce_dev_remove_all(void)
{
	struct sroce_dev *sdev;

	while ((sdev = sroce_dev_first_get())) {
		struct device *dev = &sdev->ib_dev.dev;

		ib_unregister_device(&sdev->ib_dev);
		put_device(dev);
	}
}
