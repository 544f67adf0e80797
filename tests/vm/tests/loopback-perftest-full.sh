#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# full-only
# timeout: 2400
#
# Every perftest RC tool with -a (2 B .. 8 MiB; atomics 8 B) on one device,
# 50 iterations a size. check-full only: minutes under TCG.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
perftest_full loopback 50
