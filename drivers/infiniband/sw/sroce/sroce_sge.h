/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_sge.h - moving data between a packet and a WQE's local SGEs.
 */
#ifndef SROCE_SGE_H
#define SROCE_SGE_H

#include <linux/types.h>
#include <rdma/sroce-abi.h>

#include "sroce_mr.h"

struct sroce_qp;

/*
 * Copy @len bytes between @buf and the SGE list of a WQE of @qp, starting
 * @offset bytes into it. Every SGE's lkey is looked up and checked against
 * @pd, the PD of the WQE's queue: the QP's for send WQEs,
 * sroce_qp_recv_pd() for receive WQEs. SROCE_COPY_TO_MR also needs local
 * write access.
 * Return: 0; -EINVAL for an unknown lkey, -EACCES / -ERANGE when the MR
 * refuses; -EMSGSIZE if the SGEs are shorter than @offset + @len.
 */
int sroce_sge_copy(struct sroce_qp *qp, struct ib_pd *pd,
		   const struct sroce_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, enum sroce_copy_dir dir);

/* Sum of the SGE lengths, or -EINVAL above the largest IB message. */
s64 sroce_sge_total(const struct sroce_sge *sge, u32 num_sge);

#endif /* SROCE_SGE_H */
