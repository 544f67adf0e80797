#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
#
# rdma link add creates sroce0 bound to eth0 (sysfs, rdma link show);
# rdma link delete removes it.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
sroce_add sroce0 eth0
run rdma link show
rdma link show sroce0/1 | grep -q 'netdev eth0' || fail "rdma link show: sroce0/1 not on eth0"
sroce_del sroce0
! rdma link show sroce0/1 > /dev/null 2>&1 || fail "rdma link show still lists sroce0"
