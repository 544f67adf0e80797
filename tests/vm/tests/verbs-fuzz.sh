#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: shared
# timeout: 240
#
# sroce_verbs_fuzz (tests/verbs/verbs_fuzz.c): random sequences of verbs
# with hostile values - objects created, used and destroyed in any order,
# modify_qp to any state with any mask, posts with bad keys, opcodes and
# SGEs in every state, RC traffic between random QPs, child processes
# killed holding objects - seed after seed. Every verb must succeed or fail
# with an errno a user can act on; afterwards the kernel log is quiet
# (vm-run's splat check), and "rdma link delete" and "rmmod sroce" both
# succeed, so nothing the fuzz did left a reference behind.
#
#   verbs-fuzz.sh [--seeds "S1 S2 ..."] [--limit SEC]
#
# One seed of 15 s in make check; verbs-fuzz-full runs eight of 150 s.
. "$SROCE_TOP/tests/vm/lib.sh"
. "$SROCE_TOP/tests/vm/lib-rdma.bash"

VFUZZ=$SROCE_TOP/build/verbs/sroce_verbs_fuzz
SEEDS="1"
LIMIT=15

while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) SEEDS=$2; shift 2 ;;
	--limit) LIMIT=$2; shift 2 ;;
	'') shift ;;		# vm-run may pass an empty argument
	*) fail "unknown argument '$1'" ;;
	esac
done

[ -x "$VFUZZ" ] || fail "$VFUZZ not built (make -C tests/verbs O=\$PWD/build/verbs)"
rdma_setup sroce
for seed in $SEEDS; do
	out=vfuzz-$seed.out
	rc=0
	log "+ $VFUZZ $RDMA_DEV $seed $LIMIT"
	timeout $((LIMIT + 60)) "$VFUZZ" "$RDMA_DEV" "$seed" "$LIMIT" > "$out" 2>&1 || rc=$?
	tail -n 20 "$out"
	[ "$rc" = 0 ] || fail "seed $seed: sroce_verbs_fuzz exited with status $rc: $(grep -m 3 '^unexpected' "$out" | tr '\n' ';')"
	grep -q '^fuzzed [0-9]* verbs' "$out" || fail "seed $seed: no summary line"
done
if dmesg | grep -E "$SPLAT"; then
	fail "kernel log shows a splat after the fuzz"
fi
delete_and_unload_sroce
