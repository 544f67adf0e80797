/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_stats.h - per-device protocol counters.
 *
 * Each device keeps one array of u64 counters per CPU. An increment is a
 * single this_cpu operation: no lock, no shared cache line, safe from any
 * context (process, softirq, hard IRQ, timer). Readers sum the CPUs; a sum
 * taken while traffic runs is a snapshot, not an atomic cut across counters.
 *
 * The counters are the port's hw_counters: `rdma statistic show link
 * <dev>/1` and /sys/class/infiniband/<dev>/ports/1/hw_counters/<name>;
 * sroce_pma.c shows some of them again, in IBA's units, as ports/1/counters/.
 * Their meaning is documented in Documentation/counters.md; keep both in step.
 */
#ifndef SROCE_STATS_H
#define SROCE_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "sroce.h"

/* Indexes into the counter array; the names are in sroce_stats.c. */
enum sroce_stat {
	SROCE_STAT_SENT_PKTS,
	SROCE_STAT_RCVD_PKTS,
	SROCE_STAT_SENT_BYTES,
	SROCE_STAT_RCVD_BYTES,
	SROCE_STAT_RETRANSMITTED_PKTS,
	SROCE_STAT_DUPLICATE_REQUEST,
	SROCE_STAT_OUT_OF_SEQUENCE,
	SROCE_STAT_RCVD_SEQ_ERR,
	SROCE_STAT_SEND_RNR_ERR,
	SROCE_STAT_RCVD_RNR_ERR,
	SROCE_STAT_COMPLETER_RETRY_ERR,
	SROCE_STAT_RETRY_EXCEEDED_ERR,
	SROCE_STAT_RETRY_RNR_EXCEEDED_ERR,
	SROCE_STAT_SENT_NAK_ACCESS,
	SROCE_STAT_RCVD_NAK_ACCESS,
	SROCE_STAT_SENT_NAK_INV_REQ,
	SROCE_STAT_RCVD_NAK_INV_REQ,
	SROCE_STAT_ICRC_ERRORS,
	SROCE_STAT_RCVD_MALFORMED,
	SROCE_STAT_RCVD_UNKNOWN_QPN,
	SROCE_STAT_RCVD_BAD_PKEY,
	SROCE_STAT_RCVD_DROPPED,
	SROCE_STAT_ACK_COALESCED,
	SROCE_STAT_LINK_DOWNED,
	SROCE_STAT_DOORBELLS,
	SROCE_STAT_DOORBELLS_ELIDED,
	SROCE_STAT_SEND_ERR,
	SROCE_STAT_LOCAL_SEGMENTS,
	SROCE_STAT_RCVD_DUP_READ_MISMATCH,
	SROCE_STAT_TX_PASSES,
	SROCE_STAT_TX_QP_VISITS,
	SROCE_STAT_QKEY_VIOL,
	SROCE_STAT_RCVD_UD_LEN_ERR,
	SROCE_STAT_RCVD_UD_NO_WQE,
	SROCE_STAT_UD_SEND_TOO_LONG,
	SROCE_STAT_RCVD_MCAST_PKTS,
	SROCE_STAT_RCVD_DUP_ATOMIC_MISMATCH,
	SROCE_STAT_SENT_MCAST_PKTS,
	SROCE_STAT_RCVD_MCAST_QP_PKTS,
	SROCE_STAT_UC_DROPPED_MSGS,
	SROCE_NUM_STATS
};

/* One CPU's counters. */
struct sroce_stats {
	u64 v[SROCE_NUM_STATS];
};

static inline void sroce_stat_add(struct sroce_dev *sdev, enum sroce_stat s,
				  u64 n)
{
	this_cpu_add(sdev->stats->v[s], n);
}

static inline void sroce_stat_inc(struct sroce_dev *sdev, enum sroce_stat s)
{
	this_cpu_inc(sdev->stats->v[s]);
}

/* A received packet was dropped for @reason; also counts rcvd_dropped. */
static inline void sroce_stat_drop(struct sroce_dev *sdev, enum sroce_stat reason)
{
	sroce_stat_inc(sdev, reason);
	sroce_stat_inc(sdev, SROCE_STAT_RCVD_DROPPED);
}

struct rdma_hw_stats;

int sroce_stats_init(struct sroce_dev *sdev);
void sroce_stats_free(struct sroce_dev *sdev);

/* A sum over the CPUs: a snapshot while traffic runs. */
u64 sroce_stat_read(struct sroce_dev *sdev, enum sroce_stat s);

/* ib_device_ops */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

#endif /* SROCE_STATS_H */
