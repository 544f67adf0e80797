// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_check.c - validation of kernel-supplied data, kept free of
 * libibverbs so it can be unit tested on a host without RDMA.
 */
#include <string.h>

#include "sroce_check.h"

static const char *const sroce_uctx_verdict_names[] = {
	[SROCE_UCTX_OK] = "ok",
	[SROCE_UCTX_ABI_VERSION_MISMATCH] = "ABI version mismatch",
	[SROCE_UCTX_RESERVED_NOT_ZERO] = "reserved field not zero",
};

_Static_assert(sizeof(sroce_uctx_verdict_names) /
			       sizeof(sroce_uctx_verdict_names[0]) ==
		       SROCE_UCTX_VERDICT_COUNT,
	       "every verdict needs a name");

const char *sroce_uctx_verdict_name(enum sroce_uctx_verdict verdict)
{
	if ((unsigned int)verdict >= SROCE_UCTX_VERDICT_COUNT)
		return "unknown verdict";
	return sroce_uctx_verdict_names[verdict];
}

static bool sroce_all_zero(const __u64 *words, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (words[i])
			return false;
	return true;
}

/*
 * The version is an exact match, not a minimum: a different
 * SROCE_ABI_VERSION means an incompatible change (compatible growth uses
 * comp_mask). Unknown comp_mask bits are therefore ignored on purpose: they
 * announce optional fields this provider does not know and need not use.
 * Reserved fields must be zero so a future kernel can give them a meaning
 * without an old provider silently misreading them.
 */
enum sroce_uctx_verdict
sroce_check_ucontext_resp(const struct sroce_alloc_ucontext_resp *resp)
{
	if (resp->abi_version != SROCE_ABI_VERSION)
		return SROCE_UCTX_ABI_VERSION_MISMATCH;
	if (!sroce_all_zero(resp->reserved,
			    sizeof(resp->reserved) / sizeof(resp->reserved[0])))
		return SROCE_UCTX_RESERVED_NOT_ZERO;
	return SROCE_UCTX_OK;
}

/*
 * A strict prefix test: libibverbs' name match is an fnmatch() pattern
 * that also accepts the prefix anywhere after an 'N', so the provider
 * re-checks the start of the name itself.
 */
bool sroce_device_name_matches(const char *ibdev_name)
{
	size_t len = strlen(SROCE_DEVICE_NAME_PREFIX);

	return strncmp(ibdev_name, SROCE_DEVICE_NAME_PREFIX, len) == 0;
}
