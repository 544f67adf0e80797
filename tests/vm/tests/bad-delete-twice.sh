#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# Bad input: deleting a device a second time fails cleanly.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
sroce_add sroce0 eth0
sroce_del sroce0
expect_rejected rdma link delete sroce0
