#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: show sroce working in a guest. Loads the module, creates
# sroce0 on eth0, prints what rdma and libibverbs (through the provider in
# the build tree) see, then moves data with ibv_rc_pingpong and ib_write_bw.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

sroce_load
sroce_add sroce0 eth0
run rdma link show
run rdma dev show
run ibv_devices
wait_for 10 has_gid sroce0 "::ffff:$SROCE_IP" "RoCE v2" || log "IPv4 GID not there yet"
run ibv_devinfo -v -d sroce0

# --- data path --------------------------------------------------------------
# Both ends on sroce0 (loopback through the IP stack), over its IPv4 RoCE v2
# GID: an RC ping-pong, then perftest's RDMA WRITE bandwidth.
gid=$(gid_index sroce0 "$SROCE_IP")
[ -n "$gid" ] || fail "no IPv4 RoCE v2 GID on sroce0"
log "ibv_rc_pingpong over GID index $gid"
ibv_rc_pingpong -d sroce0 -g "$gid" -n 1000 -s 4096 > /tmp/pingpong-server.log 2>&1 &
server=$!
sleep 1
run ibv_rc_pingpong -d sroce0 -g "$gid" -n 1000 -s 4096 127.0.0.1
wait "$server" || fail "ibv_rc_pingpong server failed: $(cat /tmp/pingpong-server.log)"
log "ib_write_bw, 64 KiB messages"
ib_write_bw -d sroce0 -x "$gid" -F -s 65536 -n 2000 > /tmp/write-bw-server.log 2>&1 &
server=$!
sleep 1
run ib_write_bw -d sroce0 -x "$gid" -F -s 65536 -n 2000 127.0.0.1
wait "$server" || fail "ib_write_bw server failed: $(cat /tmp/write-bw-server.log)"
