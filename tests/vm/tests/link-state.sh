#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# The port follows eth0's carrier: down -> PORT_DOWN, up -> PORT_ACTIVE.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
expect_field sroce0 state "PORT_ACTIVE (4)"
run ip link set eth0 down
expect_field sroce0 state "PORT_DOWN (1)"
run ip link set eth0 up
expect_field sroce0 state "PORT_ACTIVE (4)"
