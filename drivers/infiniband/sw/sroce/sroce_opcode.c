// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_opcode.c - the opcode table.
 *
 * Rows exist for RC, UC and UD opcodes; an opcode without a row is not
 * spoken by sroce and its packets are dropped. UC reuses the RC rows that the
 * IBA allows on UC (sends and writes); UD has only SEND ONLY [with IMM].
 */
#include <linux/bits.h>
#include <linux/kernel.h>

#include "sroce_opcode.h"

static const u8 sroce_ext_hdr_bytes[SROCE_EXT_COUNT] = {
	[SROCE_EXT_DETH]	= SROCE_DETH_BYTES,
	[SROCE_EXT_RETH]	= SROCE_RETH_BYTES,
	[SROCE_EXT_ATMETH]	= SROCE_ATMETH_BYTES,
	[SROCE_EXT_AETH]	= SROCE_AETH_BYTES,
	[SROCE_EXT_ATMACK]	= SROCE_ATMACK_BYTES,
	[SROCE_EXT_IMMDT]	= SROCE_IMMDT_BYTES,
	[SROCE_EXT_IETH]	= SROCE_IETH_BYTES,
};

#define SEND_REQ	(SROCE_OPF_REQUEST | SROCE_OPF_SEND | SROCE_OPF_PAYLOAD)
#define WRITE_REQ	(SROCE_OPF_REQUEST | SROCE_OPF_WRITE | SROCE_OPF_PAYLOAD)
#define READ_RESP	(SROCE_OPF_RESPONSE | SROCE_OPF_READ | SROCE_OPF_PAYLOAD)
#define ATOMIC_REQ	(SROCE_OPF_REQUEST | SROCE_OPF_ATOMIC | SROCE_OPF_ATMETH | \
			 SROCE_OPF_ONLY)

/* Header length as a constant expression, so the table below is const. */
#define EXT_LEN(f, hdr, bytes)	(((f) & BIT(hdr)) ? (bytes) : 0)
#define HDR_LEN(f)	(SROCE_BTH_BYTES +					\
			 EXT_LEN(f, SROCE_EXT_DETH, SROCE_DETH_BYTES) +		\
			 EXT_LEN(f, SROCE_EXT_RETH, SROCE_RETH_BYTES) +		\
			 EXT_LEN(f, SROCE_EXT_ATMETH, SROCE_ATMETH_BYTES) +	\
			 EXT_LEN(f, SROCE_EXT_AETH, SROCE_AETH_BYTES) +		\
			 EXT_LEN(f, SROCE_EXT_ATMACK, SROCE_ATMACK_BYTES) +	\
			 EXT_LEN(f, SROCE_EXT_IMMDT, SROCE_IMMDT_BYTES) +	\
			 EXT_LEN(f, SROCE_EXT_IETH, SROCE_IETH_BYTES))

#define OP(_opcode, _name, _flags) \
	[_opcode] = { .name = _name, .flags = (_flags), .hdr_len = HDR_LEN(_flags) }
/* Sends and writes exist on RC and UC alike. */
#define OP_RC_UC(_op, _name, _flags) \
	OP(SROCE_TRANSPORT_RC | (_op), _name, _flags), \
	OP(SROCE_TRANSPORT_UC | (_op), _name, _flags)
#define OP_RC(_op, _name, _flags) OP(SROCE_TRANSPORT_RC | (_op), _name, _flags)
#define OP_UD(_op, _name, _flags) OP(SROCE_TRANSPORT_UD | (_op), _name, _flags)

static const struct sroce_opcode_info sroce_opcodes[256] = {
	OP_RC_UC(SROCE_OP_SEND_FIRST, "SEND_FIRST", SEND_REQ | SROCE_OPF_FIRST),
	OP_RC_UC(SROCE_OP_SEND_MIDDLE, "SEND_MIDDLE", SEND_REQ | SROCE_OPF_MIDDLE),
	OP_RC_UC(SROCE_OP_SEND_LAST, "SEND_LAST", SEND_REQ | SROCE_OPF_LAST),
	OP_RC_UC(SROCE_OP_SEND_LAST_IMM, "SEND_LAST_WITH_IMMEDIATE",
		 SEND_REQ | SROCE_OPF_LAST | SROCE_OPF_IMMDT),
	OP_RC_UC(SROCE_OP_SEND_ONLY, "SEND_ONLY", SEND_REQ | SROCE_OPF_ONLY),
	OP_RC_UC(SROCE_OP_SEND_ONLY_IMM, "SEND_ONLY_WITH_IMMEDIATE",
		 SEND_REQ | SROCE_OPF_ONLY | SROCE_OPF_IMMDT),
	OP_RC_UC(SROCE_OP_WRITE_FIRST, "RDMA_WRITE_FIRST",
		 WRITE_REQ | SROCE_OPF_FIRST | SROCE_OPF_RETH),
	OP_RC_UC(SROCE_OP_WRITE_MIDDLE, "RDMA_WRITE_MIDDLE",
		 WRITE_REQ | SROCE_OPF_MIDDLE),
	OP_RC_UC(SROCE_OP_WRITE_LAST, "RDMA_WRITE_LAST", WRITE_REQ | SROCE_OPF_LAST),
	/* Consumes a receive WQE: SEND semantics at the responder. */
	OP_RC_UC(SROCE_OP_WRITE_LAST_IMM, "RDMA_WRITE_LAST_WITH_IMMEDIATE",
		 WRITE_REQ | SROCE_OPF_LAST | SROCE_OPF_IMMDT | SROCE_OPF_SEND),
	OP_RC_UC(SROCE_OP_WRITE_ONLY, "RDMA_WRITE_ONLY",
		 WRITE_REQ | SROCE_OPF_ONLY | SROCE_OPF_RETH),
	OP_RC_UC(SROCE_OP_WRITE_ONLY_IMM, "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		 WRITE_REQ | SROCE_OPF_ONLY | SROCE_OPF_RETH | SROCE_OPF_IMMDT |
		 SROCE_OPF_SEND),
	OP_RC(SROCE_OP_READ_REQUEST, "RDMA_READ_REQUEST",
	      SROCE_OPF_REQUEST | SROCE_OPF_READ | SROCE_OPF_ONLY | SROCE_OPF_RETH),
	OP_RC(SROCE_OP_READ_RESPONSE_FIRST, "RDMA_READ_RESPONSE_FIRST",
	      READ_RESP | SROCE_OPF_FIRST | SROCE_OPF_AETH),
	OP_RC(SROCE_OP_READ_RESPONSE_MIDDLE, "RDMA_READ_RESPONSE_MIDDLE",
	      READ_RESP | SROCE_OPF_MIDDLE),
	OP_RC(SROCE_OP_READ_RESPONSE_LAST, "RDMA_READ_RESPONSE_LAST",
	      READ_RESP | SROCE_OPF_LAST | SROCE_OPF_AETH),
	OP_RC(SROCE_OP_READ_RESPONSE_ONLY, "RDMA_READ_RESPONSE_ONLY",
	      READ_RESP | SROCE_OPF_ONLY | SROCE_OPF_AETH),
	OP_RC(SROCE_OP_ACKNOWLEDGE, "ACKNOWLEDGE",
	      SROCE_OPF_RESPONSE | SROCE_OPF_ACK | SROCE_OPF_ONLY | SROCE_OPF_AETH),
	OP_RC(SROCE_OP_ATOMIC_ACKNOWLEDGE, "ATOMIC_ACKNOWLEDGE",
	      SROCE_OPF_RESPONSE | SROCE_OPF_ATOMIC | SROCE_OPF_ONLY |
	      SROCE_OPF_AETH | SROCE_OPF_ATMACK),
	OP_RC(SROCE_OP_COMPARE_SWAP, "COMPARE_SWAP", ATOMIC_REQ),
	OP_RC(SROCE_OP_FETCH_ADD, "FETCH_ADD", ATOMIC_REQ),
	OP_RC(SROCE_OP_SEND_LAST_INV, "SEND_LAST_WITH_INVALIDATE",
	      SEND_REQ | SROCE_OPF_LAST | SROCE_OPF_IETH),
	OP_RC(SROCE_OP_SEND_ONLY_INV, "SEND_ONLY_WITH_INVALIDATE",
	      SEND_REQ | SROCE_OPF_ONLY | SROCE_OPF_IETH),
	OP_UD(SROCE_OP_SEND_ONLY, "UD_SEND_ONLY",
	      SEND_REQ | SROCE_OPF_ONLY | SROCE_OPF_DETH),
	OP_UD(SROCE_OP_SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE",
	      SEND_REQ | SROCE_OPF_ONLY | SROCE_OPF_DETH | SROCE_OPF_IMMDT),
};

/**
 * sroce_ext_hdr_offset - where an extended header starts after the BTH
 * @flags: the opcode's flags
 * @hdr: the header; SROCE_EXT_COUNT gives the total extended header length
 *
 * Return: the byte offset from the end of the BTH.
 */
unsigned int sroce_ext_hdr_offset(u32 flags, enum sroce_ext_hdr hdr)
{
	unsigned int off = 0;
	int i;

	for (i = 0; i < hdr; i++)
		if (flags & BIT(i))
			off += sroce_ext_hdr_bytes[i];
	return off;
}

/**
 * sroce_opcode_lookup - the table row of an opcode
 * @opcode: the BTH opcode byte
 *
 * Return: the row, or NULL for an opcode sroce does not speak.
 */
const struct sroce_opcode_info *sroce_opcode_lookup(u8 opcode)
{
	return sroce_opcodes[opcode].name ? &sroce_opcodes[opcode] : NULL;
}
