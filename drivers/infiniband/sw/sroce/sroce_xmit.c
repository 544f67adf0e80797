// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_xmit.c - the transmit entry point: the IP stack or the loopback
 * short-cut.
 *
 * A packet whose peer is a QP of this host that names the sender back
 * goes to the short-cut (sroce_local.c), the rest to the IP stack
 * (sroce_net.c). A pass that knows where its packets go (struct
 * sroce_xmit_route) may build segments for the short-cut, and sends its
 * single packets without looking the peer up again. A transmit batch is
 * the short-cut's local scope: what its packets set off at a local
 * receiver is done when the outermost batch on the CPU ends.
 */
#include "sroce.h"
#include "sroce_local.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_seg.h"
#include "sroce_xmit.h"

/**
 * sroce_xmit_begin - start a transmit batch
 *
 * Packets sent inside it to a QP of this host, and the transmit work
 * their receivers find, are handled when the outermost batch on this CPU
 * ends, after the sender dropped its QP lock: a receiver that answers
 * never re-enters a lock held further up. Bottom halves stay off until
 * the matching sroce_xmit_end().
 */
void sroce_xmit_begin(void)
{
	sroce_local_enter();
}

/* End a transmit batch; the outermost one delivers what it holds. */
void sroce_xmit_end(void)
{
	sroce_local_exit();
}

/**
 * sroce_xmit_route - where @qp's packets of this pass go
 * @qp: the sender, in a transmit batch; qp->lock held
 * @route: filled in
 */
void sroce_xmit_route(struct sroce_qp *qp, struct sroce_xmit_route *route)
{
	lockdep_assert_held(&qp->lock);
	/* A segment holds several packets of any path MTU (4096 at most). */
	BUILD_BUG_ON(SROCE_SEG_MAX_BYTES / 4096 < 2);
	route->direct = sroce_local_takes(qp);
	route->burst = route->direct ? sroce_seg_max_pkts(qp->mtu) : 1;
}

/* Through the IP stack, to @qp's address vector. */
static int sroce_xmit_stack(struct sroce_qp *qp, struct sk_buff *skb)
{
	return sroce_pkt_xmit_av(qp->sdev, &qp->av, qp->src_port, skb);
}

/**
 * sroce_xmit_routed - send a packet, or a segment, of a routed pass
 * @qp: the sender; qp->lock held, in the batch @route was found in
 * @route: from sroce_xmit_route()
 * @skb: one packet, or a segment of at most @route->burst packets
 *	(sroce_seg_of(@skb) filled in); consumed
 * @first: the headers of its (first) packet, as built
 */
void sroce_xmit_routed(struct sroce_qp *qp,
		       const struct sroce_xmit_route *route,
		       struct sk_buff *skb, const struct sroce_hdrs *first)
{
	if (sroce_seg_of(skb)->pkts > 1)
		sroce_local_xmit_seg(qp, skb, first);
	else if (route->direct)
		sroce_local_xmit_known(qp, skb);
	else
		sroce_xmit_stack(qp, skb);
}

/**
 * sroce_xmit - send one packet of @qp, its route found now
 * @qp: sender; its address vector says where; qp->lock held
 * @skb: from sroce_pkt_alloc(), transport part filled in; consumed
 *
 * Return: 0 or a routing/transmit error (the packet is gone either way;
 * the reliability protocol recovers from losses).
 */
int sroce_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	/* No address vector: refused and counted on the IP path. */
	if (likely(qp->av.net) && sroce_local_xmit(qp, skb))
		return 0;
	return sroce_xmit_stack(qp, skb);
}

/**
 * sroce_xmit_kick - a receiver found transmit work for @qp
 * @qp: tx_pending set; the caller holds a reference
 * @work: what kind
 *
 * Done at the end of the batch the receiver runs in where the transmit
 * thread would not take it better (sroce_tx_takes()), else by the thread.
 */
void sroce_xmit_kick(struct sroce_qp *qp, enum sroce_tx_work work)
{
	if (!sroce_local_defer_run(qp, work))
		sroce_tx_kick(qp);
}

/**
 * sroce_xmit_bypasses_stack - do @qp's packets skip the IP stack?
 * @qp: a QP; its lock need not be held
 *
 * True while every packet between @qp and its peer goes through the
 * short-cut: one of theirs arriving through the socket was made by
 * someone else.
 */
bool sroce_xmit_bypasses_stack(struct sroce_qp *qp)
{
	return sroce_local_carries(qp);
}

void sroce_xmit_qp_init(struct sroce_qp *qp)
{
	sroce_local_qp_init(qp);
}
