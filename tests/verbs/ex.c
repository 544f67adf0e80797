// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extended verbs API against the real device: a QP from
 * ibv_create_qp_ex with send_ops_flags driven by ibv_wr_start, ibv_wr_* and
 * ibv_wr_complete (and ibv_wr_abort), completions read from
 * ibv_create_cq_ex CQs with ibv_start_poll/next_poll/end_poll and the
 * ibv_wc_read_* accessors. Every byte moved is checked.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs_test.h"

#define EX_SEND_OPS	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define EX_WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP)

/* Where everything goes in the server's exposed buffer and the client's. */
#define WRITE_OFF	0		/* ibv_wr_rdma_write, one SGE */
#define WRITE_LEN	3000
#define WIMM_OFF	4096		/* ibv_wr_rdma_write_imm, an SGE list */
#define READ_OFF	8192		/* ibv_wr_rdma_read source */
#define READ_LEN	5000
#define ATOMIC_OFF	16384
#define SEND_OFF	20480		/* ibv_wr_send source (client) */
#define SEND_LEN	2000
#define EX_BUF		24576
#define INLINE_LEN	40
#define INLINE_A	30		/* ibv_wr_set_inline_data_list pieces */
#define INLINE_B	50
#define RECV_SLOT	4096
#define RECVS		4		/* WRITE_IMM, SEND inline, SEND_IMM inline list, SEND */

static const struct { uint32_t off, len; } wimm_sges[] = {
	{ 0, 700 }, { 1000, 1 }, { 2000, 1300 },
};
#define WIMM_LEN	2001		/* the sum */

/* The atomic target's first value, and the swap: both halves derive them. */
static uint64_t atomic_start(uint64_t seed) { return seed * 3 + 7; }
static uint64_t atomic_swap(uint64_t seed) { return ~seed; }
static __be32 imm_of(uint64_t seed, int k) { return htobe32((uint32_t)(seed >> 8) + k); }

/* What one polled completion said, through the ibv_wc_read_* accessors. */
struct ex_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, src_qp;
	unsigned int wc_flags;
	__be32 imm;
};

static void ex_read(struct ibv_cq_ex *cq, struct ex_wc *w)
{
	w->wr_id = cq->wr_id;
	w->status = cq->status;
	w->opcode = ibv_wc_read_opcode(cq);
	w->byte_len = ibv_wc_read_byte_len(cq);
	w->qp_num = ibv_wc_read_qp_num(cq);
	w->src_qp = ibv_wc_read_src_qp(cq);
	w->wc_flags = ibv_wc_read_wc_flags(cq);
	w->imm = (w->wc_flags & IBV_WC_WITH_IMM) ? ibv_wc_read_imm_data(cq) : 0;
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Collect n completions with start_poll / next_poll / end_poll. */
static int ex_poll(struct vt *t, struct ibv_cq_ex *cq, struct ex_wc *w, int n, const char *what)
{
	struct ibv_poll_cq_attr attr = { 0 };
	long long end = ms_now() + t->opts->wait_ms;
	int got = 0, rc;

	while (got < n) {
		rc = ibv_start_poll(cq, &attr);
		if (rc == ENOENT) {
			if (ms_now() > end)
				return vt_fail(t, "%s: %d of %d completions", what, got, n);
			usleep(50);
			continue;
		}
		if (rc)
			return vt_fail(t, "%s: ibv_start_poll: %s", what, strerror(rc));
		do {
			ex_read(cq, &w[got++]);
			rc = got < n ? ibv_next_poll(cq) : ENOENT;
		} while (!rc);
		ibv_end_poll(cq);
		if (rc != ENOENT)
			return vt_fail(t, "%s: ibv_next_poll: %s", what, strerror(rc));
	}
	return 0;
}

static int expect_ex(struct vt *t, const struct ex_wc *w, uint64_t wr_id,
		     enum ibv_wc_opcode opcode)
{
	if (w->status != IBV_WC_SUCCESS || w->wr_id != wr_id || w->opcode != opcode)
		return vt_fail(t, "completion wr_id %llu %s opcode %d, expected wr_id %llu "
			       "success opcode %d", (unsigned long long)w->wr_id,
			       ibv_wc_status_str(w->status), w->opcode,
			       (unsigned long long)wr_id, opcode);
	return 0;
}

/*
 * End the batch being built, then its n completions must be wr_id first_id,
 * first_id + 1, ... with the opcodes ops[], all successful.
 */
static int complete_and_expect(struct vt *t, struct vt_ep *ep, int n, uint64_t first_id,
			       const enum ibv_wc_opcode *ops, const char *what)
{
	struct ex_wc w[8];
	int i, rc;

	if (n > (int)(sizeof(w) / sizeof(w[0])))
		return vt_fail(t, "%s: %d completions is more than the helper takes", what, n);
	rc = ibv_wr_complete(ep->qpx);
	if (rc)
		return vt_fail(t, "ibv_wr_complete: %s", strerror(rc));
	if (ex_poll(t, ep->scqx, w, n, what))
		return -1;
	for (i = 0; i < n; i++)
		if (expect_ex(t, &w[i], first_id + i, ops[i]))
			return -1;
	return 0;
}

static void ex_qp_opts(struct vt *t, struct vt_qp_opts *o)
{
	vt_qp_opts_init(t, o);
	o->sig_all = false;
	o->max_inline = 128;
	o->send_ops_flags = EX_SEND_OPS;
	o->wc_flags = EX_WC_FLAGS;
}

/* WRITE, WRITE_WITH_IMM over an SGE list, inline SENDs, a SEND: one batch. */
static void post_writes_and_sends(struct vt_ep *ep, struct vt_buf *b, uint64_t seed)
{
	struct ibv_qp_ex *qpx = ep->qpx;
	struct ibv_sge list[3];
	uint8_t inl[INLINE_LEN], pieces[INLINE_A + INLINE_B];
	struct ibv_data_buf bufs[2] = {
		{ pieces, INLINE_A }, { pieces + INLINE_A, INLINE_B },
	};
	uint8_t wimm[WIMM_LEN];
	size_t i, at = 0;

	vt_fill(b->p + WRITE_OFF, WRITE_LEN, seed + 1);
	vt_fill(wimm, WIMM_LEN, seed + 2);
	for (i = 0; i < 3; i++) {
		memcpy(b->p + WIMM_OFF + wimm_sges[i].off, wimm + at, wimm_sges[i].len);
		list[i] = vt_sge(b, WIMM_OFF + wimm_sges[i].off, wimm_sges[i].len);
		at += wimm_sges[i].len;
	}
	vt_fill(inl, INLINE_LEN, seed + 3);
	vt_fill(pieces, sizeof(pieces), seed + 4);
	vt_fill(b->p + SEND_OFF, SEND_LEN, seed + 5);

	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 1;
	ibv_wr_rdma_write(qpx, ep->peer.rkey, ep->peer.addr + WRITE_OFF);
	ibv_wr_set_sge(qpx, b->mr->lkey, (uintptr_t)b->p + WRITE_OFF, WRITE_LEN);
	qpx->wr_id = 2;
	ibv_wr_rdma_write_imm(qpx, ep->peer.rkey, ep->peer.addr + WIMM_OFF, imm_of(seed, 2));
	ibv_wr_set_sge_list(qpx, 3, list);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, inl, INLINE_LEN);
	qpx->wr_id = 4;
	ibv_wr_send_imm(qpx, imm_of(seed, 4));
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, b->mr->lkey, (uintptr_t)b->p + SEND_OFF, SEND_LEN);
	/* The inline data must have been copied: scribble over it. */
	memset(inl, 0xee, sizeof(inl));
	memset(pieces, 0xee, sizeof(pieces));
}

/* READ, FETCH_AND_ADD, CMP_AND_SWP (matching), into b at READ/ATOMIC_OFF. */
static void post_read_and_atomics(struct vt_ep *ep, struct vt_buf *b, uint64_t seed)
{
	struct ibv_qp_ex *qpx = ep->qpx;
	uint64_t v = atomic_start(seed);

	memset(b->p + READ_OFF, 0xa5, READ_LEN + 16);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 6;
	ibv_wr_rdma_read(qpx, ep->peer.rkey, ep->peer.addr + READ_OFF);
	ibv_wr_set_sge(qpx, b->mr->lkey, (uintptr_t)b->p + READ_OFF, READ_LEN);
	qpx->wr_id = 7;
	ibv_wr_atomic_fetch_add(qpx, ep->peer.rkey, ep->peer.addr + ATOMIC_OFF, 5);
	ibv_wr_set_sge(qpx, b->mr->lkey, (uintptr_t)b->p + ATOMIC_OFF, 8);
	qpx->wr_id = 8;
	ibv_wr_atomic_cmp_swp(qpx, ep->peer.rkey, ep->peer.addr + ATOMIC_OFF, v + 5,
			      atomic_swap(seed));
	ibv_wr_set_sge(qpx, b->mr->lkey, (uintptr_t)b->p + ATOMIC_OFF + 8, 8);
}

static int check_read_and_atomics(struct vt *t, struct vt_buf *b, uint64_t seed)
{
	uint64_t fa, cs, v = atomic_start(seed);

	memcpy(&fa, b->p + ATOMIC_OFF, 8);
	memcpy(&cs, b->p + ATOMIC_OFF + 8, 8);
	if (fa != v || cs != v + 5)
		return vt_fail(t, "atomics returned 0x%llx, 0x%llx; expected 0x%llx, 0x%llx",
			       (unsigned long long)fa, (unsigned long long)cs,
			       (unsigned long long)v, (unsigned long long)(v + 5));
	return vt_check(t, b->p + READ_OFF, READ_LEN, seed + 6, "data read") ||
	       vt_check_byte(t, b->p + READ_OFF + READ_LEN, 16, 0xa5, "bytes after the READ");
}

static int ex_client(struct vt *t)
{
	static const enum ibv_wc_opcode first_ops[] = {
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_SEND, IBV_WC_SEND, IBV_WC_SEND,
	};
	static const enum ibv_wc_opcode second_ops[] = {
		IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
	};
	struct vt_buf *b = vt_buf(t, EX_BUF, IBV_ACCESS_LOCAL_WRITE);
	struct vt_qp_opts o;
	struct vt_ep ep;
	uint64_t seed;

	ex_qp_opts(t, &o);
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL) || vt_get_u64(t, &seed))
		return -1;
	if (ep.o.max_inline < INLINE_A + INLINE_B)
		return vt_fail(t, "QP has max_inline_data %u", ep.o.max_inline);

	/* An aborted batch posts nothing. */
	ibv_wr_start(ep.qpx);
	ep.qpx->wr_id = 99;
	ep.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(ep.qpx);
	ibv_wr_set_sge(ep.qpx, b->mr->lkey, (uintptr_t)b->p, 1);
	ibv_wr_abort(ep.qpx);

	post_writes_and_sends(&ep, b, seed);
	if (complete_and_expect(t, &ep, 5, 1, first_ops, "WRITE/SEND completions"))
		return -1;
	post_read_and_atomics(&ep, b, seed);
	if (complete_and_expect(t, &ep, 3, 6, second_ops, "READ/atomic completions") ||
	    check_read_and_atomics(t, b, seed) ||
	    vt_expect_no_wc(t, ep.scq, 0, "a completion of the aborted batch"))
		return -1;
	return vt_sync(t);
}

/* The receives: wc fields from the accessors, then the data. */
static int check_recvs(struct vt *t, struct vt_ep *ep, struct vt_buf *r, uint64_t seed)
{
	static const struct {
		enum ibv_wc_opcode op;
		uint32_t len;
		int imm;		/* k of imm_of(seed, k), 0: none */
	} want[] = {
		{ IBV_WC_RECV_RDMA_WITH_IMM, WIMM_LEN, 2 },
		{ IBV_WC_RECV, INLINE_LEN, 0 },
		{ IBV_WC_RECV, INLINE_A + INLINE_B, 4 },
		{ IBV_WC_RECV, SEND_LEN, 0 },
	};
	struct ex_wc w[RECVS];
	int i;

	if (ex_poll(t, ep->rcqx, w, RECVS, "receive completions"))
		return -1;
	for (i = 0; i < RECVS; i++) {
		if (expect_ex(t, &w[i], 10 + i, want[i].op))
			return -1;
		if (w[i].byte_len != want[i].len || w[i].qp_num != ep->qp->qp_num ||
		    w[i].src_qp != ep->peer.qpn)
			return vt_fail(t, "receive %d: byte_len %u qp_num %u src_qp %u, expected "
				       "%u %u %u", i, w[i].byte_len, w[i].qp_num, w[i].src_qp,
				       want[i].len, ep->qp->qp_num, ep->peer.qpn);
		if (!!(w[i].wc_flags & IBV_WC_WITH_IMM) != !!want[i].imm ||
		    (want[i].imm && w[i].imm != imm_of(seed, want[i].imm)))
			return vt_fail(t, "receive %d: wc_flags 0x%x imm 0x%x", i, w[i].wc_flags,
				       be32toh(w[i].imm));
	}
	/* The WRITE_WITH_IMM receive (10) carries no data; 11..13 do. */
	return vt_check(t, r->p + 1 * RECV_SLOT, INLINE_LEN, seed + 3, "inline SEND") ||
	       vt_check(t, r->p + 2 * RECV_SLOT, INLINE_A + INLINE_B, seed + 4,
			"inline-list SEND") ||
	       vt_check(t, r->p + 3 * RECV_SLOT, SEND_LEN, seed + 5, "SEND") ||
	       vt_check_byte(t, r->p + 3 * RECV_SLOT + SEND_LEN, 16, 0xa5, "after the SEND");
}

static int ex_server(struct vt *t)
{
	struct vt_buf *x = vt_buf(t, EX_BUF, VT_ACCESS_ALL);
	struct vt_buf *r = vt_buf(t, RECVS * RECV_SLOT, IBV_ACCESS_LOCAL_WRITE);
	uint64_t seed = vt_rand(t), v = atomic_start(seed);
	struct vt_qp_opts o;
	struct vt_ep ep;
	int i;

	ex_qp_opts(t, &o);
	if (!x || !r || vt_ep_create(t, &ep, &o))
		return -1;
	memset(r->p, 0xa5, r->len);
	vt_fill(x->p + READ_OFF, READ_LEN, seed + 6);
	memcpy(x->p + ATOMIC_OFF, &v, 8);
	for (i = 0; i < RECVS; i++) {
		struct ibv_sge sg = vt_sge(r, (size_t)i * RECV_SLOT, RECV_SLOT);

		if (vt_post_recv(t, &ep, 10 + i, &sg, 1))
			return -1;
	}
	if (vt_ep_link(t, &ep, x) || vt_put_u64(t, seed) || check_recvs(t, &ep, r, seed) ||
	    vt_sync(t))
		return -1;
	v = atomic_swap(seed);
	return vt_check(t, x->p + WRITE_OFF, WRITE_LEN, seed + 1, "WRITE") ||
	       vt_check(t, x->p + WIMM_OFF, WIMM_LEN, seed + 2, "WRITE_WITH_IMM gathered") ||
	       memcmp(x->p + ATOMIC_OFF, &v, 8) ?
	       vt_fail(t, "exposed memory wrong after the WRITEs or the CMP_AND_SWP") : 0;
}

const struct vt_case vt_ex_cases[] = {
	{ "ex_api", "ibv_wr_* (write, write_imm+sge_list, inline, inline list, send, read, "
	  "atomics, abort) and ibv_cq_ex polling with wc_flags, byte for byte",
	  ex_client, ex_server, NULL },
	{ NULL },
};
