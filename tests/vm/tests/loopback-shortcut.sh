#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Loopback short-cut: RC traffic between two QPs of one device skips the IP
# stack (lo sees only perftest's TCP exchange) and stays correct; with the
# module parameter loopback_shortcut=N the same traffic goes through lo.
# Several packets of a message travel as one segment only on the short-cut:
# a segment never reaches lo.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

PARAM=/sys/module/sroce/parameters/loopback_shortcut
# 64 KiB x 100 at path MTU 1024: 6400 WRITE packets, plus ACKs.
SHORTCUT_MAX=1000	# lo packets allowed: the TCP exchange is a few dozen
THROUGH_LO_MIN=6400

lo_rx() { cat /sys/class/net/lo/statistics/rx_packets; }
segments() { cat "/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/local_segments"; }

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

seg=$(segments)
n=$(lo_packets_during_write_bw)
seg=$(($(segments) - seg))
log "short-cut on: lo received $n packets; $seg segments"
[ "$n" -lt "$SHORTCUT_MAX" ] || fail "short-cut on, yet lo received $n packets (>= $SHORTCUT_MAX)"
# 64 packets a message, up to 15 to a segment.
[ "$seg" -ge 400 ] || fail "short-cut on, yet only $seg segments for 6400 packets"

echo N > "$PARAM"
next_port
seg=$(segments)
n=$(lo_packets_during_write_bw)
seg=$(($(segments) - seg))
log "short-cut off: lo received $n packets; $seg segments"
[ "$n" -ge "$THROUGH_LO_MIN" ] || fail "short-cut off, yet lo received only $n packets (< $THROUGH_LO_MIN)"
[ "$seg" -eq 0 ] || fail "short-cut off, yet $seg segments were sent"
