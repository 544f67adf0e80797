#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# The port's hw_counters move with what happens on one device (loopback):
# packets and bytes by about the size of a known transfer, sysfs and
# `rdma statistic show link` agree.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

COUNTERS="sent_pkts rcvd_pkts sent_bytes rcvd_bytes retransmitted_pkts
duplicate_request out_of_sequence rcvd_seq_err send_rnr_err rcvd_rnr_err
completer_retry_err retry_exceeded_err retry_rnr_exceeded_err sent_nak_access
rcvd_nak_access sent_nak_inv_req rcvd_nak_inv_req icrc_errors rcvd_malformed
rcvd_unknown_qpn rcvd_bad_pkey rcvd_dropped ack_coalesced link_downed
doorbells doorbells_elided send_err"

rdma_setup sroce
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

# ib_core caches the values for 10 ms: let a read after an event see it.
settle() { sleep 0.05; }

counter() { cat "$HW/$1"; }

# snapshot: remember every counter; delta NAME: its growth since then.
declare -A BEFORE
snapshot() {
	local c

	settle
	for c in $COUNTERS; do
		BEFORE[$c]=$(counter "$c")
	done
}
delta() { echo $(($(counter "$1") - BEFORE[$1])); }

# expect_range NAME MIN MAX: the counter grew by MIN..MAX since the snapshot.
expect_range() {
	local d

	d=$(delta "$1")
	[ "$d" -ge "$2" ] && [ "$d" -le "$3" ] ||
		fail "$1 grew by $d, expected $2..$3"
	log "$1 +$d (expected $2..$3)"
}

check_names() {
	local c

	for c in $COUNTERS; do
		[ -r "$HW/$c" ] || fail "no hw_counters/$c"
		[[ $(counter "$c") =~ ^[0-9]+$ ]] || fail "hw_counters/$c: '$(counter "$c")'"
	done
	log "all $(echo "$COUNTERS" | wc -w) counters present"
}

# `rdma statistic show link DEV/1` prints "link DEV/1 name value name value ...".
check_rdma_tool_agrees() {
	local out name value n=0

	settle
	out=$(rdma statistic show link "$RDMA_DEV/1") || fail "rdma statistic show failed"
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
	expect_range doorbells 1 $((n * 4))
	expect_range rcvd_dropped 0 0
	expect_range send_err 0 0
	log "doorbells_elided +$(delta doorbells_elided)"
}

check_names
check_traffic
check_rdma_tool_agrees
