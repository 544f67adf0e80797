// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_ud_target: one UD QP in RTS for a packet crafter
 * (tests/tools/roce_craft.py, its UD rows).
 *
 *   sroce_ud_target DEV QKEY
 *
 * Posts receives of 40 + UD_RECV_PAYLOAD bytes, moves the QP to RTS with
 * Q_Key QKEY, prints one line "qpn=N rkey=0 addr=0 len=0", then, until
 * stdin closes, prints a line per completion ("wc status=N opcode=N
 * len=N src_qp=N grh=N", grh 1 if IBV_WC_GRH was set), reposting the
 * receive, and answers "state" on stdin with "state=N". Every line is
 * flushed at once.
 */
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target_util.h"

#define RECVS			32
#define UD_RECV_PAYLOAD		512
#define RECV_BYTES		(40 + UD_RECV_PAYLOAD)

struct target {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
};

const char *target_name = "sroce_ud_target";

static void post_recv(struct target *t, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(t->buf + (size_t)i * RECV_BYTES),
		.length = RECV_BYTES, .lkey = t->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(t->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void to_rts(struct target *t, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey };

	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_QKEY))
		die("modify to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE))
		die("modify to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x200;
	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify to RTS");
}

static void setup(struct target *t, const char *dev, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = RECVS, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int i;

	t->ctx = open_device(dev);
	if (!t->ctx)
		die("opening the device");
	t->pd = ibv_alloc_pd(t->ctx);
	t->cq = ibv_create_cq(t->ctx, 2 * RECVS, NULL, NULL, 0);
	t->buf = calloc(RECVS, RECV_BYTES);
	if (!t->pd || !t->cq || !t->buf)
		die("PD/CQ/buffer");
	t->mr = ibv_reg_mr(t->pd, t->buf, (size_t)RECVS * RECV_BYTES, IBV_ACCESS_LOCAL_WRITE);
	ia.send_cq = ia.recv_cq = t->cq;
	t->qp = ibv_create_qp(t->pd, &ia);
	if (!t->mr || !t->qp)
		die("MR/QP");
	for (i = 0; i < RECVS; i++)
		post_recv(t, i);
	to_rts(t, qkey);
}

static void report_wcs(struct target *t)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(t->cq, 1, &wc) > 0) {
		printf("wc status=%d opcode=%d len=%u src_qp=%u grh=%d\n", wc.status, wc.opcode,
		       wc.byte_len, wc.src_qp, !!(wc.wc_flags & IBV_WC_GRH));
		fflush(stdout);
		if (wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV)
			post_recv(t, (int)wc.wr_id);
	}
}

/* "state" on stdin: print the QP state. Return: 0 at end of input. */
static int answer_stdin(struct target *t)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		return 0;
	if (!strncmp(line, "state", 5))
		print_qp_state(t->qp);
	return 1;
}

int main(int argc, char **argv)
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	struct target t = {};

	if (argc != 3) {
		fprintf(stderr, "usage: sroce_ud_target DEV QKEY\n");
		return 2;
	}
	setup(&t, argv[1], strtoul(argv[2], NULL, 0));
	printf("qpn=%u rkey=0 addr=0 len=0\n", t.qp->qp_num);
	fflush(stdout);
	for (;;) {
		report_wcs(&t);
		if (poll(&in, 1, 20) > 0 && !answer_stdin(&t))
			break;
	}
	ibv_destroy_qp(t.qp);
	ibv_dereg_mr(t.mr);
	ibv_destroy_cq(t.cq);
	ibv_dealloc_pd(t.pd);
	ibv_close_device(t.ctx);
	free(t.buf);
	return 0;
}
