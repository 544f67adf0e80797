#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 480
#
# UD wire compatibility with rdma_rxe: sroce on one host, rxe on the other,
# then the other way round. In each direction: ibv_ud_pingpong with -c at
# 64 B and the path MTU (DETH, Q_Key, the GRH area each side's receives
# start with), and ib_send_bw -c UD.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

ud_traffic() {
	local size

	for size in 64 1024; do
		UD_PP_CHECK() { check_pingpong "$1" 100; }
		two_hosts UD_PP_CHECK UD_PP_CHECK ibv_ud_pingpong -d "$RDMA_DEV" \
			-g "$GID_INDEX" -s "$size" -n 100 -c
	done
	perftest_two_hosts ib_send_bw bw -c UD -s 1024 -n 50
}

interop_both_directions ud_traffic
log "sroce and rdma_rxe exchange UD datagrams in both directions"
