#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# rmmod sroce with two devices present removes both and unloads cleanly.
# sdummy0, not dummy0: a built-in dummy driver creates dummy0 at boot.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run ip link add sdummy0 type dummy || fail "cannot create sdummy0"
run ip link set sdummy0 up
sroce_add sroce0 eth0
sroce_add sroce1 sdummy0
run rmmod sroce || fail "rmmod sroce failed"
! sroce_loaded || fail "sroce still loaded"
! ibdev_exists sroce0 || fail "sroce0 survived rmmod"
! ibdev_exists sroce1 || fail "sroce1 survived rmmod"
log "both devices gone"
