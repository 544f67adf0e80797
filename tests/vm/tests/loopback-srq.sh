#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 420
#
# Shared receive queues on one device: ibv_srq_pingpong -c (received data
# checked), 4 QPs on each side receiving through one SRQ, at 1 B, 4 KiB and
# 64 KiB (multi-packet SENDs, each filling a WQE taken from the SRQ); then
# ib_send_bw --use-srq, whose server's QP receives through an SRQ, over RC
# and over UD (200 datagrams, fewer than the receives posted up front: UD
# has no flow control); perftest's results row must come.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
for size in 1 4096 65536; do
	srq_pingpong_loopback "$size" 50 -q 4 -r 64
done
perftest_loopback ib_send_bw bw --use-srq -s 65536 -n 200 -u "$PERF_QP_TIMEOUT"
perftest_loopback ib_send_bw bw -c UD --use-srq -s 1024 -n 200
log_hw_counters
