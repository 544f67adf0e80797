/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_pma.h - the performance-management agent: PMA GETs answered from
 * the device's counters, so ib_core's ports/1/counters/ (and anything else
 * that asks through process_mad) sees them as on an RNIC.
 */
#ifndef SROCE_PMA_H
#define SROCE_PMA_H

#include <linux/types.h>

struct ib_device;
struct ib_grh;
struct ib_mad;
struct ib_wc;

/* The port's totals, as sroce_stats counts them (bytes, not 4-octet units). */
struct sroce_pma_counts {
	u64 xmit_bytes;
	u64 rcv_bytes;
	u64 xmit_pkts;
	u64 rcv_pkts;
	u64 mcast_xmit_pkts;
	u64 mcast_rcv_pkts;
	u64 rcv_errors;
	u64 xmit_discards;
	u64 link_downed;
};

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
struct ib_pma_portcounters;
struct ib_pma_portcounters_ext;

/* Static without the KUnit suites (SROCE_VISIBLE_IF_KUNIT). */
void sroce_pma_fill_counters(struct ib_pma_portcounters *pc,
			     const struct sroce_pma_counts *c);
void sroce_pma_fill_counters_ext(struct ib_pma_portcounters_ext *pc,
				 const struct sroce_pma_counts *c);
#endif

/* ib_device_ops */
int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

#endif /* SROCE_PMA_H */
