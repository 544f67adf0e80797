// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests for sroce_check.c: what the provider accepts from the kernel.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sroce_check.h"
#include "unit.h"

static struct sroce_alloc_ucontext_resp good_resp(void)
{
	struct sroce_alloc_ucontext_resp resp;

	memset(&resp, 0, sizeof(resp));
	resp.abi_version = SROCE_ABI_VERSION;
	resp.max_inline_data = 64;
	resp.page_shift = 12;
	return resp;
}

static void uctx_resp_layout_is_fixed_width(struct unit_case_state *t)
{
	/* The provider copies this struct out of a kernel buffer as is. */
	EXPECT(t, sizeof(struct sroce_alloc_ucontext_resp) == 32);
	EXPECT(t, offsetof(struct sroce_alloc_ucontext_resp, comp_mask) == 4);
	EXPECT(t, offsetof(struct sroce_alloc_ucontext_resp,
			   max_inline_data) == 8);
	EXPECT(t, offsetof(struct sroce_alloc_ucontext_resp, page_shift) == 12);
	EXPECT(t, offsetof(struct sroce_alloc_ucontext_resp, reserved) == 16);
}

static void uctx_accepts_current_abi_version(struct unit_case_state *t)
{
	struct sroce_alloc_ucontext_resp resp = good_resp();

	EXPECT(t, sroce_check_ucontext_resp(&resp) == SROCE_UCTX_OK);
}

static void uctx_rejects_every_other_abi_version(struct unit_case_state *t)
{
	const uint32_t versions[] = { 0, SROCE_ABI_VERSION - 1,
				      SROCE_ABI_VERSION + 1, UINT32_MAX };
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct sroce_alloc_ucontext_resp resp = good_resp();

		if (versions[i] == SROCE_ABI_VERSION)
			continue;
		resp.abi_version = versions[i];
		EXPECT(t, sroce_check_ucontext_resp(&resp) ==
				  SROCE_UCTX_ABI_VERSION_MISMATCH);
	}
}

static void uctx_rejects_any_nonzero_reserved_word(struct unit_case_state *t)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		struct sroce_alloc_ucontext_resp resp = good_resp();

		resp.reserved[i] = 1ULL << 63;
		EXPECT(t, sroce_check_ucontext_resp(&resp) ==
				  SROCE_UCTX_RESERVED_NOT_ZERO);
	}
}

static void uctx_ignores_unknown_comp_mask_bits(struct unit_case_state *t)
{
	struct sroce_alloc_ucontext_resp resp = good_resp();

	resp.comp_mask = UINT32_MAX;
	EXPECT(t, sroce_check_ucontext_resp(&resp) == SROCE_UCTX_OK);
}

static void uctx_reports_version_before_reserved(struct unit_case_state *t)
{
	struct sroce_alloc_ucontext_resp resp = good_resp();

	/* Another ABI may use "reserved"; the version is the real problem. */
	resp.abi_version = SROCE_ABI_VERSION + 1;
	resp.reserved[1] = 7;
	EXPECT(t, sroce_check_ucontext_resp(&resp) ==
			  SROCE_UCTX_ABI_VERSION_MISMATCH);
}

static void uctx_every_verdict_has_a_distinct_name(struct unit_case_state *t)
{
	int i, j;

	for (i = 0; i < SROCE_UCTX_VERDICT_COUNT; i++) {
		EXPECT(t, sroce_uctx_verdict_name(i) != NULL);
		for (j = 0; j < i; j++)
			EXPECT(t, strcmp(sroce_uctx_verdict_name(i),
					 sroce_uctx_verdict_name(j)) != 0);
	}
	EXPECT(t, strcmp(sroce_uctx_verdict_name(SROCE_UCTX_VERDICT_COUNT),
			 "unknown verdict") == 0);
}

static void name_match_accepts_sroce_devices(struct unit_case_state *t)
{
	EXPECT(t, sroce_device_name_matches("sroce0"));
	EXPECT(t, sroce_device_name_matches("sroce17"));
	EXPECT(t, sroce_device_name_matches("sroce_lab"));
}

static void name_match_rejects_other_devices(struct unit_case_state *t)
{
	EXPECT(t, !sroce_device_name_matches(""));
	EXPECT(t, !sroce_device_name_matches("sroc"));
	EXPECT(t, !sroce_device_name_matches("rxe0"));
	EXPECT(t, !sroce_device_name_matches("Sroce0"));
	/* libibverbs' fnmatch pattern would accept these two. */
	EXPECT(t, !sroce_device_name_matches("Nsroce0"));
	EXPECT(t, !sroce_device_name_matches("mlxNsroce0"));
}

static const struct unit_case cases[] = {
	UNIT_CASE(uctx_resp_layout_is_fixed_width),
	UNIT_CASE(uctx_accepts_current_abi_version),
	UNIT_CASE(uctx_rejects_every_other_abi_version),
	UNIT_CASE(uctx_rejects_any_nonzero_reserved_word),
	UNIT_CASE(uctx_ignores_unknown_comp_mask_bits),
	UNIT_CASE(uctx_reports_version_before_reserved),
	UNIT_CASE(uctx_every_verdict_has_a_distinct_name),
	UNIT_CASE(name_match_accepts_sroce_devices),
	UNIT_CASE(name_match_rejects_other_devices),
};

UNIT_MAIN(cases)
