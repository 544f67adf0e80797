#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 300
#
# ib_write_lat on one device with two vCPUs: both perftest processes
# busy-poll, so every CPU is taken. The transmit thread must then stay
# asleep (it does not poll a CPU another task wants, and a doorbell whose
# pass sent everything does not wake it): each post rings the doorbell and
# runs its own pass. Before, every doorbell woke the thread, which took a
# CPU from the very process waiting for the data (loopback 8-byte latency
# in milliseconds). Judged by the thread's sleeps, not by time.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

ITERS=200

rdma_setup sroce

count_tx_wakeups perftest_loopback ib_write_lat lat -s 8 -n "$ITERS"
log "$((2 * ITERS)) posts: $DOORBELLS doorbells, the transmit thread slept $TX_SLEEPS times"
# Allowed: a few wake-ups around connection setup, and the re-probes (a
# doorbell wakes the thread to look for a free CPU after 1, 2, 4 .. ms,
# then every 100 ms: SROCE_TX_REPROBE_MAX_MS). Before, nearly every doorbell woke it (177..402 of 400 measured).
allowed=$((2 * ITERS / 4))
[ "$TX_SLEEPS" -le "$allowed" ] ||
	fail "the transmit thread was woken $TX_SLEEPS times for $((2 * ITERS)) posts on busy CPUs (allowed $allowed)"
log "busy CPUs: posts run their own pass, the transmit thread stays asleep"
