#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loopback short-cut: RC traffic between two QPs of one device skips the IP
# stack (lo sees only perftest's TCP exchange) and stays correct; with the
# module parameter loopback_shortcut=N the same traffic goes through lo.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

PARAM=/sys/module/sroce/parameters/loopback_shortcut
# 64 KiB x 100 at path MTU 1024: 6400 WRITE packets, plus ACKs.
SHORTCUT_MAX=1000	# lo packets allowed: the TCP exchange is a few dozen
THROUGH_LO_MIN=6400

lo_rx() { cat /sys/class/net/lo/statistics/rx_packets; }

# lo_packets_during_write_bw: packets lo received during one ib_write_bw run
# (called in $(...): perftest's output goes to stderr, and the caller moves
# PERF_PORT on, which the subshell cannot).
lo_packets_during_write_bw() {
	local before

	before=$(lo_rx)
	perftest_loopback ib_write_bw bw -s 65536 -n 100 >&2
	echo $(($(lo_rx) - before))
}

rdma_setup sroce
[ "$(cat "$PARAM")" = Y ] || fail "loopback_shortcut is not on by default"

n=$(lo_packets_during_write_bw)
log "short-cut on: lo received $n packets"
[ "$n" -lt "$SHORTCUT_MAX" ] || fail "short-cut on, yet lo received $n packets (>= $SHORTCUT_MAX)"

echo N > "$PARAM"
next_port
n=$(lo_packets_during_write_bw)
log "short-cut off: lo received $n packets"
[ "$n" -ge "$THROUGH_LO_MIN" ] || fail "short-cut off, yet lo received only $n packets (< $THROUGH_LO_MIN)"
