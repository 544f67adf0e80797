#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
#
# ibv_rc_pingpong across the link on CQ events (-e), with -c: 1 B, 64 B,
# 4 KiB, 64 KiB and 1 MiB messages.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
pingpong_sizes two_hosts 20 "$PINGPONG_SIZES" -e
