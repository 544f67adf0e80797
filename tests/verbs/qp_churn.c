// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_qp_churn: create and destroy RC QPs one after the other, so that
 * packets aimed at each new QP number race its destroy (the QP lookup
 * race test, tests/vm/tests/qp-destroy-race.sh).
 *
 *   sroce_qp_churn DEV COUNT HOLD_MS
 *
 * COUNT times: creates an RC QP (left in RESET: the receive path looks a
 * QP up whatever its state), prints "qpn=N", keeps it HOLD_MS milliseconds,
 * destroys it. Then prints "churned COUNT". Every line is flushed at once.
 * Exits 0, 1 if a verb failed, 2 on a usage or device error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "verbs_test.h"

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

static int churn(struct ibv_pd *pd, struct ibv_cq *cq, int count, int hold_ms)
{
	struct ibv_qp *qp;
	int i;

	for (i = 0; i < count; i++) {
		qp = create_qp(pd, cq);
		if (!qp) {
			perror("ibv_create_qp");
			return 1;
		}
		printf("qpn=%u\n", qp->qp_num);
		fflush(stdout);
		usleep(hold_ms * 1000);
		if (ibv_destroy_qp(qp)) {
			perror("ibv_destroy_qp");
			return 1;
		}
	}
	printf("churned %d\n", count);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct vt_opts opts = { .ib_port = 1, .gid_index = -1 };
	int count, hold_ms, rc = 2;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct vt_dev dev;

	if (argc != 4 || (count = atoi(argv[2])) < 1 || (hold_ms = atoi(argv[3])) < 0) {
		fprintf(stderr, "usage: sroce_qp_churn DEV COUNT HOLD_MS\n");
		return 2;
	}
	opts.dev_name = argv[1];
	if (vt_dev_open(&dev, &opts))
		return 2;
	pd = ibv_alloc_pd(dev.ctx);
	cq = pd ? ibv_create_cq(dev.ctx, 4, NULL, NULL, 0) : NULL;
	if (cq)
		rc = churn(pd, cq, count, hold_ms);
	else
		fprintf(stderr, "sroce_qp_churn: cannot allocate a PD and a CQ\n");
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	vt_dev_close(&dev);
	return rc;
}
