/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_outq.h - one sending QP's loopback packets, in the order it sent
 * them, and the claim that lets exactly one context deliver them.
 *
 * A QP's packets are appended under its QP lock, so in PSN order, from
 * whichever CPU runs its requester or responder. Delivery happens later,
 * without the QP lock; were each CPU to deliver what it appended, a packet
 * appended on one CPU could overtake an older one still waiting on another.
 * So one context at a time holds the queue's claim and delivers everything
 * in it, whoever appended it: the appender that finds the queue unclaimed
 * takes the claim; one that finds it claimed leaves its packet to the
 * holder, who keeps taking batches until a take finds the queue empty.
 *
 * The lost-wake-up rule: the claim is released only by a take that found
 * the queue empty, in the same critical section of @lock. An append is in
 * a critical section of @lock too, so it is either before that take (the
 * take sees the packet and the claim stays) or after it (the append finds
 * the queue unclaimed and takes the claim itself). No packet is ever left
 * in an unclaimed queue.
 */
#ifndef SROCE_OUTQ_H
#define SROCE_OUTQ_H

#include <linux/skbuff.h>

/**
 * struct sroce_outq - packets one QP sent to a QP of this host
 * @pkts: the packets, oldest first; @pkts.lock protects @pkts and @claimed
 *	(taken with bottom halves disabled, inside the QP lock when appending)
 * @claimed: a context is delivering this queue's packets
 */
struct sroce_outq {
	struct sk_buff_head pkts;
	bool claimed;
};

static inline void sroce_outq_init(struct sroce_outq *q)
{
	skb_queue_head_init(&q->pkts);
	q->claimed = false;
}

/**
 * sroce_outq_append - queue @skb behind the packets already queued
 *
 * Return: true if the caller took the claim: it must take batches until
 * sroce_outq_take() returns false. False: the holder of the claim delivers
 * @skb.
 */
static inline bool sroce_outq_append(struct sroce_outq *q, struct sk_buff *skb)
{
	bool claim;

	spin_lock(&q->pkts.lock);
	__skb_queue_tail(&q->pkts, skb);
	claim = !q->claimed;
	q->claimed = true;
	spin_unlock(&q->pkts.lock);
	return claim;
}

/**
 * sroce_outq_take - the claim holder takes every queued packet
 * @batch: receives them, oldest first, behind what it holds
 *
 * Return: true if packets were taken; the caller keeps the claim and takes
 * again once it delivered them. False if the queue was empty: the claim is
 * released (see the rule above) and the caller must not touch the queue's
 * owner on the strength of the claim any more.
 */
static inline bool sroce_outq_take(struct sroce_outq *q,
				   struct sk_buff_head *batch)
{
	bool taken;

	spin_lock(&q->pkts.lock);
	taken = !skb_queue_empty(&q->pkts);
	if (taken)
		skb_queue_splice_tail_init(&q->pkts, batch);
	else
		q->claimed = false;
	spin_unlock(&q->pkts.lock);
	return taken;
}

#endif /* SROCE_OUTQ_H */
