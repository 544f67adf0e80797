// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_recv.c - RoCEv2 packets from the UDP socket's receive hook (and
 * from the loopback short-cut) to the responder, completer or UD receiver.
 *
 * Everything here runs in softirq, with no queue and no task hop: the
 * checks that need only the packet (length, ICRC, P_Key, headers), the
 * lookup of the destination QP or multicast group, the per-QP admission
 * checks (peer address, transport) and the counting of every drop. QP
 * numbers are unique across sroce devices, so the destination QP alone
 * finds the target, whichever netdev (or loopback) the packet came in on.
 */

#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <net/udp.h>
#include <rdma/ib_verbs.h>
#include SROCE_UNALIGNED_H

#include "sroce.h"
#include "sroce_icrc.h"
#include "sroce_mcast.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_seg.h"
#include "sroce_stats.h"
#include "sroce_ud.h"
#include "sroce_xmit.h"

/* Entire packet in linear memory: the codec and the ICRC read it flat. */
static int sroce_rcv_prepare(struct sk_buff *skb, unsigned int *udp_len)
{
	if (skb_linearize(skb))
		return -ENOMEM;
	if (skb->len < sizeof(struct udphdr) + SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return -EBADMSG;
	*udp_len = skb->len - sizeof(struct udphdr);
	return 0;
}

static bool sroce_rcv_icrc_ok(struct sk_buff *skb)
{
	u8 *ip = skb_network_header(skb);
	unsigned int len = skb_tail_pointer(skb) - ip;
	u32 icrc;

	if (sroce_icrc_compute(ip, len - SROCE_ICRC_BYTES, &icrc))
		return false;
	return icrc == get_unaligned_le32(skb_tail_pointer(skb) - SROCE_ICRC_BYTES);
}

/*
 * sroce has one partition, the default one: a P_Key matches when its low
 * 15 bits are all ones, whether full (0xffff) or limited (0x7fff) member
 * (IBA 10.9.3; our own membership is full).
 */
static bool sroce_rcv_pkey_ok(u16 pkey)
{
	return (pkey & 0x7fff) == (SROCE_DEFAULT_PKEY & 0x7fff);
}

/*
 * The netdev a packet arrived for. Packets between two addresses of this
 * host arrive on the loopback device; the owner of their destination
 * address is then the device they were sent to. Caller holds RCU.
 */
struct net_device *sroce_rcv_netdev(struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;

	if (!ndev || !(ndev->flags & IFF_LOOPBACK))
		return ndev;
	if (ip_hdr(skb)->version == 4)
		return __ip_dev_find(dev_net(ndev), ip_hdr(skb)->daddr, false);
	if (IS_ENABLED(CONFIG_IPV6))
		return ipv6_dev_find(dev_net(ndev), &ipv6_hdr(skb)->daddr, NULL);
	return NULL;
}

/* Did @skb arrive in @sdev's network namespace? */
bool sroce_rcv_net_ok(const struct sk_buff *skb, const struct sroce_dev *sdev)
{
	return skb->dev && net_eq(dev_net(skb->dev), sdev->net);
}

static bool sroce_ibdev_is_ours(struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == sroce_dev_dealloc;
}

/*
 * Count a received packet (network header set) dropped before its QP is
 * known: @reason, and rcvd_dropped. Softirq. The device is found from the netdev the packet arrived on; a
 * packet that belongs to no sroce device is not counted anywhere.
 */
static void sroce_rcv_count_drop(struct sk_buff *skb, enum sroce_stat reason)
{
	struct net_device *ndev;
	struct ib_device *ibdev = NULL;

	rcu_read_lock();
	ndev = sroce_rcv_netdev(skb);
	if (ndev)
		ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	rcu_read_unlock();
	if (!ibdev)
		return;
	if (sroce_ibdev_is_ours(ibdev))
		sroce_stat_drop(to_sdev(ibdev), reason);
	ib_device_put(ibdev);
}

/*
 * A connected QP takes packets only from its peer (IBA 9.6.1.1: the source
 * must be the QP's destination; for RoCEv2 that is the IP source address).
 *
 * A deliberate lockless read of qp->av, which modify_qp rewrites under
 * qp->lock: taking the lock for every packet only to filter would cost the
 * receive path, and a racing read is harmless. Only a modify with IB_QP_AV
 * races, and then the packet is judged against the old peer, the new one,
 * or (torn) a mix of the two: at worst one packet is dropped that the peer
 * resends, or one is let in that then meets the state and PSN checks under
 * the lock like any other. This filter is no security boundary anyway: an
 * IP source address is not authenticated.
 */
static bool sroce_rcv_from_peer(struct sk_buff *skb, const struct sroce_qp *qp)
{
	const struct sroce_av *av = &qp->av;
	int family = data_race(av->family);

	if (skb->protocol == htons(ETH_P_IP))
		return family == AF_INET &&
		       ip_hdr(skb)->saddr == data_race(av->daddr.s6_addr32[3]);
	return family == AF_INET6 &&
	       data_race(ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &av->daddr));
}

static void sroce_rcv_count(struct sroce_qp *qp, u32 pkts, u32 bytes)
{
	sroce_stat_add(qp->sdev, SROCE_STAT_RCVD_PKTS, pkts);
	sroce_stat_add(qp->sdev, SROCE_STAT_RCVD_BYTES, bytes);
}

/*
 * Hand one packet to the responder or completer. Like rxe's rcvd_pkts, a
 * packet counts once its QP's state let it in (whatever the PSN then
 * says); one the state refused counts only as dropped.
 */
static void sroce_rcv_pkt(struct sroce_qp *qp, const struct sroce_hdrs *h,
			  const u8 *payload, unsigned int bytes)
{
	bool taken;

	if (h->op->flags & SROCE_OPF_REQUEST)
		taken = sroce_resp_rcv(qp, h, payload);
	else
		taken = sroce_comp_rcv(qp, h, payload);
	if (taken)
		sroce_rcv_count(qp, 1, bytes);
}

/*
 * Packets @i .. last of a local segment in one go, if the responder (a
 * SEND or WRITE) or the completer (a READ response) finds them a plain
 * continuation of the message under way (sroce_resp_rcv_run(),
 * sroce_comp_rcv_run()).
 */
static bool sroce_rcv_seg_run(struct sroce_qp *qp, const struct sroce_hdrs *first,
			      const u8 *payload, const struct sroce_seg *seg,
			      u32 i)
{
	struct sroce_hdrs h, last;
	u32 pkts = seg->pkts - i, offset, len;
	bool taken;

	if (pkts < 2)
		return false;
	offset = sroce_seg_pkt(first, seg, i, &h);
	/* A run starts at a MIDDLE: a message's FIRST goes alone, unlocked here. */
	if (!(h.op->flags & SROCE_OPF_MIDDLE))
		return false;
	sroce_seg_pkt(first, seg, seg->pkts - 1, &last);
	len = first->payload_len - offset;
	if (h.op->flags & SROCE_OPF_REQUEST)
		taken = sroce_resp_rcv_run(qp, &h, &last, pkts, payload + offset, len);
	else
		taken = sroce_comp_rcv_run(qp, &h, &last, pkts, payload + offset, len);
	if (!taken)
		return false;
	/* Every packet before the last is a MIDDLE of one MTU, like @h. */
	sroce_rcv_count(qp, pkts, (pkts - 1) * sroce_seg_pkt_bytes(&h) +
				  sroce_seg_pkt_bytes(&last));
	return true;
}

/*
 * A local segment (sroce_seg.h): each packet it stands for, in order, as
 * if it had come alone - or, from its first or second packet on (after
 * the message's FIRST), the rest as one run when that cannot differ.
 */
static void sroce_rcv_seg(struct sroce_qp *qp, const struct sroce_hdrs *first,
			  const u8 *payload, const struct sroce_seg *seg)
{
	struct sroce_hdrs h;
	u32 i;

	for (i = 0; i < seg->pkts; i++) {
		u32 offset;

		if (i < 2 && sroce_rcv_seg_run(qp, first, payload, seg, i))
			return;
		offset = sroce_seg_pkt(first, seg, i, &h);
		/* Counted as the packet it stands for would be. */
		sroce_rcv_pkt(qp, &h, payload + offset, sroce_seg_pkt_bytes(&h));
	}
}

/*
 * The destination QP, with a reference, or NULL. QP 1 is the GSI QP of the
 * device the packet is addressed to; the loopback short-cut carries no
 * datagrams, so a packet from it names no such QP.
 */
static struct sroce_qp *sroce_rcv_find_qp(const struct sk_buff *skb,
					  const struct sroce_hdrs *h, bool local)
{
	if (h->bth.dest_qpn != SROCE_GSI_QPN)
		return sroce_qp_get(h->bth.dest_qpn);
	return local ? NULL : sroce_gsi_get(skb);
}

/* The packet's destination IP address is a multicast one. */
static bool sroce_rcv_to_group(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * Parse and dispatch a packet whose skb->data is the BTH; consumes @skb.
 * A local packet has no IP header: sroce_local_xmit() checked, when it
 * queued it, that sender and receiver name each other.
 */
static void sroce_rcv_bth(struct sk_buff *skb, bool local)
{
	enum sroce_stat reason = SROCE_STAT_RCVD_MALFORMED;
	const struct sroce_seg *seg = local ? sroce_seg_of(skb) : NULL;
	const u8 *bth = skb->data;
	struct sroce_hdrs h;
	struct sroce_qp *qp;
	bool to_group;
	int err;

	err = sroce_hdrs_parse(bth, skb->len, &h);
	if (err && err != -EOPNOTSUPP)
		goto drop;
	if (!sroce_rcv_pkey_ok(h.bth.pkey)) {
		reason = SROCE_STAT_RCVD_BAD_PKEY;
		goto drop;
	}

	/*
	 * A packet to a group names QPN 0xFFFFFF, and that QPN is for groups
	 * only: a mismatch either way names no QP. The loopback short-cut
	 * carries no datagrams.
	 */
	to_group = !local && sroce_rcv_to_group(skb);
	if (to_group || h.bth.dest_qpn == SROCE_MCAST_QPN) {
		if (err)
			goto drop;
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		if (!to_group || h.bth.dest_qpn != SROCE_MCAST_QPN ||
		    !sroce_mcast_rcv(skb, &h))
			goto drop;
		consume_skb(skb);
		return;
	}
	qp = sroce_rcv_find_qp(skb, &h, local);
	if (!qp) {
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		goto drop;
	}
	/* QP numbers span namespaces; a device is reached only from its own. */
	if (!local && !sroce_rcv_net_ok(skb, qp->sdev)) {
		sroce_qp_put(qp);
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		goto drop;
	}
	/* Datagrams come from anyone: no peer, no connection checks. */
	if (sroce_qp_is_ud(qp)) {
		if (err)
			goto drop_qp;
		sroce_ud_rcv(qp, skb, &h, local);
		sroce_qp_put(qp);
		return;
	}
	/* A connection is its QPN and its peer: anything else names none. */
	if (!local && !sroce_rcv_from_peer(skb, qp)) {
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		goto drop_qp;
	}
	/* The short-cut carries a local peer's packets: this one is spoofed. */
	if (!local && sroce_xmit_bypasses_stack(qp)) {
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		goto drop_qp;
	}
	/* Another service's opcode (RC to a UC QP, ...) is not for it. */
	if ((h.bth.opcode & SROCE_TRANSPORT_MASK) != sroce_qp_transport(qp))
		goto drop_qp;
	if (err) {
		if (sroce_resp_rcv_unsupported(qp, &h))
			sroce_rcv_count(qp, 1, skb->len);
	} else if (seg && seg->pkts > 1) {
		if (!sroce_seg_valid(seg, h.payload_len))
			goto drop_qp;
		sroce_rcv_seg(qp, &h, bth + h.op->hdr_len, seg);
	} else {
		sroce_rcv_pkt(qp, &h, bth + h.op->hdr_len, skb->len);
	}
	sroce_qp_put(qp);
	consume_skb(skb);
	return;
drop_qp:
	sroce_stat_drop(qp->sdev, reason);
	sroce_qp_put(qp);
	kfree_skb(skb);
	return;
drop:
	sroce_rcv_count_drop(skb, reason);
	kfree_skb(skb);
}

void sroce_rcv_local(struct sk_buff *skb)
{
	sroce_rcv_bth(skb, true);
}

static void sroce_rcv(struct sk_buff *skb)
{
	enum sroce_stat reason = SROCE_STAT_RCVD_MALFORMED;
	unsigned int udp_len;

	if (sroce_rcv_prepare(skb, &udp_len))
		goto drop;
	if (!sroce_rcv_icrc_ok(skb)) {
		reason = SROCE_STAT_ICRC_ERRORS;
		goto drop;
	}
	__skb_pull(skb, sizeof(struct udphdr));
	sroce_rcv_bth(skb, false);
	return;
drop:
	sroce_rcv_count_drop(skb, reason);
	kfree_skb(skb);
}

int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	sroce_xmit_begin();
	sroce_rcv(skb);
	sroce_xmit_end();
	return 0;
}
