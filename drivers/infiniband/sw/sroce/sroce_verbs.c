// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_verbs.c - the ib_device_ops table and the control verbs.
 *
 * Verbs run in process context and may sleep, except where
 * Documentation/infiniband/core_locking.rst says otherwise (post_*, poll_cq,
 * req_notify_cq). Everything coming from userspace through udata is
 * validated here before use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_caps.h"
#include "sroce_cq.h"
#include "sroce_mcast.h"
#include "sroce_pma.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
#include "sroce_stats.h"

static void sroce_fill_device_attr(struct sroce_dev *sdev,
				   struct ib_device_attr *attr)
{
	attr->fw_ver = 0;
	attr->sys_image_guid = sdev->ib_dev.node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_VERSION;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->max_pkeys = SROCE_PKEY_TABLE_LEN;
	attr->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	/* ib_core refuses `rdma link delete` without this flag. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/*
	 * Fast registration (REG_MR) for kernel QPs; memory windows of type
	 * 1 and 2B, LOCAL_INV and SEND with invalidate for every RC QP.
	 */
	attr->device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* No driver-specific query input exists yet; refuse what we can't read. */
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	sroce_fill_device_attr(to_sdev(ibdev), attr);
	return 0;
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_ABI_VERSION,
		.max_inline_data = SROCE_MAX_INLINE_DATA,
		.page_shift = PAGE_SHIFT,
	};

	struct sroce_ucontext *uctx = container_of(ibuc, struct sroce_ucontext,
						   ibuc);
	int err;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	sroce_ah_table_init(uctx);
	/* An older provider may know a shorter response: send what fits. */
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		sroce_ah_table_destroy(uctx);
	return err;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	sroce_ah_table_destroy(container_of(ibuc, struct sroce_ucontext, ibuc));
}

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return sroce_obj_count_get(&pd_to_sdev(ibpd)->num_pd, SROCE_MAX_PD);
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sroce_obj_count_put(&pd_to_sdev(ibpd)->num_pd);
	return 0;
}

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.dealloc_driver = sroce_dev_dealloc,

	.query_device = sroce_query_device,
	.query_port = sroce_query_port,
	.query_pkey = sroce_query_pkey,
	.get_port_immutable = sroce_get_port_immutable,
	.get_link_layer = sroce_get_link_layer,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
	.process_mad = sroce_process_mad,

	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,

	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_user_ah,
	.query_ah = sroce_query_ah,
	.destroy_ah = sroce_destroy_ah,
	.create_qp = sroce_create_qp,
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.destroy_qp = sroce_destroy_qp,
	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.destroy_srq = sroce_destroy_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	.create_cq = sroce_create_cq,
	.destroy_cq = sroce_destroy_cq,
	.resize_cq = sroce_resize_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.dereg_mr = sroce_dereg_mr,
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.rereg_user_mr = sroce_rereg_user_mr,
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
