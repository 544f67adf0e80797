/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_qp.h - queue pairs (RC, UC, UD) and their protocol state.
 *
 * Each QP is driven from three contexts: the transmit thread (requester:
 * turning send WQEs into packets, retransmitting, sending READ responses),
 * the UDP receive hook in softirq (responder and completer), and timers.
 * All protocol state of a QP is protected by its one spinlock, taken with
 * bottom halves disabled; the rings and CQs it touches have their own rules.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_caps.h"
#include "sroce_cwnd.h"
#include "sroce_hdr.h"
#include "sroce_net.h"
#include "sroce_outq.h"
#include "sroce_queue.h"

struct sroce_dev;
struct sroce_cq;
struct sroce_mr;
struct sroce_ah_handle;
struct sroce_srq;
struct sroce_ucontext;

/*
 * IB_WR_REG_MR of a kernel QP: an opcode no process can use (sroce-abi.h
 * stops at SROCE_WR_SEND_WITH_INV). The ring WQE carries the new key in
 * atomic.rkey, the iova in atomic.remote_addr, the length in
 * atomic.compare_add and the access flags in the invalidate_rkey word;
 * the MR is the fast-reg MR the key's index names (sroce_post.c).
 */
#define SROCE_WR_KERNEL_REG_MR	0x100

/* Where a send WQE stands. */
enum sroce_swqe_state {
	SROCE_SWQE_QUEUED,	/* copied from the ring, nothing sent yet */
	SROCE_SWQE_SENDING,	/* some packets sent */
	SROCE_SWQE_SENT,	/* every packet sent, waiting for the ACK */
	SROCE_SWQE_DONE,	/* acknowledged; completion may be pending */
};

/**
 * struct sroce_swqe - the kernel's validated copy of one send WQE
 * @wr_id, @opcode, @send_flags: from the WQE
 * @imm_data: immediate data, wire order
 * @remote_addr, @rkey: RDMA or atomic target
 * @compare_add, @swap: atomic operands
 * @length: message length in bytes (sum of the SGEs or the inline length)
 * @num_sge: entries in @sge, 0 for inline
 * @sge: this WQE's slice of the QP's SGE array
 * @inline_data: this WQE's slice of the QP's inline buffer
 * @index: free-running SQ index, reported back in the CQE
 * @state: progress
 * @first_psn, @last_psn: PSN range once the first packet went out
 * @sent: bytes sent so far (requests); bytes received for READ
 * @atomic_orig: original value returned by an atomic
 * @status: completion status, IB_WC_SUCCESS unless it failed
 * @rd_issued: a READ/ATOMIC counted in qp->rd_outstanding
 * @psns_set: first_psn/last_psn are assigned (the WQE went out at least
 *	once); they stay valid across retransmissions
 * @ah, @remote_qpn, @remote_qkey: a UD send's destination (sroce_ud.c);
 *	@ah holds a reference from fetch until the WQE is sent or dropped
 * @reg_access: REG_MR: the access flags; its key is @rkey, its iova
 *	@remote_addr, its length @compare_add. LOCAL_INV and SEND with
 *	invalidate: @rkey is the key to invalidate. BIND_MW: the window's
 *	rights; @rkey names the window, @remote_addr and @compare_add are
 *	its range
 * @bind_new_rkey, @bind_lkey: BIND_MW: the window's new key, the MR
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	__be32 imm_data;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 length;
	u32 num_sge;
	struct sroce_sge *sge;
	u8 *inline_data;
	u32 index;
	enum sroce_swqe_state state;
	u32 first_psn;
	u32 last_psn;
	u32 sent;
	u64 atomic_orig;
	enum ib_wc_status status;
	bool rd_issued;
	bool psns_set;
	struct sroce_ah_handle *ah;
	u32 remote_qpn;
	u32 remote_qkey;
	int reg_access;
	u32 bind_new_rkey;
	u32 bind_lkey;
};

/*
 * A READ or ATOMIC the responder accepted (IRD resources), kept after it is
 * answered so a duplicate request can be answered again. @va, @rkey and
 * @length are the request's (an ATOMIC's: its AtomicETH, 8 bytes), which a
 * duplicate must repeat.
 */
struct sroce_rd_res {
	u8 opcode;
	u32 first_psn;
	u32 last_psn;
	u64 va;
	u32 rkey;
	u32 length;
	u32 sent;		/* READ response bytes already sent */
	u64 atomic_orig;	/* ATOMIC result, replayed for duplicates */
	bool pending;		/* responses still to send */
	bool valid;		/* holds a request: a zeroed slot matches no PSN */
};

/*
 * What the QPN table points to, allocated apart from the QP because ib_core
 * frees the QP as soon as destroy_qp returns, with no grace period. A
 * lookup may load the handle just before destroy unpublishes it; the handle
 * is freed with kfree_rcu(), so that lookup's refcount_inc_not_zero() still
 * reads live memory, fails once @refs reached zero, and never touches the
 * QP. Destroy itself does not wait for the grace period.
 */
struct sroce_qp_handle {
	refcount_t refs;	/* the table's plus every lookup's */
	struct sroce_qp *qp;	/* set before publication, never changed */
	struct list_head gsi_entry;	/* GSI QPs: on sroce_ud.c's list */
	struct rcu_head rcu;
};

/* Receive in progress: the validated copy of the RQ WQE being filled. */
struct sroce_rwqe {
	u64 wr_id;
	u32 index;
	u32 num_sge;
	u32 length;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

/**
 * struct sroce_qp - a queue pair: RC, UC, UD or GSI
 * @ibqp: ib_core's part
 * @sdev: owning device
 * @handle: what the QPN table holds; its refcount counts the table's
 *	reference and the lookups from the receive path and the thread
 * @released: completed when the last reference goes, so destroy can wait
 * @modify_mutex: serialises modify_qp calls, so one call's check of the
 *	current state and its update are not interleaved with another's (the
 *	data path can still move the QP to ERR under @lock meanwhile)
 * @local_out: packets this QP sent to a QP of this host, waiting for
 *	delivery; its own lock (sroce_outq.h), appended under @lock
 * @local_entry: on the senders list of the CPU holding @local_out's claim;
 *	only that CPU touches it (sroce_local.c)
 * @kernel: created by a kernel consumer: its rings are never mapped, and
 *	post_send/post_recv write them (sroce_post.c)
 * @sq_post_lock, @rq_post_lock: kernel QPs: serialise the producers of the
 *	SQ and RQ ring (the consumer's part is the engine's, under @lock);
 *	taken irqsave, since ULPs post with IRQs off
 * @lock: protects everything below it
 * @state: IB QP state
 * @attr: modify_qp attributes in force (path MTU, PSNs, timers, AV, ...)
 * @mtu: path MTU in bytes
 * @sq, @rq: the shared rings
 * @swqes: kernel copies of fetched send WQEs, sq.depth entries
 * @sges: SGE storage for @swqes; @inline_buf: inline data storage
 * @comp_index: oldest send WQE not yet completed
 * @req_index: send WQE the requester is working on
 * @req_psn: next PSN the requester sends
 * @req_psn_max: one past the highest PSN ever sent; after a rewind
 *	req_psn is lower, but ACKs up to here are still valid
 * @req_unasked: packets sent since the last one with AckReq
 * @req_asked_psn: one past the last PSN sent with AckReq; once comp_psn
 *	reaches it the responder owes no ACK (sroce_ackreq.h)
 * @comp_psn: oldest PSN not yet acknowledged: where a retry resumes
 * @comp_retry_pending: a retry from comp_psn was started because responses
 *	went missing; cleared by progress, so one loss causes one retry
 * @cwnd: congestion window over packets in flight (sroce_cwnd.h)
 * @rd_outstanding: READs and ATOMICs sent and not answered (<= max_rd_atomic)
 * @retry_left, @rnr_retry_left: budgets of the current attempt
 * @rnr_wait: true while backing off after an RNR NAK
 * @retry_timer: local ACK timeout and RNR backoff
 * @resp_psn: responder's expected PSN; @resp_msn: messages completed
 * @resp_nak_sent: a sequence NAK is out for resp_psn; send no other
 * @rwqe, @rwqe_valid: receive being filled by a multi-packet SEND
 * @resp_write_*: the WRITE being placed by a multi-packet RDMA WRITE
 * @rd_res: ring of IRD resources, @rd_res_head (oldest) .. tail
 * @tx_entry: on the device's active transmit list (sroce_tx.active) while
 *	@tx_listed; sroce_tx.lock
 * @tx_listed: the thread polls this QP; its SQ's NEED_WAKEUP may be clear
 *	only while this is true; sroce_tx.lock
 * @tx_kicked: work was handed to the thread since its last visit here;
 *	sroce_tx.lock
 * @tx_worked_ns: when the thread last found work here or a kick; thread only
 * @tx_pending: the transmit thread has work here beyond the SQ ring
 * @src_port: UDP source port, derived from the QPN for flow entropy
 * @av: where packets go (set by modify_qp with IB_QP_AV)
 * @resp_last_flags: opcode flags of the last request accepted, to check
 *	that FIRST/MIDDLE/LAST arrive in a legal order
 * @sqd_notify: SQD was entered with en_sqd_async_notify and the
 *	IB_EVENT_SQ_DRAINED it asked for is not delivered yet
 * @uctx, @ud_entry: a UD QP's process and its entry on the process's UD
 *	QP list (sroce_ud.c); @uctx is NULL for other QPs
 * @srq: the SRQ receive WQEs come from, or NULL (then the RQ); set at
 *	create, never changed (ib_core keeps the SRQ while the QP lives)
 * @last_wqe_reported: SRQ QPs: IB_EVENT_QP_LAST_WQE_REACHED went out for
 *	this stay in the error state; cleared by RESET; @lock
 * @kpost_ahs: kernel UD and GSI QPs: per SQ slot, the AH its posted WQE
 *	sends to, referenced by the post and taken over by the fetch
 *	(sroce_ud.c); exchanged atomically, never under a lock of its own
 * @num_mcast: groups a UD QP is attached to (sroce_mcast.c, its lock)
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *sdev;
	struct sroce_qp_handle *handle;
	struct completion released;
	struct mutex modify_mutex;
	struct sroce_outq local_out;
	struct list_head local_entry;
	bool kernel;
	spinlock_t sq_post_lock;
	spinlock_t rq_post_lock;

	spinlock_t lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	u32 mtu;
	struct sroce_queue sq;
	struct sroce_queue rq;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	bool sq_sig_all;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;

	struct sroce_swqe *swqes;
	struct sroce_sge *sges;
	u8 *inline_buf;
	u32 comp_index;
	u32 req_index;
	u32 req_psn;
	u32 req_psn_max;
	u32 req_unasked;
	u32 req_asked_psn;
	u32 comp_psn;
	bool comp_retry_pending;
	struct sroce_cwnd cwnd;
	u32 rd_outstanding;
	u32 retry_left;
	u32 rnr_retry_left;
	bool rnr_wait;
	struct timer_list retry_timer;

	u32 resp_psn;
	u32 resp_msn;
	bool resp_nak_sent;
	bool rwqe_valid;
	struct sroce_rwqe rwqe;
	u32 rwqe_offset;
	u32 resp_write_rkey;
	u64 resp_write_va;
	u32 resp_write_left;
	u32 resp_write_len;
	struct sroce_rd_res *rd_res;
	u32 rd_res_count;
	u32 rd_res_head;
	u32 rd_res_tail;

	struct list_head tx_entry;
	bool tx_listed;
	bool tx_kicked;
	u64 tx_worked_ns;
	bool tx_pending;
	u16 src_port;
	struct sroce_av av;
	u32 resp_last_flags;
	bool sqd_notify;

	struct sroce_ucontext *uctx;
	struct list_head ud_entry;
	struct sroce_ah_handle **kpost_ahs;
	u32 num_mcast;
	struct sroce_srq *srq;
	bool last_wqe_reported;
};

/* READs and ATOMICs: answered by their own responses, limited by ORD. */
static inline bool sroce_wr_is_rd_atomic(u32 opcode)
{
	return opcode == SROCE_WR_RDMA_READ ||
	       opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/* Executed by the requester in its turn, without a packet or a PSN. */
static inline bool sroce_wr_is_local(u32 opcode)
{
	return opcode == SROCE_WR_KERNEL_REG_MR || opcode == SROCE_WR_LOCAL_INV ||
	       opcode == SROCE_WR_BIND_MW;
}

static inline bool sroce_wr_is_atomic(u32 opcode)
{
	return opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/* A WQE that cannot run or failed: it completes in error in its turn. */
static inline void sroce_swqe_fail(struct sroce_swqe *swqe,
				   enum ib_wc_status status)
{
	swqe->status = status;
	swqe->state = SROCE_SWQE_DONE;
}

/* Datagram QPs: UD, and the GSI QP, which is UD on the wire. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* Unreliable connected: RC's packets without responses (sroce_uc.h). */
static inline bool sroce_qp_is_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

/* The transport bits of every opcode a connected QP sends and takes. */
static inline u8 sroce_qp_transport(const struct sroce_qp *qp)
{
	return sroce_qp_is_uc(qp) ? SROCE_TRANSPORT_UC : SROCE_TRANSPORT_RC;
}

/*
 * The PD a receive WQE's lkeys must belong to: a QP on an SRQ takes the
 * SRQ's WQEs, which belong to the SRQ's PD (the QP's may differ).
 */
static inline struct ib_pd *sroce_qp_recv_pd(const struct sroce_qp *qp)
{
	return qp->ibqp.srq ? qp->ibqp.srq->pd : qp->ibqp.pd;
}

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

struct sroce_qp *sroce_qp_get(u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* Another reference for a caller that holds one already. */
static inline void sroce_qp_hold(struct sroce_qp *qp)
{
	refcount_inc(&qp->handle->refs);
}

/*
 * A reference on a QP found where destroy unlinks it only after the last
 * reference is gone (the transmit thread's active list): false once
 * destroy has started.
 */
static inline bool sroce_qp_tryget(struct sroce_qp *qp)
{
	return refcount_inc_not_zero(&qp->handle->refs);
}
void sroce_qp_error_locked(struct sroce_qp *qp);
/* Deliver an affiliated async event to the QP's owner; any context. */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
/* In SQD: deliver IB_EVENT_SQ_DRAINED once nothing started is outstanding. */
void sroce_qp_sqd_check_locked(struct sroce_qp *qp);

/* ib_device_ops */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
bool sroce_qp_state_transition_valid(enum ib_qp_type type,
				     enum ib_qp_state cur,
				     enum ib_qp_state next, int mask);
int sroce_qp_commit_modify_locked(struct sroce_qp *qp,
				  const struct ib_qp_attr *attr, int mask,
				  enum ib_qp_state cur, enum ib_qp_state next,
				  const struct sroce_av *av,
				  struct sroce_rd_res **rd_res);
#endif

#endif /* SROCE_QP_H */
