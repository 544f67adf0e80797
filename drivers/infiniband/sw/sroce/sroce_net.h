/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - RoCEv2 over the kernel's UDP/IP stack.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "sroce_hdr.h"

struct sroce_dev;
struct sroce_qp;

/**
 * struct sroce_av - where a QP's packets go, resolved at modify_qp time
 * @family: AF_INET or AF_INET6
 * @saddr, @daddr: IPv4 in s6_addr32[3] (IPv4-mapped GID), or IPv6
 * @tclass: traffic class: DSCP and ECN bits
 * @hop_limit: IPv4 TTL or IPv6 hop limit
 * @flow_label: IPv6 flow label, at most SROCE_FLOW_LABEL_MASK (modify_qp
 *	refuses more)
 * @net: network namespace of the device's netdev (the device outlives
 *	it, see sroce_net.c)
 * @ifindex: the netdev, which link-local IPv6 and multicast destinations
 *	need for routing
 */
#define SROCE_FLOW_LABEL_MASK	0xfffffU

struct sroce_av {
	int family;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	struct net *net;
	int ifindex;
};

int sroce_av_from_ah_attr(struct sroce_av *av, const struct rdma_ah_attr *ah,
			  struct net *net);

/* A UD send to a multicast group (an AH whose GID is a group's). */
static inline bool sroce_av_is_mcast(const struct sroce_av *av)
{
	if (av->family == AF_INET)
		return ipv4_is_multicast(av->daddr.s6_addr32[3]);
	return ipv6_addr_is_multicast(&av->daddr);
}

/* Bytes of a packet after the IP header: UDP + transport headers + ... */
struct sk_buff *sroce_pkt_alloc(unsigned int transport_len);
int sroce_pkt_xmit_av(struct sroce_dev *sdev, const struct sroce_av *av,
		      u16 src_port, struct sk_buff *skb);

int sroce_net_init(void);
void sroce_net_exit(void);
int sroce_net_get(struct net *net);
void sroce_net_put(struct net *net);

#endif /* SROCE_NET_H */
