// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mock_uverbs.c - LD_PRELOAD stand-in for the kernel's legacy write()
 * uverbs interface, for host tests only.
 *
 * Under fake-device.sh the uverbs node is /dev/null, so ioctl() fails with
 * ENOTTY and libibverbs falls back to write() commands. This library
 * intercepts those writes and answers the commands libsroce issues the way
 * sroce.ko would, so the provider's success paths run against the real
 * libibverbs. MOCK_UCTX_ABI overrides the abi_version returned in the
 * ucontext response. The data-path objects and the ring memory are in
 * mock_objects.c; tests drive both through mock_uverbs.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mock_private.h"

#define MOCK_PD_HANDLE 42
#define MOCK_FW_VER ((1ULL << 32) | (2ULL << 16) | 3)

typedef ssize_t (*write_fn)(int, const void *, size_t);

/* write() commands seen, by number (legacy numbers are below 64). */
static unsigned int command_counts[64];

unsigned int mock_command_count(uint32_t command)
{
	return command < 64 ? command_counts[command] : 0;
}

bool mock_is_fake_uverbs(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(1, 3);
}

/* Most legacy requests start with the user address of their response. */
void *mock_response_of(const struct ib_uverbs_cmd_hdr *hdr)
{
	uint64_t response;

	memcpy(&response, hdr + 1, sizeof(response));
	return (void *)(uintptr_t)response;
}

static int mock_get_context(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_get_context_resp core = { .num_comp_vectors = 1 };
	struct sroce_alloc_ucontext_resp drv = {
		.abi_version = SROCE_ABI_VERSION,
		.max_inline_data = 64,
		.page_shift = 12,
	};
	const char *abi = getenv("MOCK_UCTX_ABI");
	char *out = mock_response_of(hdr);

	if (hdr->out_words * 4u < sizeof(core) + sizeof(drv))
		return EINVAL;
	if (abi)
		drv.abi_version = strtoul(abi, NULL, 0);
	core.async_fd = eventfd(0, EFD_CLOEXEC);
	memcpy(out, &core, sizeof(core));
	memcpy(out + sizeof(core), &drv, sizeof(drv));
	return 0;
}

static int mock_query_device(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_query_device_resp resp = {
		.fw_ver = MOCK_FW_VER,
		.node_guid = 0x0100feffc9020000ULL,
		.max_qp = 64,
		.max_pd = 16,
		.phys_port_cnt = 1,
	};

	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

static int mock_query_port(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_query_port_resp resp = {
		.state = IBV_PORT_ACTIVE,
		.max_mtu = IBV_MTU_4096,
		.active_mtu = IBV_MTU_1024,
		.gid_tbl_len = 16,
		.link_layer = IBV_LINK_LAYER_ETHERNET,
	};

	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

static int mock_alloc_pd(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_alloc_pd_resp resp = { .pd_handle = MOCK_PD_HANDLE };

	memcpy(mock_response_of(hdr), &resp, sizeof(resp));
	return 0;
}

static int mock_dealloc_pd(const struct ib_uverbs_cmd_hdr *hdr)
{
	struct ib_uverbs_dealloc_pd req;

	memcpy(&req, hdr + 1, sizeof(req));
	return req.pd_handle == MOCK_PD_HANDLE ? 0 : EINVAL;
}

/* Returns 0 or the errno the kernel would have failed write() with. */
static int mock_command(const struct ib_uverbs_cmd_hdr *hdr, size_t count)
{
	if (hdr->command < 64)
		command_counts[hdr->command]++;
	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		return mock_get_context(hdr);
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
		return mock_query_device(hdr);
	case IB_USER_VERBS_CMD_QUERY_PORT:
		return mock_query_port(hdr);
	case IB_USER_VERBS_CMD_ALLOC_PD:
		return mock_alloc_pd(hdr);
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		return mock_dealloc_pd(hdr);
	case IB_USER_VERBS_CMD_CREATE_CQ:
		return mock_create_cq(hdr);
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		return mock_destroy_cq(hdr);
	case IB_USER_VERBS_CMD_RESIZE_CQ:
		return mock_resize_cq(hdr);
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		return mock_req_notify_cq(hdr);
	case IB_USER_VERBS_CMD_CREATE_QP:
		return mock_create_qp(hdr);
	case IB_USER_VERBS_CMD_MODIFY_QP:
		return mock_modify_qp(hdr);
	case IB_USER_VERBS_CMD_QUERY_QP:
		return mock_query_qp(hdr);
	case IB_USER_VERBS_CMD_DESTROY_QP:
		return mock_destroy_qp(hdr);
	case IB_USER_VERBS_CMD_POST_SEND:
		return mock_post_send(hdr, count);
	case IB_USER_VERBS_CMD_REG_MR:
		return mock_reg_mr(hdr);
	case IB_USER_VERBS_CMD_REREG_MR:
		return mock_rereg_mr(hdr);
	case IB_USER_VERBS_CMD_DEREG_MR:
		return mock_dereg_mr(hdr);
	default:
		/* Extended commands included: libibverbs then tries legacy. */
		return ENOSYS;
	}
}

ssize_t write(int fd, const void *buf, size_t count)
{
	static write_fn real_write;
	int err;

	if (!real_write)
		real_write = (write_fn)dlsym(RTLD_NEXT, "write");
	/* DEREG_MR is the shortest command sroce sends: one u32. */
	if (count < sizeof(struct ib_uverbs_cmd_hdr) + sizeof(uint32_t) ||
	    !mock_is_fake_uverbs(fd))
		return real_write(fd, buf, count);

	err = mock_command(buf, count);
	if (err) {
		errno = err;
		return -1;
	}
	return count;
}
