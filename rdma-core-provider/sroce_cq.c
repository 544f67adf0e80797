// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_cq.c - completion queue lifetime: create (plain and extended),
 * destroy, resize. Polling is in sroce_poll.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_check_rings.h"
#include "sroce_queue.h"

/* What create_cq_ex can honour: every standard field, nothing else. */
#define SROCE_CQ_EX_WC_FLAGS ((uint64_t)IBV_WC_STANDARD_FLAGS)
#define SROCE_CQ_EX_COMP_MASK IBV_CQ_INIT_ATTR_MASK_FLAGS
#define SROCE_CQ_EX_FLAGS IBV_CREATE_CQ_ATTR_SINGLE_THREADED

struct sroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

struct sroce_create_cq_ex_resp_buf {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

_Static_assert(offsetof(struct sroce_create_cq_resp_buf, drv) ==
			       sizeof(struct ib_uverbs_create_cq_resp) &&
		       offsetof(struct sroce_create_cq_ex_resp_buf, drv) ==
			       sizeof(struct ib_uverbs_ex_create_cq_resp),
	       "driver payload must follow the core response directly");

/* Check the kernel's description of a CQ ring and map it into *ring. */
static int sroce_cq_map_ring(struct ibv_context *ibctx,
			     struct sroce_ring *ring,
			     const struct sroce_create_cq_resp *drv, int cqe)
{
	enum sroce_rings_verdict verdict;

	verdict = sroce_check_cq_resp(drv, (uint32_t)cqe);
	if (verdict != SROCE_RINGS_OK) {
		fprintf(stderr, "libsroce: %s: refusing CQ ring: %s\n",
			ibctx->device->name, sroce_rings_verdict_name(verdict));
		return EPROTO;
	}
	return sroce_ring_map(ring, ibctx->cmd_fd, drv->mmap_offset,
			      drv->mmap_size, drv->depth,
			      sizeof(struct sroce_cqe));
}

/*
 * Second half of both create paths, after the kernel made the CQ: check
 * and map its ring. On failure the caller destroys the kernel object.
 */
static int sroce_cq_attach_ring(struct sroce_cq *cq,
				const struct sroce_create_cq_resp *drv,
				int cqe)
{
	int ret;

	ret = sroce_cq_map_ring(cq->vcq.cq.context, &cq->ring, drv, cqe);
	if (ret)
		return ret;
	cq->cons = cq->ring.hdr->consumer;	/* ours from here on */
	return 0;
}

static struct sroce_cq *sroce_cq_alloc(void)
{
	struct sroce_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		return NULL;
	}
	return cq;
}

static void sroce_cq_free(struct sroce_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

/* Undo a kernel create whose ring we could not use; keep ret's errno. */
static void *sroce_cq_create_failed(struct sroce_cq *cq, bool created,
				    int ret)
{
	if (created)
		ibv_cmd_destroy_cq(&cq->vcq.cq);
	if (cq)
		sroce_cq_free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct sroce_create_cq_resp_buf resp;
	struct ibv_create_cq cmd;
	struct sroce_cq *cq;
	int ret;

	if (cqe < 1)
		return sroce_cq_create_failed(NULL, false, EINVAL);
	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;

	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		return sroce_cq_create_failed(cq, false, ret);
	ret = sroce_cq_attach_ring(cq, &resp.drv, cqe);
	if (ret)
		return sroce_cq_create_failed(cq, true, ret);
	return &cq->vcq.cq;
}

static int sroce_check_cq_init_attr(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->cqe < 1)
		return EINVAL;
	if (attr->wc_flags & ~SROCE_CQ_EX_WC_FLAGS)
		return EOPNOTSUPP;
	if (attr->comp_mask & ~SROCE_CQ_EX_COMP_MASK)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~SROCE_CQ_EX_FLAGS))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_create_cq_ex_resp_buf resp;
	struct ibv_create_cq_ex cmd;
	struct sroce_cq *cq;
	int ret;

	ret = sroce_check_cq_init_attr(attr);
	if (ret)
		return sroce_cq_create_failed(NULL, false, ret);
	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;

	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		return sroce_cq_create_failed(cq, false, ret);
	ret = sroce_cq_attach_ring(cq, &resp.drv, (int)attr->cqe);
	if (ret)
		return sroce_cq_create_failed(cq, true, ret);
	sroce_cq_set_ex_ops(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	sroce_ring_unmap(&cq->ring);
	sroce_cq_free(cq);
	return 0;
}

struct sroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

_Static_assert(offsetof(struct sroce_resize_cq_resp_buf, drv) ==
		       sizeof(struct ib_uverbs_resize_cq_resp),
	       "driver payload must follow the core response directly");

/*
 * The kernel moves the unpolled CQEs to a new ring at their own indices
 * (sroce-abi.h, "Resizing a CQ"), so our consumer index carries over: we
 * switch rings under the CQ lock and publish it in the new one. Polls that
 * ran on the old ring in the meantime consumed CQEs that sit below it.
 * If the new ring cannot be mapped the CQ is lost to us: the kernel
 * already writes there. That needs a lying kernel or a full address space.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resize_cq_resp_buf resp;
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_ring ring, old;
	struct ibv_resize_cq cmd;
	int ret;

	if (cqe < 1)
		return EINVAL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		return ret;
	ret = sroce_cq_map_ring(ibcq->context, &ring, &resp.drv, cqe);
	if (ret)
		return ret;

	pthread_spin_lock(&cq->lock);
	old = cq->ring;
	cq->ring = ring;
	sroce_store_release(&cq->ring.hdr->consumer, cq->cons);
	pthread_spin_unlock(&cq->lock);
	sroce_ring_unmap(&old);
	return 0;
}

/* The QP is going away: no poll may use a cached pointer to it. */
void sroce_cq_forget_qp(struct sroce_cq *cq, struct sroce_qp *qp)
{
	pthread_spin_lock(&cq->lock);
	if (cq->last_qp == qp)
		cq->last_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}
