// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_queue.c - rings shared with userspace: allocation, mmap export and
 * the kernel's producer/consumer steps.
 *
 * Memory. A ring is vmalloc memory allocated with SROCE_GFP_USER_BULK: it is
 * charged to the creating process's memory cgroup (memory.max bounds how
 * many rings a process can pin), and zeroed, so a process never sees stale
 * kernel data. vmalloc_user() would not charge it, and the vmalloc calls
 * that take both flags and VM_USERMAP are not exported to modules; so
 * sroce_mmap() inserts the pages one by one instead of calling
 * remap_vmalloc_range(), which insists on VM_USERMAP.
 *
 * Lifetime. Until it is exported a ring
 * belongs to its struct sroce_queue and sroce_queue_destroy() frees it. Once
 * exported it belongs to its mmap entry: the object keeps one reference on
 * the entry (dropped by rdma_user_mmap_entry_remove() at destroy) and every
 * VMA mapping it keeps another (taken in sroce_mmap(), copied by
 * sroce_vma_open() when a VMA is split or duplicated, dropped by
 * sroce_vma_close()). ib_core calls sroce_mmap_free() when the last one is
 * gone, and only then is the memory freed: a process that destroys a CQ
 * while it still maps the ring keeps valid memory and can hurt no one.
 *
 * The VM ops live in this module. That is safe because sroce implements no
 * disassociate_ucontext: ib_core then waits for every uverbs file to close
 * before a device unregisters, every VMA pins its file, and module unload
 * unregisters every device first.
 *
 * Ordering. The barrier pairs are the ones sroce-abi.h prescribes:
 *  - consumer (SQ, RQ): our load-acquire of producer pairs with the
 *    process's store-release of producer after it filled the entries; our
 *    store-release of consumer pairs with its load-acquire of consumer
 *    before it reuses slots;
 *  - producer (CQ): our load-acquire of consumer pairs with the process's
 *    store-release of consumer after it read the entries, so we never
 *    overwrite a slot it is still reading; our store-release of producer
 *    pairs with its load-acquire of producer before it reads the entries.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce_caps.h"
#include "sroce_queue.h"

/* Keeps sroce_queue_available()'s count inside an int. */
#define SROCE_QUEUE_MAX_DEPTH	(1U << 30)
/* Far above any WQE or CQE; bounds what a bad argument can ask vmalloc for. */
#define SROCE_QUEUE_MAX_STRIDE	SZ_64K

/**
 * struct sroce_mmap_entry - ib_core's mmap cookie plus what it maps
 * @rdma: ib_core's part: offset, length, reference count
 * @vaddr: the ring's vmalloc memory, freed with the entry
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
};

static struct sroce_mmap_entry *
to_sroce_mmap_entry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct sroce_mmap_entry, rdma);
}

static int sroce_queue_size(u32 depth, u32 stride, size_t *size)
{
	size_t bytes;

	if (!depth || !is_power_of_2(depth) || depth > SROCE_QUEUE_MAX_DEPTH ||
	    !stride || !is_power_of_2(stride) || stride > SROCE_QUEUE_MAX_STRIDE)
		return -EINVAL;
	if (check_mul_overflow((size_t)depth, (size_t)stride, &bytes) ||
	    check_add_overflow(bytes, (size_t)SROCE_RING_ENTRIES_OFFSET, &bytes) ||
	    bytes > SIZE_MAX - PAGE_SIZE)
		return -EINVAL;
	*size = PAGE_ALIGN(bytes);
	return 0;
}

/**
 * sroce_queue_init - allocate a zeroed ring
 * @q: the queue to set up
 * @depth: entries, a power of two
 * @stride: bytes per entry, a power of two
 *
 * Return: 0, -EINVAL for a bad geometry or -ENOMEM.
 */
int sroce_queue_init(struct sroce_queue *q, u32 depth, u32 stride)
{
	size_t size;
	int err;

	err = sroce_queue_size(depth, stride, &size);
	if (err)
		return err;
	/* Charged to the caller's memory cgroup and zeroed (see top of file). */
	q->hdr = __vmalloc(size, SROCE_GFP_USER_BULK | __GFP_ZERO);
	if (!q->hdr)
		return -ENOMEM;
	q->entries = (void *)q->hdr + SROCE_RING_ENTRIES_OFFSET;
	q->depth = depth;
	q->stride = stride;
	q->size = size;
	q->index = 0;
	q->mmap_entry = NULL;
	return 0;
}

/*
 * Forget the ring. If it was exported, the memory is freed by
 * sroce_mmap_free() once the process has no mapping left either.
 */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->mmap_entry)
		rdma_user_mmap_entry_remove(q->mmap_entry);
	else
		vfree(q->hdr);
	q->mmap_entry = NULL;
	q->hdr = NULL;
	q->entries = NULL;
}

/**
 * sroce_queue_export - make the ring mappable by @uctx's process
 * @q: an initialised, not yet exported queue
 * @uctx: the user context the create verb runs in
 * @mmap_offset: set to the offset the process passes to mmap()
 *
 * From here on the memory belongs to the mmap entry (see the top of file).
 * Return: 0, -ENOMEM, or ib_core's insertion error.
 */
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       u64 *mmap_offset)
{
	struct sroce_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;
	entry->vaddr = q->hdr;
	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma, q->size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap_entry = &entry->rdma;
	*mmap_offset = rdma_user_mmap_get_offset(&entry->rdma);
	return 0;
}

/*
 * Consumer step. The producer index is read once; a value further ahead
 * than the ring holds cannot come from an honest producer (free-running u32
 * arithmetic makes "behind us" look like that too).
 */
int sroce_queue_available(struct sroce_queue *q)
{
	/* Acquire: pairs with the producer's store-release after its entries. */
	u32 producer = smp_load_acquire(&q->hdr->producer);
	u32 ready = producer - q->index;

	if (ready > q->depth)
		return -EOVERFLOW;
	return ready;
}

void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->index += n;
	/*
	 * Release: our reads of the slots are done before the producer reuses
	 * them; pairs with the load-acquire of the consumer index in
	 * sroce_kpost_recv_wqes() (kernel RQ and SRQ) and in the provider's
	 * sroce_srq_room() (rdma-core-provider/sroce_srq.c). Send queues and
	 * a process's RQ reuse slots after the WQE's completion instead, so
	 * for them the CQ's release/acquire pair orders the reuse.
	 */
	smp_store_release(&q->hdr->consumer, q->index);
}

/*
 * Consumer side, for RESET: drop everything published, whatever the
 * producer index says - even one no valid producer could have written, so
 * a process can always start its QP over.
 */
void sroce_queue_discard_all(struct sroce_queue *q)
{
	/* The same acquire/release pair as sroce_queue_available()/_consume(). */
	q->index = smp_load_acquire(&q->hdr->producer);
	smp_store_release(&q->hdr->consumer, q->index);
}

/*
 * Producer step. A consumer index that claims more than we produced, or
 * further behind than the ring holds, is impossible; it makes the ring look
 * full, so a hostile process only loses its own completions.
 */
void *sroce_queue_next_free(struct sroce_queue *q)
{
	/* Acquire: pairs with the consumer's store-release after its reads. */
	u32 consumer = smp_load_acquire(&q->hdr->consumer);
	u32 used = q->index - consumer;

	if (used >= q->depth)
		return NULL;
	return sroce_queue_slot(q, q->index);
}

void sroce_queue_produce(struct sroce_queue *q)
{
	q->index++;
	/*
	 * Release: the entry is written before the consumer sees the index;
	 * pairs with the load-acquire of the producer index in the
	 * provider's sroce_cq_ready() (rdma-core-provider/sroce_poll.c).
	 * A kernel CQ's poll_cq reads ring->index under the CQ lock that
	 * serialises producers, so it needs no acquire.
	 */
	smp_store_release(&q->hdr->producer, q->index);
}

/*
 * Producer side: has the consumer left anything we produced unread? Only a
 * hint for req_notify_cq's missed-event report, so a plain read will do.
 */
bool sroce_queue_pending(struct sroce_queue *q)
{
	return READ_ONCE(q->hdr->consumer) != q->index;
}

/* A VMA was split or duplicated: the new one holds its own reference. */
static void sroce_vma_open(struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry = vma->vm_private_data;

	kref_get(&entry->ref);
}

static void sroce_vma_close(struct vm_area_struct *vma)
{
	rdma_user_mmap_entry_put(vma->vm_private_data);
}

static const struct vm_operations_struct sroce_vm_ops = {
	.open = sroce_vma_open,
	.close = sroce_vma_close,
};

/*
 * Insert every page of the vmalloc ring at @kaddr into @vma, whose length
 * is the ring's. The pages stay the ring's: the VMA holds page references,
 * not a charge of its own. A failure leaves partial PTEs that the failed
 * mmap() tears down with the VMA.
 */
static int sroce_map_ring_pages(struct vm_area_struct *vma, void *kaddr)
{
	unsigned long uaddr;
	int err;

	for (uaddr = vma->vm_start; uaddr < vma->vm_end; uaddr += PAGE_SIZE) {
		err = vm_insert_page(vma, uaddr, vmalloc_to_page(kaddr));
		if (err)
			return err;
		kaddr += PAGE_SIZE;
	}
	return 0;
}

/**
 * sroce_mmap - ib_device_ops.mmap: map a ring exported by sroce_queue_export()
 * @uctx: the caller's user context
 * @vma: the shared mapping to fill; vm_pgoff names the ring
 *
 * The whole ring is mapped or nothing: ib_core's lookup insists on the exact
 * length. The mapping cannot grow (VM_DONTEXPAND) nor become executable.
 * Return: 0, -EINVAL for an unknown offset, a wrong length or a private
 * mapping, -EPERM for PROT_EXEC.
 */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct sroce_mmap_entry *sentry;
	int err;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	/* Takes a reference; NULL for private mappings and length mismatches. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	sentry = to_sroce_mmap_entry(entry);

	/* ib_core compared the lengths already; remapping relies on it. */
	if (vma->vm_end - vma->vm_start != entry->npages << PAGE_SHIFT) {
		err = -EINVAL;
		goto err_put;
	}
	/* From the ring's start: vm_pgoff is only the ring's name. */
	err = sroce_map_ring_pages(vma, sentry->vaddr);
	if (err)
		goto err_put;

	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	/* The reference taken above now belongs to the VMA. */
	vma->vm_private_data = entry;
	vma->vm_ops = &sroce_vm_ops;
	return 0;

err_put:
	rdma_user_mmap_entry_put(entry);
	return err;
}

/*
 * ib_device_ops.mmap_free: the object is destroyed and no VMA maps the ring
 * any more, so nothing can reach the memory.
 */
void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap_entry *sentry = to_sroce_mmap_entry(entry);

	vfree(sentry->vaddr);
	kfree(sentry);
}
