#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# `rdma link add ... type sroce` loads sroce by itself (ib_core requests the
# module alias rdma-link-sroce) and creates the device.
. "$SROCE_TOP/tests/vm/lib.sh"

require_module
! sroce_loaded || fail "sroce loaded before the test"
sroce_add sroce0 eth0
grep -q '^sroce ' /proc/modules || fail "sroce not in lsmod after rdma link add"
log "sroce autoloaded: $(grep '^sroce ' /proc/modules)"
