// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_mr.c - memory regions: registration, keys, lookup and data copy.
 *
 * A registered MR pins the user's pages (ib_umem) and keeps an array of
 * them, so the data path reaches any byte with one index and one
 * kmap_local_page(), in any context, without sleeping.
 *
 * Kernel DMA MRs (get_dma_mr: ib_alloc_pd's local_dma_lkey, and the
 * unsafe global rkey) cover every kernel virtual address: sroce registers
 * without a DMA device, so ib_core's DMA mapping hands kernel consumers
 * virtual addresses (ib_uses_virt_dma) and the copy is a memcpy. Such an
 * MR belongs to a kernel PD, so the PD check already keeps user QPs away
 * from it; sroce_mr_check() refuses it to any user PD as well, so that no
 * mistake elsewhere can turn a user WQE or a user QP's peer into a kernel
 * memory access.
 *
 * Fast-reg MRs (alloc_mr, for kernel ULPs) are kernel memory too, mapped by
 * map_mr_sg into a list of page-sized chunks of kernel virtual addresses,
 * and reachable only while a REG_MR work request made them VALID, under
 * the key it named (sroce_mr_fast_reg); LOCAL_INV and a received SEND with
 * invalidate make them FREE again (sroce_mr_invalidate), after which every
 * lookup of the key fails at once.
 *
 * Lifetime. The device's table holds one reference; every data-path lookup
 * (sroce_mr_get) takes another for as long as it touches the pages, which
 * must be short: never across a sleep or a wait for the network.
 * Deregistration first removes the MR from the table, so no new lookup can
 * find it, then drops the table's reference and waits for the lookups in
 * flight. A lookup that read the table just before the removal may still be
 * about to take its reference: refcount_inc_not_zero() refuses once the
 * count reached zero, and the struct itself is freed after an RCU grace
 * period, so that late lookup never touches freed memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_mr.h"

/* What an sroce MR can grant; MW_BIND: windows onto it (sroce_mw.c). */
#define SROCE_MR_ACCESS_SUPPORTED \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
	 IB_ACCESS_MW_BIND)

int sroce_mr_table_init(struct sroce_dev *sdev)
{
	struct sroce_mr_table *table = &sdev->mr_table;

	/* Index 0 is never used, so no key collides with local_dma_lkey 0. */
	xa_init_flags(&table->xa, XA_FLAGS_ALLOC1);
	table->next = 1;
	spin_lock_init(&table->atomic_lock);
	return 0;
}

void sroce_mr_table_destroy(struct sroce_dev *sdev)
{
	/* ib_core destroyed every user object before dealloc_driver. */
	WARN_ON(!xa_empty(&sdev->mr_table.xa));
	xa_destroy(&sdev->mr_table.xa);
}

/*
 * Relaxed ordering is a hint a device may ignore (IB_ACCESS_OPTIONAL); any
 * other bit we cannot honour is refused rather than silently dropped.
 */
int sroce_mr_check_access(int access)
{
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~SROCE_MR_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;
	/* IBA: remote write or atomic access requires local write access. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/*
 * A zero-length MR is refused, as ib_umem_get() and therefore rxe refuse
 * it: there is nothing to pin, and a zero-length access needs no MR anyway.
 * The user address and the iova must share their page offset (ib_core's
 * write() path checks it too), and the iova range must not wrap.
 */
static int sroce_mr_check_reg(u64 start, u64 length, u64 iova, int access,
			      struct ib_udata *udata)
{
	u64 end;

	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (!length || check_add_overflow(iova, length, &end))
		return -EINVAL;
	if (offset_in_page(start) != offset_in_page(iova))
		return -EINVAL;
	return sroce_mr_check_access(access);
}

static int sroce_mr_fill_pages(struct sroce_mr *mr)
{
	struct sg_page_iter piter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(mr->umem);
	/* 8 bytes per pinned page, sized by the process: charged to it. */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   SROCE_GFP_USER_BULK);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &piter, 0) {
		if (WARN_ON_ONCE(i == mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	if (WARN_ON_ONCE(i != mr->npages)) {
		kvfree(mr->pages);
		mr->pages = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * Give @mr an index and its keys, then make it visible to lookups. The slot
 * is reserved empty first (xa_load() sees NULL there), so no lookup finds a
 * half-initialised MR; xa_store() publishes with release semantics.
 */
static int sroce_mr_publish(struct sroce_mr_table *table, struct sroce_mr *mr)
{
	u32 index, key;
	int err;

	err = xa_alloc_cyclic(&table->xa, &index, NULL,
			      XA_LIMIT(1, SROCE_MAX_MR), &table->next,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	/* A random key byte: knowing one key tells nothing of the next. */
	key = sroce_key_make(index, get_random_u8());
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->key = key;

	err = xa_err(xa_store(&table->xa, index, mr, GFP_KERNEL));
	if (err)
		xa_erase(&table->xa, index);
	return err;
}

/* What never changes for the life of a struct sroce_mr, rereg or not. */
static void sroce_mr_init_once(struct sroce_mr *mr)
{
	spin_lock_init(&mr->mw_lock);
}

static void sroce_mr_init_fields(struct sroce_mr *mr, struct ib_pd *ibpd,
				 u64 iova, u64 length, int access)
{
	mr->sdev = pd_to_sdev(ibpd);
	mr->pd = ibpd;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = offset_in_page(iova);
	mr->access = access & SROCE_MR_ACCESS_SUPPORTED;
	refcount_set(&mr->refs, 1);
	init_completion(&mr->released);
}

/**
 * sroce_reg_user_mr - ib_device_ops.reg_user_mr
 * @ibpd: protection domain
 * @start: user address of the region
 * @length: bytes, not zero
 * @iova: the address work requests and peers use for @start
 * @access: IB_ACCESS_* flags
 * @udata: driver data, none defined
 *
 * Return: the MR, or ERR_PTR(-EINVAL) for bad arguments, -EOPNOTSUPP for
 * access sroce does not implement, -ENOMEM when out of memory or MR slots,
 * or ib_umem_get()'s error (e.g. -EFAULT, -ENOMEM over RLIMIT_MEMLOCK).
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = pd_to_sdev(ibpd);
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_reg(start, length, iova, access, udata);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_init_once(mr);

	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free_mr;
	}
	err = sroce_mr_fill_pages(mr);
	if (err)
		goto err_release_umem;

	sroce_mr_init_fields(mr, ibpd, iova, length, access);
	err = sroce_mr_publish(&sdev->mr_table, mr);
	if (err)
		goto err_free_pages;
	return &mr->ibmr;

err_free_pages:
	kvfree(mr->pages);
err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sroce_get_dma_mr - ib_device_ops.get_dma_mr
 * @ibpd: a kernel protection domain
 * @access: IB_ACCESS_* flags (ib_alloc_pd asks for local write, and remote
 *	read and write for IB_PD_UNSAFE_GLOBAL_RKEY)
 *
 * Process context. Return: the MR, or ERR_PTR(-EINVAL) for a user PD or a
 * bad access combination, -EOPNOTSUPP for access sroce does not implement,
 * -ENOMEM.
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int err;

	if (ibpd->uobject)
		return ERR_PTR(-EINVAL);
	err = sroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_init_once(mr);
	sroce_mr_init_fields(mr, ibpd, 0, U64_MAX, access);
	mr->dma = true;
	err = sroce_mr_publish(&pd_to_sdev(ibpd)->mr_table, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_alloc_mr - ib_device_ops.alloc_mr: a fast-reg MR, FREE
 * @ibpd: a kernel protection domain
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages map_mr_sg may map, at most SROCE_MAX_FAST_REG_PAGES
 *
 * Process context. Return: the MR, or ERR_PTR(-EINVAL) for a user PD or
 * too many pages, -EOPNOTSUPP for another type, -ENOMEM.
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_mr *mr;
	int err = -ENOMEM;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (ibpd->uobject || !max_num_sg ||
	    max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_init_once(mr);
	mr->fr.pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->fr_next.pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->fr.pages || !mr->fr_next.pages)
		goto err_free;
	sroce_mr_init_fields(mr, ibpd, 0, 0, 0);
	mr->fast_reg = true;
	mr->fr_max_pages = max_num_sg;
	mr->fr_state = SROCE_FR_FREE;
	spin_lock_init(&mr->fr_lock);
	err = sroce_mr_publish(&pd_to_sdev(ibpd)->mr_table, mr);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	kfree(mr->fr.pages);
	kfree(mr->fr_next.pages);
	kfree(mr);
	return ERR_PTR(err);
}

/* ib_sg_to_pages() callback: one more chunk for the next REG_MR. */
static int sroce_mr_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_fr_map *next = &mr->fr_next;

	if (next->npages == mr->fr_max_pages)
		return -ENOMEM;
	next->pages[next->npages++] = addr;
	return 0;
}

/**
 * sroce_map_mr_sg - ib_device_ops.map_mr_sg
 * @ibmr: a fast-reg MR
 * @sg: DMA-mapped scatterlist: on sroce, kernel virtual addresses
 * @sg_nents: entries in @sg
 * @sg_offset: offset into the first entry, or NULL
 *
 * Builds the page list the next REG_MR of @ibmr takes (in @fr_next, which
 * no lookup reads: the MR may still be VALID with its previous list).
 * ib_core set ibmr->page_size; ib_sg_to_pages() sets iova and length.
 * Any context. Return: the number of entries mapped, or -EINVAL for a page
 * size under 4 KiB.
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_fr_map *next = &mr->fr_next;
	int n;

	if (!mr->fast_reg || ibmr->page_size < SZ_4K ||
	    !is_power_of_2(ibmr->page_size))
		return -EINVAL;
	next->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_mr_fr_set_page);
	next->page_shift = ilog2(ibmr->page_size);
	/* iova is the first byte's (virtual) DMA address until the ULP moves it. */
	next->offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/* Does [@offset, @offset + @length) fit the chunks of @map? */
static bool sroce_fr_map_covers(const struct sroce_fr_map *map, u64 length)
{
	u64 bytes = (u64)map->npages << map->page_shift;

	return map->npages && length <= bytes - map->offset;
}

/*
 * REG_MR's checks beyond the state: the PD, the index, the access, the
 * range. An atomic target must be 8-aligned in memory as it is in iova.
 */
static int sroce_mr_fast_reg_check(struct sroce_mr *mr, struct ib_pd *pd,
				   u32 key, int access, u64 iova, u64 length)
{
	u64 end;

	if (!mr->fast_reg || mr->pd != pd)
		return -EACCES;
	if (sroce_key_index(key) != sroce_key_index(mr->key) ||
	    sroce_mr_check_access(access) ||
	    check_add_overflow(iova, length, &end) ||
	    !sroce_fr_map_covers(&mr->fr_next, length))
		return -EINVAL;
	if ((access & IB_ACCESS_REMOTE_ATOMIC) &&
	    ((iova ^ mr->fr_next.offset) & (sizeof(u64) - 1)))
		return -EINVAL;
	return 0;
}

/*
 * The translation of a FREE MR is rewritten only when no lookup from
 * before its invalidation can still be using it: those hold references.
 * @mr->refs counts the table's, the caller's and any such lookup's.
 */
#define SROCE_FR_REFS_IDLE	2

int sroce_mr_fast_reg(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
		      int access, u64 iova, u64 length)
{
	unsigned long flags;
	int err;

	err = sroce_mr_fast_reg_check(mr, pd, key, access, iova, length);
	if (err)
		return err;
	spin_lock_irqsave(&mr->fr_lock, flags);
	if (mr->fr_state != SROCE_FR_FREE) {
		err = -EINVAL;
		goto out;
	}
	WRITE_ONCE(mr->fr_state, SROCE_FR_BUSY);
	/* State before references: pairs with sroce_mr_key_usable(). */
	smp_mb();
	if (refcount_read(&mr->refs) > SROCE_FR_REFS_IDLE) {
		WRITE_ONCE(mr->fr_state, SROCE_FR_FREE);
		err = -EAGAIN;
		goto out;
	}
	memcpy(mr->fr.pages, mr->fr_next.pages,
	       mr->fr_next.npages * sizeof(u64));
	mr->fr.npages = mr->fr_next.npages;
	mr->fr.page_shift = mr->fr_next.page_shift;
	mr->fr.offset = mr->fr_next.offset;
	mr->iova = iova;
	mr->length = length;
	mr->access = access & SROCE_MR_ACCESS_SUPPORTED;
	WRITE_ONCE(mr->key, key);
	/*
	 * Release: all of the above before a lookup can see VALID; pairs
	 * with the load-acquire of fr_state in sroce_mr_key_usable().
	 */
	smp_store_release(&mr->fr_state, SROCE_FR_VALID);
out:
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	return err;
}

/*
 * VALID -> FREE if @key is @mr's current key. Any context.
 * Return: 0; -EACCES (not a fast-reg MR of @pd) or -EINVAL (other key, or
 * not VALID).
 */
SROCE_VISIBLE_IF_KUNIT int sroce_mr_invalidate(struct sroce_mr *mr,
					       struct ib_pd *pd, u32 key)
{
	unsigned long flags;
	int err = 0;

	if (!mr->fast_reg || mr->pd != pd)
		return -EACCES;
	spin_lock_irqsave(&mr->fr_lock, flags);
	if (mr->fr_state != SROCE_FR_VALID || mr->key != key)
		err = -EINVAL;
	else
		WRITE_ONCE(mr->fr_state, SROCE_FR_FREE);
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	return err;
}

int sroce_mr_invalidate_key(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr = sroce_mr_get_fast_reg(sdev, key);
	int err;

	if (!mr)
		return -EINVAL;
	err = sroce_mr_invalidate(mr, pd, key);
	sroce_mr_put(mr);
	return err;
}

int sroce_mr_mw_hold(struct sroce_mr *mr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->mw_lock, flags);
	if (mr->mw_closed)
		err = -EINVAL;
	else
		mr->mw_bound++;
	spin_unlock_irqrestore(&mr->mw_lock, flags);
	return err;
}

void sroce_mr_mw_release(struct sroce_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->mw_lock, flags);
	WARN_ON_ONCE(!mr->mw_bound);
	mr->mw_bound--;
	spin_unlock_irqrestore(&mr->mw_lock, flags);
}

/*
 * Before a dereg or rereg: no window may be bound (IBA: the MR is busy),
 * and none may bind until sroce_mr_mw_open(). Return: 0 or -EBUSY.
 */
static int sroce_mr_mw_close(struct sroce_mr *mr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->mw_lock, flags);
	if (mr->mw_bound)
		err = -EBUSY;
	else
		mr->mw_closed = true;
	spin_unlock_irqrestore(&mr->mw_lock, flags);
	return err;
}

static void sroce_mr_mw_open(struct sroce_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->mw_lock, flags);
	mr->mw_closed = false;
	spin_unlock_irqrestore(&mr->mw_lock, flags);
}

/*
 * Make @mr unreachable and wait until the data path is done with it: after
 * this, nothing reads its fields until it is published again. The slot
 * stays reserved (an allocating xarray keeps a NULL store as a
 * reservation, which lookups see as empty), so republishing in place
 * needs no memory and cannot fail.
 */
static void sroce_mr_hide(struct sroce_mr *mr)
{
	xa_store(&mr->sdev->mr_table.xa, sroce_key_index(mr->key), NULL,
		 GFP_KERNEL);
	/* The table's reference; the last put completes @released. */
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);
}

/**
 * sroce_dereg_mr - ib_device_ops.dereg_mr
 * @ibmr: the MR; driver-allocated, so freed here
 * @udata: unused
 *
 * Sleeps until every data-path user of the MR is done with it.
 * Return: 0, or -EBUSY while memory windows are bound to it (nothing
 * changed).
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	int err;

	err = sroce_mr_mw_close(mr);
	if (err)
		return err;
	sroce_mr_hide(mr);
	xa_erase(&mr->sdev->mr_table.xa, sroce_key_index(mr->key));
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->fr.pages);
	kfree(mr->fr_next.pages);
	kfree_rcu(mr, rcu);
	return 0;
}

/* The new translation of a rereg: pinned before the MR is touched. */
struct sroce_mr_pin {
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
};

static int sroce_mr_pin(struct sroce_mr *mr, u64 start, u64 length, int access,
			struct sroce_mr_pin *pin)
{
	struct sroce_mr tmp = { };
	int err;

	tmp.umem = ib_umem_get(mr->ibmr.device, start, length, access);
	if (IS_ERR(tmp.umem))
		return PTR_ERR(tmp.umem);
	err = sroce_mr_fill_pages(&tmp);
	if (err) {
		ib_umem_release(tmp.umem);
		return err;
	}
	pin->umem = tmp.umem;
	pin->pages = tmp.pages;
	pin->npages = tmp.npages;
	return 0;
}

/* Swap the translation in; @pin gets the old one, to release. */
static void sroce_mr_swap_pin(struct sroce_mr *mr, struct sroce_mr_pin *pin)
{
	swap(mr->umem, pin->umem);
	swap(mr->pages, pin->pages);
	swap(mr->npages, pin->npages);
}

/*
 * New keys for a new translation: same index, a random generation byte
 * different from the old one, so no key handed out before matches.
 */
static u32 sroce_mr_next_key(struct sroce_mr_table *table, u32 old_key)
{
	u8 gen;

	do {
		gen = get_random_u8();
	} while (gen == (old_key & SROCE_KEY_GEN_MASK));
	return sroce_key_make(sroce_key_index(old_key), gen);
}

/*
 * A rereg must pin anew when the range changes, or when it grants write
 * access to pages pinned without it (they may be shared copy-on-write).
 */
static bool sroce_mr_needs_pin(struct sroce_mr *mr, int flags, int access)
{
	return (flags & IB_MR_REREG_TRANS) ||
	       (ib_access_writable(access) && !mr->umem->writable);
}

static int sroce_mr_check_rereg(int flags, u64 start, u64 length, u64 iova,
				int access, struct ib_udata *udata)
{
	if (flags & IB_MR_REREG_TRANS)
		return sroce_mr_check_reg(start, length, iova, access, udata);
	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return sroce_mr_check_access(access);
}

/**
 * sroce_rereg_user_mr - ib_device_ops.rereg_user_mr, always in place
 * @ibmr: the MR
 * @flags: IB_MR_REREG_TRANS, _PD and/or _ACCESS
 * @start: user address of the new range (IB_MR_REREG_TRANS)
 * @length: bytes of the new range (IB_MR_REREG_TRANS)
 * @iova: the address peers use for @start (IB_MR_REREG_TRANS)
 * @access: the new IB_ACCESS_* flags (IB_MR_REREG_ACCESS)
 * @ibpd: the new protection domain (ib_core passes the old one otherwise)
 * @udata: driver data, none defined
 *
 * A new range is pinned first, so a failure changes nothing. Then the MR
 * leaves the table, the data path drains from it (sroce_mr_hide), the
 * fields change, and it comes back at the same index. A new translation
 * gets a new key generation, so a key from before the call cannot reach
 * the new pages; a change of access or PD keeps the keys, as RNICs do and
 * applications expect: the new rights and PD apply to the old key at once.
 * An access racing with the call is refused. ib_core updates ibmr.pd,
 * .iova and .length itself for an in-place rereg.
 * Return: NULL (in place) or ERR_PTR(-EINVAL, -EOPNOTSUPP, -EBUSY while
 * memory windows are bound to the MR, or the pin's error).
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_mr_table *table = &mr->sdev->mr_table;
	struct sroce_mr_pin pin = { };
	u32 key;
	int err;

	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	err = sroce_mr_check_rereg(flags, start, length, iova, access, udata);
	if (err)
		return ERR_PTR(err);
	err = sroce_mr_mw_close(mr);
	if (err)
		return ERR_PTR(err);
	if (sroce_mr_needs_pin(mr, flags, access)) {
		err = sroce_mr_pin(mr, start, length, access, &pin);
		if (err) {
			sroce_mr_mw_open(mr);
			return ERR_PTR(err);
		}
	}

	sroce_mr_hide(mr);
	/* A lookup that found the MR before it left may still be racing. */
	synchronize_rcu();
	if (pin.umem)
		sroce_mr_swap_pin(mr, &pin);
	key = mr->key;
	if (flags & IB_MR_REREG_TRANS)
		key = sroce_mr_next_key(table, key);
	sroce_mr_init_fields(mr, ibpd, iova, length, access);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->key = key;
	/* Replaces the reservation: allocates nothing. Release: publishes. */
	xa_store(&table->xa, sroce_key_index(key), mr, GFP_KERNEL);
	sroce_mr_mw_open(mr);

	if (pin.umem) {
		ib_umem_release(pin.umem);
		kvfree(pin.pages);
	}
	return NULL;
}

/* The MR in @key's slot, referenced, whatever its key byte or state. */
static struct sroce_mr *sroce_mr_get_slot(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_table.xa, sroce_key_index(key));
	if (mr && !refcount_inc_not_zero(&mr->refs))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/*
 * Does @key reach @mr now? Its key matches exactly and, for a fast-reg
 * MR, the MR is VALID. The caller holds a reference on @mr.
 */
SROCE_VISIBLE_IF_KUNIT bool sroce_mr_key_usable(struct sroce_mr *mr, u32 key)
{
	if (!mr->fast_reg)
		return mr->key == key;
	/*
	 * Our reference before the state: pairs with the full barrier in
	 * sroce_mr_fast_reg() between leaving FREE and counting references,
	 * so either it sees this lookup and waits, or this lookup sees that
	 * the MR is not VALID (yet).
	 */
	smp_mb();
	/*
	 * Acquire: the key and translation the REG_MR published with it;
	 * pairs with the store-release of VALID in sroce_mr_fast_reg().
	 */
	if (smp_load_acquire(&mr->fr_state) != SROCE_FR_VALID)
		return false;
	return READ_ONCE(mr->key) == key;
}

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr = sroce_mr_get_slot(sdev, key);

	/* Same slot, older or newer generation: not the MR the key named. */
	if (mr && !sroce_mr_key_usable(mr, key)) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

struct sroce_mr *sroce_mr_get_fast_reg(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr = sroce_mr_get_slot(sdev, key);

	if (mr && !mr->fast_reg) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->refs))
		complete(&mr->released);
}

int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 va, u64 len,
		   int access)
{
	if (mr->pd != pd || (mr->access & access) != access)
		return -EACCES;
	/* Defence in depth: a kernel MR never serves a process. */
	if ((mr->dma || mr->fast_reg) && pd->uobject)
		return -EACCES;
	return sroce_range_inside(mr->iova, mr->length, va, len);
}

/* Byte offset of @va from the start of mr->pages[0]. */
static u64 sroce_mr_offset(struct sroce_mr *mr, u64 va)
{
	return va - mr->iova + mr->page_offset;
}

/*
 * Map the page holding byte @off and shrink *@len to what of it lies in
 * that page. Undo with sroce_mr_unmap().
 */
static void *sroce_mr_map(struct sroce_mr *mr, u64 off, u32 *len,
			  struct page **page)
{
	*page = mr->pages[off >> PAGE_SHIFT];
	*len = min_t(u32, *len, PAGE_SIZE - offset_in_page(off));
	return kmap_local_page(*page) + offset_in_page(off);
}

static void sroce_mr_unmap(struct page *page, void *addr, bool written)
{
	kunmap_local(addr);
	/* The process may map the page at another cache colour. */
	if (written)
		flush_dcache_page(page);
}

/* Copies one piece of a range; @addr is mapped MR memory. */
typedef int (*sroce_mr_piece_fn)(void *addr, u32 len, void *arg);

/*
 * Kernel address of byte @va of a VALID fast-reg MR; *@len shrinks to
 * what of it lies in the same chunk of the page list.
 */
static void *sroce_mr_fr_addr(struct sroce_mr *mr, u64 va, u32 *len)
{
	const struct sroce_fr_map *map = &mr->fr;
	u64 off = va - mr->iova + map->offset;
	u64 in_page = off & ((1ULL << map->page_shift) - 1);

	*len = min_t(u64, *len, (1ULL << map->page_shift) - in_page);
	return (void *)(uintptr_t)(map->pages[off >> map->page_shift] + in_page);
}

/* Kernel memory is mapped already: no kmap, no cache flush. */
static int sroce_mr_walk_fr(struct sroce_mr *mr, u64 va, u32 len,
			    sroce_mr_piece_fn fn, void *arg)
{
	while (len) {
		u32 piece = len;
		void *addr = sroce_mr_fr_addr(mr, va, &piece);
		int err = fn(addr, piece, arg);

		if (err)
			return err;
		va += piece;
		len -= piece;
	}
	return 0;
}

/* Walk [@va, @va + @len) of @mr page by page, calling @fn on each piece. */
static int sroce_mr_walk(struct sroce_mr *mr, u64 va, u32 len, bool written,
			 sroce_mr_piece_fn fn, void *arg)
{
	u64 off = sroce_mr_offset(mr, va);

	/* Kernel memory is mapped already, and contiguous. */
	if (mr->dma)
		return len ? fn((void *)(uintptr_t)va, len, arg) : 0;
	if (mr->fast_reg)
		return sroce_mr_walk_fr(mr, va, len, fn, arg);
	while (len) {
		struct page *page;
		u32 piece = len;
		void *addr = sroce_mr_map(mr, off, &piece, &page);
		int err = fn(addr, piece, arg);

		sroce_mr_unmap(page, addr, written && !err);
		if (err)
			return err;
		off += piece;
		len -= piece;
	}
	return 0;
}

struct sroce_mr_buf {
	void *buf;
	enum sroce_copy_dir dir;
};

static int sroce_mr_copy_buf_piece(void *addr, u32 len, void *arg)
{
	struct sroce_mr_buf *b = arg;

	if (b->dir == SROCE_COPY_TO_MR)
		memcpy(addr, b->buf, len);
	else
		memcpy(b->buf, addr, len);
	b->buf += len;
	return 0;
}

void sroce_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	struct sroce_mr_buf b = { .buf = buf, .dir = dir };

	sroce_mr_walk(mr, va, len, dir == SROCE_COPY_TO_MR,
		      sroce_mr_copy_buf_piece, &b);
}

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
struct sroce_mr_skb {
	const struct sk_buff *skb;
	int offset;
};

static int sroce_mr_copy_skb_piece(void *addr, u32 len, void *arg)
{
	struct sroce_mr_skb *s = arg;
	int err;

	err = skb_copy_bits(s->skb, s->offset, addr, len);
	s->offset += len;
	return err;
}

int sroce_mr_copy_from_skb(struct sroce_mr *mr, u64 va,
			   const struct sk_buff *skb, int offset, u32 len)
{
	struct sroce_mr_skb s = { .skb = skb, .offset = offset };

	return sroce_mr_walk(mr, va, len, true, sroce_mr_copy_skb_piece, &s);
}
#endif

/*
 * The lock makes sroce atomics atomic with respect to each other, as IBA
 * requires of one HCA (IB_ATOMIC_HCA); the process's own CPU atomics on the
 * same memory are not ordered against them, as with rxe.
 */
u64 sroce_mr_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 compare_add,
		    u64 swap)
{
	spinlock_t *lock = &mr->sdev->mr_table.atomic_lock;
	u32 len = sizeof(u64);
	unsigned long flags;
	struct page *page;
	u64 orig, *p;

	/* The caller checked alignment; an unaligned u64 could cross pages. */
	if (WARN_ON_ONCE(!IS_ALIGNED(va, sizeof(u64))))
		return 0;
	if (mr->dma) {
		page = NULL;
		p = (u64 *)(uintptr_t)va;
	} else if (mr->fast_reg) {
		page = NULL;
		p = sroce_mr_fr_addr(mr, va, &len);
		/* sroce_mr_fast_reg() refused atomics where this could fail. */
		if (WARN_ON_ONCE(!IS_ALIGNED((uintptr_t)p, sizeof(u64))))
			return 0;
	} else {
		p = sroce_mr_map(mr, sroce_mr_offset(mr, va), &len, &page);
	}

	spin_lock_irqsave(lock, flags);
	orig = READ_ONCE(*p);
	if (!cmp_swap)
		WRITE_ONCE(*p, orig + compare_add);
	else if (orig == compare_add)
		WRITE_ONCE(*p, swap);
	spin_unlock_irqrestore(lock, flags);

	if (page)
		sroce_mr_unmap(page, p, true);
	return orig;
}
