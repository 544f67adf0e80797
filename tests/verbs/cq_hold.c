// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_cq_hold: create completion queues (or queue pairs) on demand and
 * keep them until stdin closes, so that a script can read what their
 * kernel memory costs (the memory cgroup test, tests/vm/tests/ring-memcg.sh).
 *
 *   sroce_cq_hold DEV CQE COUNT
 *   sroce_cq_hold --qp DEV DEPTH COUNT
 *
 * Opens DEV (with --qp also a PD and a one-entry CQ) and prints "ready"; at
 * the first line read from stdin creates COUNT CQs of CQE entries each, or
 * COUNT RC QPs at the largest send-queue caps (DEPTH send WRs, 32 SGEs and
 * 256 bytes of inline data each; one receive WR of one SGE), and prints
 * "created COUNT", or "failed after N errno=E (text)" at the first create
 * that fails; then keeps what it made until stdin closes. Every line is
 * flushed at once. Exits 0, or 1 if an object could not be created, 2 on a
 * usage or device error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_test.h"

#define MAX_OBJS	64

static char line[64];

struct hold {
	struct vt_dev dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* --qp: the QPs' CQ */
	void *objs[MAX_OBJS];
	int made;
};

static void say(const char *fmt, int a, int b)
{
	printf(fmt, a, b, strerror(b));
	fflush(stdout);
}

static void *create_qp(struct hold *h, int depth)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = h->cq, .recv_cq = h->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = 1,
			 .max_send_sge = 32, .max_recv_sge = 1,
			 .max_inline_data = 256 },
	};

	return ibv_create_qp(h->pd, &ia);
}

/* Create @count objects of @size; 0 or the errno of the create that failed. */
static int create(struct hold *h, bool qp, int size, int count)
{
	for (h->made = 0; h->made < count; h->made++) {
		h->objs[h->made] = qp ? create_qp(h, size) :
				   ibv_create_cq(h->dev.ctx, size, NULL, NULL, 0);
		if (!h->objs[h->made])
			return errno;
	}
	return 0;
}

static void destroy(struct hold *h, bool qp)
{
	while (h->made--) {
		if (qp)
			ibv_destroy_qp(h->objs[h->made]);
		else
			ibv_destroy_cq(h->objs[h->made]);
	}
}

int main(int argc, char **argv)
{
	struct vt_opts opts = { .ib_port = 1, .gid_index = -1 };
	bool qp = argc > 1 && !strcmp(argv[1], "--qp");
	static struct hold h;
	int size, count, err;

	argv += qp;
	argc -= qp;
	if (argc != 4 || (count = atoi(argv[3])) < 1 || count > MAX_OBJS) {
		fprintf(stderr, "usage: sroce_cq_hold [--qp] DEV CQE|DEPTH COUNT (COUNT 1..%d)\n",
			MAX_OBJS);
		return 2;
	}
	size = atoi(argv[2]);
	opts.dev_name = argv[1];
	if (vt_dev_open(&h.dev, &opts))
		return 2;
	if (qp && (!(h.pd = ibv_alloc_pd(h.dev.ctx)) ||
		   !(h.cq = ibv_create_cq(h.dev.ctx, 1, NULL, NULL, 0)))) {
		perror("ibv_alloc_pd/ibv_create_cq");
		return 2;
	}
	say("ready\n", 0, 0);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	err = create(&h, qp, size, count);
	if (err)
		say("failed after %d errno=%d (%s)\n", h.made, err);
	else
		say("created %d\n", h.made, 0);
	while (fgets(line, sizeof(line), stdin))
		;
	destroy(&h, qp);
	if (h.cq)
		ibv_destroy_cq(h.cq);
	if (h.pd)
		ibv_dealloc_pd(h.pd);
	vt_dev_close(&h.dev);
	return err ? 1 : 0;
}
