// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_local.c - loopback short-cut: packets to a QP of this host skip
 * the IP stack.
 *
 * A packet whose destination QP lives on this host and is connected back
 * to the sender is not given to the IP stack: it is queued on a per-CPU
 * list and handed to the receive path (responder or completer) when the
 * outermost "local scope" on this CPU ends - after the sender dropped its
 * QP lock, so a receiver that answers (ACK) never re-enters a QP lock held
 * further up the stack. Scopes are the transmit pass of one QP
 * (sroce_req_run()) and the UDP receive hook; a packet sent outside any
 * scope (none today, but nothing relies on it) takes the IP stack as
 * before, and so does everything when the loopback_shortcut module
 * parameter is off. Scopes run with bottom halves disabled, which makes the per-CPU
 * list safe without a lock: neither a softirq nor another task can reach
 * it on this CPU meanwhile.
 *
 * The protocol is unchanged - same headers, PSNs, ACKs, NAKs, timers - but
 * a local packet carries no IP or UDP header and no ICRC is computed or
 * checked: it never leaves memory, as the kernel skips checksums on lo.
 */
#include <linux/moduleparam.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "sroce_local.h"
#include "sroce_net.h"
#include "sroce_qp.h"

/**
 * struct sroce_local - one CPU's short-cut queue
 * @head: oldest queued packet, linked through skb->next; NULL when empty
 * @tail: newest queued packet
 * @depth: nested local scopes on this CPU; the outermost one delivers
 */
struct sroce_local {
	struct sk_buff *head;
	struct sk_buff *tail;
	unsigned int depth;
};

static DEFINE_PER_CPU(struct sroce_local, sroce_local);

static bool loopback_shortcut = true;
module_param(loopback_shortcut, bool, 0644);
MODULE_PARM_DESC(loopback_shortcut,
		 "Deliver packets between two QPs of this host without the IP stack and without ICRC (default Y); N sends them through lo like any packet");

/* Start a scope; packets sent in it to local QPs skip the IP stack. */
void sroce_local_enter(void)
{
	local_bh_disable();
	this_cpu_inc(sroce_local.depth);
}

static struct sk_buff *sroce_local_pop(struct sroce_local *l)
{
	struct sk_buff *skb = l->head;

	if (skb) {
		l->head = skb->next;
		skb->next = NULL;
		if (!l->head)
			l->tail = NULL;
	}
	return skb;
}

/*
 * End a scope. The outermost one delivers every queued packet, including
 * those the receivers send meanwhile (ACKs), in order.
 */
void sroce_local_exit(void)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);
	struct sk_buff *skb;

	if (l->depth == 1) {
		while ((skb = sroce_local_pop(l)))
			sroce_rcv_local(skb);
	}
	l->depth--;
	local_bh_enable();
}

/*
 * Is @peer the QP at the other end of @qp? Both must name each other by QP
 * number and address; a QP of this host that merely has the right number
 * (two hosts allocate QP numbers alike) is not the peer. Peer fields are
 * read without its lock: they only change in modify_qp, and the receive
 * path checks its state and PSNs under the lock anyway.
 */
static bool sroce_local_is_peer(const struct sroce_qp *qp,
				const struct sroce_qp *peer)
{
	return READ_ONCE(peer->attr.dest_qp_num) == qp->ibqp.qp_num &&
	       peer->av.net == qp->av.net &&
	       ipv6_addr_equal(&peer->av.daddr, &qp->av.saddr) &&
	       ipv6_addr_equal(&peer->av.saddr, &qp->av.daddr);
}

/**
 * sroce_local_xmit - queue @skb for local delivery if its destination is here
 * @qp: the sender
 * @skb: transport headers at skb->data, as sroce_pkt_alloc() made it
 *
 * Return: true if the packet was taken (it will be delivered when the
 * outermost scope ends); false if it must go through the IP stack.
 */
bool sroce_local_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_local *l;
	struct sroce_qp *peer;
	bool local;

	if (!this_cpu_read(sroce_local.depth) || !READ_ONCE(loopback_shortcut))
		return false;
	peer = sroce_qp_get(qp->attr.dest_qp_num);
	if (!peer)
		return false;
	local = sroce_local_is_peer(qp, peer);
	sroce_qp_put(peer);
	if (!local)
		return false;

	l = this_cpu_ptr(&sroce_local);
	skb->next = NULL;
	if (l->tail)
		l->tail->next = skb;
	else
		l->head = skb;
	l->tail = skb;
	return true;
}
