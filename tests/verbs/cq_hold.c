// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_cq_hold: create completion queues on demand and keep them until
 * stdin closes, so that a script can read what their rings cost (the
 * memory cgroup test, tests/vm/tests/ring-memcg.sh).
 *
 *   sroce_cq_hold DEV CQE COUNT
 *
 * Opens DEV and prints "ready"; at the first line read from stdin creates
 * COUNT CQs of CQE entries each and prints "created COUNT", or
 * "failed after N errno=E (text)" at the first ibv_create_cq that fails;
 * then keeps what it made until stdin closes. Every line is flushed at once.
 * Exits 0, or 1 if a CQ could not be created, 2 on a usage or device error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_test.h"

#define MAX_CQS	64

static char line[64];

static void say(const char *fmt, int a, int b)
{
	printf(fmt, a, b, strerror(b));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct vt_opts opts = { .ib_port = 1, .gid_index = -1 };
	struct ibv_cq *cqs[MAX_CQS];
	int cqe, count, made, err = 0;
	struct vt_dev dev;

	if (argc != 4 || (count = atoi(argv[3])) < 1 || count > MAX_CQS) {
		fprintf(stderr, "usage: sroce_cq_hold DEV CQE COUNT (COUNT 1..%d)\n", MAX_CQS);
		return 2;
	}
	cqe = atoi(argv[2]);
	opts.dev_name = argv[1];
	if (vt_dev_open(&dev, &opts))
		return 2;
	say("ready\n", 0, 0);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	for (made = 0; made < count; made++) {
		cqs[made] = ibv_create_cq(dev.ctx, cqe, NULL, NULL, 0);
		if (!cqs[made]) {
			err = errno;
			break;
		}
	}
	if (err)
		say("failed after %d errno=%d (%s)\n", made, err);
	else
		say("created %d\n", made, 0);
	while (fgets(line, sizeof(line), stdin))
		;
	while (made--)
		ibv_destroy_cq(cqs[made]);
	vt_dev_close(&dev);
	return err ? 1 : 0;
}
