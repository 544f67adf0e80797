/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mcast.h - UD multicast: attached QPs per group, IP group membership.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "sroce_hdr.h"

struct sroce_qp;

/* The destination QPN of every multicast packet (the IBA's multicast QPN). */
#define SROCE_MCAST_QPN		0xffffff

/* ib_device_ops */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);

void sroce_mcast_qp_destroy(struct sroce_qp *qp);
bool sroce_mcast_rcv(struct sk_buff *skb, const struct sroce_hdrs *h);

#endif /* SROCE_MCAST_H */
