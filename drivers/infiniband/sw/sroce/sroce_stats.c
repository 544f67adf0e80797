// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_stats.c - per-device counters and their ib_core hw_stats view.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_stats.h"

/* The names ib_core shows; Documentation/counters.md explains each. */
static const struct rdma_stat_desc sroce_stat_descs[SROCE_NUM_STATS] = {
	[SROCE_STAT_SENT_PKTS].name = "sent_pkts",
	[SROCE_STAT_RCVD_PKTS].name = "rcvd_pkts",
	[SROCE_STAT_SENT_BYTES].name = "sent_bytes",
	[SROCE_STAT_RCVD_BYTES].name = "rcvd_bytes",
	[SROCE_STAT_RETRANSMITTED_PKTS].name = "retransmitted_pkts",
	[SROCE_STAT_DUPLICATE_REQUEST].name = "duplicate_request",
	[SROCE_STAT_OUT_OF_SEQUENCE].name = "out_of_sequence",
	[SROCE_STAT_RCVD_SEQ_ERR].name = "rcvd_seq_err",
	[SROCE_STAT_SEND_RNR_ERR].name = "send_rnr_err",
	[SROCE_STAT_RCVD_RNR_ERR].name = "rcvd_rnr_err",
	[SROCE_STAT_COMPLETER_RETRY_ERR].name = "completer_retry_err",
	[SROCE_STAT_RETRY_EXCEEDED_ERR].name = "retry_exceeded_err",
	[SROCE_STAT_RETRY_RNR_EXCEEDED_ERR].name = "retry_rnr_exceeded_err",
	[SROCE_STAT_SENT_NAK_ACCESS].name = "sent_nak_access",
	[SROCE_STAT_RCVD_NAK_ACCESS].name = "rcvd_nak_access",
	[SROCE_STAT_SENT_NAK_INV_REQ].name = "sent_nak_inv_req",
	[SROCE_STAT_RCVD_NAK_INV_REQ].name = "rcvd_nak_inv_req",
	[SROCE_STAT_ICRC_ERRORS].name = "icrc_errors",
	[SROCE_STAT_RCVD_MALFORMED].name = "rcvd_malformed",
	[SROCE_STAT_RCVD_UNKNOWN_QPN].name = "rcvd_unknown_qpn",
	[SROCE_STAT_RCVD_BAD_PKEY].name = "rcvd_bad_pkey",
	[SROCE_STAT_RCVD_DROPPED].name = "rcvd_dropped",
	[SROCE_STAT_ACK_COALESCED].name = "ack_coalesced",
	[SROCE_STAT_LINK_DOWNED].name = "link_downed",
	[SROCE_STAT_DOORBELLS].name = "doorbells",
	[SROCE_STAT_DOORBELLS_ELIDED].name = "doorbells_elided",
	[SROCE_STAT_SEND_ERR].name = "send_err",
	[SROCE_STAT_LOCAL_SEGMENTS].name = "local_segments",
	[SROCE_STAT_RCVD_DUP_READ_MISMATCH].name = "rcvd_dup_read_mismatch",
	[SROCE_STAT_TX_PASSES].name = "tx_passes",
	[SROCE_STAT_TX_QP_VISITS].name = "tx_qp_visits",
	[SROCE_STAT_QKEY_VIOL].name = "qkey_viol",
	[SROCE_STAT_RCVD_UD_LEN_ERR].name = "rcvd_ud_len_err",
	[SROCE_STAT_RCVD_UD_NO_WQE].name = "rcvd_ud_no_wqe",
	[SROCE_STAT_UD_SEND_TOO_LONG].name = "ud_send_too_long",
	[SROCE_STAT_RCVD_MCAST_PKTS].name = "rcvd_mcast_pkts",
	[SROCE_STAT_RCVD_DUP_ATOMIC_MISMATCH].name = "rcvd_dup_atomic_mismatch",
	[SROCE_STAT_SENT_MCAST_PKTS].name = "sent_mcast_pkts",
	[SROCE_STAT_RCVD_MCAST_QP_PKTS].name = "rcvd_mcast_qp_pkts",
	[SROCE_STAT_UC_DROPPED_MSGS].name = "uc_dropped_msgs",
};

int sroce_stats_init(struct sroce_dev *sdev)
{
	sdev->stats = alloc_percpu(struct sroce_stats);
	return sdev->stats ? 0 : -ENOMEM;
}

void sroce_stats_free(struct sroce_dev *sdev)
{
	free_percpu(sdev->stats);
	sdev->stats = NULL;
}

/* Sum over every CPU that may ever have counted; u64 loads do not tear. */
u64 sroce_stat_read(struct sroce_dev *sdev, enum sroce_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(sdev->stats, cpu)->v[s]);
	return sum;
}

/* ib_device_ops.alloc_hw_port_stats: the counter set of port 1. */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_stat_descs, SROCE_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* ib_device_ops.get_hw_stats: refresh every value; ib_core caches them. */
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int s;

	for (s = 0; s < SROCE_NUM_STATS; s++)
		stats->value[s] = sroce_stat_read(sdev, s);
	return SROCE_NUM_STATS;
}
