/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * target_util.h - what the crafter's targets (rc_target.c, ud_target.c)
 * share: they print a line and exit on any setup failure.
 */
#ifndef TARGET_UTIL_H
#define TARGET_UTIL_H

#include <infiniband/verbs.h>

/* The program's name in failure messages; each target sets it. */
extern const char *target_name;

/* "<target_name>: <what> failed" on stderr, exit status 1. */
void die(const char *what) __attribute__((noreturn));

/* The device called name, opened, or NULL. */
struct ibv_context *open_device(const char *name);

/* "state=N" (enum ibv_qp_state) on stdout, flushed. */
void print_qp_state(struct ibv_qp *qp);

#endif /* TARGET_UTIL_H */
