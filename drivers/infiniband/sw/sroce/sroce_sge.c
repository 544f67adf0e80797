// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_sge.c - moving data between a packet and a WQE's local SGEs.
 *
 * Runs in the transmit thread and in softirq; never sleeps. Keys are looked
 * up per use: a region deregistered meanwhile is simply not found.
 */
#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_qp.h"
#include "sroce_sge.h"

s64 sroce_sge_total(const struct sroce_sge *sge, u32 num_sge)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		total += sge[i].length;
	return total > SROCE_MAX_MSG_SIZE ? -EINVAL : (s64)total;
}

static int sroce_sge_copy_one(struct sroce_qp *qp, struct ib_pd *pd,
			      const struct sroce_sge *sge, u32 offset, void *buf,
			      u32 len, enum sroce_copy_dir dir)
{
	int access = dir == SROCE_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_get(qp->sdev, sge->lkey);
	if (!mr)
		return -EINVAL;
	err = sroce_mr_check(mr, pd, sge->addr + offset, len, access);
	if (!err)
		sroce_mr_copy(mr, sge->addr + offset, buf, len, dir);
	sroce_mr_put(mr);
	return err;
}

int sroce_sge_copy(struct sroce_qp *qp, struct ib_pd *pd,
		   const struct sroce_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, enum sroce_copy_dir dir)
{
	u32 i;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		u32 chunk;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		chunk = min(len, sge[i].length - offset);
		err = sroce_sge_copy_one(qp, pd, &sge[i], offset, buf, chunk, dir);
		if (err)
			return err;
		buf += chunk;
		len -= chunk;
		offset = 0;
	}
	return len ? -EMSGSIZE : 0;
}
