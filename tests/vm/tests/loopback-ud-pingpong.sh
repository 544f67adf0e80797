#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# ibv_ud_pingpong on one device with -c (received data checked): UD QPs,
# address handles, DETH on the wire, the 40-byte GRH area in each receive.
# 1 B, 64 B and 1024 B (the port's active MTU at netdev MTU 1500) between
# IPv4-mapped GIDs, then 64 B and 1024 B between IPv6 (ULA) GIDs.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
for size in 1 64 1024; do
	ud_pingpong_loopback "$size" 200
done
rdma_use_ipv6_gid
for size in 64 1024; do
	ud_pingpong_loopback "$size" 200
done
log_hw_counters
