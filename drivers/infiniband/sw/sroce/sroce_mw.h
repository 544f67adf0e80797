/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mw.h - memory windows (type 1 and type 2B): allocation, bind,
 * invalidation, and the responder's lookup of a window's rkey.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"

struct sroce_dev;
struct sroce_qp;

/**
 * struct sroce_mw_table - a device's memory windows by key index
 * @xa: index -> struct sroce_win; lookups under RCU, updates in process
 *	context (alloc_mw, dealloc_mw)
 * @next: where the cyclic index search resumes; protected by xa_lock
 */
struct sroce_mw_table {
	struct xarray xa;
	u32 next;
};

/*
 * Window keys live in their own name space, told from MR keys by the top
 * bit: index << 8 | generation | SROCE_MW_KEY_BIT. MR indices stay far
 * below (SROCE_MAX_MR), so an MR lookup never finds a window's key and a
 * window lookup never an MR's; as an lkey a window key names nothing.
 */
#define SROCE_MW_KEY_BIT	BIT(31)

static inline bool sroce_key_is_mw(u32 key)
{
	return key & SROCE_MW_KEY_BIT;
}

static inline u32 sroce_mw_key_index(u32 key)
{
	return (key & ~SROCE_MW_KEY_BIT) >> SROCE_KEY_GEN_BITS;
}

enum sroce_win_state {
	SROCE_WIN_FREE,		/* no key reaches memory through it */
	SROCE_WIN_VALID,	/* bound: @key reaches [@va, @va + @length) */
};

/**
 * struct sroce_win_bind - what a window is bound to; one snapshot of it is
 *	consistent when read under struct sroce_win's @seq
 * @state: enum sroce_win_state
 * @key: the window's current rkey
 * @mr: the MR it is bound to (VALID only); the binding is counted in the
 *	MR's @mw_bound, so the MR cannot be deregistered under it
 * @qp, @qpn: type 2: the QP it is bound to and its number, compared only,
 *	never dereferenced (a QP made later at the same address would also
 *	need the same number, which comes back only after the cyclic QPN
 *	space wrapped)
 * @va, @length, @access: the bound range (in the MR's addresses) and the
 *	IB_ACCESS_REMOTE_* rights
 */
struct sroce_win_bind {
	u32 state;
	u32 key;
	struct sroce_mr *mr;
	const struct sroce_qp *qp;
	u32 qpn;
	u64 va;
	u64 length;
	int access;
};

/**
 * struct sroce_win - the state of one window, apart from ib_core's ib_mw
 *	(which ib_core frees as soon as dealloc_mw returns): lookups find
 *	it under RCU, and it is freed after a grace period
 * @lock: serialises bind, invalidation and dealloc (irqsave: the
 *	requester binds and invalidates under its QP lock, the responder
 *	invalidates in softirq)
 * @seq: write side under @lock around every change of @b; lookups read
 *	@b locklessly and retry
 * @b: the binding
 * @type: IB_MW_TYPE_1 or IB_MW_TYPE_2, for life
 * @pd: the window's protection domain, for life
 * @index: its slot in the device's window table, for life
 * @rcu: frees it after a grace period
 */
struct sroce_win {
	spinlock_t lock;
	seqcount_spinlock_t seq;
	struct sroce_win_bind b;
	enum ib_mw_type type;
	struct ib_pd *pd;
	u32 index;
	struct rcu_head rcu;
};

/**
 * struct sroce_mw - ib_core's memory window
 * @ibmw: ib_core's part (rkey: the key alloc_mw chose)
 * @win: the window's state, published in the device's window table
 */
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_win *win;
};

/* What a bind asks for, as the requester validated it from the WQE. */
struct sroce_mw_bind {
	u32 mw_key;	/* names the window (by index) */
	u32 new_key;	/* its key once bound: same index */
	u32 mr_lkey;	/* the MR underneath */
	u64 va;
	u64 length;
	int access;	/* IB_ACCESS_REMOTE_* */
};

/*
 * The checks of a bind that need no lock: the window's type and PD, the
 * key's index, the MR's PD, MW_BIND right and range, the rights asked.
 * Return: 0 or -EINVAL / -EACCES / -ERANGE.
 */
int sroce_mw_bind_check(enum ib_mw_type type, const struct ib_pd *win_pd,
			const struct sroce_mr *mr, const struct ib_pd *pd,
			const struct sroce_mw_bind *b);

/*
 * Can a remote access of @len bytes at @va with @access, from @qp (number
 * @qpn), go through a window whose binding is @b? It must be VALID and,
 * for type 2, bound to @qp; the rights and the range are the window's.
 * Return: 0, -EINVAL (not bound), -EACCES or -ERANGE.
 */
int sroce_win_check(const struct sroce_win_bind *b, const struct sroce_qp *qp,
		    u32 qpn, u64 va, u64 len, int access);

/*
 * BIND_MW from @qp's send queue: bind (type 1: rebind, or unbind for a
 * zero length) the window @b names. Any context; the caller holds the QP
 * lock. Return: 0 or a negative errno (the WQE completes MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_mw_bind *b);

/*
 * LOCAL_INV (@remote false) or a received SEND with invalidate on @qp:
 * a window's key makes that type 2 window FREE (type 1 windows refuse; a
 * remote invalidation must come through the QP the window is bound to),
 * any other key a VALID fast-reg MR of @qp's PD.
 * Return: 0 or a negative errno.
 */
int sroce_key_invalidate(struct sroce_qp *qp, u32 key, bool remote);

/*
 * The responder's rkey lookup when @rkey is a window's: checks the window
 * against @qp, @va, @len and @access and returns the MR underneath,
 * referenced (drop with sroce_mr_put()), or NULL.
 */
struct sroce_mr *sroce_mw_target(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access);

/* ib_device_ops */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

int sroce_mw_table_init(struct sroce_dev *sdev);
void sroce_mw_table_destroy(struct sroce_dev *sdev);

#endif /* SROCE_MW_H */
