/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce.h - core objects of the sroce software RoCEv2 device.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_tx.h"

struct sroce_stats;

/**
 * struct sroce_dev - one sroce ib_device bound to one Ethernet netdev
 * @ib_dev: the ib_core device; first, ib_alloc_device() requires it
 * @ndev: the netdev carrying our traffic, held from creation until
 *	dealloc_driver so it cannot vanish under a verb
 * @ndev_tracker: reference tracker for @ndev
 * @list: entry on the module's device list (sroce_devices_lock)
 * @reported_port_state: last port state announced with an IB event;
 *	protected by sroce_devices_lock, which the netdev notifier takes
 * @num_pd: protection domains alive, bounded by SROCE_MAX_PD
 * @num_cq: completion queues alive, bounded by SROCE_MAX_CQ
 * @num_qp: queue pairs alive, bounded by SROCE_MAX_QP
 * @num_ah: address handles alive, bounded by SROCE_MAX_AH
 * @num_srq: shared receive queues alive, bounded by SROCE_MAX_SRQ
 * @mr_table: registered memory regions by key
 * @mw_table: memory windows by key (sroce_mw.c)
 * @tx: the transmit thread and the QPs it serves
 * @net: the namespace of @ndev, the device's for life (sroce_net.c)
 * @net_ref: holds a reference on @net's RoCEv2 sockets
 * @stats: per-CPU protocol counters (sroce_stats.h), lock-free
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;
	struct list_head list;
	enum ib_port_state reported_port_state;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_ah;
	u32 num_mcast_grp;	/* sroce_mcast.c's lock */
	u32 num_mcast_attach;	/* sroce_mcast.c's lock */
	atomic_t num_srq;
	struct sroce_mr_table mr_table;
	struct sroce_mw_table mw_table;
	struct sroce_tx tx;
	bool net_ref;
	struct sroce_stats __percpu *stats;
};

/**
 * struct sroce_ucontext - one process's open device
 * @ibuc: ib_core's part
 * @ahs: AH index -> struct sroce_ah_handle (sroce_ah.c); RCU lookups
 * @ud_lock: protects @ud_qps
 * @ud_qps: the process's UD QPs (sroce_ud.c), for destroy_ah
 */
struct sroce_ucontext {
	struct ib_ucontext ibuc;
	struct xarray ahs;
	struct mutex ud_lock;
	struct list_head ud_qps;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

/*
 * Count one more object against a device limit (num_pd, num_cq, num_qp):
 * the limits ibv_query_device advertises are the ones enforced, and they
 * bound what one process can make the kernel allocate.
 * Return: 0, or -ENOMEM with the count unchanged if @max are alive.
 */
static inline int sroce_obj_count_get(atomic_t *count, int max)
{
	if (atomic_inc_return(count) > max) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

static inline void sroce_obj_count_put(atomic_t *count)
{
	atomic_dec(count);
}

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

static inline struct sroce_dev *pd_to_sdev(struct ib_pd *ibpd)
{
	return to_sdev(ibpd->device);
}

/* sroce_device.c: device list and lifetime */
int sroce_dev_add(const char *name, struct net_device *ndev);
void sroce_dev_dealloc(struct ib_device *ibdev);
void sroce_dev_remove_all(void);
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
bool sroce_ibdev_name_valid(const char *name);
bool sroce_netdev_type_supported(unsigned short type, unsigned int flags);
#endif

/* sroce_netdev.c: reaction to netdev events */
int sroce_netdev_init(void);
void sroce_netdev_exit(void);

/* sroce_port.c: the single RoCE port */
enum ib_mtu sroce_mtu_for_netdev_mtu(unsigned int netdev_mtu);
void sroce_port_report_state(struct sroce_dev *sdev);
int sroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr);
int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable);
int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey);
enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num);

/* sroce_verbs.c: the ib_device_ops table */
extern const struct ib_device_ops sroce_dev_ops;

#endif /* SROCE_H */
