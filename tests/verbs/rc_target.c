// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_rc_target: one RC QP in RTS whose remote end is not a verbs
 * program but a packet crafter (tests/tools/roce_craft.py).
 *
 *   sroce_rc_target DEV GID_INDEX REMOTE_IPV4 REMOTE_QPN RQ_PSN MTU [uc [RECVS]]
 *
 * "uc": a UC QP instead (UC's modify attributes: no RD atomic depths,
 * timers or retry counts), with RECVS receives posted (default 32).
 *
 * Creates a 64 KiB memory region open to remote READ, WRITE and ATOMIC,
 * posts receives, moves the QP to RTS towards REMOTE_IPV4/REMOTE_QPN
 * (REMOTE_QPN "self": the QP's own number, with this host's address it is
 * its own peer) expecting RQ_PSN first, prints one line
 *
 *   qpn=N rkey=N addr=N len=N
 *
 * then, until stdin closes, prints a line per completion
 * ("wc status=N opcode=N len=N") and answers "state" on stdin with
 * "state=N" (enum ibv_qp_state), "dereg" with "dereg=N" (what
 * ibv_dereg_mr of the MR returned), "read LEN" with "read=N" (what
 * ibv_post_send of an RDMA READ of LEN bytes towards the peer returned:
 * the target is then the requester, and the crafter answers it),
 * "reconnect" with "reconnected" once the QP went through RESET and is
 * connected again with the command line's arguments, "post" with "posted"
 * once one more receive is posted. Every line is flushed at once.
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target_util.h"

#define MR_BYTES	65536
#define RECVS		32	/* one per surviving row of roce_craft.py, and spare */
#define RECV_BYTES	4096

struct target {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;
	char **argv;		/* the command line, for "reconnect" */
	int argc;
	bool uc;		/* a UC QP */
	int recvs;		/* receives posted at (re)connect */
	uint64_t next_wr_id;
};

const char *target_name = "sroce_rc_target";

static void post_recvs(struct target *t, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = RECV_BYTES, .lkey = t->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = t->next_wr_id++;
		if (ibv_post_recv(t->qp, &wr, &bad))
			die("ibv_post_recv");
	}
}

static enum ibv_mtu mtu_enum(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return IBV_MTU_1024;
	}
}

static void to_rts(struct target *t, int gid_index, const char *ip,
		   uint32_t qpn, uint32_t rq_psn, int mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu_enum(mtu);
	a.dest_qp_num = qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	/* IPv4-mapped IPv6 address: ::ffff:a.b.c.d */
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	if (inet_pton(AF_INET, ip, &a.ah_attr.grh.dgid.raw[12]) != 1)
		die("parsing REMOTE_IPV4");
	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (t->uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		die("modify to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x200;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  (t->uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)))
		die("modify to RTS");
}

/* Receives posted, then RTS as the command line says. */
static void connect_qp(struct target *t)
{
	char **argv = t->argv;

	post_recvs(t, t->recvs);
	/* "self": a QP connected to itself, a peer of this host. */
	to_rts(t, atoi(argv[2]), argv[3],
	       strcmp(argv[4], "self") ? strtoul(argv[4], NULL, 0) : t->qp->qp_num,
	       strtoul(argv[5], NULL, 0), atoi(argv[6]));
}

/* "reconnect": RESET, then connected again as at the start (a new connection). */
static void reconnect(struct target *t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(t->qp, &a, IBV_QP_STATE))
		die("modify to RESET");
	connect_qp(t);
	printf("reconnected\n");
	fflush(stdout);
}

static void setup(struct target *t, int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	t->uc = argc > 7 && !strcmp(argv[7], "uc");
	t->recvs = argc > 8 ? atoi(argv[8]) : RECVS;
	if (t->recvs < 0 || t->recvs > RECVS)
		die("RECVS out of range");
	if (t->uc)
		ia.qp_type = IBV_QPT_UC;
	t->ctx = open_device(argv[1]);
	if (!t->ctx)
		die("opening the device");
	t->pd = ibv_alloc_pd(t->ctx);
	t->cq = t->pd ? ibv_create_cq(t->ctx, 64, NULL, NULL, 0) : NULL;
	t->buf = calloc(1, MR_BYTES);
	if (!t->cq || !t->buf)
		die("allocating PD, CQ or buffer");
	t->mr = ibv_reg_mr(t->pd, t->buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	ia.send_cq = ia.recv_cq = t->cq;
	t->qp = t->mr ? ibv_create_qp(t->pd, &ia) : NULL;
	if (!t->qp)
		die("creating MR or QP");
	t->argv = argv;
	connect_qp(t);
}

static void report_completions(struct target *t)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(t->cq, 1, &wc) > 0)
		printf("wc status=%d opcode=%d len=%u\n", wc.status, wc.opcode,
		       wc.byte_len);
	fflush(stdout);
}

/*
 * "read LEN" on stdin: an RDMA READ of LEN bytes into the MR, from the
 * peer's address 0 and R_Key 0 (a crafter answers whatever it likes).
 */
static void post_read(struct target *t, uint32_t len)
{
	struct ibv_sge sg = { .addr = (uintptr_t)t->buf, .lkey = t->mr->lkey,
			      .length = len < MR_BYTES ? len : MR_BYTES };
	struct ibv_send_wr wr = { .wr_id = 0x7ead, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	printf("read=%d\n", ibv_post_send(t->qp, &wr, &bad));
	fflush(stdout);
}

/* "state" on stdin: print the QP state. Return: false at end of input. */
static int answer_stdin(struct target *t)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		return 0;
	if (!strncmp(line, "state", 5))
		print_qp_state(t->qp);
	if (!strncmp(line, "reconnect", 9))
		reconnect(t);
	if (!strncmp(line, "post", 4)) {
		post_recvs(t, 1);
		printf("posted\n");
		fflush(stdout);
	}
	if (!strncmp(line, "read ", 5))
		post_read(t, strtoul(line + 5, NULL, 0));
	if (!strncmp(line, "dereg", 5) && t->mr) {
		printf("dereg=%d\n", ibv_dereg_mr(t->mr));
		fflush(stdout);
		t->mr = NULL;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	struct target t = { 0 };

	if (argc < 7 || argc > 9) {
		fprintf(stderr, "usage: %s DEV GID_INDEX REMOTE_IPV4 REMOTE_QPN RQ_PSN MTU [uc [RECVS]]\n",
			argv[0]);
		return 2;
	}
	setup(&t, argc, argv);
	printf("qpn=%u rkey=%u addr=%llu len=%d\n", t.qp->qp_num, t.mr->rkey,
	       (unsigned long long)(uintptr_t)t.buf, MR_BYTES);
	fflush(stdout);
	for (;;) {
		report_completions(&t);
		if (poll(&in, 1, 20) > 0) {
			report_completions(&t);
			if (!answer_stdin(&t))
				break;
		}
	}
	ibv_destroy_qp(t.qp);
	if (t.mr)
		ibv_dereg_mr(t.mr);
	ibv_destroy_cq(t.cq);
	ibv_dealloc_pd(t.pd);
	ibv_close_device(t.ctx);
	free(t.buf);
	return 0;
}
