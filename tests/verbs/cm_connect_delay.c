// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * LD_PRELOAD shim for perftest -R clients: holds every rdma_connect() after
 * the process's first for SROCE_CM_CONNECT_DELAY_MS (default 1000) ms.
 *
 * perftest 4.5-0.17 (Debian 12) with -R connects twice to one port: a
 * control connection, then, straight after the parameter exchange over it,
 * the test's own QPs. Its server listens on the port again only after that
 * exchange, so a client quicker than the server's second rdma_listen() gets
 * a REJ (RC) or a SIDR REP "unsupported" (UD), and its retry then reuses the
 * cm_ids it has just destroyed and crashes (fixed in later perftest). The
 * race is the tool's, on any device; a TCG guest loses it now and then.
 * The first connect needs no hold: the harness starts the client only once
 * the server listens.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct rdma_cm_id;
struct rdma_conn_param;

typedef int connect_fn(struct rdma_cm_id *, struct rdma_conn_param *);

static unsigned int hold_ms(void)
{
	const char *s = getenv("SROCE_CM_CONNECT_DELAY_MS");

	return s ? (unsigned int)strtoul(s, NULL, 10) : 1000;
}

static void hold(unsigned int ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t))
		;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	static connect_fn *real_connect;
	static unsigned int calls;

	if (!real_connect)
		real_connect = (connect_fn *)dlsym(RTLD_NEXT, "rdma_connect");
	if (!real_connect) {
		fprintf(stderr, "cm_connect_delay: no rdma_connect to forward to\n");
		abort();
	}
	if (calls++)
		hold(hold_ms());
	return real_connect(id, param);
}
