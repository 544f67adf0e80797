/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_post.h - post_send and post_recv of kernel consumers.
 */
#ifndef SROCE_POST_H
#define SROCE_POST_H

#include <rdma/ib_verbs.h>

struct sroce_qp;
struct sroce_queue;

/*
 * Queue @wr's list on a kernel QP's ring; any context, never sleeps.
 * Return: 0; -EINVAL for a WR sroce cannot take or a QP in a state that
 * takes none; -ENOMEM when the queue is full. On error *@bad_wr is the first
 * WR not posted; those before it are.
 */
int sroce_kpost_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int sroce_kpost_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);

u32 sroce_kpost_recv_wqes(struct sroce_queue *rq, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr, int *err);

#endif /* SROCE_POST_H */
