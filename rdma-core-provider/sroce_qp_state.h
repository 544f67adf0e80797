/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_qp_state.h - whether ibv_post_send may queue work on a QP, decided
 * in the process without asking the kernel.
 *
 * IBA (like rdma_rxe and mlx5) refuses send work requests on a QP in RESET,
 * INIT or RTR with an immediate error, and takes them from RTS on: in RTS
 * and SQD they are executed, in SQE and ERR they complete with
 * IBV_WC_WR_FLUSH_ERR (ib_drain_qp() posts to a QP in ERR and waits for
 * that flush). Since the WQEs go straight into the shared ring, the check
 * has to be made here, and it must cost no syscall on the post path.
 *
 * Two inputs, both read without a syscall:
 *
 * @last_set: the state the last successful ibv_modify_qp of this process
 *	moved the QP to (sroce_qp.state). Every modify of a user QP goes
 *	through the provider's modify_qp, and modify_qp calls of one QP are
 *	serialized (sroce_qp.modify_lock), so this is the state the kernel
 *	last applied on request. A failed modify changes nothing on either
 *	side. A modify with IBV_QP_CUR_STATE succeeds only if the claim is
 *	the kernel's real state, so it cannot make the copy wrong either.
 *	ibv_query_qp does not refresh it: a query racing with a modify in
 *	another thread could write back an older state than the modify's.
 *
 * @kernel_error: the kernel moved the QP to ERR on its own (retry or RNR
 *	retry exceeded, a NAK or access error in the responder, a broken
 *	ring). @last_set does not know it. From RTS or SQD that is harmless,
 *	both take sends anyway; but a QP in RTR receives, and its responder
 *	can fail, so without this input a QP the kernel put in ERR would
 *	refuse sends that must be flushed. The kernel sets NEED_WAKEUP in
 *	the RQ's flags on every entry to ERR and clears it only on the move
 *	to RESET (sroce-abi.h), which makes the flag this input.
 *
 * A stale read in either input only shifts the post to one side of a
 * concurrent state change, as if it had come a little earlier; an error in
 * the refusing direction is never kept: the modify that moved the QP
 * forward returns only after the new state is stored. A process that
 * scribbles over its own RQ flags can only make its own posts wait in the
 * ring, which the kernel does not read before RTS.
 */
#ifndef SROCE_QP_STATE_H
#define SROCE_QP_STATE_H

#include <stdbool.h>

#include <infiniband/verbs.h>

static inline bool sroce_qp_state_takes_sends(enum ibv_qp_state last_set,
					      bool kernel_error)
{
	if (kernel_error)
		return true;
	switch (last_set) {
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
		return true;
	default:
		return false;
	}
}

#endif /* SROCE_QP_STATE_H */
