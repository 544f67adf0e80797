// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Volume and limits: a long stream of small SENDs with the receive queue
 * replenished, 64 QPs moving data at once over shared CQs, and a CQ too
 * small for its completions.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_test.h"

#define GUARD	0xa5

/* --- many small SENDs, in order ------------------------------------------ */

#define MANY_LEN	64
#define MANY_WINDOW	64	/* outstanding SENDs */
#define MANY_SQ_SLOTS	128
#define MANY_RQ		256

/* Message seq: the pattern of seed + seq with seq in its first 4 bytes. */
static void many_msg(uint8_t *p, uint64_t seed, uint32_t seq)
{
	vt_fill(p, MANY_LEN, seed + seq);
	memcpy(p, &seq, sizeof(seq));
}

static int many_reap(struct vt *t, struct vt_ep *ep, uint32_t *done)
{
	if (vt_expect_wc(t, ep->scq, *done, IBV_WC_SUCCESS, NULL, "SEND completion"))
		return -1;
	++*done;
	return 0;
}

/*
 * --midway: a fault test starts its fault here, from the stream's own
 * progress, so the fault always lands inside the transfer whatever the
 * machine's speed. The stream goes on as soon as the command returns.
 */
static int many_midway(struct vt *t)
{
	int rc;

	vt_note(t, "midway: %s", t->opts->midway);
	fflush(NULL);
	rc = system(t->opts->midway);
	if (rc != 0)
		return vt_fail(t, "midway command '%s' failed (status %d)", t->opts->midway, rc);
	return 0;
}

static int many_client(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MANY_SQ_SLOTS * MANY_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint32_t n = t->opts->many, posted = 0, done = 0;
	bool midway_due = t->opts->midway != NULL;
	uint64_t seed = vt_rand(t);
	struct vt_qp_opts o;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.max_send_wr = MANY_SQ_SLOTS;
	if (!b || vt_ep_create(t, &ep, &o) || vt_ep_link(t, &ep, NULL) ||
	    vt_put_u64(t, seed) || vt_put_u64(t, n))
		return -1;
	while (done < n) {
		size_t off = (size_t)(posted % MANY_SQ_SLOTS) * MANY_LEN;
		struct ibv_sge sg = vt_sge(b, off, MANY_LEN);
		struct ibv_send_wr wr = vt_wr(IBV_WR_SEND, posted, &sg, 1, IBV_SEND_SIGNALED);

		if (midway_due && done >= n / 2) {
			midway_due = false;
			if (many_midway(t))
				return -1;
		}
		if (posted == n || posted - done == MANY_WINDOW) {
			if (many_reap(t, &ep, &done))
				return -1;
			continue;
		}
		many_msg(b->p + off, seed, posted);
		if (vt_post_send(t, &ep, &wr))
			return -1;
		posted++;
	}
	return vt_sync(t);
}

static int many_recv_one(struct vt *t, struct vt_ep *ep, struct vt_buf *b, uint64_t seed,
			 uint32_t seq, uint8_t *want)
{
	uint32_t slot = seq % MANY_RQ;
	uint8_t *got = b->p + (size_t)slot * MANY_LEN;
	struct ibv_sge sg = vt_sge(b, (size_t)slot * MANY_LEN, MANY_LEN);
	uint32_t got_seq;
	struct ibv_wc wc;

	size_t i;

	if (vt_expect_wc(t, ep->rcq, slot, IBV_WC_SUCCESS, &wc, "receive"))
		return -1;
	if (wc.byte_len != MANY_LEN)
		return vt_fail(t, "message %u: byte_len %u", seq, wc.byte_len);
	memcpy(&got_seq, got, sizeof(got_seq));
	if (got_seq != seq)
		return vt_fail(t, "message %u arrived as number %u: out of order", got_seq, seq);
	many_msg(want, seed, seq);
	for (i = 0; i < MANY_LEN; i++)
		if (got[i] != want[i])
			return vt_fail(t, "message %u: byte %zu is 0x%02x, expected 0x%02x",
				       seq, i, got[i], want[i]);
	return vt_post_recv(t, ep, slot, &sg, 1);
}

static int many_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, MANY_RQ * MANY_LEN, IBV_ACCESS_LOCAL_WRITE);
	uint8_t want[MANY_LEN];
	uint64_t seed, n, i;
	struct vt_qp_opts o;
	struct vt_ep ep;

	vt_qp_opts_init(t, &o);
	o.max_recv_wr = MANY_RQ;
	if (!b || vt_ep_create(t, &ep, &o))
		return -1;
	for (i = 0; i < MANY_RQ; i++) {
		struct ibv_sge sg = vt_sge(b, i * MANY_LEN, MANY_LEN);

		if (vt_post_recv(t, &ep, i, &sg, 1))
			return -1;
	}
	if (vt_ep_link(t, &ep, NULL) || vt_get_u64(t, &seed) || vt_get_u64(t, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (many_recv_one(t, &ep, b, seed, i, want))
			return -1;
	return vt_sync(t) || vt_expect_no_wc(t, ep.rcq, 0, "extra receive") ? -1 : 0;
}

/* --- 64 QPs at once ---------------------------------------------------------- */

#define NQP		64
#define ROUNDS		2
#define QP_REGION	8192	/* WRITE target of one QP */
#define QP_MSG		256	/* SEND of one QP */

struct fleet {
	struct vt_ep *ep;
	struct vt_buf *data, *msgs;
	struct ibv_cq *scq, *rcq;
};

static int fleet_create(struct vt *t, struct fleet *f, int access)
{
	struct vt_qp_opts o;

	f->ep = (struct vt_ep *)vt_mem(t, NQP * sizeof(*f->ep));
	f->data = vt_buf(t, NQP * QP_REGION, access);
	f->msgs = vt_buf(t, NQP * QP_MSG, IBV_ACCESS_LOCAL_WRITE);
	f->scq = vt_cq(t, 4 * NQP, NULL);
	f->rcq = vt_cq(t, 4 * NQP, NULL);
	if (!f->ep || !f->data || !f->msgs || !f->scq || !f->rcq)
		return -1;
	vt_qp_opts_init(t, &o);
	o.max_send_wr = 4;
	o.max_recv_wr = 2;
	o.scq = f->scq;
	o.rcq = f->rcq;
	for (int i = 0; i < NQP; i++)
		if (vt_ep_create(t, &f->ep[i], &o))
			return -1;
	return 0;
}

static int fleet_index(const struct fleet *f, uint32_t qpn)
{
	for (int i = 0; i < NQP; i++)
		if (f->ep[i].qp->qp_num == qpn)
			return i;
	return -1;
}

/* One round of the client: a WRITE and a SEND_WITH_IMM on every QP. */
static int fleet_post(struct vt *t, struct fleet *f, uint64_t seed, int round)
{
	for (int i = 0; i < NQP; i++) {
		uint32_t tag = round * NQP + i;
		struct ibv_sge wsg = vt_sge(f->data, (size_t)i * QP_REGION, QP_REGION);
		struct ibv_sge ssg = vt_sge(f->msgs, (size_t)i * QP_MSG, QP_MSG);
		struct ibv_send_wr w = vt_wr(IBV_WR_RDMA_WRITE, 2 * i, &wsg, 1, IBV_SEND_SIGNALED);
		struct ibv_send_wr s = vt_wr(IBV_WR_SEND_WITH_IMM, 2 * i + 1, &ssg, 1,
					     IBV_SEND_SIGNALED);

		vt_fill(f->data->p + (size_t)i * QP_REGION, QP_REGION, seed + tag);
		vt_fill(f->msgs->p + (size_t)i * QP_MSG, QP_MSG, ~(seed + tag));
		vt_wr_remote(&w, &f->ep[i], (uint64_t)i * QP_REGION);
		s.imm_data = htobe32(tag);
		w.next = &s;
		if (vt_post_send(t, &f->ep[i], &w))
			return -1;
	}
	return 0;
}

/* Every QP's WRITE completes, then its SEND; all on the shared CQ. */
static int fleet_reap_sends(struct vt *t, struct fleet *f)
{
	uint8_t next[NQP] = { 0 };
	struct ibv_wc wc;
	int i;

	for (int n = 0; n < 2 * NQP; n++) {
		if (vt_expect_wc(t, f->scq, VT_ANY_WR_ID, IBV_WC_SUCCESS, &wc, "shared send CQ"))
			return -1;
		i = fleet_index(f, wc.qp_num);
		if (i < 0 || wc.wr_id != (uint64_t)(2 * i + next[i]))
			return vt_fail(t, "completion wr_id %llu for qp_num %u out of place",
				       (unsigned long long)wc.wr_id, wc.qp_num);
		next[i]++;
	}
	return 0;
}

static int fleet_client(struct vt *t)
{
	uint64_t seed = vt_rand(t);
	struct fleet f;

	if (fleet_create(t, &f, IBV_ACCESS_LOCAL_WRITE))
		return -1;
	for (int i = 0; i < NQP; i++)
		if (vt_ep_link(t, &f.ep[i], NULL))
			return -1;
	if (vt_put_u64(t, seed))
		return -1;
	for (int r = 0; r < ROUNDS; r++)
		if (fleet_post(t, &f, seed, r) || fleet_reap_sends(t, &f) || vt_sync(t))
			return -1;
	return 0;
}

static int fleet_recv(struct vt *t, struct fleet *f, int i)
{
	struct ibv_sge sg = vt_sge(f->msgs, (size_t)i * QP_MSG, QP_MSG);

	return vt_post_recv(t, &f->ep[i], i, &sg, 1);
}

static int fleet_check_one(struct vt *t, struct fleet *f, uint64_t seed, int round,
			   const struct ibv_wc *wc, bool *seen)
{
	int i = fleet_index(f, wc->qp_num);
	uint32_t tag = round * NQP + i;
	char sdata[32], wdata[32];

	if (i < 0 || wc->wr_id != (uint64_t)i || seen[i])
		return vt_fail(t, "receive wr_id %llu on qp_num %u out of place",
			       (unsigned long long)wc->wr_id, wc->qp_num);
	seen[i] = true;
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || be32toh(wc->imm_data) != tag)
		return vt_fail(t, "QP %d: imm 0x%x, expected 0x%x", i, be32toh(wc->imm_data), tag);
	if (wc->byte_len != QP_MSG)
		return vt_fail(t, "QP %d: byte_len %u", i, wc->byte_len);
	snprintf(sdata, sizeof(sdata), "QP %d SEND data", i);
	snprintf(wdata, sizeof(wdata), "QP %d WRITE data", i);
	if (vt_check(t, f->msgs->p + (size_t)i * QP_MSG, QP_MSG, ~(seed + tag), sdata) ||
	    vt_check(t, f->data->p + (size_t)i * QP_REGION, QP_REGION, seed + tag, wdata))
		return -1;
	return fleet_recv(t, f, i);
}

static int fleet_server(struct vt *t)
{
	struct fleet f;
	struct ibv_wc wc;
	uint64_t seed;

	if (fleet_create(t, &f, VT_ACCESS_ALL))
		return -1;
	memset(f.data->p, GUARD, f.data->len);
	for (int i = 0; i < NQP; i++)
		if (fleet_recv(t, &f, i) || vt_ep_link(t, &f.ep[i], f.data))
			return -1;
	if (vt_get_u64(t, &seed))
		return -1;
	for (int r = 0; r < ROUNDS; r++) {
		bool seen[NQP] = { false };

		for (int n = 0; n < NQP; n++)
			if (vt_expect_wc(t, f.rcq, VT_ANY_WR_ID, IBV_WC_SUCCESS, &wc,
					 "shared receive CQ") ||
			    fleet_check_one(t, &f, seed, r, &wc, seen))
				return -1;
		if (vt_sync(t))
			return -1;
	}
	return 0;
}

/* --- CQ overflow -------------------------------------------------------------- */

#define OVERFLOW_EXTRA	16

/* After the overrun a poll may fail, but what it returns must be real:
 * completions of posted WRs, in order. A poll may return more than the CQ
 * holds: WRITEs still in flight complete into the slots it frees as it goes
 * (rxe and sroce both keep writing into a CQ that has overflowed). Another
 * QP's WRITEs still in flight on this CQ (an earlier overflow's) may land
 * among them: only @qp's are checked for order. */
static int check_overrun_cq(struct vt *t, struct ibv_cq *cq, struct ibv_qp *qp, int posted)
{
	struct ibv_wc wc[64];
	int n = ibv_poll_cq(cq, posted < 64 ? posted : 64, wc);
	int prev = -1;

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (wc[i].qp_num != qp->qp_num)
			continue;
		if (wc[i].wr_id >= (uint64_t)posted ||
		    (prev >= 0 && wc[i].wr_id <= wc[prev].wr_id))
			return vt_fail(t, "completion %d has wr_id %llu: not one posted, in order", i,
				       (unsigned long long)wc[i].wr_id);
		prev = i;
		if (wc[i].status == IBV_WC_SUCCESS && wc[i].opcode != IBV_WC_RDMA_WRITE)
			return vt_fail(t, "completion %d has opcode %d", i, wc[i].opcode);
	}
	return 0;
}

/* A QP on scq, linked to the server's, that posts more signaled WRITEs than scq holds. */
static int overflow_cq(struct vt *t, struct ibv_cq *scq, struct vt_buf *b, struct vt_ep *ep)
{
	int n = scq->cqe + OVERFLOW_EXTRA;
	struct vt_qp_opts o;

	vt_note(t, "CQ of %d entries, %d WRITEs", scq->cqe, n);
	vt_qp_opts_init(t, &o);
	o.scq = scq;
	o.max_send_wr = n;
	if (vt_ep_create(t, ep, &o) || vt_ep_link(t, ep, NULL))
		return -1;
	for (int i = 0; i < n; i++) {
		struct ibv_sge sg = vt_sge(b, 0, 8);
		struct ibv_send_wr wr = vt_wr(IBV_WR_RDMA_WRITE, i, &sg, 1, IBV_SEND_SIGNALED);

		vt_wr_remote(&wr, ep, 8 * (i % 8));
		if (vt_post_send(t, ep, &wr))
			return -1;
	}
	if (vt_wait_async(t, IBV_EVENT_CQ_ERR, scq) || check_overrun_cq(t, scq, ep->qp, n))
		return -1;
	return 0;
}

static int overflow_client(struct vt *t)
{
	struct ibv_cq *scq = vt_cq(t, 1, NULL);
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct vt_ep ep;

	if (!scq || !b || overflow_cq(t, scq, b, &ep))
		return -1;
	return vt_sync(t);
}

/*
 * An overflow is reported once per ring: after resize_cq the larger ring's
 * own overflow raises IBV_EVENT_CQ_ERR again.
 */
static int overflow_resized_client(struct vt *t)
{
	struct ibv_cq *scq = vt_cq(t, 1, NULL);
	struct vt_buf *b = vt_buf(t, 64, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc[64];
	struct vt_ep ep, ep2;
	int rc;

	if (!scq || !b || overflow_cq(t, scq, b, &ep))
		return -1;
	while (ibv_poll_cq(scq, 64, wc) > 0)
		;
	rc = ibv_resize_cq(scq, 4 * scq->cqe);
	if (rc)
		return vt_fail(t, "ibv_resize_cq: %s", strerror(rc));
	if (overflow_cq(t, scq, b, &ep2))
		return -1;
	return vt_sync(t);
}

static int overflow_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, VT_ACCESS_ALL);
	struct vt_ep ep;

	if (!b || vt_ep_up(t, &ep, b))
		return -1;
	return vt_sync(t);
}

static int overflow_resized_server(struct vt *t)
{
	struct vt_buf *b = vt_buf(t, 64, VT_ACCESS_ALL);
	struct vt_ep ep, ep2;

	if (!b || vt_ep_up(t, &ep, b) || vt_ep_up(t, &ep2, b))
		return -1;
	return vt_sync(t);
}

const struct vt_case vt_scale_cases[] = {
	{ "many_sends", "10000 (--many) 64-byte SENDs, receives replenished, order and data",
	  many_client, many_server, NULL },
	{ "qps_64", "64 QP pairs, WRITE + SEND_WITH_IMM on each at once, shared CQs, 2 rounds",
	  fleet_client, fleet_server, NULL },
	{ "cq_overflow", "a CQ too small for its completions: IBV_EVENT_CQ_ERR, no garbage",
	  overflow_client, overflow_server, NULL },
	{ "cq_overflow_resized", "overflow, resize_cq larger, overflow again: IBV_EVENT_CQ_ERR both times",
	  overflow_resized_client, overflow_resized_server, NULL },
	{ NULL },
};
