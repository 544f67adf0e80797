// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device limits: what ibv_query_device advertises is what the device
 * enforces. These cases create objects by the thousand, so they run only
 * when --only names them (tests/vm/tests/qp-limit.sh does).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

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

/* Create QPs into @qps until one fails or @room are made; errno of the failure. */
static int fill_qps(struct vt *t, struct ibv_cq *cq, struct ibv_qp **qps, int room,
		    int *made)
{
	for (*made = 0; *made < room; ++*made) {
		qps[*made] = limit_qp(t->pd, cq);
		if (!qps[*made])
			return errno;
	}
	return 0;
}

static int destroy_qps(struct vt *t, struct ibv_qp **qps, int n)
{
	int rc, bad = 0;

	while (n--) {
		rc = ibv_destroy_qp(qps[n]);
		if (rc && !bad)
			bad = rc;
	}
	return bad ? vt_fail(t, "ibv_destroy_qp: %s", strerror(bad)) : 0;
}

/* One QP past max_qp must fail with ENOMEM; @made were created before it. */
static int expect_full(struct vt *t, int err, int made, int max, const char *when)
{
	if (!err)
		return vt_fail(t, "%s: QP %d of max_qp %d created", when, made, max);
	if (made != max || err != ENOMEM)
		return vt_fail(t, "%s: ibv_create_qp failed after %d of max_qp %d: %s (%d), expected ENOMEM at %d",
			       when, made, max, strerror(err), err, max);
	return 0;
}

/*
 * Fill the device to max_qp (no other QP may exist on it): the next QP
 * fails with ENOMEM; a destroyed QP makes room for exactly one; once all
 * are gone the whole count is available again.
 */
static int qp_limit_client(struct vt *t)
{
	int max = t->dev->attr.max_qp, made, more, err, rc = -1;
	struct ibv_cq *cq = vt_cq(t, 1, NULL);
	long long start = vt_now_ms();
	struct ibv_qp **qps;

	if (!cq)
		return -1;
	if (max < 2)
		return vt_fail(t, "max_qp %d", max);
	qps = calloc((size_t)max + 1, sizeof(*qps));
	if (!qps)
		return vt_fail(t, "calloc: %s", strerror(errno));
	err = fill_qps(t, cq, qps, max + 1, &made);
	vt_note(t, "%d QPs created in %lld ms, then: %s", made, vt_now_ms() - start,
		err ? strerror(err) : "no failure");
	if (expect_full(t, err, made, max, "first fill"))
		goto out;

	if (ibv_destroy_qp(qps[--made])) {
		vt_fail(t, "ibv_destroy_qp: %s", strerror(errno));
		goto out;
	}
	err = fill_qps(t, cq, qps + made, 2, &more);
	made += more;
	if (expect_full(t, err, made, max, "after one destroy"))
		goto out;

	if (destroy_qps(t, qps, made))
		goto free;
	made = 0;
	err = fill_qps(t, cq, qps, max + 1, &made);
	rc = expect_full(t, err, made, max, "after destroying all");
out:
	if (destroy_qps(t, qps, made))
		rc = -1;
free:
	free(qps);
	return rc;
}

const struct vt_case vt_limit_cases[] = {
	{ "qp_limit", "QPs up to max_qp: the next fails with ENOMEM; a destroy makes room for one",
	  qp_limit_client, NULL, NULL },
	{ NULL },
};
