/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_seg.h - several packets of one message carried as one loopback
 * packet (a segment).
 *
 * Between two QPs of this host a packet never leaves memory, and what it
 * costs is per packet far more than per byte: an skb, building and
 * parsing headers, finding the receiver, queueing. So a sender whose
 * packets go to a local QP (sroce_xmit_route()) may put a run of
 * consecutive packets of one message - SEND/WRITE requests, READ
 * responses - into one skb: the headers of the run's first packet, the
 * payload of all of them, and in skb->cb (struct sroce_seg) what the
 * others' headers need. Receiving splits it back into the packets it
 * stands for and hands each to the responder or completer as if it had
 * arrived alone, so the protocol is exactly that of separate packets:
 * PSNs, sequence checks, AckReq, NAKs, retransmission from any PSN.
 *
 * Only the last packet of a run may carry AckReq, SE, ImmDt or end the
 * message; every packet but the last carries exactly @pkt_len bytes, as
 * every wire packet of a message but its last carries the path MTU. A
 * segment never reaches the network.
 */
#ifndef SROCE_SEG_H
#define SROCE_SEG_H

#include <linux/skbuff.h>

#include "sroce_hdr.h"
#include "sroce_psn.h"

/* Payload one segment may carry: an skb of at most 16 KiB (order 2). */
#define SROCE_SEG_MAX_BYTES	(15 * 1024)
#define SROCE_SEG_MAX_PKTS	32

/**
 * struct sroce_seg - the packets after the first, in a local skb's cb
 * @pkts: packets in the segment; 0 or 1 for a plain packet (a fresh skb's
 *	cb is zeroed)
 * @pkt_len: payload of every packet but the last
 * @middle_opcode: opcode of the packets between the first and the last
 * @last_opcode: opcode of the last packet
 * @last_ack_req: AckReq of the last packet
 * @last_solicited: SE of the last packet
 * @last_imm: ImmDt of the last packet, if its opcode has one
 * @last_aeth: AETH of the last packet, if its opcode has one
 * @last_ieth_rkey: IETH of the last packet, if its opcode has one
 */
struct sroce_seg {
	u32 pkts;
	u32 pkt_len;
	u8 middle_opcode;
	u8 last_opcode;
	bool last_ack_req;
	bool last_solicited;
	__be32 last_imm;
	struct sroce_aeth last_aeth;
	u32 last_ieth_rkey;
};

static inline struct sroce_seg *sroce_seg_of(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_seg) > sizeof(skb->cb));
	return (struct sroce_seg *)skb->cb;
}

/* Packets of @mtu bytes one segment may carry. */
static inline u32 sroce_seg_max_pkts(u32 mtu)
{
	return clamp_t(u32, SROCE_SEG_MAX_BYTES / mtu, 1, SROCE_SEG_MAX_PKTS);
}

/*
 * Does @seg describe a run whose first packet's headers say @payload_len
 * bytes in all? Every packet but the last is full, the last is not empty
 * and not longer than the others, and the opcodes are ones sroce speaks.
 */
static inline bool sroce_seg_valid(const struct sroce_seg *seg, u32 payload_len)
{
	u64 before_last = (u64)(seg->pkts - 1) * seg->pkt_len;

	return seg->pkts >= 2 && seg->pkts <= SROCE_SEG_MAX_PKTS &&
	       seg->pkt_len && payload_len > before_last &&
	       payload_len - before_last <= seg->pkt_len &&
	       sroce_opcode_lookup(seg->middle_opcode) &&
	       sroce_opcode_lookup(seg->last_opcode);
}

/**
 * sroce_seg_pkt - the headers of packet @i of a segment
 * @first: headers of the segment's first packet, as parsed; its
 *	payload_len is that of the whole segment
 * @seg: the rest, valid (sroce_seg_valid())
 * @i: 0 .. @seg->pkts - 1
 * @h: filled with packet @i's headers (@h->op included)
 *
 * Return: offset of packet @i's payload in the segment's payload.
 */
static inline u32 sroce_seg_pkt(const struct sroce_hdrs *first,
				const struct sroce_seg *seg, u32 i,
				struct sroce_hdrs *h)
{
	bool last = i == seg->pkts - 1;
	u32 offset = i * seg->pkt_len;

	*h = *first;
	if (i) {
		h->bth.psn = sroce_psn_add(first->bth.psn, i);
		h->bth.opcode = last ? seg->last_opcode : seg->middle_opcode;
		h->op = sroce_opcode_lookup(h->bth.opcode);
	}
	h->bth.ack_req = last && seg->last_ack_req;
	h->bth.solicited = last && seg->last_solicited;
	if (last) {
		h->imm = seg->last_imm;
		h->aeth = seg->last_aeth;
		h->ieth_rkey = seg->last_ieth_rkey;
	}
	h->payload_len = last ? first->payload_len - offset : seg->pkt_len;
	h->bth.pad = sroce_pad_for(h->payload_len);
	return offset;
}

/* Bytes of one packet on the wire, from the BTH to the ICRC. */
static inline u32 sroce_seg_pkt_bytes(const struct sroce_hdrs *h)
{
	return h->op->hdr_len + h->payload_len + h->bth.pad + SROCE_ICRC_BYTES;
}

/**
 * sroce_seg_wire_bytes - bytes the packets of a segment would have taken
 * @first: headers of the segment's first packet, @first->op set and
 *	@first->payload_len that of the whole segment
 * @seg: the rest, valid
 *
 * Counters count a segment's packets as if they had travelled alone, so
 * they read the same with the loopback short-cut on or off. Only the last
 * packet can need a pad: the others carry the path MTU, a multiple of 4.
 */
static inline u32 sroce_seg_wire_bytes(const struct sroce_hdrs *first,
				       const struct sroce_seg *seg)
{
	u32 middle = sroce_opcode_lookup(seg->middle_opcode)->hdr_len;
	u32 last = sroce_opcode_lookup(seg->last_opcode)->hdr_len;

	return first->op->hdr_len + (seg->pkts - 2) * middle + last +
	       first->payload_len + sroce_pad_for(first->payload_len) +
	       seg->pkts * SROCE_ICRC_BYTES;
}

#endif /* SROCE_SEG_H */
