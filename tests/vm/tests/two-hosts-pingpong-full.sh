#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# full-only
# timeout: 2400
#
# ibv_rc_pingpong across the link, every power of 4 from 1 B to 1 MiB,
# 100 iterations, polling, on CQ events (-e) and with the new post-send API (-N).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
pingpong_sizes two_hosts 100 "$PINGPONG_FULL_SIZES"
pingpong_sizes two_hosts 100 "$PINGPONG_FULL_SIZES" -e
pingpong_sizes two_hosts 100 "$PINGPONG_FULL_SIZES" -N
