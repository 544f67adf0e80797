// SPDX-License-Identifier: GPL-2.0
/*
 * seeds.c - write the fuzzer's starting corpus into the directory given:
 * the UDP payloads of the captured rdma_rxe packets the KUnit suites use
 * (IPv4 + UDP headers cut off), and one packet built by sroce's own codec
 * for every opcode it speaks (UD and its DETH included), one file each.
 */
#include <stdio.h>
#include <string.h>

#include "sroce_hdr.h"
#include "sroce_opcode.h"

#define __maybe_unused __attribute__((unused))
#include "tests/rxe_capture_vectors.h"

#define IP_UDP_BYTES	(20 + 8)
#define SEED_PAYLOAD	6	/* not a multiple of four: the pad is used */

static int write_seed(const char *dir, const char *name, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

/* One packet per opcode the codec knows, fields non-zero, ICRC left zero. */
static int write_built_seeds(const char *dir)
{
	unsigned int opcode;

	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_opcode_info *op = sroce_opcode_lookup(opcode);
		struct sroce_hdrs h = { .bth = { .opcode = opcode, .pkey = 0xffff,
						 .dest_qpn = 0x11, .psn = 0x123 } };
		unsigned char buf[256] = { 0 };
		char name[32];
		int len;

		if (!op)
			continue;
		h.payload_len = (op->flags & SROCE_OPF_PAYLOAD) ? SEED_PAYLOAD : 0;
		h.deth.qkey = 0x80010000;
		h.deth.src_qpn = 1;
		h.reth.dma_len = SEED_PAYLOAD;
		len = sroce_hdrs_build(buf, sizeof(buf), &h);
		if (len < 0)
			return 1;
		len += h.payload_len + h.bth.pad + 4;
		snprintf(name, sizeof(name), "built_op%02x", opcode);
		if (write_seed(dir, name, buf, len))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(rxe_capture_vectors) / sizeof(rxe_capture_vectors[0]); i++) {
		const struct rxe_capture_vector *v = &rxe_capture_vectors[i];

		if (v->len > IP_UDP_BYTES &&
		    write_seed(argv[1], v->name, v->bytes + IP_UDP_BYTES, v->len - IP_UDP_BYTES))
			return 1;
	}
	return write_built_seeds(argv[1]);
}
