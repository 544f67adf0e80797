#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod sroce with two devices present removes both and unloads cleanly.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run ip link add dummy0 type dummy || fail "cannot create dummy0"
run ip link set dummy0 up
sroce_add sroce0 eth0
sroce_add sroce1 dummy0
run rmmod sroce || fail "rmmod sroce failed"
! sroce_loaded || fail "sroce still loaded"
! ibdev_exists sroce0 || fail "sroce0 survived rmmod"
! ibdev_exists sroce1 || fail "sroce1 survived rmmod"
log "both devices gone"
