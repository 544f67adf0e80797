#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 600
#
# perftest ib_read_lat on one device (server and client in this guest, TCP over
# 127.0.0.1): RC READ latency for every size of -a (2 B .. 8 MiB), 5 iterations a size;
# the run must print a results table with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
perftest_all_sizes loopback ib_read_lat
