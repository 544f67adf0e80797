#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 480
#
# UD across the link (server host 0, client host 1): ibv_ud_pingpong with -c
# at 1 B and the path MTU between IPv4-mapped GIDs, ib_send_bw -c UD, the
# verbs program's UD cases, then ibv_ud_pingpong between IPv6 (ULA) GIDs.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

ud_pingpong_two_hosts() {
	local size=$1 iters=$2

	UD_PP_CHECK() { check_pingpong "$1" "$iters"; }
	two_hosts UD_PP_CHECK UD_PP_CHECK ibv_ud_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" \
		-s "$size" -n "$iters" -c
}

require_verbs_test
rdma_setup "$@"
wait_peer 30
for size in 1 1024; do
	ud_pingpong_two_hosts "$size" 100
done
# UD is unreliable and perftest waits for every datagram: a burst of 200
# once lost 4 on the virtual link (6.12, host under load, no sroce drop
# counter moved), so the burst stays at 50.
perftest_two_hosts ib_send_bw bw -c UD -s 1024 -n 50
verbs_two_hosts --only 'ud_*'
rdma_use_ipv6_gid
wait_peer_ipv6
ud_pingpong_two_hosts 1024 100
