#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 420
#
# rdma_cm on one device, server and client both on it: rping -V (4 KiB
# pings, each checked) between IPv4 addresses, ucmatose (4 RC connections),
# udaddy (2 UD ones through SIDR), rdma_server/rdma_client, then rping
# between IPv6 (ULA) addresses. Each run: both sides exit 0, print every
# message, and ib_cm sent one REQ/REP/RTU (or SIDR REQ/REP) per connection.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
rdma_cm_setup
rping_pair loopback "$SROCE_IP" 10 -S 4096
ucmatose_pair loopback 4 10
udaddy_pair loopback 2 10
rdma_server_pair loopback
rdma_use_ipv6_gid
rping_pair loopback fd00:198:18::1 5
log_hw_counters
