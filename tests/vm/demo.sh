#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: show sroce working in a guest (vm-run --cpus 2; the Makefile
# filters the console through demo-console.awk).
# Loads the module, creates sroce0 on eth0, prints what rdma and libibverbs
# (through the provider in the build tree) see, then measures the same
# ibv_rc_pingpong and ib_write_bw runs on sroce0 and on the stock kernel's
# rdma_rxe (rxe0) in this guest, and prints the figures side by side.
#
# Two CPUs, because a ping-pong is two busy-polling processes: on one vCPU
# it measures the scheduler's time slice, not the device. sroce and rdma_rxe
# both own UDP port 4791, so they run one after the other, never together.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

LAT_SIZE=8 LAT_ITERS=1000	# ping-pong latency: round trip of 8 bytes
BW_SIZE=65536 BW_ITERS=200	# ping-pong bandwidth: one 64 KiB message in flight
WBW_ITERS=2000			# ib_write_bw 64 KiB: a stream of WRITEs
declare -A LAT BW WBW

# pingpong DEV SIZE ITERS: both ends on DEV over its IPv4 RoCE v2 GID; sets
# PP_USEC (µs per round trip) and PP_MBS (MB/s) from the client's summary.
pingpong() {
	local out=/tmp/pingpong-$1-$2

	next_port
	start_server "$out.server" "$PERF_PORT" ibv_rc_pingpong -d "$1" -g "$GID_INDEX" \
		-p "$PERF_PORT" -s "$2" -n "$3"
	run_client "$out.client" ibv_rc_pingpong -d "$1" -g "$GID_INDEX" \
		-p "$PERF_PORT" -s "$2" -n "$3" 127.0.0.1
	finish_server "$out.server"
	check_pingpong "$out.client" "$3"
	PP_USEC=$(sed -n 's/^.* iters in .* = \([0-9.]*\) usec\/iter$/\1/p' "$out.client")
	PP_MBS=$(sed -n 's/^.* bytes in .* = \([0-9.]*\) Mbit\/sec$/\1/p' "$out.client" |
		awk '{ printf "%.1f", $1 / 8 }')
}

# write_bw DEV: ib_write_bw 64 KiB on DEV; prints one line, not the table,
# and sets WBW_MIBS (BW average, MiB/s; "n/a" when perftest could not
# calibrate its clock, which a stalled TCG vCPU can cause).
write_bw() {
	local out=/tmp/write-bw-$1 rc=0

	next_port
	start_server "$out.server" "$PERF_PORT" ib_write_bw -d "$1" -x "$GID_INDEX" -F \
		-p "$PERF_PORT" -s "$BW_SIZE" -n "$WBW_ITERS"
	log "+ ib_write_bw -d $1 -x $GID_INDEX -F -p $PERF_PORT -s $BW_SIZE -n $WBW_ITERS 127.0.0.1"
	timeout "$CMD_TIMEOUT" ib_write_bw -d "$1" -x "$GID_INDEX" -F -p "$PERF_PORT" \
		-s "$BW_SIZE" -n "$WBW_ITERS" 127.0.0.1 > "$out.client" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { cat "$out.client"; fail "ib_write_bw exited with status $rc"; }
	finish_server "$out.server"
	WBW_MIBS=n/a
	perf_clock_unknown "$out.client" ||
		WBW_MIBS=$(perf_rows "$out.client" | awk -v s="$BW_SIZE" '$1 == s { print $4; exit }')
	[ -n "$WBW_MIBS" ] || { cat "$out.client"; fail "no result row in ib_write_bw's output"; }
	log "ib_write_bw, $BW_SIZE B messages on $1: $WBW_MIBS MiB/s"
}

# measure DEV: the three runs on DEV, figures into LAT, BW, WBW.
measure() {
	pingpong "$1" "$LAT_SIZE" "$LAT_ITERS"
	LAT[$1]=$PP_USEC
	pingpong "$1" "$BW_SIZE" "$BW_ITERS"
	BW[$1]=$PP_MBS
	write_bw "$1"
	WBW[$1]=$WBW_MIBS
}

# --- the device ---------------------------------------------------------------
sroce_load
sroce_add sroce0 eth0
run rdma link show
run ibv_devices
expect_gid sroce0 "::ffff:$SROCE_IP" "RoCE v2" 10
GID_INDEX=$(gid_index sroce0 "$SROCE_IP")
[ -n "$GID_INDEX" ] || fail "no IPv4 RoCE v2 GID on sroce0"
run ibv_devinfo -d sroce0
log "RoCE v2 GIDs of sroce0 (ibv_devinfo -v lists them all):"
gid_list sroce0 | grep 'RoCE v2' | sed "s/^/[$TEST_NAME]   /"

# --- sroce, then rdma_rxe, the same runs ------------------------------------
log "--- sroce0: ibv_rc_pingpong and ib_write_bw, both ends in this guest"
RDMA_DEV=sroce0
measure sroce0
rdma_teardown

log "--- rxe0 (the stock kernel's rdma_rxe): the same runs"
run modprobe crc32_generic || true	# else "rdma link add" fails with ENOENT
run modprobe rdma_rxe || fail "no rdma_rxe module in this kernel"
run rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 failed"
wait_for 5 ibdev_exists rxe0 || fail "rxe0 did not appear"
expect_gid rxe0 "::ffff:$SROCE_IP" "RoCE v2" 10
GID_INDEX=$(gid_index rxe0 "$SROCE_IP")
unset RDMAV_DRIVERS	# the system's librxe, not our provider
RDMA_DEV=rxe0
measure rxe0
rdma_teardown

# --- side by side -------------------------------------------------------------
# row NAME LAT BW WBW: one line of the table.
row() {
	printf "[%s]   %-10s %24s %28s %20s\n" "$TEST_NAME" "$@"
}

# ratio A B: A / B, or "-" when either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }'
}

log ""
log "Both ends in one guest ($(nproc) vCPUs, QEMU TCG, kernel $(uname -r)):"
row "" "ping-pong latency, $LAT_SIZE B" "ping-pong bandwidth, 64 KiB" "ib_write_bw, 64 KiB"
row "" "(us per round trip)" "(MB/s)" "(MiB/s)"
for dev in sroce0 rxe0; do
	row "$dev" "${LAT[$dev]}" "${BW[$dev]}" "${WBW[$dev]}"
done
row "sroce/rxe" "$(ratio "${LAT[sroce0]}" "${LAT[rxe0]}")" \
	"$(ratio "${BW[sroce0]}" "${BW[rxe0]}")" "$(ratio "${WBW[sroce0]}" "${WBW[rxe0]}")"
log "Emulated CPUs: the figures swing with the host's load; compare the rows"
log "(latency: lower is better)."
log "The full sroce/rdma_rxe matrix: make bench, bench/results/latest.md."
