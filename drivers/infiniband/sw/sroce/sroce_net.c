// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net.c - RoCEv2 packets in and out of the kernel's UDP/IP stack.
 *
 * Receive: one UDP socket per address family on port 4791 in the initial
 * network namespace, shared by every sroce device, with an encapsulation
 * receive hook: packets are handled right there, in softirq, with no queue
 * and no task hop. QP numbers are unique across sroce devices, so the
 * destination QP alone finds the target, whichever netdev (or loopback)
 * the packet came in on.
 *
 * Transmit: sroce builds the UDP and IP headers itself, because the ICRC
 * covers them, then hands the packet to ip_local_out()/ip6_local_out().
 * Local destinations loop back through the IP stack, so the sending context
 * never re-enters the receive path while holding a QP lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include SROCE_UNALIGNED_H

#include "sroce.h"
#include "sroce_icrc.h"
#include "sroce_local.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_seg.h"
#include "sroce_stats.h"
#include "sroce_ud.h"

/* The sockets exist while at least one device does; sroce_net_lock. */
static DEFINE_MUTEX(sroce_net_lock);
static unsigned int sroce_net_users;
static struct socket *sroce_sock4;
static struct socket *sroce_sock6;

#define SROCE_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

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
static struct net_device *sroce_rcv_netdev(struct sk_buff *skb)
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
	if (!local && sroce_local_carries(qp)) {
		reason = SROCE_STAT_RCVD_UNKNOWN_QPN;
		goto drop_qp;
	}
	/* Every sroce QP is RC: another service's opcode is not for it. */
	if ((h.bth.opcode & SROCE_TRANSPORT_MASK) != SROCE_TRANSPORT_RC)
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

/* A packet from sroce_local_xmit(), BTH at skb->data; consumes @skb. */
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

/* udp_tunnel encap_rcv: 0 means we consumed the packet. */
static int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	sroce_local_enter();
	sroce_rcv(skb);
	sroce_local_exit();
	return 0;
}

static struct socket *sroce_sock_create(int family)
{
	struct udp_tunnel_sock_cfg tunnel = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_rcv,
	};
	struct udp_port_cfg port = {
		.family = family,
		.local_udp_port = htons(SROCE_ROCEV2_UDP_PORT),
		.ipv6_v6only = family == AF_INET6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(&init_net, &port, &sock);
	if (err) {
		pr_err("cannot bind UDP port %d (%s): %d; is rdma_rxe loaded?\n",
		       SROCE_ROCEV2_UDP_PORT, family == AF_INET ? "IPv4" : "IPv6",
		       err);
		return ERR_PTR(err);
	}
	setup_udp_tunnel_sock(&init_net, sock, &tunnel);
	return sock;
}

static int sroce_net_open(void)
{
	sroce_sock4 = sroce_sock_create(AF_INET);
	if (IS_ERR(sroce_sock4))
		return PTR_ERR(sroce_sock4);
	sroce_sock6 = sroce_sock_create(AF_INET6);
	if (IS_ERR(sroce_sock6)) {
		udp_tunnel_sock_release(sroce_sock4);
		return PTR_ERR(sroce_sock6);
	}
	return 0;
}

/**
 * sroce_net_get - make sure the RoCEv2 sockets exist (one call per device)
 *
 * Return: 0, or the bind error (typically -EADDRINUSE when another RoCEv2
 * implementation owns the port).
 */
int sroce_net_get(void)
{
	int err = 0;

	mutex_lock(&sroce_net_lock);
	if (!sroce_net_users)
		err = sroce_net_open();
	if (!err)
		sroce_net_users++;
	mutex_unlock(&sroce_net_lock);
	return err;
}

void sroce_net_put(void)
{
	mutex_lock(&sroce_net_lock);
	if (!--sroce_net_users) {
		udp_tunnel_sock_release(sroce_sock6);
		udp_tunnel_sock_release(sroce_sock4);
		sroce_sock4 = NULL;
		sroce_sock6 = NULL;
	}
	mutex_unlock(&sroce_net_lock);
}

/**
 * sroce_av_from_ah_attr - resolve a QP's address vector
 * @av: filled in
 * @ah: from modify_qp; RoCE always carries a GRH and a source GID entry
 *
 * Return: 0, or -EINVAL for a GID that is not RoCE v2.
 */
int sroce_av_from_ah_attr(struct sroce_av *av, const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	struct net_device *ndev;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid ||
	    sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	av->family = ipv6_addr_v4mapped((struct in6_addr *)sgid->gid.raw) ?
		     AF_INET : AF_INET6;
	memcpy(&av->saddr, sgid->gid.raw, sizeof(av->saddr));
	memcpy(&av->daddr, grh->dgid.raw, sizeof(av->daddr));
	if (av->family == AF_INET && !ipv6_addr_v4mapped(&av->daddr))
		return -EINVAL;
	/* 20 bits on the wire: more would spill into the IPv6 version field. */
	if (grh->flow_label & ~SROCE_FLOW_LABEL_MASK)
		return -EINVAL;
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit ?: 64;
	av->flow_label = grh->flow_label;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid);
	av->net = IS_ERR(ndev) ? &init_net : dev_net(ndev);
	av->ifindex = IS_ERR(ndev) ? 0 : ndev->ifindex;
	rcu_read_unlock();
	return 0;
}

/**
 * sroce_pkt_alloc - an skb with room for every header below the BTH
 * @transport_len: BTH + extended headers + payload + pad + ICRC
 *
 * The caller fills @transport_len bytes at skb->data (already put).
 */
struct sk_buff *sroce_pkt_alloc(unsigned int transport_len)
{
	struct sk_buff *skb = alloc_skb(SROCE_HEADROOM + transport_len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, SROCE_HEADROOM);
	skb_put(skb, transport_len);
	return skb;
}

static void sroce_push_udp(struct sk_buff *skb, __be16 src_port)
{
	struct udphdr *udp;

	__skb_push(skb, sizeof(*udp));
	skb_reset_transport_header(skb);
	udp = udp_hdr(skb);
	udp->source = src_port;
	udp->dest = htons(SROCE_ROCEV2_UDP_PORT);
	udp->len = htons(skb->len);
	udp->check = 0;		/* RoCEv2: the ICRC protects the payload */
}

static void sroce_push_ipv4(struct sk_buff *skb, const struct sroce_av *av)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->tclass;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.s6_addr32[3];
	iph->daddr = av->daddr.s6_addr32[3];
	__ip_select_ident(av->net, iph, 1);
	iph->check = 0;
}

static void sroce_push_ipv6(struct sk_buff *skb, const struct sroce_av *av)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->tclass, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = av->saddr;
	ip6h->daddr = av->daddr;
}

/*
 * The ICRC goes in the last four bytes, which the caller left for it.
 * Return: 0, or the codec's error for headers it cannot parse: such a
 * packet must not leave with a made-up ICRC.
 */
static int sroce_fill_icrc(struct sk_buff *skb)
{
	u8 *ip = skb_network_header(skb);
	unsigned int len = skb_tail_pointer(skb) - ip - SROCE_ICRC_BYTES;
	u32 icrc;
	int err;

	err = sroce_icrc_compute(ip, len, &icrc);
	if (err)
		return err;
	put_unaligned_le32(icrc, ip + len);
	return 0;
}

static int sroce_xmit_ipv4(struct sk_buff *skb, const struct sroce_av *av)
{
	struct flowi4 fl = {
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.s6_addr32[3],
		.saddr = av->saddr.s6_addr32[3],
		.flowi4_tos = av->tclass & ~INET_ECN_MASK,
	};
	struct rtable *rt;

	/*
	 * A group is joined on the source GID's netdev: send there. The route
	 * loops a copy back to this host's members (no socket, so IP_MULTICAST_LOOP
	 * holds), which is how QPs attached on this host receive it.
	 */
	if (ipv4_is_multicast(fl.daddr))
		fl.flowi4_oif = av->ifindex;
	rt = ip_route_output_key(av->net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);
	skb->protocol = htons(ETH_P_IP);
	return ip_local_out(av->net, skb->sk, skb);
}

static int sroce_xmit_ipv6(struct sk_buff *skb, const struct sroce_av *av)
{
	struct flowi6 fl = {
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr,
		.saddr = av->saddr,
	};
	struct dst_entry *dst;

	/* fe80::/10 means nothing without the link it belongs to; a group, as for IPv4. */
	if (ipv6_addr_type(&av->daddr) & (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_MULTICAST))
		fl.flowi6_oif = av->ifindex;

	dst = ipv6_stub->ipv6_dst_lookup_flow(av->net, sroce_sock6 ?
					       sroce_sock6->sk : NULL, &fl, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);
	skb->protocol = htons(ETH_P_IPV6);
	return ip6_local_out(av->net, skb->sk, skb);
}

/*
 * A packet the stack accepted counts as sent; congestion notification
 * (NET_XMIT_CN) means it was queued, anything else that it was refused.
 */
static void sroce_pkt_xmit_count(struct sroce_dev *sdev, unsigned int bytes,
				 int err)
{
	if (net_xmit_eval(err)) {
		sroce_stat_inc(sdev, SROCE_STAT_SEND_ERR);
		return;
	}
	sroce_stat_inc(sdev, SROCE_STAT_SENT_PKTS);
	sroce_stat_add(sdev, SROCE_STAT_SENT_BYTES, bytes);
}

/**
 * sroce_pkt_xmit - add UDP and IP headers and the ICRC, then send
 * @qp: sender; its address vector says where
 * @skb: from sroce_pkt_alloc(), transport part filled in; consumed
 *
 * Any context. Return: 0 or a routing/transmit error (the packet is gone
 * either way; the reliability protocol recovers from losses).
 */
int sroce_pkt_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	/* modify_qp guarantees an address vector in RTR/RTS; never trust it. */
	if (unlikely(!qp->av.net)) {
		sroce_pkt_xmit_count(qp->sdev, skb->len, NET_XMIT_DROP);
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	if (sroce_local_xmit(qp, skb)) {
		sroce_pkt_xmit_count(qp->sdev, skb->len, NET_XMIT_SUCCESS);
		return 0;
	}
	return sroce_pkt_xmit_av(qp->sdev, &qp->av, qp->src_port, skb);
}

/**
 * sroce_pkt_xmit_av - send through the IP stack to @av
 * @sdev: the sending device, for the counters
 * @av: the destination (a QP's, or a UD send's AH)
 * @src_port: UDP source port
 * @skb: as for sroce_pkt_xmit(); consumed
 *
 * Any context. Return: 0 or a routing/transmit error.
 */
int sroce_pkt_xmit_av(struct sroce_dev *sdev, const struct sroce_av *av,
		      u16 src_port, struct sk_buff *skb)
{
	unsigned int udp_payload = skb->len;
	int err;

	sroce_push_udp(skb, htons(src_port));
	if (av->family == AF_INET)
		sroce_push_ipv4(skb, av);
	else
		sroce_push_ipv6(skb, av);
	err = sroce_fill_icrc(skb);
	if (unlikely(err)) {
		kfree_skb(skb);
		sroce_pkt_xmit_count(sdev, udp_payload, NET_XMIT_DROP);
		return err;
	}
	skb->ignore_df = 1;

	if (av->family == AF_INET)
		err = sroce_xmit_ipv4(skb, av);
	else
		err = sroce_xmit_ipv6(skb, av);
	sroce_pkt_xmit_count(sdev, udp_payload, err);
	return err;
}
