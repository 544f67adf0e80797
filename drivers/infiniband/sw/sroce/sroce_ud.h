/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_ud.h - unreliable datagram QPs: the parts that differ from RC.
 *
 * A UD QP shares the rings, the transmit thread and the doorbell protocol
 * with RC; each send WQE names its own destination (an AH) and becomes one
 * packet with a DETH, completed once handed to the network. Receives need
 * no ACK. Functions ending in _locked run with qp->lock held.
 */
#ifndef SROCE_UD_H
#define SROCE_UD_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_hdr.h"

struct sroce_qp;
struct sroce_swqe;
struct sroce_ucontext;

/* The 40 bytes that precede a UD receive's payload (sroce-abi.h). */
#define SROCE_GRH_BYTES		40

/* A Q_Key with this bit set is privileged (IBA 10.2.5). */
#define SROCE_QKEY_PRIVILEGED	0x80000000U

/* QP 1 on the wire is each device's GSI QP (IBA 13.4.6.3). */
#define SROCE_GSI_QPN		1

void sroce_ud_qp_add(struct sroce_qp *qp, struct sroce_ucontext *uctx);
void sroce_ud_qp_del(struct sroce_qp *qp);
void sroce_ud_fetch_all(struct sroce_ucontext *uctx);

/* Kernel UD and GSI QPs (sroce_post.c). */
int sroce_ud_kpost_init(struct sroce_qp *qp);
void sroce_ud_kpost_free(struct sroce_qp *qp);
int sroce_ud_kpost_dest(struct sroce_qp *qp, const struct ib_send_wr *wr,
			struct sroce_send_wqe *wqe, u32 producer);

int sroce_gsi_publish(struct sroce_qp *qp);
void sroce_gsi_unpublish(struct sroce_qp *qp);
struct sroce_qp *sroce_gsi_get(const struct sk_buff *skb);
void sroce_ud_dest_gid(const struct sk_buff *skb, union ib_gid *gid);

int sroce_ud_swqe_fetch(struct sroce_qp *qp, struct sroce_swqe *swqe,
			const struct sroce_send_wqe *hdr);
void sroce_swqe_put_ah(struct sroce_swqe *swqe);
void sroce_ud_sq_release_locked(struct sroce_qp *qp);
bool sroce_ud_req_locked(struct sroce_qp *qp, int *budget);

void sroce_ud_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		  const struct sroce_hdrs *h, bool local);

#endif /* SROCE_UD_H */
