#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Harness self-test for a shared boot: passes, but leaves the guest in a
# state the runner cannot undo (eth0 renamed: a virtio netdev cannot be
# deleted and the runner only knows eth0), so it must FAIL on its cleanup
# and the cases after it must be FAIL "not run", not run in a dirty guest.
. "$SROCE_TOP/tests/vm/lib.sh"

run ip link set eth0 down
run ip link set eth0 name sdirty0 || fail "cannot rename eth0"
log "eth0 is now sdirty0"
