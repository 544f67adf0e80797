/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce.h - libsroce's objects and the converters from the libibverbs
 * objects embedded in them.
 *
 * Locks, and what each protects (only modify_lock is ever held across a
 * syscall):
 *
 *   sroce_context.qp_lock   (rwlock)   the qp_num -> QP table. Writers:
 *                           create_qp/destroy_qp. Readers: pollers whose
 *                           one-entry cache misses.
 *   sroce_cq.lock           (spinlock) the CQ's consumer index, its poll
 *                           state (ibv_cq_ex between start_poll and
 *                           end_poll) and its last-QP cache; also makes
 *                           the poller the only writer of the `retired`
 *                           index of every queue that completes on it.
 *   sroce_wq.lock           (spinlock, one per SQ, RQ and SRQ) the
 *                           producer side of the ring: `prod`, the slots
 *                           from `prod` on, and for the SQ the ibv_wr_*
 *                           batch state, held from ibv_wr_start() to
 *                           ibv_wr_complete()/ibv_wr_abort().
 *   sroce_qp.modify_lock    (mutex) serializes modify_qp calls of one QP,
 *                           the kernel command included, so that the
 *                           state kept in `state` is the one the kernel
 *                           applied last. Never taken on the data path.
 *
 * Order: a CQ lock may take qp_lock (read); nothing takes a CQ lock while
 * holding qp_lock or a queue lock. destroy_qp removes the QP from the table
 * first, then takes each CQ lock in turn to drop cached pointers to it.
 */
#ifndef SROCE_H
#define SROCE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/sroce-abi.h>

#include "verbs_provider_abi.h"

#define sroce_container_of(ptr, type, member)                                 \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* One sroce ib_device as libibverbs enumerates it. */
struct sroce_device {
	struct verbs_device vdev;
	uint32_t uverbs_abi_version;	/* sysfs abi_version at probe */
};

#define SROCE_QP_TABLE_BUCKETS 256	/* power of two */

struct sroce_qp;

/* An open device: what ibv_open_device() returns, wrapped. */
struct sroce_context {
	struct verbs_context vctx;
	uint32_t max_inline_data;	/* from sroce_alloc_ucontext_resp */
	uint32_t page_shift;		/* for the data path's mmap offsets */
	pthread_rwlock_t qp_lock;	/* protects qp_table (see above) */
	struct sroce_qp *qp_table[SROCE_QP_TABLE_BUCKETS];
};

/* The GET_CONTEXT answer: the core part, then sroce's own. */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

_Static_assert(offsetof(struct sroce_get_context_resp, drv) ==
		       sizeof(struct ib_uverbs_get_context_resp),
	       "driver payload must follow the core response directly");

/* One mmap()ed ring: struct sroce_ring_hdr, then depth entries. */
struct sroce_ring {
	void *map;			/* NULL for an absent queue */
	size_t map_size;
	struct sroce_ring_hdr *hdr;
	uint8_t *entries;		/* map + SROCE_RING_ENTRIES_OFFSET */
	uint32_t depth;			/* power of two, 0 if absent */
	uint32_t stride;		/* bytes per entry, power of two */
};

/*
 * A send or receive queue. Slots are reused when their completion is
 * polled, not when the kernel has read them (sroce-abi.h), so the free
 * space is depth - (prod - retired).
 */
struct sroce_wq {
	struct sroce_ring ring;
	pthread_spinlock_t lock;	/* producer side, see the top */
	/*
	 * Next index to fill; equals ring.hdr->producer outside an ibv_wr_*
	 * batch. Written under lock; pollers read it (relaxed atomic) to
	 * check a CQE's wqe_index.
	 */
	uint32_t prod;
	/*
	 * Every index below this one is completed. Written only by the
	 * poller of this queue's CQ (under that CQ's lock), read with
	 * acquire by producers.
	 */
	uint32_t retired;
	uint32_t max_sge;		/* SGEs that fit in one entry */
};

/* The legacy POST_SEND command with wr_count 0: the SQ doorbell. */
struct sroce_doorbell_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send core_payload;
};

struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_wq sq;
	struct sroce_wq rq;
	uint32_t max_inline_data;	/* bytes, fits in sq stride */
	uint32_t sq_sig_all;		/* SROCE_SEND_SIGNALED or 0 */
	struct sroce_qp *table_next;	/* bucket chain, under qp_lock */

	/* Built once at create; write() only reads it. */
	struct sroce_doorbell_cmd db_cmd;
	struct ib_uverbs_post_send_resp db_resp;	/* kernel scribbles here */

	/* Under sq.lock: for later statistics, nothing exports them yet. */
	uint64_t doorbells_rung;
	uint64_t doorbells_elided;

	/*
	 * The enum ibv_qp_state the last successful modify_qp set: written
	 * under modify_lock, read (relaxed atomic) by post_send and
	 * wr_complete. See sroce_qp_state.h for why it is enough.
	 */
	int state;
	pthread_mutex_t modify_lock;	/* see the top */

	/* ibv_wr_* batch, under sq.lock from wr_start to complete/abort. */
	uint32_t batch_prod;		/* next slot the batch would fill */
	struct sroce_send_wqe *batch_wqe;	/* the WQE being built */
	int batch_err;			/* first error; complete returns it */
};

/*
 * A shared receive queue: one ring, producer side only. Unlike an RQ, a
 * slot is free once the kernel's consumer index has passed it (the kernel
 * keeps its own copy of a WQE it took), so `retired` is unused and
 * completions retire nothing (sroce-abi.h, "Shared receive queues").
 */
struct sroce_srq {
	struct ibv_srq ibsrq;
	struct sroce_wq wq;
};

struct sroce_cq {
	struct verbs_cq vcq;
	struct sroce_ring ring;
	pthread_spinlock_t lock;	/* see the top */
	uint32_t cons;			/* next CQE to read (private copy) */
	struct sroce_qp *last_qp;	/* cache for the qp_num lookup */
	/* ibv_cq_ex polling state: the CQE last returned, copied once. */
	struct sroce_cqe cur;
	bool cur_valid;			/* cur is at cons, not yet consumed */
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return sroce_container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return sroce_container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return sroce_container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_qp *qp_ex_to_sqp(struct ibv_qp_ex *qpx)
{
	return sroce_container_of(qpx, struct sroce_qp, vqp.qp_ex);
}

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return sroce_container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_cq *cq_ex_to_scq(struct ibv_cq_ex *cqx)
{
	return sroce_container_of(cqx, struct sroce_cq, vcq.cq_ex);
}

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return sroce_container_of(ibsrq, struct sroce_srq, ibsrq);
}

/* An address handle: the kernel's index for it goes into UD WQEs. */
struct sroce_ah {
	struct ibv_ah ibah;
	uint32_t index;
};

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return sroce_container_of(ibah, struct sroce_ah, ibah);
}

/* sroce_ah.c */
struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

/* sroce_cq.c */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int sroce_destroy_cq(struct ibv_cq *ibcq);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
void sroce_cq_forget_qp(struct sroce_cq *cq, struct sroce_qp *qp);

/* sroce_poll.c */
int sroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
void sroce_cq_set_ex_ops(struct ibv_cq_ex *cqx);

/* sroce_mr.c */
struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);
int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);

/* sroce_qp.c */
int sroce_qp_table_init(struct sroce_context *sctx);
void sroce_qp_table_fini(struct sroce_context *sctx);
struct sroce_qp *sroce_qp_lookup(struct sroce_context *sctx, uint32_t qpn);
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_destroy_qp(struct ibv_qp *ibqp);

/* sroce_post.c */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int sroce_wq_post_recvs(struct sroce_wq *wq, uint32_t room,
			struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

/* sroce_srq.c */
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/* sroce_wr_ex.c */
void sroce_qp_set_wr_ops(struct ibv_qp_ex *qpx);

#endif /* SROCE_H */
