// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_hdr.c - build and parse RoCEv2 transport headers.
 *
 * Field layouts follow IBA vol. 1 section 9.2-9.5 and the RoCEv2 annex
 * (A17). Parsing trusts nothing: every length is checked against the
 * buffer before it is read, and a malformed packet is reported with an errno
 * the receive path turns into a drop counter.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include SROCE_UNALIGNED_H

#include "sroce_hdr.h"

#define BTH_SE		BIT(7)
#define BTH_MIGREQ	BIT(6)
#define BTH_PAD_SHIFT	4
#define BTH_PAD_MASK	0x3
#define BTH_TVER_MASK	0xf
#define BTH_FECN	BIT(7)
#define BTH_BECN	BIT(6)
#define BTH_ACKREQ	BIT(7)
#define QPN_MASK	0xffffff

static void put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static u32 get_be24(const u8 *p)
{
	return p[0] << 16 | p[1] << 8 | p[2];
}

static void sroce_bth_build(u8 *p, const struct sroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (bth->solicited ? BTH_SE : 0) | (bth->migreq ? BTH_MIGREQ : 0) |
	       (bth->pad & BTH_PAD_MASK) << BTH_PAD_SHIFT |
	       (bth->tver & BTH_TVER_MASK);
	put_unaligned_be16(bth->pkey, p + 2);
	p[4] = (bth->fecn ? BTH_FECN : 0) | (bth->becn ? BTH_BECN : 0);
	put_be24(p + 5, bth->dest_qpn);
	p[8] = bth->ack_req ? BTH_ACKREQ : 0;
	put_be24(p + 9, bth->psn);
}

static void sroce_bth_parse(const u8 *p, struct sroce_bth *bth)
{
	bth->opcode = p[0];
	bth->solicited = p[1] & BTH_SE;
	bth->migreq = p[1] & BTH_MIGREQ;
	bth->pad = (p[1] >> BTH_PAD_SHIFT) & BTH_PAD_MASK;
	bth->tver = p[1] & BTH_TVER_MASK;
	bth->pkey = get_unaligned_be16(p + 2);
	bth->fecn = p[4] & BTH_FECN;
	bth->becn = p[4] & BTH_BECN;
	bth->dest_qpn = get_be24(p + 5);
	bth->ack_req = p[8] & BTH_ACKREQ;
	bth->psn = get_be24(p + 9);
}

/*
 * One builder and one parser per extended header, indexed by
 * enum sroce_ext_hdr, so both directions walk the same table in wire order.
 */
typedef void (*sroce_ext_build_fn)(u8 *p, const struct sroce_hdrs *h);
typedef void (*sroce_ext_parse_fn)(const u8 *p, struct sroce_hdrs *h);

static void deth_build(u8 *p, const struct sroce_hdrs *h)
{
	put_unaligned_be32(h->deth.qkey, p);
	p[4] = 0;
	put_be24(p + 5, h->deth.src_qpn);
}

static void deth_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->deth.qkey = get_unaligned_be32(p);
	h->deth.src_qpn = get_be24(p + 5);
}

static void reth_build(u8 *p, const struct sroce_hdrs *h)
{
	put_unaligned_be64(h->reth.va, p);
	put_unaligned_be32(h->reth.rkey, p + 8);
	put_unaligned_be32(h->reth.dma_len, p + 12);
}

static void reth_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->reth.va = get_unaligned_be64(p);
	h->reth.rkey = get_unaligned_be32(p + 8);
	h->reth.dma_len = get_unaligned_be32(p + 12);
}

static void atmeth_build(u8 *p, const struct sroce_hdrs *h)
{
	put_unaligned_be64(h->atmeth.va, p);
	put_unaligned_be32(h->atmeth.rkey, p + 8);
	put_unaligned_be64(h->atmeth.swap_add, p + 12);
	put_unaligned_be64(h->atmeth.compare, p + 20);
}

static void atmeth_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->atmeth.va = get_unaligned_be64(p);
	h->atmeth.rkey = get_unaligned_be32(p + 8);
	h->atmeth.swap_add = get_unaligned_be64(p + 12);
	h->atmeth.compare = get_unaligned_be64(p + 20);
}

static void aeth_build(u8 *p, const struct sroce_hdrs *h)
{
	p[0] = h->aeth.syndrome;
	put_be24(p + 1, h->aeth.msn);
}

/* A reserved type or bit 7 names no ACK or NAK: nothing to act on. */
static bool sroce_aeth_reserved(u8 syndrome)
{
	return (syndrome & SROCE_AETH_RESERVED_BIT) ||
	       (syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_RESERVED;
}

static void aeth_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->aeth.syndrome = p[0];
	h->aeth.msn = get_be24(p + 1);
}

static void atmack_build(u8 *p, const struct sroce_hdrs *h)
{
	put_unaligned_be64(h->atmack_orig, p);
}

static void atmack_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->atmack_orig = get_unaligned_be64(p);
}

static void immdt_build(u8 *p, const struct sroce_hdrs *h)
{
	memcpy(p, &h->imm, sizeof(h->imm));
}

static void immdt_parse(const u8 *p, struct sroce_hdrs *h)
{
	memcpy(&h->imm, p, sizeof(h->imm));
}

static void ieth_build(u8 *p, const struct sroce_hdrs *h)
{
	put_unaligned_be32(h->ieth_rkey, p);
}

static void ieth_parse(const u8 *p, struct sroce_hdrs *h)
{
	h->ieth_rkey = get_unaligned_be32(p);
}

static const struct {
	sroce_ext_build_fn build;
	sroce_ext_parse_fn parse;
} sroce_ext_codec[SROCE_EXT_COUNT] = {
	[SROCE_EXT_DETH]	= { deth_build, deth_parse },
	[SROCE_EXT_RETH]	= { reth_build, reth_parse },
	[SROCE_EXT_ATMETH]	= { atmeth_build, atmeth_parse },
	[SROCE_EXT_AETH]	= { aeth_build, aeth_parse },
	[SROCE_EXT_ATMACK]	= { atmack_build, atmack_parse },
	[SROCE_EXT_IMMDT]	= { immdt_build, immdt_parse },
	[SROCE_EXT_IETH]	= { ieth_build, ieth_parse },
};

/**
 * sroce_hdrs_build - write the BTH and extended headers of @h
 * @buf: where the BTH goes
 * @len: room in @buf
 * @h: the packet; bth.pad is derived from payload_len, op is looked up
 *
 * Return: the header length written, -EINVAL for an opcode sroce does not
 * speak, -ENOSPC if @len is too small.
 */
int sroce_hdrs_build(void *buf, unsigned int len, struct sroce_hdrs *h)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(h->bth.opcode);
	u8 *p = buf;
	int i;

	if (!op)
		return -EINVAL;
	if (len < op->hdr_len)
		return -ENOSPC;

	h->op = op;
	h->bth.pad = sroce_pad_for(h->payload_len);
	sroce_bth_build(p, &h->bth);
	p += SROCE_BTH_BYTES;
	for (i = 0; i < SROCE_EXT_COUNT; i++) {
		if (!(op->flags & BIT(i)))
			continue;
		sroce_ext_codec[i].build(p, h);
		p += sroce_ext_hdr_offset(BIT(i), SROCE_EXT_COUNT);
	}
	return op->hdr_len;
}

/*
 * Payload and padding must agree with what the opcode allows: the pad count
 * brings the payload to a whole number of 4-byte words (IBA 9.2), so what
 * follows the headers is a multiple of four bytes and at least the pad.
 */
static int sroce_payload_check(struct sroce_hdrs *h, unsigned int len)
{
	unsigned int body = len - h->op->hdr_len - SROCE_ICRC_BYTES;

	if (h->bth.pad > body || body % 4)
		return -EBADMSG;
	h->payload_len = body - h->bth.pad;
	if (!(h->op->flags & SROCE_OPF_PAYLOAD) && body)
		return -EBADMSG;
	return 0;
}

/**
 * sroce_hdrs_parse - decode the headers of a received packet
 * @buf: the UDP payload, BTH first
 * @len: its length, ICRC included
 * @h: filled in; payload starts at @buf + h->op->hdr_len
 *
 * Return: 0; -EPROTONOSUPPORT for an unknown transport version; -EOPNOTSUPP
 * for an opcode sroce does not speak (@h->bth is valid, @h->op is NULL: an
 * RC responder answers it with a NAK); -EBADMSG for a packet shorter than
 * its headers, with inconsistent payload and padding, or with a reserved
 * AETH syndrome.
 */
int sroce_hdrs_parse(const void *buf, unsigned int len, struct sroce_hdrs *h)
{
	const u8 *p = buf;
	int i;

	if (len < SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return -EBADMSG;
	sroce_bth_parse(p, &h->bth);
	if (h->bth.tver != SROCE_BTH_TVER)
		return -EPROTONOSUPPORT;
	h->op = sroce_opcode_lookup(h->bth.opcode);
	if (!h->op)
		return -EOPNOTSUPP;
	if (len < h->op->hdr_len + SROCE_ICRC_BYTES)
		return -EBADMSG;

	p += SROCE_BTH_BYTES;
	for (i = 0; i < SROCE_EXT_COUNT; i++) {
		if (!(h->op->flags & BIT(i)))
			continue;
		sroce_ext_codec[i].parse(p, h);
		p += sroce_ext_hdr_offset(BIT(i), SROCE_EXT_COUNT);
	}
	if ((h->op->flags & SROCE_OPF_AETH) &&
	    sroce_aeth_reserved(h->aeth.syndrome))
		return -EBADMSG;
	return sroce_payload_check(h, len);
}
