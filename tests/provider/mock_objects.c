// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mock_objects.c - the data-path half of the mock kernel: CQs, QPs and
 * MRs answered the way sroce.ko answers them (sroce-abi.h), ring memory
 * in one memfd that the provider maps through an mmap() interposer, and
 * the test API of mock_uverbs.h.
 *
 * Geometry follows the ABI: CQ depth is the power of two >= cqe (all of it
 * reported as the CQ's cqe); a
 * queue's depth is the power of two >= its max_*_wr; the send stride fits
 * the requested SGEs or inline bytes after the 64-byte header.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mock_private.h"

#define MOCK_MAX_INLINE 256
#define MOCK_PAGE 4096ULL

static struct mock_cq cqs[MOCK_MAX_OBJECTS];
static struct mock_qp qps[MOCK_MAX_OBJECTS];
static struct mock_mr mrs[MOCK_MAX_OBJECTS];
static uint32_t ring_start;
static enum mock_lie next_lie;

/* --- ring memory -------------------------------------------------------- */

static int memfd = -1;
static uint64_t memfd_size;

/* Provider mappings of the memfd, to prove destroy unmaps them. */
static struct {
	void *addr;
	size_t len;
} maps[4 * MOCK_MAX_OBJECTS];

static void *raw_mmap(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Carves a ring out of the memfd and maps the kernel's view of it. */
static int mock_ring_create(struct mock_ring *ring, uint32_t depth,
			    uint32_t stride)
{
	uint64_t size = SROCE_RING_ENTRIES_OFFSET + (uint64_t)depth * stride;
	uint64_t span = (size + MOCK_PAGE - 1) & ~(MOCK_PAGE - 1);
	void *map;

	if (memfd < 0)
		memfd = memfd_create("mock-uverbs-rings", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, memfd_size + span))
		return ENOMEM;
	map = raw_mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
		       memfd_size);
	if (map == MAP_FAILED)
		return ENOMEM;
	ring->hdr = map;
	ring->entries = (uint8_t *)map + SROCE_RING_ENTRIES_OFFSET;
	ring->depth = depth;
	ring->stride = stride;
	ring->offset = memfd_size;
	ring->size = size;
	ring->hdr->producer = ring_start;
	ring->hdr->consumer = ring_start;
	memfd_size += span;
	return 0;
}

static void record_map(void *addr, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		if (!maps[i].addr) {
			maps[i].addr = addr;
			maps[i].len = len;
			return;
		}
	}
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *map;

	if (fd < 0 || !mock_is_fake_uverbs(fd))
		return raw_mmap(addr, len, prot, flags, fd, off);
	/* The kernel only maps what it handed out. */
	if (off < 0 || (uint64_t)off + len > memfd_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	map = raw_mmap(addr, len, prot, flags, memfd, off);
	if (map != MAP_FAILED)
		record_map(map, len);
	return map;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].addr == addr && maps[i].len == len)
			maps[i].addr = NULL;
	return (int)syscall(SYS_munmap, addr, len);
}

/* Applies the fault the test asked for to a driver response's fields. */
static void mock_lie(__u32 *depth, __u64 *size, __u32 *reserved)
{
	switch (next_lie) {
	case MOCK_LIE_DEPTH_NOT_POW2:
		*depth = *depth - 1;
		break;
	case MOCK_LIE_MAPPING_TOO_SHORT:
		*size = *size - 1;
		break;
	case MOCK_LIE_RESERVED_SET:
		*reserved = 1;
		break;
	case MOCK_TELL_TRUTH:
		break;
	}
	next_lie = MOCK_TELL_TRUTH;
}

/* --- CQ ----------------------------------------------------------------- */

int mock_create_cq(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_create_cq_resp core = { 0 };
	struct sroce_create_cq_resp drv = { 0 };
	struct ib_uverbs_create_cq req;
	uint8_t *out = mock_response_of(hdr);
	struct mock_cq *cq;
	uint32_t i;

	memcpy(&req, hdr + 1, sizeof(req));
	if (hdr->out_words * 4u < sizeof(core) + sizeof(drv))
		return EINVAL;
	for (i = 0; i < MOCK_MAX_OBJECTS && cqs[i].alive; i++)
		;
	if (i == MOCK_MAX_OBJECTS)
		return ENOMEM;
	cq = &cqs[i];
	memset(cq, 0, sizeof(*cq));
	if (mock_ring_create(&cq->ring, pow2_at_least(req.cqe),
			     sizeof(struct sroce_cqe)))
		return ENOMEM;
	cq->alive = true;
	cq->handle = i + 1;

	core.cq_handle = cq->handle;
	core.cqe = cq->ring.depth;
	drv.mmap_offset = cq->ring.offset;
	drv.mmap_size = cq->ring.size;
	drv.depth = cq->ring.depth;
	mock_lie(&drv.depth, &drv.mmap_size, &drv.reserved);
	memcpy(out, &core, sizeof(core));
	memcpy(out + sizeof(core), &drv, sizeof(drv));
	return 0;
}

static struct mock_cq *mock_cq_get(uint32_t handle)
{
	if (handle < 1 || handle > MOCK_MAX_OBJECTS || !cqs[handle - 1].alive)
		return NULL;
	return &cqs[handle - 1];
}

int mock_destroy_cq(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_destroy_cq_resp resp = { 0 };
	struct ib_uverbs_destroy_cq req;
	struct mock_cq *cq;

	memcpy(&req, hdr + 1, sizeof(req));
	cq = mock_cq_get(req.cq_handle);
	if (!cq)
		return EINVAL;
	cq->alive = false;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

/*
 * As sroce.ko resizes (sroce-abi.h, "Resizing a CQ"): a new ring holding
 * the unreleased CQEs at their own indices, or EINVAL if there are more
 * than the cqe asked for.
 */
int mock_resize_cq(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_resize_cq_resp core = { 0 };
	struct sroce_create_cq_resp drv = { 0 };
	struct ib_uverbs_resize_cq req;
	uint8_t *out = mock_response_of(hdr);
	struct mock_ring ring;
	struct mock_cq *cq;
	uint32_t cons, prod, i;

	memcpy(&req, hdr + 1, sizeof(req));
	cq = mock_cq_get(req.cq_handle);
	if (!cq || req.cqe < 1 || hdr->out_words * 4u < sizeof(core) + sizeof(drv))
		return EINVAL;
	cons = cq->ring.hdr->consumer;
	prod = cq->ring.hdr->producer;
	if (prod - cons > req.cqe)
		return EINVAL;
	if (mock_ring_create(&ring, pow2_at_least(req.cqe),
			     sizeof(struct sroce_cqe)))
		return ENOMEM;
	for (i = cons; i != prod; i++)
		memcpy(ring.entries + (i & (ring.depth - 1)) * ring.stride,
		       cq->ring.entries + (i & (cq->ring.depth - 1)) * ring.stride,
		       ring.stride);
	ring.hdr->consumer = cons;
	ring.hdr->producer = prod;
	cq->ring = ring;
	cq->resizes++;

	core.cqe = ring.depth;
	drv.mmap_offset = ring.offset;
	drv.mmap_size = ring.size;
	drv.depth = ring.depth;
	mock_lie(&drv.depth, &drv.mmap_size, &drv.reserved);
	memcpy(out, &core, sizeof(core));
	memcpy(out + sizeof(core), &drv, sizeof(drv));
	return 0;
}

int mock_req_notify_cq(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_req_notify_cq req;
	struct mock_cq *cq;

	memcpy(&req, hdr + 1, sizeof(req));
	cq = mock_cq_get(req.cq_handle);
	if (!cq)
		return EINVAL;
	cq->notify_calls++;
	cq->last_solicited_only = req.solicited_only;
	return 0;
}

/* --- QP ----------------------------------------------------------------- */

static uint32_t send_stride(uint32_t sges, uint32_t inline_bytes)
{
	uint32_t payload = sges * sizeof(struct sroce_sge);

	if (inline_bytes > payload)
		payload = inline_bytes;
	return pow2_at_least(sizeof(struct sroce_send_wqe) + payload);
}

/* Rounds the request up the way sroce.ko does and makes both rings. */
static int mock_qp_rings(struct mock_qp *qp, const struct ib_uverbs_create_qp *req)
{
	uint32_t send_sge = req->max_send_sge ? req->max_send_sge : 1;
	uint32_t recv_sge = req->max_recv_sge ? req->max_recv_sge : 1;

	if (req->max_inline_data > MOCK_MAX_INLINE)
		return EINVAL;
	if (mock_ring_create(&qp->sq, pow2_at_least(req->max_send_wr),
			     send_stride(send_sge, req->max_inline_data)) ||
	    mock_ring_create(&qp->rq, pow2_at_least(req->max_recv_wr),
			     pow2_at_least(sizeof(struct sroce_recv_wqe) +
					   recv_sge * sizeof(struct sroce_sge))))
		return ENOMEM;
	qp->granted.max_send_wr = qp->sq.depth;
	qp->granted.max_recv_wr = qp->rq.depth;
	qp->granted.max_send_sge = send_sge;
	qp->granted.max_recv_sge = recv_sge;
	qp->granted.max_inline_data = req->max_inline_data;
	return 0;
}

static void mock_qp_resp(const struct mock_qp *qp, uint8_t *out)
{
	struct ib_uverbs_create_qp_resp core = {
		.qp_handle = qp->handle,
		.qpn = qp->qpn,
		.max_send_wr = qp->granted.max_send_wr,
		.max_recv_wr = qp->granted.max_recv_wr,
		.max_send_sge = qp->granted.max_send_sge,
		.max_recv_sge = qp->granted.max_recv_sge,
		.max_inline_data = qp->granted.max_inline_data,
	};
	struct sroce_create_qp_resp drv = {
		.sq_mmap_offset = qp->sq.offset,
		.sq_mmap_size = qp->sq.size,
		.rq_mmap_offset = qp->rq.offset,
		.rq_mmap_size = qp->rq.size,
		.sq_depth = qp->sq.depth,
		.sq_stride = qp->sq.stride,
		.rq_depth = qp->rq.depth,
		.rq_stride = qp->rq.stride,
		.max_inline_data = qp->granted.max_inline_data,
	};

	mock_lie(&drv.sq_depth, &drv.sq_mmap_size, &drv.reserved);
	memcpy(out, &core, sizeof(core));
	memcpy(out + sizeof(core), &drv, sizeof(drv));
}

int mock_create_qp(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_create_qp req;
	struct mock_qp *qp;
	uint32_t i;
	int ret;

	memcpy(&req, hdr + 1, sizeof(req));
	if (hdr->out_words * 4u < sizeof(struct ib_uverbs_create_qp_resp) +
					  sizeof(struct sroce_create_qp_resp))
		return EINVAL;
	if ((req.qp_type != IBV_QPT_RC && req.qp_type != IBV_QPT_UC) ||
	    !mock_cq_get(req.send_cq_handle) ||
	    !mock_cq_get(req.recv_cq_handle))
		return EINVAL;
	for (i = 0; i < MOCK_MAX_OBJECTS && qps[i].alive; i++)
		;
	if (i == MOCK_MAX_OBJECTS)
		return ENOMEM;
	qp = &qps[i];
	memset(qp, 0, sizeof(*qp));
	ret = mock_qp_rings(qp, &req);
	if (ret)
		return ret;
	qp->alive = true;
	qp->handle = i + 1;
	/* Every QPN lands in the provider's hash bucket 0x12: chains. */
	qp->qpn = (i + 1) << 8 | 0x12;
	qp->send_cq = req.send_cq_handle;
	qp->recv_cq = req.recv_cq_handle;
	qp->sq_sig_all = req.sq_sig_all;
	qp->state = IBV_QPS_RESET;
	mock_qp_resp(qp, mock_response_of(hdr));
	return 0;
}

static struct mock_qp *mock_qp_by_handle(uint32_t handle)
{
	if (handle < 1 || handle > MOCK_MAX_OBJECTS || !qps[handle - 1].alive)
		return NULL;
	return &qps[handle - 1];
}

int mock_modify_qp(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_modify_qp req;
	struct mock_qp *qp;

	memcpy(&req, hdr + 1, sizeof(req));
	qp = mock_qp_by_handle(req.qp_handle);
	if (!qp)
		return EINVAL;
	if (req.attr_mask & IBV_QP_STATE)
		qp->state = req.qp_state;
	return 0;
}

int mock_query_qp(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_query_qp_resp resp = { 0 };
	struct ib_uverbs_query_qp req;
	struct mock_qp *qp;

	memcpy(&req, hdr + 1, sizeof(req));
	qp = mock_qp_by_handle(req.qp_handle);
	if (!qp)
		return EINVAL;
	resp.qp_state = qp->state;
	resp.cur_qp_state = qp->state;
	resp.sq_sig_all = qp->sq_sig_all;
	/* Deliberately not what the provider reports: it must use its own. */
	resp.max_send_wr = 1;
	resp.max_recv_wr = 1;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

int mock_destroy_qp(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_destroy_qp_resp resp = { 0 };
	struct ib_uverbs_destroy_qp req;
	struct mock_qp *qp;

	memcpy(&req, hdr + 1, sizeof(req));
	qp = mock_qp_by_handle(req.qp_handle);
	if (!qp)
		return EINVAL;
	qp->alive = false;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

/* The doorbell: legacy POST_SEND with no work requests in it. */
int mock_post_send(const struct ib_uverbs_cmd_hdr *hdr, size_t count)
{
	struct ib_uverbs_post_send_resp resp = { .bad_wr = 0 };
	struct ib_uverbs_post_send req;
	struct mock_qp *qp;

	memcpy(&req, hdr + 1, sizeof(req));
	qp = mock_qp_by_handle(req.qp_handle);
	if (!qp || hdr->in_words * 4u != count)
		return EINVAL;
	/* As uverbs_cmd.c: wqe_size must cover a WR even if none follow. */
	if (req.wqe_size < sizeof(struct ib_uverbs_send_wr) ||
	    count < sizeof(*hdr) + sizeof(req) +
			    (uint64_t)req.wr_count * req.wqe_size)
		return EINVAL;
	qp->doorbells++;
	qp->last_db_hdr = *hdr;
	qp->last_db = req;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

/* --- MR ----------------------------------------------------------------- */

int mock_reg_mr(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_reg_mr_resp resp;
	uint32_t i;

	for (i = 0; i < MOCK_MAX_OBJECTS && mrs[i].alive; i++)
		;
	if (i == MOCK_MAX_OBJECTS)
		return ENOMEM;
	memcpy(&mrs[i].req, hdr + 1, sizeof(mrs[i].req));
	mrs[i].alive = true;
	mrs[i].lkey = 0x1000 + i;
	mrs[i].rkey = 0x2000 + i;
	resp.mr_handle = i + 1;
	resp.lkey = mrs[i].lkey;
	resp.rkey = mrs[i].rkey;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

int mock_dereg_mr(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_dereg_mr req;

	memcpy(&req, hdr + 1, sizeof(req));
	if (req.mr_handle < 1 || req.mr_handle > MOCK_MAX_OBJECTS ||
	    !mrs[req.mr_handle - 1].alive)
		return EINVAL;
	mrs[req.mr_handle - 1].alive = false;
	return 0;
}

/* In place, as sroce.ko does: the request is kept, the keys move on. */
int mock_rereg_mr(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ib_uverbs_rereg_mr req;
	struct mock_mr *mr;

	memcpy(&req, hdr + 1, sizeof(req));
	if (req.mr_handle < 1 || req.mr_handle > MOCK_MAX_OBJECTS ||
	    !mrs[req.mr_handle - 1].alive || !req.flags)
		return EINVAL;
	mr = &mrs[req.mr_handle - 1];
	mr->rereg = req;
	mr->lkey += 0x100;
	mr->rkey += 0x100;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

/* --- the test API ------------------------------------------------------- */

static struct mock_qp *api_qp(uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < MOCK_MAX_OBJECTS; i++)
		if (qps[i].qpn == qpn)
			return &qps[i];
	return NULL;
}

static struct mock_cq *api_cq(uint32_t handle)
{
	if (handle < 1 || handle > MOCK_MAX_OBJECTS)
		return NULL;
	return &cqs[handle - 1];
}

static struct mock_mr *api_mr(uint32_t lkey)
{
	uint32_t i;

	for (i = 0; i < MOCK_MAX_OBJECTS; i++)
		if (mrs[i].lkey == lkey)
			return &mrs[i];
	return NULL;
}

static unsigned int api_live_mappings(void)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		n += maps[i].addr != NULL;
	return n;
}

static void api_set_ring_start(uint32_t index)
{
	ring_start = index;
}

static void api_lie_next_create(enum mock_lie lie)
{
	next_lie = lie;
}

const struct mock_uverbs_api *mock_uverbs_api(void)
{
	static const struct mock_uverbs_api api = {
		.cq = api_cq,
		.qp = api_qp,
		.mr = api_mr,
		.commands = mock_command_count,
		.live_mappings = api_live_mappings,
		.set_ring_start = api_set_ring_start,
		.lie_next_create = api_lie_next_create,
	};

	return &api;
}
