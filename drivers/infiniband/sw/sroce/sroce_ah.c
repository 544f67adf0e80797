// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_ah.c - address handle verbs and the per-process AH index table.
 *
 * A user AH is named in ring WQEs by an index into its ucontext's table,
 * so a process can only ever reach its own AHs; sroce_ah_get_user() also
 * checks the PD, so an AH serves QPs of its own PD only. Kernel AHs are
 * reached through their ib_ah pointer and are in no table.
 *
 * Lookups run under RCU from any context (the transmit thread, a
 * doorbell, a softirq); the table changes in process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/uverbs_ioctl.h>

#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_caps.h"
#include "sroce_ud.h"

void sroce_ah_table_init(struct sroce_ucontext *uctx)
{
	/* Index 0 stays free: a zeroed WQE names no AH. */
	xa_init_flags(&uctx->ahs, XA_FLAGS_ALLOC1);
	mutex_init(&uctx->ud_lock);
	INIT_LIST_HEAD(&uctx->ud_qps);
}

/* ib_core destroyed every AH and QP of the context before this. */
void sroce_ah_table_destroy(struct sroce_ucontext *uctx)
{
	xa_destroy(&uctx->ahs);
	mutex_destroy(&uctx->ud_lock);
}

/**
 * sroce_ah_get_user - a reference on the AH a WQE names
 * @uctx: the process the WQE comes from
 * @index: from the WQE, untrusted
 * @pd: the posting QP's PD
 *
 * Any context. Return: the handle with a reference, or NULL if @index
 * names no live AH of @uctx on @pd.
 */
struct sroce_ah_handle *sroce_ah_get_user(struct sroce_ucontext *uctx,
					  u32 index, const struct ib_pd *pd)
{
	struct sroce_ah_handle *handle;

	rcu_read_lock();
	handle = xa_load(&uctx->ahs, index);
	if (handle && (handle->pd != pd || !refcount_inc_not_zero(&handle->refs)))
		handle = NULL;
	rcu_read_unlock();
	return handle;
}

void sroce_ah_put(struct sroce_ah_handle *handle)
{
	/* A lookup may still be reading it under RCU. */
	if (refcount_dec_and_test(&handle->refs))
		kfree_rcu(handle, rcu);
}

static int sroce_ah_check_attr(const struct rdma_ah_attr *attr)
{
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	return 0;
}

/* Count the AH against max_ah and resolve its address vector. */
static int sroce_ah_init(struct sroce_ah *ah, struct rdma_ah_init_attr *init,
			 gfp_t gfp)
{
	struct sroce_dev *sdev = to_sdev(ah->ibah.device);
	int err;

	err = sroce_ah_check_attr(init->ah_attr);
	if (err)
		return err;
	ah->handle = kzalloc(sizeof(*ah->handle), gfp);
	if (!ah->handle)
		return -ENOMEM;
	err = sroce_av_from_ah_attr(&ah->handle->av, init->ah_attr,
				    sdev->net);
	if (err)
		goto err_free;
	if (atomic_inc_return(&sdev->num_ah) > SROCE_MAX_AH) {
		err = -ENOMEM;
		goto err_count;
	}
	refcount_set(&ah->handle->refs, 1);
	ah->handle->pd = ah->ibah.pd;
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;
	return 0;

err_count:
	atomic_dec(&sdev->num_ah);
err_free:
	kfree(ah->handle);
	return err;
}

/* Kernel consumers; atomic context unless RDMA_CREATE_AH_SLEEPABLE. */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	gfp_t gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL :
							       GFP_ATOMIC;

	if (udata)
		return sroce_create_user_ah(ibah, init, udata);
	return sroce_ah_init(to_sah(ibah), init, gfp);
}

int sroce_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct sroce_ucontext *uctx = rdma_udata_to_drv_context(udata,
					struct sroce_ucontext, ibuc);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_resp resp = {};
	int err;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_ah_init(ah, init, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	err = xa_alloc(&uctx->ahs, &ah->index, ah->handle,
		       XA_LIMIT(1, SROCE_MAX_AH), GFP_KERNEL);
	if (err < 0)
		goto err_put;
	ah->uctx = uctx;
	resp.ah_index = ah->index;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase(&uctx->ahs, ah->index);
err_put:
	atomic_dec(&to_sdev(ibah->device)->num_ah);
	sroce_ah_put(ah->handle);
	return err;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	attr->grh.sgid_attr = NULL;	/* rdma_query_ah() sets none either */
	return 0;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_ah *ah = to_sah(ibah);

	if (ah->uctx) {
		/*
		 * WQEs posted before ibv_destroy_ah() must still go: make the
		 * UD QPs of the process take their posted WQEs (each takes a
		 * reference) before the index disappears. uverbs destroys
		 * user AHs in process context only.
		 */
		if (flags & RDMA_DESTROY_AH_SLEEPABLE)
			sroce_ud_fetch_all(ah->uctx);
		xa_erase(&ah->uctx->ahs, ah->index);
	}
	atomic_dec(&to_sdev(ibah->device)->num_ah);
	sroce_ah_put(ah->handle);
	return 0;
}
