#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: a device name already in use (on another netdev) is rejected.
# sdummy0, not dummy0: a built-in dummy driver creates dummy0 at boot.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run ip link add sdummy0 type dummy || fail "cannot create sdummy0"
run ip link set sdummy0 up
sroce_add sroce0 eth0
expect_rejected rdma link add sroce0 type sroce netdev sdummy0
