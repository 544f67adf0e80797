#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 420
#
# Shared receive queues across the link (server host 0, client host 1):
# ibv_srq_pingpong -c with 4 QPs on each side receiving through one SRQ, at
# 4 KiB (four packets a message), then the verbs program's SRQ cases.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

srq_pingpong_two_hosts() {
	local size=$1 iters=$2

	SRQ_PP_CHECK() { check_pingpong "$1" "$iters"; }
	ack_timeout_floor "$PERF_QP_TIMEOUT"
	two_hosts SRQ_PP_CHECK SRQ_PP_CHECK ibv_srq_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" \
		-s "$size" -n "$iters" -c -q 4 -r 64
	ack_timeout_floor 0
}

require_verbs_test
rdma_setup "$@"
wait_peer 30
srq_pingpong_two_hosts 4096 50
verbs_two_hosts --only 'srq_*'
