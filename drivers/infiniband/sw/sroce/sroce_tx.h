/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_tx.h - the per-device transmit thread.
 */
#ifndef SROCE_TX_H
#define SROCE_TX_H

#include <linux/list.h>
#include <linux/spinlock.h>

struct task_struct;
struct sroce_dev;
struct sroce_qp;

/* Transmit work a receiver hands over (sroce_xmit_kick()). */
enum sroce_tx_work {
	SROCE_TX_OWN,		/* the requester's own: a window reopened */
	SROCE_TX_ANSWER,	/* a READ request to answer */
};

/**
 * struct sroce_tx - transmit side of a device
 * @thread: runs the requesters of the device's QPs that have work
 * @lock: protects @active and the sroce_qp.tx_* fields it says; nests
 *	inside sroce_qp.lock (kicks come from under it), never the reverse;
 *	IRQ-safe: sroce_tx_kick() takes it irqsave (a kernel ULP may post
 *	with IRQs off), everyone else runs in process context and takes
 *	it _irq
 * @active: the QPs @thread polls (sroce_qp.tx_entry): those kicked since
 *	they last had nothing to do; every other QP's SQ has NEED_WAKEUP set
 * @kicked: set by doorbells and timers before waking @thread, so a wake-up
 *	that races with going to sleep is not lost
 * @parked: written by @thread only: its last idle poll found another task
 *	waiting for its CPU, or its last poll windows after wake-ups found no
 *	work; doorbells then leave it asleep (read locklessly by
 *	sroce_tx_polls())
 * @futile_wakes: wake-ups in a row whose poll window found no work, up to
 *	SROCE_TX_FUTILE_WAKES; @thread only
 * @reprobe_at: jiffies from which a doorbell wakes @thread again although
 *	@parked, to look for a free CPU or faster posts; written by @thread only
 * @reprobe_ms: the wait before that, doubled while the thread stays
 *	parked; @thread only
 * @asleep: @thread is (about to be) asleep and needs a wake-up to see new
 *	work; written by @thread only, read locklessly by sroce_tx_asleep()
 */
struct sroce_tx {
	struct task_struct *thread;
	spinlock_t lock;
	struct list_head active;
	atomic_t kicked;
	bool parked;
	bool asleep;
	unsigned long reprobe_at;
	unsigned int reprobe_ms;
	unsigned int futile_wakes;
};

int sroce_tx_start(struct sroce_dev *sdev);
void sroce_tx_stop(struct sroce_dev *sdev);
void sroce_tx_kick(struct sroce_qp *qp);
bool sroce_tx_polls(struct sroce_dev *sdev);
bool sroce_tx_takes(struct sroce_dev *sdev, enum sroce_tx_work work,
		    bool delivering);
void sroce_tx_del_qp(struct sroce_dev *sdev, struct sroce_qp *qp);

#endif /* SROCE_TX_H */
