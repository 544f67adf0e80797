/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_uc.h - what an unreliable connected (UC) QP does differently.
 *
 * UC is RC's data path without acknowledgements (IBA vol. 1, ch. 9): the same
 * SEND and RDMA WRITE packets, opcodes 0x20..0x2B, with no READ, ATOMIC
 * or ACK. The requester completes a WQE once its last packet is handed to
 * the network and never resends. The responder never answers: a packet
 * it cannot use is dropped with the rest of its message, and the QP stays
 * in its state.
 *
 * How the responder follows the PSNs (the IBA's class D1 rule): with no
 * retransmission a gap can only be skipped. A FIRST or ONLY packet
 * starts a new message whatever its PSN, and the expected PSN resyncs to
 * it; a MIDDLE or LAST packet must continue the message under way at the
 * expected PSN, or it and the rest of its message are dropped until the
 * next FIRST or ONLY. A FIRST or ONLY while a message is unfinished means
 * that message's end was lost: it is abandoned and the new one starts.
 */
#ifndef SROCE_UC_H
#define SROCE_UC_H

#include <linux/types.h>
#include <rdma/sroce-abi.h>

#include "sroce_opcode.h"

/* Work requests UC carries: those that need no response. */
static inline bool sroce_uc_wr_opcode_ok(u32 opcode)
{
	return opcode == SROCE_WR_SEND || opcode == SROCE_WR_SEND_WITH_IMM ||
	       opcode == SROCE_WR_RDMA_WRITE ||
	       opcode == SROCE_WR_RDMA_WRITE_WITH_IMM;
}

/* What the responder does with a UC request packet. */
enum sroce_uc_step {
	SROCE_UC_CONTINUE,	/* the next packet of the message: execute */
	SROCE_UC_RESYNC,	/* a new message after a gap: execute from its PSN */
	SROCE_UC_RESTART,	/* a new message: the unfinished one is abandoned */
	SROCE_UC_DROP,		/* continues nothing: dropped, with its message */
};

/* @last_flags: the last packet accepted ended no message, or none came yet. */
static inline bool sroce_uc_in_message(u32 last_flags)
{
	return (last_flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) &&
	       !(last_flags & SROCE_OPF_LAST);
}

/**
 * sroce_uc_step - where a UC request packet stands in the message stream
 * @last_flags: opcode flags of the last packet accepted; 0 after a drop
 *	(nothing under way) or before the first message
 * @expected: the PSN the responder expects next
 * @psn: the packet's PSN
 * @flags: the packet's opcode flags
 *
 * Return: the step; for SROCE_UC_DROP with a message under way (see
 * sroce_uc_in_message()) that message is abandoned as well.
 */
static inline enum sroce_uc_step sroce_uc_step(u32 last_flags, u32 expected,
					       u32 psn, u32 flags)
{
	if (flags & SROCE_OPF_FIRST) {
		if (sroce_uc_in_message(last_flags))
			return SROCE_UC_RESTART;
		return psn == expected ? SROCE_UC_CONTINUE : SROCE_UC_RESYNC;
	}
	if (!sroce_uc_in_message(last_flags) || psn != expected)
		return SROCE_UC_DROP;
	/* WRITE LAST with immediate is a WRITE that also takes a receive. */
	if ((flags & SROCE_OPF_WRITE) != (last_flags & SROCE_OPF_WRITE))
		return SROCE_UC_DROP;
	return SROCE_UC_CONTINUE;
}

#endif /* SROCE_UC_H */
