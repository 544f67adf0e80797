#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 150
#
# Every packet sroce puts on the wire, captured on lo while one device talks
# to itself (ibv_rc_pingpong with 4-packet messages, perftest WRITE, READ
# with multi-packet responses, ATOMIC, ibv_ud_pingpong's datagrams), has a correct ICRC and lengths per
# an independent decoder (tests/tools/roce_pcap_check.py) and decodes in
# tshark with no malformed packet and no expert error.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

rdma_setup sroce
# Packets between two QPs of one host skip the IP stack unless told not to.
echo N > /sys/module/sroce/parameters/loopback_shortcut
capture_start lo /tmp/loopback.pcap
pingpong_loopback 4096 10
perftest_loopback ib_write_bw bw -s 8192 -n 20
perftest_loopback ib_read_bw bw -s 8192 -n 20
perftest_loopback ib_atomic_bw bw -n 20
ud_pingpong_loopback 64 10
ud_pingpong_loopback 1024 10
capture_stop
capture_check /tmp/loopback.pcap --from "$SROCE_IP:200"
