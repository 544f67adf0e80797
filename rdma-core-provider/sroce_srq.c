// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_srq.c - shared receive queues: create with the ring mapped,
 * ibv_post_srq_recv() straight into it (never a syscall), and the control
 * verbs, which the kernel answers.
 *
 * Free slots come from the ring's consumer index, which the kernel
 * store-releases after copying a WQE out (sroce-abi.h, "Shared receive
 * queues"); an index the kernel could not have written makes the ring look
 * full rather than let the process overwrite WQEs still posted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_check_rings.h"
#include "sroce_queue.h"

struct sroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct sroce_create_srq_resp drv;
};

_Static_assert(offsetof(struct sroce_create_srq_resp_buf, drv) ==
		       sizeof(struct ib_uverbs_create_srq_resp),
	       "driver payload must follow the core response directly");

static int sroce_srq_attach_ring(struct sroce_srq *srq,
				 const struct sroce_create_srq_resp *drv,
				 uint32_t max_wr, uint32_t kernel_max_sge)
{
	struct ibv_context *ibctx = srq->ibsrq.context;
	enum sroce_rings_verdict verdict;
	uint32_t max_sge;
	int ret;

	verdict = sroce_check_srq_resp(drv, max_wr);
	if (verdict != SROCE_RINGS_OK) {
		fprintf(stderr, "libsroce: %s: refusing SRQ: %s\n",
			ibctx->device->name, sroce_rings_verdict_name(verdict));
		return EPROTO;
	}
	ret = sroce_ring_map(&srq->wq.ring, ibctx->cmd_fd, drv->mmap_offset,
			     drv->mmap_size, drv->depth, drv->stride);
	if (ret)
		return ret;
	max_sge = sroce_recv_stride_max_sge(drv->stride);
	if (kernel_max_sge < max_sge)
		max_sge = kernel_max_sge;
	ret = sroce_wq_init(&srq->wq, max_sge);
	if (ret)
		sroce_ring_unmap(&srq->wq.ring);
	return ret;
}

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct sroce_create_srq_resp_buf resp;
	struct ibv_create_srq cmd;
	struct sroce_srq *srq;
	uint32_t max_wr = attr->attr.max_wr;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq(pd, &srq->ibsrq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	/*
	 * ibv_cmd_create_srq() set the handle, and attr to what the kernel
	 * granted (over ioctl the core response struct stays unwritten).
	 */
	ret = sroce_srq_attach_ring(srq, &resp.drv, max_wr, attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	attr->attr.max_wr = srq->wq.ring.depth;
	attr->attr.max_sge = srq->wq.max_sge;
	return &srq->ibsrq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibsrq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ibv_query_srq cmd;
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* What the mapped ring holds, as create reported. */
	attr->max_wr = srq->wq.ring.depth;
	attr->max_sge = srq->wq.max_sge;
	return 0;
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_wq_fini(&srq->wq);
	free(srq);
	return 0;
}

/* Slots the kernel has taken WQEs out of; call with wq->lock held. */
static uint32_t sroce_srq_room(const struct sroce_wq *wq)
{
	uint32_t cons = sroce_load_acquire(&wq->ring.hdr->consumer);

	if (!sroce_ring_indices_valid(cons, wq->prod, wq->ring.depth))
		return 0;
	return sroce_ring_free(cons, wq->prod, wq->ring.depth);
}

int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *wq = &to_ssrq(ibsrq)->wq;
	int ret;

	pthread_spin_lock(&wq->lock);
	ret = sroce_wq_post_recvs(wq, sroce_srq_room(wq), wr, bad_wr);
	pthread_spin_unlock(&wq->lock);
	return ret;
}
