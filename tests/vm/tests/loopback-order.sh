#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 420
#
# Loopback delivery keeps each QP's packets in order across CPUs. With two
# vCPUs one QP's requester runs on either (the transmit thread, a doorbell
# pass of the posting process); when each CPU delivered what it had queued
# itself, PSN n+1 could overtake PSN n: the responder NAKed a sequence error
# and the requester went back N. Nothing is lost on the short-cut, so WRITE,
# SEND and READ streams must see no out-of-sequence packet, no sequence NAK
# and no retransmission. The overtaking needs one CPU to stall between its
# pass and its delivery, so the old code failed here only now and then: 2
# of 5 runs on 6.1 (ib_send_bw 64 out-of-sequence, 295 retransmitted;
# ib_write_bw -q 4 1 and 101). Local ACK timeout 18 (1 s): a TCG stall must
# not pass for a lost ACK.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

# Counters that only move when a packet arrives out of order or is sent again.
ORDER_COUNTERS="out_of_sequence rcvd_seq_err retransmitted_pkts duplicate_request"
# A packet the short-cut could not send would excuse a retransmission
# (rcvd_dropped is no loss: the responder counts there what it drops after
# a sequence gap).
LOSS_COUNTERS="send_err"

rdma_setup sroce
[ "$(nproc)" -ge 2 ] || skip "needs two vCPUs"
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

counter() { cat "$HW/$1"; }

# sum NAMES...: the counters added up.
sum() {
	local c total=0

	for c in "$@"; do
		total=$((total + $(counter "$c")))
	done
	echo "$total"
}

# ordered_run TOOL ARGS...: TOOL's loopback run sent nothing twice and
# delivered nothing out of order.
ordered_run() {
	local tool=$1 c lost d failed=

	shift
	sleep 0.05	# ib_core caches hw_counters for 10 ms
	declare -A before
	for c in $ORDER_COUNTERS $LOSS_COUNTERS; do
		before[$c]=$(counter "$c")
	done
	perftest_loopback "$tool" bw "$@"
	sleep 0.05
	lost=0
	for c in $LOSS_COUNTERS; do
		lost=$((lost + $(counter "$c") - before[$c]))
	done
	for c in $ORDER_COUNTERS; do
		d=$(($(counter "$c") - before[$c]))
		log "$tool: $c +$d"
		[ "$d" = 0 ] || failed="$failed $c+$d"
	done
	[ -z "$failed" ] && return
	[ "$lost" = 0 ] || skip "$tool: $lost packets lost, which excuses:$failed"
	fail "$tool: packets reordered on loopback:$failed"
}

ordered_run ib_write_bw -s 65536 -n 2000 -u "$PERF_QP_TIMEOUT"
ordered_run ib_write_bw -s 65536 -n 500 -q 4 -u "$PERF_QP_TIMEOUT"
ordered_run ib_send_bw -s 65536 -n 2000 -u "$PERF_QP_TIMEOUT"
ordered_run ib_read_bw -s 65536 -n 500 -u "$PERF_QP_TIMEOUT"
