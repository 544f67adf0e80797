#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Deleting the netdev under an sroce device removes the device.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
run ip link add veth0 type veth peer name veth1 || fail "cannot create veth"
run ip link set veth0 up
sroce_add sroce1 veth0
run ip link del veth0
wait_for $WAIT eval '! ibdev_exists sroce1' || fail "sroce1 still exists after veth0 was deleted"
log "sroce1 gone with veth0"
