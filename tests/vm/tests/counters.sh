#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 420
#
# The port's hw_counters move with what happens on one device (loopback):
# packets and bytes by about the size of a known transfer, doorbells rung and
# elided, RNR NAKs, transport retries, remote access NAKs, a link flap; sysfs
# and `rdma statistic show link` agree; restrack shows a live QP's PSNs.
# ports/1/counters/ (the PMA view) moves with the transfer and agrees
# with hw_counters.
# Two vCPUs: with one, the transmit thread never polls, so no doorbell is
# ever elided.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

COUNTERS="sent_pkts rcvd_pkts sent_bytes rcvd_bytes retransmitted_pkts
duplicate_request out_of_sequence rcvd_seq_err send_rnr_err rcvd_rnr_err
completer_retry_err retry_exceeded_err retry_rnr_exceeded_err sent_nak_access
rcvd_nak_access sent_nak_inv_req rcvd_nak_inv_req icrc_errors rcvd_malformed
rcvd_unknown_qpn rcvd_bad_pkey rcvd_dropped ack_coalesced link_downed
doorbells doorbells_elided send_err local_segments rcvd_dup_read_mismatch
tx_passes tx_qp_visits qkey_viol rcvd_ud_len_err rcvd_ud_no_wqe ud_send_too_long rcvd_mcast_pkts
rcvd_dup_atomic_mismatch sent_mcast_pkts rcvd_mcast_qp_pkts uc_dropped_msgs"

# ports/1/counters/: ib_core asks process_mad (sroce_pma.c) for each.
PMA_COUNTERS="symbol_error link_error_recovery link_downed port_rcv_errors
port_rcv_remote_physical_errors port_rcv_switch_relay_errors port_xmit_discards
port_xmit_constraint_errors port_rcv_constraint_errors local_link_integrity_errors
excessive_buffer_overrun_errors VL15_dropped port_xmit_data port_rcv_data
port_xmit_packets port_rcv_packets port_xmit_wait unicast_xmit_packets
unicast_rcv_packets multicast_xmit_packets multicast_rcv_packets"

rdma_setup sroce
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
PMA=/sys/class/infiniband/$RDMA_DEV/ports/1/counters
POLL=/sys/module/sroce/parameters/sq_poll_usecs
POLL_DEFAULT=$(cat "$POLL")

# ib_core caches the values for 10 ms: let a read after an event see it.
settle() { sleep 0.05; }

counter() { cat "$HW/$1"; }
pma() { cat "$PMA/$1"; }

# snapshot: remember every counter; delta NAME: its growth since then.
declare -A BEFORE
snapshot() {
	local c

	settle
	for c in $COUNTERS; do
		BEFORE[$c]=$(counter "$c")
	done
	for c in $PMA_COUNTERS; do
		BEFORE[pma_$c]=$(pma "$c")
	done
}
delta() { echo $(($(counter "$1") - BEFORE[$1])); }
pma_delta() {
	local key=pma_$1

	echo $(($(pma "$1") - BEFORE[$key]))
}

# in_range WHAT GROWTH MIN MAX: fail unless MIN <= GROWTH <= MAX.
in_range() {
	if [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		fail "$1 grew by $2, expected $3..$4"
	fi
	log "$1 +$2 (expected $3..$4)"
}

# expect_range NAME MIN MAX: the counter grew by MIN..MAX since the snapshot.
expect_range() { in_range "$1" "$(delta "$1")" "$2" "$3"; }
# pma_range NAME MIN MAX: the same for counters/NAME.
pma_range() { in_range "counters/$1" "$(pma_delta "$1")" "$2" "$3"; }

check_names() {
	local c

	for c in $COUNTERS; do
		[ -r "$HW/$c" ] || fail "no hw_counters/$c"
		[[ $(counter "$c") =~ ^[0-9]+$ ]] || fail "hw_counters/$c: '$(counter "$c")'"
	done
	log "all $(echo "$COUNTERS" | wc -w) counters present"
	for c in $PMA_COUNTERS; do
		[[ $(pma "$c") =~ ^[0-9]+$ ]] || fail "counters/$c: '$(pma "$c" 2>&1)'"
	done
	log "all $(echo "$PMA_COUNTERS" | wc -w) counters/ files present"
}

# expect_pma NAME VALUE: counters/NAME reads VALUE (from hw_counters).
expect_pma() {
	[ "$(pma "$1")" = "$2" ] || fail "counters/$1 is $(pma "$1"), hw_counters say $2"
}

# counters/ is hw_counters in the PMA's units (Documentation/counters.md):
# data in 4-octet words, unicast + multicast = all. Read on an idle device.
check_pma_agrees() {
	settle
	expect_pma port_xmit_data $(($(counter sent_bytes) / 4))
	expect_pma port_rcv_data $(($(counter rcvd_bytes) / 4))
	expect_pma port_xmit_packets "$(counter sent_pkts)"
	expect_pma port_rcv_packets "$(counter rcvd_pkts)"
	expect_pma multicast_xmit_packets "$(counter sent_mcast_pkts)"
	expect_pma multicast_rcv_packets "$(counter rcvd_mcast_qp_pkts)"
	expect_pma unicast_xmit_packets $(($(counter sent_pkts) - $(counter sent_mcast_pkts)))
	expect_pma unicast_rcv_packets $(($(counter rcvd_pkts) - $(counter rcvd_mcast_qp_pkts)))
	expect_pma port_rcv_errors $(($(counter icrc_errors) + $(counter rcvd_malformed)))
	expect_pma port_xmit_discards "$(counter send_err)"
	expect_pma link_downed "$(counter link_downed)"
	expect_pma symbol_error 0
	log "counters/ agrees with hw_counters:" \
		"$(pma port_xmit_data) words, $(pma port_xmit_packets) packets sent"
}

# `rdma statistic show link DEV/1` prints "link DEV/1 name value name value ...".
check_rdma_tool_agrees() {
	local out name value n=0

	settle
	out=$(rdma statistic show link "$RDMA_DEV/1") || fail "rdma statistic show failed"
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $out
	[ "$1 $2" = "link $RDMA_DEV/1" ] || fail "unexpected rdma statistic output: $out"
	shift 2
	while [ $# -ge 2 ]; do
		name=$1 value=$2
		shift 2
		[ -r "$HW/$name" ] || fail "rdma shows $name, sysfs does not"
		[ "$(counter "$name")" = "$value" ] ||
			fail "$name: rdma says $value, sysfs $(counter "$name")"
		n=$((n + 1))
	done
	[ "$n" = "$(echo "$COUNTERS" | wc -w)" ] || fail "rdma shows $n counters: $out"
	log "rdma statistic show link agrees with sysfs on $n counters"
}

# 200 WRITEs of 64 KiB, path MTU 1024: 12800 request packets carrying
# 13107200 payload bytes, each way through this one device, plus ACKs.
check_traffic() {
	local n=200 size=65536 payload pkts

	payload=$((n * size))
	pkts=$((payload / 1024))
	snapshot
	perftest_loopback ib_write_bw bw -s "$size" -n "$n"
	settle
	# Headers add 16-32 bytes per 1 KiB packet; ACKs 20 bytes each.
	expect_range sent_bytes "$payload" $((payload * 105 / 100))
	expect_range sent_pkts "$pkts" $((pkts * 2))
	expect_range rcvd_bytes $((payload)) $((payload * 105 / 100))
	expect_range rcvd_pkts "$pkts" $((pkts * 2))
	expect_range rcvd_dropped 0 0
	expect_range send_err 0 0
	pma_range port_xmit_data $((payload / 4)) $((payload * 105 / 400))
	pma_range port_rcv_data $((payload / 4)) $((payload * 105 / 400))
	pma_range port_xmit_packets "$pkts" $((pkts * 2))
	pma_range unicast_rcv_packets "$pkts" $((pkts * 2))
	pma_range multicast_xmit_packets 0 0
	check_pma_agrees
	# Each WQE is fetched either inside a doorbell or by the polling
	# thread; the thread may be polling (woken by the QPs' setup) before
	# the first post, so none need ring - or parked throughout, so all do.
	expect_range doorbells 0 "$n"
	expect_range doorbells_elided 0 "$n"
	# Loopback packets travel up to 15 to a segment (64 per message: at
	# least 5 segments each when nothing cuts them short).
	expect_range local_segments $((pkts / 15)) "$pkts"
}

# A stream long enough that the transmit thread polls during it: posts
# then see NEED_WAKEUP clear and elide the doorbell. Not the 200 WRITEs
# above: a thread parked during the setup may stay asleep through all of
# them, its re-probe back-off having grown to 100 ms (every post rang, on
# 6.1, before and after the changes of 2026-11-30). Two seconds give it
# many re-probes, and a poll window the stream's next post always lands
# in: with the default 50 us, posts that come slower (TCG, passes that
# finish each message at once) park it again.
check_doorbell_elision() {
	echo 20000 > "$POLL"
	snapshot
	perftest_loopback ib_write_bw bw -s 65536 -D 2
	settle
	echo "$POLL_DEFAULT" > "$POLL"
	expect_range doorbells_elided 1 1000000000
}

# With sq_poll_usecs=0 the thread never polls: posts ring (a WQE can still
# be picked up by the thread running a pass it was handed, so not all).
check_doorbells_without_polling() {
	local n=20

	echo 0 > "$POLL"
	snapshot
	perftest_loopback ib_write_bw bw -s 65536 -n "$n"
	settle
	echo "$POLL_DEFAULT" > "$POLL"
	expect_range doorbells $((n / 2)) "$n"
	expect_range doorbells_elided 0 $((n / 2))
}

# verbs_case NAME: one case of sroce_verbs_test, both ends on this device.
verbs_case() {
	snapshot
	run_verbs "$1.out" --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only "$1"
	settle
}

# rnr_retry 2: the first RNR NAK and two retries each meet no receive.
check_rnr() {
	verbs_case err_rnr_retry_2
	expect_range send_rnr_err 3 3
	expect_range rcvd_rnr_err 3 3
	expect_range retry_rnr_exceeded_err 1 1
	expect_range retransmitted_pkts 2 2
}

# retry_cnt 2 towards a QPN nobody has: three local ACK timeouts, the last
# one ends in IBV_WC_RETRY_EXC_ERR; each attempt is dropped on arrival.
check_retry() {
	verbs_case err_retry_bogus_qpn
	expect_range completer_retry_err 3 3
	expect_range retry_exceeded_err 1 1
	expect_range retransmitted_pkts 2 2
	expect_range rcvd_unknown_qpn 3 3
	expect_range rcvd_dropped 3 3
}

# 7 unsignaled SENDs (1 packet each at path MTU 1024) then a signaled
# 4096-byte one (4 packets): only the last packet asks for an ACK
# (sroce_ackreq.h), so the responder lets the other 10 go without one.
check_ack_coalescing() {
	verbs_case unsignaled
	expect_range ack_coalesced 10 10
	expect_range completer_retry_err 0 0
}

# 2000 8-byte WRITEs kept 256 deep (perftest signals one in 100): the queue
# is always at least half full, yet only about one WRITE in 32 asks for an
# ACK (the interval, the signaled ones, a full window), not every one.
check_deep_queue_coalescing() {
	local n=2000

	snapshot
	perftest_loopback ib_write_bw bw -s 8 -t 256 -n "$n"
	settle
	expect_range ack_coalesced $((n * 3 / 4)) "$n"
}

# Two unsignaled WRITEs with nothing after them go without AckReq; at the
# local ACK timeout the requester sends them again, this time asking: two
# packets sent again, not a retry (the responder owed no ACK).
check_unsignaled_tail() {
	verbs_case unsignaled_tail
	expect_range retransmitted_pkts 2 2
	expect_range completer_retry_err 0 0
}

# A WRITE with a bad rkey: one remote access NAK, sent and received here.
check_access() {
	verbs_case err_bad_rkey
	expect_range sent_nak_access 1 1
	expect_range rcvd_nak_access 1 1
}

# user_qps [-dd]: restrack's QP lines of the port, without ib_mad's GSI QP 1,
# which is always there.
user_qps() {
	rdma "$@" res show qp link "$RDMA_DEV/1" | grep -v ' type GSI '
}

# rts_qp_details: the first RTS QP's line with driver details, into RTS_QP.
# One query: under host load the 2-second run can end between two of them.
rts_qp_details() {
	RTS_QP=$(user_qps -dd | grep -m 1 "state RTS")
}

# restrack while a QP moves data: state and PSNs, driver details with -dd.
check_restrack() {
	local out field client

	next_port
	start_server restrack.server "$PERF_PORT" ib_write_bw -d "$RDMA_DEV" -x "$GID_INDEX" \
		-F -p "$PERF_PORT" -D 2
	timeout "$CMD_TIMEOUT" ib_write_bw -d "$RDMA_DEV" -x "$GID_INDEX" -F -p "$PERF_PORT" -D 2 \
		127.0.0.1 > restrack.client 2>&1 &
	client=$!

	wait_for 20 rts_qp_details ||
		fail "no RTS QP in: $(rdma res show qp link "$RDMA_DEV/1")"
	out=$RTS_QP
	log "rdma -dd res show qp link $RDMA_DEV/1: $out"
	wait "$client" || { cat restrack.client; fail "ib_write_bw client failed"; }
	finish_server restrack.server
	for field in lqpn rqpn rq-psn sq-psn drv_req_psn drv_comp_psn drv_resp_psn drv_sq_completed \
		drv_retry_left; do
		[[ $out =~ (^| )$field\ [0-9]+ ]] || fail "no '$field N' in restrack output"
	done
	! user_qps | grep -q lqpn ||
		fail "QPs still listed after the programs exited"
	log "restrack shows the QP's state and PSNs"
}

# The port goes ACTIVE -> DOWN once per link down.
check_link_downed() {
	snapshot
	run ip link set eth0 down
	expect_field "$RDMA_DEV" state "PORT_DOWN (1)"
	run ip link set eth0 up
	expect_field "$RDMA_DEV" state "PORT_ACTIVE (4)" 10
	settle
	expect_range link_downed 1 1
	pma_range link_downed 1 1
}

[ "$(nproc)" -ge 2 ] || fail "needs 2 vCPUs (vm-run --cpus 2): the transmit thread polls only then"
check_names
check_traffic
check_doorbell_elision
check_doorbells_without_polling
check_rnr
check_retry
check_access
check_ack_coalescing
check_deep_queue_coalescing
check_unsignaled_tail
check_restrack
check_rdma_tool_agrees
check_link_downed
check_pma_agrees
