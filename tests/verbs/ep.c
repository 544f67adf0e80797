// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One RC QP with its CQs ("endpoint"), the exchange of QP numbers, PSNs,
 * GIDs and exposed memory with the peer, the RESET -> INIT -> RTR -> RTS
 * walk, and the post/poll helpers every case uses.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs_test.h"

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

void vt_qp_opts_init(struct vt *t, struct vt_qp_opts *o)
{
	const struct ibv_device_attr *a = &t->dev->attr;

	*o = (struct vt_qp_opts) {
		.max_send_wr = 64,
		.max_recv_wr = 64,
		.max_send_sge = 4,
		.max_recv_sge = 4,
		.cqe = 256,
		.mtu = IBV_MTU_1024,
		.timeout = t->opts->qp_timeout,	/* 4.096 us * 2^N; 14: 67 ms */
		.retry_cnt = 7,
		.rnr_retry = 7,		/* retry forever */
		.min_rnr_timer = 1,	/* 0.01 ms */
		.max_rd_atomic = min_u(4, min_u(a->max_qp_rd_atom, a->max_qp_init_rd_atom)),
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.sig_all = true,
		.uc = t->opts->uc,
	};
}

static int modify(struct vt *t, struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *what)
{
	int rc = ibv_modify_qp(qp, a, mask);

	return rc ? vt_fail(t, "modify_qp to %s: %s", what, strerror(rc < 0 ? errno : rc)) : 0;
}

/* The attributes and mask of a valid move to INIT, RTR and RTS. */
int vt_attr_init(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	*a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_INIT,
		.port_num = t->dev->port,
		.qp_access_flags = ep->o.access,
	};
	return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
}

int vt_attr_rtr(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	*a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = ep->o.mtu,
		.dest_qp_num = ep->peer.qpn,
		.rq_psn = ep->peer.psn,
		.max_dest_rd_atomic = ep->o.max_rd_atomic,
		.min_rnr_timer = ep->o.min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.port_num = t->dev->port,
			.grh = {
				.sgid_index = t->dev->gid_index,
				.hop_limit = 64,
			},
		},
	};
	memcpy(a->ah_attr.grh.dgid.raw, ep->peer.gid, sizeof(ep->peer.gid));
	if (ep->o.uc)
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN;
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

int vt_attr_rts(const struct vt_ep *ep, struct ibv_qp_attr *a)
{
	*a = (struct ibv_qp_attr) {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = ep->me.psn,
		.timeout = ep->o.timeout,
		.retry_cnt = ep->o.retry_cnt,
		.rnr_retry = ep->o.rnr_retry,
		.max_rd_atomic = ep->o.max_rd_atomic,
	};
	if (ep->o.uc)
		return IBV_QP_STATE | IBV_QP_SQ_PSN;
	return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

static int to_init(struct vt *t, struct vt_ep *ep)
{
	struct ibv_qp_attr a;
	int mask = vt_attr_init(t, ep, &a);

	return modify(t, ep->qp, &a, mask, "INIT");
}

/* The CQs the options do not provide: plain, or extended with o->wc_flags. */
static int create_cqs(struct vt *t, struct vt_ep *ep, const struct vt_qp_opts *o)
{
	if (o->wc_flags && !o->scq && !o->rcq) {
		ep->scqx = vt_cq_ex(t, o->cqe, NULL, o->wc_flags);
		ep->rcqx = vt_cq_ex(t, o->cqe, o->rchannel, o->wc_flags);
		if (!ep->scqx || !ep->rcqx)
			return -1;
		ep->scq = ibv_cq_ex_to_cq(ep->scqx);
		ep->rcq = ibv_cq_ex_to_cq(ep->rcqx);
		return 0;
	}
	ep->scq = o->scq ?: vt_cq(t, o->cqe, NULL);
	ep->rcq = o->rcq ?: vt_cq(t, o->cqe, o->rchannel);
	return ep->scq && ep->rcq ? 0 : -1;
}

/* ibv_create_qp, or ibv_create_qp_ex when o->send_ops_flags asks for it. */
static struct ibv_qp *create_qp(struct vt *t, struct vt_ep *ep, struct ibv_qp_init_attr *ia)
{
	struct ibv_qp_init_attr_ex iax = {
		.qp_context = ia->qp_context, .send_cq = ia->send_cq, .recv_cq = ia->recv_cq,
		.cap = ia->cap, .qp_type = ia->qp_type, .sq_sig_all = ia->sq_sig_all,
		.srq = ia->srq,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = ep->o.pd ?: t->pd, .send_ops_flags = ep->o.send_ops_flags,
	};
	struct ibv_qp *qp;

	if (!ep->o.send_ops_flags)
		return vt_qp(t, ep->o.pd ?: t->pd, ia);
	qp = vt_qp_ex(t, &iax);
	if (!qp)
		return NULL;
	ia->cap = iax.cap;
	ep->qpx = ibv_qp_to_qp_ex(qp);
	if (!ep->qpx)
		vt_fail(t, "ibv_qp_to_qp_ex returned NULL");
	return ep->qpx ? qp : NULL;
}

/* Create the CQs the options do not provide, the QP, and move it to INIT. */
int vt_ep_create(struct vt *t, struct vt_ep *ep, const struct vt_qp_opts *o)
{
	struct ibv_qp_init_attr ia = { .qp_type = o->uc ? IBV_QPT_UC : IBV_QPT_RC };

	memset(ep, 0, sizeof(*ep));
	ep->o = *o;
	if (create_cqs(t, ep, o))
		return -1;
	ia.send_cq = ep->scq;
	ia.recv_cq = ep->rcq;
	ia.sq_sig_all = o->sig_all;
	ia.srq = o->srq;
	ia.cap = (struct ibv_qp_cap) {
		.max_send_wr = o->max_send_wr, .max_recv_wr = o->max_recv_wr,
		.max_send_sge = o->max_send_sge, .max_recv_sge = o->max_recv_sge,
		.max_inline_data = o->max_inline,
	};
	ep->qp = create_qp(t, ep, &ia);
	if (!ep->qp)
		return -1;
	ep->o.max_inline = ia.cap.max_inline_data;	/* what we got */
	ep->me.qpn = ep->qp->qp_num;
	ep->me.psn = vt_rand(t) & 0xffffff;
	memcpy(ep->me.gid, t->dev->gid.raw, sizeof(ep->me.gid));
	return o->reset_only ? 0 : to_init(t, ep);
}

/* Tell the peer about our QP (and the memory we expose), learn about its. */
int vt_ep_exchange(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose)
{
	struct vt_info m = ep->me, p;

	if (expose) {
		ep->me.addr = (uintptr_t)expose->p;
		ep->me.rkey = expose->mr->rkey;
		ep->me.len = expose->len;
	}
	m = ep->me;
	m.qpn = htobe32(m.qpn);
	m.psn = htobe32(m.psn);
	m.addr = htobe64(m.addr);
	m.rkey = htobe32(m.rkey);
	m.len = htobe32(m.len);
	if (vt_put(t, &m, sizeof(m)) || vt_get(t, &p, sizeof(p)))
		return -1;
	ep->peer = p;
	ep->peer.qpn = be32toh(p.qpn);
	ep->peer.psn = be32toh(p.psn);
	ep->peer.addr = be64toh(p.addr);
	ep->peer.rkey = be32toh(p.rkey);
	ep->peer.len = be32toh(p.len);
	return 0;
}

static int to_rtr(struct vt *t, struct vt_ep *ep)
{
	struct ibv_qp_attr a;
	int mask = vt_attr_rtr(t, ep, &a);

	return modify(t, ep->qp, &a, mask, "RTR");
}

static int to_rts(struct vt *t, struct vt_ep *ep)
{
	struct ibv_qp_attr a;
	int mask = vt_attr_rts(ep, &a);

	return modify(t, ep->qp, &a, mask, "RTS");
}

int vt_ep_connect(struct vt *t, struct vt_ep *ep)
{
	return to_rtr(t, ep) || to_rts(t, ep) ? -1 : 0;
}

/* Exchange, connect, and wait until the peer is connected too: nothing
 * either side sends after this can find the other one not ready. */
int vt_ep_link(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose)
{
	return vt_ep_exchange(t, ep, expose) || vt_ep_connect(t, ep) || vt_sync(t) ? -1 : 0;
}

/* An endpoint with the default options, in INIT. */
int vt_ep_new(struct vt *t, struct vt_ep *ep)
{
	struct vt_qp_opts o;

	vt_qp_opts_init(t, &o);
	return vt_ep_create(t, ep, &o);
}

/* Default options, create, link: the endpoint most cases want. */
int vt_ep_up(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose)
{
	struct vt_qp_opts o;

	vt_qp_opts_init(t, &o);
	return vt_ep_create(t, ep, &o) || vt_ep_link(t, ep, expose) ? -1 : 0;
}

/* The same conversation as vt_ep_link, but our QP stays in INIT. */
int vt_ep_open(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose)
{
	return vt_ep_exchange(t, ep, expose) || vt_sync(t) ? -1 : 0;
}

int vt_modify_err(struct vt *t, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return modify(t, qp, &a, IBV_QP_STATE, "ERR");
}

struct ibv_sge vt_sge(const struct vt_buf *b, size_t off, uint32_t len)
{
	return (struct ibv_sge) {
		.addr = (uintptr_t)b->p + off, .length = len, .lkey = b->mr->lkey,
	};
}

struct ibv_send_wr vt_wr(enum ibv_wr_opcode op, uint64_t wr_id, struct ibv_sge *sg,
			 int nsge, unsigned int flags)
{
	return (struct ibv_send_wr) {
		.wr_id = wr_id, .sg_list = sg, .num_sge = nsge, .opcode = op,
		.send_flags = flags,
	};
}

/* Aim an RDMA or atomic WR at the peer's exposed memory, off bytes in. */
void vt_wr_remote(struct ibv_send_wr *wr, const struct vt_ep *ep, uint64_t off)
{
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr->wr.atomic.remote_addr = ep->peer.addr + off;
		wr->wr.atomic.rkey = ep->peer.rkey;
	} else {
		wr->wr.rdma.remote_addr = ep->peer.addr + off;
		wr->wr.rdma.rkey = ep->peer.rkey;
	}
}

int vt_post_send(struct vt *t, struct vt_ep *ep, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(ep->qp, wr, &bad);

	if (rc)
		return vt_fail(t, "ibv_post_send (wr_id %llu): %s",
			       bad ? (unsigned long long)bad->wr_id : 0ULL, strerror(rc));
	return 0;
}

int vt_post_recv(struct vt *t, struct vt_ep *ep, uint64_t wr_id, struct ibv_sge *sg, int nsge)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = nsge }, *bad;
	int rc = ibv_post_recv(ep->qp, &wr, &bad);

	return rc ? vt_fail(t, "ibv_post_recv (wr_id %llu): %s",
			    (unsigned long long)wr_id, strerror(rc)) : 0;
}

long long vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Poll until ms have passed: 1 = a completion, 0 = none, -1 = poll error. */
static int poll_for(struct vt *t, struct ibv_cq *cq, struct ibv_wc *wc, int ms, const char *what)
{
	long long end = vt_now_ms() + ms;
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0 ? 1 : vt_fail(t, "%s: ibv_poll_cq returned %d", what, n);
		if (vt_now_ms() >= end)
			return 0;
		/* Spin briefly, then yield: a software device under emulation
		 * needs the CPU we would burn. */
		if (++spins > 1000)
			usleep(50);
	}
}

int vt_wait_wc(struct vt *t, struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	int rc = poll_for(t, cq, wc, t->opts->wait_ms, what);

	if (rc == 0)
		return vt_fail(t, "%s: no completion within %d ms", what, t->opts->wait_ms);
	return rc < 0 ? -1 : 0;
}

/* Wait for the next completion and check its status (and wr_id). */
int vt_expect_wc(struct vt *t, struct ibv_cq *cq, uint64_t wr_id,
		 enum ibv_wc_status status, struct ibv_wc *wc, const char *what)
{
	struct ibv_wc tmp;

	if (!wc)
		wc = &tmp;
	if (vt_wait_wc(t, cq, wc, what))
		return -1;
	if (wc->status != status)
		return vt_fail(t, "%s: status %s (vendor_err 0x%x), expected %s", what,
			       ibv_wc_status_str(wc->status), wc->vendor_err,
			       ibv_wc_status_str(status));
	if (wr_id != VT_ANY_WR_ID && wc->wr_id != wr_id)
		return vt_fail(t, "%s: wr_id %llu, expected %llu", what,
			       (unsigned long long)wc->wr_id, (unsigned long long)wr_id);
	return 0;
}

int vt_expect_no_wc(struct vt *t, struct ibv_cq *cq, int ms, const char *what)
{
	struct ibv_wc wc;
	int rc = poll_for(t, cq, &wc, ms, what);

	if (rc > 0)
		return vt_fail(t, "%s: unexpected completion wr_id %llu status %s", what,
			       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	return rc;
}

int vt_qp_state(struct vt *t, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);

	if (rc)
		return vt_fail(t, "ibv_query_qp: %s", strerror(rc < 0 ? errno : rc));
	return a.qp_state;
}

static const char *const state_names[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT", [IBV_QPS_RTR] = "RTR",
	[IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
	[IBV_QPS_ERR] = "ERR", [IBV_QPS_UNKNOWN] = "UNKNOWN",
};

static const char *state_name(int st)
{
	if (st < 0 || st > IBV_QPS_UNKNOWN || !state_names[st])
		return "?";
	return state_names[st];
}

/* The QP reaches state st within ms (errors move QPs asynchronously). */
int vt_expect_state(struct vt *t, struct ibv_qp *qp, enum ibv_qp_state st, int ms,
		    const char *what)
{
	long long end = vt_now_ms() + ms;
	int cur;

	for (;;) {
		cur = vt_qp_state(t, qp);
		if (cur < 0 || cur == (int)st)
			return cur < 0 ? -1 : 0;
		if (vt_now_ms() >= end)
			return vt_fail(t, "%s: QP state %s, expected %s", what,
				       state_name(cur), state_name(st));
		usleep(10 * 1000);
	}
}
