// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ud.c - UD QPs and address handles: datagrams byte for byte, the GRH area
 * of every receive, the work completion's UD fields, Q_Key rules, length
 * limits, and what an address handle may and may not reach.
 *
 * The client half sends, the server half receives and judges. Each side
 * makes one UD QP; they trade QP number, Q_Key and GID, and the client
 * makes an AH for the server's GID. Drops are shown by what arrives next:
 * every datagram carries its sequence number, and the receive that takes
 * the datagram after a dropped one must hold that later one.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs_test.h"

#define UD_GRH		40
#define UD_QKEY		0x11110000u
/*
 * What the client's AHs ask for; the traffic class and flow label are
 * checked in every GRH area the server gets. The hop limit is not: for a
 * unicast RoCE AH ib_core replaces it with the route's when it resolves
 * the MAC (ib_resolve_unicast_gid_dmac()).
 */
#define UD_TCLASS	0x20		/* DSCP 8, not ECN-capable */
#define UD_HOP_LIMIT	7
#define UD_FLOW_LABEL	0x12345		/* IPv6 only */
#define UD_DEPTH	32

struct ud_info {
	uint32_t qpn, qkey;
	uint8_t gid[16];
};

struct ud_ep {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ud_info me, peer;
	uint32_t mtu;			/* the port's active MTU in bytes */
};

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

static int ud_modify(struct vt *t, struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		     const char *what)
{
	int rc = ibv_modify_qp(qp, a, mask);

	return rc ? vt_fail(t, "modify to %s: %s", what, strerror(rc)) : 0;
}

/* A UD QP in RTS with Q_Key qkey, on pd (NULL: the case's). */
static int ud_ep_create(struct vt *t, struct ud_ep *ep, uint32_t qkey, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = UD_DEPTH, .max_recv_wr = UD_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = t->dev->port,
				 .qkey = qkey };

	memset(ep, 0, sizeof(*ep));
	ep->scq = vt_cq(t, 2 * UD_DEPTH, NULL);
	ep->rcq = vt_cq(t, 2 * UD_DEPTH, NULL);
	if (!ep->scq || !ep->rcq)
		return -1;
	ia.send_cq = ep->scq;
	ia.recv_cq = ep->rcq;
	ep->qp = vt_qp(t, pd ?: t->pd, &ia);
	if (!ep->qp)
		return -1;
	if (ud_modify(t, ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_QKEY, "INIT"))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ud_modify(t, ep->qp, &a, IBV_QP_STATE, "RTR"))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = vt_rand(t) & 0xffffff;
	if (ud_modify(t, ep->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS"))
		return -1;
	ep->me.qpn = ep->qp->qp_num;
	ep->me.qkey = qkey;
	memcpy(ep->me.gid, t->dev->gid.raw, sizeof(ep->me.gid));
	ep->mtu = mtu_bytes(t->dev->port_attr.active_mtu);
	return 0;
}

static int ud_exchange(struct vt *t, struct ud_ep *ep)
{
	struct ud_info m = ep->me, p;

	m.qpn = htobe32(m.qpn);
	m.qkey = htobe32(m.qkey);
	if (vt_put(t, &m, sizeof(m)) || vt_get(t, &p, sizeof(p)))
		return -1;
	ep->peer = p;
	ep->peer.qpn = be32toh(p.qpn);
	ep->peer.qkey = be32toh(p.qkey);
	return 0;
}

/* An AH for the peer's GID, on pd (NULL: the case's). */
static struct ibv_ah *ud_ah(struct vt *t, const struct ud_ep *ep, struct ibv_pd *pd)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = t->dev->port,
		.grh = { .sgid_index = t->dev->gid_index, .hop_limit = UD_HOP_LIMIT,
			 .traffic_class = UD_TCLASS, .flow_label = UD_FLOW_LABEL },
	};

	memcpy(a.grh.dgid.raw, ep->peer.gid, sizeof(a.grh.dgid.raw));
	return vt_ah(t, pd ?: t->pd, &a);
}

static int ud_post_send(struct vt *t, struct ud_ep *ep, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(ep->qp, wr, &bad);

	return rc ? vt_fail(t, "ibv_post_send (wr_id %llu): %s",
			    (unsigned long long)wr->wr_id, strerror(rc)) : 0;
}

/* Post one datagram of len bytes from b to the peer. */
static int ud_post_one(struct vt *t, struct ud_ep *ep, struct ibv_ah *ah, struct vt_buf *b,
		       uint32_t len, uint64_t wr_id, uint32_t qkey, bool imm)
{
	struct ibv_sge sge = vt_sge(b, 0, len);
	struct ibv_send_wr wr = vt_wr(imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, wr_id, &sge,
				      1, IBV_SEND_SIGNALED);

	wr.imm_data = htobe32((uint32_t)wr_id);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ep->peer.qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ud_post_send(t, ep, &wr);
}

static int ud_post_recv(struct vt *t, struct ud_ep *ep, struct vt_buf *b, uint64_t wr_id)
{
	struct ibv_sge sge = vt_sge(b, 0, b->len);
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc = ibv_post_recv(ep->qp, &wr, &bad);

	return rc ? vt_fail(t, "ibv_post_recv: %s", strerror(rc)) : 0;
}

/* The payload of datagram seq: a pattern from the seed, seq in its first byte. */
static uint64_t ud_seed(uint64_t seq)
{
	return 0x5a5a0000u + seq;
}

static bool gid_is_v4(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

/* An IPv6 multicast GID, or an IPv4-mapped one of 224.0.0.0/4. */
static bool ud_gid_is_group(const uint8_t *gid)
{
	return gid_is_v4(gid) ? (gid[12] & 0xf0) == 0xe0 : gid[0] == 0xff;
}

/*
 * The 40 bytes before the payload: the IPv6 header, or 20 zero bytes and
 * the IPv4 header, from the sender's address to ours, carrying UDP, with
 * the traffic class (and IPv6 flow label) of the sender's AH.
 */
static int ud_check_grh(struct vt *t, const struct ud_ep *ep, const uint8_t *grh)
{
	static const uint8_t zero[20];

	if (gid_is_v4(ep->me.gid)) {
		const uint8_t *ip = grh + 20;

		if (memcmp(grh, zero, sizeof(zero)))
			return vt_fail(t, "GRH: the 20 bytes before the IPv4 header are not zero");
		if (ip[0] != 0x45 || ip[9] != 17)
			return vt_fail(t, "GRH: not an IPv4/UDP header (0x%02x, proto %u)",
				       ip[0], ip[9]);
		if (memcmp(ip + 12, ep->peer.gid + 12, 4) || memcmp(ip + 16, ep->me.gid + 12, 4))
			return vt_fail(t, "GRH: IPv4 addresses are not sender -> receiver");
		if (ip[1] != UD_TCLASS)
			return vt_fail(t, "GRH: IPv4 TOS 0x%02x, the AH asked for 0x%02x", ip[1],
				       UD_TCLASS);
		return 0;
	}
	if (grh[0] >> 4 != 6 || grh[6] != 17)
		return vt_fail(t, "GRH: not an IPv6/UDP header (0x%02x, next %u)", grh[0], grh[6]);
	if (memcmp(grh + 8, ep->peer.gid, 16) || memcmp(grh + 24, ep->me.gid, 16))
		return vt_fail(t, "GRH: IPv6 addresses are not sender -> receiver");
	if (((grh[0] & 0xf) << 4 | grh[1] >> 4) != UD_TCLASS ||
	    ((grh[1] & 0xfu) << 16 | grh[2] << 8 | grh[3]) != UD_FLOW_LABEL)
		return vt_fail(t, "GRH: IPv6 traffic class or flow label is not the AH's");
	return 0;
}

/*
 * The next receive completion must be datagram seq of len bytes in b:
 * status, every UD field, GRH, payload, nothing written past byte_len.
 */
static int ud_expect_dgram(struct vt *t, struct ud_ep *ep, struct vt_buf *b, uint64_t seq,
			   uint32_t len, bool imm)
{
	struct ibv_ah_attr ah_attr;
	struct ibv_wc wc;
	char what[64];

	snprintf(what, sizeof(what), "datagram %llu", (unsigned long long)seq);
	if (vt_expect_wc(t, ep->rcq, VT_ANY_WR_ID, IBV_WC_SUCCESS, &wc, what))
		return -1;
	if (wc.opcode != IBV_WC_RECV || wc.byte_len != UD_GRH + len)
		return vt_fail(t, "%s: opcode %d byte_len %u, expected RECV and %u", what,
			       wc.opcode, wc.byte_len, UD_GRH + len);
	if (!(wc.wc_flags & IBV_WC_GRH))
		return vt_fail(t, "%s: no IBV_WC_GRH", what);
	if (!!(wc.wc_flags & IBV_WC_WITH_IMM) != imm ||
	    (imm && be32toh(wc.imm_data) != (uint32_t)seq))
		return vt_fail(t, "%s: immediate data wrong (flags 0x%x)", what, wc.wc_flags);
	if (wc.src_qp != ep->peer.qpn || wc.qp_num != ep->qp->qp_num)
		return vt_fail(t, "%s: src_qp %u qp_num %u, expected %u and %u", what,
			       wc.src_qp, wc.qp_num, ep->peer.qpn, ep->qp->qp_num);
	if (wc.sl != 0 || wc.pkey_index != 0)
		return vt_fail(t, "%s: sl %u pkey_index %u, expected 0", what, wc.sl,
			       wc.pkey_index);
	if (ud_check_grh(t, ep, b->p) ||
	    vt_check(t, b->p + UD_GRH, len, ud_seed(seq), what) ||
	    vt_check_byte(t, b->p + UD_GRH + len, b->len - UD_GRH - len, 0xa5,
			  "past byte_len"))
		return -1;
	/* What a UD responder does with it: an AH back to the sender (a group's: no). */
	if (ud_gid_is_group(ep->me.gid))
		return 0;
	if (ibv_init_ah_from_wc(t->dev->ctx, t->dev->port, &wc, (struct ibv_grh *)b->p,
				&ah_attr))
		return vt_fail(t, "%s: ibv_init_ah_from_wc: %s", what, strerror(errno));
	if (memcmp(ah_attr.grh.dgid.raw, ep->peer.gid, 16))
		return vt_fail(t, "%s: ibv_init_ah_from_wc found another sender", what);
	return 0;
}

/* The server's receive buffers: GRH area plus up to max bytes, 0xa5 filled. */
static struct vt_buf *ud_recv_buf(struct vt *t, uint32_t max)
{
	struct vt_buf *b = vt_buf(t, UD_GRH + max, IBV_ACCESS_LOCAL_WRITE);

	if (b)
		memset(b->p, 0xa5, b->len);
	return b;
}

static void ud_fill_send(struct vt_buf *b, uint64_t seq, uint32_t len)
{
	vt_fill(b->p, len, ud_seed(seq));
}

/* Datagram seq of len bytes, sent and completed successfully. */
static int ud_send_ok(struct vt *t, struct ud_ep *ep, struct ibv_ah *ah, struct vt_buf *b,
		      uint32_t len, uint64_t seq, uint32_t qkey, bool imm)
{
	ud_fill_send(b, seq, len);
	if (ud_post_one(t, ep, ah, b, len, seq, qkey, imm))
		return -1;
	return vt_expect_wc(t, ep->scq, seq, IBV_WC_SUCCESS, NULL, "send");
}

/*
 * The client side of a case: its QP, an AH to the server, a send buffer
 * of one byte more than the port MTU; then the start signal.
 */
static int ud_client_up(struct vt *t, struct ud_ep *ep, struct ibv_ah **ah, struct vt_buf **b)
{
	if (ud_ep_create(t, ep, UD_QKEY, NULL) || ud_exchange(t, ep))
		return -1;
	*ah = ud_ah(t, ep, NULL);
	*b = vt_buf(t, ep->mtu + 1, VT_ACCESS_ALL);
	return *ah && *b ? vt_sync(t) : -1;
}

/* The server side: its QP, n receives of payload bytes after the GRH area. */
static int ud_server_up(struct vt *t, struct ud_ep *ep, struct vt_buf **b, int n,
			uint32_t payload)
{
	int i;

	if (ud_ep_create(t, ep, UD_QKEY, NULL))
		return -1;
	for (i = 0; i < n; i++) {
		b[i] = ud_recv_buf(t, payload ?: ep->mtu);
		if (!b[i] || ud_post_recv(t, ep, b[i], i))
			return -1;
	}
	return ud_exchange(t, ep) || vt_sync(t) ? -1 : 0;
}

/* --- ud_send ----------------------------------------------------------------- */

/* Sizes: 1 byte, odd, and the port MTU; every other one with immediate. */
static uint32_t ud_send_len(const struct ud_ep *ep, int i)
{
	const uint32_t sizes[] = { 1, 255, 1000 };

	return i < 3 ? (sizes[i] < ep->mtu ? sizes[i] : ep->mtu) : ep->mtu;
}

#define UD_SEND_COUNT	4

static int ud_send_client(struct vt *t)
{
	struct ud_ep ep;
	struct ibv_ah *ah;
	struct vt_buf *b;
	int i;

	if (ud_client_up(t, &ep, &ah, &b))
		return -1;
	for (i = 0; i < UD_SEND_COUNT; i++)
		if (ud_send_ok(t, &ep, ah, b, ud_send_len(&ep, i), i, ep.peer.qkey, i & 1))
			return -1;
	return vt_sync(t);
}

/* What datagram i of a case is: its length, and whether it carries immediate. */
typedef uint32_t (*ud_len_fn)(const struct ud_ep *ep, int i, bool *imm);

/* The server of a case that receives n datagrams, each in its own receive. */
static int ud_receive_all(struct vt *t, int n, uint32_t payload, ud_len_fn len_of)
{
	struct vt_buf *b[UD_DEPTH];
	struct ud_ep ep;
	int i;

	if (n > UD_DEPTH || ud_server_up(t, &ep, b, n, payload))
		return -1;
	for (i = 0; i < n; i++) {
		bool imm;
		uint32_t len = len_of(&ep, i, &imm);

		if (ud_expect_dgram(t, &ep, b[i], i, len, imm))
			return -1;
	}
	return vt_sync(t);
}

static uint32_t ud_send_len_imm(const struct ud_ep *ep, int i, bool *imm)
{
	*imm = i & 1;
	return ud_send_len(ep, i);
}

static int ud_send_server(struct vt *t)
{
	return ud_receive_all(t, UD_SEND_COUNT, 0, ud_send_len_imm);
}

/* --- datagrams that must not arrive, then one that must ---------------------- */

enum ud_qkey_use { UD_QK_PEER, UD_QK_WRONG, UD_QK_OWN };

/* A length of 0 means one byte more than the port MTU. */
struct ud_seq {
	uint32_t recv_payload;			/* the server's one receive */
	int nsend;
	struct { uint32_t len; enum ud_qkey_use qkey; } send[3];
	int expect;				/* the datagram that lands in it */
};

/*
 * ud_qkey: datagram 0 carries a Q_Key that is not the server's: dropped.
 * Datagram 1 asks for the sender's own Q_Key (high bit set), which is the
 * server's: delivered, into the receive 0 was refused.
 */
static const struct ud_seq ud_qkey_seq = {
	64, 2, { { 64, UD_QK_WRONG }, { 64, UD_QK_OWN } }, 1,
};

/*
 * ud_too_long: datagram 0 (300 B) does not fit the 40 + 200 byte receive:
 * dropped, the receive stays posted. Datagram 1 is longer than the port
 * MTU: the send completes successfully and nothing is sent (C10-93.1.1).
 * Datagram 2 (200 B) lands in the receive datagram 0 could not use.
 */
static const struct ud_seq ud_too_long_seq = {
	200, 3, { { 300, UD_QK_PEER }, { 0, UD_QK_PEER }, { 200, UD_QK_PEER } }, 2,
};

static uint32_t ud_seq_len(const struct ud_ep *ep, uint32_t len)
{
	return len ?: ep->mtu + 1;
}

/* Every send completes successfully, whatever becomes of its datagram. */
static int ud_seq_client(struct vt *t)
{
	const struct ud_seq *q = t->arg;
	struct ud_ep ep;
	struct ibv_ah *ah;
	struct vt_buf *b;
	int i;

	if (ud_client_up(t, &ep, &ah, &b))
		return -1;
	for (i = 0; i < q->nsend; i++) {
		uint32_t len = ud_seq_len(&ep, q->send[i].len);
		uint32_t qkey = q->send[i].qkey == UD_QK_OWN ? 0x80000000u :
				q->send[i].qkey == UD_QK_WRONG ? ep.peer.qkey ^ 1 : ep.peer.qkey;

		if (ud_send_ok(t, &ep, ah, b, len, i, qkey, false))
			return -1;
	}
	return vt_sync(t);
}

static int ud_seq_server(struct vt *t)
{
	const struct ud_seq *q = t->arg;
	struct ud_ep ep;
	struct vt_buf *b;

	if (ud_server_up(t, &ep, &b, 1, q->recv_payload) ||
	    ud_expect_dgram(t, &ep, b, q->expect, ud_seq_len(&ep, q->send[q->expect].len),
			    false))
		return -1;
	return vt_sync(t);
}

/* --- AHs another PD or process owns ----------------------------------------- */

/* A send through ah must fail with LOC_QP_OP_ERR, and reach nobody. */
static int ud_expect_refused(struct vt *t, struct ud_ep *ep, struct ibv_ah *ah)
{
	struct vt_buf *b = vt_buf(t, 64, VT_ACCESS_ALL);

	if (!b)
		return -1;
	ud_fill_send(b, 0, 64);
	if (ud_post_one(t, ep, ah, b, 64, 0, ep->peer.qkey, false) ||
	    vt_expect_wc(t, ep->scq, 0, IBV_WC_LOC_QP_OP_ERR, NULL, "send through a foreign AH"))
		return -1;
	return vt_expect_state(t, ep->qp, IBV_QPS_ERR, t->opts->wait_ms, "after the refused send");
}

static int ud_ah_other_pd_client(struct vt *t)
{
	struct ibv_pd *pd2 = vt_pd(t);
	struct ud_ep ep;
	struct ibv_ah *ah;

	if (!pd2 || ud_ep_create(t, &ep, UD_QKEY, NULL) || ud_exchange(t, &ep))
		return -1;
	ah = ud_ah(t, &ep, pd2);
	if (!ah || vt_sync(t) || ud_expect_refused(t, &ep, ah))
		return -1;
	return vt_sync(t);
}

/*
 * Another open of the device is another process as far as the kernel can
 * tell: its AHs live in another table. It makes three; the third's index
 * is one this context has not handed out (it made one AH).
 */
static int ud_ah_other_context_client(struct vt *t)
{
	struct ibv_context *ctx2 = ibv_open_device(t->dev->ctx->device);
	struct ibv_ah *mine, *theirs[3] = {};
	struct ibv_pd *pd2 = NULL;
	struct ud_ep ep;
	int i, rc = -1;

	if (!ctx2)
		return vt_fail(t, "second ibv_open_device: %s", strerror(errno));
	if (ud_ep_create(t, &ep, UD_QKEY, NULL) || ud_exchange(t, &ep))
		goto out;
	mine = ud_ah(t, &ep, NULL);
	pd2 = ibv_alloc_pd(ctx2);
	if (!mine || !pd2) {
		vt_fail(t, "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 3; i++) {
		struct ibv_ah_attr a = {
			.is_global = 1, .port_num = t->dev->port,
			.grh = { .sgid_index = t->dev->gid_index, .hop_limit = 64 },
		};

		memcpy(a.grh.dgid.raw, ep.peer.gid, 16);
		theirs[i] = ibv_create_ah(pd2, &a);
		if (!theirs[i]) {
			vt_fail(t, "ibv_create_ah in the second context: %s", strerror(errno));
			goto out;
		}
	}
	if (vt_sync(t) || ud_expect_refused(t, &ep, theirs[2]))
		goto out;
	rc = vt_sync(t);
out:
	for (i = 0; i < 3; i++)
		if (theirs[i])
			ibv_destroy_ah(theirs[i]);
	if (pd2)
		ibv_dealloc_pd(pd2);
	ibv_close_device(ctx2);
	return rc;
}

/* The server sees nothing: the refused sends reach nobody. */
static int ud_refused_server(struct vt *t)
{
	struct ud_ep ep;
	struct vt_buf *b;

	if (ud_server_up(t, &ep, &b, 1, 64) || vt_sync(t))
		return -1;
	return vt_expect_no_wc(t, ep.rcq, 100, "receive after refused sends");
}

/* --- ud_ah_destroyed_in_flight ------------------------------------------------ */

/*
 * WQEs posted before ibv_destroy_ah() still go to the AH's destination.
 * They are posted in SQD, where the device sends nothing, so they are
 * certainly still waiting when the AH goes; SQD -> RTS then sends them.
 */
#define UD_IN_FLIGHT	8

static int ud_ah_destroyed_client(struct vt *t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };
	struct ibv_send_wr wr[UD_IN_FLIGHT];
	struct ibv_sge sge[UD_IN_FLIGHT];
	struct vt_buf *b[UD_IN_FLIGHT];
	struct ud_ep ep;
	struct ibv_ah *ah;
	int i;

	if (ud_ep_create(t, &ep, UD_QKEY, NULL) || ud_exchange(t, &ep))
		return -1;
	ah = ud_ah(t, &ep, NULL);
	if (!ah || vt_sync(t) || ud_modify(t, ep.qp, &a, IBV_QP_STATE, "SQD"))
		return -1;
	for (i = 0; i < UD_IN_FLIGHT; i++) {
		b[i] = vt_buf(t, 128, VT_ACCESS_ALL);
		if (!b[i])
			return -1;
		ud_fill_send(b[i], i, 128);
		sge[i] = vt_sge(b[i], 0, 128);
		wr[i] = vt_wr(IBV_WR_SEND, i, &sge[i], 1, IBV_SEND_SIGNALED);
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = ep.peer.qpn;
		wr[i].wr.ud.remote_qkey = ep.peer.qkey;
		wr[i].next = i + 1 < UD_IN_FLIGHT ? &wr[i + 1] : NULL;
	}
	if (ud_post_send(t, &ep, wr) || vt_destroy(t, ah))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	if (ud_modify(t, ep.qp, &a, IBV_QP_STATE, "RTS"))
		return -1;
	for (i = 0; i < UD_IN_FLIGHT; i++)
		if (vt_expect_wc(t, ep.scq, i, IBV_WC_SUCCESS, NULL, "send after destroy_ah"))
			return -1;
	return vt_sync(t);
}

static uint32_t ud_in_flight_len(const struct ud_ep *ep, int i, bool *imm)
{
	(void)ep;
	(void)i;
	*imm = false;
	return 128;
}

static int ud_ah_destroyed_server(struct vt *t)
{
	return ud_receive_all(t, UD_IN_FLIGHT, 128, ud_in_flight_len);
}

/* --- multicast --------------------------------------------------------------- */

#define UD_MCAST_QPN	0xffffffu
#define UD_MCAST_N	3		/* datagrams to the group before the detach */

/* The group of the cases: an IPv4 one for an IPv4 GID, else an IPv6 one. */
static void ud_mcast_gid(const uint8_t *gid, uint8_t group[16], int n)
{
	static const uint8_t v6[16] = { 0xff, 0x0e, [13] = 0x53, [14] = 0x52 };

	memcpy(group, v6, 16);
	if (gid_is_v4(gid)) {
		memset(group, 0, 10);
		group[10] = group[11] = 0xff;
		group[12] = 239;
		group[13] = 83;
		group[14] = 82;
	}
	group[15] = (uint8_t)n;
}

/* ibv_attach_mcast (attach) or ibv_detach_mcast on group; it must return expect. */
static int ud_mcast_verb(struct vt *t, struct ibv_qp *qp, const uint8_t *group, bool attach,
			 int expect)
{
	union ibv_gid g;
	int rc;

	memcpy(g.raw, group, 16);
	rc = attach ? ibv_attach_mcast(qp, &g, 0) : ibv_detach_mcast(qp, &g, 0);
	return rc == expect ? 0 : vt_fail(t, "ibv_%s_mcast(QP %u): %s, expected %s",
					  attach ? "attach" : "detach", qp->qp_num,
					  strerror(rc), strerror(expect));
}

static int ud_attach(struct vt *t, struct ibv_qp *qp, const uint8_t *group, int expect)
{
	return ud_mcast_verb(t, qp, group, true, expect);
}

static int ud_detach(struct vt *t, struct ibv_qp *qp, const uint8_t *group, int expect)
{
	return ud_mcast_verb(t, qp, group, false, expect);
}

/*
 * What the server tells the client: the group, and the QPs that are not
 * (or no longer) attached, each with its Q_Key, for the unicast datagrams
 * that show what they did not receive.
 */
struct ud_mcast_info {
	uint8_t group[16];
	uint8_t gid[16];
	uint32_t qpn[3], qkey[3];
};

enum { UD_MC_A, UD_MC_B, UD_MC_OTHER_QKEY, UD_MC_NOT_ATTACHED, UD_MC_EPS };

/* Unicast marker datagrams: after the group's, to a QP that must not have them. */
#define UD_MC_MARK	100

/* A datagram seq from the client to the group: the GRH names the group. */
static int ud_expect_group_dgram(struct vt *t, struct ud_ep *ep, struct vt_buf *b,
				 uint64_t seq, const uint8_t *group)
{
	uint8_t me[16];
	int err;

	memcpy(me, ep->me.gid, 16);
	memcpy(ep->me.gid, group, 16);	/* what ud_check_grh() wants as destination */
	err = ud_expect_dgram(t, ep, b, seq, 64, false);
	memcpy(ep->me.gid, me, 16);
	return err;
}

/* Each server QP's receives; ud_expect_dgram() wants them in order. */
struct ud_mc_server {
	struct ud_ep ep[UD_MC_EPS];
	struct vt_buf *b[UD_MC_EPS][UD_MCAST_N + 2];
	int next[UD_MC_EPS];
	uint8_t group[16];
};

static int ud_mc_expect(struct vt *t, struct ud_mc_server *s, int i, uint64_t seq)
{
	struct vt_buf *b = s->b[i][s->next[i]++];

	if (seq >= UD_MC_MARK)
		return ud_expect_dgram(t, &s->ep[i], b, seq, 64, false);
	return ud_expect_group_dgram(t, &s->ep[i], b, seq, s->group);
}

static int ud_mc_server_up(struct vt *t, struct ud_mc_server *s)
{
	struct ud_mcast_info info = { 0 };
	int i, j;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < UD_MC_EPS; i++) {
		if (ud_ep_create(t, &s->ep[i], i == UD_MC_OTHER_QKEY ? UD_QKEY + 1 : UD_QKEY,
				 NULL))
			return -1;
		for (j = 0; j < UD_MCAST_N + 2; j++) {
			s->b[i][j] = ud_recv_buf(t, 64);
			if (!s->b[i][j] || ud_post_recv(t, &s->ep[i], s->b[i][j], j))
				return -1;
		}
	}
	ud_mcast_gid(s->ep[0].me.gid, s->group, 1);
	for (i = UD_MC_A; i <= UD_MC_OTHER_QKEY; i++)
		if (ud_attach(t, s->ep[i].qp, s->group, 0))
			return -1;
	memcpy(info.group, s->group, 16);
	memcpy(info.gid, s->ep[0].me.gid, 16);
	for (i = 0; i < 3; i++) {
		info.qpn[i] = htobe32(s->ep[i + 1].me.qpn);
		info.qkey[i] = htobe32(s->ep[i + 1].me.qkey);
	}
	if (vt_put(t, &info, sizeof(info)) || vt_get(t, &s->ep[0].peer, sizeof(s->ep[0].peer)))
		return -1;
	s->ep[0].peer.qpn = be32toh(s->ep[0].peer.qpn);
	for (i = 1; i < UD_MC_EPS; i++)
		s->ep[i].peer = s->ep[0].peer;
	return vt_sync(t);
}

/*
 * Two QPs attached with the group's Q_Key get every datagram sent to the
 * group, one attached with another Q_Key and one not attached get none:
 * the first datagram each of those receives is the unicast marker sent
 * after the group's. Then B detaches: A still gets the group's next
 * datagram, B only its marker.
 */
static int ud_mcast_send_server(struct vt *t)
{
	struct ud_mc_server s;
	int i, n;

	if (ud_mc_server_up(t, &s))
		return -1;
	for (n = 0; n < UD_MCAST_N; n++)
		if (ud_mc_expect(t, &s, UD_MC_A, n) || ud_mc_expect(t, &s, UD_MC_B, n))
			return -1;
	if (ud_mc_expect(t, &s, UD_MC_OTHER_QKEY, UD_MC_MARK + UD_MC_OTHER_QKEY) ||
	    ud_mc_expect(t, &s, UD_MC_NOT_ATTACHED, UD_MC_MARK + UD_MC_NOT_ATTACHED))
		return -1;
	if (ud_detach(t, s.ep[UD_MC_B].qp, s.group, 0) || vt_sync(t))
		return -1;
	if (ud_mc_expect(t, &s, UD_MC_A, UD_MCAST_N) ||
	    ud_mc_expect(t, &s, UD_MC_B, UD_MC_MARK + UD_MC_B))
		return -1;
	for (i = UD_MC_A; i <= UD_MC_OTHER_QKEY; i++)
		if (i != UD_MC_B && ud_detach(t, s.ep[i].qp, s.group, 0))
			return -1;
	return vt_sync(t);
}

/* Datagram seq to the group (remote QPN 0xFFFFFF), or a marker to server QP i. */
static int ud_mc_send(struct vt *t, struct ud_ep *ep, struct ibv_ah *ah, struct vt_buf *b,
		      uint64_t seq, const struct ud_mcast_info *info, int i)
{
	ep->peer.qpn = i ? be32toh(info->qpn[i - 1]) : UD_MCAST_QPN;
	return ud_send_ok(t, ep, ah, b, 64, seq, i ? be32toh(info->qkey[i - 1]) : UD_QKEY,
			  false);
}

static int ud_mcast_send_client(struct vt *t)
{
	struct ud_mcast_info info;
	struct ibv_ah *group_ah, *server_ah;
	struct ud_info me;
	struct ud_ep ep;
	struct vt_buf *b;
	int n;

	if (ud_ep_create(t, &ep, UD_QKEY, NULL) || vt_get(t, &info, sizeof(info)))
		return -1;
	me = ep.me;
	me.qpn = htobe32(me.qpn);
	if (vt_put(t, &me, sizeof(me)))
		return -1;
	memcpy(ep.peer.gid, info.group, 16);
	group_ah = ud_ah(t, &ep, NULL);
	memcpy(ep.peer.gid, info.gid, 16);
	server_ah = ud_ah(t, &ep, NULL);
	b = vt_buf(t, 64, VT_ACCESS_ALL);
	if (!group_ah || !server_ah || !b || vt_sync(t))
		return -1;
	for (n = 0; n < UD_MCAST_N; n++)
		if (ud_mc_send(t, &ep, group_ah, b, n, &info, 0))
			return -1;
	if (ud_mc_send(t, &ep, server_ah, b, UD_MC_MARK + UD_MC_OTHER_QKEY, &info,
		       UD_MC_OTHER_QKEY) ||
	    ud_mc_send(t, &ep, server_ah, b, UD_MC_MARK + UD_MC_NOT_ATTACHED, &info,
		       UD_MC_NOT_ATTACHED))
		return -1;
	if (vt_sync(t))		/* B detached */
		return -1;
	if (ud_mc_send(t, &ep, group_ah, b, UD_MCAST_N, &info, 0) ||
	    ud_mc_send(t, &ep, server_ah, b, UD_MC_MARK + UD_MC_B, &info, UD_MC_B))
		return -1;
	return vt_sync(t);
}

/*
 * The verbs' refusals: an RC QP, a GID that is no group, detaching what
 * is not attached (twice, or never); attaching twice attaches once.
 */
static int ud_mcast_errors_client(struct vt *t)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	const struct ibv_device_attr *a = &t->dev->attr;
	uint8_t group[16], other[16];
	struct ibv_qp *rc;
	struct ud_ep ep;

	if (!a->max_mcast_grp || !a->max_mcast_qp_attach || !a->max_total_mcast_qp_attach)
		return vt_fail(t, "device advertises no multicast (%d groups, %d QPs each, %d)",
			       a->max_mcast_grp, a->max_mcast_qp_attach,
			       a->max_total_mcast_qp_attach);
	if (ud_ep_create(t, &ep, UD_QKEY, NULL))
		return -1;
	ia.send_cq = ia.recv_cq = ep.scq;
	rc = vt_qp(t, t->pd, &ia);
	if (!rc)
		return -1;
	ud_mcast_gid(ep.me.gid, group, 2);
	ud_mcast_gid(ep.me.gid, other, 3);
	if (ud_attach(t, rc, group, EINVAL) ||
	    ud_attach(t, ep.qp, ep.me.gid, EINVAL) ||
	    ud_detach(t, ep.qp, group, EINVAL) ||
	    ud_attach(t, ep.qp, group, 0) || ud_attach(t, ep.qp, group, 0) ||
	    ud_detach(t, ep.qp, other, EINVAL) ||
	    ud_detach(t, ep.qp, group, 0) || ud_detach(t, ep.qp, group, EINVAL))
		return -1;
	return 0;
}

/* The largest limits ud_mcast_limits fills; a device with more is not tried. */
#define UD_MC_MAX_QPS		64
#define UD_MC_MAX_GROUPS	512
#define UD_MC_MAX_TOTAL		4096

/* Group n of ud_mcast_limits. */
static void ud_mc_fill_gid(struct vt *t, uint8_t g[16], int n)
{
	ud_mcast_gid(t->dev->gid.raw, g, 0);
	g[14] = (uint8_t)(n >> 8);
	g[15] = (uint8_t)n;
}

/*
 * Attachment k is QP k % nqp on group k / nqp: the first total succeed,
 * the next fails with ENOMEM. Then all are detached.
 */
static int ud_mc_fill(struct vt *t, struct ibv_qp **qp, int nqp, int total)
{
	uint8_t g[16];
	int k, err = 0;

	for (k = 0; k <= total && !err; k++) {
		ud_mc_fill_gid(t, g, k / nqp);
		err = ud_attach(t, qp[k % nqp], g, k < total ? 0 : ENOMEM);
	}
	while (--k >= 0) {
		ud_mc_fill_gid(t, g, k / nqp);
		ibv_detach_mcast(qp[k % nqp], (union ibv_gid *)g, 0);
	}
	return err;
}

/*
 * Each limit query_device advertises is the one enforced: QPs per group,
 * groups, attachments in all; the one past it fails with ENOMEM.
 */
static int ud_mcast_limits_client(struct vt *t)
{
	const struct ibv_device_attr *a = &t->dev->attr;
	int nqp = a->max_mcast_qp_attach, ngrp = a->max_mcast_grp;
	int total = a->max_total_mcast_qp_attach;
	struct ibv_qp *qp[UD_MC_MAX_QPS + 1];
	struct ud_ep ep;
	int i;

	if (nqp < 1 || ngrp < 2 || total < nqp)
		return vt_fail(t, "no multicast limits to fill: %d QPs per group, %d groups, %d",
			       nqp, ngrp, total);
	if (nqp > UD_MC_MAX_QPS || ngrp > UD_MC_MAX_GROUPS || total > UD_MC_MAX_TOTAL ||
	    total / nqp + 1 > ngrp || total % nqp) {
		vt_note(t, "limits %d/%d/%d: not filled here", nqp, ngrp, total);
		return 0;
	}
	for (i = 0; i <= nqp; i++) {
		if (ud_ep_create(t, &ep, UD_QKEY, NULL))
			return -1;
		qp[i] = ep.qp;
	}
	/* nqp + 1 QPs on one group; one QP on ngrp + 1 groups; then all. */
	if (ud_mc_fill(t, qp, nqp + 1, nqp) || ud_mc_fill(t, qp, 1, ngrp) ||
	    ud_mc_fill(t, qp, nqp, total))
		return -1;
	return 0;
}

const struct vt_case vt_ud_cases[] = {
	{ "ud_send", "UD SEND and SEND_WITH_IMM, 1 B .. port MTU: payload, GRH area, wc fields",
	  ud_send_client, ud_send_server, NULL },
	{ "ud_qkey", "a wrong Q_Key is dropped; a WR Q_Key with the high bit means the QP's own",
	  ud_seq_client, ud_seq_server, &ud_qkey_seq },
	{ "ud_too_long", "longer than the receive: dropped, WQE kept; above the MTU: nothing sent",
	  ud_seq_client, ud_seq_server, &ud_too_long_seq },
	{ "ud_ah_other_pd", "an AH of another PD: LOC_QP_OP_ERR, nothing sent",
	  ud_ah_other_pd_client, ud_refused_server, NULL },
	{ "ud_ah_other_context", "an AH of another device context: LOC_QP_OP_ERR, nothing sent",
	  ud_ah_other_context_client, ud_refused_server, NULL },
	{ "ud_ah_destroyed_in_flight", "sends posted before ibv_destroy_ah still arrive",
	  ud_ah_destroyed_client, ud_ah_destroyed_server, NULL },
	{ "ud_mcast_send", "to a group: each attached QP gets a copy, others and a detached one none",
	  ud_mcast_send_client, ud_mcast_send_server, NULL },
	{ "ud_mcast_errors", "attach: RC QP, unicast GID refused; detach of what is not attached",
	  ud_mcast_errors_client, NULL, NULL },
	{ "ud_mcast_limits", "max_mcast_qp_attach, max_mcast_grp, max_total_mcast_qp_attach: ENOMEM past",
	  ud_mcast_limits_client, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
