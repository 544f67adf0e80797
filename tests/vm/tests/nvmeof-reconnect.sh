#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# NVMe-oF on sroce survives the loss of its target: nvme-rdma host and
# nvmet-rdma target on one sroce device (as nvmeof-loopback.sh), connected
# with `nvme connect` (a write and a poll queue, reconnect every second,
# the controller given up only after 60 s). While fio writes 4 KiB blocks
# at random with crc32c verify headers, the subsystem is taken off the
# target's port (nvmet drops its controllers and closes the listener):
# the host must lose the controller, fail at least one reconnect attempt,
# and once the subsystem is back on the port reconnect and carry on. fio's
# verify pass then reads every block back and checks it; after disconnect
# sroce's resource counts (rdma resource: pd, cq, qp, cm_id, mr, srq) are
# what they were before connecting.
#
# Arguments: [--cycles N] (default 1; nvmeof-reconnect-full.sh: 10)
# [sroce|rxe].
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"
. "$SROCE_TOP/tests/vm/lib-nvmeof.bash"

CYCLES=1 PROVIDER=''
while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) CYCLES=$2; shift 2 ;;
	'' | sroce | rxe) PROVIDER=$1; shift ;;
	*) fail "unknown argument '$1'" ;;
	esac
done

# fio pauses THINK_US after every 16 blocks, which it cannot spend during
# an outage (nothing completes then), so it is still writing when the
# cycles end: 2 MiB (32 pauses, 3.2 s) a cycle, where the test itself
# spends 0.3-2 s between two outages under TCG, and 2 MiB more. What is
# written before the first outage, during each (queued, and in flight when
# the queues went down) and after it is all verified at the end.
MIB=$((2 * (CYCLES + 1)))
NVMF_RAM_MIB=$MIB
THINK_US=100000
# Expected while the port is away: the queues' errors and the refused
# reconnects.
NVMF_EXPECTED='Failed reconnect attempt|rdma connection establishment failed|Connect rejected|starting error recovery|Reconnecting in'

# failed_attempts: how many reconnects of NVMF_CTRL failed since the mark.
failed_attempts() {
	nvmf_dmesg | grep -c "$NVMF_CTRL: Failed reconnect attempt" || true
}

more_failed_than() { [ "$(failed_attempts)" -gt "$1" ]; }

# ios_done: reads and writes completed on the controller's path (the
# kernel's partition scan reads it before fio starts: writes_done counts
# fio's first writes).
ios_done() { echo $(($(nvmf_path_stat 1) + $(nvmf_path_stat 5))); }
more_ios_than() { [ "$(ios_done)" -gt "$1" ]; }
writes_done() { [ "$(nvmf_path_stat 5)" -gt 0 ]; }

not_live() { ! nvmf_ctrl_is live; }

# cycle K: take the subsystem off the port and put it back while fio runs.
cycle() {
	local failed ios

	kill -0 "$NVMF_FIO_PID" 2>/dev/null ||
		fail "fio ended before cycle $1: nothing was in flight across the reconnect"
	failed=$(failed_attempts)
	nvmf_port_unlink
	wait_for "$WAIT" not_live || fail "cycle $1: $NVMF_CTRL still live without its port"
	log "cycle $1: $NVMF_CTRL is $(nvmf_ctrl_state)"
	wait_for "$WAIT" more_failed_than "$failed" ||
		fail "cycle $1: no failed reconnect attempt while the port was away"
	nvmf_port_link
	wait_for 40 nvmf_ctrl_is live ||
		fail "cycle $1: $NVMF_CTRL is $(nvmf_ctrl_state), not live again"
	ios=$(ios_done)
	wait_for "$WAIT" more_ios_than "$ios" || fail "cycle $1: no I/O completed after reconnecting"
	log "cycle $1: reconnected after $(($(failed_attempts) - failed)) failed attempt(s), I/O goes on"
}

trap nvmf_cleanup EXIT
nvmf_dmesg_mark
rdma_setup "$PROVIDER"
nvmf_target_up "$SROCE_IP"
counts=$(nvmf_res_but_cq "$RDMA_DEV")
nvmf_discover "$SROCE_IP"
nvmf_res_settle "$RDMA_DEV" "$counts"
nvmf_connect "$SROCE_IP" --reconnect-delay=1 --ctrl-loss-tmo=60

nvmf_fio_start fio.out "${NVMF_FIO_COMMON[@]}" "${NVMF_FIO_AIO[@]}" --size="${MIB}M" \
	--thinktime="$THINK_US" --thinktime_blocks=16
wait_for "$WAIT" writes_done || fail "fio's first writes did not complete"
for ((k = 1; k <= CYCLES; k++)); do
	cycle "$k"
done
nvmf_fio_finish fio.out
log "fio: $MIB MiB of random writes across $CYCLES reconnect(s) verified (crc32c)"

nvmf_disconnect
nvmf_expect_res "$RDMA_DEV"
nvmf_target_down
trap - EXIT
nvmf_check_dmesg
nvmf_unload
rdma_teardown
