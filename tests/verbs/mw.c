// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows: type 1 (ibv_bind_mw) and type 2 (IBV_WR_BIND_MW,
 * ibv_wr_bind_mw) windows bound by the server half over part of an MR,
 * remote WRITE and READ through them byte for byte, local and remote
 * invalidation, and every rule of a bind or an access through a window
 * with the error it must give: the bind's completion status, the verb's
 * errno, or the requester's IBV_WC_REM_ACCESS_ERR with the memory intact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

#define GUARD		0xa5
#define MR_LEN		8192
#define WIN_OFF		1024	/* the window inside the MR */
#define WIN_LEN		4096
#define STATE_MS	5000
#define WR_BIND		100
#define WR_INV		101
#define WR_OP		1

#define MW_MR_ACCESS	(VT_ACCESS_ALL | IBV_ACCESS_MW_BIND)
#define MW_RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* How the server binds its window. */
enum mw_how {
	MW_POST,	/* type 2, ibv_post_send(IBV_WR_BIND_MW) */
	MW_EX,		/* type 2, ibv_wr_bind_mw() */
	MW_TYPE1,	/* type 1, ibv_bind_mw() */
	MW_UNBOUND,	/* type 2, allocated and never bound */
};

#define MW_SEND_OPS	(IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV | \
			 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV | \
			 IBV_QP_EX_WITH_RDMA_WRITE)

struct mw_win {
	struct vt_buf *b;
	struct ibv_mw *mw;
	uint32_t rkey;
};

static enum ibv_mw_type mw_type(enum mw_how how)
{
	return how == MW_TYPE1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;
}

static int mw_ep(struct vt *t, struct vt_ep *ep, enum mw_how how)
{
	struct vt_qp_opts o;

	vt_qp_opts_init(t, &o);
	if (how == MW_EX)
		o.send_ops_flags = MW_SEND_OPS;
	return vt_ep_create(t, ep, &o) || vt_ep_link(t, ep, NULL) ? -1 : 0;
}

static struct ibv_mw_bind_info mw_info(struct ibv_mr *mr, uint64_t addr, uint64_t len,
				       unsigned int access)
{
	return (struct ibv_mw_bind_info) {
		.mr = mr, .addr = addr, .length = len, .mw_access_flags = access,
	};
}

/*
 * Post the bind of @mw, @how, with @info; the window's new rkey in *@rkey.
 * Return: 0 posted, else the verb's errno (not a failure by itself).
 */
static int mw_post_bind(struct vt_ep *ep, struct ibv_mw *mw, enum mw_how how,
			const struct ibv_mw_bind_info *info, uint32_t *rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = WR_BIND, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_mw_bind bind = {
		.wr_id = WR_BIND, .send_flags = IBV_SEND_SIGNALED, .bind_info = *info,
	};
	int rc;

	switch (how) {
	case MW_TYPE1:
		rc = ibv_bind_mw(ep->qp, mw, &bind);
		*rkey = mw->rkey;
		return rc;
	case MW_EX:
		*rkey = ibv_inc_rkey(mw->rkey);
		ibv_wr_start(ep->qpx);
		ep->qpx->wr_id = WR_BIND;
		ep->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(ep->qpx, mw, *rkey, info);
		return ibv_wr_complete(ep->qpx);
	default:
		*rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = *rkey;
		wr.bind_mw.bind_info = *info;
		return ibv_post_send(ep->qp, &wr, &bad);
	}
}

/* Bind and expect the completion with @status (IBV_WC_BIND_MW if it worked). */
static int mw_bind_expect(struct vt *t, struct vt_ep *ep, struct ibv_mw *mw, enum mw_how how,
			  const struct ibv_mw_bind_info *info, uint32_t *rkey,
			  enum ibv_wc_status status)
{
	struct ibv_wc wc;
	int rc = mw_post_bind(ep, mw, how, info, rkey);

	if (rc)
		return vt_fail(t, "posting the bind: %s", strerror(rc));
	if (vt_expect_wc(t, ep->scq, WR_BIND, status, &wc, "bind"))
		return -1;
	if (status == IBV_WC_SUCCESS && wc.opcode != IBV_WC_BIND_MW)
		return vt_fail(t, "bind completed with opcode %d, expected IBV_WC_BIND_MW",
			       wc.opcode);
	return 0;
}

static int mw_local_inv(struct vt *t, struct vt_ep *ep, uint32_t rkey, enum ibv_wc_status status)
{
	struct ibv_send_wr wr = {
		.wr_id = WR_INV, .opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = rkey,
	}, *bad;
	struct ibv_wc wc;
	int rc = ibv_post_send(ep->qp, &wr, &bad);

	if (rc)
		return vt_fail(t, "posting LOCAL_INV: %s", strerror(rc));
	if (vt_expect_wc(t, ep->scq, WR_INV, status, &wc, "LOCAL_INV"))
		return -1;
	if (status == IBV_WC_SUCCESS && wc.opcode != IBV_WC_LOCAL_INV)
		return vt_fail(t, "LOCAL_INV completed with opcode %d", wc.opcode);
	return 0;
}

/*
 * Server: an MR with @mr_access, a window over [WIN_OFF, WIN_OFF + @len)
 * with @access bound on ep's QP, @how, then the window told to the client
 * (address, rkey, length).
 */
static int mw_serve(struct vt *t, struct vt_ep *ep, struct mw_win *w, enum mw_how how,
		    unsigned int access, uint64_t len)
{
	struct ibv_mw_bind_info info;
	uint32_t alloc_rkey;

	w->b = vt_buf(t, MR_LEN, MW_MR_ACCESS);
	if (!w->b || mw_ep(t, ep, how))
		return -1;
	memset(w->b->p, GUARD, MR_LEN);
	w->mw = vt_mw(t, t->pd, mw_type(how));
	if (!w->mw)
		return -1;
	w->rkey = w->mw->rkey;
	alloc_rkey = w->rkey;
	info = mw_info(w->b->mr, (uintptr_t)w->b->p + WIN_OFF, len, access);
	if (how != MW_UNBOUND &&
	    mw_bind_expect(t, ep, w->mw, how, &info, &w->rkey, IBV_WC_SUCCESS))
		return -1;
	/* ibv_bind_mw() gives a type 1 window its next key, same index. */
	if (how == MW_TYPE1 && (w->rkey != w->mw->rkey ||
				w->rkey != ibv_inc_rkey(alloc_rkey)))
		return vt_fail(t, "type 1 bind: rkey 0x%x after 0x%x", w->rkey, alloc_rkey);
	return vt_put_u64(t, (uintptr_t)w->b->p + WIN_OFF) || vt_put_u64(t, w->rkey) ||
	       vt_put_u64(t, len);
}

/* Client: its endpoint, a local buffer, the server's window. */
static int mw_client(struct vt *t, struct vt_ep *ep, struct vt_buf **b, uint64_t *addr,
		     uint32_t *rkey)
{
	uint64_t k, len;

	*b = vt_buf(t, 2 * WIN_LEN, VT_ACCESS_ALL);
	if (!*b || vt_ep_up(t, ep, NULL) || vt_get_u64(t, addr) || vt_get_u64(t, &k) ||
	    vt_get_u64(t, &len))
		return -1;
	*rkey = k;
	return 0;
}

static int mw_rdma(struct vt *t, struct vt_ep *ep, enum ibv_wr_opcode op, struct vt_buf *b,
		   size_t off, uint32_t len, uint64_t addr, uint32_t rkey,
		   enum ibv_wc_status status)
{
	struct ibv_sge sg = vt_sge(b, off, len);
	struct ibv_send_wr wr = vt_wr(op, WR_OP, &sg, 1, IBV_SEND_SIGNALED);

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	return vt_post_send(t, ep, &wr) ||
	       vt_expect_wc(t, ep->scq, WR_OP, status, NULL,
			    op == IBV_WR_RDMA_READ ? "READ through the window" :
						     "WRITE through the window");
}

/* --- through a window, byte for byte ------------------------------------- */

/*
 * WRITE the whole window, READ it back into the other half: both exact.
 * The client's seed goes to the server: across hosts the two processes
 * have seeds of their own.
 */
static int rw_client(struct vt *t)
{
	uint64_t seed = t->opts->seed ^ 0x3d3d, addr;
	struct vt_buf *b;
	struct vt_ep ep;
	uint32_t rkey;

	if (mw_client(t, &ep, &b, &addr, &rkey) || vt_put_u64(t, seed))
		return -1;
	vt_fill(b->p, WIN_LEN, seed);
	if (mw_rdma(t, &ep, IBV_WR_RDMA_WRITE, b, 0, WIN_LEN, addr, rkey, IBV_WC_SUCCESS) ||
	    mw_rdma(t, &ep, IBV_WR_RDMA_READ, b, WIN_LEN, WIN_LEN, addr, rkey, IBV_WC_SUCCESS) ||
	    vt_check(t, b->p + WIN_LEN, WIN_LEN, seed, "READ back through the window"))
		return -1;
	return vt_sync(t);
}

static int rw_server(struct vt *t)
{
	enum mw_how how = *(const enum mw_how *)t->arg;
	struct mw_win w;
	struct vt_ep ep;
	uint64_t seed;

	if (mw_serve(t, &ep, &w, how, MW_RW, WIN_LEN) || vt_get_u64(t, &seed) || vt_sync(t))
		return -1;
	return vt_check_byte(t, w.b->p, WIN_OFF, GUARD, "MR before the window") ||
	       vt_check(t, w.b->p + WIN_OFF, WIN_LEN, seed, "the window") ||
	       vt_check_byte(t, w.b->p + WIN_OFF + WIN_LEN, MR_LEN - WIN_OFF - WIN_LEN, GUARD,
			     "MR after the window");
}

static const enum mw_how how_post = MW_POST, how_ex = MW_EX, how_type1 = MW_TYPE1;

/* --- invalidation --------------------------------------------------------- */

/* One WRITE works, the server invalidates, the next is a remote access error. */
static int inv_client(struct vt *t)
{
	bool remote = *(const bool *)t->arg;
	uint64_t addr;
	struct vt_buf *b;
	struct vt_ep ep;
	uint32_t rkey;

	if (mw_client(t, &ep, &b, &addr, &rkey))
		return -1;
	memset(b->p, 0x11, WIN_LEN);
	if (mw_rdma(t, &ep, IBV_WR_RDMA_WRITE, b, 0, 64, addr, rkey, IBV_WC_SUCCESS) ||
	    vt_sync(t))
		return -1;
	if (remote) {
		struct ibv_sge sg = vt_sge(b, 0, 16);
		struct ibv_send_wr wr = vt_wr(IBV_WR_SEND_WITH_INV, 7, &sg, 1, IBV_SEND_SIGNALED);

		wr.invalidate_rkey = rkey;
		if (vt_post_send(t, &ep, &wr) ||
		    vt_expect_wc(t, ep.scq, 7, IBV_WC_SUCCESS, NULL, "SEND_WITH_INV"))
			return -1;
	}
	if (vt_sync(t))
		return -1;
	memset(b->p, 0x22, WIN_LEN);
	if (mw_rdma(t, &ep, IBV_WR_RDMA_WRITE, b, 0, 64, addr, rkey, IBV_WC_REM_ACCESS_ERR))
		return -1;
	return vt_sync(t);
}

static int inv_server(struct vt *t)
{
	bool remote = *(const bool *)t->arg;
	struct vt_buf *rb = vt_buf(t, 64, VT_ACCESS_ALL);
	struct mw_win w;
	struct ibv_wc wc;
	struct vt_ep ep;
	struct ibv_sge sg;

	if (!rb || mw_serve(t, &ep, &w, MW_POST, MW_RW, WIN_LEN))
		return -1;
	sg = vt_sge(rb, 0, 64);
	if ((remote && vt_post_recv(t, &ep, 9, &sg, 1)) || vt_sync(t))
		return -1;
	if (remote) {
		if (vt_expect_wc(t, ep.rcq, 9, IBV_WC_SUCCESS, &wc, "receive of SEND_WITH_INV"))
			return -1;
		if (!(wc.wc_flags & IBV_WC_WITH_INV) || wc.invalidated_rkey != w.rkey)
			return vt_fail(t, "receive: wc_flags 0x%x invalidated_rkey 0x%x, expected WITH_INV of 0x%x",
				       wc.wc_flags, wc.invalidated_rkey, w.rkey);
	} else if (mw_local_inv(t, &ep, w.rkey, IBV_WC_SUCCESS)) {
		return -1;
	}
	if (vt_sync(t) || vt_sync(t))
		return -1;
	return vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "responder") ||
	       vt_check_byte(t, w.b->p + WIN_OFF, 64, 0x11, "window after the refused WRITE");
}

static const bool local = false, remote = true;

/*
 * Client alone: its endpoint, an MR with MW_BIND and a window of @type
 * on the case's PD, *@info a bind over the MR's first WIN_LEN bytes.
 */
static struct ibv_mw *mw_own(struct vt *t, struct vt_ep *ep, enum ibv_mw_type type,
			     struct vt_buf **b, struct ibv_mw_bind_info *info)
{
	*b = vt_buf(t, MR_LEN, MW_MR_ACCESS);
	if (!*b || vt_ep_up(t, ep, NULL))
		return NULL;
	*info = mw_info((*b)->mr, (uintptr_t)(*b)->p, WIN_LEN, MW_RW);
	return vt_mw(t, t->pd, type);
}

/* After LOCAL_INV a type 2 window binds again, under a new key. */
static int rebind_client(struct vt *t)
{
	struct ibv_mw_bind_info info;
	struct vt_buf *b;
	struct ibv_mw *mw;
	uint32_t k1, k2;
	struct vt_ep ep;

	mw = mw_own(t, &ep, IBV_MW_TYPE_2, &b, &info);
	if (!mw)
		return -1;
	if (mw_bind_expect(t, &ep, mw, MW_POST, &info, &k1, IBV_WC_SUCCESS) ||
	    mw_local_inv(t, &ep, k1, IBV_WC_SUCCESS))
		return -1;
	mw->rkey = k1;
	if (mw_bind_expect(t, &ep, mw, MW_POST, &info, &k2, IBV_WC_SUCCESS))
		return -1;
	if (k2 == k1)
		return vt_fail(t, "the second bind kept key 0x%x", k1);
	/* And a second LOCAL_INV of the old key finds nothing to invalidate. */
	return mw_local_inv(t, &ep, k1, IBV_WC_MW_BIND_ERR) || vt_sync(t);
}

/* --- a bind the device must refuse ---------------------------------------- */

enum bind_err {
	BE_NO_MW_BIND,		/* MR without IBV_ACCESS_MW_BIND */
	BE_MW_OTHER_PD,		/* the window in another PD than the QP */
	BE_MR_OTHER_PD,		/* the MR in another PD than the QP and window */
	BE_NO_LOCAL_WRITE,	/* remote write on a window over a read-only MR */
	BE_OUTSIDE_MR,		/* the window runs past the end of the MR */
	BE_NOT_FREE,		/* a type 2 window bound twice */
	BE_TYPE1_LOCAL_INV,	/* LOCAL_INV of a type 1 window's key */
};

static int bind_err_client(struct vt *t)
{
	enum bind_err e = *(const enum bind_err *)t->arg;
	int mr_access = e == BE_NO_MW_BIND ? VT_ACCESS_ALL :
			e == BE_NO_LOCAL_WRITE ? IBV_ACCESS_MW_BIND | IBV_ACCESS_REMOTE_READ :
			MW_MR_ACCESS;
	struct ibv_pd *mr_pd = t->pd, *mw_pd = t->pd;
	enum mw_how how = e == BE_TYPE1_LOCAL_INV ? MW_TYPE1 : MW_POST;
	struct ibv_mw_bind_info info;
	uint64_t len = WIN_LEN;
	struct ibv_mw *mw;
	struct vt_buf *b;
	struct vt_ep ep;
	uint32_t rkey;

	if (e == BE_MR_OTHER_PD)
		mr_pd = vt_pd(t);
	if (e == BE_MW_OTHER_PD)
		mw_pd = vt_pd(t);
	b = mr_pd && mw_pd ? vt_buf_pd(t, mr_pd, MR_LEN, mr_access) : NULL;
	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	mw = vt_mw(t, mw_pd, mw_type(how));
	if (!mw)
		return -1;
	if (e == BE_OUTSIDE_MR)
		len = MR_LEN - WIN_OFF + 1;
	info = mw_info(b->mr, (uintptr_t)b->p + WIN_OFF, len, MW_RW);
	if (e == BE_NOT_FREE || e == BE_TYPE1_LOCAL_INV) {
		if (mw_bind_expect(t, &ep, mw, how, &info, &rkey, IBV_WC_SUCCESS))
			return -1;
		if (e == BE_TYPE1_LOCAL_INV)
			return mw_local_inv(t, &ep, rkey, IBV_WC_MW_BIND_ERR) || vt_sync(t);
		mw->rkey = rkey;
	}
	if (mw_bind_expect(t, &ep, mw, how, &info, &rkey, IBV_WC_MW_BIND_ERR) ||
	    vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "QP of the refused bind"))
		return -1;
	return vt_sync(t);
}

static int link_server(struct vt *t)
{
	struct vt_ep ep;

	return vt_ep_up(t, &ep, NULL) || vt_sync(t);
}

static const enum bind_err be_no_mw_bind = BE_NO_MW_BIND, be_mw_other_pd = BE_MW_OTHER_PD,
			   be_mr_other_pd = BE_MR_OTHER_PD, be_no_local_write = BE_NO_LOCAL_WRITE,
			   be_outside_mr = BE_OUTSIDE_MR, be_not_free = BE_NOT_FREE,
			   be_type1_local_inv = BE_TYPE1_LOCAL_INV;

/* Verbs that refuse at once: a type 1 window through the send queue. */
static int type1_post_client(struct vt *t)
{
	struct ibv_mw_bind_info info;
	struct vt_buf *b;
	struct ibv_mw *mw;
	struct vt_ep ep;
	uint32_t rkey;
	int rc;

	mw = mw_own(t, &ep, IBV_MW_TYPE_1, &b, &info);
	if (!mw)
		return -1;
	rc = mw_post_bind(&ep, mw, MW_POST, &info, &rkey);
	if (rc != EINVAL)
		return vt_fail(t, "IBV_WR_BIND_MW of a type 1 window: %s, expected EINVAL",
			       rc ? strerror(rc) : "posted");
	return vt_expect_no_wc(t, ep.scq, 100, "refused bind") || vt_sync(t);
}

/*
 * ibv_dereg_mr() and ibv_rereg_mr() of an MR with a bound window: EBUSY;
 * the dereg works once the window is FREE.
 */
static int dereg_busy_client(struct vt *t)
{
	struct ibv_mw_bind_info info;
	struct vt_buf *b;
	struct ibv_mw *mw;
	struct vt_ep ep;
	uint32_t rkey;
	int rc;

	mw = mw_own(t, &ep, IBV_MW_TYPE_2, &b, &info);
	if (!mw)
		return -1;
	if (mw_bind_expect(t, &ep, mw, MW_POST, &info, &rkey, IBV_WC_SUCCESS))
		return -1;
	rc = ibv_dereg_mr(b->mr);
	if (rc != EBUSY)
		return vt_fail(t, "ibv_dereg_mr with a bound window: %s, expected EBUSY",
			       rc ? strerror(rc) : "success");
	errno = 0;
	rc = ibv_rereg_mr(b->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, MW_MR_ACCESS);
	if (!rc || errno != EBUSY)
		return vt_fail(t, "ibv_rereg_mr with a bound window: %d (%s), expected EBUSY",
			       rc, strerror(errno));
	if (mw_local_inv(t, &ep, rkey, IBV_WC_SUCCESS) || vt_destroy(t, b->mr))
		return -1;
	return vt_sync(t);
}

/* --- an access the window does not allow ---------------------------------- */

enum acc_err {
	AE_UNBOUND,		/* a type 2 window never bound */
	AE_RIGHTS,		/* WRITE through a read-only window */
	AE_OUTSIDE,		/* WRITE across the end of the window */
	AE_ZERO_LENGTH,		/* any byte of a zero-length window */
	AE_TYPE1_SEND_INV,	/* SEND_WITH_INV naming a type 1 window */
};

static int acc_err_client(struct vt *t)
{
	enum acc_err e = *(const enum acc_err *)t->arg;
	uint64_t addr;
	struct vt_buf *b;
	struct vt_ep ep;
	uint32_t rkey;

	if (mw_client(t, &ep, &b, &addr, &rkey) || vt_sync(t))
		return -1;
	memset(b->p, 0x33, WIN_LEN);
	if (e == AE_TYPE1_SEND_INV) {
		struct ibv_sge sg = vt_sge(b, 0, 16);
		struct ibv_send_wr wr = vt_wr(IBV_WR_SEND_WITH_INV, 7, &sg, 1, IBV_SEND_SIGNALED);

		wr.invalidate_rkey = rkey;
		if (vt_post_send(t, &ep, &wr) ||
		    vt_expect_wc(t, ep.scq, 7, IBV_WC_REM_INV_REQ_ERR, NULL,
				 "SEND_WITH_INV of a type 1 window"))
			return -1;
	} else if (mw_rdma(t, &ep, IBV_WR_RDMA_WRITE, b, 0, 64,
			   e == AE_OUTSIDE ? addr + WIN_LEN - 32 : addr, rkey,
			   IBV_WC_REM_ACCESS_ERR)) {
		return -1;
	}
	return vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "requester") || vt_sync(t);
}

static int acc_err_server(struct vt *t)
{
	enum acc_err e = *(const enum acc_err *)t->arg;
	struct vt_buf *rb = vt_buf(t, 64, VT_ACCESS_ALL);
	struct ibv_sge sg;
	struct mw_win w;
	struct ibv_wc wc;
	struct vt_ep ep;

	if (!rb || mw_serve(t, &ep, &w,
			    e == AE_UNBOUND ? MW_UNBOUND : e == AE_TYPE1_SEND_INV ? MW_TYPE1 : MW_POST,
			    e == AE_RIGHTS ? IBV_ACCESS_REMOTE_READ : MW_RW,
			    e == AE_ZERO_LENGTH ? 0 : WIN_LEN))
		return -1;
	sg = vt_sge(rb, 0, 64);
	if ((e == AE_TYPE1_SEND_INV && vt_post_recv(t, &ep, 9, &sg, 1)) || vt_sync(t))
		return -1;
	if (e == AE_TYPE1_SEND_INV) {
		if (vt_wait_wc(t, ep.rcq, &wc, "receive of the refused SEND_WITH_INV"))
			return -1;
		if (wc.status == IBV_WC_SUCCESS)
			return vt_fail(t, "SEND_WITH_INV of a type 1 window received with success");
	}
	if (vt_sync(t))
		return -1;
	return vt_expect_state(t, ep.qp, IBV_QPS_ERR, STATE_MS, "responder") ||
	       vt_check_byte(t, w.b->p, MR_LEN, GUARD, "MR under the window");
}

static const enum acc_err ae_unbound = AE_UNBOUND, ae_rights = AE_RIGHTS,
			  ae_outside = AE_OUTSIDE, ae_zero_length = AE_ZERO_LENGTH,
			  ae_type1_send_inv = AE_TYPE1_SEND_INV;

/* A type 2 window answers the QP it is bound to only. */
static int other_qp_client(struct vt *t)
{
	struct vt_ep ep2;
	uint64_t addr;
	struct vt_buf *b;
	struct vt_ep ep;
	uint32_t rkey;

	if (mw_client(t, &ep, &b, &addr, &rkey) || vt_ep_up(t, &ep2, NULL))
		return -1;
	memset(b->p, 0x44, WIN_LEN);
	if (mw_rdma(t, &ep, IBV_WR_RDMA_WRITE, b, 0, 64, addr, rkey, IBV_WC_SUCCESS))
		return -1;
	memset(b->p, 0x55, WIN_LEN);
	return mw_rdma(t, &ep2, IBV_WR_RDMA_WRITE, b, 0, 64, addr, rkey, IBV_WC_REM_ACCESS_ERR) ||
	       vt_sync(t);
}

static int other_qp_server(struct vt *t)
{
	struct vt_ep ep, ep2;
	struct mw_win w;

	if (mw_serve(t, &ep, &w, MW_POST, MW_RW, WIN_LEN) || vt_ep_up(t, &ep2, NULL) ||
	    vt_sync(t))
		return -1;
	return vt_expect_state(t, ep2.qp, IBV_QPS_ERR, STATE_MS, "the other responder") ||
	       vt_check_byte(t, w.b->p + WIN_OFF, 64, 0x44, "window");
}

/* --- what the device says ------------------------------------------------- */

static int caps_client(struct vt *t)
{
	const struct ibv_device_attr *a = &t->dev->attr;

	if (a->max_mw <= 0)
		return vt_fail(t, "max_mw %d", a->max_mw);
	if (!(a->device_cap_flags & IBV_DEVICE_MEM_WINDOW) ||
	    !(a->device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B))
		return vt_fail(t, "device_cap_flags 0x%x lack MEM_WINDOW or MEM_WINDOW_TYPE_2B",
			       a->device_cap_flags);
	return 0;
}

const struct vt_case vt_mw_cases[] = {
	{ "mw_caps", "max_mw > 0, IBV_DEVICE_MEM_WINDOW and _TYPE_2B", caps_client, NULL, NULL },
	{ "mw2_write_read", "type 2 window bound by IBV_WR_BIND_MW: WRITE and READ through it, exact, nothing outside",
	  rw_client, rw_server, &how_post },
	{ "mw2_ex_write_read", "type 2 window bound by ibv_wr_bind_mw: WRITE and READ through it, exact",
	  rw_client, rw_server, &how_ex },
	{ "mw1_write_read", "type 1 window bound by ibv_bind_mw: WRITE and READ through it, exact",
	  rw_client, rw_server, &how_type1 },
	{ "mw2_local_inv", "LOCAL_INV of a type 2 window: IBV_WC_LOCAL_INV, then REM_ACCESS_ERR",
	  inv_client, inv_server, &local },
	{ "mw2_remote_inv", "SEND_WITH_INV of a type 2 window: IBV_WC_WITH_INV, invalidated_rkey, then REM_ACCESS_ERR",
	  inv_client, inv_server, &remote },
	{ "mw2_rebind", "a type 2 window binds again after LOCAL_INV, new key; old key's LOCAL_INV: MW_BIND_ERR",
	  rebind_client, link_server, NULL },
	{ "mw_err_no_mw_bind", "bind over an MR without IBV_ACCESS_MW_BIND: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_no_mw_bind },
	{ "mw_err_mw_other_pd", "bind of a window of another PD than the QP: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_mw_other_pd },
	{ "mw_err_mr_other_pd", "bind over an MR of another PD: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_mr_other_pd },
	{ "mw_err_no_local_write", "remote-write window over an MR without LOCAL_WRITE: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_no_local_write },
	{ "mw_err_outside_mr", "window one byte past the end of the MR: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_outside_mr },
	{ "mw_err_not_free", "type 2 window bound twice without invalidation: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_not_free },
	{ "mw_err_type1_local_inv", "LOCAL_INV of a type 1 window: IBV_WC_MW_BIND_ERR",
	  bind_err_client, link_server, &be_type1_local_inv },
	{ "mw_err_type1_post", "IBV_WR_BIND_MW of a type 1 window: EINVAL, nothing posted",
	  type1_post_client, link_server, NULL },
	{ "mw_err_dereg_busy", "ibv_dereg_mr, ibv_rereg_mr with a bound window: EBUSY; after LOCAL_INV dereg works",
	  dereg_busy_client, link_server, NULL },
	{ "mw_err_unbound", "WRITE through a type 2 window never bound: REM_ACCESS_ERR, nothing written",
	  acc_err_client, acc_err_server, &ae_unbound },
	{ "mw_err_rights", "WRITE through a read-only window: REM_ACCESS_ERR, nothing written",
	  acc_err_client, acc_err_server, &ae_rights },
	{ "mw_err_outside", "WRITE across the end of the window: REM_ACCESS_ERR, nothing written",
	  acc_err_client, acc_err_server, &ae_outside },
	{ "mw_err_zero_length", "WRITE through a zero-length type 2 window: REM_ACCESS_ERR",
	  acc_err_client, acc_err_server, &ae_zero_length },
	{ "mw_err_type1_send_inv", "SEND_WITH_INV of a type 1 window: REM_INV_REQ_ERR, receive in error",
	  acc_err_client, acc_err_server, &ae_type1_send_inv },
	{ "mw_err_other_qp", "type 2 window through another QP of its PD: REM_ACCESS_ERR",
	  other_qp_client, other_qp_server, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
