#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 480
# full-only
#
# UC wire compatibility with rdma_rxe: sroce on one host, rxe on the other,
# then the other way round. In each direction: ibv_uc_pingpong with -c at
# 64 B, 4 KiB and 16 KiB (UC's FIRST/MIDDLE/LAST, no ACK either way), then
# ib_send_bw -c UC and ib_write_bw -c UC. Every receive is posted before the
# sender starts. UC recovers no loss: a lost packet loses its message and
# the tool waits for it forever, so the messages and bursts stay small:
# rxe receiving 100 4 KiB SENDs from sroce got 90 on 6.12 (its receive
# path falls behind sroce's burst), and bursts of 64 KiB messages lose
# packets on the QEMU socket link between two sroce guests (matrix.tsv).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

uc_traffic() {
	local size

	for size in 64 4096 16384; do
		UC_PP_CHECK() { check_pingpong "$1" 50; }
		two_hosts UC_PP_CHECK UC_PP_CHECK ibv_uc_pingpong -d "$RDMA_DEV" \
			-g "$GID_INDEX" -s "$size" -n 50 -c
	done
	perftest_two_hosts ib_send_bw bw -c UC -s 1024 -n 50
	perftest_two_hosts ib_write_bw bw -c UC -s 4096 -n 50
}

interop_both_directions uc_traffic
log "sroce and rdma_rxe exchange UC messages in both directions"
