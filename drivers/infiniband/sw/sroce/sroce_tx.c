// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_tx.c - the per-device transmit thread.
 *
 * The thread runs every QP's requester: it fetches send WQEs from the
 * shared rings, turns them into packets, retransmits, and sends multi-packet
 * READ responses. While there is work, or for sq_poll_usecs after the last
 * work, it keeps polling the rings, so processes need no syscall to post -
 * unless another task wants its CPU, then it stops polling at once. Then
 * it publishes NEED_WAKEUP in every SQ ring, issues a full barrier,
 * looks once more, and sleeps until a doorbell or a timer kicks it. The
 * barrier pairs with the one in the provider's post_send (see sroce-abi.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "sroce.h"
#include "sroce_local.h"
#include "sroce_proto.h"
#include "sroce_qp.h"
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

/* Visit each QP once with a reference held and the list lock dropped. */
static bool sroce_tx_for_each_qp(struct sroce_tx *tx,
				 bool (*fn)(struct sroce_qp *qp, void *arg),
				 void *arg)
{
	struct sroce_qp *qp, *prev = NULL;
	bool any = false;

	spin_lock_bh(&tx->lock);
	list_for_each_entry(qp, &tx->qps, tx_entry) {
		if (!sroce_qp_tryget(qp))
			continue;
		spin_unlock_bh(&tx->lock);
		if (prev)
			sroce_qp_put(prev);
		any |= fn(qp, arg);
		prev = qp;
		spin_lock_bh(&tx->lock);
		/*
		 * Still listed: destroy unlists a QP only after the last
		 * reference, ours included, is gone.
		 */
	}
	spin_unlock_bh(&tx->lock);
	if (prev)
		sroce_qp_put(prev);
	return any;
}

static bool sroce_tx_run_qp(struct sroce_qp *qp, void *arg)
{
	return sroce_req_run(qp);
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
bool sroce_tx_asleep(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->tx.asleep);
}

static bool sroce_tx_set_wakeup(struct sroce_qp *qp, void *arg)
{
	u32 flags = *(bool *)arg ? SROCE_RING_NEED_WAKEUP : 0;

	WRITE_ONCE(qp->sq.hdr->flags, flags);
	return false;
}

/*
 * Unlocked peek: a stale answer costs one more pass or one doorbell. Only
 * work a pass can take counts, else a process could keep the thread awake:
 * the SQ ring is read in RTS and SQD (a pass fetches all of it or puts the
 * QP in error, sroce_sq_fetch_locked), both rings are flushed in ERR.
 */
static bool sroce_tx_qp_has_work(struct sroce_qp *qp, void *arg)
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

static void sroce_tx_need_wakeup(struct sroce_tx *tx, bool need)
{
	sroce_tx_for_each_qp(tx, sroce_tx_set_wakeup, &need);
}

/*
 * Go to sleep unless work arrived meanwhile. The order - publish the flag,
 * full barrier, look again - is what makes eliding doorbells safe.
 */
static void sroce_tx_sleep(struct sroce_tx *tx)
{
	set_current_state(TASK_INTERRUPTIBLE);
	sroce_tx_need_wakeup(tx, true);
	smp_mb();
	if (atomic_xchg(&tx->kicked, 0) || kthread_should_stop() ||
	    sroce_tx_for_each_qp(tx, sroce_tx_qp_has_work, NULL)) {
		__set_current_state(TASK_RUNNING);
	} else {
		WRITE_ONCE(tx->asleep, true);
		schedule();
		WRITE_ONCE(tx->asleep, false);
	}
	sroce_tx_need_wakeup(tx, false);
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
 * see any post that missed the flag.
 */
static void sroce_tx_yield(struct sroce_tx *tx)
{
	if (!need_resched())
		return;
	sroce_tx_need_wakeup(tx, true);
	cond_resched();
	sroce_tx_need_wakeup(tx, false);
}

static int sroce_tx_thread(void *data)
{
	struct sroce_tx *tx = data;
	u64 idle_since = ktime_get_ns();
	bool worked = false;	/* since the thread last woke up */

	while (!kthread_should_stop()) {
		atomic_set(&tx->kicked, 0);
		if (sroce_tx_for_each_qp(tx, sroce_tx_run_qp, NULL)) {
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
	INIT_LIST_HEAD(&tx->qps);
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

/* Doorbell, timer or receive path: there is transmit work. Any context. */
void sroce_tx_kick(struct sroce_dev *sdev)
{
	atomic_set(&sdev->tx.kicked, 1);
	wake_up_process(sdev->tx.thread);
}

/*
 * @qp has transmit work of kind @work (tx_pending set; the caller holds a
 * reference). The receive path's local scope (a loopback delivery, the UDP
 * receive hook) may run it when it ends (sroce_local_defer_run()); else the
 * thread does.
 */
void sroce_tx_kick_qp(struct sroce_qp *qp, enum sroce_tx_work work)
{
	if (!sroce_local_defer_run(qp, work))
		sroce_tx_kick(qp->sdev);
}

void sroce_tx_add_qp(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	spin_lock_bh(&sdev->tx.lock);
	list_add_tail(&qp->tx_entry, &sdev->tx.qps);
	spin_unlock_bh(&sdev->tx.lock);
}

/* Only once every reference is gone: the thread may be iterating at @qp. */
void sroce_tx_del_qp(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	spin_lock_bh(&sdev->tx.lock);
	list_del(&qp->tx_entry);
	spin_unlock_bh(&sdev->tx.lock);
}
