/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_caps.h - every device and port limit sroce advertises, in one place.
 *
 * Documentation/caps.md explains each value; keep the two in step. The
 * limits bound what a single process can make the kernel allocate, so they
 * are also part of the module's defence against hostile userspace.
 */
#ifndef SROCE_CAPS_H
#define SROCE_CAPS_H

#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

/* Identity: no IEEE OUI is assigned to sroce; 0xffffff marks "software". */
#define SROCE_VENDOR_ID			0xffffff
#define SROCE_VENDOR_PART_ID		0x50ce
#define SROCE_HW_VERSION		1

/* Object counts, per device. */
#define SROCE_MAX_PD			(SZ_64K)
#define SROCE_MAX_QP			(SZ_16K)
#define SROCE_MAX_CQ			(SZ_16K)
#define SROCE_MAX_SRQ			(SZ_16K)
#define SROCE_MAX_MR			(SZ_64K)
#define SROCE_MAX_MW			(SZ_64K)
#define SROCE_MAX_AH			(SZ_64K)

/*
 * Multicast, per device: groups with a QP attached, QPs per group, and
 * attachments in all. Each packet for a group is copied to every attached
 * QP in softirq, so QPs per group bound that work.
 */
#define SROCE_MAX_MCAST_GRP		256
#define SROCE_MAX_MCAST_QP_ATTACH	32
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	1024

/* Queue sizes. */
#define SROCE_MAX_QP_WR			(SZ_16K)
#define SROCE_MAX_CQE			(SZ_64K)
#define SROCE_MAX_SRQ_WR		(SZ_16K)
#define SROCE_MAX_SGE			32
#define SROCE_MAX_INLINE_DATA		256

/* RDMA READ / ATOMIC outstanding per QP, both directions. */
#define SROCE_MAX_RD_ATOMIC		128

/* Largest message: the 31-bit limit of the IB length fields. */
#define SROCE_MAX_MSG_SIZE		(1U << 31)

/*
 * Pages one fast-reg MR maps (max_fast_reg_page_list_len): 2 MiB in 4 KiB
 * pages, more than nvme-rdma (its max_segments) and xprtrdma ask for.
 */
#define SROCE_MAX_FAST_REG_PAGES	512

/* Port. RoCE has a single default P_Key; the GID table is ib_core's. */
#define SROCE_PORT_NUM			1
#define SROCE_PKEY_TABLE_LEN		1
#define SROCE_DEFAULT_PKEY		0xffff
#define SROCE_GID_TABLE_LEN		1024
#define SROCE_MAX_IB_MTU		IB_MTU_4096

/*
 * Bytes of every RoCEv2 packet that are not payload, worst case: IPv6 (40),
 * UDP (8), BTH (12), RETH (16), ImmDt (4) and ICRC (4). The Ethernet header
 * is not counted: the netdev MTU excludes it.
 */
#define SROCE_ROCEV2_OVERHEAD		(40 + 8 + 12 + 16 + 4 + 4)

/*
 * Allocation flags for kernel memory whose size a process chooses through
 * the caps above (rings, per-WQE arrays, MR page arrays, IRD rings): at
 * maximum caps one QP asks for ~46 MiB, so it is charged to the caller's
 * memory cgroup (ACCOUNT) like the process's own memory. RETRY_MAYFAIL: past
 * memory.max (or what the machine has) the verb fails with -ENOMEM instead
 * of invoking the OOM killer; NOWARN: a process asking too much is no kernel
 * problem. Small fixed-size objects use plain GFP_KERNEL_ACCOUNT.
 */
#define SROCE_GFP_USER_BULK	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

/* Requester ACK delay exponent reported to peers (4.096 us * 2^n). */
#define SROCE_LOCAL_CA_ACK_DELAY	15

#endif /* SROCE_CAPS_H */
