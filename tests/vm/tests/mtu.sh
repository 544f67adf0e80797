#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# active_mtu follows eth0's MTU: the largest IB MTU (256..4096) that fits in
# MTU - 84 bytes of RoCEv2 headers, at least 256. Boundaries included.
. "$SROCE_TOP/tests/vm/lib.sh"

require_provider
sroce_load
sroce_add sroce0 eth0
while read -r mtu expect; do
	run ip link set eth0 mtu "$mtu" || fail "cannot set eth0 mtu $mtu"
	expect_field sroce0 active_mtu "$expect"
done <<'TABLE'
9000 4096 (5)
1500 1024 (3)
4180 4096 (5)
4179 2048 (4)
1280 1024 (3)
1108 1024 (3)
1107 512 (2)
600 512 (2)
340 256 (1)
300 256 (1)
1500 1024 (3)
TABLE
expect_field sroce0 max_mtu "4096 (5)"
