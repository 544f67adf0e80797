// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_icrc.c - the RoCEv2 invariant CRC (RoCEv2 annex A17.8.1).
 *
 * The ICRC is the CRC-32 of IEEE 802.3 (the one zlib computes) over the
 * packet from the IP header to the end of the payload, preceded by 8 bytes
 * of ones standing in for the InfiniBand LRH, with every field a router may
 * change replaced by ones: IPv4 TOS, TTL and header checksum; IPv6 traffic
 * class, flow label and hop limit; the UDP checksum; and the BTH byte that
 * holds FECN/BECN. It is sent least significant byte first.
 *
 * The work is split in begin/update/finish so the transmit and receive
 * paths can feed payload fragments where they already touch them.
 */
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "sroce_icrc.h"
#include "sroce_opcode.h"

#define IPV6_FLOW_BYTES	4	/* version, traffic class, flow label */

/* Largest IP + UDP + BTH prefix that is masked: IPv4 with options. */
#define SROCE_ICRC_MASKED_MAX	(60 + sizeof(struct udphdr) + SROCE_BTH_BYTES)

static const u8 sroce_icrc_lrh_ones[8] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* Length of the IP header, or 0 if @ip is not a header we can mask. */
static unsigned int sroce_icrc_ip_hdr_len(const u8 *ip, unsigned int len)
{
	unsigned int ihl;

	if (len < 1)
		return 0;
	switch (ip[0] >> 4) {
	case 4:
		ihl = (ip[0] & 0xf) * 4;
		return ihl >= sizeof(struct iphdr) ? ihl : 0;
	case 6:
		return sizeof(struct ipv6hdr);
	default:
		return 0;
	}
}

static void sroce_icrc_mask_ip(u8 *hdr)
{
	if (hdr[0] >> 4 == 4) {
		struct iphdr *iph = (struct iphdr *)hdr;

		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = (__force __sum16)0xffff;
	} else {
		/* Keep the version nibble, mask everything after it. */
		hdr[0] |= 0x0f;
		memset(hdr + 1, 0xff, IPV6_FLOW_BYTES - 1);
		((struct ipv6hdr *)hdr)->hop_limit = 0xff;
	}
}

/**
 * sroce_icrc_begin - start an ICRC over the masked headers
 * @ip: the IP header; IP, UDP and BTH headers must be contiguous
 * @len: bytes available at @ip
 * @crc: running state, to pass to sroce_icrc_update()
 *
 * Return: the number of bytes of @ip consumed (IP + UDP + BTH), or -EINVAL
 * if @ip is not an IPv4/IPv6 header followed by room for UDP and BTH.
 */
SROCE_VISIBLE_IF_KUNIT int sroce_icrc_begin(const void *ip, unsigned int len,
					    u32 *crc)
{
	unsigned int ip_len = sroce_icrc_ip_hdr_len(ip, len);
	unsigned int hdrs = ip_len + sizeof(struct udphdr) + SROCE_BTH_BYTES;
	u8 masked[SROCE_ICRC_MASKED_MAX];
	struct udphdr *udp;

	if (!ip_len || len < hdrs)
		return -EINVAL;

	memcpy(masked, ip, hdrs);
	sroce_icrc_mask_ip(masked);
	udp = (struct udphdr *)(masked + ip_len);
	udp->check = (__force __sum16)0xffff;
	masked[ip_len + sizeof(struct udphdr) + 4] = 0xff;	/* FECN, BECN, resv */

	*crc = crc32_le(~0U, sroce_icrc_lrh_ones, sizeof(sroce_icrc_lrh_ones));
	*crc = crc32_le(*crc, masked, hdrs);
	return hdrs;
}

SROCE_VISIBLE_IF_KUNIT u32 sroce_icrc_update(u32 crc, const void *data,
					     unsigned int len)
{
	return crc32_le(crc, data, len);
}

/* The ICRC value; store it with put_unaligned_le32(). */
SROCE_VISIBLE_IF_KUNIT u32 sroce_icrc_finish(u32 crc)
{
	return ~crc;
}

/**
 * sroce_icrc_compute - the ICRC of a contiguous packet
 * @ip: the IP header
 * @len: bytes from @ip to the end of the payload (ICRC excluded)
 * @icrc: the result
 *
 * Return: 0, or -EINVAL if the headers do not fit in @len.
 */
int sroce_icrc_compute(const void *ip, unsigned int len, u32 *icrc)
{
	u32 crc;
	int hdrs = sroce_icrc_begin(ip, len, &crc);

	if (hdrs < 0)
		return hdrs;
	crc = sroce_icrc_update(crc, (const u8 *)ip + hdrs, len - hdrs);
	*icrc = sroce_icrc_finish(crc);
	return 0;
}
