// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device a half uses, the resources a case creates (destroyed in
 * reverse order when the case ends), and the data patterns cases check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

static bool gid_is_ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* The index of the RoCE v2 GID that holds an IPv4 address, or -1. */
static int find_ipv4_gid(struct vt_dev *d)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < d->port_attr.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(d->ctx, d->port, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4_mapped(&e.gid))
			return i;
	}
	return -1;
}

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++) {
		if (!name || !strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	}
	ibv_free_device_list(list);
	return ctx;
}

int vt_dev_open(struct vt_dev *d, const struct vt_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->port = o->ib_port;
	d->ctx = open_by_name(o->dev_name);
	if (!d->ctx) {
		fprintf(stderr, "cannot open RDMA device %s\n", o->dev_name ?: "(any)");
		return -1;
	}
	if (ibv_query_device(d->ctx, &d->attr) || ibv_query_port(d->ctx, d->port, &d->port_attr)) {
		fprintf(stderr, "cannot query %s port %d\n", ibv_get_device_name(d->ctx->device), d->port);
		goto close;
	}
	d->gid_index = o->gid_index >= 0 ? o->gid_index : find_ipv4_gid(d);
	if (d->gid_index < 0 || ibv_query_gid(d->ctx, d->port, d->gid_index, &d->gid)) {
		fprintf(stderr, "%s port %d: no IPv4 RoCE v2 GID (use -g)\n",
			ibv_get_device_name(d->ctx->device), d->port);
		goto close;
	}
	return 0;
close:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	return -1;
}

void vt_dev_close(struct vt_dev *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

static void *track(struct vt *t, enum vt_res_kind kind, void *p, const char *what)
{
	if (!p) {
		vt_fail(t, "%s failed: %s", what, strerror(errno));
		return NULL;
	}
	if (t->nres == VT_MAX_RES) {
		vt_fail(t, "too many resources in one case");
		return NULL;
	}
	t->res[t->nres].kind = kind;
	t->res[t->nres].p = p;
	t->nres++;
	return p;
}

static int release(struct vt_res *r)
{
	switch (r->kind) {
	case VT_RES_MEM: free(r->p); return 0;
	case VT_RES_MR: return ibv_dereg_mr(r->p);
	case VT_RES_PD: return ibv_dealloc_pd(r->p);
	case VT_RES_CHANNEL: return ibv_destroy_comp_channel(r->p);
	case VT_RES_CQ: return ibv_destroy_cq(r->p);
	case VT_RES_QP: return ibv_destroy_qp(r->p);
	case VT_RES_AH: return ibv_destroy_ah(r->p);
	case VT_RES_SRQ: return ibv_destroy_srq(r->p);
	case VT_RES_MW: return ibv_dealloc_mw(r->p);
	}
	return -1;
}

/* Start a case: fresh reason, rng and PD. */
void vt_begin(struct vt *t)
{
	t->nres = 0;
	t->reason[0] = '\0';
	t->peer_ended = false;
	t->peer_status = 0;
	t->peer_reason[0] = '\0';
	t->pd = track(t, VT_RES_PD, ibv_alloc_pd(t->dev->ctx), "ibv_alloc_pd");
}

/* Destroy everything the case made; a failure here fails the case. */
void vt_cleanup(struct vt *t)
{
	while (t->nres > 0) {
		struct vt_res *r = &t->res[--t->nres];
		int rc = release(r);

		if (rc)
			vt_fail(t, "destroying resource kind %d failed: %s", r->kind, strerror(rc));
	}
}

/* After the MR it will be bound to, so it goes first. */
struct ibv_mw *vt_mw(struct vt *t, struct ibv_pd *pd, enum ibv_mw_type type)
{
	return track(t, VT_RES_MW, ibv_alloc_mw(pd, type), "ibv_alloc_mw");
}

/* Destroy one resource before the case ends (e.g. the peer's QP). */
int vt_destroy(struct vt *t, void *p)
{
	int i, rc;

	for (i = t->nres - 1; i >= 0; i--) {
		if (t->res[i].p != p)
			continue;
		rc = release(&t->res[i]);
		memmove(&t->res[i], &t->res[i + 1], (t->nres - i - 1) * sizeof(t->res[0]));
		t->nres--;
		return rc ? vt_fail(t, "destroy failed: %s", strerror(rc)) : 0;
	}
	return vt_fail(t, "destroy: unknown resource");
}

/* Plain zeroed memory that lives as long as the case. */
uint8_t *vt_mem(struct vt *t, size_t len)
{
	return track(t, VT_RES_MEM, calloc(1, len ? len : 1), "calloc");
}

struct vt_buf *vt_buf_pd(struct vt *t, struct ibv_pd *pd, size_t len, int access)
{
	struct vt_buf *b = track(t, VT_RES_MEM, calloc(1, sizeof(*b)), "calloc");
	void *p = NULL;

	if (!b)
		return NULL;
	/* At least one byte: a zero-length registration is not what we test. */
	if (posix_memalign(&p, 4096, len ? len : 1))
		p = NULL;
	if (!track(t, VT_RES_MEM, p, "posix_memalign"))
		return NULL;
	memset(p, 0, len ? len : 1);
	b->p = p;
	b->len = len;
	b->mr = track(t, VT_RES_MR, ibv_reg_mr(pd, p, len ? len : 1, access), "ibv_reg_mr");
	return b->mr ? b : NULL;
}

struct vt_buf *vt_buf(struct vt *t, size_t len, int access)
{
	return vt_buf_pd(t, t->pd, len, access);
}

struct ibv_pd *vt_pd(struct vt *t)
{
	return track(t, VT_RES_PD, ibv_alloc_pd(t->dev->ctx), "ibv_alloc_pd");
}

struct ibv_comp_channel *vt_channel(struct vt *t)
{
	return track(t, VT_RES_CHANNEL, ibv_create_comp_channel(t->dev->ctx),
		     "ibv_create_comp_channel");
}

struct ibv_cq *vt_cq(struct vt *t, int cqe, struct ibv_comp_channel *ch)
{
	return track(t, VT_RES_CQ, ibv_create_cq(t->dev->ctx, cqe, NULL, ch, 0), "ibv_create_cq");
}

struct ibv_qp *vt_qp(struct vt *t, struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	return track(t, VT_RES_QP, ibv_create_qp(pd, ia), "ibv_create_qp");
}

/* An extended CQ reporting wc_flags; destroyed like any CQ. */
struct ibv_cq_ex *vt_cq_ex(struct vt *t, int cqe, struct ibv_comp_channel *ch,
			   uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe, .channel = ch, .wc_flags = wc_flags,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(t->dev->ctx, &a);

	return track(t, VT_RES_CQ, cq ? ibv_cq_ex_to_cq(cq) : NULL, "ibv_create_cq_ex") ?
	       cq : NULL;
}

struct ibv_ah *vt_ah(struct vt *t, struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	return track(t, VT_RES_AH, ibv_create_ah(pd, attr), "ibv_create_ah");
}

/* An SRQ on the case's PD; its QPs, created after it, go first. */
struct ibv_srq *vt_srq_pd(struct vt *t, struct ibv_pd *pd, uint32_t max_wr,
			  uint32_t max_sge)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = max_wr, .max_sge = max_sge } };

	return track(t, VT_RES_SRQ, ibv_create_srq(pd, &a), "ibv_create_srq");
}

struct ibv_srq *vt_srq(struct vt *t, uint32_t max_wr, uint32_t max_sge)
{
	return vt_srq_pd(t, t->pd, max_wr, max_sge);
}

struct ibv_qp *vt_qp_ex(struct vt *t, struct ibv_qp_init_attr_ex *ia)
{
	return track(t, VT_RES_QP, ibv_create_qp_ex(t->dev->ctx, ia), "ibv_create_qp_ex");
}

/* xorshift64*: reproducible from the seed printed at start. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

uint64_t vt_rand(struct vt *t)
{
	return xorshift(&t->rng);
}

static uint64_t pattern_state(uint64_t seed)
{
	return seed ? seed : 0x9e3779b97f4a7c15ULL;
}

void vt_fill(void *p, size_t len, uint64_t seed)
{
	uint64_t s = pattern_state(seed), v;
	uint8_t *b = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = xorshift(&s);
		memcpy(b + i, &v, 8);
	}
	v = xorshift(&s);
	memcpy(b + i, &v, len - i);
}

int vt_check(struct vt *t, const void *p, size_t len, uint64_t seed, const char *what)
{
	uint8_t chunk[4096];
	const uint8_t *b = p;
	size_t off, i, n;
	uint64_t s = pattern_state(seed), v;

	for (off = 0; off < len; off += n) {
		n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		for (i = 0; i < n; i += 8) {
			v = xorshift(&s);
			memcpy(chunk + i, &v, 8);
		}
		if (!memcmp(b + off, chunk, n))
			continue;
		for (i = 0; b[off + i] == chunk[i]; i++)
			;
		return vt_fail(t, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
			       off + i, len, b[off + i], chunk[i]);
	}
	return 0;
}

int vt_check_byte(struct vt *t, const void *p, size_t len, uint8_t byte, const char *what)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte)
			return vt_fail(t, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x",
				       what, i, len, b[i], byte);
	return 0;
}

/* 1: fd readable, 0: not within ms, -1: poll failed. */
int vt_wait_fd(struct vt *t, int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc;

	do
		rc = poll(&pfd, 1, ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return vt_fail(t, "poll: %s", strerror(errno));
	return rc;
}

/*
 * Wait for the async event type on element (the QP or CQ it names); other
 * events (a QP's own error, leftovers of earlier cases) are acknowledged
 * and passed over.
 */
int vt_wait_async(struct vt *t, enum ibv_event_type type, const void *element)
{
	struct ibv_context *ctx = t->dev->ctx;
	struct ibv_async_event ev;
	int rc;

	if (fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK))
		return vt_fail(t, "cannot make the async fd non-blocking");
	for (;;) {
		rc = vt_wait_fd(t, ctx->async_fd, t->opts->wait_ms);
		if (rc <= 0)
			return rc < 0 ? -1 : vt_fail(t, "no %s within %d ms",
						     ibv_event_type_str(type), t->opts->wait_ms);
		if (ibv_get_async_event(ctx, &ev))
			continue;
		vt_note(t, "async event %s", ibv_event_type_str(ev.event_type));
		/* The element union holds one pointer, whichever kind it is. */
		rc = ev.event_type == type && (const void *)ev.element.qp == element;
		ibv_ack_async_event(&ev);
		if (rc)
			return 0;
	}
}
