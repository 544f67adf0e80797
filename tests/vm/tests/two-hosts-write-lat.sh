#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 600
#
# perftest ib_write_lat across the link: server on host 0, client on host 1;
# RC WRITE latency at 2 B, 1 KiB, 64 KiB and 8 MiB (every size of -a in make check-full),
# 5 iterations a size;
# the client must print a results table with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
perftest_all_sizes two_hosts ib_write_lat
