// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kverbs_test.c - drive an RDMA device's kernel verbs, as ULPs do.
 *
 * Loaded in a test guest with the device's name and the index of its IPv4
 * RoCE v2 GID:
 *
 *   insmod sroce_kverbs_test.ko dev=sroce0 gid_index=1
 *
 * Module init runs every case against that device and prints KTAP lines
 * ("ok N name" / "not ok N name") to the kernel log, which the VM test
 * (tests/vm/tests/kverbs.sh) reads; it fails with -EINVAL if any case
 * failed, else the module stays loaded (holding the device) until
 * rmmod. Two RC QPs are connected to
 * each other through the device's own GID: a ULP's view of loopback. The
 * cases use only ib_core's API, so they run against rdma_rxe too, which
 * shows that a failure on sroce is sroce's.
 *
 * With hold_pd=1 the module runs no case: it allocates a kernel PD, keeps
 * it until rmmod, and shows its DMA lkey (also its rkey: ib_alloc_pd's MR
 * serves both) in /sys/module/sroce_kverbs_test/parameters/held_lkey, for
 * the user-space cases that must not be able to use it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev_name_param = "sroce0";
module_param_named(dev, dev_name_param, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");
static int gid_index = -1;
module_param(gid_index, int, 0444);
MODULE_PARM_DESC(gid_index, "index of the device's IPv4 RoCE v2 GID");
static char *skip = "";
module_param(skip, charp, 0444);
MODULE_PARM_DESC(skip, "cases to report as skipped, comma-separated");
static bool hold_pd;
module_param(hold_pd, bool, 0444);
MODULE_PARM_DESC(hold_pd, "keep a kernel PD after the cases, expose its lkey");
static uint held_lkey;
module_param(held_lkey, uint, 0444);
MODULE_PARM_DESC(held_lkey, "local_dma_lkey of the held PD (hold_pd=1)");

#define KV_TIMEOUT	(20 * HZ)	/* a hang guard, never a verdict */
#define KV_DEPTH	16
#define KV_MSG		3000		/* three packets at path MTU 1024 */

static struct ib_device *kv_dev;
static union ib_gid kv_gid;
static struct ib_pd *kv_held_pd;
static int kv_case_nr, kv_failed;

/* One awaited completion; @seq tells the order completions came in. */
struct kv_wait {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
	int seq;
};

static atomic_t kv_wc_seq = ATOMIC_INIT(0);

static void kv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_wait *w = container_of(wc->wr_cqe, struct kv_wait, cqe);

	w->wc = *wc;
	w->seq = atomic_inc_return(&kv_wc_seq);
	complete(&w->done);
}

static void kv_wait_init(struct kv_wait *w)
{
	w->cqe.done = kv_done;
	init_completion(&w->done);
	memset(&w->wc, 0, sizeof(w->wc));
}

/* Wait for @w; an IB_POLL_DIRECT CQ is polled here, the others by ib_core. */
static int kv_wait_for(struct ib_cq *cq, struct kv_wait *w)
{
	unsigned long deadline = jiffies + KV_TIMEOUT;

	if (cq->poll_ctx != IB_POLL_DIRECT)
		return wait_for_completion_timeout(&w->done, KV_TIMEOUT) ?
		       0 : -ETIMEDOUT;
	while (!try_wait_for_completion(&w->done)) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		ib_process_cq_direct(cq, -1);
		cond_resched();
	}
	return 0;
}

#define KV_CHECK(cond) do {						\
	if (!(cond)) {							\
		pr_err("# %s:%d: check failed: %s\n", __func__,		\
		       __LINE__, #cond);				\
		return -EINVAL;						\
	}								\
} while (0)

#define KV_CHECK_WC(w, status_) do {					\
	if ((w)->wc.status != (status_)) {				\
		pr_err("# %s:%d: wc status %d (%s), wanted %s\n",	\
		       __func__, __LINE__, (w)->wc.status,		\
		       ib_wc_status_msg((w)->wc.status), #status_);	\
		return -EINVAL;						\
	}								\
} while (0)

/* --- a connected pair of RC QPs ----------------------------------------- */

struct kv_pair {
	struct ib_pd *pd;
	struct ib_cq *cq;	/* every queue of both QPs completes here */
	struct ib_qp *a, *b;
};

static struct ib_qp *kv_create_qp(struct kv_pair *p, struct ib_cq *scq,
				  struct ib_cq *rcq)
{
	struct ib_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = KV_DEPTH,
			.max_recv_wr = KV_DEPTH,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 64,
		},
	};

	return ib_create_qp(p->pd, &init);
}

static int kv_qp_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};

	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

static int kv_qp_to_rts(struct ib_qp *qp, u32 dest_qpn)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = dest_qpn,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
	};
	int err;

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &kv_gid, 0, gid_index, 64, 0);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void kv_pair_destroy(struct kv_pair *p)
{
	if (p->a && !IS_ERR(p->a))
		ib_destroy_qp(p->a);
	if (p->b && !IS_ERR(p->b))
		ib_destroy_qp(p->b);
	if (p->cq && !IS_ERR(p->cq))
		ib_free_cq(p->cq);
	if (p->pd && !IS_ERR(p->pd))
		ib_dealloc_pd(p->pd);
	memset(p, 0, sizeof(*p));
}

/*
 * PD with the unsafe global rkey, so WRITE and READ can name kernel memory
 * without fast-registration; one CQ in @ctx; both QPs in RTS unless
 * @connect is false (then in RESET).
 */
static int kv_pair_create(struct kv_pair *p, enum ib_poll_context ctx,
			  bool connect)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->pd = ib_alloc_pd(kv_dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(p->pd))
		return PTR_ERR(p->pd);
	p->cq = ib_alloc_cq(kv_dev, NULL, 4 * KV_DEPTH, 0, ctx);
	if (IS_ERR(p->cq))
		return PTR_ERR(p->cq);
	p->a = kv_create_qp(p, p->cq, p->cq);
	if (IS_ERR(p->a))
		return PTR_ERR(p->a);
	p->b = kv_create_qp(p, p->cq, p->cq);
	if (IS_ERR(p->b))
		return PTR_ERR(p->b);
	if (!connect)
		return 0;
	err = kv_qp_to_init(p->a) ?: kv_qp_to_init(p->b);
	if (err)
		return err;
	return kv_qp_to_rts(p->a, p->b->qp_num) ?:
	       kv_qp_to_rts(p->b, p->a->qp_num);
}

static void kv_fill(u8 *buf, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = seed + i * 7 + (i >> 8);
}

static int kv_post_recv(struct ib_qp *qp, struct kv_wait *w, u64 addr, u32 len)
{
	struct ib_sge sge = {
		.addr = addr,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &w->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	kv_wait_init(w);
	return ib_post_recv(qp, &wr, NULL);
}

static int kv_post_send(struct ib_qp *qp, struct kv_wait *w,
			enum ib_wr_opcode opcode, int flags, u64 addr, u32 len,
			u64 remote_addr)
{
	struct ib_sge sge = {
		.addr = addr,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = opcode,
			.send_flags = IB_SEND_SIGNALED | flags,
		},
		.remote_addr = remote_addr,
		.rkey = qp->pd->unsafe_global_rkey,
	};

	kv_wait_init(w);
	return ib_post_send(qp, &wr.wr, NULL);
}

/* One SEND of @len bytes from @src (mapped) into @dst on the other QP. */
static int kv_send_recv(struct kv_pair *p, u64 src, u64 dst, u32 len)
{
	struct kv_wait sw, rw;

	KV_CHECK(!kv_post_recv(p->b, &rw, dst, len));
	KV_CHECK(!kv_post_send(p->a, &sw, IB_WR_SEND, 0, src, len, 0));
	KV_CHECK(!kv_wait_for(p->cq, &sw));
	KV_CHECK(!kv_wait_for(p->cq, &rw));
	KV_CHECK_WC(&sw, IB_WC_SUCCESS);
	KV_CHECK_WC(&rw, IB_WC_SUCCESS);
	KV_CHECK(sw.wc.opcode == IB_WC_SEND && sw.wc.qp == p->a);
	KV_CHECK(rw.wc.opcode == IB_WC_RECV && rw.wc.qp == p->b);
	KV_CHECK(rw.wc.byte_len == len);
	return 0;
}

/* --- cases ---------------------------------------------------------------- */

static int kv_case_device_attrs(void)
{
	KV_CHECK(kv_dev->num_comp_vectors == num_online_cpus());
	return 0;
}

static int kv_case_alloc_pd(void)
{
	struct ib_pd *pd = ib_alloc_pd(kv_dev, 0);

	KV_CHECK(!IS_ERR(pd));
	ib_dealloc_pd(pd);
	pd = ib_alloc_pd(kv_dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KV_CHECK(!IS_ERR(pd));
	KV_CHECK(pd->unsafe_global_rkey);
	ib_dealloc_pd(pd);
	return 0;
}

/* Every comp_vector the device advertises takes a CQ; one beyond does not. */
static int kv_case_comp_vectors(void)
{
	int v;

	for (v = 0; v < kv_dev->num_comp_vectors; v++) {
		struct ib_cq *cq = ib_alloc_cq(kv_dev, NULL, 8, v, IB_POLL_DIRECT);

		KV_CHECK(!IS_ERR(cq));
		KV_CHECK(cq->comp_vector == v);
		ib_free_cq(cq);
	}
	return 0;
}

/* SEND/RECV, WRITE and READ byte-exact from kmalloc memory, then drain. */
static int kv_traffic(enum ib_poll_context ctx)
{
	struct kv_pair p;
	struct kv_wait w;
	u8 *src = NULL, *dst = NULL;
	u64 s, d;
	int err;

	err = kv_pair_create(&p, ctx, true);
	if (err) {
		pr_err("# pair: %d\n", err);
		goto out;
	}
	err = -ENOMEM;
	src = kmalloc(KV_MSG, GFP_KERNEL);
	dst = kzalloc(KV_MSG, GFP_KERNEL);
	if (!src || !dst)
		goto out;
	kv_fill(src, KV_MSG, ctx);
	s = ib_dma_map_single(kv_dev, src, KV_MSG, DMA_TO_DEVICE);
	d = ib_dma_map_single(kv_dev, dst, KV_MSG, DMA_FROM_DEVICE);

	err = kv_send_recv(&p, s, d, KV_MSG);
	if (!err && memcmp(src, dst, KV_MSG))
		err = -EIO;
	if (err)
		goto out_unmap;

	memset(dst, 0, KV_MSG);
	kv_fill(src, KV_MSG, ctx + 1);
	err = -EIO;
	if (kv_post_send(p.a, &w, IB_WR_RDMA_WRITE, 0, s, KV_MSG, d) ||
	    kv_wait_for(p.cq, &w) || w.wc.status != IB_WC_SUCCESS ||
	    w.wc.opcode != IB_WC_RDMA_WRITE || memcmp(src, dst, KV_MSG)) {
		pr_err("# write: status %d\n", w.wc.status);
		goto out_unmap;
	}

	memset(src, 0, KV_MSG);
	kv_fill(dst, KV_MSG, ctx + 2);
	if (kv_post_send(p.a, &w, IB_WR_RDMA_READ, 0, s, KV_MSG, d) ||
	    kv_wait_for(p.cq, &w) || w.wc.status != IB_WC_SUCCESS ||
	    w.wc.opcode != IB_WC_RDMA_READ || w.wc.byte_len != KV_MSG ||
	    memcmp(src, dst, KV_MSG)) {
		pr_err("# read: status %d\n", w.wc.status);
		goto out_unmap;
	}
	ib_drain_qp(p.a);
	ib_drain_qp(p.b);
	err = 0;
out_unmap:
	ib_dma_unmap_single(kv_dev, s, KV_MSG, DMA_TO_DEVICE);
	ib_dma_unmap_single(kv_dev, d, KV_MSG, DMA_FROM_DEVICE);
out:
	kfree(src);
	kfree(dst);
	kv_pair_destroy(&p);
	return err;
}

static int kv_case_traffic_direct(void) { return kv_traffic(IB_POLL_DIRECT); }
static int kv_case_traffic_softirq(void) { return kv_traffic(IB_POLL_SOFTIRQ); }
static int kv_case_traffic_workqueue(void) { return kv_traffic(IB_POLL_WORKQUEUE); }
static int kv_case_traffic_unbound_workqueue(void)
{
	return kv_traffic(IB_POLL_UNBOUND_WORKQUEUE);
}

/* SEND across a page boundary, from and into page-backed buffers. */
static int kv_case_send_pages(void)
{
	const u32 off = 100, len = PAGE_SIZE + 1000;
	struct page *sp, *dp;
	struct kv_pair p;
	u64 s, d;
	int err;

	sp = alloc_pages(GFP_KERNEL, 1);
	dp = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	err = -ENOMEM;
	if (!sp || !dp)
		goto out_free;
	kv_fill(page_address(sp) + off, len, 3);
	err = kv_pair_create(&p, IB_POLL_DIRECT, true);
	if (err)
		goto out_pair;
	s = ib_dma_map_page(kv_dev, sp, off, len, DMA_TO_DEVICE);
	d = ib_dma_map_page(kv_dev, dp, off, len, DMA_FROM_DEVICE);
	err = kv_send_recv(&p, s, d, len);
	if (!err && memcmp(page_address(sp) + off, page_address(dp) + off, len))
		err = -EIO;
	ib_dma_unmap_page(kv_dev, s, len, DMA_TO_DEVICE);
	ib_dma_unmap_page(kv_dev, d, len, DMA_FROM_DEVICE);
	ib_drain_qp(p.a);
	ib_drain_qp(p.b);
out_pair:
	kv_pair_destroy(&p);
out_free:
	if (sp)
		__free_pages(sp, 1);
	if (dp)
		__free_pages(dp, 1);
	return err;
}

/* ib_mad's way: post under spin_lock_irqsave, and from a softirq. */
struct kv_atomic_post {
	struct timer_list timer;
	struct ib_qp *qp;
	struct kv_wait *w;
	u64 addr;
	int ret;
	bool was_softirq;
	struct completion posted;
};

static void kv_post_from_timer(struct timer_list *t)
{
	struct kv_atomic_post *ap = from_timer(ap, t, timer);

	ap->was_softirq = in_softirq();
	ap->ret = kv_post_send(ap->qp, ap->w, IB_WR_SEND, 0, ap->addr, 64, 0);
	complete(&ap->posted);
}

static int kv_case_post_atomic_context(void)
{
	static DEFINE_SPINLOCK(lock);
	struct kv_atomic_post ap = {};
	struct kv_wait sw, rw;
	unsigned long flags;
	struct kv_pair p;
	u8 *buf;
	u64 a;
	int err, i;

	buf = kzalloc(128, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	a = ib_dma_map_single(kv_dev, buf, 128, DMA_BIDIRECTIONAL);
	err = kv_pair_create(&p, IB_POLL_SOFTIRQ, true);
	for (i = 0; !err && i < 2; i++) {
		err = kv_post_recv(p.b, &rw, a + 64, 64);
		if (err)
			break;
		if (i == 0) {
			spin_lock_irqsave(&lock, flags);
			err = kv_post_send(p.a, &sw, IB_WR_SEND, 0, a, 64, 0);
			spin_unlock_irqrestore(&lock, flags);
		} else {
			ap.qp = p.a;
			ap.w = &sw;
			ap.addr = a;
			init_completion(&ap.posted);
			timer_setup_on_stack(&ap.timer, kv_post_from_timer, 0);
			mod_timer(&ap.timer, jiffies);
			wait_for_completion(&ap.posted);
			del_timer_sync(&ap.timer);
			destroy_timer_on_stack(&ap.timer);
			err = ap.ret ?: (ap.was_softirq ? 0 : -EINVAL);
		}
		if (!err)
			err = kv_wait_for(p.cq, &sw) ?: kv_wait_for(p.cq, &rw);
		if (!err && (sw.wc.status || rw.wc.status))
			err = -EIO;
	}
	if (!IS_ERR_OR_NULL(p.a) && !IS_ERR_OR_NULL(p.b)) {
		ib_drain_qp(p.a);
		ib_drain_qp(p.b);
	}
	kv_pair_destroy(&p);
	ib_dma_unmap_single(kv_dev, a, 128, DMA_BIDIRECTIONAL);
	kfree(buf);
	return err;
}

/* Receives posted and never matched complete flushed when the QP drains. */
static int kv_case_drain_flushes_posted(void)
{
	struct kv_wait rw[3];
	struct kv_pair p;
	u8 *buf;
	u64 a;
	int err, i;

	buf = kzalloc(64, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	a = ib_dma_map_single(kv_dev, buf, 64, DMA_FROM_DEVICE);
	err = kv_pair_create(&p, IB_POLL_WORKQUEUE, true);
	for (i = 0; !err && i < ARRAY_SIZE(rw); i++)
		err = kv_post_recv(p.b, &rw[i], a, 64);
	if (!err) {
		ib_drain_qp(p.b);
		for (i = 0; i < ARRAY_SIZE(rw); i++) {
			if (!try_wait_for_completion(&rw[i].done) ||
			    rw[i].wc.status != IB_WC_WR_FLUSH_ERR) {
				pr_err("# recv %d not flushed (status %d)\n", i,
				       rw[i].wc.status);
				err = -EIO;
			}
		}
		ib_drain_qp(p.a);
	}
	kv_pair_destroy(&p);
	ib_dma_unmap_single(kv_dev, a, 64, DMA_FROM_DEVICE);
	kfree(buf);
	return err;
}

/* --- notification ---------------------------------------------------------- */

struct kv_notify {
	atomic_t calls;
	u32 vector;		/* the CQ's (ib_create_cq does not keep it) */
	int cpu;		/* where the handler ran last */
	struct completion called;
};

static void kv_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kv_notify *n = ctx;

	n->cpu = raw_smp_processor_id();
	atomic_inc(&n->calls);
	complete(&n->called);
}

/* Poll @cq until @want completions came, all successful. */
static int kv_poll_n(struct ib_cq *cq, int want)
{
	unsigned long deadline = jiffies + KV_TIMEOUT;
	struct ib_wc wc;

	while (want) {
		int n = ib_poll_cq(cq, 1, &wc);

		if (n < 0 || (n && wc.status != IB_WC_SUCCESS))
			return -EIO;
		want -= n;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		cond_resched();
	}
	return 0;
}

/* A SEND from a to b's receive CQ; the sender's CQ is polled here. */
static int kv_notify_msg(struct kv_pair *p, u64 a, int flags)
{
	struct ib_sge sge = { .addr = a, .length = 8,
			      .lkey = p->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	struct ib_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED | flags };

	if (ib_post_recv(p->b, &rwr, NULL) || ib_post_send(p->a, &swr, NULL))
		return -EIO;
	return kv_poll_n(p->cq, 1);
}

static int kv_notify_steps(struct kv_pair *p, struct ib_cq *rcq,
			   struct kv_notify *n, u64 a)
{
	/* Empty: arming reports nothing missed. */
	KV_CHECK(ib_req_notify_cq(rcq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) == 0);
	KV_CHECK(!kv_notify_msg(p, a, 0));
	KV_CHECK(wait_for_completion_timeout(&n->called, KV_TIMEOUT));
	KV_CHECK(atomic_read(&n->calls) == 1);
	/* Its CQE still waits: arming again must say so. */
	KV_CHECK(ib_req_notify_cq(rcq, IB_CQ_SOLICITED |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
	/* Armed for solicited only: an unsolicited message does not fire. */
	KV_CHECK(!kv_notify_msg(p, a, 0));
	KV_CHECK(!kv_poll_n(rcq, 2));
	KV_CHECK(atomic_read(&n->calls) == 1);
	/* A solicited one does, once. */
	KV_CHECK(!kv_notify_msg(p, a, IB_SEND_SOLICITED));
	KV_CHECK(wait_for_completion_timeout(&n->called, KV_TIMEOUT));
	KV_CHECK(!kv_poll_n(rcq, 1));
	/* Disarmed now: nothing fires. */
	KV_CHECK(!kv_notify_msg(p, a, IB_SEND_SOLICITED));
	KV_CHECK(!kv_poll_n(rcq, 1));
	KV_CHECK(atomic_read(&n->calls) == 2);
	KV_CHECK(ib_req_notify_cq(rcq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) == 0);
	return 0;
}

/*
 * Connected QPs whose b receives into @rcq (a CQ with its own handler), all
 * else completing on a direct-polled CQ.
 */
static int kv_notify_pair(struct kv_pair *p, struct ib_cq *rcq)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->pd = ib_alloc_pd(kv_dev, 0);
	p->cq = ib_alloc_cq(kv_dev, NULL, 4 * KV_DEPTH, 0, IB_POLL_DIRECT);
	err = PTR_ERR_OR_ZERO(p->pd) ?: PTR_ERR_OR_ZERO(p->cq);
	if (err)
		return err;
	p->a = kv_create_qp(p, p->cq, p->cq);
	p->b = kv_create_qp(p, p->cq, rcq);
	err = PTR_ERR_OR_ZERO(p->a) ?: PTR_ERR_OR_ZERO(p->b);
	if (err)
		return err;
	return kv_qp_to_init(p->a) ?: kv_qp_to_init(p->b) ?:
	       kv_qp_to_rts(p->a, p->b->qp_num) ?:
	       kv_qp_to_rts(p->b, p->a->qp_num);
}

/* Run @steps on a notify pair with an 8-byte buffer at @a. */
static int kv_with_notify_pair(u32 comp_vector,
			       int (*steps)(struct kv_pair *p,
					    struct ib_cq *rcq,
					    struct kv_notify *n, u64 a))
{
	struct ib_cq_init_attr cq_attr = { .cqe = KV_DEPTH,
					   .comp_vector = comp_vector };
	struct kv_notify n = { .vector = comp_vector };
	struct ib_cq *rcq;
	struct kv_pair p;
	u64 a;
	u8 *buf;
	int err;

	init_completion(&n.called);
	buf = kzalloc(8, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	a = ib_dma_map_single(kv_dev, buf, 8, DMA_BIDIRECTIONAL);
	rcq = ib_create_cq(kv_dev, kv_comp_handler, NULL, &n, &cq_attr);
	err = PTR_ERR_OR_ZERO(rcq);
	if (err)
		goto out_buf;
	err = kv_notify_pair(&p, rcq) ?: steps(&p, rcq, &n, a);
	kv_pair_destroy(&p);
	ib_destroy_cq(rcq);
out_buf:
	ib_dma_unmap_single(kv_dev, a, 8, DMA_BIDIRECTIONAL);
	kfree(buf);
	return err;
}

/*
 * A CQ with its own handler (ib_create_cq, as ib_mad's and older ULPs):
 * NEXT_COMP, SOLICITED, REPORT_MISSED_EVENTS, and no call unless armed.
 */
static int kv_case_notify(void)
{
	return kv_with_notify_pair(0, kv_notify_steps);
}

static int kv_vector_steps(struct kv_pair *p, struct ib_cq *rcq,
			   struct kv_notify *n, u64 a)
{
	int want = cpumask_local_spread(n->vector, NUMA_NO_NODE);

	KV_CHECK(ib_req_notify_cq(rcq, IB_CQ_NEXT_COMP) == 0);
	KV_CHECK(!kv_notify_msg(p, a, 0));
	KV_CHECK(wait_for_completion_timeout(&n->called, KV_TIMEOUT));
	KV_CHECK(!kv_poll_n(rcq, 1));
	if (n->cpu != want) {
		pr_err("# vector %u: handler ran on CPU %d, not %d\n",
		       n->vector, n->cpu, want);
		return -EINVAL;
	}
	return 0;
}

/* Each comp_vector's handler runs on its own CPU, as an interrupt would. */
static int kv_case_comp_vector_cpu(void)
{
	int v, err = 0;

	for (v = 0; !err && v < kv_dev->num_comp_vectors; v++)
		err = kv_with_notify_pair(v, kv_vector_steps);
	return err;
}

/* --- errors ---------------------------------------------------------------- */

/* A QP in RESET takes no WR; one in INIT takes receives, up to its depth. */
static int kv_case_post_state_and_full(void)
{
	const int nr_rwr = KV_DEPTH * 2 + 1;
	struct ib_recv_wr *rwr = kcalloc(nr_rwr, sizeof(*rwr), GFP_KERNEL);
	const struct ib_recv_wr *bad_rwr = NULL;
	const struct ib_send_wr *bad_swr = NULL;
	struct ib_send_wr swr = { .opcode = IB_WR_SEND };
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	struct kv_pair p;
	int err, i, depth;

	if (!rwr)
		return -ENOMEM;
	err = kv_pair_create(&p, IB_POLL_DIRECT, false);
	if (err)
		goto out;
	err = -EINVAL;
	if (ib_post_send(p.a, &swr, &bad_swr) != -EINVAL || bad_swr != &swr ||
	    ib_post_recv(p.a, &rwr[0], &bad_rwr) != -EINVAL ||
	    bad_rwr != &rwr[0]) {
		pr_err("# post in RESET not refused\n");
		goto out;
	}
	if (kv_qp_to_init(p.a) || ib_query_qp(p.a, &attr, IB_QP_CAP, &init))
		goto out;
	depth = attr.cap.max_recv_wr;
	if (depth < 1 || depth >= nr_rwr)
		goto out;
	for (i = 0; i < depth; i++)
		rwr[i].next = &rwr[i + 1];
	bad_rwr = NULL;
	if (ib_post_recv(p.a, &rwr[0], &bad_rwr) != -ENOMEM ||
	    bad_rwr != &rwr[depth]) {
		pr_err("# full RQ (depth %d) not refused at its end\n", depth);
		goto out;
	}
	bad_swr = NULL;
	if (ib_post_send(p.a, &swr, &bad_swr) != -EINVAL) {
		pr_err("# send in INIT not refused\n");
		goto out;
	}
	err = 0;
out:
	kv_pair_destroy(&p);
	kfree(rwr);
	return err;
}

/* What sroce cannot do is refused with the WR named, after the good ones. */
static int kv_case_bad_wr(void)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr bad_opcode = { .opcode = IB_WR_LSO };
	struct ib_sge sges[8] = {};
	struct ib_send_wr too_many = { .opcode = IB_WR_SEND, .sg_list = sges,
				       .num_sge = ARRAY_SIZE(sges) };
	struct kv_wait w;
	struct ib_rdma_wr good = {
		.wr = { .opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED, .wr_cqe = &w.cqe,
			.next = &bad_opcode },
	};
	struct kv_pair p;
	int err;

	err = kv_pair_create(&p, IB_POLL_DIRECT, true);
	if (err)
		goto out;
	/* Zero bytes: names no memory, needs no key. */
	good.rkey = p.pd->unsafe_global_rkey;
	kv_wait_init(&w);
	err = -EINVAL;
	if (ib_post_send(p.a, &good.wr, &bad) != -EINVAL || bad != &bad_opcode) {
		pr_err("# unsupported opcode not refused\n");
		goto out;
	}
	if (kv_wait_for(p.cq, &w) || w.wc.status != IB_WC_SUCCESS) {
		pr_err("# WR before the bad one did not complete\n");
		goto out;
	}
	bad = NULL;
	if (ib_post_send(p.a, &too_many, &bad) != -EINVAL || bad != &too_many) {
		pr_err("# too many SGEs not refused\n");
		goto out;
	}
	ib_drain_qp(p.a);
	ib_drain_qp(p.b);
	err = 0;
out:
	kv_pair_destroy(&p);
	return err;
}

/* A WQE whose lkey names no MR completes in error; the QP goes to ERR. */
static int kv_case_bad_lkey(void)
{
	struct ib_sge sge = { .length = 8 };
	struct kv_wait w;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .wr_cqe = &w.cqe,
				 .sg_list = &sge, .num_sge = 1,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	struct kv_pair p;
	u64 buf = 0;
	int err;

	err = kv_pair_create(&p, IB_POLL_DIRECT, true);
	if (err)
		goto out;
	sge.addr = ib_dma_map_single(kv_dev, &buf, 8, DMA_TO_DEVICE);
	sge.lkey = p.pd->local_dma_lkey + 0x100;	/* another index */
	kv_wait_init(&w);
	err = ib_post_send(p.a, &wr, NULL) ?: kv_wait_for(p.cq, &w);
	if (!err && (w.wc.status == IB_WC_SUCCESS ||
		     w.wc.status == IB_WC_WR_FLUSH_ERR)) {
		pr_err("# bad lkey completed with status %d\n", w.wc.status);
		err = -EIO;
	}
	if (!err && (ib_query_qp(p.a, &attr, IB_QP_STATE, &init) ||
		     attr.qp_state != IB_QPS_ERR))
		err = -EIO;
	ib_dma_unmap_single(kv_dev, sge.addr, 8, DMA_TO_DEVICE);
	if (!err) {
		ib_drain_qp(p.a);
		ib_drain_qp(p.b);
	}
out:
	kv_pair_destroy(&p);
	return err;
}

/* --- fast registration (FRWR), the way nvme-rdma and xprtrdma use it ------ */

#define KV_FR_BYTES	(3 * PAGE_SIZE)	/* the registered buffer */
#define KV_FR_OFF	100		/* where it starts in its first page */
#define KV_FR_PAGES	4		/* 4 KiB pages it spans */
#define KV_FR_ALL	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

/*
 * A pair whose QP b fast-registers @mr over @mem (kernel pages, mapped
 * through a scatterlist as a ULP maps a request's pages); QP a reaches it
 * through the key from @src / @dst, ordinary buffers under the DMA lkey.
 */
struct kv_fr {
	struct kv_pair p;
	struct ib_mr *mr;
	struct page *pages;
	u8 *mem;
	struct scatterlist sg;
	bool sg_mapped;
	u8 *src, *dst;
	u64 src_dma, dst_dma;
};

static void kv_fr_destroy(struct kv_fr *f)
{
	if (f->p.a && !IS_ERR(f->p.a))
		ib_destroy_qp(f->p.a);
	if (f->p.b && !IS_ERR(f->p.b))
		ib_destroy_qp(f->p.b);
	f->p.a = f->p.b = NULL;
	if (f->mr && !IS_ERR(f->mr))
		ib_dereg_mr(f->mr);
	if (f->sg_mapped)
		ib_dma_unmap_sg(kv_dev, &f->sg, 1, DMA_BIDIRECTIONAL);
	if (f->src_dma)
		ib_dma_unmap_single(kv_dev, f->src_dma, KV_FR_BYTES,
				    DMA_BIDIRECTIONAL);
	if (f->dst_dma)
		ib_dma_unmap_single(kv_dev, f->dst_dma, KV_FR_BYTES,
				    DMA_BIDIRECTIONAL);
	kv_pair_destroy(&f->p);
	if (f->pages)
		__free_pages(f->pages, 2);
	kfree(f->src);
	kfree(f->dst);
	memset(f, 0, sizeof(*f));
}

static int kv_fr_create(struct kv_fr *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = kv_pair_create(&f->p, IB_POLL_DIRECT, true);
	if (err)
		return err;
	f->mr = ib_alloc_mr(f->p.pd, IB_MR_TYPE_MEM_REG, KV_FR_PAGES);
	if (IS_ERR(f->mr)) {
		pr_err("# ib_alloc_mr: %ld\n", PTR_ERR(f->mr));
		return PTR_ERR(f->mr);
	}
	f->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	f->src = kzalloc(KV_FR_BYTES, GFP_KERNEL);
	f->dst = kzalloc(KV_FR_BYTES, GFP_KERNEL);
	if (!f->pages || !f->src || !f->dst)
		return -ENOMEM;
	f->mem = page_address(f->pages) + KV_FR_OFF;
	sg_init_one(&f->sg, f->mem, KV_FR_BYTES);
	KV_CHECK(ib_dma_map_sg(kv_dev, &f->sg, 1, DMA_BIDIRECTIONAL) == 1);
	f->sg_mapped = true;
	KV_CHECK(ib_map_mr_sg(f->mr, &f->sg, 1, NULL, SZ_4K) == 1);
	KV_CHECK(f->mr->length == KV_FR_BYTES);
	f->src_dma = ib_dma_map_single(kv_dev, f->src, KV_FR_BYTES,
				       DMA_BIDIRECTIONAL);
	f->dst_dma = ib_dma_map_single(kv_dev, f->dst, KV_FR_BYTES,
				       DMA_BIDIRECTIONAL);
	return 0;
}

/* The REG_MR a ULP posts: a new key byte, then the WR (@next chained). */
static void kv_fr_reg_wr(struct kv_fr *f, struct ib_reg_wr *wr,
			 struct kv_wait *w, int access)
{
	ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey));
	memset(wr, 0, sizeof(*wr));
	kv_wait_init(w);
	wr->wr.opcode = IB_WR_REG_MR;
	wr->wr.wr_cqe = &w->cqe;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->mr = f->mr;
	wr->key = f->mr->rkey;
	wr->access = access;
}

static int kv_fr_reg(struct kv_fr *f, int access)
{
	struct ib_reg_wr wr;
	struct kv_wait w;

	kv_fr_reg_wr(f, &wr, &w, access);
	KV_CHECK(!ib_post_send(f->p.b, &wr.wr, NULL));
	KV_CHECK(!kv_wait_for(f->p.cq, &w));
	KV_CHECK_WC(&w, IB_WC_SUCCESS);
	KV_CHECK(w.wc.opcode == IB_WC_REG_MR);
	return 0;
}

/* A's WRITE or READ of @len bytes at @off into the MR, with @rkey. */
static int kv_fr_rdma(struct kv_fr *f, enum ib_wr_opcode opcode, u32 off,
		      u32 len, u32 rkey, enum ib_wc_status want)
{
	struct ib_sge sge = { .addr = f->src_dma, .length = len,
			      .lkey = f->p.pd->local_dma_lkey };
	struct kv_wait w;
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &w.cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = f->mr->iova + off,
		.rkey = rkey,
	};

	kv_wait_init(&w);
	KV_CHECK(!ib_post_send(f->p.a, &wr.wr, NULL));
	KV_CHECK(!kv_wait_for(f->p.cq, &w));
	KV_CHECK_WC(&w, want);
	return 0;
}

static int kv_fr_local_inv(struct kv_fr *f, u32 key)
{
	struct kv_wait w;
	struct ib_send_wr wr = { .opcode = IB_WR_LOCAL_INV, .wr_cqe = &w.cqe,
				 .send_flags = IB_SEND_SIGNALED,
				 .ex.invalidate_rkey = key };

	kv_wait_init(&w);
	KV_CHECK(!ib_post_send(f->p.b, &wr, NULL));
	KV_CHECK(!kv_wait_for(f->p.cq, &w));
	KV_CHECK_WC(&w, IB_WC_SUCCESS);
	KV_CHECK(w.wc.opcode == IB_WC_LOCAL_INV);
	return 0;
}

/* A WRITE with @rkey is refused, and the MR's first bytes stay zero. */
static int kv_fr_write_refused(struct kv_fr *f, u32 rkey)
{
	memset(f->mem, 0, 64);
	kv_fill(f->src, 64, 5);
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_WRITE, 0, 64, rkey,
			     IB_WC_REM_ACCESS_ERR));
	KV_CHECK(!memchr_inv(f->mem, 0, 64));
	return 0;
}

static int kv_run_fr(int (*body)(struct kv_fr *f))
{
	struct kv_fr f;
	int err;

	err = kv_fr_create(&f) ?: body(&f);
	kv_fr_destroy(&f);
	return err;
}

/*
 * WRITE then READ through the key, crossing all four pages of the MR,
 * byte-exact, with nothing written outside the range.
 */
static int kv_fr_write_read(struct kv_fr *f)
{
	const u32 off = 50, len = KV_FR_BYTES - 100;

	KV_CHECK(!kv_fr_reg(f, KV_FR_ALL));
	kv_fill(f->src, len, 11);
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_WRITE, off, len, f->mr->rkey,
			     IB_WC_SUCCESS));
	KV_CHECK(!memcmp(f->mem + off, f->src, len));
	KV_CHECK(!f->mem[off - 1] && !f->mem[off + len]);
	kv_fill(f->mem, KV_FR_BYTES, 29);
	memset(f->src, 0, KV_FR_BYTES);
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_READ, off, len, f->mr->rkey,
			     IB_WC_SUCCESS));
	KV_CHECK(!memcmp(f->src, f->mem + off, len));
	KV_CHECK(!f->src[len]);
	return 0;
}

static int kv_case_fr_write_read(void) { return kv_run_fr(kv_fr_write_read); }

/* After LOCAL_INV the key is dead: the peer gets a remote access error. */
static int kv_fr_local_inv_kills_key(struct kv_fr *f)
{
	KV_CHECK(!kv_fr_reg(f, KV_FR_ALL));
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_WRITE, 0, 64, f->mr->rkey,
			     IB_WC_SUCCESS));
	KV_CHECK(!kv_fr_local_inv(f, f->mr->rkey));
	return kv_fr_write_refused(f, f->mr->rkey);
}

static int kv_case_fr_local_inv(void)
{
	return kv_run_fr(kv_fr_local_inv_kills_key);
}

/*
 * The key from before ib_update_fast_reg_key(): the MR's index with another
 * key byte, stale once the REG_MR made the new one valid.
 */
static int kv_fr_bad_key_byte(struct kv_fr *f)
{
	u32 stale = f->mr->rkey;

	KV_CHECK(!kv_fr_reg(f, KV_FR_ALL));
	return kv_fr_write_refused(f, stale);
}

static int kv_case_fr_bad_key_byte(void) { return kv_run_fr(kv_fr_bad_key_byte); }

/* Rights the REG_MR did not grant: a remote WRITE to a read-only key. */
static int kv_fr_access_not_granted(struct kv_fr *f)
{
	KV_CHECK(!kv_fr_reg(f, IB_ACCESS_REMOTE_READ));
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_READ, 0, 64, f->mr->rkey,
			     IB_WC_SUCCESS));
	return kv_fr_write_refused(f, f->mr->rkey);
}

static int kv_case_fr_access_not_granted(void)
{
	return kv_run_fr(kv_fr_access_not_granted);
}

/*
 * SEND with invalidate (three packets): the receiver learns which key
 * died, and the key is refused from then on.
 */
static int kv_fr_send_with_inv(struct kv_fr *f)
{
	struct ib_sge sge = { .addr = f->src_dma, .length = KV_MSG,
			      .lkey = f->p.pd->local_dma_lkey };
	struct kv_wait sw, rw;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_INV,
				 .wr_cqe = &sw.cqe, .sg_list = &sge,
				 .num_sge = 1, .send_flags = IB_SEND_SIGNALED };

	KV_CHECK(!kv_fr_reg(f, KV_FR_ALL));
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_WRITE, 0, 64, f->mr->rkey,
			     IB_WC_SUCCESS));
	kv_fill(f->src, KV_MSG, 17);
	wr.ex.invalidate_rkey = f->mr->rkey;
	KV_CHECK(!kv_post_recv(f->p.b, &rw, f->dst_dma, KV_FR_BYTES));
	kv_wait_init(&sw);
	KV_CHECK(!ib_post_send(f->p.a, &wr, NULL));
	KV_CHECK(!kv_wait_for(f->p.cq, &sw));
	KV_CHECK(!kv_wait_for(f->p.cq, &rw));
	KV_CHECK_WC(&sw, IB_WC_SUCCESS);
	KV_CHECK_WC(&rw, IB_WC_SUCCESS);
	KV_CHECK(sw.wc.opcode == IB_WC_SEND);
	KV_CHECK(rw.wc.opcode == IB_WC_RECV && rw.wc.byte_len == KV_MSG);
	KV_CHECK(rw.wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KV_CHECK(rw.wc.ex.invalidate_rkey == f->mr->rkey);
	KV_CHECK(!memcmp(f->dst, f->src, KV_MSG));
	return kv_fr_write_refused(f, f->mr->rkey);
}

static int kv_case_fr_send_with_inv(void) { return kv_run_fr(kv_fr_send_with_inv); }

/*
 * REG_MR chained before the SEND that advertises the key, as a ULP posts
 * them: the REG_MR completes first, and the peer can use the key the
 * moment the SEND arrives.
 */
static int kv_fr_reg_then_send(struct kv_fr *f)
{
	struct ib_sge sge = { .addr = f->dst_dma, .length = sizeof(u32),
			      .lkey = f->p.pd->local_dma_lkey };
	struct kv_wait regw, sw, rw;
	struct ib_send_wr send = { .opcode = IB_WR_SEND, .wr_cqe = &sw.cqe,
				   .sg_list = &sge, .num_sge = 1,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_reg_wr reg;
	u32 key;

	KV_CHECK(!kv_post_recv(f->p.a, &rw, f->src_dma + KV_FR_BYTES / 2,
			       sizeof(u32)));
	kv_fr_reg_wr(f, &reg, &regw, KV_FR_ALL);
	reg.wr.next = &send;
	memcpy(f->dst, &f->mr->rkey, sizeof(u32));
	kv_wait_init(&sw);
	KV_CHECK(!ib_post_send(f->p.b, &reg.wr, NULL));
	KV_CHECK(!kv_wait_for(f->p.cq, &rw));
	KV_CHECK_WC(&rw, IB_WC_SUCCESS);
	memcpy(&key, f->src + KV_FR_BYTES / 2, sizeof(key));
	KV_CHECK(key == f->mr->rkey);
	kv_fill(f->src, 256, 3);
	KV_CHECK(!kv_fr_rdma(f, IB_WR_RDMA_WRITE, 0, 256, key, IB_WC_SUCCESS));
	KV_CHECK(!memcmp(f->mem, f->src, 256));
	KV_CHECK(!kv_wait_for(f->p.cq, &regw));
	KV_CHECK(!kv_wait_for(f->p.cq, &sw));
	KV_CHECK_WC(&regw, IB_WC_SUCCESS);
	KV_CHECK_WC(&sw, IB_WC_SUCCESS);
	KV_CHECK(regw.wc.opcode == IB_WC_REG_MR && sw.wc.opcode == IB_WC_SEND);
	KV_CHECK(regw.seq < sw.seq);
	return 0;
}

static int kv_case_fr_reg_then_send(void) { return kv_run_fr(kv_fr_reg_then_send); }

/* --- UD: two QPs and an AH to the device's own GID -------------------------- */

#define KV_UD_QKEY	0x11110000
#define KV_UD_MSG	512
#define KV_GRH		40	/* the GRH area before a UD payload */
#define KV_UD_IMM	0x5eed

struct kv_ud {
	struct ib_pd *pd;
	struct ib_cq *cq;	/* both QPs' queues, polled directly */
	struct ib_qp *a, *b;
	struct ib_ah *ah;	/* to the device's own GID; NULL once destroyed */
	u8 *src, *dst;		/* KV_UD_MSG; KV_GRH + KV_UD_MSG + slack */
	u64 s, d;
};

#define KV_UD_DST_LEN	(KV_GRH + KV_UD_MSG + 64)

static struct ib_qp *kv_ud_qp(struct kv_ud *u)
{
	struct ib_qp_init_attr init = {
		.send_cq = u->cq, .recv_cq = u->cq, .qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = KV_DEPTH, .max_recv_wr = KV_DEPTH,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};

	return ib_create_qp(u->pd, &init);
}

/* RESET to RTS the way ib_mad moves its QPs: a Q_Key, no address. */
static int kv_ud_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = KV_UD_QKEY,
	};
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void kv_ud_destroy_ah(struct kv_ud *u)
{
	if (!IS_ERR_OR_NULL(u->ah))
		rdma_destroy_ah(u->ah, RDMA_DESTROY_AH_SLEEPABLE);
	u->ah = NULL;
}

static void kv_ud_destroy(struct kv_ud *u)
{
	kv_ud_destroy_ah(u);
	if (u->s)
		ib_dma_unmap_single(kv_dev, u->s, KV_UD_MSG, DMA_TO_DEVICE);
	if (u->d)
		ib_dma_unmap_single(kv_dev, u->d, KV_UD_DST_LEN, DMA_FROM_DEVICE);
	kfree(u->src);
	kfree(u->dst);
	if (!IS_ERR_OR_NULL(u->a))
		ib_destroy_qp(u->a);
	if (!IS_ERR_OR_NULL(u->b))
		ib_destroy_qp(u->b);
	if (!IS_ERR_OR_NULL(u->cq))
		ib_free_cq(u->cq);
	if (!IS_ERR_OR_NULL(u->pd))
		ib_dealloc_pd(u->pd);
	memset(u, 0, sizeof(*u));
}

static struct ib_ah *kv_ud_ah(struct ib_pd *pd)
{
	struct rdma_ah_attr attr = {};

	attr.type = rdma_ah_find_type(kv_dev, 1);
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &kv_gid, 0, gid_index, 64, 0);
	return rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

static int kv_ud_create(struct kv_ud *u)
{
	memset(u, 0, sizeof(*u));
	u->pd = ib_alloc_pd(kv_dev, 0);
	if (IS_ERR(u->pd))
		return PTR_ERR(u->pd);
	u->cq = ib_alloc_cq(kv_dev, NULL, 4 * KV_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(u->cq))
		return PTR_ERR(u->cq);
	u->a = kv_ud_qp(u);
	if (IS_ERR(u->a))
		return PTR_ERR(u->a);
	u->b = kv_ud_qp(u);
	if (IS_ERR(u->b))
		return PTR_ERR(u->b);
	u->src = kmalloc(KV_UD_MSG, GFP_KERNEL);
	u->dst = kzalloc(KV_UD_DST_LEN, GFP_KERNEL);
	if (!u->src || !u->dst)
		return -ENOMEM;
	kv_fill(u->src, KV_UD_MSG, 0x21);
	u->s = ib_dma_map_single(kv_dev, u->src, KV_UD_MSG, DMA_TO_DEVICE);
	u->d = ib_dma_map_single(kv_dev, u->dst, KV_UD_DST_LEN, DMA_FROM_DEVICE);
	u->ah = kv_ud_ah(u->pd);
	if (IS_ERR(u->ah))
		return PTR_ERR(u->ah);
	return kv_ud_to_rts(u->a) ?: kv_ud_to_rts(u->b);
}

/* Run @body on a fresh pair; its result is the case's. */
static int kv_ud_run(int (*body)(struct kv_ud *u))
{
	struct kv_ud u;
	int err;

	err = kv_ud_create(&u) ?: body(&u);
	kv_ud_destroy(&u);
	return err;
}

/* A SEND with immediate of the whole source buffer from a to b. */
static int kv_ud_post_send(struct kv_ud *u, struct kv_wait *w, u32 qkey)
{
	struct ib_sge sge = {
		.addr = u->s, .length = KV_UD_MSG, .lkey = u->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &w->cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(KV_UD_IMM),
		},
		.ah = u->ah, .remote_qpn = u->b->qp_num, .remote_qkey = qkey,
	};

	kv_wait_init(w);
	return ib_post_send(u->a, &wr.wr, NULL);
}

/*
 * What ib_core reads from a UD receive to answer it: the network header's
 * type, and the VLAN of the GID the datagram was sent to (a GID on a VLAN
 * netdev is found by that VLAN ID alone).
 */
static int kv_ud_check_network(const struct ib_wc *wc)
{
	enum rdma_network_type want =
		ipv6_addr_v4mapped((const struct in6_addr *)kv_gid.raw) ?
		RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	const struct ib_gid_attr *attr;
	u16 vlan_id = 0xffff;
	u8 smac[ETH_ALEN];
	int err;

	KV_CHECK((wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
		 wc->network_hdr_type == want);
	attr = rdma_get_gid_attr(kv_dev, 1, gid_index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	err = rdma_read_gid_l2_fields(attr, &vlan_id, smac);
	rdma_put_gid_attr(attr);
	if (err)
		return err;
	if (vlan_id < VLAN_N_VID)
		KV_CHECK((wc->wc_flags & IB_WC_WITH_VLAN) &&
			 wc->vlan_id == vlan_id);
	else
		KV_CHECK(!(wc->wc_flags & IB_WC_WITH_VLAN));
	return 0;
}

/* The receive completion and buffer of one datagram from a, byte for byte. */
static int kv_ud_check_recv(struct kv_ud *u, const struct kv_wait *rw)
{
	const struct ib_wc *wc = &rw->wc;
	struct rdma_ah_attr from;
	int err;

	KV_CHECK_WC(rw, IB_WC_SUCCESS);
	KV_CHECK(wc->opcode == IB_WC_RECV && wc->qp == u->b);
	KV_CHECK(wc->byte_len == KV_GRH + KV_UD_MSG);
	KV_CHECK(wc->wc_flags & IB_WC_GRH);
	KV_CHECK((wc->wc_flags & IB_WC_WITH_IMM) &&
		 be32_to_cpu(wc->ex.imm_data) == KV_UD_IMM);
	KV_CHECK(wc->src_qp == u->a->qp_num);
	KV_CHECK(wc->pkey_index == 0);
	KV_CHECK(!memcmp(u->dst + KV_GRH, u->src, KV_UD_MSG));
	err = kv_ud_check_network(wc);
	if (err)
		return err;
	/* What ib_cm does with a request: answer where the GRH says it came from. */
	err = ib_init_ah_attr_from_wc(kv_dev, 1, wc, (const struct ib_grh *)u->dst,
				      &from);
	if (err) {
		pr_err("# ib_init_ah_attr_from_wc: %d\n", err);
		return err;
	}
	err = memcmp(rdma_ah_read_grh(&from)->dgid.raw, kv_gid.raw,
		     sizeof(kv_gid.raw)) ? -EINVAL : 0;
	if (err)
		pr_err("# the GRH names %pI6, not the sender %pI6\n",
		       rdma_ah_read_grh(&from)->dgid.raw, kv_gid.raw);
	rdma_destroy_ah_attr(&from);
	return err;
}

static int kv_ud_post_recv(struct kv_ud *u, struct kv_wait *rw)
{
	memset(u->dst, 0, KV_UD_DST_LEN);
	return kv_post_recv(u->b, rw, u->d, KV_UD_DST_LEN);
}

/* One datagram: payload, immediate, GRH, source QP, all as sent. */
static int kv_ud_send_recv(struct kv_ud *u)
{
	struct kv_wait sw, rw;

	if (kv_ud_post_recv(u, &rw) || kv_ud_post_send(u, &sw, KV_UD_QKEY) ||
	    kv_wait_for(u->cq, &sw) || kv_wait_for(u->cq, &rw))
		return -EIO;
	KV_CHECK_WC(&sw, IB_WC_SUCCESS);
	KV_CHECK(sw.wc.opcode == IB_WC_SEND);
	return kv_ud_check_recv(u, &rw);
}

static int kv_case_ud_send_recv(void)
{
	return kv_ud_run(kv_ud_send_recv);
}

/*
 * A datagram with a Q_Key not the receiver's is dropped: the receive stays
 * posted. One whose Q_Key has the high bit set carries the sender QP's
 * own Q_Key (IBA 10.2.5), which matches, and fills it.
 */
static int kv_ud_qkey(struct kv_ud *u)
{
	struct kv_wait sw, rw;
	int i;

	if (kv_ud_post_recv(u, &rw) ||
	    kv_ud_post_send(u, &sw, KV_UD_QKEY + 1) || kv_wait_for(u->cq, &sw))
		return -EIO;
	/* A drop has no event to wait for: no receive has completed by now. */
	for (i = 0; i < 20 && !try_wait_for_completion(&rw.done); i++) {
		ib_process_cq_direct(u->cq, -1);
		msleep(10);
	}
	if (completion_done(&rw.done)) {
		pr_err("# a wrong Q_Key was received: status %d\n", rw.wc.status);
		return -EINVAL;
	}
	if (kv_ud_post_send(u, &sw, 0x80000000) || kv_wait_for(u->cq, &sw) ||
	    kv_wait_for(u->cq, &rw))
		return -EIO;
	return kv_ud_check_recv(u, &rw);
}

static int kv_case_ud_qkey(void)
{
	return kv_ud_run(kv_ud_qkey);
}

/* An AH destroyed right after the post: the datagram still goes where it said. */
static int kv_ud_ah_destroyed_in_flight(struct kv_ud *u)
{
	struct kv_wait sw, rw;
	int err;

	err = kv_ud_post_recv(u, &rw) ?: kv_ud_post_send(u, &sw, KV_UD_QKEY);
	kv_ud_destroy_ah(u);
	if (err || kv_wait_for(u->cq, &sw) || kv_wait_for(u->cq, &rw))
		return -EIO;
	KV_CHECK_WC(&sw, IB_WC_SUCCESS);
	return kv_ud_check_recv(u, &rw);
}

static int kv_case_ud_ah_destroyed_in_flight(void)
{
	return kv_ud_run(kv_ud_ah_destroyed_in_flight);
}

/*
 * A UD QP sends only SENDs: a WRITE is refused at the post or completes
 * in error, never sent.
 */
static int kv_ud_write_refused(struct kv_ud *u)
{
	struct kv_wait w;

	if (kv_post_send(u->a, &w, IB_WR_RDMA_WRITE, 0, u->s, KV_UD_MSG, u->d))
		return 0;	/* refused at the post */
	if (kv_wait_for(u->cq, &w))
		return -EIO;
	KV_CHECK(w.wc.status != IB_WC_SUCCESS);
	return 0;
}

static int kv_case_ud_write_refused(void)
{
	return kv_ud_run(kv_ud_write_refused);
}

/* --- shared receive queue ------------------------------------------------- */

#define KV_SRQ_WQES	4

/* Counts the async events of one kind an object got. */
struct kv_events {
	enum ib_event_type type;
	atomic_t count;
};

static void kv_count_event(struct ib_event *ev, void *ctx)
{
	struct kv_events *e = ctx;

	if (ev->event == e->type)
		atomic_inc(&e->count);
}

static struct ib_qp *kv_create_srq_qp(struct kv_pair *p, struct ib_srq *srq,
				      struct kv_events *ev)
{
	struct ib_qp_init_attr init = {
		.event_handler = kv_count_event,
		.qp_context = ev,
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.srq = srq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = KV_DEPTH, .max_send_sge = 1 },
	};

	return ib_create_qp(p->pd, &init);
}

static int kv_post_srq_recv(struct ib_srq *srq, struct kv_wait *w, u64 addr,
			    u32 len, u32 lkey)
{
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_recv_wr wr = { .wr_cqe = &w->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	kv_wait_init(w);
	return ib_post_srq_recv(srq, &wr, NULL);
}

/*
 * Two connections, each receiver on one kernel SRQ: each SEND lands
 * byte-exact in an SRQ WQE and completes with its own receiver's QP. The
 * limit armed at 3 of 4 posted fires once, when the second WQE is taken.
 * Draining a receiver (ERR) brings IB_EVENT_QP_LAST_WQE_REACHED once,
 * which 6.12's ib_drain_qp() waits for; the WQEs still in the SRQ are not
 * flushed with it.
 */
static int kv_srq_run(struct kv_pair *p, struct kv_pair *q, struct ib_srq *srq,
		      struct kv_events *srq_ev, struct kv_events *last_ev,
		      u8 *src, u8 *dst)
{
	struct ib_srq_attr attr = { .srq_limit = 3 };
	struct kv_wait rw[KV_SRQ_WQES], sw;
	u32 lkey = p->pd->local_dma_lkey;
	u64 s, d;
	int i, err = -EINVAL;

	s = ib_dma_map_single(kv_dev, src, KV_MSG, DMA_TO_DEVICE);
	d = ib_dma_map_single(kv_dev, dst, KV_SRQ_WQES * KV_MSG, DMA_FROM_DEVICE);
	for (i = 0; i < KV_SRQ_WQES; i++)
		if (kv_post_srq_recv(srq, &rw[i], d + i * KV_MSG, KV_MSG, lkey))
			goto out;
	if (ib_modify_srq(srq, &attr, IB_SRQ_LIMIT))
		goto out;
	for (i = 0; i < 2; i++) {
		struct kv_pair *pair = i ? q : p;

		kv_fill(src, KV_MSG, 40 + i);
		if (kv_post_send(pair->a, &sw, IB_WR_SEND, 0, s, KV_MSG, 0) ||
		    kv_wait_for(pair->cq, &sw) || kv_wait_for(pair->cq, &rw[i]) ||
		    sw.wc.status != IB_WC_SUCCESS ||
		    rw[i].wc.status != IB_WC_SUCCESS || rw[i].wc.qp != pair->b ||
		    rw[i].wc.byte_len != KV_MSG ||
		    memcmp(src, dst + i * KV_MSG, KV_MSG)) {
			pr_err("# srq send %d: status %d qp %p\n", i,
			       rw[i].wc.status, rw[i].wc.qp);
			goto out;
		}
	}
	if (atomic_read(&srq_ev->count) != 1) {
		pr_err("# srq limit events: %d\n", atomic_read(&srq_ev->count));
		goto out;
	}
	ib_drain_qp(p->b);
	ib_process_cq_direct(p->cq, -1);
	if (atomic_read(&last_ev->count) != 1 ||
	    try_wait_for_completion(&rw[2].done)) {
		pr_err("# last wqe events %d, srq wqe flushed %d\n",
		       atomic_read(&last_ev->count), rw[2].wc.status);
		goto out;
	}
	err = 0;
out:
	ib_dma_unmap_single(kv_dev, s, KV_MSG, DMA_TO_DEVICE);
	ib_dma_unmap_single(kv_dev, d, KV_SRQ_WQES * KV_MSG, DMA_FROM_DEVICE);
	return err;
}

static int kv_case_srq_send_recv(void)
{
	struct kv_events srq_ev = { .type = IB_EVENT_SRQ_LIMIT_REACHED };
	struct kv_events last_ev = { .type = IB_EVENT_QP_LAST_WQE_REACHED };
	struct kv_events other_ev = { .type = IB_EVENT_QP_LAST_WQE_REACHED };
	struct ib_srq_init_attr init = {
		.event_handler = kv_count_event,
		.srq_context = &srq_ev,
		.attr = { .max_wr = KV_SRQ_WQES, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct kv_pair p = {}, q = {};
	struct ib_srq *srq = NULL;
	u8 *src, *dst;
	int err = -ENOMEM;

	src = kmalloc(KV_MSG, GFP_KERNEL);
	dst = kzalloc(KV_SRQ_WQES * KV_MSG, GFP_KERNEL);
	if (!src || !dst)
		goto out;
	err = kv_pair_create(&p, IB_POLL_DIRECT, false);
	if (err)
		goto out;
	srq = ib_create_srq(p.pd, &init);
	err = PTR_ERR_OR_ZERO(srq);
	if (err) {
		srq = NULL;
		goto out;
	}
	/* p.b and q.b receive through the SRQ; q shares p's PD and CQ. */
	ib_destroy_qp(p.b);
	p.b = kv_create_srq_qp(&p, srq, &last_ev);
	q.a = kv_create_qp(&p, p.cq, p.cq);
	q.b = kv_create_srq_qp(&p, srq, &other_ev);
	err = PTR_ERR_OR_ZERO(p.b) ?: PTR_ERR_OR_ZERO(q.a) ?: PTR_ERR_OR_ZERO(q.b);
	if (err)
		goto out;
	q.pd = p.pd;
	q.cq = p.cq;
	err = kv_qp_to_init(p.a) ?: kv_qp_to_init(p.b) ?: kv_qp_to_init(q.a) ?:
	      kv_qp_to_init(q.b) ?: kv_qp_to_rts(p.a, p.b->qp_num) ?:
	      kv_qp_to_rts(p.b, p.a->qp_num) ?: kv_qp_to_rts(q.a, q.b->qp_num) ?:
	      kv_qp_to_rts(q.b, q.a->qp_num);
	if (!err)
		err = kv_srq_run(&p, &q, srq, &srq_ev, &last_ev, src, dst);
	/* Destroying an SRQ some QP still uses is refused. */
	if (!err && ib_destroy_srq_user(srq, NULL) != -EBUSY)
		err = -EINVAL;
out:
	if (q.a && !IS_ERR(q.a))
		ib_destroy_qp(q.a);
	if (q.b && !IS_ERR(q.b))
		ib_destroy_qp(q.b);
	if (p.b && !IS_ERR(p.b)) {
		ib_destroy_qp(p.b);
		p.b = NULL;
	}
	if (srq)
		ib_destroy_srq(srq);
	kv_pair_destroy(&p);
	kfree(src);
	kfree(dst);
	return err;
}

/* --- runner ----------------------------------------------------------------- */

#define KV_CASE(fn) { #fn + sizeof("kv_case_") - 1, fn }

static const struct {
	const char *name;
	int (*run)(void);
} kv_cases[] = {
	KV_CASE(kv_case_device_attrs),
	KV_CASE(kv_case_alloc_pd),
	KV_CASE(kv_case_comp_vectors),
	KV_CASE(kv_case_traffic_direct),
	KV_CASE(kv_case_traffic_softirq),
	KV_CASE(kv_case_traffic_workqueue),
	KV_CASE(kv_case_traffic_unbound_workqueue),
	KV_CASE(kv_case_send_pages),
	KV_CASE(kv_case_post_atomic_context),
	KV_CASE(kv_case_drain_flushes_posted),
	KV_CASE(kv_case_notify),
	KV_CASE(kv_case_comp_vector_cpu),
	KV_CASE(kv_case_post_state_and_full),
	KV_CASE(kv_case_bad_wr),
	KV_CASE(kv_case_bad_lkey),
	KV_CASE(kv_case_ud_send_recv),
	KV_CASE(kv_case_ud_qkey),
	KV_CASE(kv_case_ud_ah_destroyed_in_flight),
	KV_CASE(kv_case_ud_write_refused),
	KV_CASE(kv_case_srq_send_recv),
	KV_CASE(kv_case_fr_write_read),
	KV_CASE(kv_case_fr_local_inv),
	KV_CASE(kv_case_fr_bad_key_byte),
	KV_CASE(kv_case_fr_access_not_granted),
	KV_CASE(kv_case_fr_send_with_inv),
	KV_CASE(kv_case_fr_reg_then_send),
};

/* Is @name in the comma-separated skip list? */
static bool kv_skipped(const char *name)
{
	size_t len = strlen(name);
	const char *p = skip;

	while ((p = strstr(p, name))) {
		if ((p == skip || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
		p += len;
	}
	return false;
}

static void kv_run_case(const char *name, int (*run)(void))
{
	int err;

	kv_case_nr++;
	if (kv_skipped(name)) {
		pr_info("ok %d %s # SKIP\n", kv_case_nr, name);
		return;
	}
	err = run();
	if (err) {
		kv_failed++;
		pr_info("not ok %d %s # error %d\n", kv_case_nr, name, err);
	} else {
		pr_info("ok %d %s\n", kv_case_nr, name);
	}
}

static int kv_find_device(void)
{
	int err;

	kv_dev = ib_device_get_by_name(dev_name_param, RDMA_DRIVER_UNKNOWN);
	if (!kv_dev) {
		pr_err("no RDMA device %s\n", dev_name_param);
		return -ENODEV;
	}
	err = rdma_query_gid(kv_dev, 1, gid_index, &kv_gid);
	if (err) {
		pr_err("%s: no GID at index %d: %d\n", dev_name_param,
		       gid_index, err);
		ib_device_put(kv_dev);
	}
	return err;
}

static int kv_hold_pd(void)
{
	kv_held_pd = ib_alloc_pd(kv_dev, 0);
	if (IS_ERR(kv_held_pd)) {
		pr_err("ib_alloc_pd: %ld\n", PTR_ERR(kv_held_pd));
		kv_held_pd = NULL;
		ib_device_put(kv_dev);
		return -EINVAL;
	}
	held_lkey = kv_held_pd->local_dma_lkey;
	return 0;
}

static int __init kv_init(void)
{
	int i, err;

	err = kv_find_device();
	if (err)
		return err;
	if (hold_pd)
		return kv_hold_pd();
	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(kv_cases));
	for (i = 0; i < ARRAY_SIZE(kv_cases); i++)
		kv_run_case(kv_cases[i].name, kv_cases[i].run);
	pr_info("# %s: %d of %d cases failed\n", dev_name_param, kv_failed,
		kv_case_nr);
	if (kv_failed) {
		ib_device_put(kv_dev);
		return -EINVAL;
	}
	return 0;
}

static void __exit kv_exit(void)
{
	if (kv_held_pd)
		ib_dealloc_pd(kv_held_pd);
	ib_device_put(kv_dev);
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("Kernel verbs test cases for an RDMA device");
MODULE_LICENSE("GPL");
