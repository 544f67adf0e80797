#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 420
# full-only
#
# rdma_cm across the link, server on host 0 and client on host 1, the same
# provider on both: rping -V (4 KiB pings, each checked) between IPv4
# addresses, ucmatose (2 RC connections), udaddy (2 UD ones through SIDR),
# rdma_server/rdma_client, then rping between IPv6 (ULA) addresses. Both
# sides exit 0 and print every message; each host's ib_cm sent its side's
# REQ/REP/RTU (SIDR REQ/REP) once per connection.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup "$@"
wait_peer 30
rdma_cm_setup peer
rping_pair two_hosts "$(cm_server_ip)" 10 -S 4096
ucmatose_pair two_hosts 2 10
udaddy_pair two_hosts 2 10
rdma_server_pair two_hosts
rdma_use_ipv6_gid
wait_peer_ipv6
rping_pair two_hosts fd00:198:18::1 5
log_hw_counters
