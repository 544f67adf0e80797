// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_verbs_fuzz: random sequences of verbs with random and edge-case
 * arguments against one device, for a bounded time (issue 13, "verbs
 * fuzzing"). Objects of every kind are created, modified, used and
 * destroyed in any order - a PD while its MRs live, a CQ under its QPs,
 * modify_qp to any state with any mask, posts in every state with bad
 * keys, opcodes and SGE lists, AHs to any GID index - and child processes
 * that make objects of their own are killed mid-way. Only the values are
 * hostile: every pointer handed to libibverbs is valid memory, so what is
 * judged is the kernel (and the provider), not this program.
 *
 *   sroce_verbs_fuzz DEV SEED SECONDS [-v]
 *
 * Every verb must succeed or fail with an errno an RDMA user can act on
 * (EXPECTED_ERRNO below); another errno is printed as "unexpected" and
 * makes the exit status 1. The kernel side is judged by the caller: a
 * quiet kernel log, and a device and module that still go away (no
 * leaked reference). Prints one summary line, "fuzzed N verbs (...)".
 * -v prints every action as it happens. Exits 0, 1 on an unexpected
 * errno, 2 on a usage or device error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_test.h"

#define NPD	3
#define NMR	6
#define NCQ	3
#define NQP	6
#define NAH	3
#define NSRQ	2
#define NSGE	8		/* room in every SGE array handed to a post */
#define BUF_BYTES (1 << 20)

struct fuzz {
	struct vt_dev dev;
	uint64_t rng;
	bool verbose;
	unsigned long verbs, failed, unexpected;
	unsigned long to_rts, sends_posted;	/* how deep the run got */
	char *buf;		/* BUF_BYTES, the memory MRs and SGEs point into */
	struct ibv_pd *pd[NPD];
	struct ibv_mr *mr[NMR];
	struct ibv_cq *cq[NCQ];
	struct ibv_qp *qp[NQP];
	struct ibv_ah *ah[NAH];
	struct ibv_srq *srq[NSRQ];
	struct ibv_comp_channel *channel;
};

static uint64_t next(struct fuzz *f)
{
	/* xorshift64*: reproducible from the seed alone */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 2685821657736338717ULL;
}

static uint32_t below(struct fuzz *f, uint32_t n)
{
	return n ? next(f) % n : 0;
}

/* A value a careless or hostile caller might pass for a count or size. */
static uint32_t edgy(struct fuzz *f, uint32_t sane)
{
	static const uint32_t edges[] = { 0, 1, 2, 3, 63, 64, 65, 4095, 4096,
					  65536, 0x7fffffff, 0x80000000, 0xffffffff };

	switch (below(f, 4)) {
	case 0:
		return edges[below(f, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return (uint32_t)next(f);
	default:
		return 1 + below(f, sane);
	}
}

/* Errors a verb may legitimately return for bad arguments or states. */
static bool expected_errno(int e)
{
	switch (e) {
	case EINVAL: case ENOMEM: case EOPNOTSUPP: case EBUSY: case ENOENT:
	case EPERM: case EAGAIN: case EFAULT: case EACCES: case ERANGE:
	case ENOSPC: case E2BIG: case ENOSYS: case EOVERFLOW: case EMSGSIZE:
	case ENODEV: case EEXIST:
	case ENODATA:	/* ib_core: no GID at that index */
		return true;
	}
	return false;
}

/* Whether this verb already failed with this errno (printed once each). */
static bool seen_before(const char *verb, int err)
{
	static struct { const char *verb; int err; } seen[64];
	static unsigned int n;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (seen[i].verb == verb && seen[i].err == err)
			return true;
	if (n < sizeof(seen) / sizeof(seen[0])) {
		seen[n].verb = verb;
		seen[n++].err = err;
	}
	return false;
}

/* Count one verb's outcome; @err is 0 or a positive errno. */
static void judge(struct fuzz *f, const char *verb, int err)
{
	f->verbs++;
	if (!err)
		return;
	f->failed++;
	if (expected_errno(err))
		return;
	f->unexpected++;
	if (!seen_before(verb, err))
		printf("unexpected: %s failed with errno %d (%s)\n", verb, err, strerror(err));
}

/* Judge a destroy; true if the object is gone (a refused one stays). */
static bool gone(struct fuzz *f, const char *verb, int err)
{
	judge(f, verb, err);
	return !err;
}

static void say(struct fuzz *f, const char *what, unsigned int slot)
{
	if (f->verbose)
		printf("%s %u\n", what, slot);
}

/* A random slot's object of a kind, or NULL: slots may be empty. */
#define PICK(f, arr) ((arr)[below((f), sizeof(arr) / sizeof((arr)[0]))])

/* --- PD, MR, CQ ------------------------------------------------------------ */

static void pd_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NPD);

	say(f, "pd", i);
	if (!f->pd[i]) {
		f->pd[i] = ibv_alloc_pd(f->dev.ctx);
		judge(f, "ibv_alloc_pd", f->pd[i] ? 0 : errno);
	} else {
		/* Refused (EBUSY) while MRs, QPs, AHs or SRQs use it. */
		if (gone(f, "ibv_dealloc_pd", ibv_dealloc_pd(f->pd[i])))
			f->pd[i] = NULL;
	}
}

static int random_access(struct fuzz *f)
{
	static const int flags[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_ON_DEMAND, IBV_ACCESS_RELAXED_ORDERING,
	};
	int access = 0;
	unsigned int i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (below(f, 3) == 0)
			access |= flags[i];
	return access;
}

static void mr_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NMR);
	struct ibv_pd *pd = PICK(f, f->pd);

	say(f, "mr", i);
	if (f->mr[i]) {
		if (gone(f, "ibv_dereg_mr", ibv_dereg_mr(f->mr[i])))
			f->mr[i] = NULL;
	} else if (pd) {
		uint32_t off = below(f, BUF_BYTES), len = below(f, BUF_BYTES - off + 1);

		if (below(f, 8) == 0)
			len = 0;
		f->mr[i] = ibv_reg_mr(pd, f->buf + off, len, random_access(f));
		judge(f, "ibv_reg_mr", f->mr[i] ? 0 : errno);
	}
}

static void mr_rereg(struct fuzz *f)
{
	struct ibv_mr *mr = PICK(f, f->mr);
	struct ibv_pd *pd = PICK(f, f->pd);
	uint32_t off = below(f, BUF_BYTES);
	int flags = below(f, 8), err;

	if (!mr)
		return;
	say(f, "rereg", 0);
	if ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)
		flags &= ~IBV_REREG_MR_CHANGE_PD;
	err = ibv_rereg_mr(mr, flags, pd, f->buf + off,
			   below(f, BUF_BYTES - off + 1), random_access(f));
	/* libibverbs returns an IBV_REREG_MR_ERR_* code, not an errno */
	judge(f, "ibv_rereg_mr", err ? EINVAL : 0);
}

static void cq_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NCQ);

	say(f, "cq", i);
	if (!f->cq[i]) {
		f->cq[i] = ibv_create_cq(f->dev.ctx, (int)edgy(f, 256), NULL,
					 below(f, 2) ? f->channel : NULL,
					 (int)edgy(f, 2) - 1);
		judge(f, "ibv_create_cq", f->cq[i] ? 0 : errno);
	} else {
		if (gone(f, "ibv_destroy_cq", ibv_destroy_cq(f->cq[i])))
			f->cq[i] = NULL;
	}
}

static void cq_use(struct fuzz *f)
{
	struct ibv_cq *cq = PICK(f, f->cq);
	struct ibv_wc wc[16];
	int n;

	if (!cq)
		return;
	switch (below(f, 3)) {
	case 0:
		n = ibv_poll_cq(cq, 1 + below(f, 16), wc);
		judge(f, "ibv_poll_cq", n < 0 ? EINVAL : 0);
		break;
	case 1:
		judge(f, "ibv_req_notify_cq", ibv_req_notify_cq(cq, below(f, 2)));
		break;
	default:
		judge(f, "ibv_resize_cq", ibv_resize_cq(cq, (int)edgy(f, 512)));
		break;
	}
}

/* --- QP ---------------------------------------------------------------------- */

static enum ibv_qp_type random_qp_type(struct fuzz *f)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UD, IBV_QPT_UC, IBV_QPT_RAW_PACKET,
		IBV_QPT_XRC_SEND, (enum ibv_qp_type)77,
	};

	return types[below(f, sizeof(types) / sizeof(types[0]))];
}

static void qp_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NQP);
	struct ibv_pd *pd = PICK(f, f->pd);
	struct ibv_cq *scq = PICK(f, f->cq), *rcq = PICK(f, f->cq);

	say(f, "qp", i);
	if (f->qp[i]) {
		if (gone(f, "ibv_destroy_qp", ibv_destroy_qp(f->qp[i])))
			f->qp[i] = NULL;
	} else if (pd && scq && rcq) {
		struct ibv_qp_init_attr init = {
			.send_cq = scq, .recv_cq = rcq, .qp_type = random_qp_type(f),
			.srq = below(f, 3) ? NULL : PICK(f, f->srq),
			.sq_sig_all = below(f, 2),
			.cap = {
				.max_send_wr = edgy(f, 64), .max_recv_wr = edgy(f, 64),
				.max_send_sge = edgy(f, 4), .max_recv_sge = edgy(f, 4),
				.max_inline_data = edgy(f, 256),
			},
		};

		f->qp[i] = ibv_create_qp(pd, &init);
		judge(f, "ibv_create_qp", f->qp[i] ? 0 : errno);
	}
}

/* modify_qp to a random state with a random mask and values. */
static void qp_modify(struct fuzz *f)
{
	struct ibv_qp *qp = PICK(f, f->qp), *peer = PICK(f, f->qp);
	struct ibv_qp_attr attr = {
		.qp_state = below(f, 8), .cur_qp_state = below(f, 8),
		.path_mtu = below(f, 7), .qkey = below(f, 2) ? 0x11111111 : (uint32_t)next(f),
		.rq_psn = (uint32_t)next(f), .sq_psn = (uint32_t)next(f),
		.dest_qp_num = peer && below(f, 2) ? peer->qp_num : (uint32_t)next(f),
		.qp_access_flags = random_access(f), .pkey_index = below(f, 3),
		.port_num = below(f, 3), .timeout = below(f, 32),
		.retry_cnt = below(f, 9), .rnr_retry = below(f, 9),
		.min_rnr_timer = below(f, 33), .max_rd_atomic = edgy(f, 16),
		.max_dest_rd_atomic = edgy(f, 16), .sq_draining = below(f, 2),
		.en_sqd_async_notify = below(f, 2),
	};
	int mask = (int)(next(f) & 0x1fffff) | (below(f, 2) ? IBV_QP_STATE : 0);
	int err;

	if (!qp)
		return;
	say(f, "modify", attr.qp_state);
	attr.ah_attr.is_global = below(f, 4) != 0;
	attr.ah_attr.port_num = below(f, 3);
	attr.ah_attr.grh.sgid_index = below(f, 2) ? (uint32_t)f->dev.gid_index : below(f, 300);
	attr.ah_attr.grh.dgid = f->dev.gid;
	attr.ah_attr.grh.hop_limit = below(f, 256);
	attr.ah_attr.grh.flow_label = (uint32_t)next(f);
	attr.ah_attr.grh.traffic_class = below(f, 256);
	attr.ah_attr.sl = below(f, 16);
	err = ibv_modify_qp(qp, &attr, mask);
	judge(f, "ibv_modify_qp", err);
	if (!err && (mask & IBV_QP_STATE) && attr.qp_state == IBV_QPS_RTS)
		f->to_rts++;
}

static void post_send_on(struct fuzz *f, struct ibv_qp *qp);

/* One legal transition, or false; counted like any verb. */
static bool step(struct fuzz *f, struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int err = ibv_modify_qp(qp, attr, mask);

	judge(f, "ibv_modify_qp", err);
	return !err;
}

/*
 * RESET (sometimes) -> INIT -> RTR -> RTS with the masks the IBA asks for
 * and random legal values, an RC QP towards another live QP of the device
 * or itself: random masks alone almost never get a QP to where it sends.
 */
static void qp_bring_up(struct fuzz *f)
{
	struct ibv_qp *qp = PICK(f, f->qp), *peer = PICK(f, f->qp);
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RESET, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = random_access(f) & (IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC),
	};
	bool ud;

	if (!qp || (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UD))
		return;
	ud = qp->qp_type == IBV_QPT_UD;
	say(f, "bring_up", qp->qp_num);
	if (below(f, 2) && !step(f, qp, &a, IBV_QP_STATE))
		return;
	a.qp_state = IBV_QPS_INIT;
	if (!step(f, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		  (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS)))
		return;
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = f->dev.gid;
	a.ah_attr.grh.sgid_index = f->dev.gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.path_mtu = IBV_MTU_256 + below(f, 3);
	a.dest_qp_num = peer ? peer->qp_num : qp->qp_num;
	a.rq_psn = below(f, 1 << 24);
	a.max_dest_rd_atomic = below(f, 17);
	a.min_rnr_timer = below(f, 32);
	if (!step(f, qp, &a, ud ? IBV_QP_STATE :
		  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = below(f, 1 << 24);
	a.timeout = 10 + below(f, 6);	/* 4 ms .. 134 ms: failures come quickly */
	a.retry_cnt = below(f, 8);
	a.rnr_retry = below(f, 8);
	a.max_rd_atomic = below(f, 17);
	if (step(f, qp, &a, ud ? IBV_QP_STATE | IBV_QP_SQ_PSN :
		 IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		unsigned int posts = 1 + below(f, 4);

		f->to_rts++;
		while (posts--)		/* while it is still in RTS */
			post_send_on(f, qp);
	}
}

static void qp_query(struct fuzz *f)
{
	struct ibv_qp *qp = PICK(f, f->qp);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (qp)
		judge(f, "ibv_query_qp", ibv_query_qp(qp, &attr, (int)(next(f) & 0x1fffff), &init));
}

/* SGEs into the buffer, or anywhere; keys from live MRs, or anything. */
static void random_sges(struct fuzz *f, struct ibv_sge *sge, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_mr *mr = PICK(f, f->mr);
		uint32_t off = below(f, BUF_BYTES);

		sge[i].addr = below(f, 8) ? (uintptr_t)(f->buf + off) : next(f);
		sge[i].length = below(f, 2) ? below(f, BUF_BYTES - off + 1) : edgy(f, 4096);
		sge[i].lkey = mr && below(f, 4) ? mr->lkey : (uint32_t)next(f);
	}
}

static void post_send_on(struct fuzz *f, struct ibv_qp *qp)
{
	struct ibv_mr *mr = PICK(f, f->mr);
	struct ibv_ah *ah = PICK(f, f->ah);
	struct ibv_sge sge[NSGE];
	struct ibv_send_wr wr = {}, *bad;
	/* mostly what a QP takes, so that posts reach the kernel's checks */
	int n = below(f, 4) ? 1 : below(f, NSGE + 1);

	if (!qp)
		return;
	say(f, "post_send", n);
	random_sges(f, sge, n);
	wr.wr_id = next(f);
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = below(f, 8) ? below(f, 7) : below(f, 256);
	wr.send_flags = (unsigned int)next(f) & (below(f, 4) ? 0x07 : 0x1f);
	if (wr.send_flags & IBV_SEND_INLINE) {
		/* inline data is read by the provider from our memory: keep it ours */
		for (int i = 0; i < n; i++) {
			sge[i].addr = (uintptr_t)f->buf;
			sge[i].length %= 512;
		}
	}
	wr.imm_data = (uint32_t)next(f);
	wr.wr.rdma.remote_addr = below(f, 2) && mr ? (uintptr_t)mr->addr : next(f);
	wr.wr.rdma.rkey = mr && below(f, 2) ? mr->rkey : (uint32_t)next(f);
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = wr.wr.rdma.remote_addr & ~(uint64_t)(below(f, 2) ? 7 : 0);
		wr.wr.atomic.rkey = wr.wr.rdma.rkey;
		wr.wr.atomic.compare_add = next(f);
		wr.wr.atomic.swap = next(f);
	}
	if (qp->qp_type == IBV_QPT_UD) {
		if (!ah)
			return;	/* a UD post dereferences its AH: never a stale one */
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = below(f, 2) ? 1 : (uint32_t)next(f);
		wr.wr.ud.remote_qkey = (uint32_t)next(f);
	}
	/* a post returns its errno rather than setting errno */
	n = ibv_post_send(qp, &wr, &bad);
	judge(f, "ibv_post_send", n);
	f->sends_posted += !n;
}

static void qp_post_send(struct fuzz *f)
{
	post_send_on(f, PICK(f, f->qp));
}

static void qp_post_recv(struct fuzz *f)
{
	struct ibv_qp *qp = PICK(f, f->qp);
	struct ibv_srq *srq = PICK(f, f->srq);
	struct ibv_sge sge[NSGE];
	struct ibv_recv_wr wr = {}, *bad;
	int n = below(f, NSGE + 1);

	random_sges(f, sge, n);
	wr.wr_id = next(f);
	wr.sg_list = sge;
	wr.num_sge = n;
	if (below(f, 3) == 0 && srq) {
		say(f, "post_srq_recv", n);
		judge(f, "ibv_post_srq_recv", ibv_post_srq_recv(srq, &wr, &bad));
	} else if (qp) {
		say(f, "post_recv", n);
		judge(f, "ibv_post_recv", ibv_post_recv(qp, &wr, &bad));
	}
}

/* --- AH, SRQ ----------------------------------------------------------------- */

static void ah_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NAH);
	struct ibv_pd *pd = PICK(f, f->pd);

	say(f, "ah", i);
	if (f->ah[i]) {
		/* Posts that named it keep it alive in the kernel (sroce-abi.h). */
		if (gone(f, "ibv_destroy_ah", ibv_destroy_ah(f->ah[i])))
			f->ah[i] = NULL;
	} else if (pd) {
		struct ibv_ah_attr attr = {
			.is_global = below(f, 5) != 0, .port_num = below(f, 3),
			.sl = below(f, 16),
		};

		attr.grh.dgid = f->dev.gid;
		attr.grh.sgid_index = below(f, 2) ? (uint32_t)f->dev.gid_index : below(f, 300);
		attr.grh.hop_limit = below(f, 256);
		attr.grh.flow_label = (uint32_t)next(f);
		f->ah[i] = ibv_create_ah(pd, &attr);
		judge(f, "ibv_create_ah", f->ah[i] ? 0 : errno);
	}
}

static void srq_toggle(struct fuzz *f)
{
	unsigned int i = below(f, NSRQ);
	struct ibv_pd *pd = PICK(f, f->pd);

	say(f, "srq", i);
	if (f->srq[i]) {
		/* Refused (EBUSY) while a QP uses it. */
		if (gone(f, "ibv_destroy_srq", ibv_destroy_srq(f->srq[i])))
			f->srq[i] = NULL;
	} else if (pd) {
		struct ibv_srq_init_attr init = {
			.attr = { .max_wr = edgy(f, 64), .max_sge = edgy(f, 4),
				  .srq_limit = edgy(f, 32) },
		};

		f->srq[i] = ibv_create_srq(pd, &init);
		judge(f, "ibv_create_srq", f->srq[i] ? 0 : errno);
	}
}

static void srq_modify(struct fuzz *f)
{
	struct ibv_srq *srq = PICK(f, f->srq);
	struct ibv_srq_attr attr = { .max_wr = edgy(f, 64), .srq_limit = edgy(f, 32) };

	if (srq)
		judge(f, "ibv_modify_srq", ibv_modify_srq(srq, &attr, below(f, 4)));
}

static void device_query(struct fuzz *f)
{
	struct ibv_port_attr port;
	struct ibv_device_attr dev;
	union ibv_gid gid;

	switch (below(f, 3)) {
	case 0:
		judge(f, "ibv_query_device", ibv_query_device(f->dev.ctx, &dev));
		break;
	case 1:
		judge(f, "ibv_query_port", ibv_query_port(f->dev.ctx, below(f, 4), &port));
		break;
	default:
		judge(f, "ibv_query_gid", ibv_query_gid(f->dev.ctx, 1, below(f, 300), &gid) ?
		      EINVAL : 0);
		break;
	}
}

/* --- a child that is killed with its objects ------------------------------------------------ */

/*
 * A process of its own opens the device, makes a few objects and posts,
 * and is killed at a random moment (or exits): the kernel must take all
 * of it down with the process.
 */
static void child_killed(struct fuzz *f)
{
	const char *name = ibv_get_device_name(f->dev.ctx->device);
	unsigned int delay_us = below(f, 20000);
	pid_t pid;

	say(f, "child", delay_us);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		judge(f, "fork", errno);
		return;
	}
	if (pid == 0) {
		struct vt_opts o = { .dev_name = name, .ib_port = 1, .gid_index = f->dev.gid_index };
		struct fuzz c = { .rng = f->rng ^ 0x5eed, .buf = f->buf };
		int i;

		if (vt_dev_open(&c.dev, &o))
			_exit(2);
		c.channel = ibv_create_comp_channel(c.dev.ctx);
		for (i = 0; i < 200; i++) {
			switch (below(&c, 6)) {
			case 0: pd_toggle(&c); break;
			case 1: mr_toggle(&c); break;
			case 2: cq_toggle(&c); break;
			case 3: qp_toggle(&c); break;
			case 4: qp_modify(&c); break;
			default: qp_post_send(&c); break;
			}
		}
		pause();	/* killed holding everything, or exits below on a signal race */
		_exit(0);
	}
	usleep(delay_us);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	f->verbs++;
}

/* --- the run ------------------------------------------------------------------------------- */

typedef void (*action_fn)(struct fuzz *f);

static const action_fn actions[] = {
	pd_toggle, mr_toggle, mr_toggle, mr_rereg, cq_toggle, cq_use, cq_use,
	qp_toggle, qp_toggle, qp_modify, qp_modify, qp_bring_up, qp_bring_up, qp_query,
	qp_post_send, qp_post_send, qp_post_send, qp_post_recv, qp_post_recv,
	ah_toggle, srq_toggle, srq_modify, device_query,
};

/* Tear down in an order that always succeeds: users before what they use. */
static void teardown(struct fuzz *f)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (f->qp[i])
			judge(f, "ibv_destroy_qp", ibv_destroy_qp(f->qp[i]));
	for (i = 0; i < NSRQ; i++)
		if (f->srq[i])
			judge(f, "ibv_destroy_srq", ibv_destroy_srq(f->srq[i]));
	for (i = 0; i < NAH; i++)
		if (f->ah[i])
			judge(f, "ibv_destroy_ah", ibv_destroy_ah(f->ah[i]));
	for (i = 0; i < NCQ; i++)
		if (f->cq[i])
			judge(f, "ibv_destroy_cq", ibv_destroy_cq(f->cq[i]));
	for (i = 0; i < NMR; i++)
		if (f->mr[i])
			judge(f, "ibv_dereg_mr", ibv_dereg_mr(f->mr[i]));
	for (i = 0; i < NPD; i++)
		if (f->pd[i])
			judge(f, "ibv_dealloc_pd", ibv_dealloc_pd(f->pd[i]));
	if (f->channel)
		ibv_destroy_comp_channel(f->channel);
}

int main(int argc, char **argv)
{
	static struct fuzz f;
	struct vt_opts opts = { .ib_port = 1, .gid_index = -1 };
	unsigned long children = 0;
	time_t end;
	int seconds;

	if (argc < 4 || argc > 5 || (seconds = atoi(argv[3])) < 1 ||
	    (argc == 5 && strcmp(argv[4], "-v"))) {
		fprintf(stderr, "usage: sroce_verbs_fuzz DEV SEED SECONDS [-v]\n");
		return 2;
	}
	opts.dev_name = argv[1];
	f.rng = strtoull(argv[2], NULL, 0) * 2 + 1;
	f.verbose = argc == 5;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vt_dev_open(&f.dev, &opts))
		return 2;
	f.buf = calloc(1, BUF_BYTES);
	f.channel = ibv_create_comp_channel(f.dev.ctx);
	if (!f.buf || !f.channel) {
		fprintf(stderr, "sroce_verbs_fuzz: no memory or completion channel\n");
		return 2;
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		if (below(&f, 400) == 0) {
			child_killed(&f);
			children++;
			continue;
		}
		actions[below(&f, sizeof(actions) / sizeof(actions[0]))](&f);
	}
	teardown(&f);
	vt_dev_close(&f.dev);
	printf("fuzzed %lu verbs (%lu failed as expected, %lu unexpected errno, %lu children killed; %lu modify to RTS, %lu sends posted), seed %s\n",
	       f.verbs, f.failed - f.unexpected, f.unexpected, children, f.to_rts,
	       f.sends_posted, argv[2]);
	return f.unexpected ? 1 : 0;
}
