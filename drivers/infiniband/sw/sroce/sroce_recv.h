/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_recv.h - the two ways a RoCEv2 packet enters sroce (sroce_recv.c).
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/skbuff.h>
#include <net/sock.h>

/* The UDP socket's encap_rcv hook (sroce_net.c); 0: @skb consumed. */
int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);

/* A packet from sroce_local_xmit(), BTH at skb->data; consumes @skb. */
void sroce_rcv_local(struct sk_buff *skb);

#endif /* SROCE_RECV_H */
