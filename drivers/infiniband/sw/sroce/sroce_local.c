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
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_tx.h"

/* QPs one delivery may run the requester of, and passes it may make. */
#define SROCE_LOCAL_RUNS	8
#define SROCE_LOCAL_PASSES	16

/**
 * struct sroce_local - one CPU's short-cut queue
 * @head: oldest queued packet, linked through skb->next; NULL when empty
 * @tail: newest queued packet
 * @depth: nested local scopes on this CPU; the outermost one delivers
 * @delivering: the outermost scope is delivering; transmit work that the
 *	receivers find (window opened by an ACK, READ to answer) is done
 *	right here rather than by waking the transmit thread
 * @passes_left: requester passes this delivery may still make
 * @nrun: QPs in @run
 * @run: QPs with transmit work, a reference held on each
 */
struct sroce_local {
	struct sk_buff *head;
	struct sk_buff *tail;
	unsigned int depth;
	bool delivering;
	unsigned int passes_left;
	unsigned int nrun;
	struct sroce_qp *run[SROCE_LOCAL_RUNS];
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

/**
 * sroce_local_defer_run - run @qp's requester when this delivery is done
 * @qp: has transmit work (tx_pending set); the caller holds a reference
 *
 * Only where the transmit thread does not poll (one CPU, or every CPU
 * busy, sroce_tx_polls()): there, waking it costs a context switch and
 * buys nothing; where it polls it runs beside the process and picks up its
 * next posts without doorbells.
 *
 * Return: true if taken; false outside a delivery, when its budget is
 * spent, or when the thread polls; then the caller wakes the thread.
 */
bool sroce_local_defer_run(struct sroce_qp *qp)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);
	unsigned int i;

	if (!l->depth || !l->delivering || !l->passes_left || sroce_tx_polls(qp->sdev))
		return false;
	for (i = 0; i < l->nrun; i++)
		if (l->run[i] == qp)
			return true;
	if (l->nrun == ARRAY_SIZE(l->run))
		return false;
	refcount_inc(&qp->refs);
	l->run[l->nrun++] = qp;
	return true;
}

/*
 * One requester pass, in a nested scope: its packets join the queue being
 * delivered. Work left when the budget is spent goes to the thread.
 */
static void sroce_local_run(struct sroce_local *l, struct sroce_qp *qp)
{
	l->passes_left--;
	if (sroce_req_run(qp) && !sroce_local_defer_run(qp))
		sroce_tx_kick(qp->sdev);
	sroce_qp_put(qp);
}

/*
 * End a scope. The outermost one delivers every queued packet, including
 * those the receivers send meanwhile (ACKs), in order, and runs the
 * requesters they gave work to.
 */
void sroce_local_exit(void)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);
	struct sk_buff *skb;

	if (l->depth == 1) {
		l->delivering = true;
		l->passes_left = SROCE_LOCAL_PASSES;
		for (;;) {
			skb = sroce_local_pop(l);
			if (skb)
				sroce_rcv_local(skb);
			else if (l->nrun)
				sroce_local_run(l, l->run[--l->nrun]);
			else
				break;
		}
		l->delivering = false;
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
