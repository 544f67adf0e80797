#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# ibv_devinfo -v: port 1 of sroce0 on a 1500-byte eth0 is an active Ethernet
# port with max_mtu 4096 and active_mtu 1024.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
run ibv_devinfo -v -d sroce0 || fail "ibv_devinfo -d sroce0 failed"
expect_field sroce0 state "PORT_ACTIVE (4)"
expect_field sroce0 link_layer Ethernet
expect_field sroce0 max_mtu "4096 (5)"
expect_field sroce0 active_mtu "1024 (3)"
