// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data integrity of each RC operation, byte for byte: SEND (with and
 * without immediate, inline, zero length), RDMA WRITE (with and without
 * immediate), RDMA READ at packet-boundary sizes, atomics, multi-SGE
 * gather/scatter, unsignaled sends, solicited events and the fence.
 *
 * Receive buffers and exposed memory start filled with GUARD; every check
 * covers the bytes around what was transferred too, so an overrun fails.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

#define GUARD		0xa5
#define GUARD_LEN	64
#define XFER_MAX	8		/* messages in one xfer case */
#define REGION		(65536 + 4096)	/* per message, >= largest + 2 * GUARD_LEN */
/* Message i's data starts GUARD_LEN into its region: GUARD on both sides. */
#define MSG_OFF(i)	((size_t)(i) * REGION + GUARD_LEN)

/* --- messages of several sizes: SEND, WRITE and their variants ---------- */

struct xfer {
	enum ibv_wr_opcode op;
	unsigned int flags;		/* IBV_SEND_INLINE */
	bool unsignaled;		/* only the last WR asks for a completion */
	int nsizes;			/* 0: inline sizes from the QP's cap */
	uint32_t sizes[XFER_MAX];
};

/* Sizes and seeds, sent by the client to the server before the data. */
struct xfer_plan {
	uint32_t count;
	uint32_t len[XFER_MAX];
	uint64_t seed[XFER_MAX];
};

static bool op_has_imm(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static bool op_consumes_recv(enum ibv_wr_opcode op)
{
	return op != IBV_WR_RDMA_WRITE;
}

static bool op_is_send(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
}

static uint32_t imm_of(uint64_t seed)
{
	return (uint32_t)(seed >> 32) | 1;
}

static int put_plan(struct vt *t, const struct xfer_plan *p)
{
	struct xfer_plan w;
	uint32_t i;

	w.count = htobe32(p->count);
	for (i = 0; i < XFER_MAX; i++) {
		w.len[i] = htobe32(p->len[i]);
		w.seed[i] = htobe64(p->seed[i]);
	}
	return vt_put(t, &w, sizeof(w));
}

static int get_plan(struct vt *t, struct xfer_plan *p)
{
	uint32_t i;

	if (vt_get(t, p, sizeof(*p)))
		return -1;
	p->count = be32toh(p->count);
	for (i = 0; i < XFER_MAX; i++) {
		p->len[i] = be32toh(p->len[i]);
		p->seed[i] = be64toh(p->seed[i]);
	}
	if (p->count > XFER_MAX)
		return vt_fail(t, "plan of %u messages", p->count);
	for (i = 0; i < p->count; i++)
		if (p->len[i] > REGION - 2 * GUARD_LEN)
			return vt_fail(t, "message %u of %u bytes", i, p->len[i]);
	return 0;
}

static void make_plan(struct vt *t, const struct xfer *x, const struct vt_ep *ep,
		      struct xfer_plan *p)
{
	static const uint32_t inline_fracs[] = { 1, 2, 0 };	/* 1, cap/2, cap */
	int i;

	memset(p, 0, sizeof(*p));
	p->count = x->nsizes ? x->nsizes : 3;
	for (i = 0; i < (int)p->count; i++) {
		if (x->nsizes)
			p->len[i] = x->sizes[i];
		else
			p->len[i] = inline_fracs[i] ? ep->o.max_inline / inline_fracs[i] : 1;
		p->seed[i] = vt_rand(t);
	}
}

static unsigned int wr_flags(const struct xfer *x, uint32_t i, uint32_t count)
{
	unsigned int f = x->flags;

	if (!x->unsignaled || i == count - 1)
		f |= IBV_SEND_SIGNALED;
	return f;
}

/* Post message i of the plan; inline data comes from the stack and is
 * scribbled over as soon as the post returns (the WR must have copied it). */
static int post_msg(struct vt *t, const struct xfer *x, struct vt_ep *ep,
		    const struct vt_buf *b, const struct xfer_plan *p, uint32_t i)
{
	uint8_t stack[512];
	struct ibv_sge sg = vt_sge(b, MSG_OFF(i), p->len[i]);
	struct ibv_send_wr wr = vt_wr(x->op, i, &sg, p->len[i] ? 1 : 0,
				      wr_flags(x, i, p->count));
	int rc;

	if (x->flags & IBV_SEND_INLINE) {
		if (p->len[i] > sizeof(stack))
			return vt_fail(t, "inline size %u too large for the test", p->len[i]);
		vt_fill(stack, p->len[i], p->seed[i]);
		sg.addr = (uintptr_t)stack;
		sg.lkey = 0;	/* not looked at for inline data */
	} else {
		vt_fill(b->p + MSG_OFF(i), p->len[i], p->seed[i]);
	}
	if (!op_is_send(x->op))
		vt_wr_remote(&wr, ep, MSG_OFF(i));
	if (op_has_imm(x->op))
		wr.imm_data = htobe32(imm_of(p->seed[i]));
	rc = vt_post_send(t, ep, &wr);
	memset(stack, 0xee, sizeof(stack));
	return rc;
}

static int wait_sends(struct vt *t, const struct xfer *x, struct vt_ep *ep,
		      const struct xfer_plan *p)
{
	uint32_t i = x->unsignaled ? p->count - 1 : 0;

	for (; i < p->count; i++)
		if (vt_expect_wc(t, ep->scq, i, IBV_WC_SUCCESS, NULL, "send completion"))
			return -1;
	return x->unsignaled ? vt_expect_no_wc(t, ep->scq, 500, "after the signaled WR") : 0;
}

static int xfer_client(struct vt *t)
{
	const struct xfer *x = t->arg;
	struct vt_qp_opts o;
	struct xfer_plan plan;
	struct vt_buf *b = vt_buf(t, XFER_MAX * REGION, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;
	uint32_t i;

	vt_qp_opts_init(t, &o);
	o.sig_all = false;
	if (x->flags & IBV_SEND_INLINE)
		o.max_inline = 64;
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL))
		return -1;
	if ((x->flags & IBV_SEND_INLINE) && ep.o.max_inline < 2)
		return vt_fail(t, "QP has max_inline_data %u", ep.o.max_inline);
	make_plan(t, x, &ep, &plan);
	if (put_plan(t, &plan))
		return -1;
	for (i = 0; i < plan.count; i++)
		if (post_msg(t, x, &ep, b, &plan, i))
			return -1;
	return wait_sends(t, x, &ep, &plan) || vt_sync(t) ? -1 : 0;
}

static int check_recv_wc(struct vt *t, const struct xfer *x, struct vt_ep *ep,
			 const struct xfer_plan *p, uint32_t i)
{
	enum ibv_wc_opcode want = x->op == IBV_WR_RDMA_WRITE_WITH_IMM ?
				  IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	bool imm = op_has_imm(x->op);
	struct ibv_wc wc;

	if (vt_expect_wc(t, ep->rcq, i, IBV_WC_SUCCESS, &wc, "receive completion"))
		return -1;
	if (wc.opcode != want)
		return vt_fail(t, "message %u: receive opcode %d, expected %d", i, wc.opcode, want);
	/* For WRITE_WITH_IMM byte_len is the length written (0 for an empty one). */
	if (wc.byte_len != p->len[i])
		return vt_fail(t, "message %u: byte_len %u, expected %u", i, wc.byte_len, p->len[i]);
	if (!!(wc.wc_flags & IBV_WC_WITH_IMM) != imm)
		return vt_fail(t, "message %u: IBV_WC_WITH_IMM is %s", i, imm ? "clear" : "set");
	if (imm && be32toh(wc.imm_data) != imm_of(p->seed[i]))
		return vt_fail(t, "message %u: imm_data 0x%x, expected 0x%x", i,
			       be32toh(wc.imm_data), imm_of(p->seed[i]));
	if (wc.qp_num != ep->qp->qp_num)
		return vt_fail(t, "message %u: qp_num %u, expected %u", i, wc.qp_num,
			       ep->qp->qp_num);
	return 0;
}

/*
 * Message i's region, whole: GUARD, the data, GUARD up to the next region.
 * A stray byte on either side of a message fails, the first message's too.
 */
static int check_region(struct vt *t, const struct vt_buf *b, const struct xfer_plan *p,
			uint32_t i)
{
	const uint8_t *r = b->p + (size_t)i * REGION;
	const uint8_t *d = b->p + MSG_OFF(i);

	return vt_check_byte(t, r, GUARD_LEN, GUARD, "bytes before the data") ||
	       vt_check(t, d, p->len[i], p->seed[i], "data") ||
	       vt_check_byte(t, d + p->len[i], REGION - GUARD_LEN - p->len[i], GUARD,
			     "bytes after the data");
}

/* Every region of the plan, then the rest of the buffer, untouched. */
static int check_regions(struct vt *t, const struct vt_buf *b, const struct xfer_plan *p)
{
	size_t used = (size_t)p->count * REGION;
	uint32_t i;

	for (i = 0; i < p->count; i++)
		if (check_region(t, b, p, i))
			return -1;
	return vt_check_byte(t, b->p + used, b->len - used, GUARD,
			     "bytes after the last message's region");
}

static int xfer_server(struct vt *t)
{
	const struct xfer *x = t->arg;
	struct vt_buf *b = vt_buf(t, XFER_MAX * REGION, VT_ACCESS_ALL);
	struct xfer_plan plan;
	struct vt_ep ep;
	uint32_t i;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, b->len);
	for (i = 0; op_consumes_recv(x->op) && i < XFER_MAX; i++) {
		struct ibv_sge sg = vt_sge(b, MSG_OFF(i), REGION - GUARD_LEN);

		/* WRITE_WITH_IMM consumes a receive but never its buffers. */
		if (vt_post_recv(t, &ep, i, &sg, op_is_send(x->op) ? 1 : 0))
			return -1;
	}
	if (vt_ep_link(t, &ep, b) || get_plan(t, &plan))
		return -1;
	for (i = 0; op_consumes_recv(x->op) && i < plan.count; i++)
		if (check_recv_wc(t, x, &ep, &plan, i))
			return -1;
	if (vt_sync(t))
		return -1;
	if (check_regions(t, b, &plan))
		return -1;
	return vt_expect_no_wc(t, ep.rcq, 0, "extra receive completion");
}

static const struct xfer send_sizes = {
	IBV_WR_SEND, 0, false, 6, { 1, 63, 1024, 1025, 4096, 65536 } };
static const struct xfer send_imm_sizes = {
	IBV_WR_SEND_WITH_IMM, 0, false, 6, { 1, 63, 1024, 1025, 4096, 65536 } };
static const struct xfer write_sizes = {
	IBV_WR_RDMA_WRITE, 0, false, 6, { 1, 63, 1024, 1025, 4096, 65536 } };
static const struct xfer write_imm_sizes = {
	IBV_WR_RDMA_WRITE_WITH_IMM, 0, false, 6, { 0, 1, 1024, 1025, 4096, 65536 } };
static const struct xfer send_inline = { IBV_WR_SEND, IBV_SEND_INLINE, false, 0, { 0 } };
static const struct xfer send_zero = { IBV_WR_SEND, 0, false, 1, { 0 } };
static const struct xfer write_zero = { IBV_WR_RDMA_WRITE, 0, false, 1, { 0 } };
static const struct xfer send_unsignaled = {
	IBV_WR_SEND, 0, true, 8, { 1, 2, 3, 64, 100, 1000, 1024, 4096 } };

/* --- an unsignaled tail: acknowledged without anyone asking -------------- */
/*
 * A requester may leave AckReq off unsignaled messages (sroce does, to save
 * an ACK per message). A tail of unsignaled WRITEs with nothing after it
 * must still be acknowledged - at the local ACK timeout at the latest - and
 * a WRITE posted after a few timeouts must still complete. The counters
 * test (tests/vm/tests/counters.sh) checks from the hw_counters that the
 * tail was sent again at the timeout and that this was not a retry; the
 * server checks every byte.
 */
#define TAIL_WRS	2
#define TAIL_MSG	64		/* bytes a message, and its slot in the buffer */

static int tail_post(struct vt *t, struct vt_ep *ep, const struct vt_buf *b, uint32_t n,
		     unsigned int flags)
{
	struct ibv_sge sg = vt_sge(b, (size_t)n * TAIL_MSG, TAIL_MSG);
	struct ibv_send_wr wr = vt_wr(IBV_WR_RDMA_WRITE, n, &sg, 1, flags);

	vt_fill(b->p + (size_t)n * TAIL_MSG, TAIL_MSG, n + 1);
	vt_wr_remote(&wr, ep, (uint64_t)n * TAIL_MSG);
	return vt_post_send(t, ep, &wr);
}

/* A few local ACK timeouts (4.096 us * 2^timeout each), plus slack for a
 * loaded TCG host. */
static unsigned int tail_wait_ms(uint8_t timeout)
{
	return (unsigned int)((4096ULL << timeout) / 1000000) * 4 + 2000;
}

static int tail_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (TAIL_WRS + 1) * TAIL_MSG, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct vt_ep ep;
	uint32_t n;

	vt_qp_opts_init(t, &o);
	o.sig_all = false;
	if (o.timeout < 14)
		o.timeout = 14;
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL))
		return -1;
	for (n = 0; n < TAIL_WRS; n++)
		if (tail_post(t, &ep, b, n, 0))
			return -1;
	if (vt_expect_no_wc(t, ep.scq, (int)tail_wait_ms(o.timeout), "after the unsignaled tail") ||
	    tail_post(t, &ep, b, TAIL_WRS, IBV_SEND_SIGNALED) ||
	    vt_expect_wc(t, ep.scq, TAIL_WRS, IBV_WC_SUCCESS, NULL, "the signaled WRITE"))
		return -1;
	return vt_sync(t);
}

static int tail_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, (TAIL_WRS + 2) * TAIL_MSG, VT_ACCESS_ALL);
	struct vt_ep ep;
	uint32_t n;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, b->len);
	if (vt_ep_link(t, &ep, b) || vt_sync(t))
		return -1;
	for (n = 0; n <= TAIL_WRS; n++)
		if (vt_check(t, b->p + (size_t)n * TAIL_MSG, TAIL_MSG, n + 1, "WRITE data"))
			return -1;
	return vt_check_byte(t, b->p + (size_t)n * TAIL_MSG, TAIL_MSG, GUARD,
			     "bytes after the data");
}

/* --- RDMA READ of one size ---------------------------------------------- */

static int read_client(struct vt *t)
{
	uint32_t len = *(const uint32_t *)t->arg;
	struct vt_buf *b = vt_buf(t, len + GUARD_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	struct vt_ep ep;
	uint64_t seed;

	if (!b || vt_ep_new(t, &ep) || vt_ep_link(t, &ep, NULL) || vt_get_u64(t, &seed))
		return -1;
	memset(b->p, GUARD, b->len);
	sg = vt_sge(b, 0, len);
	wr = vt_wr(IBV_WR_RDMA_READ, 1, &sg, 1, IBV_SEND_SIGNALED);
	vt_wr_remote(&wr, &ep, 0);
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_SUCCESS, &wc, "READ completion"))
		return -1;
	if (wc.opcode != IBV_WC_RDMA_READ)
		return vt_fail(t, "completion opcode %d, expected IBV_WC_RDMA_READ", wc.opcode);
	if (vt_check(t, b->p, len, seed, "data read") ||
	    vt_check_byte(t, b->p + len, GUARD_LEN, GUARD, "bytes after the data read"))
		return -1;
	return vt_sync(t);
}

static int read_server(struct vt *t)
{
	uint32_t len = *(const uint32_t *)t->arg;
	struct vt_buf *b = vt_buf(t, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	uint64_t seed = vt_rand(t);
	struct vt_qp_opts o;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	if (!b)
		return -1;
	vt_fill(b->p, len, seed);
	if (vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, b) || vt_put_u64(t, seed) ||
	    vt_sync(t))
		return -1;
	return vt_check(t, b->p, len, seed, "exposed memory after the READ");
}

static const uint32_t read_1 = 1, read_1023 = 1023, read_1024 = 1024, read_1025 = 1025,
		      read_4096 = 4096, read_65536 = 65536, read_1m = 1 << 20;

/* --- atomics ------------------------------------------------------------- */

enum atomic_kind { CAS_HIT, CAS_MISS, FETCH_ADD };

#define ATOMIC_OFF	16	/* the target, 8-aligned, guards around it */
#define ATOMIC_BUF	64

static int atomic_post(struct vt *t, struct vt_ep *ep, struct vt_buf *res,
		       enum ibv_wr_opcode op, uint64_t cmp_add, uint64_t swap, uint64_t *old)
{
	struct ibv_sge sg = vt_sge(res, 0, 8);
	struct ibv_send_wr wr = vt_wr(op, 7, &sg, 1, IBV_SEND_SIGNALED);
	struct ibv_wc wc;

	vt_wr_remote(&wr, ep, ATOMIC_OFF);
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	memset(res->p, GUARD, res->len);
	if (vt_post_send(t, ep, &wr) ||
	    vt_expect_wc(t, ep->scq, 7, IBV_WC_SUCCESS, &wc, "atomic completion"))
		return -1;
	if (wc.opcode != (op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD))
		return vt_fail(t, "atomic completion opcode %d", wc.opcode);
	memcpy(old, res->p, 8);
	return vt_check_byte(t, res->p + 8, res->len - 8, GUARD, "bytes after the result");
}

static int expect_u64(struct vt *t, uint64_t got, uint64_t want, const char *what)
{
	if (got == want)
		return 0;
	return vt_fail(t, "%s: 0x%016llx, expected 0x%016llx", what,
		       (unsigned long long)got, (unsigned long long)want);
}

static int atomic_client(struct vt *t)
{
	enum atomic_kind kind = *(const enum atomic_kind *)t->arg;
	struct vt_buf *res = vt_buf(t, 16, IBV_ACCESS_LOCAL_WRITE);
	uint64_t v, a = vt_rand(t), b = vt_rand(t), old, final;
	struct vt_ep ep;

	if (t->dev->attr.atomic_cap == IBV_ATOMIC_NONE)
		return vt_fail(t, "device reports atomic_cap NONE");
	if (!res || vt_ep_new(t, &ep) || vt_ep_link(t, &ep, NULL) || vt_get_u64(t, &v))
		return -1;
	switch (kind) {
	case CAS_HIT:
		if (atomic_post(t, &ep, res, IBV_WR_ATOMIC_CMP_AND_SWP, v, a, &old) ||
		    expect_u64(t, old, v, "CMP_AND_SWP returned"))
			return -1;
		final = a;
		break;
	case CAS_MISS:
		if (atomic_post(t, &ep, res, IBV_WR_ATOMIC_CMP_AND_SWP, ~v, a, &old) ||
		    expect_u64(t, old, v, "CMP_AND_SWP returned"))
			return -1;
		final = v;
		break;
	default:
		if (atomic_post(t, &ep, res, IBV_WR_ATOMIC_FETCH_AND_ADD, a, 0, &old) ||
		    expect_u64(t, old, v, "first FETCH_AND_ADD returned") ||
		    atomic_post(t, &ep, res, IBV_WR_ATOMIC_FETCH_AND_ADD, b, 0, &old) ||
		    expect_u64(t, old, v + a, "second FETCH_AND_ADD returned"))
			return -1;
		final = v + a + b;
		break;
	}
	return vt_put_u64(t, final);
}

static int atomic_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, ATOMIC_BUF, VT_ACCESS_ALL);
	uint64_t v = vt_rand(t), final, got;
	struct vt_qp_opts o;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	if (!b)
		return -1;
	memset(b->p, GUARD, b->len);
	memcpy(b->p + ATOMIC_OFF, &v, 8);
	if (vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, b) || vt_put_u64(t, v) ||
	    vt_get_u64(t, &final))
		return -1;
	memcpy(&got, b->p + ATOMIC_OFF, 8);
	if (expect_u64(t, got, final, "remote value after the atomics"))
		return -1;
	return vt_check_byte(t, b->p, ATOMIC_OFF, GUARD, "bytes before the target") ||
	       vt_check_byte(t, b->p + ATOMIC_OFF + 8, ATOMIC_BUF - ATOMIC_OFF - 8, GUARD,
			     "bytes after the target");
}

static const enum atomic_kind cas_hit = CAS_HIT, cas_miss = CAS_MISS, fetch_add = FETCH_ADD;

/* --- three SGEs of odd sizes on either side ------------------------------ */

#define MS_BUF		16384
#define MS_REMOTE_OFF	777

struct seg {
	uint32_t off, len;
};

static const struct seg gather[3] = { { 3, 7 }, { 2000, 1001 }, { 5003, 3003 } };
static const struct seg scatter[3] = { { 1, 513 }, { 3001, 2047 }, { 9007, 2000 } };

static uint32_t segs_total(const struct seg *s)
{
	return s[0].len + s[1].len + s[2].len;
}

static void segs_to_sges(const struct vt_buf *b, const struct seg *s, struct ibv_sge *sg)
{
	int i;

	for (i = 0; i < 3; i++)
		sg[i] = vt_sge(b, s[i].off, s[i].len);
}

/* The bytes a gather of the sender's pattern buffer puts on the wire. */
static uint8_t *gathered(struct vt *t, uint64_t seed)
{
	uint8_t *src = vt_mem(t, MS_BUF), *out = vt_mem(t, MS_BUF);
	uint32_t pos = 0;
	int i;

	if (!src || !out)
		return NULL;
	vt_fill(src, MS_BUF, seed);
	for (i = 0; i < 3; i++) {
		memcpy(out + pos, src + gather[i].off, gather[i].len);
		pos += gather[i].len;
	}
	return out;
}

/* What a receive buffer full of GUARD holds after a scatter of len bytes. */
static int expect_scattered(struct vt *t, const uint8_t *got, const uint8_t *stream,
			    uint32_t len)
{
	uint8_t *want = vt_mem(t, MS_BUF);
	uint32_t pos = 0, n;
	size_t i;
	int s;

	if (!want)
		return -1;
	memset(want, GUARD, MS_BUF);
	for (s = 0; s < 3 && pos < len; s++) {
		n = len - pos < scatter[s].len ? len - pos : scatter[s].len;
		memcpy(want + scatter[s].off, stream + pos, n);
		pos += n;
	}
	for (i = 0; i < MS_BUF && got[i] == want[i]; i++)
		;
	if (i < MS_BUF)
		return vt_fail(t, "scattered buffer: byte %zu is 0x%02x, expected 0x%02x",
			       i, got[i], want[i]);
	return 0;
}

static int multi_sge_client(struct vt *t)
{
	enum ibv_wr_opcode op = *(const enum ibv_wr_opcode *)t->arg;
	struct vt_buf *b = vt_buf(t, MS_BUF, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t);
	struct ibv_sge sg[3];
	struct ibv_send_wr wr;
	struct vt_ep ep;
	const uint8_t *stream;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	if (op == IBV_WR_RDMA_READ) {
		memset(b->p, GUARD, MS_BUF);
		segs_to_sges(b, scatter, sg);
		if (vt_get_u64(t, &seed))
			return -1;
	} else {
		vt_fill(b->p, MS_BUF, seed);
		segs_to_sges(b, gather, sg);
		if (vt_put_u64(t, seed))
			return -1;
	}
	wr = vt_wr(op, 3, sg, 3, IBV_SEND_SIGNALED);
	if (op != IBV_WR_SEND)
		vt_wr_remote(&wr, &ep, MS_REMOTE_OFF);
	if (op == IBV_WR_RDMA_READ)
		wr.sg_list[2].length = segs_total(gather) - scatter[0].len - scatter[1].len;
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 3, IBV_WC_SUCCESS, NULL, "completion"))
		return -1;
	if (op == IBV_WR_RDMA_READ) {
		stream = gathered(t, seed);	/* the server exposes the same bytes */
		if (!stream || expect_scattered(t, b->p, stream, segs_total(gather)))
			return -1;
	}
	return vt_sync(t);
}

static int multi_sge_server(struct vt *t)
{
	enum ibv_wr_opcode op = *(const enum ibv_wr_opcode *)t->arg;
	struct vt_buf *b = vt_buf(t, MS_BUF, VT_ACCESS_ALL);
	uint32_t total = segs_total(gather);
	uint64_t seed = vt_rand(t);
	const uint8_t *stream;
	struct ibv_sge sg[3];
	struct ibv_wc wc;
	struct vt_ep ep;

	if (!b || vt_ep_new(t, &ep))
		return -1;
	memset(b->p, GUARD, MS_BUF);
	segs_to_sges(b, scatter, sg);
	if (op == IBV_WR_SEND && vt_post_recv(t, &ep, 3, sg, 3))
		return -1;
	if (op == IBV_WR_RDMA_READ) {
		/* Expose at MS_REMOTE_OFF the bytes the client would gather. */
		stream = gathered(t, seed);
		if (!stream)
			return -1;
		memcpy(b->p + MS_REMOTE_OFF, stream, total);
		return vt_ep_link(t, &ep, b) || vt_put_u64(t, seed) || vt_sync(t) ? -1 : 0;
	}
	if (vt_ep_link(t, &ep, b) || vt_get_u64(t, &seed))
		return -1;
	if (op == IBV_WR_SEND &&
	    (vt_expect_wc(t, ep.rcq, 3, IBV_WC_SUCCESS, &wc, "receive completion") ||
	     (wc.byte_len != total && vt_fail(t, "byte_len %u, expected %u", wc.byte_len, total))))
		return -1;
	if (vt_sync(t))
		return -1;
	stream = gathered(t, seed);
	if (!stream)
		return -1;
	if (op == IBV_WR_SEND)
		return expect_scattered(t, b->p, stream, total);
	return vt_check_byte(t, b->p, MS_REMOTE_OFF, GUARD, "bytes before the write") ||
	       (memcmp(b->p + MS_REMOTE_OFF, stream, total) &&
		vt_fail(t, "written bytes differ from the gathered ones")) ||
	       vt_check_byte(t, b->p + MS_REMOTE_OFF + total, MS_BUF - MS_REMOTE_OFF - total,
			     GUARD, "bytes after the write") ? -1 : 0;
}

static const enum ibv_wr_opcode op_send = IBV_WR_SEND, op_write = IBV_WR_RDMA_WRITE,
				op_read = IBV_WR_RDMA_READ;

/* --- solicited events ----------------------------------------------------- */

static int solicited_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	sg = vt_sge(b, 0, 64);
	wr = vt_wr(IBV_WR_SEND, 0, &sg, 1, IBV_SEND_SIGNALED);
	if (vt_post_send(t, &ep, &wr) ||
	    vt_expect_wc(t, ep.scq, 0, IBV_WC_SUCCESS, NULL, "plain SEND") ||
	    vt_sync(t) || vt_sync(t))
		return -1;
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	return vt_post_send(t, &ep, &wr) ||
	       vt_expect_wc(t, ep.scq, 1, IBV_WC_SUCCESS, NULL, "solicited SEND");
}

static int solicited_server(struct vt *t)
{
	struct ibv_comp_channel *ch = vt_channel(t);
	struct vt_buf *b = vt_buf(t, 128, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sg[2];
	struct ibv_cq *cq;
	struct vt_qp_opts o;
	struct vt_ep ep;
	void *cq_ctx;
	int rc;

	vt_qp_opts_init(t, &o);
	o.rchannel = ch;
	if (!ch || !b || vt_ep_create(t, &ep, &o))
		return -1;
	sg[0] = vt_sge(b, 0, 64);
	sg[1] = vt_sge(b, 64, 64);
	if (vt_post_recv(t, &ep, 0, &sg[0], 1) || vt_post_recv(t, &ep, 1, &sg[1], 1))
		return -1;
	rc = ibv_req_notify_cq(ep.rcq, 1);
	if (rc)
		return vt_fail(t, "ibv_req_notify_cq(solicited_only): %d", rc);
	if (vt_ep_link(t, &ep, NULL) || vt_sync(t) ||
	    vt_expect_wc(t, ep.rcq, 0, IBV_WC_SUCCESS, NULL, "plain SEND received"))
		return -1;
	rc = vt_wait_fd(t, ch->fd, 1000);
	if (rc)
		return rc < 0 ? -1 : vt_fail(t, "a SEND without SOLICITED raised a CQ event");
	if (vt_sync(t))
		return -1;
	rc = vt_wait_fd(t, ch->fd, t->opts->wait_ms);
	if (rc <= 0)
		return rc < 0 ? -1 : vt_fail(t, "no CQ event for the SOLICITED SEND");
	if (ibv_get_cq_event(ch, &cq, &cq_ctx))
		return vt_fail(t, "ibv_get_cq_event failed");
	ibv_ack_cq_events(cq, 1);
	if (cq != ep.rcq)
		return vt_fail(t, "CQ event for another CQ");
	return vt_expect_wc(t, ep.rcq, 1, IBV_WC_SUCCESS, NULL, "solicited SEND received");
}

/* --- fence: a SEND of what a READ just brought in ---------------------- */

#define FENCE_LEN	65536

static int fence_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, FENCE_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_send_wr rd, snd;
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, NULL))
		return -1;
	sg = vt_sge(b, 0, FENCE_LEN);
	rd = vt_wr(IBV_WR_RDMA_READ, 0, &sg, 1, IBV_SEND_SIGNALED);
	vt_wr_remote(&rd, &ep, 0);
	snd = vt_wr(IBV_WR_SEND, 1, &sg, 1, IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	rd.next = &snd;
	if (vt_post_send(t, &ep, &rd) ||
	    vt_expect_wc(t, ep.scq, 0, IBV_WC_SUCCESS, NULL, "READ") ||
	    vt_expect_wc(t, ep.scq, 1, IBV_WC_SUCCESS, NULL, "fenced SEND"))
		return -1;
	return vt_sync(t);
}

static int fence_server(struct vt *t)
{
	struct vt_buf *src = vt_buf(t, FENCE_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	struct vt_buf *dst = vt_buf(t, FENCE_LEN + GUARD_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t);
	struct ibv_sge sg;
	struct vt_ep ep;

	if (!src || !dst || vt_ep_new(t, &ep))
		return -1;
	vt_fill(src->p, FENCE_LEN, seed);
	memset(dst->p, GUARD, dst->len);
	sg = vt_sge(dst, 0, dst->len);
	if (vt_post_recv(t, &ep, 0, &sg, 1) || vt_ep_link(t, &ep, src) ||
	    vt_expect_wc(t, ep.rcq, 0, IBV_WC_SUCCESS, NULL, "fenced SEND received") ||
	    vt_sync(t))
		return -1;
	return vt_check(t, dst->p, FENCE_LEN, seed, "SEND after fence (must carry the READ data)") ||
	       vt_check_byte(t, dst->p + FENCE_LEN, GUARD_LEN, GUARD, "bytes after the data");
}

const struct vt_case vt_ops_cases[] = {
	{ "send", "SEND 1 B..64 KiB, byte for byte", xfer_client, xfer_server, &send_sizes },
	{ "send_imm", "SEND_WITH_IMM: data, imm_data, IBV_WC_WITH_IMM",
	  xfer_client, xfer_server, &send_imm_sizes },
	{ "write", "RDMA WRITE 1 B..64 KiB into the peer's memory",
	  xfer_client, xfer_server, &write_sizes },
	{ "write_imm", "WRITE_WITH_IMM 0 B..64 KiB: consumes a 0-SGE receive, imm, byte_len",
	  xfer_client, xfer_server, &write_imm_sizes },
	{ "read_1", "RDMA READ of 1 B", read_client, read_server, &read_1 },
	{ "read_1023", "RDMA READ of 1023 B (MTU 1024)", read_client, read_server, &read_1023 },
	{ "read_1024", "RDMA READ of 1024 B", read_client, read_server, &read_1024 },
	{ "read_1025", "RDMA READ of 1025 B (2 responses)", read_client, read_server, &read_1025 },
	{ "read_4096", "RDMA READ of 4 KiB", read_client, read_server, &read_4096 },
	{ "read_65536", "RDMA READ of 64 KiB", read_client, read_server, &read_65536 },
	{ "read_1m", "RDMA READ of 1 MiB (1024 responses)", read_client, read_server, &read_1m },
	{ "atomic_cas_hit", "CMP_AND_SWP that matches: old value back, swap written",
	  atomic_client, atomic_server, &cas_hit },
	{ "atomic_cas_miss", "CMP_AND_SWP that does not match: old value back, memory kept",
	  atomic_client, atomic_server, &cas_miss },
	{ "atomic_fetch_add", "FETCH_AND_ADD twice: old values back, sum written",
	  atomic_client, atomic_server, &fetch_add },
	{ "send_inline", "inline SENDs up to max_inline_data from unregistered memory",
	  xfer_client, xfer_server, &send_inline },
	{ "multi_sge_send", "SEND gathering 3 SGEs into 3 receive SGEs",
	  multi_sge_client, multi_sge_server, &op_send },
	{ "multi_sge_write", "RDMA WRITE gathering 3 SGEs", multi_sge_client, multi_sge_server,
	  &op_write },
	{ "multi_sge_read", "RDMA READ scattering into 3 SGEs", multi_sge_client,
	  multi_sge_server, &op_read },
	{ "zero_send", "zero-length SEND: byte_len 0, buffer untouched",
	  xfer_client, xfer_server, &send_zero },
	{ "zero_write", "zero-length RDMA WRITE: succeeds, memory untouched",
	  xfer_client, xfer_server, &write_zero },
	{ "unsignaled", "7 unsignaled SENDs then a signaled one: one completion",
	  xfer_client, xfer_server, &send_unsignaled },
	{ "unsignaled_tail", "2 unsignaled WRITEs, nothing for a few ACK timeouts, then a signaled one",
	  tail_client, tail_server, NULL },
	{ "solicited", "solicited-only CQ event: SOLICITED wakes, plain SEND does not",
	  solicited_client, solicited_server, NULL },
	{ "fence", "READ then fenced SEND of the READ's buffer carries the READ data",
	  fence_client, fence_server, NULL },
	{ NULL },
};
