#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
#
# perftest ib_atomic_bw across the link: server on host 0, client on host 1;
# RC ATOMIC bandwidth for 8-byte atomics (their one size), 200 iterations;
# the client must print a results table with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
perftest_all_sizes two_hosts ib_atomic_bw
