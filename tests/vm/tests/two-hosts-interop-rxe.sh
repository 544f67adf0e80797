#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hosts: 2
# timeout: 600
#
# Wire compatibility with the kernel's own Soft-RoCE: sroce on one host,
# rdma_rxe on the other, then the other way round (each host unloads one
# and loads the other). In each direction the host running rxe is the
# client (requester): ibv_rc_pingpong at 64 B, 4 KiB (4 packets) and 64 KiB,
# then perftest write, read (multi-packet responses), send and atomic.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

PORT=19000

# step NAME CMD...: host 0 serves, host 1 connects; both must succeed.
step() {
	local name=$1

	shift
	PORT=$((PORT + 1))
	if [ "$SROCE_HOST" = 0 ]; then
		timeout 120 "$@" -p "$PORT" > "/tmp/$name.out" 2>&1 ||
			fail "$name (server, $RDMA_DEV): $(tail -n 3 "/tmp/$name.out")"
	else
		sleep 3		# the server listens by then; a probe would eat its accept
		timeout 120 "$@" -p "$PORT" "$SROCE_PEER_IP" > "/tmp/$name.out" 2>&1 ||
			fail "$name (client, $RDMA_DEV): $(tail -n 3 "/tmp/$name.out")"
	fi
	barrier "$name"
}

traffic() {
	local size tool

	for size in 64 4096 65536; do
		step "$1-pingpong-$size" ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" -n 50 -s "$size"
	done
	for tool in ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw; do
		step "$1-$tool" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F -n 200
	done
}

interop_both_directions traffic
log "sroce and rdma_rxe interoperate in both directions"
