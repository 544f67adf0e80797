#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: the loopback device is rejected.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
expect_rejected rdma link add sroce0 type sroce netdev lo
