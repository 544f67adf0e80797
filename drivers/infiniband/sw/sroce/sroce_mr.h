/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mr.h - memory regions: registration, keys, lookup, data copy.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct sk_buff;
struct sroce_dev;

/**
 * struct sroce_mr_table - a device's MRs by key index
 * @xa: index -> struct sroce_mr; lookups under RCU, updates under xa_lock
 *	(process context only: reg and dereg)
 * @next: where the cyclic index search resumes; protected by xa_lock
 * @atomic_lock: serialises every sroce_mr_atomic() on the device, so two
 *	atomics on one address never interleave; taken with irqsave from any
 *	context
 */
struct sroce_mr_table {
	struct xarray xa;
	u32 next;
	spinlock_t atomic_lock;
};

/*
 * Keys: lkey == rkey == index << 8 | generation. The index names the slot
 * in the device's MR table (handed out cyclically, so a slot comes back only
 * after the whole table); the generation byte is random per registration, so
 * neither a key kept after ibv_dereg_mr() nor the keys of earlier MRs tell
 * the next MR's key.
 */
#define SROCE_KEY_GEN_BITS	8
#define SROCE_KEY_GEN_MASK	((1U << SROCE_KEY_GEN_BITS) - 1)

static inline u32 sroce_key_make(u32 index, u8 gen)
{
	return index << SROCE_KEY_GEN_BITS | gen;
}

static inline u32 sroce_key_index(u32 key)
{
	return key >> SROCE_KEY_GEN_BITS;
}

/*
 * Fast registration (alloc_mr + map_mr_sg + IB_WR_REG_MR), kernel PDs only.
 * A fast-reg MR is FREE (no key reaches it) or VALID (its current key,
 * with the access and range of the REG_MR that made it valid). BUSY is
 * only seen while a REG_MR changes the translation.
 */
enum sroce_fr_state {
	SROCE_FR_FREE,
	SROCE_FR_BUSY,
	SROCE_FR_VALID,
};

/**
 * struct sroce_fr_map - a fast-reg MR's page list (ib_sg_to_pages)
 * @pages: kernel virtual address of each chunk of 1 << @page_shift bytes
 *	(sroce is a virtual-DMA device: DMA addresses are virtual addresses)
 * @npages: entries in @pages
 * @page_shift: log2 of the page size, at least 12
 * @offset: offset of the first mapped byte in @pages[0]
 */
struct sroce_fr_map {
	u64 *pages;
	u32 npages;
	u32 page_shift;
	u32 offset;
};

/**
 * struct sroce_mr - a registered memory region
 * @ibmr: ib_core's part; lkey/rkey set at registration
 * @sdev: owning device
 * @pd: the protection domain, set before the MR is published (ib_core
 *	fills ibmr.pd only after reg_user_mr returns)
 * @dma: a kernel DMA MR (get_dma_mr): addresses are kernel virtual
 *	addresses (sroce is a virtual-DMA device), the range is all of them,
 *	and no user PD ever reaches it; @umem and @pages are unused
 * @fast_reg: a fast-reg MR (alloc_mr): kernel PD only, translated by @fr;
 *	@umem and @pages are unused
 * @key: the key lookups match (lkey == rkey). ib_core's ibmr.lkey is
 *	not used for that: ULPs change its low byte at will
 *	(ib_update_fast_reg_key) before posting the REG_MR that makes it true
 * @umem: the pinned pages
 * @pages: page of each PAGE_SIZE chunk of [iova & PAGE_MASK, iova + length)
 * @npages: entries in @pages
 * @iova: first valid address (the address the peer and the WQEs use)
 * @length: bytes from @iova
 * @page_offset: offset of @iova in its page (and of the user address: ib_core
 *	requires both to share it)
 * @access: IB_ACCESS_* flags
 * @refs: lookups in flight plus the table's own reference
 * @released: completed when the last lookup drops its reference after
 *	deregistration started, so dereg waits for data copies in flight
 * @rcu: frees the struct after a grace period: a lookup that found it just
 *	before it left the table may still try to take a reference
 * @fr_lock: serialises the state changes of a fast-reg MR (REG_MR, local
 *	and remote invalidation, from any QP of its PD); lookups take none
 * @fr_state: enum sroce_fr_state; written under @fr_lock, read locklessly
 * @fr_max_pages: room in @fr.pages and @fr_next.pages (alloc_mr's max_num_sg)
 * @fr: the translation of the VALID registration
 * @fr_next: what the last map_mr_sg built; the next REG_MR copies it to @fr
 * @mw_lock: protects @mw_bound and @mw_closed (irqsave: binds run under
 *	a QP lock, invalidations in softirq)
 * @mw_bound: memory windows bound to the MR (sroce_mw.c)
 * @mw_closed: dereg or rereg under way: no window may bind to it
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	bool dma;
	bool fast_reg;
	u32 key;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	u64 iova;
	u64 length;
	unsigned int page_offset;
	int access;
	refcount_t refs;
	struct completion released;
	struct rcu_head rcu;
	spinlock_t fr_lock;
	u32 fr_state;
	u32 fr_max_pages;
	struct sroce_fr_map fr;
	struct sroce_fr_map fr_next;
	spinlock_t mw_lock;
	u32 mw_bound;
	bool mw_closed;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/*
 * Lookup for the data path: any context, including softirq. Returns a
 * referenced MR whose key matches exactly, or NULL. Drop with sroce_mr_put().
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);

/*
 * Lookup of a fast-reg MR by the index in @key, whatever its state and key
 * byte (REG_MR and invalidation): referenced, or NULL if the slot holds no
 * fast-reg MR. Drop with sroce_mr_put().
 */
struct sroce_mr *sroce_mr_get_fast_reg(struct sroce_dev *sdev, u32 key);

/*
 * REG_MR on @mr, for a QP of @pd: FREE -> VALID with @key (same index, any
 * key byte), @access, and [@iova, @iova + @length) over the page list
 * map_mr_sg built. Any context; the caller holds one reference on @mr
 * (beside the table's).
 * Return: 0; -EACCES (not a fast-reg MR of @pd), -EINVAL (not FREE,
 * another index, bad access, or a range past the page list), or -EAGAIN:
 * lookups from before the MR was invalidated still use the old
 * translation; nothing changed, try again later.
 */
int sroce_mr_fast_reg(struct sroce_mr *mr, struct ib_pd *pd, u32 key,
		      int access, u64 iova, u64 length);

/*
 * Look up the fast-reg MR @key names and, for a QP of @pd, invalidate it
 * (LOCAL_INV or a received SEND with invalidate): VALID -> FREE if @key is
 * its current key. Any context.
 * Return: 0; -EACCES (not a fast-reg MR of @pd) or -EINVAL (no such MR,
 * other key, or not VALID).
 */
int sroce_mr_invalidate_key(struct sroce_dev *sdev, struct ib_pd *pd, u32 key);

/*
 * A memory window binds to @mr (the caller holds a reference): counted,
 * so dereg and rereg fail with -EBUSY until sroce_mr_mw_release().
 * Return: 0, or -EINVAL if a dereg or rereg is under way. Any context.
 */
int sroce_mr_mw_hold(struct sroce_mr *mr);
void sroce_mr_mw_release(struct sroce_mr *mr);

/* Access flags a REG_MR may grant: 0 or -EINVAL / -EOPNOTSUPP. */
int sroce_mr_check_access(int access);

/*
 * Does [@va, @va + @len) lie inside [@base, @base + @length)? Offsets are
 * compared, never end addresses: va + len may wrap. 0 or -ERANGE.
 */
static inline int sroce_range_inside(u64 base, u64 length, u64 va, u64 len)
{
	u64 off;

	if (va < base)
		return -ERANGE;
	off = va - base;
	if (off > length || len > length - off)
		return -ERANGE;
	return 0;
}

/*
 * Can @pd access [@va, @va + @len) of @mr with every right in @access?
 * A kernel DMA or fast-reg MR is never accessible through a user PD.
 * Return: 0, -EACCES (wrong PD or missing right) or -ERANGE (outside).
 * A zero-length access needs no MR and is the caller's business.
 */
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 va, u64 len,
		   int access);

enum sroce_copy_dir {
	SROCE_COPY_TO_MR,
	SROCE_COPY_FROM_MR,
};

/* Copy between @buf and an already checked range of @mr. Never sleeps. */
void sroce_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u32 len,
		   enum sroce_copy_dir dir);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/*
 * Copy @len bytes of @skb, from @offset, into an already checked range of
 * @mr. Return: 0 or skb_copy_bits()'s error. Nothing calls it yet but its
 * KUnit case (the responder copies from the linear packet with
 * sroce_mr_copy()), so only a build with the suites has it.
 */
int sroce_mr_copy_from_skb(struct sroce_mr *mr, u64 va,
			   const struct sk_buff *skb, int offset, u32 len);
#endif

/*
 * 8-byte atomic at an already checked, 8-byte aligned @va of @mr.
 * Serialised device-wide against every other sroce atomic.
 * Return: the original value.
 */
u64 sroce_mr_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 compare_add,
		    u64 swap);

/* ib_device_ops */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);

int sroce_mr_table_init(struct sroce_dev *sdev);
void sroce_mr_table_destroy(struct sroce_dev *sdev);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
bool sroce_mr_key_usable(struct sroce_mr *mr, u32 key);
int sroce_mr_invalidate(struct sroce_mr *mr, struct ib_pd *pd, u32 key);
#endif

#endif /* SROCE_MR_H */
