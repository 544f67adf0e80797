/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * sroce-abi.h - the contract between sroce.ko and libsroce-rdmav34.so.
 *
 * This header is the single source of truth for both sides: the kernel
 * module and the rdma-core provider include it unchanged. Every structure is
 * built from fixed-width types with explicit padding so that 32- and 64-bit
 * processes see one layout; every reserved field must be zero when written
 * and is rejected by the receiver otherwise, so it can be given a meaning
 * later without breaking old binaries.
 *
 * Versioning
 * ----------
 * SROCE_UVERBS_ABI_VERSION is the ib_uverbs driver ABI version the kernel
 * advertises (sysfs abi_version); the provider refuses devices outside the
 * range it was built for. SROCE_ABI_VERSION versions the structures below and
 * is echoed by the kernel in struct sroce_alloc_ucontext_resp; a provider that
 * does not know the version it gets back must not use the device.
 *
 * Compatible growth happens through comp_mask bits and trailing fields; an
 * incompatible change bumps SROCE_ABI_VERSION.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	1
#define SROCE_ABI_VERSION		1

/* Devices are matched by name: rdma link names them "sroce<N>" by convention. */
#define SROCE_DEVICE_NAME_PREFIX	"sroce"

/*
 * struct sroce_alloc_ucontext_resp - kernel answer to ibv_open_device()
 * @abi_version: SROCE_ABI_VERSION of the running module
 * @comp_mask: SROCE_UCTX_* bits saying which optional fields are valid
 * @max_inline_data: largest inline payload a send WQE may carry, in bytes
 * @page_shift: log2 of the page size used for every mmap offset and length
 * @reserved: must be zero
 */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 comp_mask;
	__u32 max_inline_data;
	__u32 page_shift;
	__aligned_u64 reserved[2];
};

/*
 * Shared rings
 * ============
 *
 * Every send queue, receive queue and completion queue is a ring in memory
 * the kernel allocates and the process maps with mmap() on its uverbs fd, at
 * the offset and length the create response gives. A mapping starts with
 * struct sroce_ring_hdr; entries follow at SROCE_RING_ENTRIES_OFFSET, each
 * entry `stride` bytes (a power of two), `depth` entries (a power of two).
 *
 * Indices are free-running __u32: the slot of index i is i & (depth - 1).
 * Each index is written by exactly one side and only ever incremented:
 *
 *   ring  producer (writes entries, then producer)  consumer
 *   SQ    process (ibv_post_send)                   kernel
 *   RQ    process (ibv_post_recv)                   kernel
 *   CQ    kernel                                    process (ibv_poll_cq)
 *
 * Producer: fill the entry, then store-release the producer index.
 * Consumer: load-acquire the producer index, then read entries below it,
 * then store-release the consumer index when the slots may be reused.
 *
 * The kernel never trusts the ring: it reads each index and each entry
 * once (READ_ONCE into private memory), validates the copy, and acts only on
 * the copy. A producer index more than `depth` ahead of the kernel's own
 * consumer position puts the QP in the error state, and so does an SQ
 * producer more than `depth` ahead of the oldest send WQE the kernel has not
 * completed yet (see the next paragraph); an invalid WQE completes in error. Nothing a process writes here can affect another process.
 *
 * Send and receive slots are not reused when the kernel has read them but
 * when their completion is polled: the provider counts outstanding work
 * requests from the CQEs' wqe_index (which also retires preceding
 * unsignaled sends), so a ring never holds more than `depth` outstanding.
 *
 * Indices start at zero when the ring is created; read them from the
 * mapping rather than assuming so. A QP created with max_send_wr or
 * max_recv_wr 0 still gets a one-entry ring. On a transition to RESET the
 * kernel discards every published SQ and RQ entry without a completion, by
 * moving its consumer index to the producer index it sees; the provider
 * likewise forgets everything outstanding.
 *
 * Doorbell elision (SQ)
 * ---------------------
 * While the kernel's transmit thread is polling, it picks up new send WQEs
 * by itself. Before it sleeps, and before it stops polling one QP that has
 * gone idle, it sets SROCE_RING_NEED_WAKEUP in the SQ's flags, issues a
 * full barrier and looks at the producer index once more.
 * ibv_post_send stores the producer index, issues a full barrier and reads
 * flags: only if NEED_WAKEUP is set does it ring the doorbell, a write() of
 * IB_USER_VERBS_CMD_POST_SEND with wr_count 0 on the QP. The two full
 * barriers guarantee that either the kernel sees the new index or the
 * process sees the flag.
 *
 * The RQ never needs a doorbell while the QP works. In the error state the
 * kernel must flush receives posted later, so it sets NEED_WAKEUP in the
 * RQ's flags (full barrier, then it flushes what it sees); ibv_post_recv
 * stores the producer index, issues a full barrier, and rings the same
 * doorbell if the RQ flag is set.
 *
 * The kernel sets the RQ flag on every entry to the error state, its own
 * (retries exceeded, a responder error) as well as a modify's, and clears
 * it only on the move to RESET. The provider relies on that: a QP it last
 * moved to RESET, INIT or RTR refuses ibv_post_send unless this flag says
 * the kernel has put it in error since (rdma-core-provider/sroce_qp_state.h).
 */
#define SROCE_RING_NEED_WAKEUP		(1U << 0)

/*
 * struct sroce_ring_hdr - the first bytes of every ring mapping
 * @producer: written by the producer only (table above)
 * @consumer: written by the consumer only
 * @flags: written by the kernel only: SROCE_RING_* bits
 *
 * Each index sits in its own 64-byte cache line so the two sides do not
 * fight over one line.
 */
struct sroce_ring_hdr {
	__u32 producer;
	__u32 reserved0[15];
	__u32 consumer;
	__u32 reserved1[15];
	__u32 flags;
	__u32 reserved2[15];
};

#define SROCE_RING_ENTRIES_OFFSET	256

/* Scatter/gather element, as in struct ibv_sge. */
struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Work request opcodes: the values of enum ibv_wr_opcode. */
enum sroce_wr_opcode {
	SROCE_WR_RDMA_WRITE		= 0,
	SROCE_WR_RDMA_WRITE_WITH_IMM	= 1,
	SROCE_WR_SEND			= 2,
	SROCE_WR_SEND_WITH_IMM		= 3,
	SROCE_WR_RDMA_READ		= 4,
	SROCE_WR_ATOMIC_CMP_AND_SWP	= 5,
	SROCE_WR_ATOMIC_FETCH_AND_ADD	= 6,
	SROCE_WR_LOCAL_INV		= 7,
	SROCE_WR_BIND_MW		= 8,
	SROCE_WR_SEND_WITH_INV		= 9,
};

/* Send flags: the values of enum ibv_send_flags. */
#define SROCE_SEND_FENCE		(1U << 0)
#define SROCE_SEND_SIGNALED		(1U << 1)
#define SROCE_SEND_SOLICITED		(1U << 2)
#define SROCE_SEND_INLINE		(1U << 3)
#define SROCE_SEND_FLAGS_MASK		((1U << 4) - 1)

/*
 * struct sroce_send_wqe - one send queue entry
 * @wr_id: returned in the completion
 * @opcode: enum sroce_wr_opcode
 * @send_flags: SROCE_SEND_* bits
 * @num_sge: entries in sge[]; 0 for inline sends
 * @inline_len: bytes of inline data following the header (SROCE_SEND_INLINE)
 * @imm_data: immediate data, network byte order (*_WITH_IMM)
 * @invalidate_rkey: rkey to invalidate (SEND_WITH_INV, LOCAL_INV)
 * @rdma: RDMA READ/WRITE target
 * @atomic: atomic target and operands (8-byte aligned remote_addr)
 * @ud: destination of a send on a UD QP (SEND and SEND_WITH_IMM only):
 *	@ud.ah_index is the index struct sroce_create_ah_resp returned for an
 *	address handle of this process on the QP's PD; @ud.remote_qpn the
 *	destination QP (24 bits, upper bits must be zero); @ud.remote_qkey
 *	its Q_Key, where a set high bit means "the QP's own Q_Key"
 *	(IBA 10.2.5). An index that names no such AH, in this process and
 *	PD, completes the WQE with IBV_WC_LOC_QP_OP_ERR (the QP then goes
 *	to the error state, as for every failed send WQE).
 * @bind: BIND_MW, a memory window bind (below)
 *
 * Memory windows
 * --------------
 * LOCAL_INV (@invalidate_rkey, no SGEs), BIND_MW and SEND_WITH_INV are
 * taken on RC QPs. LOCAL_INV and BIND_MW are local operations: no packet,
 * executed in order when the kernel reaches them; they complete with
 * IBV_WC_LOCAL_INV and IBV_WC_BIND_MW, or with IBV_WC_MW_BIND_ERR if the
 * operation is refused (the QP then goes to the error state). A BIND_MW
 * carries no SGEs and no inline data:
 *	@bind.mw_rkey names the window (by its index: the rkey
 *	ibv_alloc_mw() returned, or any later one);
 *	@bind.new_rkey is its key once bound, same index (bits 8-31) as
 *	@bind.mw_rkey, any key byte (bits 0-7);
 *	@bind.mr_lkey the MR underneath, of the QP's and window's PD and
 *	registered with IBV_ACCESS_MW_BIND;
 *	@bind.addr, @bind.length the window, inside the MR (MR addresses);
 *	@bind.access its rights: IBV_ACCESS_REMOTE_{READ,WRITE,ATOMIC} only,
 *	write and atomic only on an MR with IBV_ACCESS_LOCAL_WRITE.
 * A type 2 window must be FREE and becomes bound to this QP; a type 1
 * window may be bound again at any time (ibv_bind_mw() posts this WQE),
 * and a zero @bind.length unbinds it (@bind.mr_lkey is then ignored). A
 * type 2 window becomes FREE by LOCAL_INV of its current key on a QP of
 * its PD, or by a SEND_WITH_INV of that key received on the QP it is
 * bound to; type 1 windows cannot be invalidated (LOCAL_INV fails, a
 * SEND_WITH_INV is a remote invalid request error). Window keys have bit
 * 31 set; MR keys never do.
 *
 * The header is 64 bytes; sge[] or the inline data follow it, within the
 * QP's sq_stride.
 *
 * The @ud member came with UD QPs. It overlays @rdma without moving a
 * byte (its reserved word is @rdma.reserved), and a kernel without UD
 * support refuses UD QPs and AHs at creation, so neither old providers on
 * new kernels nor new providers on old kernels can misread a WQE:
 * SROCE_ABI_VERSION stays 1. Likewise @bind, which came with memory
 * windows: a kernel without them has no window to bind (ibv_alloc_mw()
 * fails there) and completes a BIND_MW WQE in error.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 inline_len;
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	};
	__u32 reserved;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah_index;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 mr_lkey;
			__u32 mw_rkey;
			__u32 new_rkey;
			__u32 access;
		} bind;
	};
	struct sroce_sge sge[];
};

/*
 * struct sroce_recv_wqe - one receive queue entry
 * @wr_id: returned in the completion
 * @num_sge: entries in sge[]
 */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct sroce_sge sge[];
};

/* Completion opcodes: the values of enum ibv_wc_opcode. */
enum sroce_wc_opcode {
	SROCE_WC_SEND			= 0,
	SROCE_WC_RDMA_WRITE		= 1,
	SROCE_WC_RDMA_READ		= 2,
	SROCE_WC_COMP_SWAP		= 3,
	SROCE_WC_FETCH_ADD		= 4,
	SROCE_WC_BIND_MW		= 5,
	SROCE_WC_LOCAL_INV		= 6,
	SROCE_WC_RECV			= 1 << 7,
	SROCE_WC_RECV_RDMA_WITH_IMM	= (1 << 7) + 1,
};

/*
 * Completion flags: the low ones are the values of enum ibv_wc_flags. UD
 * receives carry SROCE_WC_GRH: the buffer starts with the 40-byte GRH area
 * (below). Above every ibv_wc_flags bit, two flags of UD receives that
 * only the kernel's ib_wc has room for (the provider masks them off):
 * SROCE_WC_NET_IPV4, the packet came over IPv4 (else IPv6); and
 * SROCE_WC_WITH_VLAN, it was addressed to a VLAN netdev whose ID is in
 * @vlan_id. Only kernel QPs' CQEs carry them. ib_core answers a kernel UD packet (ib_cm's and rdma_cm's
 * replies) from the GID of that VLAN only if it knows the VLAN ID.
 */
#define SROCE_WC_GRH			(1U << 0)
#define SROCE_WC_WITH_IMM		(1U << 1)
#define SROCE_WC_WITH_INV		(1U << 3)
#define SROCE_WC_NET_IPV4		(1U << 24)
#define SROCE_WC_WITH_VLAN		(1U << 25)

/*
 * struct sroce_cqe - one completion queue entry (64 bytes)
 * @wr_id: of the work request this completes
 * @status: enum ibv_wc_status value
 * @opcode: enum sroce_wc_opcode
 * @vendor_err: sroce-specific detail for error completions
 * @byte_len: bytes received (receive completions)
 * @imm_data: immediate data, network byte order (SROCE_WC_WITH_IMM)
 * @invalidated_rkey: (SROCE_WC_WITH_INV)
 * @qp_num: the QP the work request was posted on
 * @src_qp: the sender's QP number (receive completions)
 * @wc_flags: SROCE_WC_* flags
 * @wqe_index: free-running SQ or RQ index of the completed WQE; everything
 *	before it on the same queue is retired too. For a QP created with an
 *	SRQ, a receive's index is the SRQ ring's and retires nothing
 *	("Shared receive queues" below)
 * @is_recv: 1 if @wqe_index counts the receive queue, 0 the send queue
 * @sl: service level of a receive (always 0)
 * @pkey_index: P_Key index of a receive (always 0)
 * @vlan_id: VLAN ID of a UD receive (SROCE_WC_WITH_VLAN), else 0
 * @reserved16: @reserved: zero
 */
struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	union {
		__be32 imm_data;
		__u32 invalidated_rkey;
	};
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u32 wqe_index;
	__u8 is_recv;
	__u8 sl;
	__u16 pkey_index;
	__u16 vlan_id;
	__u16 reserved16;
	__u32 reserved[3];
};

/*
 * UD receives
 * -----------
 * A UD receive buffer starts with 40 bytes for the GRH, as on every IB
 * device: for RoCEv2 over IPv6 they hold the IPv6 header as received; over
 * IPv4, 20 zero bytes then the 20-byte IPv4 header as received (what
 * libibverbs' ibv_init_ah_from_wc() parses). The payload follows at byte
 * 40, and byte_len counts the 40 bytes. The CQE of a UD receive has
 * SROCE_WC_GRH in wc_flags, the sender's QP in src_qp, sl 0 and
 * pkey_index 0 (sroce's one partition).
 */

/*
 * struct sroce_create_ah_resp - kernel answer to ibv_create_ah()
 * @ah_index: what a UD send WQE names this AH by (@ud.ah_index); never 0,
 *	valid for this process only, until ibv_destroy_ah(). A WQE posted
 *	before the destroy still goes to the AH's destination.
 * @reserved: zero
 */
struct sroce_create_ah_resp {
	__u32 ah_index;
	__u32 reserved;
};

/*
 * struct sroce_create_cq_resp - where the CQ ring is
 * @mmap_offset: pass to mmap() on the uverbs fd
 * @mmap_size: bytes to map: the header plus depth * sizeof(struct sroce_cqe)
 * @depth: entries in the ring (a power of two >= the requested cqe); the
 *	CQ reports all of them as its cqe
 */
struct sroce_create_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 depth;
	__u32 reserved;
};

/*
 * Resizing a CQ (ibv_resize_cq)
 * -----------------------------
 * The kernel answers IB_USER_VERBS_CMD_RESIZE_CQ with a struct
 * sroce_create_cq_resp after the core response: the new ring's mmap
 * offset, size and depth (a power of two >= the requested cqe; the core
 * response's cqe equals it). Under its CQ lock the kernel copies every CQE
 * the process has not released (from the consumer index it reads once to
 * its own producer index) into the new ring at the same free-running
 * indices, sets the new ring's consumer to that snapshot and its producer
 * to its own, and from then on writes only the new ring. If more CQEs are
 * unreleased than the requested cqe, the resize fails with EINVAL and
 * nothing changes.
 *
 * The old ring is not written again, and its memory lives until the process
 * unmaps it. Because indices carry over, the provider keeps its private
 * consumer index: CQEs it polled from the old ring after the kernel's
 * snapshot sit below that index in the new ring too and are not returned
 * twice. After the call it maps the new ring, switches to it under its own
 * CQ lock, stores its consumer index there (store-release) and unmaps the
 * old ring. Until it does, the kernel sees the snapshot as the consumer, so
 * at worst the new ring looks fuller than it is for that moment.
 */

/*
 * struct sroce_create_qp_resp - where the send and receive rings are
 * @sq_mmap_offset, @sq_mmap_size: the SQ mapping
 * @rq_mmap_offset, @rq_mmap_size: the RQ mapping
 * @sq_depth, @rq_depth: entries, powers of two
 * @sq_stride, @rq_stride: bytes per entry, powers of two
 * @max_inline_data: inline bytes a send WQE may carry on this QP
 */
struct sroce_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 sq_mmap_size;
	__aligned_u64 rq_mmap_offset;
	__aligned_u64 rq_mmap_size;
	__u32 sq_depth;
	__u32 sq_stride;
	__u32 rq_depth;
	__u32 rq_stride;
	__u32 max_inline_data;
	__u32 reserved;
};

/*
 * Shared receive queues
 * =====================
 *
 * An SRQ is one more ring, mapped like an RQ (struct sroce_ring_hdr, then
 * `depth` entries of `stride` bytes, each a struct sroce_recv_wqe), with
 * the process as producer (ibv_post_srq_recv) and the kernel as consumer.
 * It never needs a doorbell: the kernel only reads it when a message
 * arrives for a QP created with the SRQ, and SRQ entries are never flushed.
 *
 * Slot reuse differs from an RQ: the kernel copies a WQE into private
 * memory when a QP takes it, so a slot is free again as soon as the ring's
 * consumer index has passed it (load-acquire of consumer, which the kernel
 * store-releases after its copy), not when its completion is polled. The
 * completion of an SRQ WQE may come on any attached QP's receive CQ, in
 * any order across QPs; its qp_num is the QP that received, is_recv is 1
 * and wqe_index is the SRQ ring index of the WQE, which retires nothing of
 * that QP's own RQ. A QP created with an SRQ still gets a one-entry RQ
 * ring (its flags word keeps its meaning for the error state), but posts
 * to it are refused and the kernel never reads entries from it while the
 * QP works.
 *
 * The kernel treats the ring as it treats an RQ: each entry is read once
 * and validated on the copy. A WQE with too many SGEs or a nonzero
 * reserved word completes in error on the QP that took it (which goes to
 * the error state); a producer index more than `depth` ahead puts the QP
 * that found it in the error state. Both affect the process's own QPs only.
 *
 * The SRQ limit (ibv_modify_srq with IBV_SRQ_LIMIT) is kept in the
 * kernel, not in the ring: once armed with a nonzero limit, the kernel
 * sends IBV_EVENT_SRQ_LIMIT_REACHED when it takes a WQE that leaves fewer
 * than `limit` WQEs posted (producer - consumer), and disarms. srq_limit
 * at creation is ignored. IBV_SRQ_MAX_WR (resize) is refused with EINVAL.
 */

/*
 * struct sroce_create_srq_resp - where the SRQ ring is
 * @mmap_offset, @mmap_size: the mapping
 * @depth: entries, a power of two >= the requested max_wr (the core
 *	response's max_wr equals it)
 * @stride: bytes per entry, a power of two
 * @reserved: zero
 */
struct sroce_create_srq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 depth;
	__u32 stride;
	__aligned_u64 reserved;
};

#endif /* SROCE_ABI_USER_H */
