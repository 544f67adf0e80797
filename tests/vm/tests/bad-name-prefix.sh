#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: device names must start with "sroce".
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
expect_rejected rdma link add foo0 type sroce netdev eth0
