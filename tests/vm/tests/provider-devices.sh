#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Through the sroce provider (RDMAV_DRIVERS), ibv_devices lists sroce0.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
run ibv_devices
ibv_devices | awk '{ print $1 }' | grep -qx sroce0 || fail "ibv_devices does not list sroce0"
