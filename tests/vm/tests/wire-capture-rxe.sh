#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# hosts: 2
# timeout: 300
#
# Capture of sroce (host 0) talking to rdma_rxe (host 1), each side as
# requester and as responder: ibv_rc_pingpong with 4-packet messages, then
# perftest READ (multi-packet responses), WRITE and ATOMIC served first by
# sroce, then by rxe; then datagrams: ibv_ud_pingpong, and rdma_cm with
# sroce serving (rping, udaddy), i.e. CM and SIDR MADs between the two QP1s
# and the RC and UD traffic they set up. Every packet on host 0's link,
# what sroce sent and what rxe sent, must pass
# tests/tools/roce_pcap_check.py: ICRC recomputed independently,
# consistent lengths, no tshark malformed packet or expert error (tshark
# dissects the MADs too); and the capture must hold UD datagrams and MADs.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

# xfer SERVER_HOST NAME CMD...: CMD serves on SERVER_HOST, the other host
# connects to it; both must succeed.
xfer() {
	local server=$1 out=/tmp/$2.out

	shift 2
	next_port
	if [ "$SROCE_HOST" = "$server" ]; then
		start_server "$out" "$PERF_PORT" "$@" -p "$PERF_PORT"
		barrier "$PERF_PORT-listening" 60
		finish_server "$out"
	else
		barrier "$PERF_PORT-listening" 60
		run_client "$out" "$@" -p "$PERF_PORT" "$SROCE_PEER_IP"
	fi
	barrier "$PERF_PORT-done" "$CMD_TIMEOUT"
}

# perftest READ, WRITE and ATOMIC with SERVER_HOST as the responder.
rdma_ops() {
	local server=$1 tool

	for tool in ib_read_bw ib_write_bw; do
		xfer "$server" "$tool-$server" "$tool" -d "$RDMA_DEV" -x "$GID_INDEX" -F \
			-s 4096 -n 20
	done
	xfer "$server" "atomic-$server" ib_atomic_bw -d "$RDMA_DEV" -x "$GID_INDEX" -F -n 20
}

if [ "$SROCE_HOST" = 0 ]; then rdma_setup sroce; else rdma_setup rxe; fi
wait_peer 30
[ "$SROCE_HOST" = 0 ] && capture_start eth0 /tmp/interop.pcap
# SENDs both ways (each side receives as well as sends).
xfer 0 pingpong ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" -s 4096 -n 10 -c
rdma_ops 0		# sroce responds
rdma_ops 1		# rxe responds
xfer 0 ud-pingpong ibv_ud_pingpong -d "$RDMA_DEV" -g "$GID_INDEX" -s 512 -n 10 -c
rdma_cm_setup
rping_pair two_hosts "$(cm_server_ip)" 3
udaddy_pair two_hosts 1 3
if [ "$SROCE_HOST" = 0 ]; then
	capture_stop
	capture_check /tmp/interop.pcap --from "$SROCE_IP:100" --from "$SROCE_PEER_IP:100" \
		--opcode UD_SEND_ONLY:20 --opcode GSI:6
fi
barrier checked 120
