// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a sending QP's loopback queue and its delivery claim (sroce_outq.h).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>

#include "sroce_outq.h"

/* A packet tagged with its sequence number in skb->mark. */
static struct sk_buff *outq_pkt(struct kunit *test, u32 seq)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->mark = seq;
	return skb;
}

static bool outq_append(struct sroce_outq *q, struct sk_buff *skb)
{
	bool claimed;

	local_bh_disable();
	claimed = sroce_outq_append(q, skb);
	local_bh_enable();
	return claimed;
}

static bool outq_take(struct sroce_outq *q, struct sk_buff_head *batch)
{
	bool taken;

	local_bh_disable();
	taken = sroce_outq_take(q, batch);
	local_bh_enable();
	return taken;
}

static void sroce_outq_first_append_claims_later_ones_do_not(struct kunit *test)
{
	struct sroce_outq q;
	struct sk_buff_head batch;

	sroce_outq_init(&q);
	__skb_queue_head_init(&batch);
	KUNIT_EXPECT_TRUE(test, outq_append(&q, outq_pkt(test, 0)));
	KUNIT_EXPECT_FALSE(test, outq_append(&q, outq_pkt(test, 1)));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	/* Emptied by the take, the queue stays claimed until a take finds it so. */
	KUNIT_EXPECT_FALSE(test, outq_append(&q, outq_pkt(test, 2)));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&batch), 3U);
	__skb_queue_purge(&batch);
}

static void sroce_outq_take_keeps_append_order(struct kunit *test)
{
	struct sroce_outq q;
	struct sk_buff_head batch;
	struct sk_buff *skb;
	u32 seq;

	sroce_outq_init(&q);
	__skb_queue_head_init(&batch);
	for (seq = 0; seq < 5; seq++)
		outq_append(&q, outq_pkt(test, seq));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	outq_append(&q, outq_pkt(test, 5));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	for (seq = 0; (skb = __skb_dequeue(&batch)); seq++) {
		KUNIT_EXPECT_EQ(test, skb->mark, seq);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, seq, 6U);
}

static void sroce_outq_empty_take_releases_the_claim(struct kunit *test)
{
	struct sroce_outq q;
	struct sk_buff_head batch;

	sroce_outq_init(&q);
	__skb_queue_head_init(&batch);
	outq_append(&q, outq_pkt(test, 0));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	KUNIT_EXPECT_FALSE(test, outq_take(&q, &batch));
	KUNIT_EXPECT_FALSE(test, q.claimed);
	/* The next packet finds nobody delivering: its sender must. */
	KUNIT_EXPECT_TRUE(test, outq_append(&q, outq_pkt(test, 1)));
	KUNIT_EXPECT_TRUE(test, outq_take(&q, &batch));
	KUNIT_EXPECT_FALSE(test, outq_take(&q, &batch));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&batch), 2U);
	__skb_queue_purge(&batch);
}

/*
 * Two senders share one queue, as the transmit thread and a doorbell share
 * one QP: each appends under a common lock (the QP lock) and, when its
 * append claims the queue, delivers until a take comes back empty. Every
 * packet must be delivered once, in order, by one deliverer at a time, and
 * none may be left behind in an unclaimed queue.
 */
#define OUTQ_RACE_PKTS	10000

struct outq_race {
	struct sroce_outq q;
	struct mutex qp_lock;
	u32 next_seq;		/* under qp_lock */
	u32 delivered;		/* by the claim holder only */
	u32 out_of_order;
	atomic_t deliverers;
	atomic_t overlaps;
	atomic_t running;
	struct completion done;
	bool lockstep;		/* append only once all before is delivered */
	bool stuck;		/* a lockstep sender waited in vain */
};

/*
 * The claim holder: a batch is only ever in hand between a take that found
 * packets and the next take, so two batches in hand at once mean two claims.
 */
static void outq_race_deliver(struct outq_race *r)
{
	struct sk_buff_head batch;
	struct sk_buff *skb;

	__skb_queue_head_init(&batch);
	while (outq_take(&r->q, &batch)) {
		if (atomic_inc_return(&r->deliverers) != 1)
			atomic_inc(&r->overlaps);
		while ((skb = __skb_dequeue(&batch))) {
			if (skb->mark != r->delivered)
				r->out_of_order++;
			WRITE_ONCE(r->delivered, r->delivered + 1);
			kfree_skb(skb);
		}
		atomic_dec(&r->deliverers);
		cond_resched();
	}
}

/*
 * Lockstep: wait until every packet appended so far is delivered. The one
 * packet a sender then appends can only be delivered by the claim holder;
 * if a claim were released with it queued, both senders would wait here.
 */
static bool outq_race_wait_delivered(struct outq_race *r)
{
	unsigned long deadline = jiffies + 5 * HZ;

	while (READ_ONCE(r->delivered) != READ_ONCE(r->next_seq)) {
		if (READ_ONCE(r->stuck) || time_after(jiffies, deadline)) {
			WRITE_ONCE(r->stuck, true);
			return false;
		}
		cond_resched();
	}
	return true;
}

static int outq_race_sender(void *arg)
{
	struct outq_race *r = arg;
	struct sk_buff *skb;
	bool claimed;

	for (;;) {
		if (r->lockstep && !outq_race_wait_delivered(r))
			break;
		skb = alloc_skb(0, GFP_KERNEL);
		mutex_lock(&r->qp_lock);
		if (!skb || r->next_seq == OUTQ_RACE_PKTS) {
			mutex_unlock(&r->qp_lock);
			kfree_skb(skb);
			break;
		}
		skb->mark = r->next_seq;
		WRITE_ONCE(r->next_seq, r->next_seq + 1);
		claimed = outq_append(&r->q, skb);
		mutex_unlock(&r->qp_lock);
		if (claimed)
			outq_race_deliver(r);
	}
	if (atomic_dec_and_test(&r->running))
		complete(&r->done);
	return 0;
}

static void outq_race_run(struct kunit *test, bool lockstep)
{
	struct outq_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	sroce_outq_init(&r->q);
	mutex_init(&r->qp_lock);
	init_completion(&r->done);
	atomic_set(&r->running, 2);
	r->lockstep = lockstep;
	for (i = 0; i < 2; i++) {
		t = kthread_run(outq_race_sender, r, "outq_race/%d", i);
		if (IS_ERR(t) && atomic_dec_and_test(&r->running))
			complete(&r->done);
	}
	wait_for_completion(&r->done);
	KUNIT_EXPECT_FALSE(test, r->stuck);
	KUNIT_EXPECT_GT(test, r->next_seq, 0U);
	KUNIT_EXPECT_EQ(test, r->delivered, r->next_seq);
	KUNIT_EXPECT_EQ(test, r->out_of_order, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->overlaps), 0);
	KUNIT_EXPECT_FALSE(test, r->q.claimed);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&r->q.pkts));
	__skb_queue_purge(&r->q.pkts);
}

static void sroce_outq_two_senders_deliver_all_in_order_one_at_a_time(struct kunit *test)
{
	outq_race_run(test, false);
}

/*
 * The end of a drain: an append that lands while the holder finds the queue
 * empty must be delivered by the holder or claim the queue itself.
 */
static void sroce_outq_append_racing_the_last_take_is_never_stranded(struct kunit *test)
{
	outq_race_run(test, true);
}

static struct kunit_case sroce_outq_cases[] = {
	KUNIT_CASE(sroce_outq_first_append_claims_later_ones_do_not),
	KUNIT_CASE(sroce_outq_take_keeps_append_order),
	KUNIT_CASE(sroce_outq_empty_take_releases_the_claim),
	KUNIT_CASE(sroce_outq_two_senders_deliver_all_in_order_one_at_a_time),
	KUNIT_CASE(sroce_outq_append_racing_the_last_take_is_never_stranded),
	{}
};

static struct kunit_suite sroce_outq_suite = {
	.name = "sroce_outq",
	.test_cases = sroce_outq_cases,
};
kunit_test_suite(sroce_outq_suite);
