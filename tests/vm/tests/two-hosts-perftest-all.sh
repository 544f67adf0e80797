#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hosts: 2
# full-only
# timeout: 900
#
# Every perftest RC tool across the link in one boot: ib_{send,write,read}_{bw,lat}
# with -a (2 B .. 8 MiB), ib_atomic_{bw,lat} (8 B), 5 iterations a size; each
# run must print a numeric result row for every size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
perftest_all two_hosts 5
