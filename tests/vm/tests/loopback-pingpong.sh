#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# ibv_rc_pingpong on one device, polling, with -c (data checked):
# 1 B, 64 B, 4 KiB, 64 KiB and 1 MiB messages (path MTU 1024) between IPv4-mapped
# GIDs, then 64 B and 64 KiB between IPv6 (ULA) GIDs.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
pingpong_sizes loopback 20 "$PINGPONG_SIZES"
rdma_use_ipv6_gid
pingpong_sizes loopback 20 "$PINGPONG_IPV6_SIZES"
