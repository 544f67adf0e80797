// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_tx.c - the per-device transmit thread.
 *
 * The thread runs the requesters of QPs with work: it fetches send WQEs
 * from the shared rings, turns them into packets, retransmits, and sends
 * multi-packet READ responses. While there is work, or for sq_poll_usecs
 * after the last work, it keeps polling the rings, so processes need no
 * syscall to post - unless another task wants its CPU, then it stops
 * polling at once. Then it publishes NEED_WAKEUP in the SQ rings it polls,
 * issues a full barrier, looks once more, and sleeps until a doorbell or a
 * timer kicks it. The barrier pairs with the one in the provider's
 * post_send (see sroce-abi.h).
 *
 * Active QPs. The thread walks only the QPs on its active list, so a pass
 * costs the QPs with work, not every QP of the device. A QP joins when
 * work is handed to the thread (sroce_tx_kick(): doorbell, timer, receive
 * path, modify_qp) and leaves when it has had nothing to do for the poll
 * window (sroce_tx_prune_locked()). The invariant that keeps doorbell
 * elision safe: a QP's SQ flags may lack NEED_WAKEUP only while it is
 * listed. A QP is created with the flag set and unlisted; the thread
 * clears the flag only of QPs it lists; it sets the flag, issues a full
 * barrier and looks at the ring before it unlists one. A process posting
 * to an unlisted QP therefore always rings the doorbell, which lists it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "sroce.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
#include "sroce_stats.h"
#include "sroce_tx.h"

static unsigned int sq_poll_usecs = 50;
module_param(sq_poll_usecs, uint, 0644);
MODULE_PARM_DESC(sq_poll_usecs,
		 "How long the transmit thread keeps polling send queues after its last work before it sleeps and asks for doorbells, on machines with more than one CPU (default 50)");

/*
 * With one CPU, a polling thread only takes the CPU from the process it
 * waits for: it sleeps at once and every post rings the doorbell instead.
 */
static u64 sroce_tx_poll_ns(void)
{
	if (num_online_cpus() < 2)
		return 0;
	return (u64)READ_ONCE(sq_poll_usecs) * NSEC_PER_USEC;
}

static struct sroce_dev *tx_to_sdev(struct sroce_tx *tx)
{
	return container_of(tx, struct sroce_dev, tx);
}

/*
 * A parked thread (its CPU was wanted by another task, or its last poll
 * windows found nothing) is left asleep by doorbells for a while; then one
 * doorbell wakes it again to look whether a CPU has come free or posts now
 * come fast enough to poll for - where it wakes up is the scheduler's
 * choice, so it gets a few quick chances (1, 2, 4 ms ...) before settling
 * at this bound.
 */
#define SROCE_TX_REPROBE_MAX_MS	100

/*
 * Does the thread poll after work? Then waking it is worth it: it works in
 * parallel with the process and picks up the next posts without doorbells.
 * Otherwise - one CPU, or it is parked (sroce_tx_idle_done()) - a wake-up
 * only costs context switches, and whoever has the work
 * (the doorbell, the local delivery) does it right there. Two lockless
 * reads: a stale answer costs one wake-up, or one left out.
 */
bool sroce_tx_polls(struct sroce_dev *sdev)
{
	const struct sroce_tx *tx = &sdev->tx;

	if (!sroce_tx_poll_ns())
		return false;
	return !READ_ONCE(tx->parked) ||
	       time_after_eq(jiffies, READ_ONCE(tx->reprobe_at));
}

/*
 * Would new work wait for a wake-up of the thread? A stale answer costs one
 * wake-up, or one pass done by the caller beside the thread (QP locks keep
 * the two apart).
 */
static bool sroce_tx_asleep(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->tx.asleep);
}

/**
 * sroce_tx_takes - should the thread take transmit work a receiver found?
 * @sdev: the QP's device
 * @work: what kind
 * @delivering: the receiver runs in a loopback delivery (sroce_local.c)
 *
 * If not, the receiver's caller runs the requester pass itself when its
 * scope ends. In a delivery the thread takes it whenever it polls
 * (sroce_tx_polls()): waking it costs a context switch and buys nothing
 * otherwise; where it polls it runs beside the process and picks up its
 * next posts without doorbells.
 *
 * For a packet from the network, the caller takes only a READ to answer,
 * and only while the thread sleeps: waking it would cost the answer a
 * wake-up (on a virtual machine an interrupt to another vCPU) that a pass
 * there does not, and what the pass leaves goes to the thread if it polls,
 * as in a delivery. An awake thread finds the work on its next look at no
 * cost. A send window an ACK reopened stays with the thread: sent from the
 * receive path as well, the bursts cost a streaming link 6-12 % of its
 * bandwidth and half again as many retransmissions (performance.md, "Link
 * latency").
 */
bool sroce_tx_takes(struct sroce_dev *sdev, enum sroce_tx_work work,
		    bool delivering)
{
	if (delivering)
		return sroce_tx_polls(sdev);
	return work != SROCE_TX_ANSWER || !sroce_tx_asleep(sdev);
}

static void sroce_tx_set_wakeup(struct sroce_qp *qp, bool need)
{
	u32 flags = need ? SROCE_RING_NEED_WAKEUP : 0;

	/* Most passes change nothing: leave the shared cache line alone. */
	if (READ_ONCE(qp->sq.hdr->flags) != flags)
		WRITE_ONCE(qp->sq.hdr->flags, flags);
}

/*
 * Unlocked peek: a stale answer costs one more pass or one doorbell. Only
 * work a pass can take counts, else a process could keep the thread awake:
 * the SQ ring is read in RTS and SQD (a pass fetches all of it or puts the
 * QP in error, sroce_sq_fetch_locked), both rings are flushed in ERR.
 */
static bool sroce_tx_qp_has_work(struct sroce_qp *qp)
{
	if (READ_ONCE(qp->tx_pending))
		return true;
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		return sroce_queue_available(&qp->sq) > 0;
	case IB_QPS_ERR:
		return sroce_queue_available(&qp->sq) > 0 ||
		       sroce_queue_available(&qp->rq) > 0;
	default:
		return false;
	}
}

/*
 * Ask for doorbells on every listed QP. Under tx->lock a listed QP's rings
 * are alive: destroy unlists it (under the lock) before freeing them. Its
 * flag is cleared again by the next pass that keeps it listed.
 */
static void sroce_tx_need_wakeup(struct sroce_tx *tx)
{
	struct sroce_qp *qp;
	unsigned int visits = 0;

	spin_lock_irq(&tx->lock);
	list_for_each_entry(qp, &tx->active, tx_entry) {
		sroce_tx_set_wakeup(qp, true);
		visits++;
	}
	spin_unlock_irq(&tx->lock);
	sroce_stat_add(tx_to_sdev(tx), SROCE_STAT_TX_QP_VISITS, visits);
}

/* Unlocked peeks over the listed QPs, as sroce_tx_qp_has_work(). */
static bool sroce_tx_any_work(struct sroce_tx *tx)
{
	struct sroce_qp *qp;
	unsigned int visits = 0;
	bool any = false;

	spin_lock_irq(&tx->lock);
	list_for_each_entry(qp, &tx->active, tx_entry) {
		visits++;
		if (sroce_tx_qp_has_work(qp)) {
			any = true;
			break;
		}
	}
	spin_unlock_irq(&tx->lock);
	sroce_stat_add(tx_to_sdev(tx), SROCE_STAT_TX_QP_VISITS, visits);
	return any;
}

/*
 * Go to sleep unless work arrived meanwhile. The order - publish the flag,
 * full barrier, look again - is what makes eliding doorbells safe: the
 * smp_mb() pairs with the full barrier in the provider's post_send between
 * its store of the producer index and its load of the flags, so either
 * sroce_tx_any_work() sees the new WQE or the process sees NEED_WAKEUP
 * and rings. Work for unlisted QPs comes only with a kick, and a kick sets
 * @kicked before it wakes us: set_current_state() before the xchg makes
 * that wake-up stick. The next pass clears the flags it should.
 */
static void sroce_tx_sleep(struct sroce_tx *tx)
{
	set_current_state(TASK_INTERRUPTIBLE);
	sroce_tx_need_wakeup(tx);
	smp_mb();
	if (atomic_xchg(&tx->kicked, 0) || kthread_should_stop() ||
	    sroce_tx_any_work(tx)) {
		__set_current_state(TASK_RUNNING);
	} else {
		WRITE_ONCE(tx->asleep, true);
		schedule();
		WRITE_ONCE(tx->asleep, false);
	}
}

/*
 * Unlist @qp if it has had nothing to do for the poll window and nothing
 * was kicked to it since the pass looked (a kick sets tx_kicked under this
 * lock). Publish NEED_WAKEUP first, then the full barrier, then look at
 * its rings: the barrier pairs with the provider's post_send (store of the
 * producer index, full barrier, load of the flags), so a WQE posted without
 * a doorbell is seen here and keeps the QP listed, and any later post finds
 * the flag and rings the doorbell, which lists the QP again.
 */
static void sroce_tx_prune_locked(struct sroce_tx *tx, struct sroce_qp *qp,
				  u64 now)
{
	lockdep_assert_held(&tx->lock);
	if (qp->tx_kicked || now - qp->tx_worked_ns < sroce_tx_poll_ns())
		goto keep;
	sroce_tx_set_wakeup(qp, true);
	smp_mb();	/* pairs with post_send's fence: see above */
	if (sroce_tx_qp_has_work(qp))
		goto keep;
	list_del_init(&qp->tx_entry);
	qp->tx_listed = false;
	return;
keep:
	/* Listed, so polled: posts need no doorbell. */
	sroce_tx_set_wakeup(qp, false);
}

/*
 * The next listed QP after @qp, with a reference, or NULL. @qp (if not
 * NULL) is listed: only this thread unlists a QP it holds, and destroy
 * does only once the last reference is gone. A QP being destroyed (no
 * references left) is skipped; destroy unlists it.
 */
static struct sroce_qp *sroce_tx_next_locked(struct sroce_tx *tx,
					     struct sroce_qp *qp)
{
	lockdep_assert_held(&tx->lock);
	qp = qp ? list_next_entry(qp, tx_entry) :
		  list_first_entry(&tx->active, struct sroce_qp, tx_entry);
	list_for_each_entry_from(qp, &tx->active, tx_entry)
		if (sroce_qp_tryget(qp))
			return qp;
	return NULL;
}

/*
 * One pass: run every listed QP's requester once, with a reference held and
 * the list lock dropped, and unlist the QPs that went idle.
 * Return: true if any QP sent something or moved state.
 */
static bool sroce_tx_pass(struct sroce_tx *tx)
{
	struct sroce_dev *sdev = tx_to_sdev(tx);
	u64 now = ktime_get_ns();
	unsigned int visits = 0;
	struct sroce_qp *qp, *next;
	bool any = false, worked;

	spin_lock_irq(&tx->lock);
	for (qp = sroce_tx_next_locked(tx, NULL); qp; qp = next) {
		if (qp->tx_kicked) {
			qp->tx_kicked = false;
			qp->tx_worked_ns = now;
		}
		spin_unlock_irq(&tx->lock);
		/*
		 * The lock (release by the kicker, acquire above) orders the
		 * kicker's tx_pending store before the run's look at it.
		 */
		worked = sroce_req_run(qp);
		visits++;
		any |= worked;
		spin_lock_irq(&tx->lock);
		next = sroce_tx_next_locked(tx, qp);
		if (worked) {
			qp->tx_worked_ns = now;
			sroce_tx_set_wakeup(qp, false);
		} else {
			sroce_tx_prune_locked(tx, qp, now);
		}
		/* complete() of a destroy waiting for it is fine here. */
		sroce_qp_put(qp);
	}
	spin_unlock_irq(&tx->lock);
	sroce_stat_inc(sdev, SROCE_STAT_TX_PASSES);
	sroce_stat_add(sdev, SROCE_STAT_TX_QP_VISITS, visits);
	return any;
}

/*
 * Polling only pays on a CPU nobody else wants. Applications that
 * busy-poll their CQ or memory (perftest does) keep every CPU busy; the
 * task waiting for ours may be the very process whose next post we would
 * pick up, and it runs only once we stop. So the thread sleeps as soon as
 * another task is runnable here; posts then ring the doorbell and run
 * their pass in the process, as on one CPU.
 *
 * Nor does it pay when poll windows after wake-ups keep finding nothing:
 * the doorbell that woke the thread had sent everything and no post came
 * within sq_poll_usecs. That is a ping-pong - one message, then the
 * peer's answer a round trip later (latency tests across a link) - and
 * every such wake-up only burns the window on another CPU, which a
 * virtual machine's host may be short of, while the next post rings the
 * doorbell anyway. A few in a row (one alone may be a hiccup of a
 * streaming process) count as a ping-pong. Both cases park the thread:
 * doorbells whose pass sent everything leave it asleep until the re-probe.
 */
#define SROCE_TX_FUTILE_WAKES	4

static bool sroce_tx_idle_done(struct sroce_tx *tx, u64 idle_since,
			       bool worked)
{
	bool cpu_wanted = !single_task_running();
	bool parked;

	if (!cpu_wanted && ktime_get_ns() - idle_since < sroce_tx_poll_ns())
		return false;
	if (worked)
		tx->futile_wakes = 0;
	else if (!cpu_wanted && tx->futile_wakes < SROCE_TX_FUTILE_WAKES)
		tx->futile_wakes++;
	parked = cpu_wanted || tx->futile_wakes >= SROCE_TX_FUTILE_WAKES;
	/* Decided only here: a flag cleared while polling would reset the back-off. */
	if (parked) {
		tx->reprobe_ms = tx->parked ?
			min(2 * tx->reprobe_ms, SROCE_TX_REPROBE_MAX_MS) : 1;
		WRITE_ONCE(tx->reprobe_at,
			   jiffies + msecs_to_jiffies(tx->reprobe_ms));
	}
	WRITE_ONCE(tx->parked, parked);
	return true;
}

/*
 * Give the CPU away when the scheduler asks (the thread has had work for
 * a whole time slice) with NEED_WAKEUP published: a post made while the
 * thread waits for a CPU rings the doorbell and runs its own pass rather
 * than waiting. No barrier needed: the thread is still runnable and will
 * see any post that missed the flag; its next pass clears the flags again.
 */
static void sroce_tx_yield(struct sroce_tx *tx)
{
	if (!need_resched())
		return;
	sroce_tx_need_wakeup(tx);
	cond_resched();
}

static int sroce_tx_thread(void *data)
{
	struct sroce_tx *tx = data;
	u64 idle_since = ktime_get_ns();
	bool worked = false;	/* since the thread last woke up */

	while (!kthread_should_stop()) {
		atomic_set(&tx->kicked, 0);
		if (sroce_tx_pass(tx)) {
			idle_since = ktime_get_ns();
			worked = true;
		} else if (sroce_tx_idle_done(tx, idle_since, worked)) {
			sroce_tx_sleep(tx);
			idle_since = ktime_get_ns();
			worked = false;
		}
		sroce_tx_yield(tx);
	}
	return 0;
}

int sroce_tx_start(struct sroce_dev *sdev)
{
	struct sroce_tx *tx = &sdev->tx;
	struct task_struct *thread;

	spin_lock_init(&tx->lock);
	INIT_LIST_HEAD(&tx->active);
	atomic_set(&tx->kicked, 0);
	tx->parked = false;
	tx->asleep = false;
	tx->futile_wakes = 0;
	thread = kthread_run(sroce_tx_thread, tx, "sroce-tx/%s",
			     netdev_name(sdev->ndev));
	if (IS_ERR(thread))
		return PTR_ERR(thread);
	tx->thread = thread;
	return 0;
}

void sroce_tx_stop(struct sroce_dev *sdev)
{
	if (sdev->tx.thread)
		kthread_stop(sdev->tx.thread);
	sdev->tx.thread = NULL;
}

/**
 * sroce_tx_kick - hand @qp's transmit work to the thread
 * @qp: has work (tx_pending set, a doorbell's leftovers, a state change);
 *	the caller holds a reference or otherwise keeps destroy away
 *	(timer: destroy syncs it before unlisting; verbs: ib_core)
 *
 * Lists @qp, so the thread polls it, and wakes the thread. Any context,
 * IRQs off included (kernel ULPs post under spin_lock_irqsave); qp->lock
 * may be held.
 */
void sroce_tx_kick(struct sroce_qp *qp)
{
	struct sroce_tx *tx = &qp->sdev->tx;
	unsigned long flags;

	spin_lock_irqsave(&tx->lock, flags);
	/* Keeps a pass that did not see this work from unlisting @qp. */
	qp->tx_kicked = true;
	if (!qp->tx_listed) {
		list_add_tail(&qp->tx_entry, &tx->active);
		qp->tx_listed = true;
	}
	spin_unlock_irqrestore(&tx->lock, flags);
	atomic_set(&tx->kicked, 1);
	wake_up_process(tx->thread);
}

/*
 * Only once every reference is gone and the retry timer is synced, so
 * nothing kicks @qp again; until then the thread skips it (it finds no
 * reference to take, sroce_tx_next_locked()).
 */
void sroce_tx_del_qp(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	spin_lock_irq(&sdev->tx.lock);
	if (qp->tx_listed) {
		list_del_init(&qp->tx_entry);
		qp->tx_listed = false;
	}
	spin_unlock_irq(&sdev->tx.lock);
}
