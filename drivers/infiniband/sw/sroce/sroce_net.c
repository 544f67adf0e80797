// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net.c - RoCEv2 packets in and out of the kernel's UDP/IP stack.
 *
 * Receive: one UDP socket per address family on port 4791 in each network
 * namespace that holds the netdev of an sroce device, shared by the devices
 * there, whose encapsulation receive hook hands each packet to sroce_recv.c
 * right there, in softirq.
 *
 * Namespaces. A device belongs to its netdev's namespace for life (a netdev
 * that moves is unregistered first, and takes the device with it). Kernel
 * sockets hold no reference on their namespace, so one must be released
 * before its namespace is freed: when a namespace dies, its netdevs go
 * first (pernet device exits run before subsystem exits like ours), which
 * queues the removal of their sroce devices, and sroce_netns_exit() waits
 * until the last of them has dropped its reference on the sockets.
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
#include <linux/wait.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include SROCE_UNALIGNED_H

#include "sroce.h"
#include "sroce_icrc.h"
#include "sroce_net.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_stats.h"

/**
 * struct sroce_netns - sroce's part of one network namespace
 * @users: devices on a netdev of the namespace; written under
 *	sroce_net_lock, read without it by sroce_netns_exit()
 * @sock4: the IPv4 RoCEv2 socket, while @users is not zero
 * @sock6: the IPv6 one, likewise
 */
struct sroce_netns {
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
};

static DEFINE_MUTEX(sroce_net_lock);
static DECLARE_WAIT_QUEUE_HEAD(sroce_netns_idle);
static unsigned int sroce_netns_id;

static struct sroce_netns *sroce_netns(struct net *net)
{
	return net_generic(net, sroce_netns_id);
}

#define SROCE_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

static struct socket *sroce_sock_create(struct net *net, int family)
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

	err = udp_sock_create(net, &port, &sock);
	if (err) {
		pr_err("cannot bind UDP port %d (%s): %d; is rdma_rxe loaded?\n",
		       SROCE_ROCEV2_UDP_PORT, family == AF_INET ? "IPv4" : "IPv6",
		       err);
		return ERR_PTR(err);
	}
	setup_udp_tunnel_sock(net, sock, &tunnel);
	return sock;
}

static int sroce_netns_open(struct net *net, struct sroce_netns *sn)
{
	struct socket *sock4, *sock6;

	lockdep_assert_held(&sroce_net_lock);
	sock4 = sroce_sock_create(net, AF_INET);
	if (IS_ERR(sock4))
		return PTR_ERR(sock4);
	sock6 = sroce_sock_create(net, AF_INET6);
	if (IS_ERR(sock6)) {
		udp_tunnel_sock_release(sock4);
		return PTR_ERR(sock6);
	}
	sn->sock4 = sock4;
	sn->sock6 = sock6;
	return 0;
}

/**
 * sroce_net_get - make sure @net has RoCEv2 sockets (one call per device)
 * @net: the namespace of the device's netdev
 *
 * Process context. Return: 0, or the bind error (typically -EADDRINUSE
 * when another RoCEv2 implementation owns the port in @net).
 */
int sroce_net_get(struct net *net)
{
	struct sroce_netns *sn = sroce_netns(net);
	int err = 0;

	mutex_lock(&sroce_net_lock);
	if (!sn->users)
		err = sroce_netns_open(net, sn);
	if (!err)
		WRITE_ONCE(sn->users, sn->users + 1);
	mutex_unlock(&sroce_net_lock);
	return err;
}

/* Undoes one sroce_net_get(@net); the last user closes the sockets. */
void sroce_net_put(struct net *net)
{
	struct sroce_netns *sn = sroce_netns(net);

	mutex_lock(&sroce_net_lock);
	WRITE_ONCE(sn->users, sn->users - 1);
	if (!sn->users) {
		udp_tunnel_sock_release(sn->sock6);
		udp_tunnel_sock_release(sn->sock4);
		sn->sock4 = NULL;
		sn->sock6 = NULL;
		/* Pairs with the barrier in wait_event()'s condition check. */
		wake_up_all(&sroce_netns_idle);
	}
	mutex_unlock(&sroce_net_lock);
}

/*
 * A dying namespace's netdevs are gone and the removal of their sroce
 * devices is queued (file comment): wait for it, so that no socket of
 * ours outlives the namespace. A process elsewhere that keeps such a
 * device open delays this as it delays `rdma link delete`. The count is
 * read without the lock: wait_event() must not sleep in its condition.
 */
static void __net_exit sroce_netns_exit(struct net *net)
{
	struct sroce_netns *sn = sroce_netns(net);

	wait_event(sroce_netns_idle, !READ_ONCE(sn->users));
}

static struct pernet_operations sroce_netns_ops = {
	.exit = sroce_netns_exit,
	.id = &sroce_netns_id,
	.size = sizeof(struct sroce_netns),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_netns_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_netns_ops);
}

/**
 * sroce_av_from_ah_attr - resolve a QP's address vector
 * @av: filled in
 * @ah: from modify_qp; RoCE always carries a GRH and a source GID entry
 * @net: the device's namespace, which its packets use
 *
 * Return: 0, or -EINVAL for a GID that is not RoCE v2 or whose netdev is
 * in another namespace than the device.
 */
int sroce_av_from_ah_attr(struct sroce_av *av, const struct rdma_ah_attr *ah,
			  struct net *net)
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
	av->ifindex = IS_ERR(ndev) ? 0 : ndev->ifindex;
	/* A GID whose netdev left for another namespace: not ours to use. */
	if (!IS_ERR(ndev) && !net_eq(dev_net(ndev), net)) {
		rcu_read_unlock();
		return -EINVAL;
	}
	rcu_read_unlock();
	av->net = net;
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

	dst = ipv6_stub->ipv6_dst_lookup_flow(av->net, NULL, &fl, NULL);
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
 * sroce_pkt_xmit_av - send through the IP stack to @av
 * @sdev: the sending device, for the counters
 * @av: the destination (a QP's, or a UD send's AH)
 * @src_port: UDP source port
 * @skb: from sroce_pkt_alloc(), transport part filled in; consumed
 *
 * Any context. Return: 0 or a routing/transmit error.
 */
int sroce_pkt_xmit_av(struct sroce_dev *sdev, const struct sroce_av *av,
		      u16 src_port, struct sk_buff *skb)
{
	unsigned int udp_payload = skb->len;
	int err;

	/* modify_qp guarantees a QP an address vector in RTR/RTS; never trust it. */
	if (unlikely(!av->net)) {
		sroce_pkt_xmit_count(sdev, udp_payload, NET_XMIT_DROP);
		kfree_skb(skb);
		return -ENETUNREACH;
	}
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
	if (sroce_av_is_mcast(av) && !net_xmit_eval(err))
		sroce_stat_inc(sdev, SROCE_STAT_SENT_MCAST_PKTS);
	return err;
}
