/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mock_private.h - shared between the two halves of the mock kernel:
 * mock_uverbs.c (write() dispatch, context, PD) and mock_objects.c (CQ,
 * QP, MR, ring memory, the test API).
 */
#ifndef MOCK_PRIVATE_H
#define MOCK_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "mock_uverbs.h"

bool mock_is_fake_uverbs(int fd);
void *mock_response_of(const struct ib_uverbs_cmd_hdr *hdr);
unsigned int mock_command_count(uint32_t command);

/* Each returns 0 or the errno write() fails with, as uverbs_cmd.c would. */
int mock_create_cq(const struct ib_uverbs_cmd_hdr *hdr);
int mock_destroy_cq(const struct ib_uverbs_cmd_hdr *hdr);
int mock_resize_cq(const struct ib_uverbs_cmd_hdr *hdr);
int mock_req_notify_cq(const struct ib_uverbs_cmd_hdr *hdr);
int mock_create_qp(const struct ib_uverbs_cmd_hdr *hdr);
int mock_modify_qp(const struct ib_uverbs_cmd_hdr *hdr);
int mock_query_qp(const struct ib_uverbs_cmd_hdr *hdr);
int mock_destroy_qp(const struct ib_uverbs_cmd_hdr *hdr);
int mock_post_send(const struct ib_uverbs_cmd_hdr *hdr, size_t count);
int mock_reg_mr(const struct ib_uverbs_cmd_hdr *hdr);
int mock_dereg_mr(const struct ib_uverbs_cmd_hdr *hdr);
int mock_rereg_mr(const struct ib_uverbs_cmd_hdr *hdr);

#endif /* MOCK_PRIVATE_H */
