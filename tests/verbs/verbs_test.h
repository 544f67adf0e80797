/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce_verbs_test: RC data-path tests through the real libibverbs API.
 *
 * Every case has two halves: the client half drives (it is the requester
 * of the operation under test) and the server half responds (posts
 * receives, exposes memory, checks what arrived). The halves talk over a
 * control stream (ctrl.c): a socketpair to a server thread in --loopback
 * mode, TCP between two hosts in --server/--client mode. Both halves of a
 * case are written once and run the same way in both modes.
 *
 * A half returns 0 on success or vt_fail()'s -1 with t->reason set. What it
 * creates through the vt_* allocators is destroyed when the case ends (after
 * both halves have finished), so halves never clean up by hand.
 */
#ifndef VERBS_TEST_H
#define VERBS_TEST_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_REASON_LEN	256
#define VT_MAX_RES	1024
#define VT_ANY_WR_ID	UINT64_MAX

/* Access a test MR usually gets: everything. */
#define VT_ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

enum vt_role { VT_CLIENT, VT_SERVER };

/* Command line, shared read-only by both halves. */
struct vt_opts {
	const char *dev_name;	/* NULL: the first device */
	int ib_port;
	int gid_index;		/* -1: the IPv4-mapped RoCE v2 GID */
	int wait_ms;		/* longest wait for one completion or event */
	int qp_timeout;		/* local ACK timeout exponent of the QPs */
	unsigned int many;	/* messages in many_sends */
	const char *midway;	/* shell command many_sends runs halfway, or NULL */
	uint64_t seed;
	bool verbose;
	bool uc;		/* the cases' QPs are UC (--uc; RC otherwise) */
};

/* One opened device and the GID this side uses. */
struct vt_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
};

enum vt_res_kind {
	VT_RES_MEM, VT_RES_MR, VT_RES_PD, VT_RES_CHANNEL, VT_RES_CQ, VT_RES_QP,
	VT_RES_AH, VT_RES_SRQ, VT_RES_MW,
};

struct vt_res {
	enum vt_res_kind kind;
	void *p;
};

/* The state of one half while it runs one case. */
struct vt {
	enum vt_role role;
	const struct vt_opts *opts;
	struct vt_dev *dev;
	const void *arg;		/* the case's argument */
	struct ibv_pd *pd;		/* made for each case */
	int ctrl_fd;
	bool peer_ended;		/* the peer's END was read mid-case */
	int peer_status;
	char peer_reason[VT_REASON_LEN];
	char reason[VT_REASON_LEN];	/* first failure of this half */
	uint64_t rng;
	int nres;
	struct vt_res res[VT_MAX_RES];
};

struct vt_case {
	const char *name;
	const char *what;			/* one line for --list */
	int (*client)(struct vt *t);
	int (*server)(struct vt *t);		/* NULL: nothing to do */
	const void *arg;
};

/* Case tables, one per area. */
extern const struct vt_case vt_ops_cases[];
extern const struct vt_case vt_ex_cases[];
extern const struct vt_case vt_object_cases[];
extern const struct vt_case vt_error_cases[];
extern const struct vt_case vt_scale_cases[];
extern const struct vt_case vt_ud_cases[];
extern const struct vt_case vt_srq_cases[];
extern const struct vt_case vt_mw_cases[];
/* Cases that need a network the caller prepared: run only when --only names them. */
extern const struct vt_case vt_on_request_cases[];
/* Cases that fill the device to its limits (limits.c): also only when --only names them. */
extern const struct vt_case vt_limit_cases[];

/* main.c */
int vt_fail(struct vt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vt_note(struct vt *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct vt_case *vt_find_case(const char *name);

/* ctrl.c: the control stream */
enum vt_msg { VT_MSG_BEGIN = 1, VT_MSG_DATA, VT_MSG_END, VT_MSG_QUIT };

int vt_ctrl_listen(int port);
int vt_ctrl_accept(int lfd);
int vt_ctrl_connect(const char *host, int port, int wait_s);
int vt_ctrl_begin(int fd, const char *name);
int vt_ctrl_quit(int fd);
int vt_ctrl_next(int fd, char *name, size_t len);
int vt_ctrl_end(struct vt *t, int status);
int vt_put(struct vt *t, const void *buf, uint32_t len);
int vt_get(struct vt *t, void *buf, uint32_t len);
int vt_put_u64(struct vt *t, uint64_t v);
int vt_get_u64(struct vt *t, uint64_t *v);
int vt_sync(struct vt *t);

/* res.c: device, per-case resources, data patterns */
int vt_dev_open(struct vt_dev *d, const struct vt_opts *o);
void vt_dev_close(struct vt_dev *d);
void vt_begin(struct vt *t);
void vt_cleanup(struct vt *t);

struct vt_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

uint8_t *vt_mem(struct vt *t, size_t len);
struct vt_buf *vt_buf(struct vt *t, size_t len, int access);
struct vt_buf *vt_buf_pd(struct vt *t, struct ibv_pd *pd, size_t len, int access);
struct ibv_pd *vt_pd(struct vt *t);
struct ibv_comp_channel *vt_channel(struct vt *t);
struct ibv_cq *vt_cq(struct vt *t, int cqe, struct ibv_comp_channel *ch);
struct ibv_qp *vt_qp(struct vt *t, struct ibv_pd *pd, struct ibv_qp_init_attr *ia);
struct ibv_cq_ex *vt_cq_ex(struct vt *t, int cqe, struct ibv_comp_channel *ch,
			   uint64_t wc_flags);
struct ibv_qp *vt_qp_ex(struct vt *t, struct ibv_qp_init_attr_ex *ia);
struct ibv_ah *vt_ah(struct vt *t, struct ibv_pd *pd, struct ibv_ah_attr *attr);
struct ibv_srq *vt_srq(struct vt *t, uint32_t max_wr, uint32_t max_sge);
struct ibv_srq *vt_srq_pd(struct vt *t, struct ibv_pd *pd, uint32_t max_wr,
			  uint32_t max_sge);
/* A memory window on @pd, deallocated when the case ends. */
struct ibv_mw *vt_mw(struct vt *t, struct ibv_pd *pd, enum ibv_mw_type type);
int vt_destroy(struct vt *t, void *p);

uint64_t vt_rand(struct vt *t);
void vt_fill(void *p, size_t len, uint64_t seed);
int vt_check(struct vt *t, const void *p, size_t len, uint64_t seed, const char *what);
int vt_check_byte(struct vt *t, const void *p, size_t len, uint8_t byte, const char *what);
int vt_wait_fd(struct vt *t, int fd, int ms);
/* CLOCK_MONOTONIC in milliseconds. */
long long vt_now_ms(void);
int vt_wait_async(struct vt *t, enum ibv_event_type type, const void *element);

/* ep.c: one RC QP and its peer */
struct vt_qp_opts {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	int cqe;				/* each CQ it creates */
	enum ibv_mtu mtu;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer, max_rd_atomic;
	int access;				/* qp_access_flags */
	bool sig_all;
	bool uc;				/* a UC QP: no RD atomic, timers, retries */
	bool reset_only;			/* vt_ep_create leaves it in RESET */
	struct ibv_pd *pd;			/* NULL: t->pd */
	struct ibv_cq *scq, *rcq;		/* NULL: create one */
	struct ibv_comp_channel *rchannel;	/* for a created rcq */
	struct ibv_srq *srq;			/* receives come from here */
	uint64_t send_ops_flags;		/* !0: ibv_create_qp_ex with these */
	uint64_t wc_flags;			/* !0: created CQs are ibv_cq_ex */
};

/* What one side tells the other about a QP and the memory it exposes. */
struct vt_info {
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey, len;
};

struct vt_ep {
	struct vt_qp_opts o;
	struct ibv_cq *scq, *rcq;
	struct ibv_cq_ex *scqx, *rcqx;		/* the same CQs, if o.wc_flags */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;			/* if o.send_ops_flags */
	struct vt_info me, peer;
};

void vt_qp_opts_init(struct vt *t, struct vt_qp_opts *o);
int vt_ep_create(struct vt *t, struct vt_ep *ep, const struct vt_qp_opts *o);
int vt_ep_exchange(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose);
int vt_attr_init(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a);
int vt_attr_rtr(struct vt *t, const struct vt_ep *ep, struct ibv_qp_attr *a);
int vt_attr_rts(const struct vt_ep *ep, struct ibv_qp_attr *a);
int vt_ep_connect(struct vt *t, struct vt_ep *ep);
int vt_ep_link(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose);
int vt_ep_new(struct vt *t, struct vt_ep *ep);
int vt_ep_up(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose);
int vt_ep_open(struct vt *t, struct vt_ep *ep, const struct vt_buf *expose);
int vt_modify_err(struct vt *t, struct ibv_qp *qp);

struct ibv_sge vt_sge(const struct vt_buf *b, size_t off, uint32_t len);
struct ibv_send_wr vt_wr(enum ibv_wr_opcode op, uint64_t wr_id, struct ibv_sge *sg,
			 int nsge, unsigned int flags);
void vt_wr_remote(struct ibv_send_wr *wr, const struct vt_ep *ep, uint64_t off);
int vt_post_send(struct vt *t, struct vt_ep *ep, struct ibv_send_wr *wr);
int vt_post_recv(struct vt *t, struct vt_ep *ep, uint64_t wr_id, struct ibv_sge *sg, int nsge);

int vt_wait_wc(struct vt *t, struct ibv_cq *cq, struct ibv_wc *wc, const char *what);
int vt_expect_wc(struct vt *t, struct ibv_cq *cq, uint64_t wr_id,
		 enum ibv_wc_status status, struct ibv_wc *wc, const char *what);
int vt_expect_no_wc(struct vt *t, struct ibv_cq *cq, int ms, const char *what);
int vt_qp_state(struct vt *t, struct ibv_qp *qp);
int vt_expect_state(struct vt *t, struct ibv_qp *qp, enum ibv_qp_state st, int ms,
		    const char *what);

#endif
