// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_ring_fuzz - a process that attacks its own shared rings, to show
 * that it can hurt only its own QPs and never the kernel.
 *
 *   sroce_ring_fuzz [-d DEV] [-g GID_INDEX] [-s SEED] [-r ROUNDS] [-v]
 *
 * A child process opens the device, builds a "victim" RC QP A with its
 * peer B on loopback, finds A's SQ, RQ and CQ rings among its mappings of
 * /dev/infiniband/uverbs* (new mappings after each create, told apart by
 * mmap offset, checked against the ring geometry), and then, round after
 * round, scribbles over them from a seeded PRNG: extreme producer and
 * consumer indices, random and crafted-bad WQEs published with a raw
 * doorbell, garbage CQ indices and CQEs, header reserved words. After each
 * scribble it pokes the kernel only through legal means: ibv_post_send /
 * post_recv, the raw POST_SEND doorbell write() (and POST_SEND/POST_RECV
 * with real work requests), poll_cq, req_notify_cq, modify_qp cycles and
 * packets from B. Every few rounds the pair is torn down (destroy under
 * fuzzed state) and rebuilt with other ring sizes; the last generation is
 * left to process exit. It also checks the mmap rules and that a ring
 * mapping kept past its object's destroy stays harmless.
 *
 * Odd rounds attack a UD QP U instead, beside its honest UD peer V: UD
 * send WQEs naming live and forged AH indices (0, destroyed, never
 * created, past max_ah, huge, another PD's), QPNs 0, 1, 0xffffff, over 24
 * bits, unknown, the RC victim's and the bystander's, Q_Keys with the
 * privileged bit, lengths over the MTU, non-SEND opcodes, the RC breaks;
 * receives shorter than the 40-byte GRH area; AHs made and destroyed,
 * right after a post and by a thread racing the WQEs that name them. V's
 * completions must all be successes. On the first pair each kind of forged
 * index must complete with IBV_WC_LOC_QP_OP_ERR (ud_ah_rules).
 *
 * Meanwhile the parent, another process on the same device, moves data
 * over its own "bystander" RC pair and UD pair and checks it byte for
 * byte. When the child is gone the parent builds a fresh pair and checks
 * SEND, RDMA WRITE and UD SEND byte-exact: the device survived.
 *
 * TAP-like output: "ok NAME" / "not ok NAME - reason" and a final
 * "N passed, N failed"; exit 1 if a check failed, 2 on a setup error.
 * The actions depend only on the seed (what they meet depends on timing).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "verbs_test.h"

#define FZ_ROUNDS		300
#define FZ_GEN_ROUNDS		25	/* rounds before the pair is rebuilt */
#define FZ_TIMEOUT_S		240	/* the child's whole run */
#define FZ_BUF_LEN		(64 * 1024)
#define FZ_MAX_MAPS		512
#define FZ_LOG_LEN		1024
#define FZ_WRID_FUZZ		0xf0220000000000ULL

/* What the UD rounds did, counted for the report (fz_ud_act_names). */
enum fz_ud_act {
	FZ_UD_SQ_WQES, FZ_UD_RQ_WQES, FZ_UD_POST_SEND, FZ_UD_POST_DESTROY, FZ_UD_POST_RECV,
	FZ_UD_PEER, FZ_UD_AH_CHURN, FZ_UD_AH_RACE, FZ_UD_DOORBELL, FZ_UD_MODIFY, FZ_UD_RING,
	FZ_UD_ACTS
};

/* How a UD send WQE the child wrote names its AH (fz_ah_kind_names). */
enum fz_ah_kind {
	FZ_AH_LIVE, FZ_AH_ZERO, FZ_AH_DESTROYED, FZ_AH_NEVER_CREATED, FZ_AH_OUT_OF_RANGE,
	FZ_AH_HUGE, FZ_AH_OTHER_PD, FZ_AH_RANDOM,
	FZ_AH_CHURNED,		/* fz_ud_race(): one the racing thread makes and destroys */
	FZ_AH_KINDS
};

/* Its destination QPN and Q_Key (fz_qpn_kind_names, fz_qkey_kind_names). */
enum fz_qpn_kind {
	FZ_QPN_PEER, FZ_QPN_SELF, FZ_QPN_0, FZ_QPN_1, FZ_QPN_MULTICAST, FZ_QPN_OVER_24,
	FZ_QPN_UNKNOWN, FZ_QPN_RC_VICTIM, FZ_QPN_BYSTANDER, FZ_QPN_KINDS
};

enum fz_qkey_kind { FZ_QKEY_RIGHT, FZ_QKEY_PRIVILEGED, FZ_QKEY_ZERO, FZ_QKEY_RANDOM, FZ_QKEY_GSI,
		    FZ_QKEY_KINDS };

#define FZ_WC_STATUSES		24	/* the last one counts any larger status */

/* Shared between the child and the parent: progress and verdicts. */
struct fz_shared {
	unsigned int round, gen;
	char log[FZ_LOG_LEN];		/* what the current round did so far */
	char fatal[VT_REASON_LEN];	/* why the child gave up */
	char mmap_rules[VT_REASON_LEN];	/* "" = rules held */
	char reserved_rules[VT_REASON_LEN];	/* "" = reserved WQE fields refused */
	char lifetime[VT_REASON_LEN];	/* "" = kept mappings were harmless */
	unsigned int lifetime_probes;
	unsigned long cqes, err_cqes, async_events, comp_events, verbs_errors;
	/* The victims' CQEs by status, RC A's [0] and UD U's [1] (garbage written into them too). */
	unsigned long wc_status[2][FZ_WC_STATUSES];
	unsigned long ud_acts[FZ_UD_ACTS], ah_kinds[FZ_AH_KINDS], qpn_kinds[FZ_QPN_KINDS];
	unsigned long qkey_kinds[FZ_QKEY_KINDS];
	unsigned long ud_too_long, ud_short_recvs;	/* sends over the MTU, receives under 40 B */
	unsigned int rc_rounds, ud_rounds;
	long long rc_ms, ud_ms;		/* spent in each kind of round */
	char ud_ah_rules[VT_REASON_LEN];	/* "" = forged AH indices refused */
	char peer_error[VT_REASON_LEN];	/* the first error CQE of V, the honest UD peer */
	unsigned long peer_errors;
	unsigned long peer_sends_destroyed;	/* V's posts whose AH was destroyed at once */
	uint32_t bystander_qpn[4];	/* the parent's RC A, B, UD A, B: targets to miss */
	bool done;			/* every round ran */
};

/* One ring of the victim, as the process maps it. */
struct fz_ring {
	const char *name;
	uint8_t *base;
	size_t size;
	uint64_t offset;		/* mmap offset on the uverbs fd */
	uint32_t depth, stride;
};

struct fz_map {
	uintptr_t start, end;
	uint64_t offset;
};

/* A QP whose rings the child scribbles over: RC A or UD U. */
struct fz_victim {
	const char *name;		/* in the log: "RC", "UD" */
	bool ud;
	struct ibv_qp *qp;
	struct ibv_cq *send_cq, *recv_cq;
	struct fz_ring sq, rq, scq, rcq;
	uint32_t max_send_sge, max_recv_sge, max_inline;
};

#define FZ_AHS			6	/* AH slots of the UD side */
#define FZ_DEAD			8	/* indices of destroyed AHs kept */
#define FZ_PEER_RECVS		32	/* receives V keeps posted */
#define FZ_PEER_RECV_LEN	2048	/* each: GRH area + a datagram of the MTU and more */

/*
 * The UD side of a generation: victim U, its honest peer V (this process,
 * same PD), W (the other PD, only to learn its AH's index), and the AHs U's
 * WQEs name by index. The kernel's index of an AH is provider-private: it
 * is read back from the ring slot a legal ibv_post_send() on V or W filled
 * (not U: once the fuzz has published WQEs behind the provider's back, its
 * posts on U put U in error).
 */
struct fz_ud {
	struct fz_victim u;
	struct ibv_qp *v, *w;
	struct ibv_cq *v_scq, *v_rcq, *w_scq;
	struct fz_ring v_sq, w_sq;
	struct vt_buf *vbuf;
	uint32_t qkey;			/* U's and V's */
	uint32_t mtu;			/* the port's active MTU in bytes */
	struct ibv_ah *ah[FZ_AHS];	/* to this host's GID; NULL: none */
	uint32_t ah_index[FZ_AHS];	/* 0: not learned */
	uint32_t dead[FZ_DEAD];		/* indices of AHs destroyed */
	unsigned int ndead;
	struct ibv_ah *other_ah;	/* on the other PD */
	uint32_t other_index;
	uint32_t top_index;		/* highest index learned */
	uint32_t vnext;			/* V's next receive slot */
};

/* The victim QP A, its honest peer B, the UD side, and what WQEs can point at. */
struct fz_pair {
	struct vt_ep a, b;
	struct ibv_comp_channel *chan;
	struct vt_buf *abuf, *bbuf, *robuf, *otherbuf;
	struct ibv_pd *other_pd;
	struct fz_victim rc;
	struct fz_ud ud;
};

struct fz {
	struct vt t;			/* the vt_* helpers' state; t.rng: setup */
	struct vt_opts vo;
	struct vt_dev dev;
	struct fz_shared *sh;
	uint64_t rng;			/* this round's PRNG */
	uint64_t seed;
	unsigned int rounds, gen_rounds;
	bool verbose;
	long page;
	void *hole;			/* an address nothing is mapped at */
	bool drain_stop;		/* tells fz_drainer() to return */
	struct fz_pair p;
	struct fz_victim *v;		/* this round's: &p.rc or &p.ud.u */
};

/* --- PRNG and the round log --------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t fz_rand(struct fz *z)
{
	return splitmix(&z->rng);
}

static uint32_t fz_below(struct fz *z, uint32_t n)
{
	return n ? fz_rand(z) % n : 0;
}

static bool fz_chance(struct fz *z, uint32_t percent)
{
	return fz_below(z, 100) < percent;
}

static void fz_log(struct fz *z, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fz_log(struct fz *z, const char *fmt, ...)
{
	size_t used = strlen(z->sh->log);
	va_list ap;

	if (used + 2 >= sizeof(z->sh->log))
		return;
	if (used)
		z->sh->log[used++] = ' ';
	va_start(ap, fmt);
	vsnprintf(z->sh->log + used, sizeof(z->sh->log) - used, fmt, ap);
	va_end(ap);
	/* As it happens: if the kernel goes down, the console shows how far we got. */
	if (z->verbose) {
		fputs(z->sh->log + used - !!used, stdout);
		fflush(stdout);
	}
}

/* A new entry of the log: a round, or the end of a generation. */
static void fz_log_start(struct fz *z, const char *what, unsigned int n)
{
	z->sh->log[0] = '\0';
	if (z->verbose)
		printf("# %s %u gen %u: ", what, n, z->sh->gen);
}

static void fz_log_end(struct fz *z)
{
	if (z->verbose)
		printf("\n");
}

static int fz_fatal(struct fz *z, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fz_fatal(struct fz *z, const char *fmt, ...)
{
	va_list ap;

	if (!z->sh->fatal[0]) {
		va_start(ap, fmt);
		vsnprintf(z->sh->fatal, sizeof(z->sh->fatal), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* --- finding the rings in /proc/self/maps -------------------------------- */

static int fz_uverbs_maps(struct fz_map *m, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[256];
	unsigned long start, end, off;
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &off, path) != 4 ||
		    strncmp(path, "/dev/infiniband/uverbs", 22))
			continue;
		m[n++] = (struct fz_map){ .start = start, .end = end, .offset = off };
	}
	fclose(f);
	return n;
}

static bool fz_map_known(const struct fz_map *m, int n, uintptr_t start)
{
	int i;

	for (i = 0; i < n; i++)
		if (m[i].start == start)
			return true;
	return false;
}

/* The mappings in after[] that before[] lacks, by ascending mmap offset. */
static int fz_new_maps(const struct fz_map *before, int nb, const struct fz_map *after, int na,
		       struct fz_map *out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < na && n < max; i++)
		if (!fz_map_known(before, nb, after[i].start))
			out[n++] = after[i];
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && out[j - 1].offset > out[j].offset; j--) {
			struct fz_map tmp = out[j];

			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return n;
}

static struct sroce_ring_hdr *fz_hdr(const struct fz_ring *r)
{
	return (struct sroce_ring_hdr *)r->base;
}

static uint8_t *fz_slot(const struct fz_ring *r, uint32_t index)
{
	return r->base + SROCE_RING_ENTRIES_OFFSET + (size_t)(index & (r->depth - 1)) * r->stride;
}

static void fz_store(uint32_t *where, uint32_t v)
{
	__atomic_store_n(where, v, __ATOMIC_RELEASE);
}

static uint32_t fz_load(const uint32_t *where)
{
	return __atomic_load_n(where, __ATOMIC_ACQUIRE);
}

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Take a found mapping as ring r of the given geometry; it must fit. */
static int fz_ring_set(struct fz *z, struct fz_ring *r, const char *name, const struct fz_map *m,
		       uint32_t depth, uint32_t stride)
{
	size_t want = ((size_t)SROCE_RING_ENTRIES_OFFSET + (size_t)depth * stride + z->page - 1) &
		      ~(size_t)(z->page - 1);

	*r = (struct fz_ring){
		.name = name, .base = (uint8_t *)m->start, .size = m->end - m->start,
		.offset = m->offset, .depth = depth, .stride = stride,
	};
	if (r->size != want)
		return fz_fatal(z, "%s ring: mapping of %zu bytes, expected %zu for %u x %u",
				name, r->size, want, depth, stride);
	return 0;
}

/* --- raw uverbs commands: the doorbell and real WRs through write() ----- */

static int fz_write_cmd(struct ibv_qp *qp, const void *cmd, size_t len)
{
	ssize_t n = write(qp->context->cmd_fd, cmd, len);

	return n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
}

/* POST_SEND with no work request: sroce's doorbell (sroce-abi.h). */
static int fz_doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND, .in_words = sizeof(c) / 4,
			 .out_words = sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp, .qp_handle = qp->handle,
			 .wqe_size = sizeof(struct ib_uverbs_send_wr) },
	};

	return fz_write_cmd(qp, &c, sizeof(c));
}

/* POST_SEND and POST_RECV carrying one real WR: sroce refuses both. */
static int fz_raw_send_wr(struct ibv_qp *qp, const struct vt_buf *b)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
		struct ib_uverbs_send_wr wr;
		struct ib_uverbs_sge sge;
	} c = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND, .in_words = sizeof(c) / 4,
			 .out_words = sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp, .qp_handle = qp->handle, .wr_count = 1,
			 .sge_count = 1, .wqe_size = sizeof(struct ib_uverbs_send_wr) },
		.wr = { .wr_id = FZ_WRID_FUZZ, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND },
		.sge = { .addr = (uintptr_t)b->p, .length = 8, .lkey = b->mr->lkey },
	};

	return fz_write_cmd(qp, &c, sizeof(c));
}

static int fz_raw_recv_wr(struct ibv_qp *qp, const struct vt_buf *b)
{
	struct ib_uverbs_post_recv_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_recv cmd;
		struct ib_uverbs_recv_wr wr;
		struct ib_uverbs_sge sge;
	} c = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_RECV, .in_words = sizeof(c) / 4,
			 .out_words = sizeof(resp) / 4 },
		.cmd = { .response = (uintptr_t)&resp, .qp_handle = qp->handle, .wr_count = 1,
			 .sge_count = 1, .wqe_size = sizeof(struct ib_uverbs_recv_wr) },
		.wr = { .wr_id = FZ_WRID_FUZZ, .num_sge = 1 },
		.sge = { .addr = (uintptr_t)b->p, .length = 8, .lkey = b->mr->lkey },
	};

	return fz_write_cmd(qp, &c, sizeof(c));
}

/* --- events: drained without blocking, always acknowledged -------------- */

static void fz_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void fz_drain_async(struct fz *z)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(z->dev.ctx, &ev)) {
		z->sh->async_events++;
		ibv_ack_async_event(&ev);
	}
}

static void fz_drain_comp(struct fz *z)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	while (z->p.chan && !ibv_get_cq_event(z->p.chan, &cq, &cq_ctx)) {
		z->sh->comp_events++;
		ibv_ack_cq_events(cq, 1);
	}
}

#define FZ_POLL_OTHER		-1	/* fz_poll(): B's or W's CQ */
#define FZ_POLL_HONEST		-2	/* V's: every CQE must be a success */

static void fz_honest_error(struct fz *z, const struct ibv_wc *wc)
{
	z->sh->peer_errors++;
	if (!z->sh->peer_error[0])
		snprintf(z->sh->peer_error, sizeof(z->sh->peer_error),
			 "round %u: V's wr_id %#llx completed with %s (opcode %d, byte_len %u)",
			 z->sh->round, (unsigned long long)wc->wr_id,
			 ibv_wc_status_str(wc->status), wc->opcode, wc->byte_len);
}

/*
 * Read whatever a CQ holds; garbage we wrote into it comes back too. A
 * victim's (@victim 0 RC, 1 UD) are counted by status, an error on V's
 * (FZ_POLL_HONEST) is one of the run's failures. Return: the CQEs read.
 */
static int fz_poll(struct fz *z, struct ibv_cq *cq, int victim)
{
	struct ibv_wc wc[16];
	int n, i, loops = 0, total = 0;

	while (loops++ < 8 && (n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			z->sh->cqes++;
			z->sh->err_cqes += wc[i].status != IBV_WC_SUCCESS;
			if (victim >= 0)
				z->sh->wc_status[victim][wc[i].status < FZ_WC_STATUSES ?
					wc[i].status : FZ_WC_STATUSES - 1]++;
			else if (victim == FZ_POLL_HONEST && wc[i].status != IBV_WC_SUCCESS)
				fz_honest_error(z, &wc[i]);
		}
		total += n;
	}
	return total;
}

static void fz_ud_peer_recvs(struct fz *z, int n);

static void fz_poll_all(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	int n;

	fz_poll(z, z->p.a.scq, 0);
	fz_poll(z, z->p.a.rcq, 0);
	fz_poll(z, z->p.b.scq, FZ_POLL_OTHER);
	fz_poll(z, z->p.b.rcq, FZ_POLL_OTHER);
	if (!ud->w_scq)
		return;		/* the UD side is not (fully) up */
	fz_poll(z, ud->u.send_cq, 1);
	fz_poll(z, ud->u.recv_cq, 1);
	fz_poll(z, ud->v_scq, FZ_POLL_HONEST);
	fz_poll(z, ud->w_scq, FZ_POLL_OTHER);
	n = fz_poll(z, ud->v_rcq, FZ_POLL_HONEST);
	if (ud->v)
		fz_ud_peer_recvs(z, n);
}

static void fz_count(struct fz *z, int rc, const char *what)
{
	if (rc) {
		z->sh->verbs_errors++;
		fz_log(z, "%s=%s", what, strerror(rc < 0 ? errno : rc));
	}
}

/* --- the pair ------------------------------------------------------------- */

static int fz_cq(struct fz *z, int cqe, struct ibv_comp_channel *ch, struct ibv_cq **cq,
		 struct fz_ring *r, const char *name)
{
	static struct fz_map before[FZ_MAX_MAPS], after[FZ_MAX_MAPS];
	struct fz_map found[2];
	int nb = fz_uverbs_maps(before, FZ_MAX_MAPS), na, n;

	*cq = vt_cq(&z->t, cqe, ch);
	if (!*cq)
		return fz_fatal(z, "%s", z->t.reason);
	na = fz_uverbs_maps(after, FZ_MAX_MAPS);
	n = fz_new_maps(before, nb, after, na, found, 2);
	if (nb < 0 || n != 1)
		return fz_fatal(z, "%s: %d new uverbs mappings, expected 1", name, n);
	return fz_ring_set(z, r, name, &found[0], (*cq)->cqe, sizeof(struct sroce_cqe));
}

/* The victim's options: ring sizes and SGE counts vary by generation. */
static void fz_victim_opts(struct fz *z, struct vt_qp_opts *o)
{
	static const uint32_t depths[] = { 1, 2, 4, 16, 64, 256 };
	static const uint32_t sges[] = { 1, 2, 4, 8, 32 };
	static const uint32_t inlines[] = { 0, 64, 256 };

	vt_qp_opts_init(&z->t, o);
	o->max_send_wr = depths[fz_below(z, 6)];
	o->max_recv_wr = depths[fz_below(z, 6)];
	o->max_send_sge = sges[fz_below(z, 5)];
	o->max_recv_sge = sges[fz_below(z, 5)];
	o->max_inline = inlines[fz_below(z, 3)];
	o->timeout = 8;				/* ~1 ms: retries end fast */
	o->retry_cnt = fz_below(z, 8);
	o->rnr_retry = fz_below(z, 7);		/* 7 would retry forever */
	o->min_rnr_timer = 1 + fz_below(z, 4);
	o->sig_all = fz_chance(z, 50);
}

/* sroce_qp_size_rings(): the strides the kernel gives those caps. */
static void fz_strides(const struct vt_qp_opts *o, uint32_t *sq, uint32_t *rq)
{
	uint32_t body = o->max_send_sge * sizeof(struct sroce_sge);

	if (body < o->max_inline)
		body = o->max_inline;
	if (body < sizeof(struct sroce_sge))
		body = sizeof(struct sroce_sge);
	*sq = pow2_at_least(sizeof(struct sroce_send_wqe) + body);
	*rq = pow2_at_least(sizeof(struct sroce_recv_wqe) +
			    (o->max_recv_sge ? o->max_recv_sge : 1) * sizeof(struct sroce_sge));
}

/* Take the SQ and RQ mappings v->qp's create added (new since before[]). */
static int fz_victim_rings(struct fz *z, struct fz_victim *v, const struct vt_qp_opts *o,
			   const struct fz_map *before, int nb)
{
	static struct fz_map after[FZ_MAX_MAPS];
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct fz_map found[3];
	uint32_t sq_stride, rq_stride;
	int na = fz_uverbs_maps(after, FZ_MAX_MAPS);
	int n = fz_new_maps(before, nb, after, na, found, 3);

	if (nb < 0 || n != 2)
		return fz_fatal(z, "%s victim QP: %d new uverbs mappings, expected 2", v->name, n);
	if (ibv_query_qp(v->qp, &a, IBV_QP_CAP, &ia))
		return fz_fatal(z, "ibv_query_qp: %s", strerror(errno));
	fz_strides(o, &sq_stride, &rq_stride);
	v->max_send_sge = ia.cap.max_send_sge;
	v->max_recv_sge = ia.cap.max_recv_sge;
	v->max_inline = ia.cap.max_inline_data;
	/* The kernel exports the SQ first; offsets grow with each export. */
	if (fz_ring_set(z, &v->sq, v->ud ? "uSQ" : "SQ", &found[0], ia.cap.max_send_wr, sq_stride) ||
	    fz_ring_set(z, &v->rq, v->ud ? "uRQ" : "RQ", &found[1], ia.cap.max_recv_wr, rq_stride))
		return -1;
	return 0;
}

static int fz_victim_qp(struct fz *z, struct vt_qp_opts *o)
{
	static struct fz_map before[FZ_MAX_MAPS];
	struct fz_pair *p = &z->p;
	int nb = fz_uverbs_maps(before, FZ_MAX_MAPS);

	if (vt_ep_create(&z->t, &p->a, o))
		return fz_fatal(z, "victim QP: %s", z->t.reason);
	p->rc.qp = p->a.qp;
	return fz_victim_rings(z, &p->rc, o, before, nb);
}

static void fz_expose(struct vt_ep *ep, const struct vt_buf *b)
{
	ep->me.addr = (uintptr_t)b->p;
	ep->me.rkey = b->mr->rkey;
	ep->me.len = b->len;
}

/* Both ends on this device: each one's peer is the other. */
static int fz_connect(struct vt *t, struct vt_ep *a, struct vt_ep *b)
{
	a->peer = b->me;
	b->peer = a->me;
	return vt_ep_connect(t, a) || vt_ep_connect(t, b) ? -1 : 0;
}

static int fz_bufs(struct fz *z)
{
	struct fz_pair *p = &z->p;
	struct ibv_pd *other = vt_pd(&z->t);

	p->abuf = vt_buf(&z->t, FZ_BUF_LEN, VT_ACCESS_ALL);
	p->bbuf = vt_buf(&z->t, FZ_BUF_LEN, VT_ACCESS_ALL);
	p->robuf = vt_buf(&z->t, 4096, IBV_ACCESS_REMOTE_READ);	/* no LOCAL_WRITE */
	p->otherbuf = other ? vt_buf_pd(&z->t, other, 4096, VT_ACCESS_ALL) : NULL;
	p->other_pd = other;
	if (!p->abuf || !p->bbuf || !p->robuf || !p->otherbuf)
		return fz_fatal(z, "buffers: %s", z->t.reason);
	return 0;
}

static int fz_ud_up(struct fz *z);

/* A fresh generation: PD, buffers, A's CQs and QP (rings found), B, the UD side. */
static int fz_pair_up(struct fz *z)
{
	static const int cqes[] = { 1, 2, 64, 4096 };
	struct fz_pair *p = &z->p;
	struct vt_qp_opts ao, bo;

	memset(p, 0, sizeof(*p));
	vt_begin(&z->t);
	if (!z->t.pd)
		return fz_fatal(z, "%s", z->t.reason);
	p->chan = vt_channel(&z->t);
	if (!p->chan || fz_bufs(z))
		return fz_fatal(z, "%s", z->t.reason);
	fz_nonblock(p->chan->fd);
	fz_victim_opts(z, &ao);
	p->rc.name = "RC";
	if (fz_cq(z, cqes[fz_below(z, 4)], NULL, &ao.scq, &p->rc.scq, "send CQ") ||
	    fz_cq(z, cqes[fz_below(z, 4)], p->chan, &ao.rcq, &p->rc.rcq, "recv CQ") ||
	    fz_victim_qp(z, &ao))
		return -1;
	p->rc.send_cq = ao.scq;
	p->rc.recv_cq = ao.rcq;
	vt_qp_opts_init(&z->t, &bo);
	bo.timeout = 8;
	bo.retry_cnt = 2;
	bo.rnr_retry = 2;
	if (vt_ep_create(&z->t, &p->b, &bo))
		return fz_fatal(z, "peer QP: %s", z->t.reason);
	fz_expose(&p->a, p->abuf);
	fz_expose(&p->b, p->bbuf);
	if (fz_connect(&z->t, &p->a, &p->b))
		return fz_fatal(z, "connect: %s", z->t.reason);
	return fz_ud_up(z);
}

static int fz_modify_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static enum ibv_qp_state fz_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? IBV_QPS_UNKNOWN : a.qp_state;
}

static int fz_to_init(struct vt *t, struct vt_ep *ep)
{
	struct ibv_qp_attr a;
	int mask = vt_attr_init(t, ep, &a);

	return ibv_modify_qp(ep->qp, &a, mask);
}

/* RESET -> INIT -> RTR -> RTS for both, with new PSNs. */
static int fz_reconnect(struct fz *z)
{
	struct fz_pair *p = &z->p;
	int rc;

	z->t.reason[0] = '\0';
	p->a.me.psn = fz_rand(z) & 0xffffff;
	p->b.me.psn = fz_rand(z) & 0xffffff;
	rc = fz_modify_state(p->a.qp, IBV_QPS_RESET) ?: fz_modify_state(p->b.qp, IBV_QPS_RESET) ?:
	     fz_to_init(&z->t, &p->a) ?: fz_to_init(&z->t, &p->b);
	if (!rc && fz_connect(&z->t, &p->a, &p->b))
		rc = EIO;
	return rc;
}

/* --- the UD side: U, V, W and the AHs ------------------------------------ */

#define FZ_UD_QKEY		0x0f220000u	/* U's and V's Q_Key, usually */
#define FZ_GSI_QKEY		0x80010000u	/* ib_mad's GSI QP's (IBA's well-known Q_Key) */
#define FZ_GRH			40		/* the GRH area of every UD receive */
#define FZ_WRID_LEARN		0x1ea70000ULL

/* RESET -> INIT -> RTR -> RTS for a UD QP, with Q_Key @qkey. */
static int fz_ud_qp_to_rts(const struct vt_dev *dev, struct ibv_qp *qp, uint32_t qkey,
			   uint32_t psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = dev->port, .qkey = qkey };
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			       IBV_QP_QKEY);

	a.qp_state = IBV_QPS_RTR;
	rc = rc ?: ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn & 0xffffff;
	return rc ?: ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static int fz_ud_to_rts(struct fz *z, struct ibv_qp *qp, uint32_t qkey)
{
	return fz_ud_qp_to_rts(&z->dev, qp, qkey, fz_rand(z));
}

/* U back to RTS with its Q_Key, from whatever the fuzz left it in. */
static int fz_ud_revive(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;

	return fz_modify_state(ud->u.qp, IBV_QPS_RESET) ?: fz_ud_to_rts(z, ud->u.qp, ud->qkey);
}

static struct ibv_qp *fz_ud_qp(struct fz *z, struct ibv_pd *pd, struct ibv_cq *scq,
			       struct ibv_cq *rcq, const struct vt_qp_opts *o)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = scq, .recv_cq = rcq, .sq_sig_all = o->sig_all,
		.cap = { .max_send_wr = o->max_send_wr, .max_recv_wr = o->max_recv_wr,
			 .max_send_sge = o->max_send_sge, .max_recv_sge = o->max_recv_sge,
			 .max_inline_data = o->max_inline },
	};

	return vt_qp(&z->t, pd, &ia);
}

/* A UD QP on @pd whose rings are found, as v (U, or W of the other PD). */
static int fz_ud_ringed_qp(struct fz *z, struct fz_victim *v, struct ibv_pd *pd,
			   const struct vt_qp_opts *o)
{
	static struct fz_map before[FZ_MAX_MAPS];
	int nb = fz_uverbs_maps(before, FZ_MAX_MAPS);

	v->qp = fz_ud_qp(z, pd, v->send_cq, v->recv_cq, o);
	if (!v->qp)
		return fz_fatal(z, "%s QP: %s", v->name, z->t.reason);
	return fz_victim_rings(z, v, o, before, nb);
}

/* An AH to this host's own GID; the GRH fields vary. */
static struct ibv_ah *fz_ah_create(struct fz *z, struct ibv_pd *pd)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = z->dev.port,
		.grh = { .dgid = z->dev.gid, .sgid_index = z->dev.gid_index,
			 .hop_limit = fz_below(z, 256), .traffic_class = fz_below(z, 256),
			 .flow_label = fz_below(z, 1U << 20) },
	};

	return ibv_create_ah(pd, &a);
}

static void fz_ah_note(struct fz_ud *ud, unsigned int i, uint32_t index)
{
	ud->ah_index[i] = index;
	if (index > ud->top_index && index <= 1U << 20)
		ud->top_index = index;
}

/* The AH index the provider put into the send WQE it just published on @sq. */
static uint32_t fz_posted_ah_index(const struct fz_ring *sq)
{
	const struct sroce_send_wqe *w = (const void *)fz_slot(sq, fz_load(&fz_hdr(sq)->producer) - 1);

	return w->ud.ah_index;
}

/*
 * The index WQEs name @ah by: a legal 0-byte SEND to V on @qp (V or W,
 * whose SQ ring is @sq), read back from its slot. Return: 0 if the post
 * was refused.
 */
static uint32_t fz_ah_learn(struct fz *z, struct ibv_qp *qp, const struct fz_ring *sq,
			    struct ibv_ah *ah)
{
	struct ibv_send_wr wr = { .wr_id = FZ_WRID_LEARN, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = z->p.ud.v->qp_num;
	wr.wr.ud.remote_qkey = z->p.ud.qkey;
	return ibv_post_send(qp, &wr, &bad) ? 0 : fz_posted_ah_index(sq);
}

/* The next completion of @cq within the wait. Return: 0, or -1 (none). */
static int fz_wait_wc(struct fz *z, struct ibv_cq *cq, struct ibv_wc *wc)
{
	long long end = vt_now_ms() + z->vo.wait_ms;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && vt_now_ms() < end)
		usleep(200);
	return n == 1 ? 0 : -1;
}

static void fz_ah_destroy(struct fz *z, unsigned int i)
{
	struct fz_ud *ud = &z->p.ud;

	if (!ud->ah[i])
		return;
	fz_count(z, ibv_destroy_ah(ud->ah[i]), "destroy_ah");
	if (ud->ah_index[i])
		ud->dead[ud->ndead++ % FZ_DEAD] = ud->ah_index[i];
	ud->ah[i] = NULL;
	ud->ah_index[i] = 0;
}

/* A new AH in slot i (the old one destroyed); its index learned if @learn. */
static void fz_ah_replace(struct fz *z, unsigned int i, bool learn)
{
	struct fz_ud *ud = &z->p.ud;

	fz_ah_destroy(z, i);
	ud->ah[i] = fz_ah_create(z, z->t.pd);
	if (!ud->ah[i])
		fz_count(z, errno ?: EIO, "create_ah");
	else if (learn)
		fz_ah_note(ud, i, fz_ah_learn(z, ud->v, &ud->v_sq, ud->ah[i]));
}

/* V's receives: @n more, round the buffer; wr_id says which slot. */
static void fz_ud_peer_recvs(struct fz *z, int n)
{
	struct fz_ud *ud = &z->p.ud;

	while (n-- > 0) {
		uint32_t slot = ud->vnext++ % FZ_PEER_RECVS;
		struct ibv_sge sge = vt_sge(ud->vbuf, (size_t)slot * FZ_PEER_RECV_LEN,
					    FZ_PEER_RECV_LEN);
		struct ibv_recv_wr wr = { .wr_id = FZ_WRID_FUZZ | slot, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(ud->v, &wr, &bad))
			break;
	}
}

/* V: honest, well-sized, on U's PD and Q_Key, its receives posted. */
static int fz_ud_peer(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	struct fz_victim v = { .name = "UD peer", .ud = true };
	struct vt_qp_opts o;

	vt_qp_opts_init(&z->t, &o);
	o.max_recv_wr = FZ_PEER_RECVS;
	o.max_send_sge = o.max_recv_sge = 1;
	o.max_inline = 0;
	v.send_cq = ud->v_scq = vt_cq(&z->t, 2 * o.max_send_wr, NULL);
	v.recv_cq = ud->v_rcq = vt_cq(&z->t, 2 * FZ_PEER_RECVS, NULL);
	ud->vbuf = vt_buf(&z->t, FZ_PEER_RECVS * FZ_PEER_RECV_LEN, VT_ACCESS_ALL);
	if (!ud->v_scq || !ud->v_rcq || !ud->vbuf)
		return fz_fatal(z, "UD peer: %s", z->t.reason);
	if (fz_ud_ringed_qp(z, &v, z->t.pd, &o))
		return -1;
	ud->v = v.qp;
	ud->v_sq = v.sq;
	if (fz_ud_to_rts(z, ud->v, ud->qkey))
		return fz_fatal(z, "UD peer to RTS: %s", strerror(errno));
	fz_ud_peer_recvs(z, FZ_PEER_RECVS);
	return 0;
}

/* W, on the other PD: it only learns the index of that PD's AH. */
static int fz_ud_other_pd(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	struct fz_victim w = { .name = "other PD's UD", .ud = true };
	struct vt_qp_opts o;
	struct ibv_wc wc;

	vt_qp_opts_init(&z->t, &o);
	o.max_send_wr = 4;
	o.max_recv_wr = 1;
	o.max_send_sge = o.max_recv_sge = 1;
	o.max_inline = 0;
	w.send_cq = w.recv_cq = ud->w_scq = vt_cq(&z->t, 8, NULL);
	if (!ud->w_scq || fz_ud_ringed_qp(z, &w, z->p.other_pd, &o))
		return -1;
	ud->w = w.qp;
	ud->w_sq = w.sq;
	ud->other_ah = fz_ah_create(z, z->p.other_pd);
	if (fz_ud_to_rts(z, ud->w, ud->qkey) || !ud->other_ah)
		return fz_fatal(z, "other PD's QP or AH: %s", strerror(errno));
	ud->other_index = fz_ah_learn(z, ud->w, &ud->w_sq, ud->other_ah);
	if (!ud->other_index || fz_wait_wc(z, ud->w_scq, &wc))
		return fz_fatal(z, "learning the other PD's AH index failed");
	return 0;
}

/*
 * The UD side of a generation. Now and then U and V take GSI's Q_Key, so
 * that what U aims at QP 1 passes the Q_Key check and reaches ib_mad.
 */
static int fz_ud_up(struct fz *z)
{
	static const int cqes[] = { 1, 2, 64, 4096 };
	struct fz_ud *ud = &z->p.ud;
	struct vt_qp_opts o;
	struct ibv_wc wc;
	unsigned int i;

	ud->u = (struct fz_victim){ .name = "UD", .ud = true };
	ud->mtu = 128U << z->dev.port_attr.active_mtu;
	ud->qkey = fz_chance(z, 15) ? FZ_GSI_QKEY : FZ_UD_QKEY;
	fz_victim_opts(z, &o);
	if (fz_cq(z, cqes[fz_below(z, 4)], NULL, &ud->u.send_cq, &ud->u.scq, "u send CQ") ||
	    fz_cq(z, cqes[fz_below(z, 4)], NULL, &ud->u.recv_cq, &ud->u.rcq, "u recv CQ") ||
	    fz_ud_ringed_qp(z, &ud->u, z->t.pd, &o))
		return -1;
	/* A kernel that keeps privileged Q_Keys from this process: the usual one. */
	if (fz_ud_to_rts(z, ud->u.qp, ud->qkey) && ud->qkey == FZ_GSI_QKEY) {
		ud->qkey = FZ_UD_QKEY;
		fz_modify_state(ud->u.qp, IBV_QPS_RESET);
	}
	if (fz_state(ud->u.qp) != IBV_QPS_RTS && fz_ud_to_rts(z, ud->u.qp, ud->qkey))
		return fz_fatal(z, "UD victim to RTS: %s", strerror(errno));
	if (fz_ud_peer(z))
		return -1;
	for (i = 0; i < FZ_AHS / 2; i++) {
		fz_ah_replace(z, i, true);
		if (!ud->ah_index[i] || fz_wait_wc(z, ud->v_scq, &wc))
			return fz_fatal(z, "learning AH %u's index failed", i);
	}
	return fz_ud_other_pd(z);
}

/* Destroy: the AHs and the UD QPs (the caller acknowledges their events). */
static int fz_ud_down(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	unsigned int i;

	for (i = 0; i < FZ_AHS; i++)
		fz_ah_destroy(z, i);
	if (ud->other_ah)
		fz_count(z, ibv_destroy_ah(ud->other_ah), "destroy_ah");
	ud->other_ah = NULL;
	if (vt_destroy(&z->t, ud->u.qp) || vt_destroy(&z->t, ud->v) || vt_destroy(&z->t, ud->w))
		return -1;
	ud->v = ud->w = NULL;
	return 0;
}

/* Both sides start big transfers and nobody waits for them. */
static void fz_burst(struct fz *z)
{
	struct fz_pair *p = &z->p;
	struct ibv_sge bsge = vt_sge(p->bbuf, 0, FZ_BUF_LEN), asge = vt_sge(p->abuf, 0, 16384);
	struct ibv_send_wr bwr = vt_wr(IBV_WR_RDMA_WRITE, FZ_WRID_FUZZ, &bsge, 1, 0), *bad;
	struct ibv_send_wr awr = vt_wr(IBV_WR_RDMA_WRITE, FZ_WRID_FUZZ, &asge, 1, 0);

	struct ibv_sge usge = vt_sge(p->abuf, 0, p->ud.mtu);
	struct ibv_send_wr uwr = vt_wr(IBV_WR_SEND, FZ_WRID_FUZZ, &usge, 1, 0);
	int i;

	vt_wr_remote(&bwr, &p->b, 0);
	vt_wr_remote(&awr, &p->a, 0);
	uwr.wr.ud.ah = p->ud.ah[0] ?: p->ud.ah[1];
	uwr.wr.ud.remote_qpn = p->ud.v->qp_num;
	uwr.wr.ud.remote_qkey = p->ud.qkey;
	for (i = 0; i < 4; i++) {
		ibv_post_send(p->b.qp, &bwr, &bad);
		ibv_post_send(p->a.qp, &awr, &bad);
		if (uwr.wr.ud.ah)
			ibv_post_send(p->ud.u.qp, &uwr, &bad);
	}
}

/* Acknowledge events while destroy waits for their acknowledgement. */
static void *fz_drainer(void *arg)
{
	struct fz *z = arg;
	struct pollfd pfd[2] = {
		{ .fd = z->dev.ctx->async_fd, .events = POLLIN },
		{ .fd = z->p.chan->fd, .events = POLLIN },
	};

	while (!__atomic_load_n(&z->drain_stop, __ATOMIC_ACQUIRE)) {
		poll(pfd, 2, 10);
		fz_drain_async(z);
		fz_drain_comp(z);
	}
	return NULL;
}

/*
 * Destroy the generation, QPs first: either quietly (both in RESET) or
 * abruptly, A while big transfers in both directions are under way.
 */
static int fz_pair_down(struct fz *z, bool abrupt)
{
	struct fz_pair *p = &z->p;
	pthread_t drainer;
	int rc;

	fz_log(z, "teardown(%s)", abrupt ? "abrupt" : "reset");
	if (abrupt) {
		fz_burst(z);
	} else {
		fz_modify_state(p->a.qp, IBV_QPS_RESET);
		fz_modify_state(p->b.qp, IBV_QPS_RESET);
		fz_modify_state(p->ud.u.qp, IBV_QPS_RESET);
	}
	z->drain_stop = false;
	if (pthread_create(&drainer, NULL, fz_drainer, z))
		return fz_fatal(z, "pthread_create failed");
	rc = vt_destroy(&z->t, p->a.qp) || vt_destroy(&z->t, p->b.qp) || fz_ud_down(z);
	__atomic_store_n(&z->drain_stop, true, __ATOMIC_RELEASE);
	pthread_join(drainer, NULL);
	if (rc)
		return fz_fatal(z, "destroying a QP: %s", z->t.reason);
	fz_poll_all(z);
	fz_drain_comp(z);
	fz_drain_async(z);
	vt_cleanup(&z->t);
	if (z->t.reason[0])
		return fz_fatal(z, "teardown: %s", z->t.reason);
	return 0;
}

/* --- what goes into the rings ------------------------------------------ */

/* An index a hostile producer or consumer might write, near base. */
static uint32_t fz_index(struct fz *z, uint32_t base, uint32_t depth)
{
	switch (fz_below(z, 13)) {
	case 0: return 0;
	case 1: return depth - 1;
	case 2: return depth;
	case 3: return depth + 1;
	case 4: return base + depth;		/* exactly full */
	case 5: return base + depth + 1;	/* one more than the ring holds */
	case 6: return base - 1;		/* behind the consumer */
	case 7: return 1U << 31;
	case 8: return UINT32_MAX;
	case 9: return base + (1U << 31);
	case 10: return base + 1;
	case 11: return base + fz_below(z, depth + 1);
	default: return (uint32_t)fz_rand(z);
	}
}

static uint64_t fz_addr(struct fz *z, const struct vt_buf *b)
{
	switch (fz_below(z, 9)) {
	case 0: return 0;
	case 1: return (uintptr_t)z->hole;			/* unmapped */
	case 2: return 0xffff888000000000ULL;			/* kernel direct map */
	case 3: return UINT64_MAX - fz_below(z, 64);		/* wraps */
	case 4: return (uintptr_t)b->p + b->len - fz_below(z, 4);	/* ends outside */
	case 5: return (uintptr_t)b->p - 1 - fz_below(z, 4096);
	case 6: return fz_rand(z);
	default: return (uintptr_t)b->p + fz_below(z, b->len);
	}
}

static uint32_t fz_len(struct fz *z)
{
	static const uint32_t lens[] = {
		0, 1, 4095, 4096, FZ_BUF_LEN, FZ_BUF_LEN + 1, 1U << 31, (1U << 31) + 1, UINT32_MAX,
	};

	return fz_chance(z, 30) ? (uint32_t)fz_rand(z) : lens[fz_below(z, 9)];
}

static uint32_t fz_key(struct fz *z)
{
	struct fz_pair *p = &z->p;
	uint32_t keys[] = {
		0, UINT32_MAX, (uint32_t)fz_rand(z), p->abuf->mr->lkey, p->abuf->mr->rkey,
		p->bbuf->mr->lkey, p->robuf->mr->lkey, p->otherbuf->mr->lkey,
		p->abuf->mr->lkey + 1, p->abuf->mr->lkey ^ 0x100,
	};

	return keys[fz_below(z, sizeof(keys) / sizeof(keys[0]))];
}

static void fz_sge(struct fz *z, struct sroce_sge *s, bool valid)
{
	uint32_t off = fz_below(z, FZ_BUF_LEN / 2);

	s->addr = (uintptr_t)z->p.abuf->p + off;
	s->length = 1 + fz_below(z, FZ_BUF_LEN / 2);
	s->lkey = z->p.abuf->mr->lkey;
	if (valid)
		return;
	switch (fz_below(z, 4)) {
	case 0: s->addr = fz_addr(z, z->p.abuf); break;
	case 1: s->length = fz_len(z); break;
	case 2: s->lkey = fz_key(z); break;
	default:
		s->addr = fz_addr(z, z->p.abuf);
		s->length = fz_len(z);
		s->lkey = fz_key(z);
	}
}

/* A well-formed send WQE from A's buffer to B's, with a random opcode. */
static void fz_send_wqe_valid(struct fz *z, struct sroce_send_wqe *w, uint32_t nsge)
{
	struct fz_pair *p = &z->p;
	uint32_t i;

	w->wr_id = FZ_WRID_FUZZ | fz_below(z, 1U << 20);
	w->opcode = fz_below(z, SROCE_WR_ATOMIC_FETCH_AND_ADD + 1);
	w->send_flags = fz_chance(z, 70) ? SROCE_SEND_SIGNALED : 0;
	w->num_sge = nsge;
	for (i = 0; i < nsge; i++)
		fz_sge(z, &w->sge[i], true);
	if (w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP || w->opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD) {
		w->num_sge = 1;
		w->sge[0].length = 8;
		w->sge[0].addr &= ~7ULL;
		w->atomic.remote_addr = ((uintptr_t)p->bbuf->p + fz_below(z, FZ_BUF_LEN)) & ~7ULL;
		w->atomic.rkey = p->bbuf->mr->rkey;
		w->atomic.compare_add = fz_rand(z);
		w->atomic.swap = fz_rand(z);
		return;
	}
	w->rdma.remote_addr = (uintptr_t)p->bbuf->p;
	w->rdma.rkey = p->bbuf->mr->rkey;
}

/* Break one thing (or a few) of a well-formed send WQE. */
static void fz_send_wqe_break(struct fz *z, struct sroce_send_wqe *w, uint32_t stride)
{
	uint32_t max_sge = (stride - sizeof(*w)) / sizeof(struct sroce_sge);
	static const uint32_t opcodes[] = {
		SROCE_WR_LOCAL_INV, SROCE_WR_BIND_MW, SROCE_WR_SEND_WITH_INV, 10, 0x80, 0x80000000,
		UINT32_MAX,
	};
	static const uint32_t counts[] = { 33, 255, 0x10000000, 0x80000000, UINT32_MAX };

	switch (fz_below(z, 9)) {
	case 0: w->opcode = fz_chance(z, 70) ? opcodes[fz_below(z, 7)] : (uint32_t)fz_rand(z); break;
	case 1: w->send_flags |= 1U << (4 + fz_below(z, 28)); break;
	case 2: w->num_sge = fz_chance(z, 50) ? max_sge + 1 : counts[fz_below(z, 5)]; break;
	case 3:
		w->send_flags |= SROCE_SEND_INLINE;
		w->inline_len = fz_chance(z, 50) ? z->v->max_inline + fz_below(z, 3) :
			       fz_chance(z, 50) ? stride : fz_len(z);
		break;
	case 4: fz_sge(z, &w->sge[fz_below(z, w->num_sge ? w->num_sge : 1)], false); break;
	case 5:
		w->rdma.remote_addr = fz_addr(z, z->p.bbuf);
		w->rdma.rkey = fz_chance(z, 50) ? fz_key(z) : z->p.bbuf->mr->rkey;
		break;
	case 6:
		w->reserved = fz_rand(z) | 1;
		w->rdma.reserved = fz_rand(z);
		break;
	case 7:		/* a READ or atomic landing where A may not write */
		w->opcode = fz_chance(z, 50) ? SROCE_WR_RDMA_READ : SROCE_WR_ATOMIC_FETCH_AND_ADD;
		w->num_sge = 1;
		w->sge[0] = (struct sroce_sge){ .addr = (uintptr_t)z->p.robuf->p, .length = 8,
						.lkey = z->p.robuf->mr->lkey };
		w->atomic.remote_addr = (uintptr_t)z->p.bbuf->p + 1 + fz_below(z, 7);
		break;
	default:
		w->send_flags |= SROCE_SEND_INLINE;
		w->opcode = fz_chance(z, 50) ? SROCE_WR_RDMA_READ : SROCE_WR_ATOMIC_CMP_AND_SWP;
		w->inline_len = 8;
	}
}

static void fz_random_bytes(struct fz *z, void *dst, size_t len)
{
	uint8_t *b = dst;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = fz_rand(z);

		memcpy(b + i, &v, len - i < 8 ? len - i : 8);
	}
}

/* SGEs this victim's send WQEs may carry: its cap, within the stride. */
static uint32_t fz_send_sges(const struct fz_victim *v)
{
	uint32_t max_sge = (v->sq.stride - sizeof(struct sroce_send_wqe)) / sizeof(struct sroce_sge);
	uint32_t n = v->max_send_sge < max_sge ? v->max_send_sge : max_sge;

	return n ? n : 1;
}

static const char *fz_fill_send_ud(struct fz *z, uint8_t *slot);

/* Fill one SQ slot: random bytes, a broken WQE, or a valid one. */
static const char *fz_fill_send(struct fz *z, uint8_t *slot)
{
	struct fz_ring *sq = &z->v->sq;
	struct sroce_send_wqe *w = (void *)slot;
	uint32_t pick;

	if (z->v->ud)
		return fz_fill_send_ud(z, slot);
	pick = fz_below(z, 10);
	if (pick < 2) {
		fz_random_bytes(z, slot, sq->stride);
		return "rand";
	}
	memset(slot, 0, sq->stride);
	fz_send_wqe_valid(z, w, 1 + fz_below(z, fz_send_sges(z->v)));
	if (pick < 4)
		return "valid";
	fz_send_wqe_break(z, w, sq->stride);
	return "bad";
}

static bool fz_fill_recv_short(struct fz *z, struct sroce_recv_wqe *w, uint32_t max_sge);

static const char *fz_fill_recv(struct fz *z, uint8_t *slot)
{
	struct fz_ring *rq = &z->v->rq;
	struct sroce_recv_wqe *w = (void *)slot;
	uint32_t max_sge = (rq->stride - sizeof(*w)) / sizeof(struct sroce_sge);
	uint32_t i;

	if (fz_chance(z, 20)) {
		fz_random_bytes(z, slot, rq->stride);
		return "rand";
	}
	memset(slot, 0, rq->stride);
	w->wr_id = FZ_WRID_FUZZ | fz_below(z, 1U << 20);
	w->num_sge = 1 + fz_below(z, max_sge);
	for (i = 0; i < w->num_sge; i++)
		fz_sge(z, &w->sge[i], !fz_chance(z, 40));
	if (fz_chance(z, 20))
		w->num_sge = fz_chance(z, 50) ? max_sge + 1 + fz_below(z, 40) : (uint32_t)fz_rand(z);
	if (fz_chance(z, 15))
		w->reserved = fz_rand(z) | 1;
	if (fz_chance(z, 15))
		w->sge[0] = (struct sroce_sge){ .addr = (uintptr_t)z->p.robuf->p, .length = 4096,
						.lkey = z->p.robuf->mr->lkey };
	if (z->v->ud && fz_chance(z, 40) && fz_fill_recv_short(z, w, max_sge))
		return "short";
	return "recv";
}

/* --- UD send and receive WQEs ------------------------------------------- */

static const char *const fz_ah_kind_names[FZ_AH_KINDS] = {
	"live", "zero", "destroyed", "never-created", "out-of-range", "huge", "other-PD", "random",
	"churned",
};
static const char *const fz_qpn_kind_names[FZ_QPN_KINDS] = {
	"peer", "self", "0", "1(GSI)", "0xffffff(multicast)", "over-24-bits", "unknown",
	"RC-victim", "bystander",
};
static const char *const fz_qkey_kind_names[FZ_QKEY_KINDS] = {
	"right", "privileged", "zero", "random", "GSI",
};

/* Where a UD send WQE goes, by kind. */
struct fz_ud_dest {
	enum fz_ah_kind ah;
	enum fz_qpn_kind qpn;
	enum fz_qkey_kind qkey;
};

/* A learned index of a live AH of U's PD, or 0 if none is known. */
static uint32_t fz_live_index(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	unsigned int i, start = fz_below(z, FZ_AHS);

	for (i = 0; i < FZ_AHS; i++)
		if (ud->ah[(start + i) % FZ_AHS] && ud->ah_index[(start + i) % FZ_AHS])
			return ud->ah_index[(start + i) % FZ_AHS];
	return 0;
}

static uint32_t fz_ah_index(struct fz *z, enum fz_ah_kind k)
{
	struct fz_ud *ud = &z->p.ud;
	uint32_t max_ah = z->dev.attr.max_ah;

	switch (k) {
	case FZ_AH_LIVE: return fz_live_index(z);
	case FZ_AH_ZERO: return 0;
	case FZ_AH_DESTROYED:
		return ud->ndead ? ud->dead[fz_below(z, ud->ndead < FZ_DEAD ? ud->ndead : FZ_DEAD)] : 0;
	case FZ_AH_NEVER_CREATED: return ud->top_index + 1 + fz_below(z, 64);
	case FZ_AH_OUT_OF_RANGE: return max_ah + fz_below(z, 3);	/* the table ends at max_ah */
	case FZ_AH_HUGE: return fz_chance(z, 50) ? UINT32_MAX : (1U << 31) + fz_below(z, 4);
	case FZ_AH_OTHER_PD: return ud->other_index;
	case FZ_AH_CHURNED: return 1 + fz_below(z, ud->top_index + 4);	/* the lowest free ones */
	default: return (uint32_t)fz_rand(z);
	}
}

static uint32_t fz_ud_qpn(struct fz *z, enum fz_qpn_kind k)
{
	struct fz_ud *ud = &z->p.ud;

	switch (k) {
	case FZ_QPN_PEER: return ud->v->qp_num;
	case FZ_QPN_SELF: return ud->u.qp->qp_num;
	case FZ_QPN_0: return 0;
	case FZ_QPN_1: return 1;
	case FZ_QPN_MULTICAST: return 0xffffff;
	case FZ_QPN_OVER_24: return fz_chance(z, 50) ? UINT32_MAX : (1U << 24) | ud->v->qp_num;
	case FZ_QPN_UNKNOWN: return fz_rand(z) & 0xffffff;
	case FZ_QPN_RC_VICTIM: return z->p.a.qp->qp_num;
	default: return __atomic_load_n(&z->sh->bystander_qpn[fz_below(z, 4)], __ATOMIC_RELAXED);
	}
}

static uint32_t fz_ud_qkey(struct fz *z, enum fz_qkey_kind k)
{
	switch (k) {
	case FZ_QKEY_RIGHT: return z->p.ud.qkey;
	case FZ_QKEY_PRIVILEGED: return (1U << 31) | (uint32_t)fz_rand(z);	/* U's own */
	case FZ_QKEY_ZERO: return 0;
	case FZ_QKEY_RANDOM: return fz_rand(z) & 0x7fffffff;
	default: return FZ_GSI_QKEY;
	}
}

/* Fill in the destination and count its kinds. */
static void fz_ud_set_dest(struct fz *z, struct sroce_send_wqe *w, const struct fz_ud_dest *d)
{
	w->ud.ah_index = fz_ah_index(z, d->ah);
	w->ud.remote_qpn = fz_ud_qpn(z, d->qpn);
	w->ud.remote_qkey = fz_ud_qkey(z, d->qkey);
	z->sh->ah_kinds[d->ah]++;
	z->sh->qpn_kinds[d->qpn]++;
	z->sh->qkey_kinds[d->qkey]++;
}

/* A well-formed UD SEND of at most the MTU from A's buffer, to V or U. */
static void fz_ud_wqe_valid(struct fz *z, struct sroce_send_wqe *w, uint32_t nsge)
{
	uint32_t i, each = z->p.ud.mtu / nsge;

	w->wr_id = FZ_WRID_FUZZ | fz_below(z, 1U << 20);
	w->opcode = fz_chance(z, 50) ? SROCE_WR_SEND : SROCE_WR_SEND_WITH_IMM;
	w->send_flags = (fz_chance(z, 70) ? SROCE_SEND_SIGNALED : 0) |
			(fz_chance(z, 20) ? SROCE_SEND_SOLICITED : 0);
	w->imm_data = (uint32_t)fz_rand(z);
	w->num_sge = nsge;
	for (i = 0; i < nsge; i++) {
		fz_sge(z, &w->sge[i], true);
		w->sge[i].length = fz_below(z, each + 1);
	}
}

/* Make a valid UD SEND longer than the MTU: sent as nothing, completed (C10-93.1.1). */
static void fz_ud_too_long(struct fz *z, struct sroce_send_wqe *w)
{
	uint32_t mtu = z->p.ud.mtu;
	const uint32_t lens[] = { mtu + 1, mtu + FZ_GRH, 2 * mtu, 4096, FZ_BUF_LEN / 2 };

	w->num_sge = 1;
	w->sge[0].addr = (uintptr_t)z->p.abuf->p;
	w->sge[0].length = lens[fz_below(z, 5)];
	z->sh->ud_too_long++;
}

/* A UD send slot: random bytes, a valid WQE, or one with one thing wrong. */
static const char *fz_fill_send_ud(struct fz *z, uint8_t *slot)
{
	static const uint32_t not_send[] = {
		SROCE_WR_RDMA_WRITE, SROCE_WR_RDMA_WRITE_WITH_IMM, SROCE_WR_RDMA_READ,
		SROCE_WR_ATOMIC_CMP_AND_SWP, SROCE_WR_ATOMIC_FETCH_AND_ADD, SROCE_WR_SEND_WITH_INV,
	};
	struct fz_ring *sq = &z->v->sq;
	struct sroce_send_wqe *w = (void *)slot;
	struct fz_ud_dest d = { FZ_AH_LIVE, fz_chance(z, 80) ? FZ_QPN_PEER : FZ_QPN_SELF,
				FZ_QKEY_RIGHT };
	uint32_t pick = fz_below(z, 12);
	const char *kind = "valid";

	if (pick < 2) {
		fz_random_bytes(z, slot, sq->stride);
		return "rand";
	}
	memset(slot, 0, sq->stride);
	fz_ud_wqe_valid(z, w, 1 + fz_below(z, fz_send_sges(z->v)));
	switch (pick) {
	case 2: case 3: break;
	case 4: case 5: d.ah = 1 + fz_below(z, FZ_AH_CHURNED - 1); kind = "ah"; break;
	case 6: d.qpn = 2 + fz_below(z, FZ_QPN_KINDS - 2); kind = "qpn"; break;
	case 7: d.qkey = 1 + fz_below(z, FZ_QKEY_KINDS - 1); kind = "qkey"; break;
	case 8: fz_ud_too_long(z, w); kind = "long"; break;
	case 9: w->opcode = not_send[fz_below(z, 6)]; kind = "op"; break;
	default: kind = "bad";
	}
	fz_ud_set_dest(z, w, &d);
	if (pick >= 10)		/* what breaks RC WQEs: SGEs, inline, flags, reserved words */
		fz_send_wqe_break(z, w, sq->stride);
	return kind;
}

/*
 * A UD receive whose buffer ends inside the 40-byte GRH area or just past
 * it, in one SGE or split over two. Return: false if it has no room.
 */
static bool fz_fill_recv_short(struct fz *z, struct sroce_recv_wqe *w, uint32_t max_sge)
{
	static const uint32_t totals[] = { 0, 1, 20, FZ_GRH - 1, FZ_GRH, FZ_GRH + 1 };
	uint32_t total = totals[fz_below(z, 6)], first;

	if (!max_sge)
		return false;
	fz_sge(z, &w->sge[0], true);
	w->num_sge = max_sge > 1 && fz_chance(z, 50) ? 2 : 1;
	first = w->num_sge == 2 ? fz_below(z, total + 1) : total;
	w->sge[0].length = first;
	if (w->num_sge == 2) {
		fz_sge(z, &w->sge[1], true);
		w->sge[1].length = total - first;
	}
	z->sh->ud_short_recvs += total < FZ_GRH;
	return true;
}

/* --- scribbles: each one an action of the round ------------------------ */

/* A producer index the kernel will read at its next look. */
static void fz_act_wq_producer(struct fz *z, struct fz_ring *r)
{
	struct sroce_ring_hdr *h = fz_hdr(r);
	uint32_t v = fz_index(z, fz_load(&h->consumer), r->depth);

	fz_store(&h->producer, v);
	fz_log(z, "%s.prod=%#x", r->name, v);
}

/* Indices and words the kernel owns or must ignore. */
static void fz_act_hdr_words(struct fz *z, struct fz_ring *r)
{
	struct sroce_ring_hdr *h = fz_hdr(r);
	uint32_t v = fz_index(z, fz_load(&h->consumer), r->depth);

	switch (fz_below(z, 4)) {
	case 0: fz_store(&h->consumer, v); fz_log(z, "%s.cons=%#x", r->name, v); break;
	case 1: fz_store(&h->flags, v); fz_log(z, "%s.flags=%#x", r->name, v); break;
	case 2:
		fz_random_bytes(z, h->reserved0, sizeof(h->reserved0));
		fz_random_bytes(z, h->reserved2, sizeof(h->reserved2));
		fz_log(z, "%s.reserved", r->name);
		break;
	default: fz_random_bytes(z, h, SROCE_RING_ENTRIES_OFFSET); fz_log(z, "%s.hdr=rand", r->name);
	}
}

/* Publish n crafted send WQEs past the kernel's index, then the doorbell. */
static void fz_act_sq_wqes(struct fz *z)
{
	struct fz_ring *sq = &z->v->sq;
	uint32_t base = fz_load(&fz_hdr(sq)->consumer), n = 1 + fz_below(z, sq->depth), i;
	const char *kind = "";

	for (i = 0; i < n; i++)
		kind = fz_fill_send(z, fz_slot(sq, base + i));
	fz_store(&fz_hdr(sq)->producer, base + n);
	fz_log(z, "%s+%u(%s..)", sq->name, n, kind);
	fz_count(z, fz_doorbell(z->v->qp), "doorbell");
}

static void fz_act_rq_wqes(struct fz *z)
{
	struct fz_ring *rq = &z->v->rq;
	uint32_t base = fz_load(&fz_hdr(rq)->consumer), n = 1 + fz_below(z, rq->depth), i;

	for (i = 0; i < n; i++)
		fz_fill_recv(z, fz_slot(rq, base + i));
	fz_store(&fz_hdr(rq)->producer, base + n);
	fz_log(z, "%s+%u", rq->name, n);
}

/* Random bytes over slots the kernel has not been told about (yet). */
static void fz_act_slots(struct fz *z, struct fz_ring *r)
{
	uint32_t i = fz_below(z, r->depth);

	fz_random_bytes(z, fz_slot(r, i), r->stride);
	fz_log(z, "%s[%u]=rand", r->name, i);
}

static void fz_act_cq(struct fz *z, struct fz_ring *r)
{
	struct sroce_ring_hdr *h = fz_hdr(r);
	uint32_t v = fz_index(z, fz_load(&h->producer), r->depth);

	switch (fz_below(z, 3)) {
	case 0: fz_store(&h->consumer, v); fz_log(z, "%s.cons=%#x", r->name, v); break;
	case 1: fz_store(&h->producer, v); fz_log(z, "%s.prod=%#x", r->name, v); break;
	default: fz_act_slots(z, r);
	}
}

/* One scribble over this round's victim's rings. */
static void fz_scribble(struct fz *z)
{
	struct fz_victim *v = z->v;
	unsigned int pick = fz_below(z, 10);

	if (v->ud)
		z->sh->ud_acts[pick == 2 || pick == 3 ? FZ_UD_SQ_WQES :
			       pick == 4 || pick == 5 ? FZ_UD_RQ_WQES : FZ_UD_RING]++;
	switch (pick) {
	case 0: fz_act_wq_producer(z, &v->sq); break;
	case 1: fz_act_wq_producer(z, &v->rq); break;
	case 2: case 3: fz_act_sq_wqes(z); break;
	case 4: case 5: fz_act_rq_wqes(z); break;
	case 6: fz_act_hdr_words(z, fz_chance(z, 50) ? &v->sq : &v->rq); break;
	case 7: fz_act_slots(z, fz_chance(z, 50) ? &v->sq : &v->rq); break;
	default: fz_act_cq(z, fz_chance(z, 50) ? &v->scq : &v->rcq);
	}
}

/* --- triggers: legal ways to make the kernel look ------------------------ */

static void fz_trig_post_send(struct fz *z)
{
	struct fz_pair *p = &z->p;
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	enum ibv_wr_opcode op = ops[fz_below(z, 4)];
	uint32_t len = op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 8 : 1 + fz_below(z, 4096);
	struct ibv_sge sge = vt_sge(p->abuf, 0, len), rsge = vt_sge(p->bbuf, 0, 4096);
	struct ibv_send_wr wr = vt_wr(op, FZ_WRID_FUZZ, &sge, 1, IBV_SEND_SIGNALED), *bad;
	struct ibv_recv_wr rwr = { .wr_id = FZ_WRID_FUZZ, .sg_list = &rsge, .num_sge = 1 }, *rbad;

	if (op == IBV_WR_SEND)
		ibv_post_recv(p->b.qp, &rwr, &rbad);	/* may be full: fine */
	else
		vt_wr_remote(&wr, &p->a, fz_below(z, 4096) & ~7U);
	fz_log(z, "post_send(%d)", op);
	fz_count(z, ibv_post_send(p->a.qp, &wr, &bad), "post_send");
}

static void fz_trig_post_recv(struct fz *z)
{
	struct ibv_sge sge = vt_sge(z->p.abuf, fz_below(z, 4096), 1 + fz_below(z, 8192));
	struct ibv_recv_wr wr = { .wr_id = FZ_WRID_FUZZ, .sg_list = &sge, .num_sge = 1 }, *bad;

	fz_log(z, "post_recv");
	fz_count(z, ibv_post_recv(z->p.a.qp, &wr, &bad), "post_recv");
}

/* B, honest, sends something at A; wait a little for its outcome. */
static void fz_trig_peer(struct fz *z)
{
	struct fz_pair *p = &z->p;
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	enum ibv_wr_opcode op = ops[fz_below(z, 6)];
	bool atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP;
	uint32_t len = atomic ? 8 : fz_below(z, 3 * 1024 + 1);
	struct ibv_sge sge = vt_sge(p->bbuf, 0, len);
	struct ibv_send_wr wr = vt_wr(op, FZ_WRID_FUZZ, &sge, 1, IBV_SEND_SIGNALED), *bad;
	struct ibv_wc wc;
	int i;

	vt_wr_remote(&wr, &p->b, atomic ? 8 * fz_below(z, 512) : fz_below(z, 4096));
	fz_log(z, "peer(%d,%u)", op, len);
	if (ibv_post_send(p->b.qp, &wr, &bad))
		return;
	for (i = 0; i < 200 && ibv_poll_cq(p->b.scq, 1, &wc) == 0; i++)
		usleep(100);
}

static void fz_trig_notify(struct fz *z)
{
	struct ibv_cq *cq = fz_chance(z, 50) ? z->p.a.rcq : z->p.a.scq;
	int solicited = fz_chance(z, 50);

	fz_log(z, "notify(%s%s)", cq == z->p.a.rcq ? "rcq" : "scq", solicited ? ",sol" : "");
	fz_count(z, ibv_req_notify_cq(cq, solicited), "req_notify");
}

/* A move the verbs allow (or refuse with EINVAL), picked at random. */
static void fz_trig_modify(struct fz *z)
{
	struct fz_pair *p = &z->p;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	switch (fz_below(z, 7)) {
	case 0: fz_log(z, "A->ERR"); fz_count(z, fz_modify_state(p->a.qp, IBV_QPS_ERR), "modify"); break;
	case 1: fz_log(z, "A->RESET"); fz_count(z, fz_modify_state(p->a.qp, IBV_QPS_RESET), "modify"); break;
	case 2: fz_log(z, "B->ERR"); fz_count(z, fz_modify_state(p->b.qp, IBV_QPS_ERR), "modify"); break;
	case 3:
		fz_log(z, "A->SQD->RTS");
		fz_count(z, fz_modify_state(p->a.qp, IBV_QPS_SQD), "modify");
		fz_count(z, fz_modify_state(p->a.qp, IBV_QPS_RTS), "modify");
		break;
	case 4: /* RTR without its required attributes: EINVAL, no change */
		fz_log(z, "A->RTR(bare)");
		fz_count(z, ibv_modify_qp(p->a.qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU), "modify");
		break;
	default: fz_log(z, "reconnect"); fz_count(z, fz_reconnect(z), "reconnect");
	}
}

static void fz_trig_misc(struct fz *z)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	switch (fz_below(z, 4)) {
	case 0: fz_log(z, "raw_send_wr"); fz_raw_send_wr(z->p.a.qp, z->p.abuf); break;
	case 1: fz_log(z, "raw_recv_wr"); fz_raw_recv_wr(z->p.a.qp, z->p.abuf); break;
	case 2: fz_log(z, "query"); fz_count(z, ibv_query_qp(z->p.a.qp, &a, IBV_QP_STATE, &ia), "query"); break;
	default: fz_log(z, "sleep"); usleep(1000 + fz_below(z, 4000));
	}
}

static void fz_trigger(struct fz *z)
{
	switch (fz_below(z, 10)) {
	case 0: case 1: fz_trig_post_send(z); break;
	case 2: fz_log(z, "doorbell"); fz_count(z, fz_doorbell(z->p.a.qp), "doorbell"); break;
	case 3: fz_trig_post_recv(z); break;
	case 4: fz_log(z, "poll"); fz_poll_all(z); break;
	case 5: fz_trig_notify(z); break;
	case 6: fz_trig_modify(z); break;
	case 7: case 8: fz_trig_peer(z); break;
	default: fz_trig_misc(z);
	}
}

/* --- UD triggers: legal calls on U and V, AHs made and destroyed ------------ */

/* A live AH slot (made if there is none). Return: its slot, or -1. */
static int fz_ud_some_ah(struct fz *z)
{
	unsigned int i = fz_below(z, FZ_AHS);

	if (!z->p.ud.ah[i])
		fz_ah_replace(z, i, false);
	return z->p.ud.ah[i] ? (int)i : -1;
}

/*
 * ibv_post_send() through an AH, at most twice the MTU long, and sometimes
 * ibv_destroy_ah() right after: the WQE must still go. Posted on U (which
 * the provider's index no longer matches once the fuzz published WQEs of
 * its own: likely an error) or on V, whose sends must all succeed, a
 * datagram over the MTU too (sent as nothing, C10-93.1.1).
 */
static void fz_ud_trig_post_send(struct fz *z, bool destroy_after)
{
	struct fz_ud *ud = &z->p.ud;
	int i = fz_ud_some_ah(z);
	bool on_v = fz_chance(z, destroy_after ? 70 : 30);
	uint32_t len = fz_chance(z, 20) ? ud->mtu + 1 + fz_below(z, ud->mtu) : fz_below(z, ud->mtu + 1);
	struct ibv_sge sge = vt_sge(z->p.abuf, 0, len);
	struct ibv_send_wr wr = vt_wr(fz_chance(z, 50) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM,
				      FZ_WRID_FUZZ, &sge, 1, IBV_SEND_SIGNALED), *bad;
	enum fz_qpn_kind qk = fz_chance(z, 70) ? FZ_QPN_PEER : fz_below(z, FZ_QPN_KINDS);
	enum fz_qkey_kind kk = fz_chance(z, 70) ? FZ_QKEY_RIGHT : fz_below(z, FZ_QKEY_KINDS);
	int rc;

	if (i < 0)
		return;
	z->sh->ud_acts[destroy_after ? FZ_UD_POST_DESTROY : FZ_UD_POST_SEND]++;
	wr.wr.ud.ah = ud->ah[i];
	wr.wr.ud.remote_qpn = fz_ud_qpn(z, qk);
	wr.wr.ud.remote_qkey = fz_ud_qkey(z, kk);
	z->sh->qpn_kinds[qk]++;
	z->sh->qkey_kinds[kk]++;
	z->sh->ah_kinds[FZ_AH_LIVE]++;
	z->sh->ud_too_long += len > ud->mtu;
	fz_log(z, "%s_post(ah%d,%u,%s,%s)%s", on_v ? "V" : "U", i, len, fz_qpn_kind_names[qk],
	       fz_qkey_kind_names[kk], destroy_after ? "+destroy_ah" : "");
	rc = ibv_post_send(on_v ? ud->v : ud->u.qp, &wr, &bad);
	fz_count(z, rc, "ud_post_send");
	if (!rc && !ud->ah_index[i])
		fz_ah_note(ud, i, fz_posted_ah_index(on_v ? &ud->v_sq : &ud->u.sq));
	if (!rc && on_v && destroy_after)
		z->sh->peer_sends_destroyed++;
	if (destroy_after)
		fz_ah_destroy(z, i);
}

/* ibv_post_recv() on U, with buffers short of the GRH area among them. */
static void fz_ud_trig_post_recv(struct fz *z)
{
	const uint32_t lens[] = { 0, 1, FZ_GRH - 1, FZ_GRH, FZ_GRH + 1, FZ_GRH + z->p.ud.mtu, 4096 };
	uint32_t len = lens[fz_below(z, 7)];
	struct ibv_sge sge = vt_sge(z->p.abuf, fz_below(z, 4096), len);
	struct ibv_recv_wr wr = { .wr_id = FZ_WRID_FUZZ, .sg_list = &sge, .num_sge = 1 }, *bad;

	z->sh->ud_acts[FZ_UD_POST_RECV]++;
	z->sh->ud_short_recvs += len < FZ_GRH;
	fz_log(z, "ud_post_recv(%u)", len);
	fz_count(z, ibv_post_recv(z->p.ud.u.qp, &wr, &bad), "ud_post_recv");
}

/* V, honest, sends a datagram at U: of the MTU or longer, right or wrong Q_Key. */
static void fz_ud_trig_peer(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	int i = fz_ud_some_ah(z);
	uint32_t len = fz_chance(z, 15) ? ud->mtu + 1 : fz_below(z, ud->mtu + 1);
	bool right = fz_chance(z, 80);
	struct ibv_sge sge = vt_sge(z->p.bbuf, 0, len);
	struct ibv_send_wr wr = vt_wr(fz_chance(z, 50) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM,
				      FZ_WRID_FUZZ, &sge, 1, IBV_SEND_SIGNALED), *bad;
	int n;

	if (i < 0)
		return;
	z->sh->ud_acts[FZ_UD_PEER]++;
	wr.wr.ud.ah = ud->ah[i];
	wr.wr.ud.remote_qpn = ud->u.qp->qp_num;
	wr.wr.ud.remote_qkey = right ? ud->qkey : ud->qkey ^ 0x100;
	fz_log(z, "ud_peer(%u,%s)", len, right ? "qkey" : "bad-qkey");
	if (ibv_post_send(ud->v, &wr, &bad))
		return;
	for (n = 0; n < 200 && !fz_poll(z, ud->v_scq, FZ_POLL_HONEST); n++)
		usleep(100);
}

/* U's state and Q_Key, moved by legal (or refused) modifies. */
static void fz_ud_trig_modify(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };

	z->sh->ud_acts[FZ_UD_MODIFY]++;
	switch (fz_below(z, 6)) {
	case 0: fz_log(z, "U->ERR"); fz_count(z, fz_modify_state(ud->u.qp, IBV_QPS_ERR), "modify"); break;
	case 1:
		fz_log(z, "U->RESET");
		fz_count(z, fz_modify_state(ud->u.qp, IBV_QPS_RESET), "modify");
		break;
	case 2:
		fz_log(z, "U->SQD->RTS");
		fz_count(z, fz_modify_state(ud->u.qp, IBV_QPS_SQD), "modify");
		fz_count(z, fz_modify_state(ud->u.qp, IBV_QPS_RTS), "modify");
		break;
	case 3:	/* RTS -> RTS with another Q_Key: V's datagrams then miss */
		a.qkey = fz_chance(z, 50) ? ud->qkey ^ 1 : ud->qkey;
		fz_log(z, "U.qkey=%#x", a.qkey);
		fz_count(z, ibv_modify_qp(ud->u.qp, &a, IBV_QP_STATE | IBV_QP_QKEY), "modify");
		break;
	case 4:	/* INIT without its required attributes: EINVAL */
		a.qp_state = IBV_QPS_INIT;
		fz_log(z, "U->INIT(bare)");
		fz_count(z, ibv_modify_qp(ud->u.qp, &a, IBV_QP_STATE), "modify");
		break;
	default: fz_log(z, "U.revive"); fz_count(z, fz_ud_revive(z), "revive");
	}
}

/* What the churner thread does to the AH table while U's WQEs name it. */
struct fz_churn {
	struct ibv_pd *pd;
	struct ibv_ah_attr attr;
	unsigned int rounds, made;
};

static void *fz_ah_churner(void *arg)
{
	struct fz_churn *c = arg;
	unsigned int i;

	for (i = 0; i < c->rounds; i++) {
		struct ibv_ah *ah = ibv_create_ah(c->pd, &c->attr);

		if (!ah)
			continue;
		c->made++;
		ibv_destroy_ah(ah);
	}
	return NULL;
}

/*
 * A thread creates and destroys AHs while this one publishes UD SENDs
 * naming the indices they come and go at, each with its doorbell: the
 * lookups race with the table's changes.
 */
static void fz_ud_race(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	struct fz_ring *sq = &ud->u.sq;
	struct fz_churn c = {
		.pd = z->t.pd, .rounds = 16 + fz_below(z, 48),
		.attr = { .is_global = 1, .port_num = z->dev.port,
			  .grh = { .dgid = z->dev.gid, .sgid_index = z->dev.gid_index, .hop_limit = 64 } },
	};
	struct fz_ud_dest d = { FZ_AH_CHURNED, FZ_QPN_PEER, FZ_QKEY_RIGHT };
	pthread_t thread;
	unsigned int i;

	z->sh->ud_acts[FZ_UD_AH_RACE]++;
	if (fz_state(ud->u.qp) != IBV_QPS_RTS)
		fz_count(z, fz_ud_revive(z), "revive");
	if (pthread_create(&thread, NULL, fz_ah_churner, &c)) {
		fz_count(z, EAGAIN, "pthread_create");
		return;
	}
	for (i = 0; i < c.rounds; i++) {
		uint32_t prod = fz_load(&fz_hdr(sq)->consumer);
		struct sroce_send_wqe *w = (void *)fz_slot(sq, prod);

		memset(w, 0, sq->stride);
		fz_ud_wqe_valid(z, w, 1);
		d.ah = fz_chance(z, 70) ? FZ_AH_CHURNED : FZ_AH_LIVE;
		fz_ud_set_dest(z, w, &d);
		fz_store(&fz_hdr(sq)->producer, prod + 1);
		fz_doorbell(ud->u.qp);
		fz_poll(z, ud->u.send_cq, 1);
	}
	pthread_join(thread, NULL);
	fz_log(z, "ah_race(%u posts, %u AHs made and destroyed)", c.rounds, c.made);
}

/* The AH table changes: an AH destroyed, made, or a race of both with posts. */
static void fz_ud_trig_ah(struct fz *z)
{
	unsigned int i = fz_below(z, FZ_AHS);

	switch (fz_below(z, 3)) {
	case 0:
		z->sh->ud_acts[FZ_UD_AH_CHURN]++;
		fz_log(z, "destroy_ah(%u)", i);
		fz_ah_destroy(z, i);
		break;
	case 1:
		z->sh->ud_acts[FZ_UD_AH_CHURN]++;
		fz_log(z, "create_ah(%u)", i);
		fz_ah_replace(z, i, fz_chance(z, 50));
		break;
	default: fz_ud_race(z);
	}
}

static void fz_ud_trigger(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;

	switch (fz_below(z, 11)) {
	case 0: case 1: fz_ud_trig_post_send(z, false); break;
	case 2: fz_ud_trig_post_send(z, true); break;
	case 3:
		z->sh->ud_acts[FZ_UD_DOORBELL]++;
		fz_log(z, "doorbell");
		fz_count(z, fz_doorbell(ud->u.qp), "doorbell");
		break;
	case 4: fz_ud_trig_post_recv(z); break;
	case 5:
		fz_log(z, "poll+notify");
		fz_poll_all(z);
		fz_count(z, ibv_req_notify_cq(fz_chance(z, 50) ? ud->u.send_cq : ud->u.recv_cq,
					      fz_chance(z, 50)), "req_notify");
		break;
	case 6: fz_ud_trig_modify(z); break;
	case 7: case 8: fz_ud_trig_peer(z); break;
	default: fz_ud_trig_ah(z);
	}
}

/* Each round has its own PRNG stream: a round's actions depend on the seed alone. */
static void fz_round(struct fz *z, unsigned int round)
{
	long long start = vt_now_ms();
	unsigned int i, n;

	z->rng = z->seed ^ (0xd1b54a32d192ed03ULL * (round + 1));
	z->sh->round = round;
	/* Odd rounds are UD's: the run's length stays what it was for RC alone. */
	z->v = round & 1 ? &z->p.ud.u : &z->p.rc;
	z->v->ud ? z->sh->ud_rounds++ : z->sh->rc_rounds++;
	fz_log_start(z, "round", round);
	fz_log(z, "%s:", z->v->name);
	if (z->v->ud && fz_chance(z, 40) && fz_state(z->v->qp) != IBV_QPS_RTS) {
		fz_log(z, "revive");
		fz_count(z, fz_ud_revive(z), "revive");
	} else if (!z->v->ud && fz_chance(z, 40) &&
		   (fz_state(z->p.a.qp) != IBV_QPS_RTS || fz_state(z->p.b.qp) != IBV_QPS_RTS)) {
		fz_log(z, "revive");
		fz_count(z, fz_reconnect(z), "reconnect");
	}
	for (i = 0, n = 1 + fz_below(z, 3); i < n; i++)
		fz_scribble(z);
	for (i = 0, n = 1 + fz_below(z, 4); i < n; i++)
		z->v->ud ? fz_ud_trigger(z) : fz_trigger(z);
	fz_poll_all(z);
	fz_drain_comp(z);
	fz_drain_async(z);
	fz_log_end(z);
	*(z->v->ud ? &z->sh->ud_ms : &z->sh->rc_ms) += vt_now_ms() - start;
}

/* --- mappings: the rules, and a mapping that outlives its ring ------- */

static void fz_rule(struct fz *z, bool held, const char *what)
{
	if (!held && !z->sh->mmap_rules[0])
		snprintf(z->sh->mmap_rules, sizeof(z->sh->mmap_rules), "%s", what);
}

static void *fz_map_ring(struct fz *z, size_t len, int prot, int flags, uint64_t offset)
{
	return mmap(NULL, len, prot, flags, z->dev.ctx->cmd_fd, offset);
}

/* sroce_mmap(): whole ring, shared, never executable, cannot grow. */
static void fz_mmap_rules(struct fz *z)
{
	const struct fz_ring *r = &z->p.rc.sq;
	const int rw = PROT_READ | PROT_WRITE;
	void *m;

	z->sh->mmap_rules[0] = '\0';
	m = fz_map_ring(z, r->size, rw | PROT_EXEC, MAP_SHARED, r->offset);
	fz_rule(z, m == MAP_FAILED, "PROT_EXEC mapping of a ring succeeded");
	if (m != MAP_FAILED)
		munmap(m, r->size);
	m = fz_map_ring(z, r->size, rw, MAP_PRIVATE, r->offset);
	fz_rule(z, m == MAP_FAILED, "MAP_PRIVATE mapping of a ring succeeded");
	if (m != MAP_FAILED)
		munmap(m, r->size);
	m = fz_map_ring(z, r->size + z->page, rw, MAP_SHARED, r->offset);
	fz_rule(z, m == MAP_FAILED, "mapping a page more than the ring succeeded");
	if (m != MAP_FAILED)
		munmap(m, r->size + z->page);
	m = fz_map_ring(z, r->size, rw, MAP_SHARED, r->offset + ((uint64_t)1 << 40));
	fz_rule(z, m == MAP_FAILED, "mapping an offset nothing was exported at succeeded");
	if (m != MAP_FAILED)
		munmap(m, r->size);
	m = fz_map_ring(z, r->size, rw, MAP_SHARED, r->offset);
	fz_rule(z, m != MAP_FAILED, "a second mapping of the SQ ring failed");
	if (m == MAP_FAILED)
		return;
	fz_rule(z, mprotect(m, r->size, PROT_READ | PROT_EXEC) != 0,
		"mprotect(PROT_EXEC) of a ring succeeded");
	fz_rule(z, mremap(m, r->size, r->size + z->page, MREMAP_MAYMOVE) == MAP_FAILED,
		"mremap() grew a ring");
	munmap(m, r->size);
}

/* --- reserved WQE fields: refused with an error completion ----------------- */

#define FZ_WRID_RESERVED	0x5e5e5e5eULL

/* Keep the first failure of a rule check ("" = the rule held). */
static void fz_verdict(char verdict[VT_REASON_LEN], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fz_verdict(char verdict[VT_REASON_LEN], const char *fmt, ...)
{
	va_list ap;

	if (verdict[0])
		return;
	va_start(ap, fmt);
	vsnprintf(verdict, VT_REASON_LEN, fmt, ap);
	va_end(ap);
}

/* The next CQE of @cq within the wait, which must be @want for FZ_WRID_RESERVED. */
static void fz_expect_refused(struct fz *z, struct ibv_cq *cq, const char *what)
{
	long long end = vt_now_ms() + z->vo.wait_ms;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && vt_now_ms() < end)
		usleep(1000);
	if (n <= 0)
		fz_verdict(z->sh->reserved_rules, "%s with a reserved field set: %s", what,
				 n ? "ibv_poll_cq failed" : "no completion");
	else if (wc.wr_id != FZ_WRID_RESERVED || wc.status != IBV_WC_LOC_QP_OP_ERR)
		fz_verdict(z->sh->reserved_rules, "%s with a reserved field set: wr_id %#llx status %s, "
				 "expected %#llx local QP operation error", what,
				 (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
				 (unsigned long long)FZ_WRID_RESERVED);
}

/* Write a WQE into @r's next slot behind the provider's back, and publish it. */
static uint8_t *fz_reserved_slot(struct fz_ring *r)
{
	uint32_t prod = fz_load(&fz_hdr(r)->producer);
	uint8_t *slot = fz_slot(r, prod);

	memset(slot, 0, r->stride);
	return slot;
}

static void fz_reserved_publish(struct fz_ring *r)
{
	struct sroce_ring_hdr *h = fz_hdr(r);

	fz_store(&h->producer, fz_load(&h->producer) + 1);
}

/*
 * sroce-abi.h: reserved fields must be zero and the kernel rejects them
 * otherwise. A SEND that is valid but for one reserved word, and a receive
 * likewise, must each complete with IBV_WC_LOC_QP_OP_ERR (the kernel used
 * to ignore the words). Runs on the fresh pair, which it then reconnects.
 */
static void fz_reserved_rules(struct fz *z)
{
	static const char *const fields[] = { "reserved", "rdma.reserved" };
	struct fz_pair *p = &z->p;
	struct sroce_send_wqe *w;
	struct sroce_recv_wqe *rw;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sg;
	unsigned int i;

	z->sh->reserved_rules[0] = '\0';
	for (i = 0; i < 2; i++) {
		w = (void *)fz_reserved_slot(&p->rc.sq);
		w->wr_id = FZ_WRID_RESERVED;
		w->opcode = SROCE_WR_SEND;
		w->send_flags = SROCE_SEND_SIGNALED;
		w->num_sge = 1;
		w->sge[0] = (struct sroce_sge){ .addr = (uintptr_t)p->abuf->p, .length = 8,
						.lkey = p->abuf->mr->lkey };
		if (i)
			w->rdma.reserved = 1;
		else
			w->reserved = 1;
		fz_reserved_publish(&p->rc.sq);
		if (fz_doorbell(p->a.qp))
			fz_verdict(z->sh->reserved_rules, "doorbell failed");
		fz_expect_refused(z, p->a.scq, fields[i]);
		if (fz_reconnect(z))
			fz_verdict(z->sh->reserved_rules, "reconnect failed: %s", z->t.reason);
	}
	rw = (void *)fz_reserved_slot(&p->rc.rq);
	rw->wr_id = FZ_WRID_RESERVED;
	rw->num_sge = 1;
	rw->reserved = 1;
	rw->sge[0] = (struct sroce_sge){ .addr = (uintptr_t)p->abuf->p, .length = 8,
					 .lkey = p->abuf->mr->lkey };
	fz_reserved_publish(&p->rc.rq);
	sg = vt_sge(p->bbuf, 0, 8);
	wr = vt_wr(IBV_WR_SEND, 1, &sg, 1, 0);
	if (ibv_post_send(p->b.qp, &wr, &bad))
		fz_verdict(z->sh->reserved_rules, "the peer's SEND was refused");
	fz_expect_refused(z, p->a.rcq, "receive WQE");
	if (fz_reconnect(z))
		fz_verdict(z->sh->reserved_rules, "reconnect failed: %s", z->t.reason);
}

/* --- UD AH indices: what the kernel must refuse ------------------------------- */

/* V got U's 8 bytes from A's buffer, behind the GRH area, from U. */
static void fz_ud_rule_arrived(struct fz *z, const char *what)
{
	struct fz_ud *ud = &z->p.ud;
	struct ibv_wc wc;
	const uint8_t *got;

	if (fz_wait_wc(z, ud->v_rcq, &wc)) {
		fz_verdict(z->sh->ud_ah_rules, "%s: nothing arrived", what);
		return;
	}
	got = ud->vbuf->p + (size_t)(wc.wr_id & 0xffff) * FZ_PEER_RECV_LEN + FZ_GRH;
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != FZ_GRH + 8 ||
	    wc.src_qp != ud->u.qp->qp_num || memcmp(got, z->p.abuf->p, 8))
		fz_verdict(z->sh->ud_ah_rules, "%s: received status %s byte_len %u src_qp %u%s, expected "
				"success, %u, %u and A's bytes", what, ibv_wc_status_str(wc.status),
				wc.byte_len, wc.src_qp, memcmp(got, z->p.abuf->p, 8) ? " other bytes" : "",
				FZ_GRH + 8, ud->u.qp->qp_num);
	fz_ud_peer_recvs(z, 1);
}

/* The completion U's send gets, which must be @want; V must get it if it went. */
static void fz_ud_rule_outcome(struct fz *z, const char *what, enum ibv_wc_status want)
{
	struct fz_ud *ud = &z->p.ud;
	struct ibv_wc wc;

	if (fz_wait_wc(z, ud->u.send_cq, &wc))
		fz_verdict(z->sh->ud_ah_rules, "%s: no completion", what);
	else if (wc.wr_id != FZ_WRID_RESERVED || wc.status != want)
		fz_verdict(z->sh->ud_ah_rules, "%s: wr_id %#llx status %s, expected %#llx %s", what,
				(unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
				(unsigned long long)FZ_WRID_RESERVED, ibv_wc_status_str(want));
	else if (want == IBV_WC_SUCCESS)
		fz_ud_rule_arrived(z, what);
	if (want != IBV_WC_SUCCESS && fz_ud_revive(z))
		fz_verdict(z->sh->ud_ah_rules, "%s: reviving U failed: %s", what, strerror(errno));
}

/* An 8-byte signaled UD send to V, written straight into U's SQ with @index and @qpn. */
static void fz_ud_rule(struct fz *z, const char *what, uint32_t opcode, uint32_t index,
		       uint32_t qpn, enum ibv_wc_status want)
{
	struct fz_ud *ud = &z->p.ud;
	struct sroce_send_wqe *w = (void *)fz_reserved_slot(&ud->u.sq);

	w->wr_id = FZ_WRID_RESERVED;
	w->opcode = opcode;
	w->send_flags = SROCE_SEND_SIGNALED;
	w->num_sge = 1;
	w->sge[0] = (struct sroce_sge){ .addr = (uintptr_t)z->p.abuf->p, .length = 8,
					.lkey = z->p.abuf->mr->lkey };
	w->ud.ah_index = index;
	w->ud.remote_qpn = qpn;
	w->ud.remote_qkey = ud->qkey;
	fz_reserved_publish(&ud->u.sq);
	if (fz_doorbell(ud->u.qp))
		fz_verdict(z->sh->ud_ah_rules, "%s: doorbell failed", what);
	fz_ud_rule_outcome(z, what, want);
}

/* ibv_post_send() through an AH, ibv_destroy_ah() at once: it still goes. Return: its index. */
static uint32_t fz_ud_rule_destroy_after_post(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	struct ibv_sge sge = vt_sge(z->p.abuf, 0, 8);
	struct ibv_send_wr wr = vt_wr(IBV_WR_SEND, FZ_WRID_RESERVED, &sge, 1, IBV_SEND_SIGNALED), *bad;
	struct ibv_ah *ah = fz_ah_create(z, z->t.pd);
	uint32_t index;

	if (!ah) {
		fz_verdict(z->sh->ud_ah_rules, "ibv_create_ah: %s", strerror(errno));
		return 0;
	}
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud->v->qp_num;
	wr.wr.ud.remote_qkey = ud->qkey;
	if (ibv_post_send(ud->u.qp, &wr, &bad))
		fz_verdict(z->sh->ud_ah_rules, "ibv_post_send through a new AH refused");
	index = fz_posted_ah_index(&ud->u.sq);
	if (ibv_destroy_ah(ah))
		fz_verdict(z->sh->ud_ah_rules, "ibv_destroy_ah: %s", strerror(errno));
	fz_ud_rule_outcome(z, "a SEND posted just before ibv_destroy_ah()", IBV_WC_SUCCESS);
	return index;
}

/*
 * sroce-abi.h: an AH index that names no AH of this process on the QP's
 * PD completes the WQE with IBV_WC_LOC_QP_OP_ERR. Each kind of forged
 * index, in an otherwise valid SEND, must; a live one must arrive, also
 * when its AH is destroyed right after the post. Runs on the fresh pair.
 */
static void fz_ud_ah_rules(struct fz *z)
{
	struct fz_ud *ud = &z->p.ud;
	uint32_t live = ud->ah_index[0], peer = ud->v->qp_num, dead;
	const enum ibv_wc_status refused = IBV_WC_LOC_QP_OP_ERR;
	char what[64];

	z->sh->ud_ah_rules[0] = '\0';
	fz_ud_peer_recvs(z, fz_poll(z, ud->v_rcq, FZ_POLL_HONEST));	/* the learning SENDs */
	/* First, while the provider's SQ index is still the ring's. */
	dead = fz_ud_rule_destroy_after_post(z);
	fz_ud_rule(z, "a live AH's index", SROCE_WR_SEND, live, peer, IBV_WC_SUCCESS);
	snprintf(what, sizeof(what), "destroyed AH's index %u", dead);
	fz_ud_rule(z, what, SROCE_WR_SEND, dead, peer, refused);
	fz_ud_rule(z, "index 0", SROCE_WR_SEND, 0, peer, refused);
	snprintf(what, sizeof(what), "never-created index %u", ud->top_index + 50);
	fz_ud_rule(z, what, SROCE_WR_SEND, ud->top_index + 50, peer, refused);
	snprintf(what, sizeof(what), "index %u past max_ah", z->dev.attr.max_ah + 1);
	fz_ud_rule(z, what, SROCE_WR_SEND, z->dev.attr.max_ah + 1, peer, refused);
	fz_ud_rule(z, "index 0xffffffff", SROCE_WR_SEND, UINT32_MAX, peer, refused);
	snprintf(what, sizeof(what), "the other PD's AH's index %u", ud->other_index);
	fz_ud_rule(z, what, SROCE_WR_SEND, ud->other_index, peer, refused);
	fz_ud_rule(z, "a QPN over 24 bits", SROCE_WR_SEND, live, peer | 1U << 24, refused);
	fz_ud_rule(z, "RDMA WRITE on a UD QP", SROCE_WR_RDMA_WRITE, live, peer, refused);
	fz_ud_rule(z, "a live AH's index, after all that", SROCE_WR_SEND, live, peer,
		   IBV_WC_SUCCESS);
}

struct fz_kept {
	uint8_t *m;
	size_t size;
	uint64_t mark;
};

/*
 * Map the SQ and RQ rings a second time, split the mapping, let a forked
 * child inherit and drop it: after destroy the memory must still be ours.
 */
static void fz_keep(struct fz *z, const struct fz_ring *r, struct fz_kept *k)
{
	pid_t pid;

	k->size = r->size;
	k->mark = fz_rand(z);
	k->m = fz_map_ring(z, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->offset);
	if (k->m == MAP_FAILED) {
		k->m = NULL;
		snprintf(z->sh->lifetime, sizeof(z->sh->lifetime), "second mapping of %s failed: %s",
			 r->name, strerror(errno));
		return;
	}
	if (k->size > (size_t)z->page)
		mprotect(k->m + z->page, z->page, PROT_READ);	/* splits the VMA */
	pid = fork();
	if (pid == 0) {
		fz_store((uint32_t *)(k->m + 64), (uint32_t)k->mark);	/* the consumer word */
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void fz_kept_check(struct fz *z, struct fz_kept *k, const char *name)
{
	if (!k->m)
		return;
	memcpy(k->m + SROCE_RING_ENTRIES_OFFSET, &k->mark, sizeof(k->mark));
	if (memcmp(k->m + SROCE_RING_ENTRIES_OFFSET, &k->mark, sizeof(k->mark)) &&
	    !z->sh->lifetime[0])
		snprintf(z->sh->lifetime, sizeof(z->sh->lifetime),
			 "%s mapping kept past destroy does not hold what was written", name);
	munmap(k->m, k->size);
	z->sh->lifetime_probes++;
}

/* --- the child ---------------------------------------------------------------- */

static int fz_generation(struct fz *z, unsigned int *round)
{
	struct fz_kept ksq, krq;
	unsigned int i;

	z->rng = z->seed ^ (0x8cb92ba72f3d8dd7ULL * (z->sh->gen + 1));
	z->t.rng = fz_rand(z);
	if (fz_pair_up(z))
		return -1;
	printf("# gen %u (round %u): SQ %u x %u B, RQ %u x %u B, CQs %u and %u, A qpn %u, B qpn %u\n",
	       z->sh->gen, *round, z->p.rc.sq.depth, z->p.rc.sq.stride, z->p.rc.rq.depth,
	       z->p.rc.rq.stride, z->p.rc.scq.depth, z->p.rc.rcq.depth, z->p.a.qp->qp_num,
	       z->p.b.qp->qp_num);
	printf("# gen %u UD: SQ %u x %u B, RQ %u x %u B, CQs %u and %u, U qpn %u, V qpn %u, "
	       "Q_Key %#x, AH indices %u %u %u, other PD's %u\n", z->sh->gen, z->p.ud.u.sq.depth,
	       z->p.ud.u.sq.stride, z->p.ud.u.rq.depth, z->p.ud.u.rq.stride, z->p.ud.u.scq.depth,
	       z->p.ud.u.rcq.depth, z->p.ud.u.qp->qp_num, z->p.ud.v->qp_num, z->p.ud.qkey,
	       z->p.ud.ah_index[0], z->p.ud.ah_index[1], z->p.ud.ah_index[2], z->p.ud.other_index);
	if (z->sh->gen == 0) {
		fz_mmap_rules(z);
		fz_reserved_rules(z);
		fz_ud_ah_rules(z);
	}
	for (i = 0; i < z->gen_rounds && *round < z->rounds; i++)
		fz_round(z, (*round)++);
	z->rng = z->seed ^ (0x4f1bbcdcbfa53e0bULL * (z->sh->gen + 1));
	fz_log_start(z, "end of round", *round - 1);
	if (*round >= z->rounds) {
		fz_log(z, "exit with transfers under way");
		fz_log_end(z);
		fz_burst(z);
		return 0;	/* the last generation is left to process exit */
	}
	fz_keep(z, &z->p.rc.sq, &ksq);
	fz_keep(z, &z->p.rc.rq, &krq);
	if (fz_pair_down(z, fz_chance(z, 50)))
		return -1;
	fz_log(z, "writing to ring mappings kept past destroy");
	fz_kept_check(z, &ksq, "SQ");
	fz_kept_check(z, &krq, "RQ");
	fz_log_end(z);
	return 0;
}

static int fz_child(struct fz *z)
{
	unsigned int round = 0;
	void *hole;

	setvbuf(stdout, NULL, _IOLBF, 0);
	hole = mmap(NULL, z->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole != MAP_FAILED)
		munmap(hole, z->page);
	z->hole = hole;
	if (vt_dev_open(&z->dev, &z->vo))
		return fz_fatal(z, "cannot open the device");
	fz_nonblock(z->dev.ctx->async_fd);
	z->t = (struct vt){ .role = VT_CLIENT, .opts = &z->vo, .dev = &z->dev, .ctrl_fd = -1 };
	for (z->sh->gen = 0; round < z->rounds; z->sh->gen++)
		if (fz_generation(z, &round))
			return -1;
	z->sh->done = true;
	fflush(stdout);
	return 0;
}

/* --- the parent: a bystander during the fuzz, a fresh pair after it ------- */

/* The bystander's Q_Key: not the child's, which never learns it. */
#define FZ_BYSTANDER_QKEY	0x0b0b0000u

/* An RC pair a -> b and a UD pair ua -> ub (one CQ each), on one PD. */
struct fz_honest {
	struct vt_ep a, b;
	struct vt_buf *src, *dst;
	struct ibv_qp *ua, *ub;
	struct ibv_cq *ua_cq, *ub_cq;
	struct ibv_ah *ah;		/* to this host's GID */
	uint32_t mtu;
};

static struct ibv_qp *fz_honest_ud_qp(struct vt *t, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = vt_qp(t, t->pd, &ia);

	if (qp && fz_ud_qp_to_rts(t->dev, qp, FZ_BYSTANDER_QKEY, vt_rand(t))) {
		vt_fail(t, "bystander UD QP to RTS: %s", strerror(errno));
		return NULL;
	}
	return qp;
}

static int fz_honest_ud_up(struct vt *t, struct fz_honest *h)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = t->dev->port,
		.grh = { .dgid = t->dev->gid, .sgid_index = t->dev->gid_index, .hop_limit = 64 },
	};

	h->mtu = 128U << t->dev->port_attr.active_mtu;
	h->ua_cq = vt_cq(t, 16, NULL);
	h->ub_cq = vt_cq(t, 16, NULL);
	if (!h->ua_cq || !h->ub_cq)
		return -1;
	h->ua = fz_honest_ud_qp(t, h->ua_cq);
	h->ub = h->ua ? fz_honest_ud_qp(t, h->ub_cq) : NULL;
	h->ah = h->ub ? vt_ah(t, t->pd, &a) : NULL;
	return h->ah ? 0 : -1;
}

static int fz_honest_up(struct vt *t, struct fz_honest *h)
{
	vt_begin(t);
	h->src = vt_buf(t, FZ_BUF_LEN, VT_ACCESS_ALL);
	h->dst = vt_buf(t, FZ_BUF_LEN, VT_ACCESS_ALL);
	if (!t->pd || !h->src || !h->dst || vt_ep_new(t, &h->a) || vt_ep_new(t, &h->b))
		return -1;
	fz_expose(&h->a, h->src);
	fz_expose(&h->b, h->dst);
	return fz_connect(t, &h->a, &h->b) || fz_honest_ud_up(t, h) ? -1 : 0;
}

/*
 * One UD SEND of len bytes (at most the MTU) from ua to ub, checked byte
 * for byte behind the GRH area, with the bytes after it, byte_len and the
 * sender's QPN: a datagram of the child's landing here would show.
 */
static int fz_ud_transfer(struct vt *t, struct fz_honest *h, uint32_t len, uint64_t seed)
{
	struct ibv_sge sge = vt_sge(h->src, 0, len), rsge = vt_sge(h->dst, 0, FZ_GRH + len + 64);
	struct ibv_send_wr wr = vt_wr(IBV_WR_SEND, 3, &sge, 1, IBV_SEND_SIGNALED), *bad;
	struct ibv_recv_wr rwr = { .wr_id = 4, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_wc wc;
	int rc;

	vt_fill(h->src->p, len, seed);
	memset(h->dst->p, 0xa5, FZ_GRH + len + 64);
	rc = ibv_post_recv(h->ub, &rwr, &rbad);
	if (rc)
		return vt_fail(t, "UD ibv_post_recv: %s", strerror(rc));
	wr.wr.ud.ah = h->ah;
	wr.wr.ud.remote_qpn = h->ub->qp_num;
	wr.wr.ud.remote_qkey = FZ_BYSTANDER_QKEY;
	rc = ibv_post_send(h->ua, &wr, &bad);
	if (rc)
		return vt_fail(t, "UD ibv_post_send: %s", strerror(rc));
	if (vt_expect_wc(t, h->ua_cq, 3, IBV_WC_SUCCESS, NULL, "UD SEND") ||
	    vt_expect_wc(t, h->ub_cq, 4, IBV_WC_SUCCESS, &wc, "UD receive"))
		return -1;
	if (wc.byte_len != FZ_GRH + len || wc.src_qp != h->ua->qp_num || !(wc.wc_flags & IBV_WC_GRH))
		return vt_fail(t, "UD receive: byte_len %u src_qp %u wc_flags %#x, expected %u, %u, GRH",
			       wc.byte_len, wc.src_qp, wc.wc_flags, FZ_GRH + len, h->ua->qp_num);
	return vt_check(t, h->dst->p + FZ_GRH, len, seed, "UD SEND") ||
	       vt_check_byte(t, h->dst->p + FZ_GRH + len, 64, 0xa5, "bytes after the datagram") ?
	       -1 : 0;
}

/* One SEND or RDMA WRITE of len bytes from A to B, checked byte for byte. */
static int fz_transfer(struct vt *t, struct fz_honest *h, enum ibv_wr_opcode op, uint32_t len,
		       uint64_t seed)
{
	struct ibv_sge sge = vt_sge(h->src, 0, len), rsge = vt_sge(h->dst, 0, len + 64);
	struct ibv_send_wr wr = vt_wr(op, 1, &sge, 1, IBV_SEND_SIGNALED);
	const char *what = op == IBV_WR_SEND ? "SEND" : "WRITE";
	struct ibv_wc wc;

	vt_fill(h->src->p, len, seed);
	memset(h->dst->p, 0xa5, len + 64);
	if (op == IBV_WR_SEND && vt_post_recv(t, &h->b, 2, &rsge, 1))
		return -1;
	vt_wr_remote(&wr, &h->a, 0);
	if (vt_post_send(t, &h->a, &wr) ||
	    vt_expect_wc(t, h->a.scq, 1, IBV_WC_SUCCESS, NULL, what))
		return -1;
	if (op == IBV_WR_SEND && vt_expect_wc(t, h->b.rcq, 2, IBV_WC_SUCCESS, &wc, "receive"))
		return -1;
	if (op == IBV_WR_SEND && wc.byte_len != len)
		return vt_fail(t, "receive: byte_len %u, expected %u", wc.byte_len, len);
	return vt_check(t, h->dst->p, len, seed, what) ||
	       vt_check_byte(t, h->dst->p + len, 64, 0xa5, "bytes after the transfer") ? -1 : 0;
}

static void fz_tap(unsigned int *tally, bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fz_tap(unsigned int *tally, bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s - ", ok ? "ok" : "not ok", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tally[!ok]++;
}

struct fz_watch {
	pid_t pid;
	int status;		/* waitpid status, valid if exited */
	bool exited, timed_out;
	unsigned int transfers, ud_transfers;
	char bystander[2 * VT_REASON_LEN];	/* "" = every transfer was right */
};

static long long fz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* What the child is doing in the kernel, if it is stuck there. */
static void fz_show_stuck(pid_t pid)
{
	char path[64], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	printf("# child's kernel stack:\n%s", buf);
}

static void fz_reap(struct fz_watch *w, int wait_s)
{
	long long end = fz_now_ms() + wait_s * 1000LL;

	while (!w->exited && fz_now_ms() < end) {
		if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
			w->exited = true;
		else
			usleep(50 * 1000);
	}
}

/* Seconds since boot: lines up with the kernel log's timestamps. */
static double fz_uptime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A bystander transfer failed: the QPs' states and the kernel's view of every QP. */
static void fz_show_bystander(struct fz_honest *h)
{
	char line[512];
	FILE *f;

	printf("# bystander failed at uptime %.3f s: A qpn %u state %d, B qpn %u state %d\n",
	       fz_uptime(), h->a.qp->qp_num, fz_state(h->a.qp), h->b.qp->qp_num, fz_state(h->b.qp));
	f = popen("rdma -dd resource show qp 2>&1", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s", line);
	pclose(f);
}

/* Move data on the bystander pair until the child is done or overdue. */
static void fz_watch(struct vt *t, struct fz_honest *h, struct fz_watch *w, int timeout_s)
{
	long long end = fz_now_ms() + timeout_s * 1000LL;
	uint64_t rng = t->rng;

	while (!w->exited) {
		if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
			w->exited = true;
			break;
		}
		if (fz_now_ms() > end) {
			w->timed_out = true;
			fz_show_stuck(w->pid);
			kill(w->pid, SIGKILL);
			fz_reap(w, 10);
			break;
		}
		if (!w->bystander[0]) {
			unsigned int kind = w->transfers % 3;	/* SEND, WRITE, UD SEND */
			uint32_t len = 1 + splitmix(&rng) % (kind == 2 ? h->mtu : FZ_BUF_LEN - 64);
			uint64_t seed = splitmix(&rng);
			int rc = kind == 2 ? fz_ud_transfer(t, h, len, seed) :
				 fz_transfer(t, h, kind ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, len, seed);

			if (rc) {
				snprintf(w->bystander, sizeof(w->bystander), "transfer %u (%u B): %s",
					 w->transfers, len, t->reason);
				fz_show_bystander(h);
			}
			w->transfers++;
			w->ud_transfers += kind == 2;
		}
		usleep(20 * 1000);
	}
}

static void fz_print_kinds(const char *what, const unsigned long *n, const char *const *names,
			   unsigned int count)
{
	unsigned int i;

	printf("# %s:", what);
	for (i = 0; i < count; i++)
		printf(" %s %lu", names[i], n[i]);
	printf("\n");
}

/* The victims' CQEs by status: what the kernel (or our garbage) said. */
static void fz_print_statuses(const char *what, const unsigned long *n)
{
	unsigned int i;

	printf("# %s CQEs by status:", what);
	for (i = 0; i < FZ_WC_STATUSES; i++)
		if (n[i])
			printf(" %s%s %lu", i == FZ_WC_STATUSES - 1 ? ">=" : "",
			       ibv_wc_status_str(i), n[i]);
	printf("\n");
}

/* What the UD rounds did, and what came of it: they must show they did something. */
static void fz_report_counts(const struct fz_shared *sh)
{
	static const char *const acts[FZ_UD_ACTS] = {
		"SQ-WQEs", "RQ-WQEs", "post_send", "post_send+destroy_ah", "post_recv", "peer-datagram",
		"AH-create/destroy", "AH-race", "doorbell", "modify", "ring-words",
	};

	printf("# rounds: %u RC in %.1f s, %u UD in %.1f s\n", sh->rc_rounds, sh->rc_ms / 1e3,
	       sh->ud_rounds, sh->ud_ms / 1e3);
	fz_print_kinds("UD actions", sh->ud_acts, acts, FZ_UD_ACTS);
	fz_print_kinds("UD send WQEs by AH index", sh->ah_kinds, fz_ah_kind_names, FZ_AH_KINDS);
	fz_print_kinds("UD send WQEs by QPN", sh->qpn_kinds, fz_qpn_kind_names, FZ_QPN_KINDS);
	fz_print_kinds("UD send WQEs by Q_Key", sh->qkey_kinds, fz_qkey_kind_names, FZ_QKEY_KINDS);
	printf("# UD: %lu sends over the MTU, %lu receives shorter than the %u-byte GRH area, "
	       "%lu sends of V through an AH destroyed right after the post\n", sh->ud_too_long,
	       sh->ud_short_recvs, FZ_GRH, sh->peer_sends_destroyed);
	fz_print_statuses("RC victim", sh->wc_status[0]);
	fz_print_statuses("UD victim", sh->wc_status[1]);
}

static void fz_report_child(struct fz *z, struct fz_watch *w, unsigned int *tally)
{
	const struct fz_shared *sh = z->sh;
	bool ok = w->exited && WIFEXITED(w->status) && !WEXITSTATUS(w->status) && sh->done;

	if (!ok && z->verbose)
		printf("\n");	/* the child may have died in the middle of a line */
	if (ok)
		fz_tap(tally, true, "fuzz", "%u rounds in %u generations, seed %#llx", z->rounds,
		       sh->gen, (unsigned long long)z->seed);
	else if (w->timed_out)
		fz_tap(tally, false, "fuzz", "child %s after the timeout, round %u gen %u: %s",
		       w->exited ? "killed" : "stuck, unkillable,", sh->round, sh->gen, sh->log);
	else if (WIFSIGNALED(w->status))
		fz_tap(tally, false, "fuzz", "child killed by signal %d in round %u gen %u: %s",
		       WTERMSIG(w->status), sh->round, sh->gen, sh->log);
	else
		fz_tap(tally, false, "fuzz", "child failed in round %u gen %u: %s (last: %s)",
		       sh->round, sh->gen, sh->fatal[0] ? sh->fatal : "no reason", sh->log);
	printf("# child: %lu CQEs polled (%lu errors), %lu async events, %lu completion events, "
	       "%lu verbs calls refused\n", sh->cqes, sh->err_cqes, sh->async_events,
	       sh->comp_events, sh->verbs_errors);
	fz_report_counts(sh);
	fz_tap(tally, !sh->mmap_rules[0], "mmap_rules", "%s",
	       sh->mmap_rules[0] ? sh->mmap_rules : "exec, private, oversized, unknown offset, "
	       "mprotect(EXEC) and mremap(grow) refused");
	fz_tap(tally, !sh->reserved_rules[0], "reserved_rules", "%s",
	       sh->reserved_rules[0] ? sh->reserved_rules :
	       "send WQEs with reserved or rdma.reserved set, a receive with reserved set: "
	       "IBV_WC_LOC_QP_OP_ERR");
	fz_tap(tally, !sh->ud_ah_rules[0], "ud_ah_rules", "%s",
	       sh->ud_ah_rules[0] ? sh->ud_ah_rules :
	       "UD SENDs naming AH index 0, a destroyed AH, a never-created index, past max_ah, "
	       "0xffffffff, another PD's AH, a QPN over 24 bits, and an RDMA WRITE: "
	       "IBV_WC_LOC_QP_OP_ERR; a live AH's, also destroyed right after the post, arrive");
	fz_tap(tally, !sh->peer_errors, "ud_peer", "%s",
	       sh->peer_errors ? sh->peer_error : "every completion of V, the UD victim's honest "
	       "peer, was a success (its sends through AHs destroyed after the post too)");
	if (!sh->lifetime[0] && !sh->lifetime_probes)
		printf("ok ring_lifetime # SKIP no generation was torn down\n");
	else
		fz_tap(tally, !sh->lifetime[0], "ring_lifetime", "%s",
		       sh->lifetime[0] ? sh->lifetime : "ring mappings kept past destroy stayed ours");
}

/* After the fuzz: a fresh pair moves data byte-exact both ways. */
static void fz_survival(struct vt *t, unsigned int *tally)
{
	static const uint32_t lens[] = { 1, 4096, FZ_BUF_LEN - 64 };
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE };
	static const char *const names[] = { "survive_send", "survive_write" };
	struct fz_honest h;
	int up, i, j, rc;

	t->reason[0] = '\0';
	up = fz_honest_up(t, &h);
	for (i = 0; i < 2; i++) {
		for (j = 0, rc = up; j < 3 && !rc; j++)
			rc = fz_transfer(t, &h, ops[i], lens[j], vt_rand(t));
		fz_tap(tally, !rc, names[i], "%s", rc ? t->reason : "1 B, 4 KiB, 64 KiB byte-exact");
	}
	for (j = 0, rc = up; !rc && j < 3; j++)
		rc = fz_ud_transfer(t, &h, j == 0 ? 1 : j == 1 ? h.mtu / 2 : h.mtu, vt_rand(t));
	fz_tap(tally, !rc, "survive_ud", "%s", rc ? t->reason : "UD SENDs of 1 B, MTU/2, MTU byte-exact");
	t->reason[0] = '\0';	/* the teardown's verdict is its own */
	vt_cleanup(t);
	fz_tap(tally, !t->reason[0], "teardown", "%s", t->reason[0] ? t->reason : "all destroyed");
}

static int fz_parent(struct fz *z, pid_t pid, int timeout_s)
{
	struct fz_watch w = { .pid = pid };
	unsigned int tally[2] = { 0, 0 };
	struct fz_honest h;
	struct vt t = { .role = VT_SERVER, .opts = &z->vo, .dev = &z->dev, .ctrl_fd = -1,
			.rng = z->seed ^ 0x5bd1e995ULL };

	if (vt_dev_open(&z->dev, &z->vo)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 2;
	}
	if (fz_honest_up(&t, &h))
		snprintf(w.bystander, sizeof(w.bystander), "setup: %s", t.reason);
	else
		printf("# bystander: qpn %u -> qpn %u, UD qpn %u -> qpn %u\n", h.a.qp->qp_num,
		       h.b.qp->qp_num, h.ua->qp_num, h.ub->qp_num);
	if (!w.bystander[0]) {
		const uint32_t qpns[4] = { h.a.qp->qp_num, h.b.qp->qp_num, h.ua->qp_num, h.ub->qp_num };
		unsigned int i;

		for (i = 0; i < 4; i++)	/* what the child aims at with the wrong Q_Key */
			__atomic_store_n(&z->sh->bystander_qpn[i], qpns[i], __ATOMIC_RELAXED);
	}
	fz_watch(&t, &h, &w, timeout_s);
	fz_report_child(z, &w, tally);
	fz_tap(tally, !w.bystander[0], "bystander", "%s%s", w.bystander,
	       w.bystander[0] ? "" : "another process's pair moved data byte-exact throughout");
	printf("# bystander: %u transfers, %u of them UD\n", w.transfers, w.ud_transfers);
	t.reason[0] = '\0';
	vt_cleanup(&t);
	if (t.reason[0])
		fz_tap(tally, false, "bystander_teardown", "%s", t.reason);
	if (w.exited)
		fz_survival(&t, tally);
	vt_dev_close(&z->dev);
	printf("%u passed, %u failed\n", tally[0], tally[1]);
	return tally[1] ? 1 : 0;
}

/* --- main ------------------------------------------------------------------ */

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-d DEV] [-g GID_INDEX] [-s SEED] [-r ROUNDS] [-G ROUNDS_PER_PAIR]\n"
		"       [-t TIMEOUT_S] [-w WAIT_S] [-v]\n", prog);
	exit(2);
}

static void fz_parse(struct fz *z, int argc, char **argv, int *timeout_s)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "gen-rounds", required_argument, NULL, 'G' },
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:g:s:r:G:t:w:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': z->vo.dev_name = optarg; break;
		case 'g': z->vo.gid_index = atoi(optarg); break;
		case 's': z->seed = strtoull(optarg, NULL, 0); break;
		case 'r': z->rounds = strtoul(optarg, NULL, 0); break;
		case 'G': z->gen_rounds = strtoul(optarg, NULL, 0); break;
		case 't': *timeout_s = atoi(optarg); break;
		case 'w': z->vo.wait_ms = atoi(optarg) * 1000; break;
		case 'v': z->verbose = z->vo.verbose = true; break;
		default: usage(argv[0]);
		}
	}
	if (optind != argc || !z->gen_rounds || *timeout_s <= 0 || z->vo.wait_ms <= 0)
		usage(argv[0]);
}

int main(int argc, char **argv)
{
	static struct fz z;
	int timeout_s = FZ_TIMEOUT_S;
	pid_t pid;

	z.vo = (struct vt_opts){ .ib_port = 1, .gid_index = -1, .wait_ms = 20000 };
	z.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	z.rounds = FZ_ROUNDS;
	z.gen_rounds = FZ_GEN_ROUNDS;
	z.page = sysconf(_SC_PAGESIZE);
	fz_parse(&z, argc, argv, &timeout_s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# sroce_ring_fuzz: seed %#llx, %u rounds, %u per pair, device %s\n",
	       (unsigned long long)z.seed, z.rounds, z.gen_rounds, z.vo.dev_name ?: "(first)");
	z.sh = mmap(NULL, sizeof(*z.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (z.sh == MAP_FAILED)
		return 2;
	strcpy(z.sh->mmap_rules, "not reached");
	strcpy(z.sh->reserved_rules, "not reached");
	strcpy(z.sh->ud_ah_rules, "not reached");
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0)
		_exit(fz_child(&z) ? 1 : 0);
	return fz_parent(&z, pid, timeout_s);
}
