// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce.c - libsroce, the rdma-core provider for the sroce software RoCEv2
 * device: device matching, context setup, the control-path verbs that are
 * plain kernel commands, and the table of every verb the provider offers.
 * The data path lives in sroce_cq.c, sroce_poll.c, sroce_qp.c,
 * sroce_post.c, sroce_wr_ex.c and sroce_mr.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"
#include "sroce_check.h"

/*
 * sroce.ko registers with RDMA_DRIVER_UNKNOWN, and the kernel rejects an
 * ioctl whose header names a different driver, so the context must carry 0.
 */
#define SROCE_VERBS_DRIVER_ID 0

static int sroce_query_device(struct ibv_context *ibctx,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr,
			      size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* The kernel reports fw_ver as a number; verbs shows a string. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%" PRIu64 ".%" PRIu64 ".%" PRIu64, (fw >> 32) & 0xffff,
		 (fw >> 16) & 0xffff, fw & 0xffff);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int sroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *sctx = to_sctx(ibctx);

	sroce_qp_table_fini(sctx);
	verbs_uninit_context(&sctx->vctx);
	free(sctx);
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,	/* the kernel keeps the groups */
	.bind_mw = sroce_bind_mw,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.create_srq = sroce_create_srq,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.destroy_ah = sroce_destroy_ah,
	.dereg_mr = sroce_dereg_mr,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = sroce_free_context,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_mr = sroce_reg_mr,
	.req_notify_cq = ibv_cmd_req_notify_cq,	/* a syscall is fine here */
	.rereg_mr = sroce_rereg_mr,
	.resize_cq = sroce_resize_cq,
};

/*
 * Ask the kernel for a ucontext and check its answer. Returns 0 or a
 * positive errno; EPROTO means the kernel speaks another sroce ABI.
 */
static int sroce_get_context(struct sroce_context *sctx)
{
	struct sroce_get_context_resp resp;
	enum sroce_uctx_verdict verdict;
	struct ibv_get_context cmd;
	int ret;

	/* Zeroed so that a kernel writing less than we expect is caught. */
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_get_context(&sctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		return ret;

	verdict = sroce_check_ucontext_resp(&resp.drv);
	if (verdict != SROCE_UCTX_OK) {
		fprintf(stderr,
			"libsroce: %s: refusing device: %s (kernel abi_version %u, provider %u)\n",
			sctx->vctx.context.device->name,
			sroce_uctx_verdict_name(verdict), resp.drv.abi_version,
			SROCE_ABI_VERSION);
		return EPROTO;
	}

	sctx->max_inline_data = resp.drv.max_inline_data;
	sctx->page_shift = resp.drv.page_shift;
	return 0;
}

/* Takes ownership of cmd_fd: on failure it is closed before returning. */
static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_context *sctx;
	int ret;

	(void)private_data;
	/* libibverbs wants the offset of vctx, passed as a pointer value. */
	sctx = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(*sctx),
		(struct verbs_context *)offsetof(struct sroce_context, vctx),
		SROCE_VERBS_DRIVER_ID);
	if (!sctx)
		return NULL;

	ret = sroce_get_context(sctx);
	if (ret)
		goto err_uninit;
	ret = sroce_qp_table_init(sctx);
	if (ret)
		goto err_uninit;

	verbs_set_ops(&sctx->vctx, &sroce_ctx_ops);
	return &sctx->vctx;

err_uninit:
	verbs_uninit_context(&sctx->vctx);	/* closes cmd_fd */
	free(sctx);
	errno = ret;
	return NULL;
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	struct sroce_device *sdev;

	sdev = calloc(1, sizeof(*sdev));
	if (!sdev)
		return NULL;
	sdev->uverbs_abi_version = sysfs->abi_ver;
	return &sdev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sdev(&vdev->device));
}

/*
 * Called after libibverbs' own table match; insist on that match and on a
 * true name prefix (see sroce_device_name_matches()).
 */
static bool sroce_match_device(struct verbs_sysfs_dev *sysfs)
{
	return sysfs->match && sroce_device_name_matches(sysfs->ibdev_name);
}

/*
 * No driver-id entry: sroce.ko registers as RDMA_DRIVER_UNKNOWN, which
 * libibverbs never matches by id, so the device name is all there is.
 */
static const struct verbs_match_ent sroce_match_table[] = {
	SROCE_VERBS_NAME_PREFIX_MATCH(SROCE_DEVICE_NAME_PREFIX),
	{},
};

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	.match_min_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};

/* dlopen() runs this; it is how every rdma-core provider announces itself. */
static void __attribute__((constructor)) sroce_register_driver(void)
{
	verbs_register_driver_34(&sroce_dev_ops);
}
