// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_ah.c - ibv_create_ah() and ibv_destroy_ah(). The kernel resolves
 * and keeps the address; the provider only keeps the index UD send WQEs
 * name it by (struct sroce_create_ah_resp).
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct sroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct sroce_create_ah_resp drv;
};

_Static_assert(offsetof(struct sroce_create_ah_resp_buf, drv) ==
		       sizeof(struct ib_uverbs_create_ah_resp),
	       "driver payload must follow the core response directly");

struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sroce_create_ah_resp_buf resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;
	/* Index 0 is never an AH: a kernel that says so is not ours. */
	if (!resp.drv.ah_index) {
		ibv_cmd_destroy_ah(&ah->ibah);
		ret = EPROTO;
		goto err_free;
	}
	ah->index = resp.drv.ah_index;
	return &ah->ibah;

err_free:
	free(ah);
	errno = ret;
	return NULL;
}

int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_sah(ibah));
	return 0;
}
