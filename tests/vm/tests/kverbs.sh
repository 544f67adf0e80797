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

KMOD=$(dirname "$SROCE_KO")/kmod/sroce_kverbs_test.ko
[ -f "$KMOD" ] || fail "$KMOD not built (make modules-all)"
require_verbs_test

rdma_setup "${1:-}"
dmesg -c > /dev/null
rc=0
run insmod "$KMOD" dev="$RDMA_DEV" gid_index="$GID_INDEX" || rc=$?
ktap=$(dmesg | sed -n 's/.*sroce_kverbs_test: //p')
echo "$ktap"
[ "$rc" = 0 ] || fail "insmod failed (status $rc): a case failed"
run rmmod sroce_kverbs_test
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<< "$ktap")
oks=$(grep -c '^ok ' <<< "$ktap" || true)
[ -n "$plan" ] && [ "$plan" -gt 0 ] || fail "no KTAP plan line"
! grep -q '^not ok ' <<< "$ktap" || fail "a case failed"
[ "$oks" = "$plan" ] || fail "$oks of $plan cases reported ok"
log "all $plan kernel-verbs cases ok"

run insmod "$KMOD" dev="$RDMA_DEV" gid_index="$GID_INDEX" hold_pd=1 ||
	fail "insmod hold_pd=1 failed"
key=$(cat /sys/module/sroce_kverbs_test/parameters/held_lkey)
log "kernel PD's DMA key: $key"
SROCE_KERNEL_KEY=$key run_verbs kkey.out --loopback -d "$RDMA_DEV" \
	-g "$GID_INDEX" --only err_kernel_lkey --only err_kernel_rkey
grep -c '^ok ' kkey.out | grep -qx 2 || fail "the two kernel-key cases did not both run"
run rmmod sroce_kverbs_test
rdma_teardown
