// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_main.c - module entry: the "sroce" rdma link type.
 *
 * `rdma link add sroce0 type sroce netdev eth0` reaches sroce_newlink()
 * through ib_core's netlink handler, which loads this module on demand via
 * the rdma-link-sroce alias.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_debug.h"
#include "sroce_local.h"
#include "sroce_net.h"

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return sroce_dev_add(ibdev_name, ndev);
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int __init sroce_init(void)
{
	int err;

	sroce_local_setup();	/* nothing to undo */
	sroce_debug_init();
	err = sroce_net_init();
	if (err)
		goto err_debug;
	/* Devices follow their netdev, so listen before any can exist. */
	err = sroce_netdev_init();
	if (err)
		goto err_net;

	rdma_link_register(&sroce_link_ops);
	pr_info("loaded\n");
	return 0;

err_net:
	sroce_net_exit();
err_debug:
	sroce_debug_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	/* Waits for a running newlink; none can start after this. */
	rdma_link_unregister(&sroce_link_ops);
	sroce_dev_remove_all();
	sroce_local_teardown();
	sroce_netdev_exit();
	sroce_net_exit();
	sroce_debug_exit();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce authors");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device over the kernel UDP stack");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
