// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp.c - the data-path test harness (see dp.h) and its main(): opens the
 * fake sroce0 once, then runs every case of test_dp_*.c against it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "dp.h"

struct dp_env dp;

#define FX_QP_EX_OPS                                                           \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                  \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |      \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |        \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static struct ibv_qp *fx_create_qp(struct fx *f, const struct fx_opts *o)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.cap = o->cap,
		.qp_type = o->qp_type ? o->qp_type : IBV_QPT_RC,
		.sq_sig_all = o->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = dp.pd,
	};

	if (!attr.cap.max_send_wr) {
		attr.cap = (struct ibv_qp_cap){ .max_send_wr = 8,
						.max_recv_wr = 8,
						.max_send_sge = 4,
						.max_recv_sge = 4,
						.max_inline_data = 64 };
	}
	if (o->ex) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = FX_QP_EX_OPS;
	}
	return ibv_create_qp_ex(dp.ctx, &attr);
}

bool fx_setup(struct unit_case_state *t, struct fx *f,
	      const struct fx_opts *opts)
{
	static const struct fx_opts defaults;

	if (!opts)
		opts = &defaults;
	memset(f, 0, sizeof(*f));
	f->cq = ibv_create_cq(dp.ctx, opts->cqe ? opts->cqe : 64, NULL, NULL, 0);
	EXPECT(t, f->cq != NULL);
	if (!f->cq)
		return false;
	f->kcq = dp.mock->cq(f->cq->handle);
	f->qp = fx_create_qp(f, opts);
	EXPECT(t, f->qp != NULL);
	if (!f->qp) {
		ibv_destroy_cq(f->cq);
		return false;
	}
	f->kqp = dp.mock->qp(f->qp->qp_num);
	f->qpx = ibv_qp_to_qp_ex(f->qp);
	/* The mock takes any state at once; posts need RTS. */
	EXPECT(t, fx_move(f, IBV_QPS_RTS) == 0);
	return true;
}

int fx_move(struct fx *f, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	return ibv_modify_qp(f->qp, &attr, IBV_QP_STATE);
}

void fx_teardown(struct fx *f)
{
	if (f->qp)
		ibv_destroy_qp(f->qp);
	if (f->cq)
		ibv_destroy_cq(f->cq);
}

/* --- the kernel's side -------------------------------------------------- */

static uint32_t k_acquire(const __u32 *index)
{
	return __atomic_load_n(index, __ATOMIC_ACQUIRE);
}

static void k_release(__u32 *index, uint32_t value)
{
	__atomic_store_n(index, value, __ATOMIC_RELEASE);
}

static void *k_entry(const struct mock_ring *r, uint32_t index)
{
	return r->entries + (size_t)(index & (r->depth - 1)) * r->stride;
}

uint32_t k_sq_pending(const struct mock_qp *k)
{
	return k_acquire(&k->sq.hdr->producer) - k->sq.hdr->consumer;
}

const struct sroce_send_wqe *k_sq_peek(const struct mock_qp *k, uint32_t n)
{
	return k_entry(&k->sq, k->sq.hdr->consumer + n);
}

void k_sq_consume(struct mock_qp *k, uint32_t n)
{
	k_release(&k->sq.hdr->consumer, k->sq.hdr->consumer + n);
}

uint32_t k_rq_pending(const struct mock_qp *k)
{
	return k_acquire(&k->rq.hdr->producer) - k->rq.hdr->consumer;
}

const struct sroce_recv_wqe *k_rq_peek(const struct mock_qp *k, uint32_t n)
{
	return k_entry(&k->rq, k->rq.hdr->consumer + n);
}

void k_rq_consume(struct mock_qp *k, uint32_t n)
{
	k_release(&k->rq.hdr->consumer, k->rq.hdr->consumer + n);
}

void k_cq_push(struct mock_cq *c, const struct sroce_cqe *cqe)
{
	uint32_t prod = c->ring.hdr->producer;

	memcpy(k_entry(&c->ring, prod), cqe, sizeof(*cqe));
	k_release(&c->ring.hdr->producer, prod + 1);
}

void k_complete(struct fx *f, bool is_recv, uint32_t wqe_index,
		uint64_t wr_id)
{
	struct sroce_cqe cqe = {
		.wr_id = wr_id,
		.opcode = is_recv ? SROCE_WC_RECV : SROCE_WC_SEND,
		.qp_num = f->qp->qp_num,
		.wqe_index = wqe_index,
		.is_recv = is_recv,
	};

	k_cq_push(f->kcq, &cqe);
}

void k_complete_all_sends(struct fx *f)
{
	uint32_t n = k_sq_pending(f->kqp);
	uint32_t last = f->kqp->sq.hdr->consumer + n - 1;

	k_sq_consume(f->kqp, n);
	k_complete(f, false, last, 0);
}

/* --- posting helpers ---------------------------------------------------- */

static uint64_t payload[64];

int post_one(struct fx *f, enum ibv_wr_opcode op, unsigned int flags,
	     uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)payload, 8, 0x77 };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(f->qp, &wr, &bad);
}

uint32_t fill_sq(struct fx *f)
{
	uint32_t n = 0;

	while (n < 1024 && !post_one(f, IBV_WR_SEND, 0, n))
		n++;
	return n;
}

uint32_t fill_rq(struct fx *f)
{
	struct ibv_recv_wr wr = { .num_sge = 0 }, *bad;
	uint32_t n = 0;

	while (n < 1024 && !ibv_post_recv(f->qp, &wr, &bad))
		wr.wr_id = ++n;
	return n;
}

/* --- main --------------------------------------------------------------- */

static struct ibv_context *open_sroce0(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "sroce0"))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* "--count": print how many case lines a run prints, run nothing. */
int main(int argc, char **argv)
{
	const struct mock_uverbs_api *(*api)(void);
	int failures = 0;

	if (argc > 1 && !strcmp(argv[1], "--count")) {
		printf("%d\n", dp_cq_cases_count + dp_qp_cases_count +
		       dp_post_cases_count + dp_wr_ex_cases_count +
		       dp_threads_cases_count);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);	/* a crash keeps earlier lines */
	api = (const struct mock_uverbs_api *(*)(void))dlsym(RTLD_DEFAULT,
							     "mock_uverbs_api");
	if (!api) {
		printf("provider\tdatapath_harness\tFAIL\tmock_uverbs.so not preloaded\n");
		return 2;
	}
	dp.mock = api();
	dp.ctx = open_sroce0();
	dp.pd = dp.ctx ? ibv_alloc_pd(dp.ctx) : NULL;
	if (!dp.pd) {
		printf("provider\tdatapath_harness\tFAIL\topen/alloc_pd: %s\n",
		       strerror(errno));
		return 2;
	}
	failures += unit_run(dp_cq_cases, dp_cq_cases_count);
	failures += unit_run(dp_qp_cases, dp_qp_cases_count);
	failures += unit_run(dp_post_cases, dp_post_cases_count);
	failures += unit_run(dp_wr_ex_cases, dp_wr_ex_cases_count);
	failures += unit_run(dp_threads_cases, dp_threads_cases_count);
	ibv_dealloc_pd(dp.pd);
	ibv_close_device(dp.ctx);
	return failures ? 1 : 0;
}
