#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# An IPv6 address added to eth0 shows up as a RoCE v2 GID. fd00:198:18::/64
# is a private range; no packet leaves the VM anyway.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
run ip -6 addr add fd00:198:18::1/64 dev eth0 nodad
expect_gid sroce0 "fd00:198:18::1" "RoCE v2"
