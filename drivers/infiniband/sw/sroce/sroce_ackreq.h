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
 *  - the last packet of a message while at least half the send queue waits
 *    for acknowledgement: the process may be out of room to post (a
 *    ping-pong with one unsignaled WRITE in flight needs each ACK at once);
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

#include <linux/types.h>

#define SROCE_ACKREQ_INTERVAL	32

/**
 * struct sroce_ackreq_in - what the AckReq policy looks at, for one packet
 * @last: it is the last packet of its message
 * @signaled: its work request asks for a completion
 * @resend: it is a retransmission
 * @has_timeout: the QP has a local ACK timeout to ask for a tail later
 * @sq_crowded: at least half the send queue's WQEs are not yet completed
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
	bool fills_cwnd;
	bool draining;
	u32 unasked;
};

/* Does a SEND/WRITE packet set AckReq? */
static inline bool sroce_ackreq_wanted(const struct sroce_ackreq_in *in)
{
	if (in->unasked + 1 >= SROCE_ACKREQ_INTERVAL || in->fills_cwnd)
		return true;
	return in->last && (in->signaled || in->resend || !in->has_timeout ||
			    in->sq_crowded || in->draining);
}

#endif /* SROCE_ACKREQ_H */
