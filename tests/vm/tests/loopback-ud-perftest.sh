#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 420
#
# perftest over UD on one device: ib_send_bw -c UD (through the extended
# post-send API and ibv_wr_set_ud_addr) at 2 B and the path MTU, and
# ib_send_lat -c UD; each run must print its results row. 200 iterations,
# fewer than the receives the server posts up front, so no datagram can
# find its receive queue empty (UD has no flow control: it would be lost).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
for size in 2 1024; do
	perftest_loopback ib_send_bw bw -c UD -s "$size" -n 200
done
perftest_loopback ib_send_lat lat -c UD -s 2 -n 200
log_hw_counters
