#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# eth0's IPv4 address shows up as a RoCE v2 GID (::ffff:a.b.c.d).
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
expect_gid sroce0 "::ffff:$SROCE_IP" "RoCE v2"
