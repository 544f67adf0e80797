// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * open_device.c - drives libsroce through the public verbs API against
 * mock_uverbs.c: open, query device and port, PD alloc/free, close. Prints
 * one "step: ok|detail" line each and exits non-zero at the first failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

static int fail(const char *step, const char *detail)
{
	printf("%s: FAILED %s\n", step, detail);
	return 1;
}

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static int check_queries(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	if (ret)
		return fail("query_device_ex", strerror(ret));
	if (strcmp(attr.orig_attr.fw_ver, "1.2.3") || attr.orig_attr.max_qp != 64)
		return fail("query_device_ex", attr.orig_attr.fw_ver);
	printf("query_device_ex: ok fw_ver %s\n", attr.orig_attr.fw_ver);

	ret = ibv_query_port(ctx, 1, &port);
	if (ret)
		return fail("query_port", strerror(ret));
	if (port.state != IBV_PORT_ACTIVE || port.active_mtu != IBV_MTU_1024)
		return fail("query_port", "unexpected attributes");
	printf("query_port: ok\n");
	return 0;
}

static int check_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	int ret;

	if (!pd)
		return fail("alloc_pd", strerror(errno));
	if (pd->handle != 42 || pd->context != ctx)
		return fail("alloc_pd", "wrong handle or context");
	ret = ibv_dealloc_pd(pd);
	if (ret)
		return fail("dealloc_pd", strerror(ret));
	printf("alloc_pd/dealloc_pd: ok\n");
	return 0;
}

/* Verbs without an implementation yet must fail cleanly, not crash. */
static int check_unimplemented(struct ibv_context *ctx)
{
	struct ibv_srq_init_attr attr = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_srq *srq;

	if (!pd)
		return fail("alloc_pd", strerror(errno));
	srq = ibv_create_srq(pd, &attr);
	ibv_dealloc_pd(pd);
	if (srq)
		return fail("create_srq", "unexpectedly succeeded");
	printf("create_srq: ok refused (%s)\n", strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "sroce0";
	struct ibv_context *ctx = open_by_name(name);
	int ret;

	if (!ctx)
		return fail("open_device", strerror(errno));
	printf("open_device: ok\n");
	ret = check_queries(ctx) || check_pd(ctx) || check_unimplemented(ctx);
	if (ibv_close_device(ctx))
		return fail("close_device", strerror(errno));
	if (!ret)
		printf("close_device: ok\n");
	return ret;
}
