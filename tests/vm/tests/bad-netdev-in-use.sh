#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: a netdev already bound to an sroce device is rejected.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
sroce_add sroce0 eth0
expect_rejected rdma link add sroce1 type sroce netdev eth0
