// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device limits: what ibv_query_device advertises is what the device
 * enforces. These cases create objects by the thousand, so they run only
 * when --only names them (tests/vm/tests/qp-limit.sh does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_test.h"

/*
 * One kind of object whose count the device bounds: how to make one (NULL
 * with errno set when refused) and how to destroy it.
 */
struct limit_kind {
	const char *name;		/* "QP", "AH", "MW" */
	const char *attr;		/* its ibv_device_attr limit */
	void *(*create)(struct vt *t, void *ctx);
	int (*destroy)(void *obj);
};

/* The smallest QP there is: one slot per queue, one SGE, no inline data. */
static struct ibv_qp *limit_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &ia);
}

static void *limit_qp_create(struct vt *t, void *cq)
{
	return limit_qp(t->pd, cq);
}

static int limit_qp_destroy(void *qp)
{
	return ibv_destroy_qp(qp);
}

static const struct limit_kind limit_qps = {
	"QP", "max_qp", limit_qp_create, limit_qp_destroy,
};

/* An AH to the device's own GID: no neighbour to resolve but our own. */
static void *limit_ah_create(struct vt *t, void *unused)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = t->dev->port,
		.grh = { .dgid = t->dev->gid, .sgid_index = t->dev->gid_index,
			 .hop_limit = 64 },
	};

	(void)unused;
	return ibv_create_ah(t->pd, &a);
}

static int limit_ah_destroy(void *ah)
{
	return ibv_destroy_ah(ah);
}

static const struct limit_kind limit_ahs = {
	"AH", "max_ah", limit_ah_create, limit_ah_destroy,
};

/* The smallest SRQ: one slot of one SGE. */
static void *limit_srq_create(struct vt *t, void *unused)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 1, .max_sge = 1 } };

	(void)unused;
	return ibv_create_srq(t->pd, &a);
}

static int limit_srq_destroy(void *srq)
{
	return ibv_destroy_srq(srq);
}

static const struct limit_kind limit_srqs = {
	"SRQ", "max_srq", limit_srq_create, limit_srq_destroy,
};

/* A type 2 window: allocated FREE, nothing bound. */
static void *limit_mw_create(struct vt *t, void *unused)
{
	(void)unused;
	return ibv_alloc_mw(t->pd, IBV_MW_TYPE_2);
}

static int limit_mw_destroy(void *mw)
{
	return ibv_dealloc_mw(mw);
}

static const struct limit_kind limit_mws = {
	"MW", "max_mw", limit_mw_create, limit_mw_destroy,
};

/* Create objects into @objs until one fails or @room are made; errno of the failure. */
static int fill(struct vt *t, const struct limit_kind *k, void *ctx, void **objs,
		int room, int *made)
{
	for (*made = 0; *made < room; ++*made) {
		objs[*made] = k->create(t, ctx);
		if (!objs[*made])
			return errno;
	}
	return 0;
}

static int destroy_all(struct vt *t, const struct limit_kind *k, void **objs, int n)
{
	int rc, bad = 0;

	while (n--) {
		rc = k->destroy(objs[n]);
		if (rc && !bad)
			bad = rc;
	}
	return bad ? vt_fail(t, "destroying a %s: %s", k->name, strerror(bad)) : 0;
}

/* One object past the limit must fail with ENOMEM; @made were created before it. */
static int expect_full(struct vt *t, const struct limit_kind *k, int err, int made,
		       int max, const char *when)
{
	if (!err)
		return vt_fail(t, "%s: %s %d of %s %d created", when, k->name, made,
			       k->attr, max);
	if (made != max || err != ENOMEM)
		return vt_fail(t, "%s: creating a %s failed after %d of %s %d: %s (%d), expected ENOMEM at %d",
			       when, k->name, made, k->attr, max, strerror(err), err, max);
	return 0;
}

/*
 * Fill the device to its limit @max (no other object of the kind may exist
 * on it): the next one fails with ENOMEM; a destroyed one makes room for
 * exactly one; once all are gone the whole count is available again.
 */
static int limit_case(struct vt *t, const struct limit_kind *k, int max, void *ctx)
{
	long long start = vt_now_ms();
	int made, more, err, rc = -1;
	void **objs;

	if (max < 2)
		return vt_fail(t, "%s %d", k->attr, max);
	objs = calloc((size_t)max + 1, sizeof(*objs));
	if (!objs)
		return vt_fail(t, "calloc: %s", strerror(errno));
	err = fill(t, k, ctx, objs, max + 1, &made);
	vt_note(t, "%d %ss created in %lld ms, then: %s", made, k->name,
		vt_now_ms() - start, err ? strerror(err) : "no failure");
	if (expect_full(t, k, err, made, max, "first fill"))
		goto out;

	if (k->destroy(objs[--made])) {
		vt_fail(t, "destroying a %s: %s", k->name, strerror(errno));
		goto out;
	}
	err = fill(t, k, ctx, objs + made, 2, &more);
	made += more;
	if (expect_full(t, k, err, made, max, "after one destroy"))
		goto out;

	if (destroy_all(t, k, objs, made))
		goto free;
	made = 0;
	err = fill(t, k, ctx, objs, max + 1, &made);
	rc = expect_full(t, k, err, made, max, "after destroying all");
out:
	if (destroy_all(t, k, objs, made))
		rc = -1;
free:
	free(objs);
	return rc;
}

static int qp_limit_client(struct vt *t)
{
	struct ibv_cq *cq = vt_cq(t, 1, NULL);

	return cq ? limit_case(t, &limit_qps, t->dev->attr.max_qp, cq) : -1;
}

/* max_ah counts kernel and user AHs of the device: none may exist besides. */
static int ah_limit_client(struct vt *t)
{
	return limit_case(t, &limit_ahs, t->dev->attr.max_ah, NULL);
}

static int srq_limit_client(struct vt *t)
{
	return limit_case(t, &limit_srqs, t->dev->attr.max_srq, NULL);
}

static int mw_limit_client(struct vt *t)
{
	return limit_case(t, &limit_mws, t->dev->attr.max_mw, NULL);
}

/* --- the transmit thread's cost with idle QPs --------------------------- */

#define IDLE_QPS	8192
#define BUSY_ROUNDS	16
#define BUSY_BATCH	32	/* WRITEs in flight per round */
#define BUSY_LEN	64
/*
 * A pause before each round, longer than a parked transmit thread's longest
 * re-probe (SROCE_TX_REPROBE_MAX_MS, 100 ms): then the round's doorbell wakes
 * the thread, asleep or parked, and each round costs at least one pass.
 * Without it a thread parked by the case before (a ping-pong, busy CPUs)
 * stays asleep through rounds that, in loopback, doorbells alone carry.
 */
#define ROUND_PAUSE_US	(200 * 1000)
/* QPs one pass may visit here: the busy pair, and slack for walks besides passes. */
#define MAX_VISITS_PER_PASS	64

/* An sroce hw counter of the device's port; -1 (reason set) if unreadable. */
static long long hw_counter(struct vt *t, const char *name)
{
	char path[256];
	long long v;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters/%s",
		 ibv_get_device_name(t->dev->ctx->device), t->dev->port, name);
	f = fopen(path, "r");
	if (!f)
		return vt_fail(t, "%s: %s", path, strerror(errno));
	ok = fscanf(f, "%lld", &v) == 1;
	fclose(f);
	return ok ? v : vt_fail(t, "%s: no number", path);
}

static int busy_rounds(struct vt *t, struct vt_ep *ep, const struct vt_buf *b)
{
	int round, i;

	for (round = 0; round < BUSY_ROUNDS; round++) {
		usleep(ROUND_PAUSE_US);
		for (i = 0; i < BUSY_BATCH; i++) {
			struct ibv_sge sg = vt_sge(b, (size_t)i * BUSY_LEN, BUSY_LEN);
			struct ibv_send_wr wr = vt_wr(IBV_WR_RDMA_WRITE, i, &sg, 1,
						      IBV_SEND_SIGNALED);

			vt_wr_remote(&wr, ep, (uint64_t)i * BUSY_LEN);
			if (vt_post_send(t, ep, &wr))
				return -1;
		}
		for (i = 0; i < BUSY_BATCH; i++)
			if (vt_expect_wc(t, ep->scq, i, IBV_WC_SUCCESS, NULL, "WRITE completion"))
				return -1;
	}
	return 0;
}

/*
 * IDLE_QPS QPs that never post sit beside one busy pair: the transmit
 * thread's passes must cost what the busy QPs need, not what the device
 * holds. Judged by the thread's own counters (tx_qp_visits per tx_passes),
 * not by time.
 */
static int tx_idle_qps_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, BUSY_BATCH * BUSY_LEN, IBV_ACCESS_LOCAL_WRITE);
	long long passes, visits;
	struct vt_qp_opts o;
	void **idle;
	struct ibv_cq *cq;
	int made, err, rc = -1;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.max_send_wr = BUSY_BATCH;
	cq = vt_cq(t, 1, NULL);
	idle = calloc(IDLE_QPS, sizeof(*idle));
	if (!b || !cq || !idle) {
		free(idle);
		return vt_fail(t, "setup: %s", strerror(errno));
	}
	err = fill(t, &limit_qps, cq, idle, IDLE_QPS, &made);
	if (err) {
		vt_fail(t, "idle QP %d: %s", made, strerror(err));
		goto out;
	}
	if (vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL))
		goto out;
	passes = hw_counter(t, "tx_passes");
	visits = hw_counter(t, "tx_qp_visits");
	if (passes < 0 || visits < 0 || busy_rounds(t, &ep, b))
		goto out;
	passes = hw_counter(t, "tx_passes") - passes;
	visits = hw_counter(t, "tx_qp_visits") - visits;
	vt_note(t, "%d idle QPs: %lld transmit passes visited %lld QPs", made, passes, visits);
	if (passes < BUSY_ROUNDS)
		vt_fail(t, "the transmit thread made %lld passes for %d rounds of WRITEs, each after a %d ms pause",
			passes, BUSY_ROUNDS, ROUND_PAUSE_US / 1000);
	else if (visits > passes * MAX_VISITS_PER_PASS)
		vt_fail(t, "%lld QPs visited in %lld passes beside %d idle QPs: more than %d a pass",
			visits, passes, made, MAX_VISITS_PER_PASS);
	else
		rc = vt_sync(t);
out:
	if (destroy_all(t, &limit_qps, idle, made))
		rc = -1;
	free(idle);
	return rc;
}

static int tx_idle_qps_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, BUSY_BATCH * BUSY_LEN, VT_ACCESS_ALL);
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep) || vt_ep_link(t, &ep, b))
		return -1;
	return vt_sync(t);
}

const struct vt_case vt_limit_cases[] = {
	{ "qp_limit", "QPs up to max_qp: the next fails with ENOMEM; a destroy makes room for one",
	  qp_limit_client, NULL, NULL },
	{ "ah_limit", "AHs up to max_ah: the next fails with ENOMEM; a destroy makes room for one",
	  ah_limit_client, NULL, NULL },
	{ "srqs_limit", "SRQs up to max_srq: the next fails with ENOMEM; a destroy makes room for one",
	  srq_limit_client, NULL, NULL },
	{ "mw_limit", "MWs up to max_mw: the next fails with ENOMEM; a dealloc makes room for one",
	  mw_limit_client, NULL, NULL },
	{ "tx_idle_qps", "8192 idle QPs beside one busy pair: the transmit thread's passes visit the busy QPs only",
	  tx_idle_qps_client, tx_idle_qps_server, NULL },
	{ NULL },
};
