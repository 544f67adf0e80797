/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_opcode.h - what each IBA transport opcode carries.
 *
 * One table (sroce_opcode.c) describes every opcode sroce speaks: which
 * extended headers follow the BTH, whether it carries payload, and where it
 * sits in a message. The codec, the requester and the responder all read
 * this table instead of switching on opcodes.
 */
#ifndef SROCE_OPCODE_H
#define SROCE_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>

/* Header sizes in bytes (IBA vol. 1, chapter 9). */
#define SROCE_BTH_BYTES		12
#define SROCE_RDETH_BYTES	4
#define SROCE_DETH_BYTES	8
#define SROCE_RETH_BYTES	16
#define SROCE_ATMETH_BYTES	28
#define SROCE_AETH_BYTES	4
#define SROCE_ATMACK_BYTES	8
#define SROCE_IMMDT_BYTES	4
#define SROCE_IETH_BYTES	4
#define SROCE_ICRC_BYTES	4

/*
 * Extended headers, in the order they follow the BTH on the wire; a packet
 * carries the subset its opcode names.
 */
enum sroce_ext_hdr {
	SROCE_EXT_DETH,
	SROCE_EXT_RETH,
	SROCE_EXT_ATMETH,
	SROCE_EXT_AETH,
	SROCE_EXT_ATMACK,
	SROCE_EXT_IMMDT,
	SROCE_EXT_IETH,
	SROCE_EXT_COUNT,
};

enum sroce_opcode_flags {
	SROCE_OPF_DETH		= BIT(SROCE_EXT_DETH),
	SROCE_OPF_RETH		= BIT(SROCE_EXT_RETH),
	SROCE_OPF_ATMETH	= BIT(SROCE_EXT_ATMETH),
	SROCE_OPF_AETH		= BIT(SROCE_EXT_AETH),
	SROCE_OPF_ATMACK	= BIT(SROCE_EXT_ATMACK),
	SROCE_OPF_IMMDT		= BIT(SROCE_EXT_IMMDT),
	SROCE_OPF_IETH		= BIT(SROCE_EXT_IETH),
	SROCE_OPF_EXT_MASK	= BIT(SROCE_EXT_COUNT) - 1,

	SROCE_OPF_PAYLOAD	= BIT(8),
	SROCE_OPF_REQUEST	= BIT(9),	/* requester -> responder */
	SROCE_OPF_RESPONSE	= BIT(10),	/* responder -> requester */
	SROCE_OPF_FIRST		= BIT(11),	/* first packet of a message */
	SROCE_OPF_MIDDLE	= BIT(12),
	SROCE_OPF_LAST		= BIT(13),
	SROCE_OPF_ONLY		= SROCE_OPF_FIRST | SROCE_OPF_LAST,
	SROCE_OPF_SEND		= BIT(14),	/* consumes a receive WQE */
	SROCE_OPF_WRITE		= BIT(15),
	SROCE_OPF_READ		= BIT(16),
	SROCE_OPF_ATOMIC	= BIT(17),
	SROCE_OPF_ACK		= BIT(18),
};

/* Transport service, the top three bits of the opcode. */
enum sroce_transport {
	SROCE_TRANSPORT_RC = 0x00,
	SROCE_TRANSPORT_UC = 0x20,
	SROCE_TRANSPORT_RD = 0x40,
	SROCE_TRANSPORT_UD = 0x60,
};

#define SROCE_TRANSPORT_MASK	0xe0

/* Opcode values within a transport (the low five bits). */
enum sroce_opcode {
	SROCE_OP_SEND_FIRST			= 0x00,
	SROCE_OP_SEND_MIDDLE			= 0x01,
	SROCE_OP_SEND_LAST			= 0x02,
	SROCE_OP_SEND_LAST_IMM			= 0x03,
	SROCE_OP_SEND_ONLY			= 0x04,
	SROCE_OP_SEND_ONLY_IMM			= 0x05,
	SROCE_OP_WRITE_FIRST			= 0x06,
	SROCE_OP_WRITE_MIDDLE			= 0x07,
	SROCE_OP_WRITE_LAST			= 0x08,
	SROCE_OP_WRITE_LAST_IMM			= 0x09,
	SROCE_OP_WRITE_ONLY			= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM			= 0x0b,
	SROCE_OP_READ_REQUEST			= 0x0c,
	SROCE_OP_READ_RESPONSE_FIRST		= 0x0d,
	SROCE_OP_READ_RESPONSE_MIDDLE		= 0x0e,
	SROCE_OP_READ_RESPONSE_LAST		= 0x0f,
	SROCE_OP_READ_RESPONSE_ONLY		= 0x10,
	SROCE_OP_ACKNOWLEDGE			= 0x11,
	SROCE_OP_ATOMIC_ACKNOWLEDGE		= 0x12,
	SROCE_OP_COMPARE_SWAP			= 0x13,
	SROCE_OP_FETCH_ADD			= 0x14,
	SROCE_OP_SEND_LAST_INV			= 0x16,
	SROCE_OP_SEND_ONLY_INV			= 0x17,
};

/**
 * struct sroce_opcode_info - one row of the opcode table
 * @name: IBA name, for logs and debugfs
 * @flags: SROCE_OPF_* bits
 * @hdr_len: BTH plus every extended header, in bytes
 */
struct sroce_opcode_info {
	const char *name;
	u32 flags;
	u8 hdr_len;
};

const struct sroce_opcode_info *sroce_opcode_lookup(u8 opcode);
unsigned int sroce_ext_hdr_offset(u32 flags, enum sroce_ext_hdr hdr);

#endif /* SROCE_OPCODE_H */
