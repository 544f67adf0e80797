#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hosts: 2
#
# perftest ib_send_bw across the link: server on host 0, client on host 1;
# RC SEND bandwidth for 2 B and 64 KiB; the client must print a results table
# with a row per size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
perftest_default two_hosts ib_send_bw bw
