/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_ah.h - address handles: where a UD send goes.
 *
 * ib_core frees a struct ib_ah as soon as destroy_ah returns, but a send
 * WQE fetched before may not have gone out yet. So, as for QPs
 * (struct sroce_qp_handle), what a WQE holds is a separate, refcounted
 * handle with its own copy of the address vector, freed with kfree_rcu():
 * a lookup that loads the handle just before destroy unpublishes it still
 * reads live memory in its refcount_inc_not_zero(), and fails once the
 * count reached zero.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include "sroce_net.h"

struct sroce_qp;
struct sroce_ucontext;

/**
 * struct sroce_ah_handle - an address vector WQEs can hold on to
 * @refs: the AH's reference plus one per send WQE holding it
 * @av: the destination, resolved at create_ah
 * @pd: the PD the AH was created on; compared, never dereferenced
 * @rcu: for kfree_rcu() once @refs reached zero
 */
struct sroce_ah_handle {
	refcount_t refs;
	struct sroce_av av;
	const struct ib_pd *pd;
	struct rcu_head rcu;
};

/**
 * struct sroce_ah - ib_core's AH object
 * @ibah: ib_core's part
 * @handle: what send WQEs use
 * @attr: as created, for query_ah (without the sgid_attr reference,
 *	which ib_core keeps in @ibah)
 * @uctx: the process of a user AH, NULL for a kernel AH
 * @index: the user AH's index in @uctx's table, 0 for a kernel AH
 */
struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_ah_handle *handle;
	struct rdma_ah_attr attr;
	struct sroce_ucontext *uctx;
	u32 index;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/* The ucontext's AH index table; process context. */
void sroce_ah_table_init(struct sroce_ucontext *uctx);
void sroce_ah_table_destroy(struct sroce_ucontext *uctx);

struct sroce_ah_handle *sroce_ah_get_user(struct sroce_ucontext *uctx,
					  u32 index, const struct ib_pd *pd);
void sroce_ah_put(struct sroce_ah_handle *handle);

/* ib_device_ops */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);

#endif /* SROCE_AH_H */
