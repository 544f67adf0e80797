// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_mcast.c - UD multicast groups.
 *
 * Each device keeps, per multicast GID its QPs attached to, one group
 * entry listing those QPs. The entries of all devices sit in one hash
 * table keyed by the GID, because the receive path starts from a packet's
 * destination address and must find the QPs of every device on the netdev
 * it arrived on. The first attach of a device to a group joins the IP
 * group on the device's netdev (IGMP or MLD: the host's UDP socket then
 * receives the group's datagrams), the last detach leaves it.
 *
 * Locking: sroce_mcast_lock (a mutex: joining takes RTNL and may sleep)
 * serialises attach, detach and destroy and protects the counts; the table
 * and each group's QP list are RCU lists for the receive path. Order:
 * sroce_mcast_lock, then RTNL. An entry names a QP by its handle, which
 * destroy frees with kfree_rcu() after unlisting it (sroce_mcast_qp_destroy()
 * runs first), so a reader may always try refcount_inc_not_zero() on it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_mcast.h"
#include "sroce_qp.h"
#include "sroce_stats.h"
#include "sroce_ud.h"

/* One device's membership of one group. */
struct sroce_mcast_grp {
	struct hlist_node node;		/* sroce_mcast_table, RCU */
	struct sroce_dev *sdev;		/* sroce_mcast_lock holders only */
	const struct net_device *ndev;	/* compared by the receive path only */
	union ib_gid mgid;
	struct list_head qps;		/* struct sroce_mcast_qp, RCU */
	u32 num_qps;			/* sroce_mcast_lock */
	struct rcu_head rcu;
};

/* One QP attached to a group. */
struct sroce_mcast_qp {
	struct list_head entry;
	struct sroce_qp_handle *handle;
	struct rcu_head rcu;
};

static DEFINE_MUTEX(sroce_mcast_lock);
static DEFINE_HASHTABLE(sroce_mcast_table, 6);

static u32 sroce_mcast_hash(const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), 0);
}

static struct sroce_mcast_grp *sroce_mcast_grp_find(struct sroce_dev *sdev,
						    const union ib_gid *mgid)
{
	struct sroce_mcast_grp *grp;

	lockdep_assert_held(&sroce_mcast_lock);
	hash_for_each_possible(sroce_mcast_table, grp, node,
			       sroce_mcast_hash(mgid))
		if (grp->sdev == sdev && !memcmp(&grp->mgid, mgid, sizeof(*mgid)))
			return grp;
	return NULL;
}

static struct sroce_mcast_qp *sroce_mcast_qp_find(struct sroce_mcast_grp *grp,
						  const struct sroce_qp *qp)
{
	struct sroce_mcast_qp *mqp;

	lockdep_assert_held(&sroce_mcast_lock);
	list_for_each_entry(mqp, &grp->qps, entry)
		if (mqp->handle == qp->handle)
			return mqp;
	return NULL;
}

/* --- the IP group on the netdev ---------------------------------------- */

/* The netdev joins the IP group (IGMP or MLD reports); both families want RTNL. */
static int sroce_mcast_ip_join(struct net_device *ndev, const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, addr->s6_addr32[3]);
		else
			err = -ENODEV;
	} else {
		err = ipv6_dev_mc_inc(ndev, addr);
	}
	rtnl_unlock();
	return err;
}

static void sroce_mcast_ip_leave(struct net_device *ndev, const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;

	rtnl_lock();
	/* Without its in_device the netdev lost its memberships with it. */
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, addr->s6_addr32[3]);
	} else {
		ipv6_dev_mc_dec(ndev, addr);
	}
	rtnl_unlock();
}

/* --- attach and detach --------------------------------------------------- */

/* A device's first QP on @mgid: count the group, join the IP group. */
static struct sroce_mcast_grp *sroce_mcast_grp_create(struct sroce_dev *sdev,
						      const union ib_gid *mgid)
{
	struct sroce_mcast_grp *grp;
	int err;

	lockdep_assert_held(&sroce_mcast_lock);
	if (sdev->num_mcast_grp >= SROCE_MAX_MCAST_GRP)
		return ERR_PTR(-ENOMEM);
	grp = kzalloc(sizeof(*grp), GFP_KERNEL_ACCOUNT);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->sdev = sdev;
	grp->ndev = sdev->ndev;
	grp->mgid = *mgid;
	INIT_LIST_HEAD(&grp->qps);
	err = sroce_mcast_ip_join(sdev->ndev, mgid);
	if (err) {
		kfree(grp);
		return ERR_PTR(err);
	}
	sdev->num_mcast_grp++;
	hash_add_rcu(sroce_mcast_table, &grp->node, sroce_mcast_hash(mgid));
	return grp;
}

/* The group's last QP went: leave the IP group, free it after readers. */
static void sroce_mcast_grp_destroy(struct sroce_mcast_grp *grp)
{
	lockdep_assert_held(&sroce_mcast_lock);
	hash_del_rcu(&grp->node);
	grp->sdev->num_mcast_grp--;
	sroce_mcast_ip_leave(grp->sdev->ndev, &grp->mgid);
	kfree_rcu(grp, rcu);
}

static void sroce_mcast_qp_remove(struct sroce_qp *qp,
				  struct sroce_mcast_grp *grp,
				  struct sroce_mcast_qp *mqp)
{
	lockdep_assert_held(&sroce_mcast_lock);
	list_del_rcu(&mqp->entry);
	kfree_rcu(mqp, rcu);
	qp->num_mcast--;
	grp->sdev->num_mcast_attach--;
	if (!--grp->num_qps)
		sroce_mcast_grp_destroy(grp);
}

/* The verbs' common checks: a UD QP (not GSI) and a multicast GID. */
static int sroce_mcast_check(struct ib_qp *ibqp, union ib_gid *mgid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!rdma_is_multicast_addr((struct in6_addr *)mgid->raw))
		return -EINVAL;
	return 0;
}

/**
 * sroce_attach_mcast - ib_device_ops.attach_mcast
 * @ibqp: a UD QP
 * @mgid: the group: an IPv6 multicast or IPv4-mapped multicast address
 * @mlid: unused on RoCE
 *
 * Process context. Attaching twice is not an error and attaches once.
 * Return: 0, -EINVAL (not UD, not multicast), -ENOMEM (a limit of
 * sroce_caps.h reached, or no memory), or the IP join's error.
 */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast_grp *grp;
	struct sroce_mcast_qp *mqp;
	int err = sroce_mcast_check(ibqp, mgid);

	if (err)
		return err;
	mutex_lock(&sroce_mcast_lock);
	grp = sroce_mcast_grp_find(sdev, mgid);
	if (grp && sroce_mcast_qp_find(grp, qp))
		goto out;
	if ((grp && grp->num_qps >= SROCE_MAX_MCAST_QP_ATTACH) ||
	    sdev->num_mcast_attach >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	mqp = kzalloc(sizeof(*mqp), GFP_KERNEL_ACCOUNT);
	if (!mqp) {
		err = -ENOMEM;
		goto out;
	}
	if (!grp) {
		grp = sroce_mcast_grp_create(sdev, mgid);
		if (IS_ERR(grp)) {
			kfree(mqp);
			err = PTR_ERR(grp);
			goto out;
		}
	}
	mqp->handle = qp->handle;
	list_add_tail_rcu(&mqp->entry, &grp->qps);
	grp->num_qps++;
	sdev->num_mcast_attach++;
	qp->num_mcast++;
out:
	mutex_unlock(&sroce_mcast_lock);
	return err;
}

/**
 * sroce_detach_mcast - ib_device_ops.detach_mcast
 * @ibqp: a UD QP
 * @mgid: a group it is attached to
 * @mlid: unused on RoCE
 *
 * Process context. Return: 0, or -EINVAL (not UD, not multicast, or @ibqp not attached).
 */
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mcast_grp *grp;
	struct sroce_mcast_qp *mqp = NULL;
	int err = sroce_mcast_check(ibqp, mgid);

	if (err)
		return err;
	mutex_lock(&sroce_mcast_lock);
	grp = sroce_mcast_grp_find(qp->sdev, mgid);
	if (grp)
		mqp = sroce_mcast_qp_find(grp, qp);
	if (mqp)
		sroce_mcast_qp_remove(qp, grp, mqp);
	else
		err = -EINVAL;
	mutex_unlock(&sroce_mcast_lock);
	return err;
}

/*
 * Destroy, before the QP's handle is freed: ib_core refuses to destroy an
 * attached QP (qp->usecnt; uverbs detaches first), so this finds nothing
 * unless that changes - but a handle left listed would be a use after free.
 */
void sroce_mcast_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_mcast_grp *grp;
	struct hlist_node *tmp;
	int bkt;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	mutex_lock(&sroce_mcast_lock);
	hash_for_each_safe(sroce_mcast_table, bkt, tmp, grp, node) {
		struct sroce_mcast_qp *mqp;

		if (!qp->num_mcast)
			break;
		if (grp->sdev != qp->sdev)
			continue;
		mqp = sroce_mcast_qp_find(grp, qp);
		if (mqp)
			sroce_mcast_qp_remove(qp, grp, mqp);
	}
	mutex_unlock(&sroce_mcast_lock);
}

/* --- receive --------------------------------------------------------------- */

/*
 * Each attached QP gets its own clone; one that is being destroyed, none.
 * The device is reached through a referenced QP only: a group a reader
 * still sees may outlive its device by a grace period.
 */
static void sroce_mcast_grp_rcv(struct sroce_mcast_grp *grp, struct sk_buff *skb,
				const struct sroce_hdrs *h)
{
	struct sroce_mcast_qp *mqp;
	bool counted = false;

	list_for_each_entry_rcu(mqp, &grp->qps, entry) {
		struct sroce_qp *qp = mqp->handle->qp;
		struct sk_buff *copy;

		if (!refcount_inc_not_zero(&mqp->handle->refs))
			continue;
		if (!counted) {
			sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_MCAST_PKTS);
			counted = true;
		}
		copy = skb_clone(skb, GFP_ATOMIC);
		if (copy)
			sroce_ud_rcv(qp, copy, h, false);
		else
			sroce_stat_inc(qp->sdev, SROCE_STAT_RCVD_DROPPED);
		sroce_qp_put(qp);
	}
}

/**
 * sroce_mcast_rcv - deliver a packet for QPN 0xFFFFFF
 * @skb: from the IP stack, skb->data at the BTH; not consumed
 * @h: its parsed headers
 *
 * Softirq. Every QP that a device on the arrival netdev attached to the
 * destination group gets a copy; sroce_ud_rcv() checks each QP's state
 * and Q_Key and counts what it drops.
 * Return: false if no device on that netdev is in the group.
 */
bool sroce_mcast_rcv(struct sk_buff *skb, const struct sroce_hdrs *h)
{
	struct sroce_mcast_grp *grp;
	union ib_gid mgid;
	bool found = false;

	sroce_ud_dest_gid(skb, &mgid);
	if (!rdma_is_multicast_addr((struct in6_addr *)mgid.raw))
		return false;
	rcu_read_lock();
	hash_for_each_possible_rcu(sroce_mcast_table, grp, node,
				   sroce_mcast_hash(&mgid)) {
		/* An ifindex is unique only inside a namespace: the netdev. */
		if (grp->ndev != skb->dev ||
		    memcmp(&grp->mgid, &mgid, sizeof(mgid)))
			continue;
		found = true;
		sroce_mcast_grp_rcv(grp, skb, h);
	}
	rcu_read_unlock();
	return found;
}
