// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * report.c - how a half records its failure and its progress notes, shared
 * by sroce_verbs_test, sroce_ring_fuzz and sroce_cq_hold.
 */
#include <stdarg.h>
#include <stdio.h>

#include "verbs_test.h"

/* Record the first failure of a half; returns -1 for "return vt_fail(...)". */
int vt_fail(struct vt *t, const char *fmt, ...)
{
	va_list ap;

	if (t->reason[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(t->reason, sizeof(t->reason), fmt, ap);
	va_end(ap);
	return -1;
}

void vt_note(struct vt *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->opts->verbose)
		return;
	va_start(ap, fmt);
	printf("# %s: ", t->role == VT_CLIENT ? "client" : "server");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}
