// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_wqe.c - send WQE encoding and the SQ doorbell (see sroce_wqe.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sroce_queue.h"
#include "sroce_wqe.h"

#define SROCE_SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SROCE_SAME(SROCE_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE) &&
		       SROCE_SAME(SROCE_WR_RDMA_WRITE_WITH_IMM,
				  IBV_WR_RDMA_WRITE_WITH_IMM) &&
		       SROCE_SAME(SROCE_WR_SEND, IBV_WR_SEND) &&
		       SROCE_SAME(SROCE_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM) &&
		       SROCE_SAME(SROCE_WR_RDMA_READ, IBV_WR_RDMA_READ) &&
		       SROCE_SAME(SROCE_WR_ATOMIC_CMP_AND_SWP,
				  IBV_WR_ATOMIC_CMP_AND_SWP) &&
		       SROCE_SAME(SROCE_WR_ATOMIC_FETCH_AND_ADD,
				  IBV_WR_ATOMIC_FETCH_AND_ADD) &&
		       SROCE_SAME(SROCE_WR_LOCAL_INV, IBV_WR_LOCAL_INV) &&
		       SROCE_SAME(SROCE_WR_BIND_MW, IBV_WR_BIND_MW) &&
		       SROCE_SAME(SROCE_WR_SEND_WITH_INV, IBV_WR_SEND_WITH_INV),
	       "sroce WR opcodes are ibv_wr_opcode");
_Static_assert(SROCE_SEND_FENCE == IBV_SEND_FENCE &&
		       SROCE_SEND_SIGNALED == IBV_SEND_SIGNALED &&
		       SROCE_SEND_SOLICITED == IBV_SEND_SOLICITED &&
		       SROCE_SEND_INLINE == IBV_SEND_INLINE,
	       "sroce send flags are ibv_send_flags");
_Static_assert(sizeof(struct sroce_sge) == sizeof(struct ibv_sge),
	       "an SGE is an SGE");

/* The atomic operand is one naturally aligned 64-bit word. */
#define SROCE_ATOMIC_SIZE 8

static const struct sroce_send_opdef sroce_send_ops[] = {
	[IBV_WR_RDMA_WRITE] = { true, true, SROCE_TARGET_RDMA },
	[IBV_WR_RDMA_WRITE_WITH_IMM] = { true, true, SROCE_TARGET_RDMA },
	[IBV_WR_SEND] = { true, true, SROCE_TARGET_NONE },
	[IBV_WR_SEND_WITH_IMM] = { true, true, SROCE_TARGET_NONE },
	[IBV_WR_RDMA_READ] = { true, false, SROCE_TARGET_RDMA },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = { true, false, SROCE_TARGET_ATOMIC },
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = { true, false, SROCE_TARGET_ATOMIC },
	[IBV_WR_LOCAL_INV] = { true, false, SROCE_TARGET_LOCAL_INV },
	[IBV_WR_BIND_MW] = { true, false, SROCE_TARGET_BIND },
	[IBV_WR_SEND_WITH_INV] = { true, true, SROCE_TARGET_INV },
	/* TSO, DRIVER1, ...: not supported. */
};

const struct sroce_send_opdef *sroce_send_opdef(unsigned int opcode)
{
	if (opcode >= sizeof(sroce_send_ops) / sizeof(sroce_send_ops[0]) ||
	    !sroce_send_ops[opcode].supported)
		return NULL;
	return &sroce_send_ops[opcode];
}

int sroce_wqe_init(const struct sroce_qp *qp, struct sroce_send_wqe *wqe,
		   uint64_t wr_id, unsigned int opcode, unsigned int flags)
{
	if (flags & ~SROCE_SEND_FLAGS_MASK)
		return EINVAL;
	/* Reserved words must be zero: the kernel rejects anything else. */
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->send_flags = flags | qp->sq_sig_all;
	return 0;
}

void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint32_t rkey,
			uint64_t remote_addr)
{
	wqe->rdma.remote_addr = remote_addr;
	wqe->rdma.rkey = rkey;
}

void sroce_wqe_set_atomic(struct sroce_send_wqe *wqe, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap)
{
	wqe->atomic.remote_addr = remote_addr;
	wqe->atomic.compare_add = compare_add;
	wqe->atomic.swap = swap;
	wqe->atomic.rkey = rkey;
}

int sroce_wqe_set_bind(struct sroce_send_wqe *wqe, const struct ibv_mw *mw,
		       uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	if (!mw || (!info->mr && (info->addr || info->length)))
		return EINVAL;
	wqe->bind.addr = info->addr;
	wqe->bind.length = info->length;
	wqe->bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->bind.mw_rkey = mw->rkey;
	wqe->bind.new_rkey = rkey;
	wqe->bind.access = info->mw_access_flags;
	return 0;
}

void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->ud.ah_index = ah ? to_sah(ah)->index : 0;
	wqe->ud.remote_qpn = remote_qpn;
	wqe->ud.remote_qkey = remote_qkey;
}

/* LOCAL_INV and BIND_MW carry no data: no SGEs, no inline payload. */
static bool sroce_wqe_is_local(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == SROCE_WR_LOCAL_INV ||
	       wqe->opcode == SROCE_WR_BIND_MW;
}

static bool sroce_wqe_is_send(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == SROCE_WR_SEND || wqe->opcode == SROCE_WR_SEND_WITH_IMM;
}

/* UC carries what needs no response. */
static int sroce_wqe_check_uc(const struct sroce_send_wqe *wqe)
{
	if (sroce_wqe_is_send(wqe) || wqe->opcode == SROCE_WR_RDMA_WRITE ||
	    wqe->opcode == SROCE_WR_RDMA_WRITE_WITH_IMM)
		return 0;
	return EINVAL;
}

int sroce_wqe_check_qp_type(const struct sroce_qp *qp,
			    const struct sroce_send_wqe *wqe)
{
	if (qp->vqp.qp.qp_type == IBV_QPT_UC)
		return sroce_wqe_check_uc(wqe);
	if (qp->vqp.qp.qp_type != IBV_QPT_UD)
		return 0;
	if (!sroce_wqe_is_send(wqe))
		return EINVAL;
	/* The kernel checks the index; 0 is never one (sroce-abi.h). */
	if (!wqe->ud.ah_index || wqe->ud.remote_qpn > 0xffffff)
		return EINVAL;
	return 0;
}

int sroce_wqe_set_sges(const struct sroce_qp *qp, struct sroce_send_wqe *wqe,
		       const struct ibv_sge *sg, size_t num_sge)
{
	size_t i;

	if (num_sge > qp->sq.max_sge)
		return EINVAL;
	for (i = 0; i < num_sge; i++) {
		wqe->sge[i].addr = sg[i].addr;
		wqe->sge[i].length = sg[i].length;
		wqe->sge[i].lkey = sg[i].lkey;
	}
	wqe->num_sge = num_sge;
	wqe->send_flags &= ~SROCE_SEND_INLINE;
	return 0;
}

int sroce_wqe_add_inline(const struct sroce_qp *qp,
			 struct sroce_send_wqe *wqe, const void *addr,
			 size_t length)
{
	if (length > qp->max_inline_data - wqe->inline_len)
		return EINVAL;
	/* The payload follows the 64-byte header, where sge[] would be. */
	memcpy((uint8_t *)wqe->sge + wqe->inline_len, addr, length);
	wqe->inline_len += length;
	wqe->num_sge = 0;
	wqe->send_flags |= SROCE_SEND_INLINE;
	return 0;
}

int sroce_wqe_check(const struct sroce_send_wqe *wqe)
{
	if (sroce_wqe_is_local(wqe))
		return wqe->num_sge || wqe->inline_len ? EINVAL : 0;
	if (wqe->opcode != SROCE_WR_ATOMIC_CMP_AND_SWP &&
	    wqe->opcode != SROCE_WR_ATOMIC_FETCH_AND_ADD)
		return 0;
	if (wqe->num_sge != 1 || wqe->sge[0].length != SROCE_ATOMIC_SIZE ||
	    wqe->atomic.remote_addr % SROCE_ATOMIC_SIZE)
		return EINVAL;
	return 0;
}

/*
 * The process half of the NEED_WAKEUP handshake in sroce-abi.h: store
 * the index, full barrier, read the flag. Paired with the kernel's "set
 * flag, full barrier, re-read index" it guarantees that either the kernel
 * sees the new WQEs or we see the flag and ring.
 */
bool sroce_sq_publish(struct sroce_qp *qp, uint32_t prod)
{
	uint32_t flags;

	sroce_wq_publish(&qp->sq, prod);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(&qp->sq.ring.hdr->flags, __ATOMIC_RELAXED);
	if (flags & SROCE_RING_NEED_WAKEUP) {
		qp->doorbells_rung++;
		return true;
	}
	qp->doorbells_elided++;
	return false;
}

int sroce_sq_ring_doorbell(struct sroce_qp *qp)
{
	ssize_t n;

	n = write(qp->vqp.qp.context->cmd_fd, &qp->db_cmd, sizeof(qp->db_cmd));
	if (n == (ssize_t)sizeof(qp->db_cmd))
		return 0;
	return n < 0 ? errno : EIO;
}
