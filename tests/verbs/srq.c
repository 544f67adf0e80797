// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srq.c - shared receive queues: SENDs from two connections landing byte
 * for byte in one SRQ with the right QP number in each completion, the
 * SRQ limit event once per arming, RNR NAKs while the SRQ is empty, the
 * SRQ's own PD for its receive WQEs, and destroy ordering.
 *
 * The server half owns the SRQ and its QPs; the client half sends. Each
 * message carries its pattern seed as immediate data, so the server can
 * check any receive whatever QP and SRQ slot it came through.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs_test.h"

#define SRQ_QPS		2
#define SRQ_LEN		3000	/* three packets at path MTU 1024 */
#define SRQ_WQES	8

/* The seed of message @i on connection @q: names both. */
static uint32_t srq_seed(int q, int i)
{
	return 1000u * (q + 1) + i;
}

/* @n endpoints; with @srq (server) they receive through it into one CQ. */
static int srq_eps(struct vt *t, struct vt_ep *eps, int n, struct ibv_srq *srq)
{
	struct vt_qp_opts o;
	int i;

	vt_qp_opts_init(t, &o);
	if (srq) {
		o.srq = srq;
		o.rcq = vt_cq(t, 64, NULL);
		if (!o.rcq)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (vt_ep_create(t, &eps[i], &o))
			return -1;
	for (i = 0; i < n; i++)
		if (vt_ep_link(t, &eps[i], NULL))
			return -1;
	return 0;
}

/* Post @n receives of SRQ_LEN into @buf's slots @first..; wr_id = slot. */
static int srq_post(struct vt *t, struct ibv_srq *srq, struct vt_buf *buf,
		    int first, int n)
{
	struct ibv_recv_wr *bad;
	int i, rc;

	for (i = first; i < first + n; i++) {
		struct ibv_sge sge = vt_sge(buf, (size_t)i * SRQ_LEN, SRQ_LEN);
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

		rc = ibv_post_srq_recv(srq, &wr, &bad);
		if (rc)
			return vt_fail(t, "ibv_post_srq_recv %d: %s", i, strerror(rc));
	}
	return 0;
}

/* Send message @i of connection @q (SEND with immediate, its seed). */
static int srq_send(struct vt *t, struct vt_ep *ep, struct vt_buf *buf, int q, int i)
{
	struct ibv_sge sge = vt_sge(buf, 0, SRQ_LEN);
	struct ibv_send_wr wr = vt_wr(IBV_WR_SEND_WITH_IMM, i, &sge, 1, IBV_SEND_SIGNALED);

	vt_fill(buf->p, SRQ_LEN, srq_seed(q, i));
	wr.imm_data = htobe32(srq_seed(q, i));
	return vt_post_send(t, ep, &wr) ||
	       vt_expect_wc(t, ep->scq, i, IBV_WC_SUCCESS, NULL, "send");
}

/* One receive: the QP its seed names, SRQ_LEN bytes of that seed's pattern. */
static int srq_check_recv(struct vt *t, struct vt_ep *eps, struct vt_buf *buf,
			  struct ibv_wc *wc)
{
	uint32_t seed = be32toh(wc->imm_data);
	int q = (int)(seed / 1000) - 1;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    !(wc->wc_flags & IBV_WC_WITH_IMM) || wc->byte_len != SRQ_LEN ||
	    wc->wr_id >= SRQ_WQES)
		return vt_fail(t, "receive wr_id %llu: status %s opcode %d flags %#x len %u",
			       (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
			       wc->opcode, wc->wc_flags, wc->byte_len);
	if (q < 0 || q >= SRQ_QPS || wc->qp_num != eps[q].qp->qp_num)
		return vt_fail(t, "message seed %u came with qp_num %u (QPs %u, %u)", seed,
			       wc->qp_num, eps[0].qp->qp_num, eps[1].qp->qp_num);
	return vt_check(t, buf->p + wc->wr_id * SRQ_LEN, SRQ_LEN, seed, "SRQ receive");
}

static int srq_recv_n(struct vt *t, struct vt_ep *eps, struct vt_buf *buf, int n)
{
	struct ibv_wc wc;

	while (n--)
		if (vt_wait_wc(t, eps[0].rcq, &wc, "SRQ receive") ||
		    srq_check_recv(t, eps, buf, &wc))
			return -1;
	return 0;
}

static int srq_arm(struct vt *t, struct ibv_srq *srq, uint32_t limit)
{
	struct ibv_srq_attr a = { .srq_limit = limit };
	int rc = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);

	return rc ? vt_fail(t, "ibv_modify_srq(limit %u): %s", limit, strerror(rc)) : 0;
}

/*
 * The server's side: an SRQ with @posted receives and, if @limit, armed
 * with it - before the link, after which the client may send at once -
 * then @n QPs on it, linked.
 */
struct srq_server {
	struct vt_buf *buf;
	struct ibv_srq *srq;
	struct vt_ep eps[SRQ_QPS];
};

static int srq_server_up(struct vt *t, struct srq_server *s, int n, int posted,
			 uint32_t limit)
{
	s->buf = vt_buf(t, SRQ_WQES * SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	s->srq = vt_srq(t, SRQ_WQES, 1);
	if (!s->buf || !s->srq || srq_post(t, s->srq, s->buf, 0, posted) ||
	    (limit && srq_arm(t, s->srq, limit)))
		return -1;
	return srq_eps(t, s->eps, n, s->srq);
}

/* --- two QPs, one SRQ ----------------------------------------------------- */

static int two_qps_client(struct vt *t)
{
	struct vt_buf *buf = vt_buf(t, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep eps[SRQ_QPS];
	int i;

	if (!buf || srq_eps(t, eps, SRQ_QPS, NULL))
		return -1;
	/* Interleaved: both connections' messages share the SRQ in turn. */
	for (i = 0; i < SRQ_WQES / SRQ_QPS; i++)
		if (srq_send(t, &eps[0], buf, 0, i) || srq_send(t, &eps[1], buf, 1, i))
			return -1;
	return vt_sync(t);
}

static int two_qps_server(struct vt *t)
{
	struct srq_server s;

	if (srq_server_up(t, &s, SRQ_QPS, SRQ_WQES, 0))
		return -1;
	return srq_recv_n(t, s.eps, s.buf, SRQ_WQES) || vt_sync(t) ? -1 : 0;
}

/* --- the limit event ---------------------------------------------------- */

/* No SRQ_LIMIT_REACHED event (others are passed over) within @ms. */
static int srq_expect_no_limit_event(struct vt *t, int ms)
{
	struct ibv_context *ctx = t->dev->ctx;
	struct ibv_async_event ev;
	int rc, bad;

	for (;;) {
		rc = vt_wait_fd(t, ctx->async_fd, ms);
		if (rc <= 0)
			return rc;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		bad = ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED;
		ibv_ack_async_event(&ev);
		if (bad)
			return vt_fail(t, "a second SRQ limit event for one arming");
	}
}

static int srq_expect_limit(struct vt *t, struct ibv_srq *srq, uint32_t limit)
{
	struct ibv_srq_attr a;
	int rc = ibv_query_srq(srq, &a);

	if (rc)
		return vt_fail(t, "ibv_query_srq: %s", strerror(rc));
	if (a.srq_limit != limit || a.max_wr < SRQ_WQES)
		return vt_fail(t, "SRQ limit %u max_wr %u, expected limit %u", a.srq_limit,
			       a.max_wr, limit);
	return 0;
}

/*
 * 8 posted, armed at 6: the third receive leaves 5 and fires it, the fourth
 * does not again. Armed at 3 with 4 left: the fifth leaves 3 (not below),
 * the sixth leaves 2 and fires it.
 */
static const int limit_sends[] = { 4, 1, 1 };

static int limit_client(struct vt *t)
{
	struct vt_buf *buf = vt_buf(t, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;
	int i, j, n = 0;

	if (!buf || srq_eps(t, &ep, 1, NULL))
		return -1;
	for (i = 0; i < 3; i++) {
		for (j = 0; j < limit_sends[i]; j++)
			if (srq_send(t, &ep, buf, 0, n++))
				return -1;
		if (vt_sync(t) || vt_sync(t))
			return -1;
	}
	return 0;
}

static int limit_server(struct vt *t)
{
	struct srq_server s;
	struct ibv_srq *srq;

	if (srq_server_up(t, &s, 1, SRQ_WQES, 6))
		return -1;
	srq = s.srq;
	/* Four receives: one event, and the limit reads 0 (disarmed). */
	if (srq_recv_n(t, s.eps, s.buf, 4) || vt_sync(t) ||
	    vt_wait_async(t, IBV_EVENT_SRQ_LIMIT_REACHED, srq) ||
	    srq_expect_no_limit_event(t, 200) || srq_expect_limit(t, srq, 0))
		return -1;
	if (srq_arm(t, srq, 3) || vt_sync(t))
		return -1;
	/* Fifth: 3 left, not below 3. */
	if (srq_recv_n(t, s.eps, s.buf, 1) || vt_sync(t) || srq_expect_no_limit_event(t, 200) ||
	    srq_expect_limit(t, srq, 3) || vt_sync(t))
		return -1;
	/* Sixth: 2 left, fired and disarmed. */
	return srq_recv_n(t, s.eps, s.buf, 1) || vt_sync(t) ||
	       vt_wait_async(t, IBV_EVENT_SRQ_LIMIT_REACHED, srq) ||
	       srq_expect_limit(t, srq, 0) || vt_sync(t) ? -1 : 0;
}

/* --- RNR while the SRQ is empty -------------------------------------------- */

static int rnr_client(struct vt *t)
{
	struct vt_buf *buf = vt_buf(t, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	/* rnr_retry 7: the send waits for the receive however long it takes. */
	if (!buf || srq_eps(t, &ep, 1, NULL) || srq_send(t, &ep, buf, 0, 0))
		return -1;
	return vt_sync(t);
}

static int rnr_server(struct vt *t)
{
	struct srq_server s;

	/* Nothing posted: the SEND is RNR-NAKed and nothing completes. */
	if (srq_server_up(t, &s, 1, 0, 0) ||
	    vt_expect_no_wc(t, s.eps[0].rcq, 300, "empty SRQ"))
		return -1;
	if (srq_post(t, s.srq, s.buf, 0, 1) || srq_recv_n(t, s.eps, s.buf, 1))
		return -1;
	return vt_sync(t);
}

/* --- the SRQ's PD ---------------------------------------------------------- */

/* Message 0 lands; message 1 meets a receive its SRQ's PD does not own. */
static int srq_pd_client(struct vt *t)
{
	struct vt_buf *buf = vt_buf(t, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct vt_ep ep;

	if (!buf || srq_eps(t, &ep, 1, NULL) || srq_send(t, &ep, buf, 0, 0) || vt_sync(t))
		return -1;
	sge = vt_sge(buf, 0, SRQ_LEN);
	wr = vt_wr(IBV_WR_SEND_WITH_IMM, 1, &sge, 1, IBV_SEND_SIGNALED);
	wr.imm_data = htobe32(srq_seed(0, 1));
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_REM_OP_ERR, NULL, "SEND into a foreign lkey"))
		return -1;
	return vt_sync(t);
}

/*
 * The SRQ and its buffer on a PD of their own, the QP on the test's: a
 * receive WQE belongs to its SRQ, so its lkeys are checked against the
 * SRQ's PD. An MR of that PD receives; an MR of the QP's PD is a local
 * protection error (the sender sees a remote operational error).
 */
static int srq_pd_server(struct vt *t)
{
	struct ibv_pd *srq_pd = vt_pd(t);
	struct vt_buf *mine = srq_pd ? vt_buf_pd(t, srq_pd, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct vt_buf *qps = vt_buf(t, SRQ_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_srq *srq = srq_pd ? vt_srq_pd(t, srq_pd, SRQ_WQES, 1) : NULL;
	struct vt_ep ep;

	if (!mine || !qps || !srq || srq_post(t, srq, mine, 0, 1) || srq_eps(t, &ep, 1, srq))
		return -1;
	if (vt_expect_wc(t, ep.rcq, 0, IBV_WC_SUCCESS, NULL, "receive into the SRQ's PD") ||
	    vt_check(t, mine->p, SRQ_LEN, srq_seed(0, 0), "SRQ receive") || vt_sync(t))
		return -1;
	if (srq_post(t, srq, qps, 0, 1) ||
	    vt_expect_wc(t, ep.rcq, 0, IBV_WC_LOC_PROT_ERR, NULL, "receive into the QP's PD"))
		return -1;
	return vt_sync(t);
}

/* --- destroy ordering ------------------------------------------------------ */

static int destroy_busy_client(struct vt *t)
{
	(void)t;
	return 0;
}

/* An SRQ a QP uses cannot go (EBUSY); after the QP it can. */
static int destroy_busy_server(struct vt *t)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(t->pd, &sa);
	struct ibv_cq *cq = vt_cq(t, 8, NULL);
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct ibv_qp *qp;
	int rc, bad = 0;

	if (!srq)
		return vt_fail(t, "ibv_create_srq: %s", strerror(errno));
	qp = cq ? vt_qp(t, t->pd, &qa) : NULL;
	rc = qp ? ibv_destroy_srq(srq) : EBUSY;
	if (rc != EBUSY)
		return vt_fail(t, "ibv_destroy_srq with a QP on it: %s, expected EBUSY",
			       strerror(rc));
	if (!qp || vt_destroy(t, qp))
		bad = -1;
	rc = ibv_destroy_srq(srq);
	if (rc)
		return vt_fail(t, "ibv_destroy_srq after its QP: %s", strerror(rc));
	return bad;
}

const struct vt_case vt_srq_cases[] = {
	{ "srq_two_qps", "SENDs on two QPs into one SRQ: byte-exact, qp_num of each",
	  two_qps_client, two_qps_server, NULL },
	{ "srq_limit_event", "SRQ limit: one event per arming, srq_limit 0 after",
	  limit_client, limit_server, NULL },
	{ "srq_rnr_empty", "empty SRQ: RNR, no completion; a post lets the SEND in",
	  rnr_client, rnr_server, NULL },
	{ "srq_pd", "SRQ receive WQEs use the SRQ's PD, not the QP's",
	  srq_pd_client, srq_pd_server, NULL },
	{ "srq_destroy_busy", "destroy_srq with a QP on it: EBUSY; after the QP: ok",
	  destroy_busy_client, destroy_busy_server, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
