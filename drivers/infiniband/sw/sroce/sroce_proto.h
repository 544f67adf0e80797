/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_proto.h - the RC protocol engine's entry points.
 *
 *   requester (sroce_req.c)   send WQEs -> request packets; transmit thread
 *   responder (sroce_resp.c)  request packets -> memory, ACK/NAK, READ and
 *                             ATOMIC responses; softirq (+ transmit thread
 *                             for multi-packet READ responses)
 *   completer (sroce_comp.c)  responses -> CQEs, retransmission; softirq
 *                             and the retry timer
 *
 * Functions ending in _locked run with qp->lock held.
 */
#ifndef SROCE_PROTO_H
#define SROCE_PROTO_H

#include <linux/skbuff.h>
#include <linux/timer.h>
#include <rdma/ib_verbs.h>

#include "sroce_hdr.h"

struct sroce_cqe;
struct sroce_qp;
struct sroce_queue;
struct sroce_rwqe;
struct sroce_swqe;

/* sroce_req.c */
bool sroce_req_run(struct sroce_qp *qp);
void sroce_req_rewind_locked(struct sroce_qp *qp, u32 psn);
void sroce_req_resume_at_comp_locked(struct sroce_qp *qp);
void sroce_sq_flush_locked(struct sroce_qp *qp);
void sroce_sq_fetch_locked(struct sroce_qp *qp);
struct sk_buff *sroce_req_build(struct sroce_hdrs *h);
int sroce_req_gather(struct sroce_qp *qp, struct sroce_swqe *swqe,
		     u32 offset, void *dst, u32 len);

/**
 * sroce_read_resp_len_ok - may a READ response carry the READ's next part?
 * @flags: the response's opcode flags
 * @len: its payload length
 * @mtu: the path MTU in bytes
 * @left: bytes of the READ not yet received
 *
 * Every response but the last carries exactly one path MTU and none more,
 * the packet-length rule requests follow too (IBA 9.7.4.1.4): a longer
 * LAST or ONLY is a bad response, not extra data to place.
 */
static inline bool sroce_read_resp_len_ok(u32 flags, u32 len, u32 mtu,
					  u32 left)
{
	if (len > left || len > mtu)
		return false;
	return (flags & SROCE_OPF_LAST) || len == mtu;
}

/* sroce_comp.c */
bool sroce_comp_rcv(struct sroce_qp *qp, const struct sroce_hdrs *h,
		    const u8 *payload);
bool sroce_comp_rcv_run(struct sroce_qp *qp, const struct sroce_hdrs *first,
			const struct sroce_hdrs *last, u32 pkts,
			const u8 *payload, u32 len);
void sroce_comp_retry_timeout(struct timer_list *t);
void sroce_comp_arm_timer_locked(struct sroce_qp *qp);
void sroce_complete_swqe_locked(struct sroce_qp *qp, struct sroce_swqe *swqe);
void sroce_comp_advance_locked(struct sroce_qp *qp);
bool sroce_comp_ask_tail_locked(struct sroce_qp *qp);

/* sroce_resp.c */
bool sroce_resp_rcv(struct sroce_qp *qp, const struct sroce_hdrs *h,
		    const u8 *payload);
bool sroce_resp_rcv_run(struct sroce_qp *qp, const struct sroce_hdrs *first,
			const struct sroce_hdrs *last, u32 pkts,
			const u8 *payload, u32 len);
bool sroce_resp_rcv_unsupported(struct sroce_qp *qp, const struct sroce_hdrs *h);
bool sroce_resp_send_reads_locked(struct sroce_qp *qp, int *budget);
void sroce_rq_flush_locked(struct sroce_qp *qp);
int sroce_resp_fetch_rwqe(struct sroce_qp *qp);
int sroce_rwqe_take(struct sroce_queue *q, u32 max_sge, struct sroce_rwqe *rwqe);
void sroce_resp_post_rwqe_cqe(struct sroce_qp *qp, const struct sroce_hdrs *h,
			      struct sroce_cqe *cqe);
void sroce_resp_reset_locked(struct sroce_qp *qp);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
struct sroce_rd_res *sroce_resp_new_rd_res(struct sroce_qp *qp);
bool sroce_resp_dup_read_matches(const struct sroce_rd_res *res, u32 psn,
				 const struct sroce_reth *reth, u32 mtu);
bool sroce_resp_dup_atomic_matches(const struct sroce_rd_res *res,
				   const struct sroce_hdrs *h);
struct sroce_rd_res *sroce_resp_find_rd_res(struct sroce_qp *qp, u32 psn,
					    u32 *pos);
#endif

#endif /* SROCE_PROTO_H */
