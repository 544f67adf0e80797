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

/**
 * struct sroce_tx - transmit side of a device
 * @thread: runs the requesters of every QP of the device
 * @lock: protects @qps
 * @qps: every QP of the device (sroce_qp.tx_entry)
 * @kicked: set by doorbells and timers before waking @thread, so a wake-up
 *	that races with going to sleep is not lost
 * @contended: written by @thread only: its last idle poll found another
 *	task waiting for its CPU (read locklessly by sroce_tx_polls())
 * @reprobe_at: jiffies from which a doorbell wakes @thread again although
 *	@contended, to look for a free CPU; written by @thread only
 * @reprobe_ms: the wait before that, doubled while the thread keeps
 *	finding its CPU wanted; @thread only
 */
struct sroce_tx {
	struct task_struct *thread;
	spinlock_t lock;
	struct list_head qps;
	atomic_t kicked;
	bool contended;
	unsigned long reprobe_at;
	unsigned int reprobe_ms;
};

int sroce_tx_start(struct sroce_dev *sdev);
void sroce_tx_stop(struct sroce_dev *sdev);
void sroce_tx_kick(struct sroce_dev *sdev);
void sroce_tx_kick_qp(struct sroce_qp *qp);
bool sroce_tx_polls(struct sroce_dev *sdev);
void sroce_tx_add_qp(struct sroce_dev *sdev, struct sroce_qp *qp);
void sroce_tx_del_qp(struct sroce_dev *sdev, struct sroce_qp *qp);

#endif /* SROCE_TX_H */
