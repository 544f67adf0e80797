// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * target_util.c - helpers of the crafter's targets (target_util.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target_util.h"

void die(const char *what)
{
	fprintf(stderr, "%s: %s failed\n", target_name, what);
	exit(1);
}

struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

void print_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		die("ibv_query_qp");
	printf("state=%d\n", a.qp_state);
	fflush(stdout);
}
