/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mock_uverbs.h - what a test sees of the mock kernel (mock_uverbs.c,
 * mock_objects.c): the objects it created, the rings it shares with the
 * provider (through its own mapping of the same memory), and counters.
 *
 * The mock is LD_PRELOADed; a test finds the API with
 * dlsym(RTLD_DEFAULT, "mock_uverbs_api") so it does not link against it.
 */
#ifndef MOCK_UVERBS_H
#define MOCK_UVERBS_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#define MOCK_MAX_OBJECTS 32

/* The kernel's view of one ring. */
struct mock_ring {
	struct sroce_ring_hdr *hdr;
	uint8_t *entries;
	uint32_t depth;
	uint32_t stride;
	uint64_t offset;	/* in the mock's memfd = the mmap offset */
	uint64_t size;
};

struct mock_cq {
	bool alive;
	uint32_t handle;
	struct mock_ring ring;
	unsigned int notify_calls;
	uint32_t last_solicited_only;
	unsigned int resizes;		/* RESIZE_CQ commands that succeeded */
};

struct mock_qp {
	bool alive;
	uint32_t handle;
	uint32_t qpn;
	uint32_t send_cq;		/* handles */
	uint32_t recv_cq;
	uint32_t sq_sig_all;
	uint32_t state;			/* last IBV_QPS_* set by modify */
	struct ib_uverbs_qp_cap granted;	/* the core response's caps */
	struct mock_ring sq;
	struct mock_ring rq;
	unsigned int doorbells;		/* POST_SEND write()s for this QP */
	struct ib_uverbs_cmd_hdr last_db_hdr;
	struct ib_uverbs_post_send last_db;
};

struct mock_mr {
	bool alive;
	struct ib_uverbs_reg_mr req;
	struct ib_uverbs_rereg_mr rereg;	/* the last REREG_MR request */
	uint32_t lkey;
	uint32_t rkey;
};

/* Fault injection for the next create: how its driver response lies. */
enum mock_lie {
	MOCK_TELL_TRUTH,
	MOCK_LIE_DEPTH_NOT_POW2,
	MOCK_LIE_MAPPING_TOO_SHORT,
	MOCK_LIE_RESERVED_SET,
};

struct mock_uverbs_api {
	struct mock_cq *(*cq)(uint32_t handle);
	struct mock_qp *(*qp)(uint32_t qpn);
	struct mock_mr *(*mr)(uint32_t lkey);
	/* write() commands seen, by IB_USER_VERBS_CMD_* number */
	unsigned int (*commands)(uint32_t command);
	/* provider mappings of mock rings not yet munmap()ed */
	unsigned int (*live_mappings)(void);
	/* rings created from now on start their indices here */
	void (*set_ring_start)(uint32_t index);
	void (*lie_next_create)(enum mock_lie lie);
};

const struct mock_uverbs_api *mock_uverbs_api(void);

#endif /* MOCK_UVERBS_H */
