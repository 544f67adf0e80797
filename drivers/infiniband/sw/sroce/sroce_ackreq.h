/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_ackreq.h - which request packets ask for an ACK (BTH AckReq).
 *
 * The responder acknowledges a SEND or RDMA WRITE packet only when its
 * AckReq bit is set (besides duplicates and errors, which it always
 * answers); one ACK covers every PSN up to it. IBA leaves the choice of
 * those packets to the requester. Setting the bit on the last packet of
 * every message costs an ACK packet and a completer pass per message,
 * which for 8-byte WRITEs is as much as the request itself. sroce asks
 * only where someone waits for the ACK:
 *  - the last packet of a signaled work request: the process waits for
 *    its completion;
 *  - every SROCE_ACKREQ_INTERVAL-th packet: the window (and the SQ slots of
 *    unsignaled work requests) keeps moving;
 *  - while at least half the send queue waits for acknowledgement, the
 *    last packet of a message once a quarter of the queue's depth in
 *    packets went unasked: the process may run out of room to post (a
 *    ping-pong with one unsignaled WRITE in flight on a queue of one, as
 *    perftest's latency tests have, needs each ACK at once); on a deep
 *    queue the interval below already frees slots often enough, and an ACK
 *    per message would cost as much as the message;
 *  - the last packet of a message sent again: a retransmission wants an
 *    answer, or the next timeout would find nothing asked;
 *  - every last packet when the QP has no local ACK timeout (timeout 0):
 *    nothing would ever ask for an unsignaled tail;
 *  - any packet that fills the congestion window: below the AckReq interval
 *    nothing else would open the window before the local ACK timeout;
 *  - the last packet of a message sent while the send queue drains (SQD):
 *    SQ_DRAINED waits for its ACK.
 * An unsignaled tail sent without AckReq is asked for when the local ACK
 * timer fires (sroce_comp.c), or at once when the QP enters SQD: it is sent
 * again with AckReq, and that does not count as a retry, since the
 * responder owed no ACK.
 * READ and ATOMIC requests always set AckReq; their responses are answers.
 */
#ifndef SROCE_ACKREQ_H
#define SROCE_ACKREQ_H

#include <linux/minmax.h>
#include <linux/types.h>

#define SROCE_ACKREQ_INTERVAL	32

/**
 * struct sroce_ackreq_in - what the AckReq policy looks at, for one packet
 * @last: it is the last packet of its message
 * @signaled: its work request asks for a completion
 * @resend: it is a retransmission
 * @has_timeout: the QP has a local ACK timeout to ask for a tail later
 * @sq_crowded: at least half the send queue's WQEs are not yet completed
 * @sq_depth: the send queue's depth
 * @fills_cwnd: with it in flight the congestion window is full
 * @draining: the QP is in SQD, waiting for its send queue to drain
 * @unasked: packets sent since the last one that set AckReq
 */
struct sroce_ackreq_in {
	bool last;
	bool signaled;
	bool resend;
	bool has_timeout;
	bool sq_crowded;
	u32 sq_depth;
	bool fills_cwnd;
	bool draining;
	u32 unasked;
};

/* A crowded send queue wants an ACK after this many packets unasked. */
static inline u32 sroce_ackreq_crowded_interval(u32 sq_depth)
{
	return max(sq_depth / 4, 1U);
}

/* Does a SEND/WRITE packet set AckReq? */
static inline bool sroce_ackreq_wanted(const struct sroce_ackreq_in *in)
{
	bool crowded_asks = in->sq_crowded &&
		in->unasked + 1 >= sroce_ackreq_crowded_interval(in->sq_depth);

	if (in->unasked + 1 >= SROCE_ACKREQ_INTERVAL || in->fills_cwnd)
		return true;
	return in->last && (in->signaled || in->resend || !in->has_timeout ||
			    crowded_asks || in->draining);
}

#endif /* SROCE_ACKREQ_H */
