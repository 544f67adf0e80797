// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_mr.c - memory registration and memory windows: plain kernel
 * commands, no driver data. A window is bound by a BIND_MW work request
 * (sroce_post.c), also for ibv_bind_mw().
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/*
 * The kernel changes access, PD and translation in place and hands out new
 * keys (libibverbs updates mr->pd, addr and length after we return 0).
 * ibv_rereg_mr() turns any non-zero return into an enum
 * ibv_rereg_mr_err_code; errno carries the reason.
 */
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int ret;

	ret = ibv_cmd_rereg_mr(vmr, (uint32_t)flags, addr, length,
			       (uintptr_t)addr, access, pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret)
		errno = ret;
	return ret;
}

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}
