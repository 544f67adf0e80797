// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_pma.c - the performance-management agent (IBA 16.1).
 *
 * ib_core builds ports/<n>/counters/ only for a device with process_mad,
 * and fills each file by handing it a PerfMgt GET (ClassPortInfo,
 * PortCounters, PortCountersExtended) with no work completion. Those local
 * GETs are answered here from the counters sroce_stats keeps; every other
 * MAD, and any MAD that came in on the GSI QP, is passed back untouched
 * (IB_MAD_RESULT_SUCCESS without REPLY), so ib_mad hands it to its agents
 * exactly as when the device had no process_mad. Documentation/counters.md
 * says what each field counts.
 */
#include <linux/minmax.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "sroce.h"
#include "sroce_caps.h"
#include "sroce_pma.h"
#include "sroce_stats.h"

/* ClassPortInfo.RespTimeValue: 4.096 us * 2^18, about one second. */
#define SROCE_PMA_RESP_TIME		18

/* A counter of @max saturates there (IBA 16.1.3.5: it stops, never wraps). */
static u64 sroce_pma_sat(u64 v, u64 max)
{
	return min(v, max);
}

/* PortCounters: data in units of four octets; every field saturates. */
SROCE_VISIBLE_IF_KUNIT void sroce_pma_fill_counters(struct ib_pma_portcounters *pc,
						    const struct sroce_pma_counts *c)
{
	pc->port_rcv_errors = cpu_to_be16(sroce_pma_sat(c->rcv_errors, U16_MAX));
	pc->port_xmit_discards = cpu_to_be16(sroce_pma_sat(c->xmit_discards, U16_MAX));
	pc->link_downed_counter = sroce_pma_sat(c->link_downed, U8_MAX);
	pc->port_xmit_data = cpu_to_be32(sroce_pma_sat(c->xmit_bytes / 4, U32_MAX));
	pc->port_rcv_data = cpu_to_be32(sroce_pma_sat(c->rcv_bytes / 4, U32_MAX));
	pc->port_xmit_packets = cpu_to_be32(sroce_pma_sat(c->xmit_pkts, U32_MAX));
	pc->port_rcv_packets = cpu_to_be32(sroce_pma_sat(c->rcv_pkts, U32_MAX));
}

/*
 * Two sums read at different moments may cross: a unicast count is never
 * shown below zero.
 */
static u64 sroce_pma_ucast(u64 all, u64 mcast)
{
	return all > mcast ? all - mcast : 0;
}

/* PortCountersExtended: the same counts, 64 bits wide, plus the split. */
SROCE_VISIBLE_IF_KUNIT void sroce_pma_fill_counters_ext(struct ib_pma_portcounters_ext *pc,
							const struct sroce_pma_counts *c)
{
	pc->port_xmit_data = cpu_to_be64(c->xmit_bytes / 4);
	pc->port_rcv_data = cpu_to_be64(c->rcv_bytes / 4);
	pc->port_xmit_packets = cpu_to_be64(c->xmit_pkts);
	pc->port_rcv_packets = cpu_to_be64(c->rcv_pkts);
	pc->port_unicast_xmit_packets =
		cpu_to_be64(sroce_pma_ucast(c->xmit_pkts, c->mcast_xmit_pkts));
	pc->port_unicast_rcv_packets =
		cpu_to_be64(sroce_pma_ucast(c->rcv_pkts, c->mcast_rcv_pkts));
	pc->port_multicast_xmit_packets = cpu_to_be64(c->mcast_xmit_pkts);
	pc->port_multicast_rcv_packets = cpu_to_be64(c->mcast_rcv_pkts);
}

static void sroce_pma_read_counts(struct sroce_dev *sdev,
				  struct sroce_pma_counts *c)
{
	c->xmit_bytes = sroce_stat_read(sdev, SROCE_STAT_SENT_BYTES);
	c->rcv_bytes = sroce_stat_read(sdev, SROCE_STAT_RCVD_BYTES);
	c->xmit_pkts = sroce_stat_read(sdev, SROCE_STAT_SENT_PKTS);
	c->rcv_pkts = sroce_stat_read(sdev, SROCE_STAT_RCVD_PKTS);
	c->mcast_xmit_pkts = sroce_stat_read(sdev, SROCE_STAT_SENT_MCAST_PKTS);
	c->mcast_rcv_pkts = sroce_stat_read(sdev, SROCE_STAT_RCVD_MCAST_QP_PKTS);
	c->rcv_errors = sroce_stat_read(sdev, SROCE_STAT_ICRC_ERRORS) +
			sroce_stat_read(sdev, SROCE_STAT_RCVD_MALFORMED);
	c->xmit_discards = sroce_stat_read(sdev, SROCE_STAT_SEND_ERR);
	c->link_downed = sroce_stat_read(sdev, SROCE_STAT_LINK_DOWNED);
}

/* Extended counters, with the unicast/multicast split (IETF MIB ones). */
static void sroce_pma_class_port_info(struct ib_class_port_info *cpi)
{
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	ib_set_cpi_resp_time(cpi, SROCE_PMA_RESP_TIME);
}

/* Fill @out's data for a GET of @in; returns the MAD status. */
static u16 sroce_pma_get(struct sroce_dev *sdev, const struct ib_pma_mad *in,
			 struct ib_pma_mad *out)
{
	/* PortSelect sits at the same offset in both counter attributes. */
	u8 port = ((const struct ib_pma_portcounters *)in->data)->port_select;
	struct sroce_pma_counts c;

	if (in->mad_hdr.attr_id == IB_PMA_CLASS_PORT_INFO) {
		sroce_pma_class_port_info((struct ib_class_port_info *)out->data);
		return IB_MGMT_MAD_STATUS_SUCCESS;
	}
	if (in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS &&
	    in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS_EXT)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;

	/* Echo the request's PortSelect and CounterSelect (IBA 16.1.3.5). */
	memcpy(out->data, in->data, 4);
	if (port != SROCE_PORT_NUM)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	sroce_pma_read_counts(sdev, &c);
	if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS)
		sroce_pma_fill_counters((struct ib_pma_portcounters *)out->data, &c);
	else
		sroce_pma_fill_counters_ext((struct ib_pma_portcounters_ext *)out->data, &c);
	return IB_MGMT_MAD_STATUS_SUCCESS;
}

/* Ours to answer: a PerfMgt GET that ib_core made here, for our port. */
static bool sroce_pma_is_local_get(const struct ib_wc *in_wc, u32 port_num,
				   const struct ib_mad_hdr *hdr)
{
	return !in_wc && port_num == SROCE_PORT_NUM &&
	       hdr->base_version == IB_MGMT_BASE_VERSION &&
	       hdr->mgmt_class == IB_MGMT_CLASS_PERF_MGMT &&
	       hdr->class_version == 1 && hdr->method == IB_MGMT_METHOD_GET;
}

/*
 * ib_device_ops.process_mad.
 *
 * Context: process (sysfs) for the GETs answered; ib_mad also calls it for
 * every MAD the GSI QP receives, from its completion work.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with the reply in @out,
 * or IB_MAD_RESULT_SUCCESS: not ours, ib_mad goes on as without us.
 */
int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct ib_pma_mad *reply = (struct ib_pma_mad *)out;
	u16 status;

	if (!sroce_pma_is_local_get(in_wc, port_num, &in->mad_hdr))
		return IB_MAD_RESULT_SUCCESS;

	memset(out, 0, sizeof(*out));
	reply->mad_hdr = in->mad_hdr;
	status = sroce_pma_get(to_sdev(ibdev), (const struct ib_pma_mad *)in, reply);
	reply->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	reply->mad_hdr.status = cpu_to_be16(status);
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
