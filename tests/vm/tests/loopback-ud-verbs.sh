#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 300
#
# sroce_verbs_test's UD cases on one device (payload and GRH bytes, wc
# fields, Q_Key rules, length limits, foreign AHs refused, AH destroyed with
# sends in flight), then the drops they cause in the port's counters: one
# Q_Key violation, one datagram too long for its receive, one send above
# the MTU that sent nothing, and no datagram without a receive; from
# ud_mcast_send, 4 datagrams for the group, each refused by the QP attached
# with another Q_Key (4 more Q_Key violations) and taken by the 2 (then 1)
# QPs attached with the right one: 4 multicast sends, 7 copies received
# (ports/1/counters/multicast_*_packets). Last,
# ud_send between IPv6 GIDs (the GRH area is then the IPv6 header).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test
rdma_setup sroce
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
UD_COUNTERS="qkey_viol rcvd_ud_len_err ud_send_too_long rcvd_ud_no_wqe rcvd_mcast_pkts
sent_mcast_pkts rcvd_mcast_qp_pkts"
declare -A BEFORE
sleep 0.05	# ib_core caches hw_counters for 10 ms
for c in $UD_COUNTERS; do
	BEFORE[$c]=$(cat "$HW/$c") || fail "no hw_counters/$c"
done

run_verbs verbs-ud.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only 'ud_*'
grep -q '^ok ud_ah_destroyed_in_flight' verbs-ud.out || fail "UD cases did not run"

# expect_delta NAME N: the counter grew by exactly N during the cases.
expect_delta() {
	local d=$(($(cat "$HW/$1") - BEFORE[$1]))

	[ "$d" = "$2" ] || fail "$1 grew by $d, expected $2"
	log "$1 +$d"
}
sleep 0.05
expect_delta qkey_viol 5
expect_delta rcvd_mcast_pkts 4
# The same 4 sent; A and B take the first 3 each, A alone the last.
expect_delta sent_mcast_pkts 4
expect_delta rcvd_mcast_qp_pkts 7
expect_delta rcvd_ud_len_err 1
expect_delta ud_send_too_long 1
expect_delta rcvd_ud_no_wqe 0

# The GRH area and the AH's traffic class, hop limit and flow label over
# IPv6; an IPv6 group (MLD join, IPv6 multicast loopback).
rdma_use_ipv6_gid
run_verbs verbs-ud6.out --loopback -d "$RDMA_DEV" -g "$GID_INDEX" --only ud_send \
	--only ud_mcast_send
grep -q '^ok ud_send' verbs-ud6.out || fail "ud_send did not run over IPv6"
grep -q '^ok ud_mcast_send' verbs-ud6.out || fail "ud_mcast_send did not run over IPv6"
