/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_recv.h - the two ways a RoCEv2 packet enters sroce (sroce_recv.c),
 * and where it came in.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/skbuff.h>
#include <net/sock.h>

/* The UDP socket's encap_rcv hook (sroce_net.c); 0: @skb consumed. */
int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);

/* A packet from sroce_local_xmit(), BTH at skb->data; consumes @skb. */
void sroce_rcv_local(struct sk_buff *skb);

/*
 * The netdev a received packet (network header set) was addressed to, or
 * NULL; caller holds RCU.
 */
struct net_device *sroce_rcv_netdev(struct sk_buff *skb);

struct sroce_dev;

/* Did a received packet arrive in @sdev's network namespace? */
bool sroce_rcv_net_ok(const struct sk_buff *skb, const struct sroce_dev *sdev);

#endif /* SROCE_RECV_H */
