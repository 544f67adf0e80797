#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# full-only
# timeout: 900
#
# Every perftest RC tool on one device in one boot: ib_{send,write,read}_{bw,lat}
# with -a (2 B .. 8 MiB), ib_atomic_{bw,lat} (8 B), 5 iterations a size; each
# run must print a numeric result row for every size.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
perftest_all loopback 5
