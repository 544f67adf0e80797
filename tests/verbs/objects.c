// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Changing objects while traffic uses them: ibv_resize_cq with completions
 * waiting, ibv_rereg_mr (access, PD, translation) and what the old and new
 * keys may then do, and the SQD state (drain, the SQ_DRAINED event,
 * resume).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_test.h"

#define MSG_LEN		100
#define GUARD		0xa5

/* --- resize_cq ----------------------------------------------------------- */

#define RESIZE_FIRST	6	/* SENDs waiting in the receive CQ at the resize */
#define RESIZE_LATER	2	/* SENDs after it */
#define RESIZE_MSGS	(RESIZE_FIRST + RESIZE_LATER)

static int send_msgs(struct vt *t, struct vt_ep *ep, struct vt_buf *b, uint64_t seed,
		     int first, int count)
{
	int i;

	for (i = first; i < first + count; i++) {
		struct ibv_sge sg = vt_sge(b, (size_t)i * MSG_LEN, MSG_LEN);
		struct ibv_send_wr wr = vt_wr(IBV_WR_SEND, i, &sg, 1, IBV_SEND_SIGNALED);

		vt_fill(b->p + (size_t)i * MSG_LEN, MSG_LEN, seed + i);
		if (vt_post_send(t, ep, &wr))
			return -1;
	}
	for (i = first; i < first + count; i++)
		if (vt_expect_wc(t, ep->scq, i, IBV_WC_SUCCESS, NULL, "SEND completion"))
			return -1;
	return 0;
}

/*
 * The client's SEND completions mean the server's receive completions are
 * written (the responder completes before it acknowledges), so the sync
 * after them tells the server its CQ holds all of them.
 */
static int resize_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, RESIZE_MSGS * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;
	uint64_t seed;

	if (!b || vt_ep_up(t, &ep, NULL) || vt_get_u64(t, &seed))
		return -1;
	if (send_msgs(t, &ep, b, seed, 0, RESIZE_FIRST) || vt_sync(t) || vt_sync(t))
		return -1;
	return send_msgs(t, &ep, b, seed, RESIZE_FIRST, RESIZE_LATER) || vt_sync(t) ? -1 : 0;
}

static int expect_msgs(struct vt *t, struct vt_ep *ep, struct vt_buf *b, uint64_t seed,
		       int first, int count)
{
	struct ibv_wc wc;
	int i;

	for (i = first; i < first + count; i++) {
		if (vt_expect_wc(t, ep->rcq, i, IBV_WC_SUCCESS, &wc, "receive completion"))
			return -1;
		if (wc.byte_len != MSG_LEN || wc.opcode != IBV_WC_RECV)
			return vt_fail(t, "message %d: opcode %d byte_len %u", i, wc.opcode,
				       wc.byte_len);
		if (vt_check(t, b->p + (size_t)i * MSG_LEN, MSG_LEN, seed + i, "received data"))
			return -1;
	}
	return 0;
}

static int resize_expect(struct vt *t, struct ibv_cq *cq, int cqe, int want_rc)
{
	int rc = ibv_resize_cq(cq, cqe);

	if (rc != want_rc)
		return vt_fail(t, "ibv_resize_cq(%d): %s, expected %s", cqe, strerror(rc),
			       strerror(want_rc));
	if (!rc && cq->cqe < cqe)
		return vt_fail(t, "ibv_resize_cq(%d): the CQ reports %d entries", cqe, cq->cqe);
	return 0;
}

static int resize_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, RESIZE_MSGS * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t);
	struct vt_qp_opts o;
	struct vt_ep ep;
	int i;

	vt_qp_opts_init(t, &o);
	o.cqe = 8;
	if (!b || vt_ep_create(t, &ep, &o))
		return -1;
	for (i = 0; i < RESIZE_MSGS; i++) {
		struct ibv_sge sg = vt_sge(b, (size_t)i * MSG_LEN, MSG_LEN);

		if (vt_post_recv(t, &ep, i, &sg, 1))
			return -1;
	}
	if (vt_ep_link(t, &ep, NULL) || vt_put_u64(t, seed) || vt_sync(t))
		return -1;
	/* Six completions wait; take two, four stay. */
	if (expect_msgs(t, &ep, b, seed, 0, 2) ||
	    resize_expect(t, ep.rcq, 3, EINVAL) || resize_expect(t, ep.rcq, 0, EINVAL) ||
	    resize_expect(t, ep.rcq, 4, 0) ||
	    expect_msgs(t, &ep, b, seed, 2, RESIZE_FIRST - 2) ||
	    resize_expect(t, ep.rcq, 64, 0) || vt_sync(t) || vt_sync(t))
		return -1;
	if (expect_msgs(t, &ep, b, seed, RESIZE_FIRST, RESIZE_LATER))
		return -1;
	return vt_expect_no_wc(t, ep.rcq, 0, "extra receive completion");
}

/* --- rereg_mr ------------------------------------------------------------ */

enum rereg_kind { REREG_ACCESS, REREG_PD, REREG_TRANSLATION };

#define REREG_LEN	4096

/*
 * One RDMA operation on a fresh endpoint: the peer exposes its MR as it is
 * now, rkey overrides the key the peer sent (0: use it). Both QPs go to
 * ERR on an access error, hence an endpoint per operation.
 */
static int rdma_once(struct vt *t, enum ibv_wr_opcode op, struct vt_buf *b, uint64_t seed,
		     uint32_t rkey, enum ibv_wc_status want, uint32_t *peer_rkey)
{
	struct ibv_sge sg = vt_sge(b, 0, MSG_LEN);
	struct ibv_send_wr wr = vt_wr(op, 1, &sg, 1, IBV_SEND_SIGNALED);
	struct vt_ep ep;

	if (vt_ep_up(t, &ep, NULL))
		return -1;
	if (peer_rkey)
		*peer_rkey = ep.peer.rkey;
	if (op == IBV_WR_RDMA_WRITE)
		vt_fill(b->p, MSG_LEN, seed);
	else
		memset(b->p, GUARD, MSG_LEN);
	vt_wr_remote(&wr, &ep, 0);
	if (rkey)
		wr.wr.rdma.rkey = rkey;
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, want, NULL, op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ"))
		return -1;
	if (op == IBV_WR_RDMA_READ && want == IBV_WC_SUCCESS &&
	    vt_check(t, b->p, MSG_LEN, seed, "data read"))
		return -1;
	return vt_sync(t);
}

/* The server's side of rdma_once: expose b from a QP in pd. */
static int expose_once(struct vt *t, struct ibv_pd *pd, struct vt_buf *b)
{
	struct vt_qp_opts o;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.pd = pd;
	return vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, b) || vt_sync(t) ? -1 : 0;
}

/*
 * A new translation gets new keys: the old rkey is dead. A change of
 * access or PD keeps them, as on RNICs: the old rkey obeys the new rights
 * and PD at once.
 */
static int rereg_client(struct vt *t)
{
	enum rereg_kind kind = *(const enum rereg_kind *)t->arg;
	struct vt_buf *b = vt_buf(t, MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	enum ibv_wc_status old_key_read;
	uint32_t old_rkey, new_rkey;
	uint64_t seed = vt_rand(t);

	if (!b || vt_put_u64(t, seed))
		return -1;
	/* Before: the key works. */
	if (rdma_once(t, IBV_WR_RDMA_WRITE, b, seed, 0, IBV_WC_SUCCESS, &old_rkey))
		return -1;
	/* After: through a QP of the old PD, only a kept key to readable memory works. */
	old_key_read = kind == REREG_ACCESS ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
	if (rdma_once(t, IBV_WR_RDMA_READ, b, seed, old_rkey, old_key_read, &new_rkey))
		return -1;
	if (kind == REREG_TRANSLATION && new_rkey == old_rkey)
		return vt_fail(t, "a new translation kept rkey 0x%x", old_rkey);
	if (kind != REREG_TRANSLATION && new_rkey != old_rkey)
		return vt_fail(t, "rkey 0x%x became 0x%x", old_rkey, new_rkey);
	switch (kind) {
	case REREG_ACCESS:	/* read-only, then writable again */
		return rdma_once(t, IBV_WR_RDMA_WRITE, b, seed + 1, 0, IBV_WC_REM_ACCESS_ERR,
				 NULL) ||
		       rdma_once(t, IBV_WR_RDMA_WRITE, b, seed + 2, old_rkey, IBV_WC_SUCCESS,
				 NULL) ? -1 : 0;
	case REREG_PD:		/* first through a QP of the old PD, then the new */
		return rdma_once(t, IBV_WR_RDMA_WRITE, b, seed + 1, 0, IBV_WC_REM_ACCESS_ERR,
				 NULL) ||
		       rdma_once(t, IBV_WR_RDMA_WRITE, b, seed + 2, 0, IBV_WC_SUCCESS, NULL) ||
		       rdma_once(t, IBV_WR_RDMA_READ, b, seed + 2, 0, IBV_WC_SUCCESS, NULL) ? -1 : 0;
	case REREG_TRANSLATION:	/* the new range, already filled by the server */
		return rdma_once(t, IBV_WR_RDMA_READ, b, seed + 3, 0, IBV_WC_SUCCESS, NULL) ||
		       rdma_once(t, IBV_WR_RDMA_WRITE, b, seed + 4, 0, IBV_WC_SUCCESS, NULL) ? -1 : 0;
	}
	return vt_fail(t, "unknown rereg kind");
}

/* Keys change with the translation only. */
static int rereg(struct vt *t, struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t len, int access)
{
	bool new_keys = flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	uint32_t lkey = mr->lkey, rkey = mr->rkey;
	int rc = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	if (rc)
		return vt_fail(t, "ibv_rereg_mr(flags 0x%x): %d (%s)", flags, rc, strerror(errno));
	if (new_keys && (mr->lkey == lkey || mr->rkey == rkey))
		return vt_fail(t, "ibv_rereg_mr kept lkey 0x%x / rkey 0x%x", lkey, rkey);
	if (!new_keys && (mr->lkey != lkey || mr->rkey != rkey))
		return vt_fail(t, "ibv_rereg_mr(flags 0x%x) changed lkey 0x%x -> 0x%x, rkey 0x%x -> 0x%x",
			       flags, lkey, mr->lkey, rkey, mr->rkey);
	return 0;
}

static int rereg_server(struct vt *t)
{
	enum rereg_kind kind = *(const enum rereg_kind *)t->arg;
	struct ibv_pd *pd2 = vt_pd(t);	/* before the MR: freed after it */
	struct vt_buf *other = vt_buf(t, REREG_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_buf *b = vt_buf(t, REREG_LEN, VT_ACCESS_ALL);
	uint64_t seed;

	if (!pd2 || !other || !b || vt_get_u64(t, &seed) || expose_once(t, t->pd, b))
		return -1;
	if (vt_check(t, b->p, MSG_LEN, seed, "memory after the WRITE"))
		return -1;
	switch (kind) {
	case REREG_ACCESS:
		if (rereg(t, b->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) ||
		    expose_once(t, t->pd, b) || expose_once(t, t->pd, b) ||
		    vt_check(t, b->p, MSG_LEN, seed, "memory after the refused WRITE") ||
		    rereg(t, b->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, VT_ACCESS_ALL) ||
		    expose_once(t, t->pd, b))
			return -1;
		return vt_check(t, b->p, MSG_LEN, seed + 2, "memory after the widened WRITE");
	case REREG_PD:
		if (rereg(t, b->mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0) ||
		    expose_once(t, t->pd, b) || expose_once(t, t->pd, b) ||
		    vt_check(t, b->p, MSG_LEN, seed, "memory after the refused WRITE") ||
		    expose_once(t, pd2, b) || expose_once(t, pd2, b))
			return -1;
		return vt_check(t, b->p, MSG_LEN, seed + 2, "memory after the WRITE");
	case REREG_TRANSLATION:
		vt_fill(other->p, MSG_LEN, seed + 3);
		if (rereg(t, b->mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, other->p, REREG_LEN,
			  0))
			return -1;
		b->p = other->p;
		if (expose_once(t, t->pd, b) || expose_once(t, t->pd, b) ||
		    expose_once(t, t->pd, b))
			return -1;
		return vt_check(t, other->p, MSG_LEN, seed + 4, "new range after the WRITE");
	}
	return vt_fail(t, "unknown rereg kind");
}

/* --- SQD ------------------------------------------------------------------ */

#define SQD_BEFORE	8		/* SENDs posted, then SQD at once */
#define SQD_DURING	3		/* SENDs posted while in SQD */
#define SQD_MSGS	(SQD_BEFORE + SQD_DURING)
#define SQD_LEN		16384		/* 16 packets: the drain takes a while */

static int sqd_modify(struct vt *t, struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st, .en_sqd_async_notify = 1 };
	int mask = IBV_QP_STATE | (st == IBV_QPS_SQD ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0);
	int rc = ibv_modify_qp(qp, &a, mask);

	return rc ? vt_fail(t, "modify_qp to %s: %s", st == IBV_QPS_SQD ? "SQD" : "RTS",
			    strerror(rc)) : 0;
}

static int sqd_post(struct vt *t, struct vt_ep *ep, struct vt_buf *b, uint64_t seed, int i)
{
	struct ibv_sge sg = vt_sge(b, (size_t)i * SQD_LEN, SQD_LEN);
	struct ibv_send_wr wr = vt_wr(IBV_WR_SEND, i, &sg, 1, IBV_SEND_SIGNALED);

	vt_fill(b->p + (size_t)i * SQD_LEN, SQD_LEN, seed + i);
	return vt_post_send(t, ep, &wr);
}

/* Completions polled so far must be 0, 1, ...; returns how many came. */
static int sqd_take_done(struct vt *t, struct vt_ep *ep, int *next)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(ep->scq, 1, &wc)) == 1) {
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)*next)
			return vt_fail(t, "completion wr_id %llu status %s, expected %d success",
				       (unsigned long long)wc.wr_id,
				       ibv_wc_status_str(wc.status), *next);
		++*next;
	}
	return n < 0 ? vt_fail(t, "ibv_poll_cq: %d", n) : 0;
}

/* ibv_query_qp's sq_draining must be want (1 in SQD while sent work is outstanding). */
static int sqd_expect_draining(struct vt *t, struct ibv_qp *qp, int want, const char *when)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &init);

	if (rc)
		return vt_fail(t, "ibv_query_qp %s: %s", when, strerror(rc));
	if (a.sq_draining != want)
		return vt_fail(t, "sq_draining %d %s, expected %d", a.sq_draining, when, want);
	return 0;
}

/*
 * RTS -> SQD right after posting: the SQ_DRAINED event comes, after it no
 * completion appears (sends posted in SQD included) and the QP stays in
 * SQD; SQD -> RTS then completes everything, in order, none lost.
 */
static int sqd_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (size_t)SQD_MSGS * SQD_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t);
	struct vt_ep ep;
	int i, next = 0;

	if (!b || vt_ep_up(t, &ep, NULL) || vt_put_u64(t, seed))
		return -1;
	for (i = 0; i < SQD_BEFORE; i++)
		if (sqd_post(t, &ep, b, seed, i))
			return -1;
	if (sqd_modify(t, ep.qp, IBV_QPS_SQD) ||
	    vt_wait_async(t, IBV_EVENT_SQ_DRAINED, ep.qp) ||
	    sqd_expect_draining(t, ep.qp, 0, "after SQ_DRAINED"))
		return -1;
	for (; i < SQD_MSGS; i++)
		if (sqd_post(t, &ep, b, seed, i))
			return -1;
	if (sqd_take_done(t, &ep, &next) ||
	    vt_expect_no_wc(t, ep.scq, 300, "completion while drained in SQD") ||
	    vt_expect_state(t, ep.qp, IBV_QPS_SQD, 0, "after the drain"))
		return -1;
	vt_note(t, "%d of %d sends done when drained", next, SQD_BEFORE);
	if (sqd_modify(t, ep.qp, IBV_QPS_RTS))
		return -1;
	for (i = next; i < SQD_MSGS; i++)
		if (vt_expect_wc(t, ep.scq, i, IBV_WC_SUCCESS, NULL, "SEND after SQD"))
			return -1;
	return vt_sync(t);
}

static int sqd_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (size_t)SQD_MSGS * SQD_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc;
	struct vt_ep ep;
	uint64_t seed;
	int i;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	for (i = 0; i < SQD_MSGS; i++) {
		struct ibv_sge sg = vt_sge(b, (size_t)i * SQD_LEN, SQD_LEN);

		if (vt_post_recv(t, &ep, i, &sg, 1))
			return -1;
	}
	if (vt_ep_link(t, &ep, NULL) || vt_get_u64(t, &seed))
		return -1;
	for (i = 0; i < SQD_MSGS; i++) {
		if (vt_expect_wc(t, ep.rcq, i, IBV_WC_SUCCESS, &wc, "receive completion"))
			return -1;
		if (wc.byte_len != SQD_LEN ||
		    vt_check(t, b->p + (size_t)i * SQD_LEN, SQD_LEN, seed + i, "received data"))
			return vt_fail(t, "message %d: byte_len %u or data wrong", i, wc.byte_len);
	}
	return vt_sync(t);
}

/* Fails if a SQ_DRAINED event for qp comes within ms; others are passed over. */
static int sqd_expect_no_drained(struct vt *t, struct ibv_qp *qp, int ms, const char *why)
{
	struct ibv_context *ctx = t->dev->ctx;
	struct ibv_async_event ev;
	int rc, drained;

	if (fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK))
		return vt_fail(t, "cannot make the async fd non-blocking");
	while ((rc = vt_wait_fd(t, ctx->async_fd, ms)) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			continue;
		drained = ev.event_type == IBV_EVENT_SQ_DRAINED && ev.element.qp == qp;
		ibv_ack_async_event(&ev);
		if (drained)
			return vt_fail(t, "SQ_DRAINED %s", why);
	}
	return rc;
}

/*
 * en_sqd_async_notify asks for the event on its own RTS->SQD only: a later
 * RTS->SQD without it stays silent.
 */
static int sqd_notify_once_client(struct vt *t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };
	struct vt_ep ep;
	int rc;

	if (vt_ep_up(t, &ep, NULL) ||
	    sqd_modify(t, ep.qp, IBV_QPS_SQD) ||
	    vt_wait_async(t, IBV_EVENT_SQ_DRAINED, ep.qp) ||
	    sqd_modify(t, ep.qp, IBV_QPS_RTS))
		return -1;
	rc = ibv_modify_qp(ep.qp, &a, IBV_QP_STATE);
	if (rc)
		return vt_fail(t, "modify_qp to SQD without notify: %s", strerror(rc));
	if (sqd_expect_no_drained(t, ep.qp, 500, "on an SQD entry that did not ask for it"))
		return -1;
	return vt_sync(t);
}

static int sqd_notify_once_server(struct vt *t)
{
	struct vt_ep ep;

	if (vt_ep_new(t, &ep) || vt_ep_link(t, &ep, NULL))
		return -1;
	return vt_sync(t);
}

/*
 * A SEND that met RNR NAKs is rewound to its first PSN: entering SQD then,
 * it still counts as started. No SQ_DRAINED while it waits for a receive;
 * once the receive is posted it is resent in SQD, completes, and only then
 * the SQ is drained.
 */
static int sqd_rnr_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.rnr_retry = 7;	/* retry for ever */
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL) || vt_sync(t))
		return -1;
	vt_fill(b->p, 64, 7);
	sg = vt_sge(b, 0, 64);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, &ep, &wr))
		return -1;
	usleep(300 * 1000);	/* RNR NAKs rewind it to its first PSN */
	if (sqd_modify(t, ep.qp, IBV_QPS_SQD) ||
	    sqd_expect_no_drained(t, ep.qp, 500, "while a SEND waits out RNR NAKs") ||
	    sqd_expect_draining(t, ep.qp, 1, "while a SEND waits out RNR NAKs") || vt_sync(t))
		return -1;
	if (vt_expect_wc(t, ep.scq, 1, IBV_WC_SUCCESS, NULL, "SEND resent in SQD") ||
	    vt_wait_async(t, IBV_EVENT_SQ_DRAINED, ep.qp) ||
	    sqd_expect_draining(t, ep.qp, 0, "after SQ_DRAINED"))
		return -1;
	return vt_sync(t);
}

static int sqd_rnr_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.min_rnr_timer = 14;	/* about a millisecond between retries */
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL) || vt_sync(t) ||
	    vt_sync(t))
		return -1;
	sg = vt_sge(b, 0, 64);
	if (vt_post_recv(t, &ep, 1, &sg, 1) ||
	    vt_expect_wc(t, ep.rcq, 1, IBV_WC_SUCCESS, NULL, "late receive") ||
	    vt_check(t, b->p, 64, 7, "data"))
		return -1;
	return vt_sync(t);
}

#define IRD_READS	4		/* the default ORD/IRD of the cases' QPs */
#define IRD_LEN		(4 << 20)	/* long enough to be answered during the modify */
#define IRD_GROWN	16

/*
 * SQD->SQD may change max_dest_rd_atomic while the responder is answering
 * READs: the READs in progress still complete, whole and right.
 */
static int sqd_ird_resize_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (size_t)IRD_READS * IRD_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;
	uint64_t seed;
	int i;

	if (!b || vt_ep_up(t, &ep, NULL) || vt_get_u64(t, &seed))
		return -1;
	memset(b->p, GUARD, (size_t)IRD_READS * IRD_LEN);
	for (i = 0; i < IRD_READS; i++) {
		struct ibv_sge sg = vt_sge(b, (size_t)i * IRD_LEN, IRD_LEN);
		struct ibv_send_wr wr = vt_wr(IBV_WR_RDMA_READ, i, &sg, 1, IBV_SEND_SIGNALED);

		vt_wr_remote(&wr, &ep, (size_t)i * IRD_LEN);
		if (vt_post_send(t, &ep, &wr))
			return -1;
	}
	if (vt_sync(t))		/* the server resizes its IRD now */
		return -1;
	for (i = 0; i < IRD_READS; i++)
		if (vt_expect_wc(t, ep.scq, i, IBV_WC_SUCCESS, NULL, "READ across the IRD resize"))
			return -1;
	if (vt_check(t, b->p, (size_t)IRD_READS * IRD_LEN, seed, "data read"))
		return -1;
	return vt_sync(t);
}

/* SQD->SQD max_dest_rd_atomic IRD_GROWN: done. */
static int ird_grow(struct vt *t, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .max_dest_rd_atomic = IRD_GROWN };
	int rc = ibv_modify_qp(qp, &a, IBV_QP_MAX_DEST_RD_ATOMIC);

	return rc ? vt_fail(t, "SQD->SQD max_dest_rd_atomic %d: %s", IRD_GROWN, strerror(rc)) : 0;
}

static int ird_now(struct vt *t, struct ibv_qp *qp, int *ird)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int rc = ibv_query_qp(qp, &a, IBV_QP_MAX_DEST_RD_ATOMIC, &init);

	*ird = a.max_dest_rd_atomic;
	return rc ? vt_fail(t, "ibv_query_qp: %s", strerror(rc)) : 0;
}

/*
 * The same modify claiming the QP is in RTS fails (EINVAL) and changes
 * nothing: max_dest_rd_atomic and the IRD ring stay as they were.
 */
static int ird_grow_refused(struct vt *t, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .cur_qp_state = IBV_QPS_RTS, .max_dest_rd_atomic = IRD_GROWN };
	int rc, before, after;

	if (ird_now(t, qp, &before))
		return -1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_CUR_STATE | IBV_QP_MAX_DEST_RD_ATOMIC);
	if (rc != EINVAL)
		return vt_fail(t, "SQD->SQD max_dest_rd_atomic claiming RTS: %s, expected EINVAL",
			       rc ? strerror(rc) : "success");
	if (ird_now(t, qp, &after))
		return -1;
	if (after != before)
		return vt_fail(t, "max_dest_rd_atomic %d after a failed modify, was %d", after, before);
	return 0;
}

/* What a sqd_ird_* case does to the IRD in SQD. */
struct ird_step {
	int (*modify)(struct vt *t, struct ibv_qp *qp);
};

static const struct ird_step ird_grown = { ird_grow }, ird_refused = { ird_grow_refused };

/* In SQD while answering the client's READs, run the case's modify (t->arg). */
static int sqd_ird_server(struct vt *t)
{
	const struct ird_step *step = t->arg;
	struct vt_buf *b = vt_buf(t, (size_t)IRD_READS * IRD_LEN,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	uint64_t seed = vt_rand(t);
	struct vt_ep ep;

	if (!b)
		return -1;
	vt_fill(b->p, (size_t)IRD_READS * IRD_LEN, seed);
	if (vt_ep_new(t, &ep) || vt_ep_link(t, &ep, b) || vt_put_u64(t, seed) || vt_sync(t) ||
	    sqd_modify(t, ep.qp, IBV_QPS_SQD) || step->modify(t, ep.qp) ||
	    sqd_modify(t, ep.qp, IBV_QPS_RTS))
		return -1;
	return vt_sync(t);
}

#define TAIL_WRITES	4		/* unsignaled, one packet each */
#define TAIL_LEN	256
#define TAIL_TIMEOUT	20		/* ACK timeout 4.096 us * 2^20: 4.3 s */
#define TAIL_DRAIN_MS	1000		/* a quarter of it: no timeout in between */

static int sqd_tail_write(struct vt *t, struct vt_ep *ep, struct vt_buf *b, int i, int flags)
{
	struct ibv_sge sg = vt_sge(b, (size_t)i * TAIL_LEN, TAIL_LEN);
	struct ibv_send_wr wr = vt_wr(IBV_WR_RDMA_WRITE, i, &sg, 1, flags);

	vt_wr_remote(&wr, ep, (size_t)i * TAIL_LEN);
	return vt_post_send(t, ep, &wr);
}

/*
 * RTS->SQD when the last messages sent were unsignaled WRITEs (no AckReq):
 * SQ_DRAINED comes well before the local ACK timeout, because entering SQD
 * asks for the ACK at once instead of waiting for the timer to ask.
 */
static int sqd_tail_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (size_t)(TAIL_WRITES + 1) * TAIL_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t);
	struct vt_qp_opts o;
	struct vt_ep ep;
	long long start, ms;
	int i;

	vt_qp_opts_init(t, &o);
	o.timeout = TAIL_TIMEOUT;
	o.sig_all = false;
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL) || vt_put_u64(t, seed))
		return -1;
	vt_fill(b->p, (size_t)(TAIL_WRITES + 1) * TAIL_LEN, seed);
	for (i = 0; i < TAIL_WRITES; i++)
		if (sqd_tail_write(t, &ep, b, i, 0))
			return -1;
	if (vt_sync(t))		/* the server saw the WRITEs land: all were sent */
		return -1;
	start = vt_now_ms();
	if (sqd_modify(t, ep.qp, IBV_QPS_SQD) ||
	    vt_wait_async(t, IBV_EVENT_SQ_DRAINED, ep.qp))
		return -1;
	ms = vt_now_ms() - start;
	vt_note(t, "SQ_DRAINED %lld ms after RTS->SQD (ACK timeout ~4300 ms)", ms);
	if (ms > TAIL_DRAIN_MS)
		return vt_fail(t, "SQ_DRAINED after %lld ms: the unsignaled tail waited for the ACK timeout",
			       ms);
	if (sqd_modify(t, ep.qp, IBV_QPS_RTS) ||
	    sqd_tail_write(t, &ep, b, TAIL_WRITES, IBV_SEND_SIGNALED) ||
	    vt_expect_wc(t, ep.scq, TAIL_WRITES, IBV_WC_SUCCESS, NULL, "WRITE after SQD"))
		return -1;
	return vt_sync(t);
}

/* Wait (up to the case's wait time) until the first len bytes are seed's. */
static int sqd_tail_wait_data(struct vt *t, const struct vt_buf *b, size_t len, uint64_t seed)
{
	unsigned char *want = malloc(len);
	long long end = vt_now_ms() + t->opts->wait_ms;
	int same;

	if (!want)
		return vt_fail(t, "out of memory");
	vt_fill(want, len, seed);
	while (!(same = !memcmp((const void *)b->p, want, len)) && vt_now_ms() < end)
		usleep(1000);
	free(want);
	return same ? 0 : vt_fail(t, "the unsignaled WRITEs did not land within %d ms",
				  t->opts->wait_ms);
}

static int sqd_tail_server(struct vt *t)
{
	size_t len = (size_t)(TAIL_WRITES + 1) * TAIL_LEN;
	struct vt_buf *b = vt_buf(t, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct vt_ep ep;
	uint64_t seed;

	if (!b)
		return -1;
	memset(b->p, GUARD, len);
	if (vt_ep_new(t, &ep) || vt_ep_link(t, &ep, b) || vt_get_u64(t, &seed) ||
	    sqd_tail_wait_data(t, b, (size_t)TAIL_WRITES * TAIL_LEN, seed) || vt_sync(t) ||
	    vt_sync(t))
		return -1;
	return vt_check(t, b->p, len, seed, "data written");
}

/* --- transmit thread idle ------------------------------------------------- */

#define TX_IDLE_MS	1000
#define TX_IDLE_MAX_PCT	50	/* a spinning thread takes ~100%, an idle one ~0% */

/* CPU ticks all sroce transmit threads (kthreads "sroce-tx/DEV") used so far. */
static long tx_thread_ticks(struct vt *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long total = 0;

	if (!d)
		return vt_fail(t, "opendir /proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		char path[300], comm[64] = "";
		unsigned long ut, st;
		FILE *f;
		int ok;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
		ok = fscanf(f, "%*d (%63[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			    comm, &ut, &st) == 3;
		fclose(f);
		if (ok && !strncmp(comm, "sroce-tx/", 9))
			total += (long)(ut + st);
	}
	closedir(d);
	return total;
}

/*
 * The transmit thread must sleep when a wakeup finds nothing it can take:
 * here a QP in INIT, whose SEND was refused (IBA: no send WR before RTS,
 * so nothing waits in its ring), and another QP moved to ERR, which is
 * what wakes the thread. A SEND posted right after RTS, the thread asleep,
 * must then go out: the post has to wake it.
 */
static int tx_idle_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct ibv_sge sg;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct vt_ep ep, waker;
	long before, after, pct;
	int rc;

	vt_qp_opts_init(t, &o);
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_create(t, &waker, &o))
		return -1;
	sg = vt_sge(b, 0, 64);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED);
	vt_fill(b->p, 64, 1);
	rc = ibv_post_send(ep.qp, &wr, &bad);
	if (rc != EINVAL)
		return vt_fail(t, "ibv_post_send in INIT: %s (%d), expected EINVAL", strerror(rc), rc);
	if ((before = tx_thread_ticks(t)) < 0)
		return -1;
	/* Moving another QP to ERR wakes the thread: it must find nothing to do. */
	rc = ibv_modify_qp(waker.qp, &err, IBV_QP_STATE);
	if (rc)
		return vt_fail(t, "modify_qp to ERR: %s", strerror(rc));
	usleep(TX_IDLE_MS * 1000);
	if ((after = tx_thread_ticks(t)) < 0)
		return -1;
	pct = (after - before) * 100 * 1000 / (sysconf(_SC_CLK_TCK) * TX_IDLE_MS);
	vt_note(t, "transmit threads busy %ld%% with one QP in INIT and one in ERR", pct);
	if (pct > TX_IDLE_MAX_PCT)
		return vt_fail(t, "transmit thread busy %ld%% with nothing to send", pct);
	if (vt_ep_link(t, &ep, NULL) || vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_SUCCESS, NULL, "SEND posted right after RTS"))
		return -1;
	return vt_sync(t);
}

static int tx_idle_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	sg = vt_sge(b, 0, 64);
	if (vt_post_recv(t, &ep, 1, &sg, 1) || vt_ep_link(t, &ep, NULL) ||
	    vt_expect_wc(t, ep.rcq, 1, IBV_WC_SUCCESS, &wc, "receive completion"))
		return -1;
	if (wc.byte_len != 64 || vt_check(t, b->p, 64, 1, "received data"))
		return vt_fail(t, "byte_len %u or data wrong", wc.byte_len);
	return vt_sync(t);
}

/* --- MR keys a peer cannot guess ---------------------------------------- */

#define KEY_MRS		65

/*
 * Register KEY_MRS MRs in a row and look at the key byte beside the index:
 * a device whose byte just counts up (one counter for every registration)
 * lets whoever saw one rkey guess the next MR's. A random byte follows its
 * predecessor by one about once in 256.
 */
static int mr_keys_client(struct vt *t)
{
	unsigned int counted = 0, same = 0, i;
	uint8_t prev = 0;

	for (i = 0; i < KEY_MRS; i++) {
		struct vt_buf *b = vt_buf(t, 64, VT_ACCESS_ALL);
		uint8_t byte;

		if (!b)
			return -1;
		byte = b->mr->rkey & 0xff;
		if (i && byte == (uint8_t)(prev + 1))
			counted++;
		if (i && byte == prev)
			same++;
		prev = byte;
	}
	vt_note(t, "%u of %u rkeys' key bytes count up from the previous one, %u repeat it",
		counted, KEY_MRS - 1, same);
	if (counted >= KEY_MRS / 4 || same >= KEY_MRS / 4)
		return vt_fail(t, "rkeys are predictable: %u of %u key bytes count up, %u repeat",
			       counted, KEY_MRS - 1, same);
	return 0;
}

static const enum rereg_kind rereg_access = REREG_ACCESS, rereg_pd = REREG_PD,
			     rereg_translation = REREG_TRANSLATION;

const struct vt_case vt_object_cases[] = {
	{ "mr_keys_unpredictable", "65 MRs registered in a row: their rkeys' key bytes neither count up nor repeat",
	  mr_keys_client, NULL, NULL },
	{ "cq_resize", "resize_cq with CQEs waiting: shrink below them fails, in order after, more traffic",
	  resize_client, resize_server, NULL },
	{ "rereg_access", "rereg_mr to read-only and back: rkey kept, WRITE refused, then allowed",
	  rereg_client, rereg_server, &rereg_access },
	{ "rereg_pd", "rereg_mr to another PD: rkey kept, old PD's QP refused, new PD's QP ok",
	  rereg_client, rereg_server, &rereg_pd },
	{ "rereg_translation", "rereg_mr to a new range: old rkey dead, new range read and written",
	  rereg_client, rereg_server, &rereg_translation },
	{ "sqd", "RTS->SQD: SQ_DRAINED event, nothing runs after it, posts kept; SQD->RTS resumes",
	  sqd_client, sqd_server, NULL },
	{ "sqd_notify_once", "en_sqd_async_notify holds for its own RTS->SQD: a later SQD entry without it gets no SQ_DRAINED",
	  sqd_notify_once_client, sqd_notify_once_server, NULL },
	{ "sqd_rnr", "RTS->SQD while a SEND meets RNR NAKs: not drained (no event, sq_draining 1) until it is resent in SQD and completes",
	  sqd_rnr_client, sqd_rnr_server, NULL },
	{ "sqd_ird_resize", "SQD->SQD raising max_dest_rd_atomic while READs are answered: they complete with the right data",
	  sqd_ird_resize_client, sqd_ird_server, &ird_grown },
	{ "sqd_ird_refused", "SQD->SQD max_dest_rd_atomic with a false cur_qp_state: EINVAL, IRD unchanged, READs complete",
	  sqd_ird_resize_client, sqd_ird_server, &ird_refused },
	{ "sqd_unsignaled_tail", "RTS->SQD after unsignaled WRITEs (no AckReq): SQ_DRAINED well before the ACK timeout, then RTS resumes",
	  sqd_tail_client, sqd_tail_server, NULL },
	{ "tx_idle_before_rts", "a QP in INIT (its SEND refused) and one in ERR keep no transmit thread busy; a SEND right after RTS goes out",
	  tx_idle_client, tx_idle_server, NULL },
	{ NULL },
};
