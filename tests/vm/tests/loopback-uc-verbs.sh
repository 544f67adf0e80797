#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# sroce_verbs_test's SEND and WRITE cases over UC QPs on one device (--uc):
# every byte of 1 B..64 KiB messages, with and without immediate, inline,
# gathered from 3 SGEs, zero-length, unsignaled. UC sends no ACK: nothing
# may be dropped on the way (uc_dropped_msgs stays 0).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

UC_CASES=(send send_imm write write_imm send_inline multi_sge_send
	multi_sge_write zero_send zero_write unsignaled)

require_verbs_test
rdma_setup sroce
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
only=()
for c in "${UC_CASES[@]}"; do
	only+=(--only "$c")
done
run_verbs verbs-uc.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --uc "${only[@]}"
for c in "${UC_CASES[@]}"; do
	grep -qx "ok $c" verbs-uc.out || fail "case $c did not run over UC"
done
sleep 0.05	# ib_core caches hw_counters for 10 ms
[ "$(cat "$HW/uc_dropped_msgs")" = 0 ] ||
	fail "uc_dropped_msgs is $(cat "$HW/uc_dropped_msgs"), expected 0"
log_hw_counters
