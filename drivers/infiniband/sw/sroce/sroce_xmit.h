/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_xmit.h - the one way a QP's packets leave it.
 *
 * The requester, responder and completer build packets and hand them
 * here; what carries them (the IP stack, or the loopback short-cut to a
 * QP of this host, one packet or a segment of several) is decided here
 * and nowhere else, so the protocol engine never knows which it was.
 * UD sends to an address handle take the IP path directly
 * (sroce_pkt_xmit_av()): the short-cut carries connected QPs only.
 */
#ifndef SROCE_XMIT_H
#define SROCE_XMIT_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "sroce_tx.h"

struct sroce_hdrs;
struct sroce_qp;

/**
 * struct sroce_xmit_route - where one pass sends a QP's packets
 * @burst: packets one skb may carry (a segment, sroce_seg.h); 1 when each
 *	packet must be an skb of its own; 0 before sroce_xmit_route()
 * @direct: the peer is reached without the IP stack (sroce_xmit.c's own)
 *
 * Found once per pass under the QP's lock, inside a transmit batch: it
 * stays true until the batch ends.
 */
struct sroce_xmit_route {
	u32 burst;
	bool direct;
};

void sroce_xmit_begin(void);
void sroce_xmit_end(void);
void sroce_xmit_route(struct sroce_qp *qp, struct sroce_xmit_route *route);
void sroce_xmit_routed(struct sroce_qp *qp,
		       const struct sroce_xmit_route *route,
		       struct sk_buff *skb, const struct sroce_hdrs *first);
int sroce_xmit(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_xmit_kick(struct sroce_qp *qp, enum sroce_tx_work work);
bool sroce_xmit_bypasses_stack(struct sroce_qp *qp);
void sroce_xmit_qp_init(struct sroce_qp *qp);

#endif /* SROCE_XMIT_H */
