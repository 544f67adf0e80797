// SPDX-License-Identifier: GPL-2.0
/*
 * hdr_fuzz.c - libFuzzer target for the RoCEv2 transport header codec
 * (sroce_hdr.c, sroce_opcode.c: the code that parses every packet from the
 * network, in softirq), built for user space against tests/fuzz/shim.
 *
 * The input is a UDP payload, BTH first, ICRC last, in a buffer of exactly
 * its size, so AddressSanitizer catches any read past it. Beyond "no
 * crash, no out-of-bounds read, no undefined behaviour" it checks what
 * the receive path relies on: an accepted packet's headers, payload, pad
 * and ICRC add up to its length, and building the parsed headers again
 * and parsing the result gives the same headers back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_hdr.h"
#include "sroce_opcode.h"

#define ICRC_BYTES	4

static void fail(const char *what)
{
	fprintf(stderr, "hdr_fuzz: %s\n", what);
	abort();
}

/* Build @h again in front of @body (payload, pad, ICRC) and parse that. */
static void check_round_trip(const struct sroce_hdrs *h, const uint8_t *body,
			     size_t body_len)
{
	struct sroce_hdrs built = *h, again;
	size_t len = h->op->hdr_len + body_len;
	uint8_t *buf = malloc(len);

	if (!buf)
		fail("malloc");
	if (sroce_hdrs_build(buf, h->op->hdr_len, &built) != (int)h->op->hdr_len)
		fail("a parsed header does not build");
	memcpy(buf + h->op->hdr_len, body, body_len);
	memset(&again, 0, sizeof(again));
	if (sroce_hdrs_parse(buf, len, &again))
		fail("a built header does not parse");
	if (memcmp(&again, h, sizeof(again)))
		fail("parse(build(parse(p))) differs from parse(p)");
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_hdrs h;
	uint8_t *copy;
	size_t body;

	if (size > 1 << 16)
		return 0;
	copy = malloc(size ?: 1);
	if (!copy)
		fail("malloc");
	memcpy(copy, data, size);
	/* Zeroed first: the round trip compares whole structs, padding too. */
	memset(&h, 0, sizeof(h));
	if (!sroce_hdrs_parse(copy, size, &h)) {
		if (!h.op)
			fail("accepted without an opcode row");
		/* In size_t, so that a wrapped payload length cannot add up. */
		if ((size_t)h.op->hdr_len + h.payload_len + h.bth.pad + ICRC_BYTES != size)
			fail("headers, payload, pad and ICRC do not add up to the length");
		body = size - h.op->hdr_len;
		if (h.bth.pad > 3)
			fail("pad over 3");
		check_round_trip(&h, copy + h.op->hdr_len, body);
	}
	free(copy);
	return 0;
}
