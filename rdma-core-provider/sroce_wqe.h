/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_wqe.h - encoding send WQEs in place in the SQ ring, shared by
 * ibv_post_send() (sroce_post.c) and the ibv_wr_* API (sroce_wr_ex.c),
 * and publishing them with the NEED_WAKEUP doorbell rule.
 *
 * A WQE is built in its ring slot before the producer index covers it, so
 * the kernel never sees a half-built one; a failed build simply leaves the
 * slot to be overwritten.
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include "sroce.h"

/* What a work request opcode needs besides its SGEs. */
enum sroce_wr_target {
	SROCE_TARGET_NONE,	/* sends */
	SROCE_TARGET_RDMA,	/* remote_addr + rkey */
	SROCE_TARGET_ATOMIC,	/* remote_addr + rkey + operands */
	SROCE_TARGET_INV,	/* invalidate_rkey, and SGEs for a send */
	SROCE_TARGET_LOCAL_INV,	/* invalidate_rkey only: no SGEs */
	SROCE_TARGET_BIND,	/* a window bind: no SGEs */
};

struct sroce_send_opdef {
	bool supported;
	bool may_inline;	/* the payload is local data the WQE can carry */
	enum sroce_wr_target target;
};

/* NULL if sroce cannot post this ibv_wr_opcode. */
const struct sroce_send_opdef *sroce_send_opdef(unsigned int opcode);

/*
 * Zeroes the header and sets wr_id, opcode and flags (plus SIGNALED for
 * sq_sig_all QPs). EINVAL for a flag sroce does not know.
 */
int sroce_wqe_init(const struct sroce_qp *qp, struct sroce_send_wqe *wqe,
		   uint64_t wr_id, unsigned int opcode, unsigned int flags);

void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint32_t rkey,
			uint64_t remote_addr);
void sroce_wqe_set_atomic(struct sroce_send_wqe *wqe, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap);

/*
 * A window bind (sroce-abi.h, "Memory windows"): @mw gets @rkey over
 * @info's range of @info->mr (no MR: a type 1 unbind). EINVAL without a
 * window, or with neither an MR nor a zero range.
 */
int sroce_wqe_set_bind(struct sroce_send_wqe *wqe, const struct ibv_mw *mw,
		       uint32_t rkey, const struct ibv_mw_bind_info *info);

/* A UD send's destination; checked by sroce_wqe_check_qp_type(). */
void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey);

/*
 * On a UD QP only sends with a destination, on a UC QP only sends and
 * RDMA writes (no READ, no atomics): EINVAL otherwise.
 */
int sroce_wqe_check_qp_type(const struct sroce_qp *qp,
			    const struct sroce_send_wqe *wqe);

/* EINVAL if there are more SGEs than the QP's entries hold. */
int sroce_wqe_set_sges(const struct sroce_qp *qp, struct sroce_send_wqe *wqe,
		       const struct ibv_sge *sg, size_t num_sge);

/* Appends inline payload; EINVAL past max_inline_data. */
int sroce_wqe_add_inline(const struct sroce_qp *qp,
			 struct sroce_send_wqe *wqe, const void *addr,
			 size_t length);

/* Last checks once a WQE is complete (atomic operand shape). */
int sroce_wqe_check(const struct sroce_send_wqe *wqe);

/*
 * Publishes the SQ up to prod and decides about the doorbell; call with
 * sq.lock held. True means: call sroce_sq_ring_doorbell() after unlocking.
 */
bool sroce_sq_publish(struct sroce_qp *qp, uint32_t prod);

/* The write() that wakes the kernel. Returns 0 or an errno. */
int sroce_sq_ring_doorbell(struct sroce_qp *qp);

#endif /* SROCE_WQE_H */
