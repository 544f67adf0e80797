/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * dp.h - harness for the data-path tests: the real libibverbs loads
 * libsroce for a fake device (fake-device.sh), mock_uverbs.so stands in
 * for the kernel, and the helpers below play the kernel's part of the
 * ring protocol (consume WQEs, produce CQEs) through the mock's mapping.
 */
#ifndef SROCE_TEST_DP_H
#define SROCE_TEST_DP_H

#include <infiniband/verbs.h>

#include "mock_uverbs.h"
#include "unit.h"

struct dp_env {
	const struct mock_uverbs_api *mock;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

extern struct dp_env dp;

/* One CQ shared by the SQ and RQ of one RC QP. */
struct fx {
	struct ibv_cq *cq;
	struct mock_cq *kcq;
	struct ibv_qp *qp;
	struct mock_qp *kqp;
	struct ibv_qp_ex *qpx;		/* NULL unless created with send ops */
};

struct fx_opts {
	struct ibv_qp_cap cap;		/* all zero: 8 WRs, 4 SGEs, 64 inline */
	int sq_sig_all;
	bool ex;			/* create_qp_ex with every send op */
	int cqe;			/* 0: 64 */
	enum ibv_qp_type qp_type;	/* 0: IBV_QPT_RC */
};

/*
 * Returns false (with the failure recorded in t) if setup failed. The QP
 * is left in RTS.
 */
bool fx_setup(struct unit_case_state *t, struct fx *f,
	      const struct fx_opts *opts);
/* ibv_modify_qp to state, nothing else; the mock applies it as is. */
int fx_move(struct fx *f, enum ibv_qp_state state);
void fx_teardown(struct fx *f);

/* The kernel's side of the rings. */
uint32_t k_sq_pending(const struct mock_qp *k);
const struct sroce_send_wqe *k_sq_peek(const struct mock_qp *k, uint32_t n);
void k_sq_consume(struct mock_qp *k, uint32_t n);
uint32_t k_rq_pending(const struct mock_qp *k);
const struct sroce_recv_wqe *k_rq_peek(const struct mock_qp *k, uint32_t n);
void k_rq_consume(struct mock_qp *k, uint32_t n);
void k_cq_push(struct mock_cq *c, const struct sroce_cqe *cqe);
/* Consumes every pending send WQE and completes the last one. */
void k_complete_all_sends(struct fx *f);
/* A successful send/recv completion of queue index wqe_index. */
void k_complete(struct fx *f, bool is_recv, uint32_t wqe_index,
		uint64_t wr_id);

/* ibv_post_send of a single WR built from the arguments. */
int post_one(struct fx *f, enum ibv_wr_opcode op, unsigned int flags,
	     uint64_t wr_id);
/* Fills the SQ with unsignaled SENDs; returns how many were accepted. */
uint32_t fill_sq(struct fx *f);
uint32_t fill_rq(struct fx *f);

extern const struct unit_case dp_cq_cases[];
extern const int dp_cq_cases_count;
extern const struct unit_case dp_qp_cases[];
extern const int dp_qp_cases_count;
extern const struct unit_case dp_post_cases[];
extern const int dp_post_cases_count;
extern const struct unit_case dp_wr_ex_cases[];
extern const int dp_wr_ex_cases_count;
extern const struct unit_case dp_threads_cases[];
extern const int dp_threads_cases_count;

/* EXPECT, then leave the case if it failed (nothing to test without it). */
#define REQUIRE(t, cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			unit_fail((t), __FILE__, __LINE__, #cond);             \
			return;                                                \
		}                                                              \
	} while (0)

#define DP_CASES(name, ...)                                                    \
	const struct unit_case name[] = { __VA_ARGS__ };                       \
	const int name##_count = sizeof(name) / sizeof(name[0])

#endif /* SROCE_TEST_DP_H */
