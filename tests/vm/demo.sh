#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: show sroce working in a guest. Loads the module, creates
# sroce0 on eth0 and prints what rdma and libibverbs (through the provider
# in the build tree) see.
. "$SROCE_TOP/tests/vm/lib.sh"

sroce_load
sroce_add sroce0 eth0
run rdma link show
run rdma dev show
run ibv_devices
wait_for 10 has_gid sroce0 "::ffff:$SROCE_IP" "RoCE v2" || log "IPv4 GID not there yet"
run ibv_devinfo -v -d sroce0

# --- data path --------------------------------------------------------------
# TODO(data path): when sroce moves data, run ibv_rc_pingpong between a server
# and a client on sroce0 here, e.g.:
#     ibv_rc_pingpong -d sroce0 -g <ipv4 GID index> &
#     ibv_rc_pingpong -d sroce0 -g <ipv4 GID index> 127.0.0.1
# (or across two guests: vm-run --hosts 2, see tests/vm/README.md).
log "data path not implemented yet: no ping-pong"
