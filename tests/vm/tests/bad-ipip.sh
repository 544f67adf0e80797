#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: an ipip tunnel (no Ethernet header) is rejected.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run modprobe ipip || fail "modprobe ipip failed"
run ip link add ipip0 type ipip local "$SROCE_IP" remote "$SROCE_PEER_IP" ||
	fail "cannot create ipip0"
run ip link set ipip0 up
expect_rejected rdma link add sroce0 type sroce netdev ipip0
