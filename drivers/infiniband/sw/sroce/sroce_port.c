// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_port.c - the device's single RoCEv2 port.
 *
 * Port state and MTU are not stored: they are derived from the netdev each
 * time they are asked for, so they can never disagree with it. The notifier
 * only has to announce state changes as IB events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_devlist.h"
#include "sroce_stats.h"

/**
 * sroce_mtu_for_netdev_mtu - the IB path MTU a netdev MTU can carry
 * @netdev_mtu: the netdev's MTU in bytes (L3 payload, no Ethernet header)
 *
 * Return: the largest IB MTU whose packets, with the worst-case RoCEv2
 * headers around them, fit in @netdev_mtu; IB_MTU_256 when none does, since
 * IB has no smaller MTU to offer.
 */
enum ib_mtu sroce_mtu_for_netdev_mtu(unsigned int netdev_mtu)
{
	enum ib_mtu mtu;

	for (mtu = SROCE_MAX_IB_MTU; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + SROCE_ROCEV2_OVERHEAD <= netdev_mtu)
			return mtu;
	return IB_MTU_256;
}

/* Traffic flows only when the netdev is administratively and operationally up. */
static enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	return netif_running(ndev) && netif_oper_up(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static enum ib_port_phys_state sroce_port_phys_state(struct sroce_dev *sdev,
						     enum ib_port_state state)
{
	if (state == IB_PORT_ACTIVE)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (dev_get_flags(sdev->ndev) & IFF_UP)
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

/**
 * sroce_port_report_state - raise an IB port event if the state changed
 * @sdev: the device; its netdev just changed or it was just registered
 *
 * Consumers (ibv_get_async_event, rdma_cm, ULPs) learn of link changes only
 * through these events. ib_dispatch_event() only queues work, so this is
 * cheap enough to run under sroce_devices_lock, which serialises the
 * notifier against device creation.
 */
void sroce_port_report_state(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	struct ib_event event = {
		.device = &sdev->ib_dev,
		.element.port_num = SROCE_PORT_NUM,
	};

	lockdep_assert_held(&sroce_devices_lock);
	if (state == sdev->reported_port_state)
		return;
	if (sdev->reported_port_state == IB_PORT_ACTIVE)
		sroce_stat_inc(sdev, SROCE_STAT_LINK_DOWNED);
	sdev->reported_port_state = state;

	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

int sroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* ib_core zeroes *attr and validates port_num before calling. */
	attr->state = sroce_port_state(sdev);
	attr->phys_state = sroce_port_phys_state(sdev, attr->state);
	attr->max_mtu = SROCE_MAX_IB_MTU;
	attr->active_mtu = sroce_mtu_for_netdev_mtu(READ_ONCE(sdev->ndev->mtu));
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->max_vl_num = 1;

	return ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
				&attr->active_width);
}

int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable)
{
	/* RoCEv2 only: ib_core then creates RoCE v2 GIDs and no v1 ones. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = SROCE_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey)
{
	if (index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;
	*pkey = SROCE_DEFAULT_PKEY;
	return 0;
}

enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}
