// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_mw.c - memory windows: a remote key onto part of an MR, with
 * rights of its own, bound and unbound by work requests.
 *
 * A window is FREE or VALID. BIND_MW, a local operation of the send queue
 * (sroce_req.c), makes it VALID over [va, va + length) of an MR of the
 * same PD with MW_BIND access, under a new key with the same index: type 1
 * windows are bound through ibv_bind_mw() (the provider posts the same
 * WQE) and may be rebound or unbound (zero length) while VALID; type 2
 * windows are bound only while FREE, belong to the QP that bound them,
 * and become FREE again by LOCAL_INV or a SEND with invalidate received on
 * that QP. Type 1 windows cannot be invalidated.
 *
 * The responder resolves a window's key to the MR beneath it
 * (sroce_mw_target), checking the window's rights and range, then the MR
 * is used as if the peer had named it. A bound window holds its MR: the
 * MR's dereg and rereg fail with EBUSY while any window is bound to it
 * (sroce_mr_mw_hold), so the MR a lookup finds through a VALID binding
 * is alive; the lookup takes a reference on it and reads the binding
 * again, so an access that raced with an invalidation or a dealloc fails.
 *
 * Lifetime: ib_core frees struct sroce_mw when dealloc_mw returns, so the
 * window's state lives apart (struct sroce_win), leaves the table first,
 * and is freed after an RCU grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_mw.h"
#include "sroce_qp.h"

/* What a window can grant: remote rights only, never zero-based. */
#define SROCE_MW_ACCESS_SUPPORTED \
	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
	 IB_ACCESS_REMOTE_ATOMIC)

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

static u32 sroce_mw_key_make(u32 index, u8 gen)
{
	return SROCE_MW_KEY_BIT | sroce_key_make(index, gen);
}

int sroce_mw_table_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->mw_table.xa, XA_FLAGS_ALLOC1);
	sdev->mw_table.next = 1;
	return 0;
}

void sroce_mw_table_destroy(struct sroce_dev *sdev)
{
	/* ib_core deallocated every window before dealloc_driver. */
	WARN_ON(!xa_empty(&sdev->mw_table.xa));
	xa_destroy(&sdev->mw_table.xa);
}

int sroce_mw_bind_check(enum ib_mw_type type, const struct ib_pd *win_pd,
			const struct sroce_mr *mr, const struct ib_pd *pd,
			const struct sroce_mw_bind *b)
{
	if (win_pd != pd)
		return -EACCES;
	if (!sroce_key_is_mw(b->new_key) ||
	    sroce_mw_key_index(b->new_key) != sroce_mw_key_index(b->mw_key))
		return -EINVAL;
	if (b->access & ~SROCE_MW_ACCESS_SUPPORTED)
		return -EINVAL;
	/* A type 1 bind of zero length unbinds: no MR needed. */
	if (type == IB_MW_TYPE_1 && !b->length)
		return 0;
	if (!mr)
		return -EINVAL;
	if (mr->pd != pd || mr->dma || mr->fast_reg ||
	    !(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	/* IBA: remote write or atomic rights need local write on the MR. */
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	return sroce_range_inside(mr->iova, mr->length, b->va, b->length);
}

int sroce_win_check(const struct sroce_win_bind *b, const struct sroce_qp *qp,
		    u32 qpn, u64 va, u64 len, int access)
{
	if (b->state != SROCE_WIN_VALID)
		return -EINVAL;
	if (b->qp && (b->qp != qp || b->qpn != qpn))
		return -EACCES;
	if ((b->access & access) != access)
		return -EACCES;
	return sroce_range_inside(b->va, b->length, va, len);
}

/* Change @win's binding to @nb; returns the MR the old one held. */
static struct sroce_mr *sroce_win_set(struct sroce_win *win,
				      const struct sroce_win_bind *nb)
{
	struct sroce_mr *old = win->b.state == SROCE_WIN_VALID ? win->b.mr : NULL;

	lockdep_assert_held(&win->lock);
	write_seqcount_begin(&win->seq);
	win->b = *nb;
	write_seqcount_end(&win->seq);
	return old;
}

int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_mw_bind *b)
{
	struct ib_pd *pd = qp->ibqp.pd;
	struct sroce_win_bind nb = {};
	struct sroce_mr *mr = NULL, *old = NULL;
	struct sroce_win *win;
	unsigned long flags;
	int err = -EINVAL;

	if (!sroce_key_is_mw(b->mw_key))
		return -EINVAL;
	rcu_read_lock();
	win = xa_load(&qp->sdev->mw_table.xa, sroce_mw_key_index(b->mw_key));
	if (!win)
		goto out;
	if (b->length || win->type == IB_MW_TYPE_2)
		mr = sroce_mr_get(qp->sdev, b->mr_lkey);
	err = sroce_mw_bind_check(win->type, win->pd, mr, pd, b);
	if (err)
		goto out;
	nb.key = b->new_key;
	if (win->type == IB_MW_TYPE_2 || b->length) {
		/* Counts the binding in the MR; fails if it is going away. */
		err = sroce_mr_mw_hold(mr);
		if (err)
			goto out;
		nb.state = SROCE_WIN_VALID;
		nb.mr = mr;
		if (win->type == IB_MW_TYPE_2) {
			nb.qp = qp;
			nb.qpn = qp->ibqp.qp_num;
		}
		nb.va = b->va;
		nb.length = b->length;
		nb.access = b->access;
	}
	spin_lock_irqsave(&win->lock, flags);
	/* A type 2 window is bound only when FREE (IBA 10.6.7.2). */
	if (win->type == IB_MW_TYPE_2 && win->b.state != SROCE_WIN_FREE)
		err = -EINVAL;
	else
		old = sroce_win_set(win, &nb);
	spin_unlock_irqrestore(&win->lock, flags);
	if (err && nb.mr)
		sroce_mr_mw_release(nb.mr);
	if (old)
		sroce_mr_mw_release(old);
out:
	rcu_read_unlock();
	if (mr)
		sroce_mr_put(mr);
	return err;
}

/*
 * Make the type 2 window @key names FREE; a remote invalidation must come
 * through the QP the window is bound to. Type 1 windows refuse.
 */
static int sroce_mw_invalidate(struct sroce_qp *qp, u32 key, bool remote)
{
	struct sroce_win_bind nb = { .state = SROCE_WIN_FREE, .key = key };
	struct sroce_mr *old = NULL;
	struct sroce_win *win;
	unsigned long flags;
	int err = -EINVAL;

	rcu_read_lock();
	win = xa_load(&qp->sdev->mw_table.xa, sroce_mw_key_index(key));
	if (!win || win->pd != qp->ibqp.pd) {
		err = -EACCES;
		goto out;
	}
	/* Type 1 windows are invalidated only by binding them again. */
	if (win->type != IB_MW_TYPE_2)
		goto out;
	spin_lock_irqsave(&win->lock, flags);
	if (win->b.state == SROCE_WIN_VALID && win->b.key == key &&
	    (!remote || (win->b.qp == qp && win->b.qpn == qp->ibqp.qp_num))) {
		old = sroce_win_set(win, &nb);
		err = 0;
	}
	spin_unlock_irqrestore(&win->lock, flags);
	if (old)
		sroce_mr_mw_release(old);
out:
	rcu_read_unlock();
	return err;
}

int sroce_key_invalidate(struct sroce_qp *qp, u32 key, bool remote)
{
	if (sroce_key_is_mw(key))
		return sroce_mw_invalidate(qp, key, remote);
	return sroce_mr_invalidate_key(qp->sdev, qp->ibqp.pd, key);
}

struct sroce_mr *sroce_mw_target(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access)
{
	struct sroce_mr *mr = NULL;
	struct sroce_win_bind b;
	struct sroce_win *win;
	unsigned int seq;

	rcu_read_lock();
	win = xa_load(&qp->sdev->mw_table.xa, sroce_mw_key_index(rkey));
	if (!win || win->pd != qp->ibqp.pd)
		goto out;
	do {
		seq = read_seqcount_begin(&win->seq);
		b = win->b;
	} while (read_seqcount_retry(&win->seq, seq));
	if (b.key != rkey ||
	    sroce_win_check(&b, qp, qp->ibqp.qp_num, va, len, access))
		goto out;
	/*
	 * The MR was bound at the snapshot, so it was not deregistered yet
	 * and, freed by RCU, is still readable here.
	 */
	if (!refcount_inc_not_zero(&b.mr->refs))
		goto out;
	/* Our reference before the re-read: an unbind since then fails us. */
	smp_mb();
	if (read_seqcount_retry(&win->seq, seq) ||
	    sroce_mr_check(b.mr, b.mr->pd, va, len, 0)) {
		sroce_mr_put(b.mr);
		goto out;
	}
	mr = b.mr;
out:
	rcu_read_unlock();
	return mr;
}

/**
 * sroce_alloc_mw - ib_device_ops.alloc_mw
 * @ibmw: ib_core's window: device, pd and type set
 * @udata: driver data, none defined
 *
 * The window starts FREE with a key of its own index and a random key
 * byte. Process context. Return: 0, -EINVAL (unknown type or driver
 * data), -ENOMEM (out of memory or of window slots).
 */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw_table *table = &sdev->mw_table;
	struct sroce_win *win;
	u32 index;
	int err;

	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	win = kzalloc(sizeof(*win), GFP_KERNEL_ACCOUNT);
	if (!win)
		return -ENOMEM;
	spin_lock_init(&win->lock);
	seqcount_spinlock_init(&win->seq, &win->lock);
	win->type = ibmw->type;
	win->pd = ibmw->pd;

	/* Reserved empty first, published whole by xa_store(). */
	err = xa_alloc_cyclic(&table->xa, &index, NULL,
			      XA_LIMIT(1, SROCE_MAX_MW), &table->next,
			      GFP_KERNEL);
	if (err < 0) {
		kfree(win);
		return err == -EBUSY ? -ENOMEM : err;
	}
	win->index = index;
	win->b.state = SROCE_WIN_FREE;
	win->b.key = sroce_mw_key_make(index, get_random_u8());
	ibmw->rkey = win->b.key;
	to_smw(ibmw)->win = win;
	err = xa_err(xa_store(&table->xa, index, win, GFP_KERNEL));
	if (err) {
		xa_erase(&table->xa, index);
		kfree(win);
	}
	return err;
}

/**
 * sroce_dealloc_mw - ib_device_ops.dealloc_mw
 * @ibmw: the window, bound or not
 *
 * Unbinds it (the MR is free to go) and frees its state after a grace
 * period. Process context. Return: 0.
 */
int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_win *win = to_smw(ibmw)->win;
	struct sroce_win_bind nb = { .state = SROCE_WIN_FREE };
	struct sroce_mr *old;
	unsigned long flags;

	xa_erase(&to_sdev(ibmw->device)->mw_table.xa, win->index);
	spin_lock_irqsave(&win->lock, flags);
	nb.key = win->b.key;
	old = sroce_win_set(win, &nb);
	spin_unlock_irqrestore(&win->lock, flags);
	if (old)
		sroce_mr_mw_release(old);
	kfree_rcu(win, rcu);
	return 0;
}
