#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: lib.sh's ibv_devinfo parsers, checked against rdma_rxe
# (stock kernels only; needs crc32_generic first in a minimal guest).
. "$SROCE_TOP/tests/vm/lib.sh"

run modprobe crc32_generic || true
run modprobe rdma_rxe || skip "no rdma_rxe"
run rdma link add rxe0 type rxe netdev eth0 || fail "rxe0"
run ip -6 addr add fd00:198:18::1/64 dev eth0 nodad
wait_for 5 ibdev_exists rxe0 || fail "no rxe0"
run ibv_devinfo -v -d rxe0
expect_field rxe0 state "PORT_ACTIVE (4)"
expect_field rxe0 link_layer Ethernet
expect_field rxe0 active_mtu "1024 (3)"
expect_gid rxe0 "::ffff:$SROCE_IP" "RoCE v2"
expect_gid rxe0 "fd00:198:18::1" "RoCE v2"
gid_list rxe0
