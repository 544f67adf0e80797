#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 120
#
# UD multicast through rdma_cm on one device: mckey joins a group and
# receives, a second mckey joins and sends to it; the datagrams loop back
# through the IP stack to the receiver's attached QP. Each one is counted
# once in rcvd_mcast_pkts. While joined, eth0 is a member of the IP group;
# after both left, it is not. With "rxe" as argument the same on rdma_rxe
# (without the counter).
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

GROUP=239.83.82.9
COUNT=10

in_group() { /bin/ip maddr show dev eth0 | grep -qw "$GROUP"; }

rdma_setup "${1:-}"
HW=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/rcvd_mcast_pkts
before=$(cat "$HW" 2>/dev/null) || before=none

stdbuf -oL timeout 60 mckey -m "$GROUP" -b "$SROCE_IP" -C "$COUNT" > mckey-recv.out 2>&1 &
receiver=$!
# Printed once the join completed and librdmacm attached the QP.
wait_for 30 grep -q 'receiving data transfers' mckey-recv.out ||
	{ cat mckey-recv.out; fail "mckey receiver did not join $GROUP"; }
in_group || fail "eth0 is not in $GROUP while mckey is joined"
rc=0
timeout 60 mckey -m "$GROUP" -b "$SROCE_IP" -s -C "$COUNT" > mckey-send.out 2>&1 || rc=$?
wait "$receiver" || rc=$((rc ? rc : 100 + $?))
cat mckey-send.out mckey-recv.out
[ "$rc" = 0 ] || fail "mckey failed (status $rc)"
grep -q 'data transfers complete' mckey-recv.out || fail "the receiver did not get $COUNT datagrams"
if [ "$RDMA_DEV" = sroce0 ]; then
	[ "$before" != none ] || fail "no hw_counters/rcvd_mcast_pkts"
	sleep 0.05	# ib_core caches hw_counters for 10 ms
	d=$(($(cat "$HW") - before))
	[ "$d" = "$COUNT" ] || fail "rcvd_mcast_pkts grew by $d, expected $COUNT"
fi
wait_for 5 sh -c "! /bin/ip maddr show dev eth0 | grep -qw $GROUP" ||
	fail "eth0 is still in $GROUP after both mckeys left"
log "mckey: $COUNT datagrams to $GROUP looped back to the receiver"
rdma_teardown
