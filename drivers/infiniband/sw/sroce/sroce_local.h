/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_local.h - packets between two sroce QPs of this host, past the
 * IP stack.
 */
#ifndef SROCE_LOCAL_H
#define SROCE_LOCAL_H

#include <linux/skbuff.h>

#include "sroce_tx.h"

struct sroce_hdrs;
struct sroce_qp;

void sroce_local_enter(void);
void sroce_local_exit(void);
bool sroce_local_carries(struct sroce_qp *qp);
bool sroce_local_takes(struct sroce_qp *qp);
bool sroce_local_xmit(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_local_xmit_known(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_local_xmit_seg(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_hdrs *first);
bool sroce_local_defer_run(struct sroce_qp *qp, enum sroce_tx_work work);
void sroce_local_qp_init(struct sroce_qp *qp);
void sroce_local_setup(void);
void sroce_local_teardown(void);

#endif /* SROCE_LOCAL_H */
