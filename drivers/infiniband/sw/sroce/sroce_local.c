// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_local.c - loopback short-cut: packets to a QP of this host skip
 * the IP stack.
 *
 * A packet whose destination QP lives on this host and is connected back
 * to the sender is not given to the IP stack: it is queued on the sending
 * QP's own queue (struct sroce_outq, in PSN order: appended under the QP
 * lock) and handed to the receive path (responder or completer) when the
 * outermost "local scope" on a CPU ends - after the sender dropped its QP
 * lock, so a receiver that answers (ACK) never re-enters a QP lock held
 * further up the stack. Scopes are the transmit pass of one QP
 * (sroce_req_run()) and the UDP receive hook; a packet sent outside any
 * scope (none today, but nothing relies on it) takes the IP stack as
 * before, and so does everything when the loopback_shortcut module
 * parameter is off.
 *
 * Order: one QP's requester can run on two CPUs one after the other (the
 * transmit thread, a doorbell pass of the posting process). If each CPU
 * delivered what it queued, PSN n+1 queued later on one CPU could be
 * delivered before PSN n still waiting on the other: a sequence NAK and a
 * go-back-N for nothing. So exactly one CPU at a time delivers a QP's
 * queue: the first packet into an idle queue claims it for this CPU (the
 * QP joins its per-CPU list of senders, with a reference), later packets
 * from any CPU join the queue and are delivered by the claimer, which
 * keeps taking batches until a take finds the queue empty; sroce_outq.h
 * states why no packet is left behind at that moment. Different QPs'
 * packets carry no order between them; the senders are served round
 * robin, one batch each.
 *
 * The per-CPU list of senders, and of requesters to run, is safe without
 * a lock: scopes run with bottom halves disabled, so neither a softirq nor
 * another task reaches it on this CPU meanwhile, and other CPUs only touch
 * a QP's queue (under its lock), never this list. A delivery stops after
 * a budget of packets, since other CPUs may refill the queues it claimed;
 * a tasklet on the same CPU carries on once softirqs ran (and adopts the
 * claims, should that CPU go offline first).
 *
 * Teardown: a queue with packets is always claimed, and a claim holds a
 * reference on the sender, so destroying it waits until they are
 * delivered (the receiver is looked up by number for each packet: one
 * destroyed meanwhile drops them). Module unload kills the tasklets.
 *
 * The protocol is unchanged - same headers, PSNs, ACKs, NAKs, timers - but
 * a local packet carries no IP or UDP header and no ICRC is computed or
 * checked: it never leaves memory, as the kernel skips checksums on lo.
 */
#include <linux/interrupt.h>
#include <linux/moduleparam.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "sroce_local.h"
#include "sroce_net.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_seg.h"
#include "sroce_stats.h"
#include "sroce_tx.h"

/* QPs one delivery may run the requester of, and passes it may make. */
#define SROCE_LOCAL_RUNS	8
#define SROCE_LOCAL_PASSES	16
/*
 * Packets one delivery hands over before it lets softirqs run: other CPUs
 * can keep refilling the queues it holds the claim of.
 */
#define SROCE_LOCAL_BUDGET	1024

/**
 * struct sroce_local - one CPU's short-cut state
 * @senders: QPs whose outq claim this CPU holds, a reference held on each,
 *	linked through qp->local_entry; delivered round robin, one batch each
 * @depth: nested local scopes on this CPU; the outermost one delivers
 * @delivering: the outermost scope is delivering; transmit work that the
 *	receivers find (window opened by an ACK, READ to answer) is done
 *	right here rather than by waking the transmit thread. Outside a
 *	delivery, receivers run in the UDP receive hook: packets from the
 *	network, of whose transmit work the scope's end takes only READs
 *	to answer (sroce_tx_takes()).
 * @passes_left: requester passes the outermost scope may still make
 * @nrun: QPs in @run
 * @run: QPs with transmit work, a reference held on each
 * @resume: carries on a delivery that spent its budget, in softirq
 */
struct sroce_local {
	struct list_head senders;
	unsigned int depth;
	bool delivering;
	unsigned int passes_left;
	unsigned int nrun;
	struct sroce_qp *run[SROCE_LOCAL_RUNS];
	struct tasklet_struct resume;
};

static DEFINE_PER_CPU(struct sroce_local, sroce_local);

static bool loopback_shortcut = true;
module_param(loopback_shortcut, bool, 0644);
MODULE_PARM_DESC(loopback_shortcut,
		 "Deliver packets between two QPs of this host without the IP stack and without ICRC (default Y); N sends them through lo like any packet");

/* Start a scope; packets sent in it to local QPs skip the IP stack. */
void sroce_local_enter(void)
{
	struct sroce_local *l;

	local_bh_disable();
	l = this_cpu_ptr(&sroce_local);
	if (!l->depth++)
		l->passes_left = SROCE_LOCAL_PASSES;
}

/**
 * sroce_local_defer_run - run @qp's requester when this delivery is done
 * @qp: has transmit work (tx_pending set); the caller holds a reference
 * @work: what kind
 *
 * Only where the transmit thread would not take it better
 * (sroce_tx_takes()).
 *
 * Return: true if taken; false outside a scope, when its budget is spent,
 * or when the work is left to the thread; then the caller wakes the thread.
 */
bool sroce_local_defer_run(struct sroce_qp *qp, enum sroce_tx_work work)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);
	unsigned int i;

	if (!l->depth || !l->passes_left ||
	    sroce_tx_takes(qp->sdev, work, l->delivering))
		return false;
	for (i = 0; i < l->nrun; i++)
		if (l->run[i] == qp)
			return true;
	if (l->nrun == ARRAY_SIZE(l->run))
		return false;
	sroce_qp_hold(qp);
	l->run[l->nrun++] = qp;
	return true;
}

/*
 * One requester pass, in a nested scope: its packets join the queues being
 * delivered. Work left when the budget is spent goes to the thread.
 */
static void sroce_local_run(struct sroce_local *l, struct sroce_qp *qp)
{
	l->passes_left--;
	if (sroce_req_run(qp) && !sroce_local_defer_run(qp, SROCE_TX_OWN))
		sroce_tx_kick(qp);
	sroce_qp_put(qp);
}

/*
 * Deliver one batch of @qp's packets: all it queued so far, oldest first.
 * Its entry leaves @senders before the take, because a take that finds the
 * queue empty releases the claim, and then another CPU may claim it and
 * link the entry into its own list at once. With packets taken, the claim
 * is still ours and @qp goes to the back of the line, behind the senders
 * its packets are about to give work to (the receivers' ACKs).
 *
 * Return: packets delivered.
 */
static unsigned int sroce_local_deliver_batch(struct sroce_local *l,
					      struct sroce_qp *qp)
{
	struct sk_buff_head batch;
	struct sk_buff *skb;
	unsigned int n = 0;

	__skb_queue_head_init(&batch);
	list_del(&qp->local_entry);
	if (!sroce_outq_take(&qp->local_out, &batch)) {
		sroce_qp_put(qp);
		return 0;
	}
	list_add_tail(&qp->local_entry, &l->senders);
	while ((skb = __skb_dequeue(&batch))) {
		sroce_rcv_local(skb);
		n++;
	}
	return n;
}

/*
 * The outermost scope delivers every queued packet, including those the
 * receivers send meanwhile (ACKs) and those other CPUs append to the queues
 * this CPU holds the claim of, and runs the requesters they gave work to.
 * Past its budget it stops and @resume carries on once softirqs run; the
 * claims and deferred runs stay on this CPU until then.
 */
static void sroce_local_deliver(struct sroce_local *l)
{
	unsigned int budget = SROCE_LOCAL_BUDGET;
	struct sroce_qp *qp;

	l->delivering = true;
	for (;;) {
		qp = list_first_entry_or_null(&l->senders, struct sroce_qp,
					      local_entry);
		if (qp && !budget) {
			tasklet_schedule(&l->resume);
			break;
		}
		if (qp)
			budget -= min(budget, sroce_local_deliver_batch(l, qp));
		else if (l->nrun)
			sroce_local_run(l, l->run[--l->nrun]);
		else
			break;
	}
	l->delivering = false;
}

/* End a scope; the outermost one delivers. */
void sroce_local_exit(void)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);

	if (l->depth == 1)
		sroce_local_deliver(l);
	l->depth--;
	local_bh_enable();
}

/*
 * The tasklet of @from ran on another CPU: only when @from's CPU went
 * offline (its pending tasklets move to a live CPU), so nothing else can
 * touch @from. Its claims continue here; its deferred runs go to the
 * thread.
 */
static void sroce_local_adopt(struct sroce_local *l, struct sroce_local *from)
{
	struct sroce_qp *qp;

	list_splice_tail_init(&from->senders, &l->senders);
	while (from->nrun) {
		qp = from->run[--from->nrun];
		sroce_tx_kick(qp);
		sroce_qp_put(qp);
	}
}

/* A delivery that spent its budget continues here, normally on its CPU. */
static void sroce_local_resume(struct tasklet_struct *t)
{
	struct sroce_local *from = from_tasklet(from, t, resume);
	struct sroce_local *l;

	sroce_local_enter();
	l = this_cpu_ptr(&sroce_local);
	if (from != l)
		sroce_local_adopt(l, from);
	sroce_local_exit();
}

void sroce_local_qp_init(struct sroce_qp *qp)
{
	sroce_outq_init(&qp->local_out);
	INIT_LIST_HEAD(&qp->local_entry);
}

void sroce_local_setup(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_local *l = per_cpu_ptr(&sroce_local, cpu);

		INIT_LIST_HEAD(&l->senders);
		tasklet_setup(&l->resume, sroce_local_resume);
	}
}

/*
 * Module unload, every QP gone: no claim is left, but a resume scheduled
 * by a delivery that a later scope finished may still be pending.
 */
void sroce_local_teardown(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(&sroce_local, cpu)->resume);
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
 * sroce_local_carries - does the short-cut carry @qp's connection?
 * @qp: a QP; its lock need not be held (peer fields as sroce_local_is_peer())
 *
 * True while the short-cut is on and @qp's peer is a QP of this host that
 * names @qp back: every packet between the two then skips the IP stack,
 * so one of theirs arriving through the socket was made by someone else.
 */
bool sroce_local_carries(struct sroce_qp *qp)
{
	struct sroce_qp *peer;
	bool local;

	if (!READ_ONCE(loopback_shortcut))
		return false;
	peer = sroce_qp_get(READ_ONCE(qp->attr.dest_qp_num));
	if (!peer)
		return false;
	local = sroce_local_is_peer(qp, peer);
	sroce_qp_put(peer);
	return local;
}

/**
 * sroce_local_takes - do @qp's packets sent now go past the IP stack?
 * @qp: the sender
 *
 * Only inside a local scope (every send is in one today) and while the
 * short-cut carries @qp's connection (sroce_local_carries()).
 */
bool sroce_local_takes(struct sroce_qp *qp)
{
	return this_cpu_read(sroce_local.depth) && sroce_local_carries(qp);
}

/* Append @skb to @qp's queue, claiming it for this CPU if idle. */
static void sroce_local_queue(struct sroce_qp *qp, struct sk_buff *skb)
{
	lockdep_assert_held(&qp->lock);
	if (sroce_outq_append(&qp->local_out, skb)) {
		sroce_qp_hold(qp);
		list_add_tail(&qp->local_entry,
			      this_cpu_ptr(&sroce_local.senders));
	}
}

/*
 * Queue @skb, standing for @pkts packets of @bytes on the wire, and count
 * them sent as the IP path counts what the stack accepts.
 */
static void sroce_local_queue_sent(struct sroce_qp *qp, struct sk_buff *skb,
				   u32 pkts, u32 bytes)
{
	sroce_stat_add(qp->sdev, SROCE_STAT_SENT_PKTS, pkts);
	sroce_stat_add(qp->sdev, SROCE_STAT_SENT_BYTES, bytes);
	sroce_local_queue(qp, skb);
}

/**
 * sroce_local_xmit - queue @skb for local delivery if its destination is here
 * @qp: the sender; qp->lock held, so its packets queue in PSN order
 * @skb: transport headers at skb->data, as sroce_pkt_alloc() made it
 *
 * Return: true if the packet was taken (it will be delivered when the
 * outermost scope ends, on this CPU or on the one delivering @qp's
 * packets already); false if it must go through the IP stack.
 */
bool sroce_local_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	if (!sroce_local_takes(qp))
		return false;
	/* Its length is read before queueing: a claimer may free it at once. */
	sroce_local_queue_sent(qp, skb, 1, skb->len);
	return true;
}

/**
 * sroce_local_xmit_known - queue a packet whose peer is known to be local
 * @qp: the sender; qp->lock held, in the scope sroce_local_takes() said
 *	its packets go local in
 * @skb: one packet, as sroce_local_xmit() takes it; consumed
 *
 * Spares the data packets of a transmit pass the peer lookup that
 * sroce_local_takes() already made for the pass.
 */
void sroce_local_xmit_known(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_local_queue_sent(qp, skb, 1, skb->len);
}

/**
 * sroce_local_xmit_seg - queue a segment for local delivery
 * @qp: the sender; qp->lock held, in the scope sroce_local_takes() said
 *	its packets go local in
 * @skb: the segment, sroce_seg_of(@skb) filled in; consumed
 * @first: the headers of its first packet, as built
 *
 * A segment must not reach the network: it is queued even if the short-cut
 * was switched off meanwhile (its receiver is looked up at delivery like
 * any local packet's).
 */
void sroce_local_xmit_seg(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_hdrs *first)
{
	const struct sroce_seg *seg = sroce_seg_of(skb);

	sroce_stat_inc(qp->sdev, SROCE_STAT_LOCAL_SEGMENTS);
	sroce_local_queue_sent(qp, skb, seg->pkts,
			       sroce_seg_wire_bytes(first, seg));
}
