#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input: a device name already in use (on another netdev) is rejected.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run ip link add dummy0 type dummy || fail "cannot create dummy0"
run ip link set dummy0 up
sroce_add sroce0 eth0
expect_rejected rdma link add sroce0 type sroce netdev dummy0
