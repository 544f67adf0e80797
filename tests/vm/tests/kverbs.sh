#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# cpus: 2
# timeout: 240
#
# Kernel consumers' verbs: the test module (tests/kmod/sroce_kverbs_test.c)
# runs its cases against sroce0 - PD and DMA MR, CQs in every poll context,
# RC SEND/WRITE/READ between two kernel QPs through the device's own GID,
# posts from softirq and with IRQs off, ib_drain_qp, notification, error
# cases - and prints one KTAP line per case. Every case must say ok.
# Then, with the module holding a kernel PD, sroce_verbs_test names that
# PD's DMA lkey in a user SEND and as rkey in a user WRITE: both must
# complete in error (err_kernel_lkey, err_kernel_rkey).
# With "rxe" as argument the same runs against rdma_rxe.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

require_verbs_test

rdma_setup "${1:-}"
run_kverbs_cases

run insmod "$KVERBS_KMOD" dev="$RDMA_DEV" gid_index="$GID_INDEX" hold_pd=1 ||
	fail "insmod hold_pd=1 failed"
key=$(cat /sys/module/sroce_kverbs_test/parameters/held_lkey)
log "kernel PD's DMA key: $key"
SROCE_KERNEL_KEY=$key run_verbs kkey.out --loopback -d "$RDMA_DEV" \
	-g "$GID_INDEX" --only err_kernel_lkey --only err_kernel_rkey
grep -c '^ok ' kkey.out | grep -qx 2 || fail "the two kernel-key cases did not both run"
run rmmod sroce_kverbs_test
rdma_teardown
