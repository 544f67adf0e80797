// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data-path tests: two threads post on one QP while a third plays the
 * kernel and the main thread polls. Every WR must complete exactly once
 * and no post may see a slot that is still outstanding.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "dp.h"

#define POSTS_PER_THREAD 20000
#define POSTERS 3
#define SQ_DEPTH 256

struct stress {
	struct fx f;
	int poster;
	volatile bool stop;
	int post_errors;
};

static void *poster(void *arg)
{
	struct stress *s = arg;
	int me = __atomic_fetch_add(&s->poster, 1, __ATOMIC_RELAXED);
	uint64_t i = 0;
	int ret;

	while (i < POSTS_PER_THREAD && !s->stop) {
		ret = post_one(&s->f, IBV_WR_SEND, IBV_SEND_SIGNALED,
			       (uint64_t)me * POSTS_PER_THREAD + i);
		if (!ret)
			i++;
		else if (ret == ENOMEM)
			sched_yield();
		else
			__atomic_fetch_add(&s->post_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Completes every WQE it finds, one CQE each, in ring order. */
static void *kernel(void *arg)
{
	struct stress *s = arg;
	struct mock_qp *k = s->f.kqp;

	while (!s->stop) {
		uint32_t n = k_sq_pending(k), i;

		for (i = 0; i < n; i++)
			k_complete(&s->f, false, k->sq.hdr->consumer + i,
				   k_sq_peek(k, i)->wr_id);
		k_sq_consume(k, n);
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void threads_post_and_poll_every_wr_exactly_once(
	struct unit_case_state *t)
{
	static uint8_t seen[POSTERS * POSTS_PER_THREAD];
	pthread_t posters[POSTERS], k;
	struct stress s = { .poster = 0 };
	time_t deadline = time(NULL) + 30;
	uint64_t got = 0, dup = 0;
	struct ibv_wc wc[16];
	int i, n;

	const struct fx_opts opts = {
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.cqe = SQ_DEPTH,	/* every outstanding WQE may have a CQE */
	};

	memset(seen, 0, sizeof(seen));
	if (!fx_setup(t, &s.f, &opts))
		return;
	pthread_create(&k, NULL, kernel, &s);
	for (i = 0; i < POSTERS; i++)
		pthread_create(&posters[i], NULL, poster, &s);
	/* A lost WR must fail the case, not hang it. */
	while (got < POSTERS * POSTS_PER_THREAD && time(NULL) < deadline) {
		n = ibv_poll_cq(s.f.cq, 16, wc);
		for (i = 0; i < n; i++, got++) {
			if (wc[i].wr_id >= sizeof(seen) || seen[wc[i].wr_id]++)
				dup++;
		}
	}
	s.stop = true;		/* also releases posters stuck on ENOMEM */
	for (i = 0; i < POSTERS; i++)
		pthread_join(posters[i], NULL);
	pthread_join(k, NULL);
	EXPECT(t, got == POSTERS * POSTS_PER_THREAD);
	EXPECT(t, dup == 0 && s.post_errors == 0);
	EXPECT(t, k_sq_pending(s.f.kqp) == 0);
	fx_teardown(&s.f);
}

DP_CASES(dp_threads_cases,
	 UNIT_CASE(threads_post_and_poll_every_wr_exactly_once));
