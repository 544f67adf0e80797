/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cwnd.h - the requester's congestion window.
 *
 * RC go-back-N makes every lost packet cost everything sent after it, so a
 * requester that keeps a full window in flight over a lossy path spends most
 * of its packets on retransmissions. The congestion window limits packets
 * in flight (req_psn - comp_psn, which for a READ counts the response
 * packets it asked for) between SROCE_CWND_MIN and SROCE_REQ_WINDOW: it grows on acknowledged progress (slow start, then one packet
 * per window), halves on a loss the responder reports (sequence NAK, or
 * responses found missing), and falls to the floor on a local ACK timeout.
 * Losses of one event (every PSN sent before the first loss was seen) cut
 * it once. Nothing of it is on the wire. RNR NAKs are not congestion.
 *
 * Pure functions on struct sroce_cwnd, so KUnit can drive them; the caller
 * holds qp->lock.
 */
#ifndef SROCE_CWND_H
#define SROCE_CWND_H

#include <linux/minmax.h>
#include <linux/types.h>

#include "sroce_psn.h"

/* Ceiling: packets in flight per QP, whatever the path. */
#define SROCE_REQ_WINDOW	256
/* Floor: the requester asks for an ACK when it fills the window. */
#define SROCE_CWND_MIN		8
#define SROCE_CWND_INITIAL	32

/**
 * struct sroce_cwnd - congestion state of one QP's requester
 * @cwnd: packets allowed in flight
 * @ssthresh: slow start below, additive increase from here
 * @acked: packets acknowledged since the last additive increase
 * @max: ceiling (SROCE_REQ_WINDOW)
 * @recover_psn: one past the highest PSN sent when the current loss
 *	event began; losses before it belong to that event
 * @recovering: a loss event is open until progress reaches @recover_psn
 */
struct sroce_cwnd {
	u32 cwnd;
	u32 ssthresh;
	u32 acked;
	u32 max;
	u32 recover_psn;
	bool recovering;
};

enum sroce_cwnd_loss {
	SROCE_CWND_LOSS_NAK,		/* sequence NAK, responses missing */
	SROCE_CWND_LOSS_TIMEOUT,	/* local ACK timeout */
};

static inline void sroce_cwnd_init(struct sroce_cwnd *c, u32 ceiling)
{
	c->max = max(ceiling, (u32)SROCE_CWND_MIN);
	c->cwnd = min(c->max, (u32)SROCE_CWND_INITIAL);
	c->ssthresh = c->max;
	c->acked = 0;
	c->recover_psn = 0;
	c->recovering = false;
}

/* May one more packet go out with @in_flight packets unacknowledged? */
static inline bool sroce_cwnd_allows(const struct sroce_cwnd *c, u32 in_flight)
{
	return in_flight < c->cwnd;
}

/* Packets the window lets go out now, with @in_flight unacknowledged. */
static inline u32 sroce_cwnd_room(const struct sroce_cwnd *c, u32 in_flight)
{
	return in_flight < c->cwnd ? c->cwnd - in_flight : 0;
}

/**
 * sroce_cwnd_on_progress - packets were acknowledged
 * @c: the window
 * @newly_acked: packets acknowledged by this response
 * @next_psn: oldest PSN still unacknowledged after it
 */
static inline void sroce_cwnd_on_progress(struct sroce_cwnd *c,
					  u32 newly_acked, u32 next_psn)
{
	if (c->recovering && !sroce_psn_before(next_psn, c->recover_psn))
		c->recovering = false;
	if (c->cwnd < c->ssthresh) {
		c->cwnd = min3(c->cwnd + newly_acked, c->ssthresh, c->max);
		return;
	}
	c->acked += newly_acked;
	while (c->acked >= c->cwnd && c->cwnd < c->max) {
		c->acked -= c->cwnd;
		c->cwnd++;
	}
	if (c->cwnd >= c->max)
		c->acked = 0;
}

/**
 * sroce_cwnd_on_loss - the requester goes back to resend
 * @c: the window
 * @kind: how the loss was noticed
 * @lost_psn: first PSN to resend
 * @sent_end: one past the highest PSN sent so far
 *
 * Return: true if this loss opened a new event (the window was cut).
 */
static inline bool sroce_cwnd_on_loss(struct sroce_cwnd *c,
				      enum sroce_cwnd_loss kind,
				      u32 lost_psn, u32 sent_end)
{
	bool same_event = c->recovering &&
			  sroce_psn_before(lost_psn, c->recover_psn);

	if (!same_event) {
		c->ssthresh = max(c->cwnd / 2, (u32)SROCE_CWND_MIN);
		c->cwnd = c->ssthresh;
		c->recovering = true;
		c->recover_psn = sent_end;
	}
	/* Not even the resent packets were answered: start from the floor. */
	if (kind == SROCE_CWND_LOSS_TIMEOUT)
		c->cwnd = SROCE_CWND_MIN;
	c->acked = 0;
	return !same_event;
}

#endif /* SROCE_CWND_H */
