/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_hdr.h - the RoCEv2 transport header codec.
 *
 * Packets are described by struct sroce_hdrs in host byte order; the codec
 * turns that into wire bytes and back, driven by the opcode table. The
 * buffer handed to either side starts at the BTH (the UDP payload) and, for
 * parsing, runs to the end of the ICRC.
 */
#ifndef SROCE_HDR_H
#define SROCE_HDR_H

#include <linux/types.h>

#include "sroce_opcode.h"

#define SROCE_ROCEV2_UDP_PORT	4791
#define SROCE_BTH_TVER		0

struct sroce_bth {
	u8 opcode;
	bool solicited;		/* SE */
	bool migreq;		/* M */
	u8 pad;			/* bytes of padding before the ICRC, 0..3 */
	u8 tver;
	u16 pkey;
	bool fecn;
	bool becn;
	u32 dest_qpn;		/* 24 bits */
	bool ack_req;		/* A */
	u32 psn;		/* 24 bits */
};

struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 dma_len;
};

struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

/*
 * AETH syndromes (IBA 9.7.5.1.5, table 43): bit 7 reserved, type in bits
 * 6..5 (00 ACK, 01 RNR NAK, 10 reserved, 11 NAK), value in bits 4..0.
 */
#define SROCE_AETH_ACK			0x00
#define SROCE_AETH_RNR_NAK		0x20
#define SROCE_AETH_RESERVED		0x40
#define SROCE_AETH_NAK			0x60
#define SROCE_AETH_TYPE_MASK		0x60
#define SROCE_AETH_RESERVED_BIT		0x80
#define SROCE_AETH_VALUE_MASK		0x1f
#define SROCE_AETH_CREDITS_INVALID	0x1f
#define SROCE_NAK_PSN_SEQ_ERROR		0x00
#define SROCE_NAK_INVALID_REQUEST	0x01
#define SROCE_NAK_REMOTE_ACCESS		0x02
#define SROCE_NAK_REMOTE_OP_ERROR	0x03

struct sroce_aeth {
	u8 syndrome;
	u32 msn;		/* 24 bits */
};

struct sroce_deth {
	u32 qkey;
	u32 src_qpn;		/* 24 bits */
};

/**
 * struct sroce_hdrs - every header a packet can carry, decoded
 * @bth: base transport header
 * @op: opcode table row of @bth.opcode (set by parse; build looks it up)
 * @payload_len: payload bytes, excluding pad and ICRC
 *
 * Only the extended headers @op names are meaningful.
 */
struct sroce_hdrs {
	struct sroce_bth bth;
	const struct sroce_opcode_info *op;
	struct sroce_deth deth;
	struct sroce_reth reth;
	struct sroce_atmeth atmeth;
	struct sroce_aeth aeth;
	u64 atmack_orig;
	__be32 imm;		/* opaque to the transport: kept in wire order */
	u32 ieth_rkey;
	u32 payload_len;
};

/* Padding that brings a payload to a multiple of four bytes. */
static inline u8 sroce_pad_for(u32 payload_len)
{
	return -payload_len & 3;
}

int sroce_hdrs_parse(const void *buf, unsigned int len, struct sroce_hdrs *h);
int sroce_hdrs_build(void *buf, unsigned int len, struct sroce_hdrs *h);

#endif /* SROCE_HDR_H */
