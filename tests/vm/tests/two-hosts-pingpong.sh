#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
#
# ibv_rc_pingpong across the link (server host 0, client host 1), polling,
# with -c: 1 B, 64 B, 4 KiB, 64 KiB and 1 MiB messages between IPv4-mapped GIDs,
# then 64 B and 64 KiB between IPv6 (ULA) GIDs.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
pingpong_sizes two_hosts 20 "$PINGPONG_SIZES"
rdma_use_ipv6_gid
wait_peer_ipv6
pingpong_sizes two_hosts 20 "$PINGPONG_IPV6_SIZES"
