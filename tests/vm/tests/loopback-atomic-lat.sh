#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# perftest ib_atomic_lat on one device (server and client in this guest, TCP over
# 127.0.0.1): RC ATOMIC latency for 8-byte atomics (their one size), 200 iterations;
# the run must print a results table with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
perftest_all_sizes loopback ib_atomic_lat
