#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# full-only
# timeout: 1800
#
# ibv_rc_pingpong on one device, every power of 4 from 1 B to 1 MiB, 200
# iterations, polling, on CQ events (-e) and with the new post-send API (-N).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
pingpong_sizes loopback 200 "$PINGPONG_FULL_SIZES"
pingpong_sizes loopback 200 "$PINGPONG_FULL_SIZES" -e
pingpong_sizes loopback 200 "$PINGPONG_FULL_SIZES" -N
