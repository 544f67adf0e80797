#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hosts: 2
# full-only
# timeout: 3000
#
# Every perftest RC tool with -a (2 B .. 8 MiB; atomics 8 B) across the link,
# 20 iterations a size. check-full only.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
perftest_full two_hosts 20
