// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Error paths: protection errors on either side, RNR and transport retry
 * exhaustion, flushing on the move to ERR, and modify_qp input checking.
 * Each case checks the completion status the spec requires, the QP states
 * afterwards, and that the memory the failed operation aimed at is intact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_test.h"

#define GUARD		0xa5
#define MSG_LEN		64
#define EXPOSED_LEN	4096
#define STATE_MS	5000	/* errors move QPs to ERR asynchronously */

/* A key nobody handed out: the index bits of the real one flipped. */
static uint32_t bogus_key(uint32_t key)
{
	return key ^ 0x5a5a5a00;
}

/* --- the requester's own mistake ---------------------------------------- */

static int kernel_key(struct vt *t, uint32_t *key);

/* t->arg: NULL for a key nobody handed out, else a kernel PD's (below). */
static int bad_lkey_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	sg = vt_sge(b, 0, MSG_LEN);
	if (!t->arg)
		sg.lkey = bogus_key(sg.lkey);
	else if (kernel_key(t, &sg.lkey))
		return -1;
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_LOC_PROT_ERR, NULL, "SEND with a bad lkey") ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester"))
		return -1;
	return vt_sync(t);
}

static int bad_lkey_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, MSG_LEN);
	sg = vt_sge(b, 0, MSG_LEN);
	if (vt_post_recv(t, &ep, 1, &sg, 1) || vt_ep_link(t, &ep, NULL) || vt_sync(t))
		return -1;
	return vt_expect_no_wc(t, ep.rcq, 0, "receive") ||
	       vt_check_byte(t, b->p, MSG_LEN, GUARD, "receive buffer");
}

/* --- a SEND longer than the receive it lands in -------------------------- */

#define SEND_LONG	16384	/* 16 packets at path MTU 1024 */
#define RECV_SHORT	4096

static int recv_too_small_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, SEND_LONG, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	memset(b->p, 0x3c, SEND_LONG);
	sg = vt_sge(b, 0, SEND_LONG);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_REM_INV_REQ_ERR, NULL, "SEND too long") ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester"))
		return -1;
	return vt_sync(t);
}

/*
 * The message's first packets fit; the one that overflows the receive is
 * refused as an invalid request (a length error; rxe answers with a remote
 * operational error instead, tests/verbs/README.md) and nothing lands past
 * it.
 */
static int recv_too_small_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, SEND_LONG, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, SEND_LONG);
	sg = vt_sge(b, 0, RECV_SHORT);
	if (vt_post_recv(t, &ep, 7, &sg, 1) || vt_ep_link(t, &ep, NULL) || vt_sync(t))
		return -1;
	return vt_expect_wc(t, ep.rcq, 7, IBV_WC_LOC_LEN_ERR, NULL, "receive too small") ||
	       vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "responder") ||
	       vt_check_byte(t, (char *)b->p + RECV_SHORT, SEND_LONG - RECV_SHORT, GUARD,
			     "memory past the receive");
}

/* --- a receive whose MR left the QP's PD ---------------------------------- */

#define FOREIGN_RECVS	2	/* the requester's own receives, flushed after */

/*
 * The requester shares one CQ between its queues and has receives of its
 * own posted. The responder's remote operational error must reach it as
 * the failing SEND's completion, before the flush of anything else.
 */
static int recv_foreign_pd_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct vt_ep ep;
	int i;

	vt_qp_opts_init(t, &o);
	o.scq = o.rcq = vt_cq(t, o.cqe, NULL);
	if (!b || !o.scq || vt_ep_create(t, &ep, &o))
		return -1;
	sg = vt_sge(b, 0, MSG_LEN);
	for (i = 0; i < FOREIGN_RECVS; i++)
		if (vt_post_recv(t, &ep, 10 + i, &sg, 1))
			return -1;
	if (vt_ep_link(t, &ep, NULL))
		return -1;
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_REM_OP_ERR, NULL, "first completion: the SEND"))
		return -1;
	for (i = 0; i < FOREIGN_RECVS; i++)
		if (vt_expect_wc(t, ep.rcq, 10 + i, IBV_WC_WR_FLUSH_ERR, NULL, "own receive"))
			return -1;
	return vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester") || vt_sync(t);
}

/*
 * The receive is posted while its MR is in the QP's PD, then the MR moves
 * to another PD (rereg keeps its lkey): the SEND meets a local protection
 * error, and nothing lands in the buffer.
 */
static int recv_foreign_pd_server(struct vt *t)
{
	struct ibv_pd *pd2 = vt_pd(t);	/* before the MR: freed after it */
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct vt_ep ep;
	int rc;

	if (!pd2 || !b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, MSG_LEN);
	sg = vt_sge(b, 0, MSG_LEN);
	if (vt_post_recv(t, &ep, 1, &sg, 1))
		return -1;
	rc = ibv_rereg_mr(b->mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	if (rc)
		return vt_fail(t, "ibv_rereg_mr to another PD: %d (%s)", rc, strerror(errno));
	if (vt_ep_link(t, &ep, NULL) ||
	    vt_expect_wc(t, ep.rcq, 1, IBV_WC_LOC_PROT_ERR, NULL, "receive into another PD") ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "responder"))
		return -1;
	return vt_sync(t) || vt_check_byte(t, b->p, MSG_LEN, GUARD, "receive buffer");
}

/* --- the responder refuses: rkey, bounds, rights, PD --------------------- */

enum access_kind { BAD_RKEY, OUT_OF_BOUNDS, NO_REMOTE_WRITE, NO_REMOTE_READ, OTHER_PD,
		   KERNEL_RKEY };

static int access_client(struct vt *t)
{
	enum access_kind kind = *(const enum access_kind *)t->arg;
	enum ibv_wr_opcode op = kind == NO_REMOTE_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	memset(b->p, GUARD, MSG_LEN);
	sg = vt_sge(b, 0, MSG_LEN);
	wr = vt_wr(op, 1, &sg, 1, IBV_SEND_SIGNALED);
	/* Half inside, half past the end of the exposed MR. */
	vt_wr_remote(&wr, &ep, kind == OUT_OF_BOUNDS ? ep.peer.len - MSG_LEN / 2 : 0);
	if (kind == BAD_RKEY)
		wr.wr.rdma.rkey = bogus_key(wr.wr.rdma.rkey);
	if (kind == KERNEL_RKEY && kernel_key(t, &wr.wr.rdma.rkey))
		return -1;
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_REM_ACCESS_ERR, NULL, "refused access") ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester"))
		return -1;
	if (op == IBV_WR_RDMA_READ &&
	    vt_check_byte(t, b->p, MSG_LEN, GUARD, "local buffer of the refused READ"))
		return -1;
	return vt_sync(t);
}

static int access_server(struct vt *t)
{
	enum access_kind kind = *(const enum access_kind *)t->arg;
	int access = VT_ACCESS_ALL;
	struct ibv_pd *pd = t->pd;
	struct vt_buf *b;
	struct vt_ep ep;

	if (kind == NO_REMOTE_WRITE)
		access &= ~IBV_ACCESS_REMOTE_WRITE;
	if (kind == NO_REMOTE_READ)
		access &= ~IBV_ACCESS_REMOTE_READ;
	if (kind == OTHER_PD)
		pd = vt_pd(t);
	b = pd ? vt_buf_pd(t, pd, EXPOSED_LEN, access) : NULL;
	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, EXPOSED_LEN);
	if (vt_ep_link(t, &ep, b) || vt_sync(t))
		return -1;
	return vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "responder") ||
	       vt_check_byte(t, b->p, EXPOSED_LEN, GUARD, "memory the refused WR aimed at");
}

static const enum access_kind bad_rkey = BAD_RKEY, out_of_bounds = OUT_OF_BOUNDS,
			      no_remote_write = NO_REMOTE_WRITE, no_remote_read = NO_REMOTE_READ,
			      other_pd = OTHER_PD, kernel_rkey = KERNEL_RKEY;

/* --- a kernel key named from user space ---------------------------------- */

/*
 * SROCE_KERNEL_KEY: the local_dma_lkey (also an rkey) of a kernel PD, which
 * tests/vm/tests/kverbs.sh has the kernel-verbs test module hold. It names
 * a DMA MR covering all kernel memory; no user QP may use it, as lkey
 * (LOC_PROT_ERR) nor as the rkey a peer's WRITE aims at (REM_ACCESS_ERR).
 */
static int kernel_key(struct vt *t, uint32_t *key)
{
	const char *s = getenv("SROCE_KERNEL_KEY");
	char *end;

	if (!s || !*s)
		return vt_fail(t, "SROCE_KERNEL_KEY is not set");
	errno = 0;
	*key = strtoul(s, &end, 0);
	if (errno || *end)
		return vt_fail(t, "SROCE_KERNEL_KEY=%s is not a number", s);
	return 0;
}


/* --- requester limits -------------------------------------------------------- */

/* A QP with options @o towards the peer; @b, the local buffer, guarded. */
static int refused_wr_setup(struct vt *t, struct vt_ep *ep,
			    const struct vt_qp_opts *o, struct vt_buf *b)
{
	if (!b || vt_ep_create(t, ep, o) || vt_ep_link(t, ep, NULL))
		return -1;
	memset(b->p, GUARD, MSG_LEN);
	return 0;
}

/*
 * A WR the requester must refuse without sending anything: it completes
 * with @want, the QP goes to ERR, and the local buffer stays as it was.
 */
static int refused_wr(struct vt *t, struct vt_ep *ep, struct vt_buf *b,
		      struct ibv_send_wr *wr, enum ibv_wc_status want)
{
	if (vt_post_send(t, ep, wr) ||
	    vt_expect_wc(t, ep->scq, 1, want, NULL, "refused WR") ||
	    vt_expect_state(t, ep->qp, IBV_QPS_ERR, STATE_MS, "requester") ||
	    vt_check_byte(t, b->p, MSG_LEN, GUARD, "local buffer of the refused WR"))
		return -1;
	return vt_sync(t);
}

/*
 * Initiator depth 0: no READ or ATOMIC may be outstanding, so none starts
 * (it used to go out as if the depth were 1).
 */
static int ord_zero_client(struct vt *t)
{
	enum ibv_wr_opcode op = *(const enum ibv_wr_opcode *)t->arg;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.max_rd_atomic = 0;
	if (refused_wr_setup(t, &ep, &o, b))
		return -1;
	sg = vt_sge(b, 0, op == IBV_WR_RDMA_READ ? MSG_LEN : sizeof(uint64_t));
	wr = vt_wr(op, 1, &sg, 1, IBV_SEND_SIGNALED);
	vt_wr_remote(&wr, &ep, 0);
	if (op != IBV_WR_RDMA_READ)
		wr.wr.atomic.compare_add = 1;
	return refused_wr(t, &ep, b, &wr, IBV_WC_LOC_QP_OP_ERR);
}

/*
 * A READ of 2 GiB at path MTU 256 has 2^23 responses, half the PSN space:
 * its end would compare as before its start. It used to go out, and the
 * requester never counted it as sent (no timer, no completion).
 */
static int read_psn_span_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.mtu = IBV_MTU_256;
	if (refused_wr_setup(t, &ep, &o, b))
		return -1;
	/* Never placed: the length is refused before anything is sent. */
	sg = vt_sge(b, 0, MSG_LEN);
	sg.length = 1U << 31;
	wr = vt_wr(IBV_WR_RDMA_READ, 1, &sg, 1, IBV_SEND_SIGNALED);
	vt_wr_remote(&wr, &ep, 0);
	return refused_wr(t, &ep, b, &wr, IBV_WC_LOC_LEN_ERR);
}

/* The peer of a refused WR: nothing arrives, it stays in RTS. */
static int refused_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, EXPOSED_LEN, VT_ACCESS_ALL);
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, EXPOSED_LEN);
	if (vt_ep_link(t, &ep, b) || vt_sync(t))
		return -1;
	return vt_expect_state(t, ep.qp, IBV_QPS_RTS, STATE_MS, "responder") ||
	       vt_check_byte(t, b->p, EXPOSED_LEN, GUARD, "memory the refused WR aimed at");
}

static const enum ibv_wr_opcode ord_zero_read = IBV_WR_RDMA_READ,
				ord_zero_atomic = IBV_WR_ATOMIC_FETCH_AND_ADD;

/* --- receiver not ready ----------------------------------------------------- */

static int rnr_send(struct vt *t, uint8_t rnr_retry, enum ibv_wc_status want,
		    struct vt_ep *ep, struct vt_buf *b)
{
	struct vt_qp_opts o;
	struct ibv_send_wr wr;
	struct ibv_sge sg;

	vt_qp_opts_init(t, &o);
	o.rnr_retry = rnr_retry;
	if (vt_ep_create(t, ep, &o) || vt_ep_link(t, ep, NULL) || vt_sync(t))
		return -1;
	vt_fill(b->p, MSG_LEN, 42);
	sg = vt_sge(b, 0, MSG_LEN);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, ep, &wr) || vt_sync(t))
		return -1;
	return vt_expect_wc(t, ep->scq, 1, want, NULL, "SEND to a receiver not ready");
}

static int rnr_exceeded_client(struct vt *t)
{
	const uint8_t *retries = t->arg;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	if (!b || rnr_send(t, *retries, IBV_WC_RNR_RETRY_EXC_ERR, &ep, b) ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester"))
		return -1;
	return vt_sync(t);
}

static int rnr_server_link(struct vt *t, struct vt_ep *ep)
{
	struct vt_qp_opts o;

	vt_qp_opts_init(t, &o);
	o.min_rnr_timer = 1;	/* 0.01 ms: exhaust the retries quickly */
	return vt_ep_create(t, ep, &o) || vt_ep_link(t, ep, NULL) || vt_sync(t) ? -1 : 0;
}

static int rnr_exceeded_server(struct vt *t)
{
	struct vt_ep ep;

	if (rnr_server_link(t, &ep) || vt_sync(t) || vt_sync(t))
		return -1;
	/* An RNR NAK is not an error of the responder. */
	return vt_expect_state(t, ep.qp, IBV_QPS_RTS, 0, "responder");
}

static int rnr_recovers_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	return !b || rnr_send(t, 7, IBV_WC_SUCCESS, &ep, b) || vt_sync(t) ? -1 : 0;
}

static int rnr_recovers_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || rnr_server_link(t, &ep) || vt_sync(t))
		return -1;
	usleep(300 * 1000);	/* the SEND meets no receive for a while */
	sg = vt_sge(b, 0, MSG_LEN);
	if (vt_post_recv(t, &ep, 1, &sg, 1) ||
	    vt_expect_wc(t, ep.rcq, 1, IBV_WC_SUCCESS, NULL, "late receive"))
		return -1;
	return vt_check(t, b->p, MSG_LEN, 42, "data") || vt_sync(t);
}

static const uint8_t rnr_0 = 0, rnr_2 = 2;

/* --- transport retries exhausted ------------------------------------------ */

/*
 * PEER_BLACKHOLED: the peer is alive and connected, but the network drops
 * every RoCE packet (a VM script arranges that before naming the case).
 */
enum silent_peer { PEER_DESTROYED, PEER_NOT_RTR, PEER_BOGUS_QPN, PEER_BLACKHOLED };

static int retry_client(struct vt *t)
{
	enum silent_peer how = *(const enum silent_peer *)t->arg;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct ibv_send_wr wr;
	long long posted;
	struct ibv_sge sg;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.timeout = 12;		/* 16.8 ms */
	o.retry_cnt = 2;
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_exchange(t, &ep, NULL))
		return -1;
	if (how == PEER_BOGUS_QPN)
		ep.peer.qpn = (ep.peer.qpn + 0x400000) & 0xffffff;
	if (vt_ep_connect(t, &ep) || vt_sync(t))
		return -1;
	if (how == PEER_DESTROYED && vt_sync(t))
		return -1;
	sg = vt_sge(b, 0, MSG_LEN);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	posted = vt_now_ms();
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_RETRY_EXC_ERR, NULL, "SEND nobody answers"))
		return -1;
	/* A VM test reads this to see which timeout the device really used. */
	vt_note(t, "retries exhausted after %lld ms", vt_now_ms() - posted);
	if (vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester"))
		return -1;
	return how == PEER_BLACKHOLED ? vt_sync(t) : 0;
}

static int retry_server(struct vt *t)
{
	enum silent_peer how = *(const enum silent_peer *)t->arg;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	sg = vt_sge(b, 0, MSG_LEN);
	if (vt_post_recv(t, &ep, 1, &sg, 1))
		return -1;
	if (how == PEER_NOT_RTR)
		return vt_ep_open(t, &ep, NULL);
	if (vt_ep_link(t, &ep, NULL))
		return -1;
	if (how == PEER_DESTROYED)
		return vt_destroy(t, ep.qp) || vt_sync(t) ? -1 : 0;
	/* Alive until the requester gave up: nothing may have arrived. */
	if (how == PEER_BLACKHOLED)
		return vt_sync(t) || vt_expect_no_wc(t, ep.rcq, 0, "blackholed SEND") ? -1 : 0;
	return 0;
}

static const enum silent_peer peer_destroyed = PEER_DESTROYED, peer_not_rtr = PEER_NOT_RTR,
			      peer_bogus_qpn = PEER_BOGUS_QPN, peer_blackholed = PEER_BLACKHOLED;

/* --- flush on ERR ----------------------------------------------------------- */

#define FLUSH_N	8

/* A connected QP whose packets go nowhere: its peer is a local QP left in
 * INIT, which drops them; long timeouts keep every WR outstanding. */
static int stalled_ep(struct vt *t, struct vt_ep *ep)
{
	struct vt_qp_opts o;
	struct vt_ep sink;

	vt_qp_opts_init(t, &o);
	if (vt_ep_create(t, &sink, &o))
		return -1;
	o.timeout = 20;		/* 4.3 s */
	if (vt_ep_create(t, ep, &o))
		return -1;
	ep->peer = sink.me;
	return vt_ep_connect(t, ep);
}

static int post_flush_batch(struct vt *t, struct vt_ep *ep, struct vt_buf *b, uint64_t base)
{
	struct ibv_send_wr wr;
	struct ibv_sge ss, rs;
	int i;

	for (i = 0; i < FLUSH_N; i++) {
		ss = vt_sge(b, 0, MSG_LEN);
		rs = vt_sge(b, MSG_LEN, MSG_LEN);
		wr = vt_wr(IBV_WR_SEND, base + i, &ss, 1, IBV_SEND_SIGNALED);
		if (vt_post_send(t, ep, &wr) || vt_post_recv(t, ep, base + 100 + i, &rs, 1))
			return -1;
	}
	return 0;
}

static int expect_flushed(struct vt *t, struct vt_ep *ep, uint64_t base)
{
	int i;

	for (i = 0; i < FLUSH_N; i++)
		if (vt_expect_wc(t, ep->scq, base + i, IBV_WC_WR_FLUSH_ERR, NULL, "send queue"))
			return -1;
	for (i = 0; i < FLUSH_N; i++)
		if (vt_expect_wc(t, ep->rcq, base + 100 + i, IBV_WC_WR_FLUSH_ERR, NULL,
				 "receive queue"))
			return -1;
	return vt_expect_no_wc(t, ep->scq, 200, "send queue after the flush") ||
	       vt_expect_no_wc(t, ep->rcq, 0, "receive queue after the flush");
}

static int flush_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 2 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	if (!b || stalled_ep(t, &ep) || post_flush_batch(t, &ep, b, 0) ||
	    vt_modify_err(t, ep.qp))
		return -1;
	return expect_flushed(t, &ep, 0) ||
	       vt_expect_state(t, ep.qp, IBV_QPS_ERR, 0, "flushed QP");
}

/* WRs posted to a QP already in ERR complete with a flush error too (what
 * the kernel's ib_drain_qp() relies on). */
static int flush_in_err_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 2 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	if (!b || stalled_ep(t, &ep) || vt_modify_err(t, ep.qp) ||
	    vt_expect_no_wc(t, ep.scq, 100, "empty send queue moved to ERR") ||
	    post_flush_batch(t, &ep, b, 1000))
		return -1;
	return expect_flushed(t, &ep, 1000);
}

/* --- modify_qp input checking ------------------------------------------------ */

/*
 * Each bad move is tried from the state named in its row (the QP is walked
 * there with valid moves first); it must fail with the errno of the row (0:
 * any) and leave the QP where it was. A make function fills the attributes
 * and returns the mask, or -1 when the device makes the row meaningless.
 */
struct bad_move {
	enum ibv_qp_state from;
	const char *what;
	int (*make)(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a);
	int want;
};

static int to_rtr(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return vt_attr_rtr(t, ep, a);
}

static int to_rts(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	(void)t;
	return vt_attr_rts(ep, a);
}

static int to_init(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return vt_attr_init(t, ep, a);
}

static int init_no_port(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return vt_attr_init(t, ep, a) & ~IBV_QP_PORT;
}

static int rtr_no_dest_qpn(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return vt_attr_rtr(t, ep, a) & ~IBV_QP_DEST_QPN;
}

static int rtr_no_av(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return vt_attr_rtr(t, ep, a) & ~IBV_QP_AV;
}

static int rts_no_sq_psn(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return to_rts(t, ep, a) & ~IBV_QP_SQ_PSN;
}

static int rts_with_dest_qpn(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	return to_rts(t, ep, a) | IBV_QP_DEST_QPN;
}

static int init_port_0(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_init(t, ep, a);

	a->port_num = 0;
	return mask;
}

static int init_port_past_last(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_init(t, ep, a);

	a->port_num = t->dev->attr.phys_port_cnt + 1;
	return mask;
}

/* sgid_index is 8 bits: past a short table, else an entry that is empty. */
static int rtr_unused_gid(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_rtr(t, ep, a), len = t->dev->port_attr.gid_tbl_len, i;
	struct ibv_gid_entry e;

	a->ah_attr.grh.sgid_index = len;
	if (len < 256)
		return mask;
	for (i = 255; i > t->dev->gid_index; i--) {
		if (ibv_query_gid_ex(t->dev->ctx, t->dev->port, i, &e, 0)) {
			a->ah_attr.grh.sgid_index = i;
			return mask;
		}
	}
	return -1;
}

static int rtr_dest_rd_atomic_too_big(struct vt *t, const struct vt_ep *ep,
				      struct ibv_qp_attr *a)
{
	int mask = vt_attr_rtr(t, ep, a);

	if (t->dev->attr.max_qp_rd_atom >= 255)
		return -1;
	a->max_dest_rd_atomic = t->dev->attr.max_qp_rd_atom + 1;
	return mask;
}

static int rts_rd_atomic_too_big(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = to_rts(t, ep, a);

	if (t->dev->attr.max_qp_init_rd_atom >= 255)
		return -1;
	a->max_rd_atomic = t->dev->attr.max_qp_init_rd_atom + 1;
	return mask;
}

static int rtr_path_mtu_0(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_rtr(t, ep, a);

	a->path_mtu = 0;
	return mask;
}

static int rtr_path_mtu_8192(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_rtr(t, ep, a);

	a->path_mtu = IBV_MTU_4096 + 1;
	return mask;
}

/*
 * ib_core passes IBV_QP_CUR_STATE through unchecked: a kernel that believed
 * these claims would let a QP reach RTS without ever getting an address.
 */
static int rts_claiming_rts(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	(void)t;
	(void)ep;
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->cur_qp_state = IBV_QPS_RTS;	/* from RESET: RTS -> RTS needs nothing */
	return IBV_QP_STATE | IBV_QP_CUR_STATE;
}

static int rts_claiming_rtr(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = to_rts(t, ep, a);

	a->cur_qp_state = IBV_QPS_RTR;	/* from INIT: skips RTR and its address */
	return mask | IBV_QP_CUR_STATE;
}

/* Moves the state machine forbids, or without the attributes it requires
 * (the kernel's ib_modify_qp_is_ok() table). */
static const struct bad_move bad_transitions[] = {
	{ IBV_QPS_RESET, "RESET -> RTR", to_rtr, EINVAL },
	{ IBV_QPS_RESET, "RESET -> RTS", to_rts, EINVAL },
	{ IBV_QPS_RESET, "INIT without a port", init_no_port, EINVAL },
	{ IBV_QPS_INIT, "INIT -> RTS", to_rts, EINVAL },
	{ IBV_QPS_INIT, "RTR without a dest QPN", rtr_no_dest_qpn, EINVAL },
	{ IBV_QPS_INIT, "RTR without an address", rtr_no_av, EINVAL },
	{ IBV_QPS_RTR, "RTS without an SQ PSN", rts_no_sq_psn, EINVAL },
	{ IBV_QPS_RTR, "RTS changing the dest QPN", rts_with_dest_qpn, EINVAL },
	{ IBV_QPS_RTS, "RTS -> RTR", to_rtr, EINVAL },
	{ IBV_QPS_RTS, "RTS -> INIT", to_init, EINVAL },
	{ .make = NULL },
};

/*
 * An IPv6 flow label has 20 bits; a device that took more would put the
 * rest into the packets' IP version field.
 */
static int rtr_flow_label_wide(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	int mask = vt_attr_rtr(t, ep, a);

	a->ah_attr.grh.flow_label = 0xfffff + 1;
	return mask;
}

static const struct bad_move bad_flow_label[] = {
	{ IBV_QPS_INIT, "RTR with a 21-bit flow label", rtr_flow_label_wide, EINVAL },
	{ .make = NULL },
};

/* Moves that state a current state the QP is not in. */
static const struct bad_move bad_claims[] = {
	{ IBV_QPS_RESET, "RTS claiming to be in RTS", rts_claiming_rts, EINVAL },
	{ IBV_QPS_INIT, "RTS from INIT claiming to be in RTR", rts_claiming_rtr, EINVAL },
	{ .make = NULL },
};

/* Allowed moves with values the device cannot take. */
static const struct bad_move bad_values[] = {
	{ IBV_QPS_RESET, "INIT on port 0", init_port_0, EINVAL },
	{ IBV_QPS_RESET, "INIT on a port past the last", init_port_past_last, EINVAL },
	{ IBV_QPS_INIT, "RTR from an unused GID index", rtr_unused_gid, 0 },
	{ IBV_QPS_INIT, "RTR with max_dest_rd_atomic past the device's",
	  rtr_dest_rd_atomic_too_big, EINVAL },
	{ IBV_QPS_INIT, "RTR with path MTU 0", rtr_path_mtu_0, EINVAL },
	{ IBV_QPS_INIT, "RTR with path MTU 8192", rtr_path_mtu_8192, EINVAL },
	{ IBV_QPS_RTR, "RTS with max_rd_atomic past the device's", rts_rd_atomic_too_big, EINVAL },
	{ .make = NULL },
};

static int try_bad_move(struct vt *t, struct vt_ep *ep, const struct bad_move *m)
{
	struct ibv_qp_attr a;
	int mask = m->make(t, ep, &a), rc;

	if (mask < 0)
		return 0;
	rc = ibv_modify_qp(ep->qp, &a, mask);
	if (rc == 0)
		return vt_fail(t, "%s: accepted", m->what);
	if (rc < 0)
		rc = errno;
	if (m->want && rc != m->want)
		return vt_fail(t, "%s: %s, expected %s", m->what, strerror(rc), strerror(m->want));
	return vt_expect_state(t, ep->qp, m->from, 0, m->what);
}

/* Walk the QP forward with valid moves until it is in state to. */
static int advance(struct vt *t, struct vt_ep *ep, enum ibv_qp_state *cur, enum ibv_qp_state to)
{
	static int (*const next[])(struct vt *, const struct vt_ep *, struct ibv_qp_attr *) = {
		[IBV_QPS_RESET] = to_init, [IBV_QPS_INIT] = to_rtr, [IBV_QPS_RTR] = to_rts,
	};
	struct ibv_qp_attr a;
	int rc;

	while (*cur < to) {
		rc = ibv_modify_qp(ep->qp, &a, next[*cur](t, ep, &a));
		if (rc)
			return vt_fail(t, "valid move from state %d: %s", *cur,
				       strerror(rc < 0 ? errno : rc));
		++*cur;
	}
	return 0;
}

static int fresh_qp(struct vt *t, struct vt_ep *ep, enum ibv_qp_state *cur)
{
	struct vt_qp_opts o;

	vt_qp_opts_init(t, &o);
	o.reset_only = true;
	*cur = IBV_QPS_RESET;
	if (vt_ep_create(t, ep, &o))
		return -1;
	ep->peer = ep->me;	/* aimed at itself; never used for traffic */
	return 0;
}

/* Every row is tried; a row that goes wrong is listed and the rest carry
 * on with a fresh QP (an accepted move has changed the state). */
static int bad_modify_client(struct vt *t)
{
	const struct bad_move *m = t->arg;
	char wrong[VT_REASON_LEN] = "";
	enum ibv_qp_state cur;
	int nwrong = 0, n = 0;
	struct vt_ep ep;

	if (fresh_qp(t, &ep, &cur))
		return -1;
	for (; m->make; m++, n++) {
		if (advance(t, &ep, &cur, m->from))
			return -1;
		if (!try_bad_move(t, &ep, m))
			continue;
		nwrong++;
		if (nwrong > 1)
			strncat(wrong, "; ", sizeof(wrong) - strlen(wrong) - 1);
		strncat(wrong, t->reason, sizeof(wrong) - strlen(wrong) - 1);
		t->reason[0] = '\0';
		if (fresh_qp(t, &ep, &cur))
			return -1;
	}
	return nwrong ? vt_fail(t, "%d of %d wrongly handled: %s", nwrong, n, wrong) : 0;
}

/* --- posting before RTS ------------------------------------------------------ */

#define EARLY_SEND	1	/* wr_id of the refused sends */
#define LATE_SEND	2	/* wr_id of the first send after RTS */

/* A SEND of the n-th MSG_LEN piece of b, through ibv_post_send. */
static int early_post_classic(struct vt_ep *ep, struct vt_buf *b, int n, uint64_t wr_id,
			      bool *bad_is_first)
{
	struct ibv_sge sg = vt_sge(b, (size_t)n * MSG_LEN, MSG_LEN);
	struct ibv_send_wr second = vt_wr(IBV_WR_SEND, wr_id, &sg, 1, IBV_SEND_SIGNALED);
	struct ibv_send_wr first = vt_wr(IBV_WR_SEND, wr_id, &sg, 1, IBV_SEND_SIGNALED);
	struct ibv_send_wr *bad = NULL;
	int rc;

	first.next = &second;
	rc = ibv_post_send(ep->qp, &first, &bad);
	*bad_is_first = bad == &first;
	return rc;
}

/* The same SEND as one ibv_wr_* batch; returns what ibv_wr_complete does. */
static int early_post_ex(struct vt_ep *ep, struct vt_buf *b, int n, uint64_t wr_id)
{
	ibv_wr_start(ep->qpx);
	ep->qpx->wr_id = wr_id;
	ep->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(ep->qpx);
	ibv_wr_set_sge(ep->qpx, b->mr->lkey, (uintptr_t)b->p + (size_t)n * MSG_LEN, MSG_LEN);
	return ibv_wr_complete(ep->qpx);
}

/* Both APIs must refuse a SEND in the QP's current state, state. */
static int early_expect_refused(struct vt *t, struct vt_ep *ep, struct vt_buf *b,
				const char *state)
{
	bool bad_is_first = false;
	int rc = early_post_classic(ep, b, 0, EARLY_SEND, &bad_is_first);

	if (rc != EINVAL || !bad_is_first)
		return vt_fail(t, "ibv_post_send in %s: %s (%d), bad_wr %s the first WR; expected EINVAL",
			       state, strerror(rc), rc, bad_is_first ? "is" : "is not");
	rc = early_post_ex(ep, b, 0, EARLY_SEND);
	if (rc != EINVAL)
		return vt_fail(t, "ibv_wr_complete in %s: %s (%d); expected EINVAL", state,
			       strerror(rc), rc);
	return vt_expect_no_wc(t, ep->scq, 0, state);
}

static int early_modify(struct vt *t, struct vt_ep *ep,
			int (*make)(struct vt *, const struct vt_ep *, struct ibv_qp_attr *),
			const char *state)
{
	struct ibv_qp_attr a;
	int rc = ibv_modify_qp(ep->qp, &a, make(t, ep, &a));

	return rc ? vt_fail(t, "modify_qp to %s: %s", state, strerror(rc)) : 0;
}

/*
 * IBA: a send WR on a QP in RESET, INIT or RTR is an immediate error. Both
 * APIs get EINVAL in each of them (bad_wr the first WR of the list), and
 * nothing of it may ever be sent: after RTS, the two SENDs posted then are
 * the only ones the peer receives and the only completions here.
 */
static int early_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 3 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct vt_ep ep;
	bool bad_is_first;
	int rc;

	vt_qp_opts_init(t, &o);
	o.reset_only = true;
	o.send_ops_flags = IBV_QP_EX_WITH_SEND;
	if (!b || vt_ep_create(t, &ep, &o))
		return -1;
	vt_fill(b->p, 3 * MSG_LEN, 3);
	if (early_expect_refused(t, &ep, b, "RESET") ||
	    early_modify(t, &ep, to_init, "INIT") || early_expect_refused(t, &ep, b, "INIT") ||
	    vt_ep_exchange(t, &ep, NULL) ||
	    early_modify(t, &ep, to_rtr, "RTR") || early_expect_refused(t, &ep, b, "RTR") ||
	    early_modify(t, &ep, to_rts, "RTS") || vt_sync(t))
		return -1;
	rc = early_post_classic(&ep, b, 1, LATE_SEND, &bad_is_first);
	if (rc)
		return vt_fail(t, "ibv_post_send in RTS: %s", strerror(rc));
	rc = early_post_ex(&ep, b, 2, LATE_SEND + 1);
	if (rc)
		return vt_fail(t, "ibv_wr_complete in RTS: %s", strerror(rc));
	if (vt_expect_wc(t, ep.scq, LATE_SEND, IBV_WC_SUCCESS, NULL, "first SEND after RTS") ||
	    vt_expect_wc(t, ep.scq, LATE_SEND, IBV_WC_SUCCESS, NULL, "second SEND after RTS") ||
	    vt_expect_wc(t, ep.scq, LATE_SEND + 1, IBV_WC_SUCCESS, NULL, "ibv_wr_* SEND after RTS") ||
	    vt_expect_no_wc(t, ep.scq, 200, "send queue after the three SENDs"))
		return -1;
	return vt_sync(t);
}

/* Three receives must hold pieces 1, 1, 2 of the client's pattern. */
static int early_server(struct vt *t)
{
	static const int piece[] = { 1, 1, 2 };
	struct vt_buf *b = vt_buf(t, 3 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	unsigned char *want = malloc(3 * MSG_LEN);
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct vt_ep ep;
	int i, rc = -1;

	if (!b || !want)
		goto out;
	vt_fill(want, 3 * MSG_LEN, 3);
	memset(b->p, GUARD, 3 * MSG_LEN);
	if (vt_ep_new(t, &ep))
		goto out;
	for (i = 0; i < 4; i++) {
		sg = vt_sge(b, (size_t)(i % 3) * MSG_LEN, MSG_LEN);
		if (vt_post_recv(t, &ep, i, &sg, 1))
			goto out;
	}
	if (vt_ep_link(t, &ep, NULL))
		goto out;
	for (i = 0; i < 3; i++) {
		if (vt_expect_wc(t, ep.rcq, i, IBV_WC_SUCCESS, &wc, "receive"))
			goto out;
		if (wc.byte_len != MSG_LEN ||
		    memcmp((const void *)(b->p + (size_t)i * MSG_LEN),
			   want + (size_t)piece[i] * MSG_LEN, MSG_LEN)) {
			rc = vt_fail(t, "receive %d: byte_len %u or data not the SEND posted after RTS",
				     i, wc.byte_len);
			goto out;
		}
	}
	if (vt_expect_no_wc(t, ep.rcq, 200, "a fourth receive (a refused SEND went out)"))
		goto out;
	rc = vt_sync(t);
out:
	free(want);
	return rc;
}

const struct vt_case vt_error_cases[] = {
	{ "err_bad_lkey", "SEND with a bad lkey: IBV_WC_LOC_PROT_ERR, QP in ERR",
	  bad_lkey_client, bad_lkey_server, NULL },
	{ "err_recv_too_small", "16 KiB SEND into a 4 KiB receive: LOC_LEN_ERR and REM_INV_REQ_ERR, nothing past it",
	  recv_too_small_client, recv_too_small_server, NULL },
	{ "err_recv_foreign_pd", "SEND into a receive whose MR moved to another PD: REM_OP_ERR before the flushes",
	  recv_foreign_pd_client, recv_foreign_pd_server, NULL },
	{ "err_bad_rkey", "WRITE with a bad rkey: IBV_WC_REM_ACCESS_ERR, both QPs in ERR",
	  access_client, access_server, &bad_rkey },
	{ "err_out_of_bounds", "WRITE past the end of the MR: REM_ACCESS_ERR, nothing written",
	  access_client, access_server, &out_of_bounds },
	{ "err_no_remote_write", "WRITE to an MR without REMOTE_WRITE: REM_ACCESS_ERR",
	  access_client, access_server, &no_remote_write },
	{ "err_no_remote_read", "READ of an MR without REMOTE_READ: REM_ACCESS_ERR",
	  access_client, access_server, &no_remote_read },
	{ "err_other_pd", "WRITE to an MR of another PD: REM_ACCESS_ERR",
	  access_client, access_server, &other_pd },
	{ "err_ord_zero_read", "READ on a QP with max_rd_atomic 0: LOC_QP_OP_ERR, nothing sent",
	  ord_zero_client, refused_server, &ord_zero_read },
	{ "err_ord_zero_atomic", "FETCH_ADD on a QP with max_rd_atomic 0: LOC_QP_OP_ERR, nothing sent",
	  ord_zero_client, refused_server, &ord_zero_atomic },
	{ "err_read_psn_span", "2 GiB READ at MTU 256 (2^23 PSNs): LOC_LEN_ERR, nothing sent",
	  read_psn_span_client, refused_server, NULL },
	{ "err_rnr_retry_0", "no receive, rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR",
	  rnr_exceeded_client, rnr_exceeded_server, &rnr_0 },
	{ "err_rnr_retry_2", "no receive, rnr_retry 2: IBV_WC_RNR_RETRY_EXC_ERR",
	  rnr_exceeded_client, rnr_exceeded_server, &rnr_2 },
	{ "rnr_retry_recovers", "rnr_retry 7, receive posted 300 ms late: the SEND succeeds",
	  rnr_recovers_client, rnr_recovers_server, NULL },
	{ "err_retry_peer_destroyed", "peer QP destroyed: IBV_WC_RETRY_EXC_ERR",
	  retry_client, retry_server, &peer_destroyed },
	{ "err_retry_peer_not_rtr", "peer QP left in INIT: IBV_WC_RETRY_EXC_ERR",
	  retry_client, retry_server, &peer_not_rtr },
	{ "err_retry_bogus_qpn", "connected to a QPN that does not exist: IBV_WC_RETRY_EXC_ERR",
	  retry_client, retry_server, &peer_bogus_qpn },
	{ "flush", "move to ERR flushes outstanding sends and receives, in order",
	  flush_client, NULL, NULL },
	{ "flush_posted_in_err", "WRs posted to a QP in ERR complete with IBV_WC_WR_FLUSH_ERR",
	  flush_in_err_client, NULL, NULL },
	{ "post_send_before_rts", "ibv_post_send and ibv_wr_complete in RESET, INIT, RTR: EINVAL, nothing sent; RTS then works",
	  early_client, early_server, NULL },
	{ "bad_modify_transition", "forbidden QP transitions, missing attributes: EINVAL, state kept",
	  bad_modify_client, NULL, bad_transitions },
	{ "bad_modify_cur_state", "a false IBV_QP_CUR_STATE: EINVAL, state kept",
	  bad_modify_client, NULL, bad_claims },
	{ "bad_modify_value", "bad port, GID index, MTU, rd_atomic depths: refused, state kept",
	  bad_modify_client, NULL, bad_values },
	{ "bad_modify_flow_label", "RTR with a flow label past 20 bits: EINVAL, state kept",
	  bad_modify_client, NULL, bad_flow_label },
	{ NULL },
};

const struct vt_case vt_on_request_cases[] = {
	{ "err_kernel_lkey", "SEND naming a kernel PD's lkey (SROCE_KERNEL_KEY): LOC_PROT_ERR",
	  bad_lkey_client, bad_lkey_server, &kernel_rkey },
	{ "err_kernel_rkey", "WRITE aimed at a kernel PD's rkey (SROCE_KERNEL_KEY): REM_ACCESS_ERR",
	  access_client, access_server, &kernel_rkey },
	{ "err_retry_blackhole", "the network drops every RoCE packet: IBV_WC_RETRY_EXC_ERR, no hang",
	  retry_client, retry_server, &peer_blackholed },
	{ NULL },
};
